/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bus-guard.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "mglrud/shared/macro.h"
#include "mglrud/shared/time.h"

/* A byte queue: what was read from one side and not yet written to the other, data[off, len).
 * Writing from the front moves the offset, not the bytes (a peer that reads its 8 MiB of
 * replies 4 KiB at a time must not cost 8 MiB of memmove() per read). */
struct queue {
        char *data;
        size_t off, len, cap;
};

struct bus_guard {
        sd_event *event;
        int peer_fd;              /* the client's socket */
        int daemon_fd;            /* our end of the socketpair; sd-bus has the other */
        uid_t uid;
        pid_t pid;
        sd_event_source *peer_src, *daemon_src, *deadline_src, *idle_src;
        uint64_t idle_usec;       /* 0: no idle timeout */
        struct queue to_daemon, to_peer;

        /* framing of what the peer sends */
        bool began;               /* the SASL phase ended with BEGIN */
        char line[BUS_GUARD_MAX_LINE];
        size_t line_len;
        uint8_t header[16];       /* the fixed part of the message being read */
        size_t header_len;
        uint64_t message_left;    /* bytes of the current message after its fixed header */

        bool closed;
        bus_guard_closed_fn closed_fn;
        bus_guard_backlog_fn backlog_fn;
        void *userdata;
};

static size_t queue_size(const struct queue *q) {
        return q->len - q->off;
}

static void queue_free(struct queue *q) {
        free(q->data);
        *q = (struct queue) {};
}

static int queue_push(struct queue *q, const void *p, size_t n) {
        if (q->off > 0 && q->len + n > q->cap) {
                memmove(q->data, q->data + q->off, queue_size(q));
                q->len -= q->off;
                q->off = 0;
        }
        if (q->len + n > q->cap) {
                size_t cap = MAX(q->cap * 2, q->len + n);
                char *d = realloc(q->data, cap);
                if (!d)
                        return -ENOMEM;
                q->data = d;
                q->cap = cap;
        }
        memcpy(q->data + q->len, p, n);
        q->len += n;
        return 0;
}

/* Writes what fd takes of q. Returns 0 (also when fd is full) or a negative errno. */
static int queue_flush(struct queue *q, int fd) {
        while (queue_size(q) > 0) {
                ssize_t n = send(fd, q->data + q->off, queue_size(q), MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n < 0)
                        return errno == EAGAIN || errno == EINTR ? 0 : negative_errno();
                q->off += (size_t) n;
        }
        q->off = q->len = 0;
        return 0;
}

static void guard_close(struct bus_guard *g, const char *reason) {
        if (g->closed)
                return;
        g->closed = true;
        g->peer_src = sd_event_source_disable_unref(g->peer_src);
        g->daemon_src = sd_event_source_disable_unref(g->daemon_src);
        g->deadline_src = sd_event_source_disable_unref(g->deadline_src);
        g->idle_src = sd_event_source_disable_unref(g->idle_src);
        /* What the peer left unread goes now: it counts against the replies' budget. */
        queue_free(&g->to_daemon);
        queue_free(&g->to_peer);
        closep_reset(&g->peer_fd);
        /* sd-bus sees EOF on its end and disconnects. */
        closep_reset(&g->daemon_fd);
        if (g->closed_fn)
                g->closed_fn(g, reason, g->userdata);
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        guard_close(userdata, "too slow: a line or message took longer than 5s");
        return 0;
}

/* Arms the deadline for the unit (line or message) that starts now, unless one runs. */
static int deadline_start(struct bus_guard *g) {
        if (g->deadline_src)
                return 0;
        return sd_event_add_time_relative(g->event, &g->deadline_src, CLOCK_MONOTONIC,
                                          BUS_GUARD_DEADLINE_USEC, 0, on_deadline, g);
}

static void deadline_stop(struct bus_guard *g) {
        g->deadline_src = sd_event_source_disable_unref(g->deadline_src);
}

static int on_idle(sd_event_source *s, uint64_t usec, void *userdata) {
        struct bus_guard *g = userdata;
        char why[96];
        snprintf(why, sizeof why, "idle: no message for %.1f s",
                 (double) g->idle_usec / USEC_PER_SEC);
        guard_close(g, why);
        return 0;
}

/* Starts the idle timeout again: the peer just sent a whole message or read replies. */
static int idle_restart(struct bus_guard *g) {
        if (g->idle_usec == 0)
                return 0;
        if (g->idle_src)
                return sd_event_source_set_time_relative(g->idle_src, g->idle_usec);
        return sd_event_add_time_relative(g->event, &g->idle_src, CLOCK_MONOTONIC, g->idle_usec,
                                          0, on_idle, g);
}

