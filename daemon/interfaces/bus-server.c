/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-server.c: the private socket (RUNTIME_DIR/bus, locked so that two daemons cannot share
 * it), its connections behind the guard with per-uid and total limits, and the name on the
 * system bus. The methods are in bus.c. */
#include "bus-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "config.h"
#include "mglrud/core/manager.h"
#include "bus-budget.h"
#include "bus-guard.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/time.h"

/* Connections on the private socket: at most this many per unprivileged uid, and in all (root
 * gets BUS_ROOT_RESERVE more, so that root's mglructl gets through while others fill up). */
#define BUS_MAX_CONNECTIONS_PER_UID 16
#define BUS_MAX_CONNECTIONS 64
#define BUS_ROOT_RESERVE 16
/* Each connection holds 3 descriptors: the manager keeps part of its reserve for them. */
_Static_assert(3 * (BUS_MAX_CONNECTIONS + BUS_ROOT_RESERVE) <= MANAGER_FD_RESERVE / 2,
               "the bus takes more descriptors than the manager keeps for it");
/* An unprivileged connection that sends no message and reads no reply for this long is dropped:
 * 4 users holding 16 idle connections each would lock every other user out. */
#define BUS_IDLE_TIMEOUT_USEC (60 * USEC_PER_SEC)
/* Root's connections are served first (their sockets and sd-bus objects are of this priority):
 * what an unprivileged flood delays them by is the one event being dispatched. */
#define BUS_ROOT_PRIORITY SD_EVENT_PRIORITY_IMPORTANT
/* After accept() failed with EMFILE/ENFILE, stop accepting for this long (else the listening
 * socket stays readable and the loop spins). */
#define BUS_ACCEPT_PAUSE_USEC (1 * USEC_PER_SEC)

/* Returns the private-socket connection whose sd-bus object is bus, or NULL. */
static struct bus_conn *find_conn(struct bus_server *b, sd_bus *bus) {
        return bus_conn_find(b->conns, b->n_conns, bus);
}

static void conn_free(struct bus_conn *c) {
        if (!c)
                return;
        sd_event_source_disable_unref(c->kick);
        bus_guard_free(c->guard);
        sd_bus_flush_close_unref(c->bus);
        free(c);
}

static void remove_conn(struct bus_server *b, struct bus_conn *c) {
        for (size_t i = 0; i < b->n_conns; i++)
                if (b->conns[i] == c) {
                        b->conns[i] = b->conns[--b->n_conns];
                        break;
                }
}

/* Logs a refused or dropped peer, at most one line every 5 s (a flood must not flood the log). */
_printf_(2, 3) static void log_refusal(struct bus_server *b, const char *fmt, ...) {
        uint64_t now = now_monotonic_usec();
        char msg[256];
        va_list ap;

        if (b->last_refusal_log_usec && now - b->last_refusal_log_usec < 5 * USEC_PER_SEC) {
                b->refusals_unlogged++;
                return;
        }
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (b->refusals_unlogged)
                log_notice("%s (and %u more since the last such line)", msg, b->refusals_unlogged);
        else
                log_notice("%s", msg);
        b->last_refusal_log_usec = now;
        b->refusals_unlogged = 0;
}

static int on_disconnected(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct bus_server *b = userdata;
        struct bus_conn *c = find_conn(b, sd_bus_message_get_bus(msg));
        if (c) {
                remove_conn(b, c);
                /* sd_bus_process() holds a reference to the bus until it returns. */
                conn_free(c);
        }
        return 0;
}

/* sd-bus ends the SASL phase without looking at the bytes it read after BEGIN: a call sent in
 * the same write as BEGIN (dbus-send --peer does) sits in its buffer, and nothing on the socket
 * wakes it again. Once it says it is connected, process it until it has nothing left. */
static int on_kick(sd_event_source *s, void *userdata) {
        struct bus_conn *c = userdata;
        /* A call may disconnect the peer and free c: hold the bus, not c. */
        _cleanup_(sd_bus_unrefp) sd_bus *bus = sd_bus_ref(c->bus);
        c->kick = sd_event_source_disable_unref(c->kick);
        /* At most what the guard let through: one message of 64 KiB is at least 16 bytes. */
        for (unsigned i = 0; i < BUS_GUARD_MAX_MESSAGE / 16; i++)
                if (sd_bus_process(bus, NULL) <= 0)
                        break; /* an error disconnects, as in sd-bus's own loop */
        return 0;
}