static uint32_t header_u32(const struct bus_guard *g, size_t off) {
        const uint8_t *p = g->header + off;
        if (g->header[0] == 'l')
                return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
                       (uint32_t) p[3] << 24;
        return (uint32_t) p[3] | (uint32_t) p[2] << 8 | (uint32_t) p[1] << 16 |
               (uint32_t) p[0] << 24;
}

/* A whole message arrived: its deadline ends, the idle timeout starts again. */
static void message_done(struct bus_guard *g) {
        deadline_stop(g);
        (void) idle_restart(g);
}

/* Checks the bytes the peer sent, in order, and queues them for sd-bus. Returns NULL, or why
 * the connection is to be closed. */
static const char *guard_feed(struct bus_guard *g, const char *p, size_t n) {
        for (size_t i = 0; i < n;) {
                if (!g->began) {
                        /* SASL: "\0" then CRLF-terminated lines until BEGIN. */
                        char c = p[i++];
                        if (g->line_len == sizeof g->line)
                                return "SASL line too long";
                        g->line[g->line_len++] = c;
                        deadline_start(g);
                        if (c != '\n')
                                continue;
                        bool begin = g->line_len >= 7 &&
                                     memcmp(g->line + g->line_len - 7, "BEGIN\r\n", 7) == 0;
                        if (queue_push(&g->to_daemon, g->line, g->line_len) < 0)
                                return "out of memory";
                        g->line_len = 0;
                        if (begin) {
                                g->began = true;
                                message_done(g);
                        }
                        continue;
                }
                if (g->message_left > 0) {
                        size_t k = (size_t) MIN((uint64_t) (n - i), g->message_left);
                        if (queue_push(&g->to_daemon, p + i, k) < 0)
                                return "out of memory";
                        i += k;
                        g->message_left -= k;
                        if (g->message_left == 0)
                                message_done(g);
                        continue;
                }
                /* The fixed header: endianness, type, flags, version, body length, serial,
                 * length of the header fields array (padded to 8 after it). */
                g->header[g->header_len++] = (uint8_t) p[i++];
                deadline_start(g);
                if (g->header_len < sizeof g->header)
                        continue;
                g->header_len = 0;
                if ((g->header[0] != 'l' && g->header[0] != 'B') || g->header[3] != 1)
                        return "not a D-Bus message";
                uint64_t fields = header_u32(g, 12), body = header_u32(g, 4);
                uint64_t total = 16 + ((fields + 7) & ~UINT64_C(7)) + body;
                if (total > BUS_GUARD_MAX_MESSAGE)
                        return "message larger than 64K";
                if (queue_push(&g->to_daemon, g->header, sizeof g->header) < 0)
                        return "out of memory";
                g->message_left = total - 16;
                if (g->message_left == 0)
                        message_done(g);
        }
        return NULL;
}

/* Sets which events each side waits for: read the peer only while sd-bus keeps up, read
 * sd-bus's replies only while the peer keeps up. */
static void guard_update_events(struct bus_guard *g) {
        if (g->closed)
                return;
        sd_event_source_set_io_events(g->peer_src,
                                      (queue_size(&g->to_daemon) < BUS_GUARD_MAX_MESSAGE ? EPOLLIN : 0) |
                                              (queue_size(&g->to_peer) > 0 ? EPOLLOUT : 0));
        sd_event_source_set_io_events(g->daemon_src,
                                      (queue_size(&g->to_peer) < BUS_GUARD_MAX_BACKLOG ? EPOLLIN : 0) |
                                              (queue_size(&g->to_daemon) > 0 ? EPOLLOUT : 0));
}

static int on_peer(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct bus_guard *g = userdata;
        char buf[4096];

        if (revents & EPOLLIN) {
                ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
                        guard_close(g, NULL);
                        return 0;
                }
                const char *why = n > 0 ? guard_feed(g, buf, (size_t) n) : NULL;
                if (why) {
                        guard_close(g, why);
                        return 0;
                }
                if (queue_flush(&g->to_daemon, g->daemon_fd) < 0) {
                        guard_close(g, NULL);
                        return 0;
                }
        }
        if (revents & EPOLLOUT) {
                size_t before = queue_size(&g->to_peer);
                if (queue_flush(&g->to_peer, fd) < 0) {
                        guard_close(g, NULL);
                        return 0;
                }
                /* A peer that reads a long reply slowly is not idle. */
                if (queue_size(&g->to_peer) < before)
                        (void) idle_restart(g);
        }
        if (revents & (EPOLLHUP | EPOLLERR) && !(revents & EPOLLIN)) {
                guard_close(g, NULL);
                return 0;
        }
        guard_update_events(g);
        return 0;
}