static int on_connected(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct bus_server *b = userdata;
        struct bus_conn *c = find_conn(b, sd_bus_message_get_bus(msg));
        if (!c || c->kick)
                return 0;
        int r = sd_event_add_defer(b->event, &c->kick, on_kick, c);
        if (r < 0)
                return log_debug_errno(r, "Cannot look at a new bus connection's first call: %m");
        (void) sd_event_source_set_priority(c->kick, c->uid == 0 ? BUS_ROOT_PRIORITY :
                                                                    SD_EVENT_PRIORITY_NORMAL);
        return 0;
}

static void on_guard_closed(struct bus_guard *g, const char *reason, void *userdata) {
        struct bus_conn *c = userdata;
        if (reason)
                log_refusal(c->b, "Dropped the bus connection of uid %u (pid %d): %s.",
                            (unsigned) bus_guard_uid(g), (int) bus_guard_pid(g), reason);
        /* sd-bus now reads EOF from the guard's socketpair and sends itself Disconnected. */
}

/* The replies all peers hold passed the budget: drops the unprivileged peers that hold the
 * most until the rest fits (bus-budget.h). */
static void on_guard_backlog(struct bus_guard *g, void *userdata) {
        struct bus_server *b = ((struct bus_conn *) userdata)->b;
        struct bus_budget_peer peers[BUS_MAX_CONNECTIONS + BUS_ROOT_RESERVE];
        size_t n = MIN(b->n_conns, ELEMENTSOF(peers)), victim;

        for (size_t i = 0; i < n; i++)
                peers[i] = (struct bus_budget_peer) { .uid = b->conns[i]->uid,
                                                      .held = bus_guard_backlog(b->conns[i]->guard) };
        while (bus_budget_victim(peers, n, BUS_BUDGET_BYTES, &victim) >= 0) {
                char why[160];
                snprintf(why, sizeof why, "it held %zu KiB of unread replies, the most while all "
                         "peers held %zu KiB (at most %u KiB in all)", peers[victim].held >> 10,
                         bus_budget_total(peers, n) >> 10, BUS_BUDGET_BYTES >> 10);
                peers[victim].held = 0;
                bus_guard_close(b->conns[victim]->guard, why);
        }
}

/* Returns NULL when a peer of uid may have one more connection, else why not. */
static const char *conn_refusal(struct bus_server *b, uid_t uid, char *buf, size_t size) {
        size_t same = 0;
        for (size_t i = 0; i < b->n_conns; i++)
                same += b->conns[i]->uid == uid;
        if (uid == 0) {
                if (b->n_conns < BUS_MAX_CONNECTIONS + BUS_ROOT_RESERVE)
                        return NULL;
                snprintf(buf, size, "the daemon has %zu connections, at most %d in all with "
                         "root's reserve", b->n_conns, BUS_MAX_CONNECTIONS + BUS_ROOT_RESERVE);
        } else if (same >= BUS_MAX_CONNECTIONS_PER_UID)
                snprintf(buf, size, "it has %zu connections, at most %d per user", same,
                         BUS_MAX_CONNECTIONS_PER_UID);
        else if (b->n_conns >= BUS_MAX_CONNECTIONS)
                snprintf(buf, size, "it has %zu; the daemon has %zu, at most %d in all (root "
                         "has %d more)", same, b->n_conns, BUS_MAX_CONNECTIONS, BUS_ROOT_RESERVE);
        else
                return NULL;
        return buf;
}