static int on_daemon(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct bus_guard *g = userdata;
        char buf[16384];

        if (revents & EPOLLIN) {
                ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
                        guard_close(g, NULL);
                        return 0;
                }
                if (n > 0 && queue_push(&g->to_peer, buf, (size_t) n) < 0) {
                        guard_close(g, "out of memory");
                        return 0;
                }
                if (queue_flush(&g->to_peer, g->peer_fd) < 0) {
                        guard_close(g, NULL);
                        return 0;
                }
                if (bus_guard_backlog(g) >= BUS_GUARD_MAX_BACKLOG) {
                        guard_close(g, "does not read its replies (8 MiB unread)");
                        return 0;
                }
                /* The owner may drop this peer or another for the budget of all. */
                if (n > 0 && g->backlog_fn) {
                        g->backlog_fn(g, g->userdata);
                        if (g->closed)
                                return 0;
                }
        }
        if ((revents & EPOLLOUT) && queue_flush(&g->to_daemon, fd) < 0) {
                guard_close(g, NULL);
                return 0;
        }
        guard_update_events(g);
        return 0;
}

int bus_guard_new(sd_event *e, int peer_fd, bus_guard_closed_fn closed, void *userdata,
                  struct bus_guard **ret, int *ret_daemon_fd) {
        struct ucred cred;
        socklen_t len = sizeof cred;
        int pair[2] = { -1, -1 }, r;

        struct bus_guard *g = calloc(1, sizeof *g);
        if (!g) {
                close(peer_fd);
                return -ENOMEM;
        }
        g->peer_fd = peer_fd;
        g->daemon_fd = -1;
        g->closed_fn = closed;
        g->userdata = userdata;
        g->event = sd_event_ref(e);
        if (getsockopt(peer_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
                r = negative_errno();
                goto fail;
        }
        g->uid = cred.uid;
        g->pid = cred.pid;
        /* What the kernel queues for a peer that does not read is bounded by this socket's send
         * buffer (the kernel doubles the value for its overhead); it counts in the backlog. */
        int sndbuf = BUS_GUARD_PEER_SNDBUF;
        if (setsockopt(peer_fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf) < 0) {
                r = negative_errno();
                goto fail;
        }
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) < 0) {
                r = negative_errno();
                goto fail;
        }
        g->daemon_fd = pair[0];
        if ((r = sd_event_add_io(e, &g->peer_src, peer_fd, EPOLLIN, on_peer, g)) < 0 ||
            (r = sd_event_add_io(e, &g->daemon_src, g->daemon_fd, EPOLLIN, on_daemon, g)) < 0 ||
            (r = deadline_start(g)) < 0) /* the SASL phase must begin and end in time */
                goto fail;
        *ret = g;
        *ret_daemon_fd = pair[1];
        return 0;
fail:
        closep(&pair[1]);
        g->closed = true; /* no callback for a guard that never was */
        bus_guard_free(g);
        return r;
}

void bus_guard_set_backlog_callback(struct bus_guard *g, bus_guard_backlog_fn fn) {
        g->backlog_fn = fn;
}

int bus_guard_set_idle_timeout(struct bus_guard *g, uint64_t usec) {
        g->idle_usec = usec;
        g->idle_src = sd_event_source_disable_unref(g->idle_src);
        return idle_restart(g);
}

int bus_guard_set_priority(struct bus_guard *g, int64_t priority) {
        int r = sd_event_source_set_priority(g->peer_src, priority);
        if (r >= 0)
                r = sd_event_source_set_priority(g->daemon_src, priority);
        return r;
}

/* Returns the bytes the kernel holds in the peer's socket that the peer has not read: for a
 * unix socket SIOCOUTQ is the memory its queued skbs take (sk_wmem_alloc), which is charged to
 * the daemon, not to the peer. 0 once the socket is closed. */
static size_t peer_kernel_queue(const struct bus_guard *g) {
        int queued = 0;
        if (g->peer_fd < 0 || ioctl(g->peer_fd, SIOCOUTQ, &queued) < 0 || queued < 0)
                return 0;
        return (size_t) queued;
}

size_t bus_guard_backlog(const struct bus_guard *g) {
        return queue_size(&g->to_peer) + peer_kernel_queue(g);
}

void bus_guard_close(struct bus_guard *g, const char *reason) {
        guard_close(g, reason);
}

uid_t bus_guard_uid(const struct bus_guard *g) {
        return g->uid;
}

pid_t bus_guard_pid(const struct bus_guard *g) {
        return g->pid;
}

void bus_guard_free(struct bus_guard *g) {
        if (!g)
                return;
        g->closed_fn = NULL;
        guard_close(g, NULL);
        sd_event_source_disable_unref(g->peer_src);
        sd_event_source_disable_unref(g->daemon_src);
        sd_event_source_disable_unref(g->deadline_src);
        sd_event_source_disable_unref(g->idle_src);
        closep(&g->peer_fd);
        closep(&g->daemon_fd);
        queue_free(&g->to_daemon);
        queue_free(&g->to_peer);
        sd_event_unref(g->event);
        free(g);
}