int bus_server_accept_fd(struct bus_server *b, int fd) {
        struct bus_conn *c = calloc(1, sizeof *c);
        int daemon_fd, r;

        if (!c) {
                close(fd);
                return -ENOMEM;
        }
        c->b = b;
        r = bus_guard_new(b->event, fd, on_guard_closed, c, &c->guard, &daemon_fd);
        if (r < 0) {
                free(c);
                return r;
        }
        c->uid = bus_guard_uid(c->guard);
        char buf[160];
        const char *why = conn_refusal(b, c->uid, buf, sizeof buf);
        if (why) {
                log_refusal(b, "Refused a bus connection of uid %u (pid %d): %s.",
                            (unsigned) c->uid, (int) bus_guard_pid(c->guard), why);
                close(daemon_fd);
                conn_free(c);
                return 0;
        }
        struct bus_conn **n = realloc(b->conns, (b->n_conns + 1) * sizeof *n);
        if (!n) {
                close(daemon_fd);
                conn_free(c);
                return -ENOMEM;
        }
        b->conns = n;
        if ((r = sd_bus_new(&c->bus)) < 0 || (r = sd_bus_set_fd(c->bus, daemon_fd, daemon_fd)) < 0) {
                close(daemon_fd);
                conn_free(c);
                return r;
        }
        if ((r = sd_bus_set_server(c->bus, 1, b->id)) < 0 ||
            (r = sd_bus_set_anonymous(c->bus, 1)) < 0 ||
            (r = sd_bus_negotiate_fds(c->bus, 0)) < 0 ||
            (r = sd_bus_add_object_vtable(c->bus, NULL, BUS_OBJECT_PATH, BUS_INTERFACE,
                                          bus_manager_vtable, b)) < 0 ||
            (r = sd_bus_add_match(c->bus, NULL,
                                  "type='signal',path='/org/freedesktop/DBus/Local',"
                                  "interface='org.freedesktop.DBus.Local',member='Disconnected'",
                                  on_disconnected, b)) < 0 ||
            (r = sd_bus_add_match(c->bus, NULL,
                                  "type='signal',path='/org/freedesktop/DBus/Local',"
                                  "interface='org.freedesktop.DBus.Local',member='Connected'",
                                  on_connected, b)) < 0 ||
            (r = sd_bus_set_connected_signal(c->bus, 1)) < 0 ||
            (r = sd_bus_start(c->bus)) < 0 ||
            (r = sd_bus_attach_event(c->bus, b->event, c->uid == 0 ? BUS_ROOT_PRIORITY :
                                                                    SD_EVENT_PRIORITY_NORMAL)) < 0 ||
            (r = c->uid == 0 ? bus_guard_set_priority(c->guard, BUS_ROOT_PRIORITY) :
                               bus_guard_set_idle_timeout(c->guard, BUS_IDLE_TIMEOUT_USEC)) < 0) {
                conn_free(c);
                return r;
        }
        bus_guard_set_backlog_callback(c->guard, on_guard_backlog);
        b->conns[b->n_conns++] = c;
        return 0;
}

static int on_accept_pause_end(sd_event_source *s, uint64_t usec, void *userdata) {
        struct bus_server *b = userdata;
        b->accept_pause = sd_event_source_disable_unref(b->accept_pause);
        return sd_event_source_set_enabled(b->listen_source, SD_EVENT_ON);
}

static int on_listen(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct bus_server *b = userdata;
        int nfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (nfd < 0) {
                int r = negative_errno();
                if (r == -EAGAIN || r == -EINTR || r == -ECONNABORTED)
                        return 0;
                log_refusal(b, "Cannot accept on %s: %s; pausing for a second.", b->socket_path,
                            strerror(-r));
                /* Out of descriptors (EMFILE/ENFILE): the pending connection stays, and the
                 * socket with it readable; stop watching it for a while instead of spinning. */
                sd_event_source_set_enabled(b->listen_source, SD_EVENT_OFF);
                if (!b->accept_pause)
                        (void) sd_event_add_time_relative(b->event, &b->accept_pause,
                                                          CLOCK_MONOTONIC, BUS_ACCEPT_PAUSE_USEC,
                                                          0, on_accept_pause_end, b);
                return 0;
        }
        int r = bus_server_accept_fd(b, nfd);
        if (r < 0)
                log_warning_errno(r, "Cannot set up a bus connection: %m");
        return 0;
}

/* Creates runtime_dir if needed and checks that it is a directory of ours that nobody else may
 * write to: the socket there answers privileged calls. Returns 0 or -EPERM (logged). */
static int check_runtime_dir(const char *runtime_dir) {
        struct stat st;
        if (mkdir(runtime_dir, 0755) < 0 && errno != EEXIST)
                return log_error_errno(errno, "Cannot create %s: %m", runtime_dir);
        if (lstat(runtime_dir, &st) < 0)
                return log_error_errno(errno, "Cannot stat %s: %m", runtime_dir);
        if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 0022))
                return log_error_errno(EPERM, "%s must be a directory owned by uid %u and "
                                       "writable by it alone (it is %s, uid %u, mode %04o).",
                                       runtime_dir, (unsigned) geteuid(),
                                       S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
                                       (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777));
        return 0;
}

/* Takes runtime_dir/lock for the daemon's lifetime, so that a second daemon does not take over
 * the socket of the first. Returns 0, or -EBUSY (logged with the holder's pid) or -errno. */
static int lock_runtime_dir(struct bus_server *b, const char *runtime_dir) {
        _cleanup_free_ char *p = NULL;
        char pid[32] = "";
        if (asprintf(&p, "%s/lock", runtime_dir) < 0)
                return -ENOMEM;
        b->lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (b->lock_fd < 0)
                return log_error_errno(errno, "Cannot open %s: %m", p);
        if (flock(b->lock_fd, LOCK_EX | LOCK_NB) < 0) {
                int r = negative_errno();
                if (r != -EWOULDBLOCK)
                        return log_error_errno(r, "Cannot lock %s: %m", p);
                ssize_t n = pread(b->lock_fd, pid, sizeof pid - 1, 0);
                pid[n > 0 ? n : 0] = '\0';
                pid[strcspn(pid, "\n")] = '\0';
                return log_error_errno(EBUSY, "Another mglrud (pid %s) serves %s: not starting a "
                                       "second one there (see --runtime-dir).",
                                       *pid ? pid : "?", runtime_dir);
        }
        snprintf(pid, sizeof pid, "%d\n", (int) getpid());
        if (ftruncate(b->lock_fd, 0) < 0 || pwrite(b->lock_fd, pid, strlen(pid), 0) < 0)
                log_debug_errno(errno, "Cannot write the pid to %s: %m", p);
        return 0;
}

static int listen_socket(struct bus_server *b, const char *runtime_dir) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int r;
        if (asprintf(&b->socket_path, "%s/%s", runtime_dir, BUS_SOCKET_NAME) < 0)
                return -ENOMEM;
        if (strlen(b->socket_path) >= sizeof sa.sun_path)
                return -ENAMETOOLONG;
        strcpy(sa.sun_path, b->socket_path);
        if ((r = check_runtime_dir(runtime_dir)) < 0 || (r = lock_runtime_dir(b, runtime_dir)) < 0)
                return r;
        (void) unlink(b->socket_path);
        b->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (b->listen_fd < 0)
                return negative_errno();
        if (bind(b->listen_fd, (struct sockaddr *) &sa, sizeof sa) < 0 ||
            chmod(b->socket_path, 0666) < 0 || listen(b->listen_fd, SOMAXCONN) < 0)
                return negative_errno();
        return sd_event_add_io(b->event, &b->listen_source, b->listen_fd, EPOLLIN, on_listen, b);
}

/* Takes BUS_SERVICE on the system bus. Returns 0 or -errno (the caller only logs it). */
static int connect_system_bus(struct bus_server *b) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;
        if ((r = sd_bus_open_system(&bus)) < 0 ||
            (r = sd_bus_add_object_vtable(bus, NULL, BUS_OBJECT_PATH, BUS_INTERFACE,
                                          bus_manager_vtable, b)) < 0 ||
            (r = sd_bus_request_name(bus, BUS_SERVICE, 0)) < 0 ||
            (r = sd_bus_attach_event(bus, b->event, SD_EVENT_PRIORITY_NORMAL)) < 0)
                return r;
        b->system_bus = TAKE_PTR(bus);
        return 0;
}

int bus_server_new(struct manager *m, sd_event *e, const char *runtime_dir, bus_reload_t reload,
                   struct bus_server **ret) {
        struct bus_server *b = calloc(1, sizeof *b);
        if (!b)
                return -ENOMEM;
        b->m = m;
        b->reload = reload;
        b->event = sd_event_ref(e);
        b->listen_fd = -1;
        b->lock_fd = -1;
        int r = sd_id128_randomize(&b->id);
        if (r >= 0)
                r = listen_socket(b, runtime_dir);
        if (r < 0) {
                bus_server_free(b);
                return r;
        }
        if (strcmp(runtime_dir, MGLRUD_RUNTIME_DIR) == 0 && (r = connect_system_bus(b)) < 0)
                log_debug_errno(r, "Not on the system bus (%m); serving %s only.", b->socket_path);
        *ret = b;
        return 0;
}

void bus_server_cycle_done(struct bus_server *b) {
        if (!b || b->n_waiting == 0 || !manager_idle_profile_ready(b->m))
                return;
        for (size_t i = 0; i < b->n_waiting; i++) {
                /* A peer that went meanwhile makes the send fail: nothing to do about it. */
                int r = bus_answer_waiting(b, b->waiting[i]);
                if (r < 0)
                        log_debug_errno(r, "Cannot answer a waiting %s() call: %m",
                                        sd_bus_message_get_member(b->waiting[i]) ?: "?");
                sd_bus_message_unref(b->waiting[i]);
        }
        b->n_waiting = 0;
}

void bus_server_free(struct bus_server *b) {
        if (!b)
                return;
        for (size_t i = 0; i < b->n_waiting; i++)
                sd_bus_message_unref(b->waiting[i]);
        free(b->dump_cache.text);
        free(b->metrics_cache.text);
        for (size_t i = 0; i < b->n_conns; i++)
                conn_free(b->conns[i]);
        free(b->conns);
        sd_event_source_disable_unref(b->accept_pause);
        sd_bus_flush_close_unref(b->system_bus);
        sd_event_source_unref(b->listen_source);
        if (b->listen_fd >= 0) {
                close(b->listen_fd);
                (void) unlink(b->socket_path);
        }
        free(b->socket_path);
        closep(&b->lock_fd);
        sd_event_unref(b->event);
        free(b);
}
