/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mglructl-client.c: mglructl's side of the bus: connecting to the daemon's socket, calling a
 * method, reading an a{sv} reply. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "mglructl.h"
#include "mglrud/interfaces/bus-protocol.h"
#include "mglrud/shared/macro.h"

/* Returns whether the error r says that the daemon closed the socket. */
static bool closed_by_daemon(int r) {
        return r == -ENOTCONN || r == -ECONNRESET || r == -EPIPE;
}

/* Waits until the SASL phase has ended (sd_bus_start() only begins it): a refused connection is
 * then told from a failed call. Returns 0 or a negative errno (-ENOTCONN: the daemon closed it). */
static int wait_ready(sd_bus *bus) {
        for (;;) {
                int r = sd_bus_is_ready(bus);
                if (r != 0)
                        return r < 0 ? r : 0;
                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                if (!sd_bus_is_open(bus))
                        return -ENOTCONN;
                r = sd_bus_wait(bus, 10 * UINT64_C(1000000));
                if (r < 0)
                        return r;
                if (r == 0)
                        return -ETIMEDOUT;
        }
}

int ctl_connect(const char *runtime_dir, sd_bus **ret) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int r = snprintf(sa.sun_path, sizeof sa.sun_path, "%s/%s", runtime_dir,
                         BUS_SOCKET_NAME);
        if (r < 0 || (size_t) r >= sizeof sa.sun_path) {
                fprintf(stderr, "Socket path %s/%s is too long.\n", runtime_dir, BUS_SOCKET_NAME);
                return -ENAMETOOLONG;
        }
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0) {
                r = negative_errno();
                fprintf(stderr, "Cannot connect to mglrud at %s: %s (is mglrud running? see "
                        "--runtime-dir)\n", sa.sun_path, strerror(-r));
                if (fd >= 0)
                        close(fd);
                return r;
        }
        if ((r = sd_bus_new(&bus)) < 0 || (r = sd_bus_set_fd(bus, fd, fd)) < 0) {
                close(fd);
                fprintf(stderr, "Cannot set up the bus connection: %s\n", strerror(-r));
                return r;
        }
        if ((r = sd_bus_start(bus)) < 0 || (r = wait_ready(bus)) < 0) {
                if (closed_by_daemon(r))
                        fprintf(stderr, "mglrud at %s closed the connection before it was set up: "
                                "it refuses connections past its limits (16 per user, 64 in all) "
                                "and drops slow ones; its log says why.\n", sa.sun_path);
                else
                        fprintf(stderr, "Cannot talk to mglrud at %s: %s\n", sa.sun_path,
                                strerror(-r));
                return r;
        }
        *ret = TAKE_PTR(bus);
        return 0;
}

int ctl_call_failed(const char *member, sd_bus_error *error, int r) {
        fprintf(stderr, "%s failed: %s\n", member, error->message ? error->message : strerror(-r));
        r = sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED) ? EXIT_DENIED : EXIT_DAEMON;
        sd_bus_error_free(error);
        return r;
}

int ctl_call(sd_bus *bus, const char *member, const char *sig, const char *arg,
         sd_bus_message **ret_reply) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = sd_bus_call_method(bus, NULL, BUS_OBJECT_PATH, BUS_INTERFACE, member, &error,
                                   ret_reply, sig, arg);
        return r >= 0 ? 0 : ctl_call_failed(member, &error, r);
}

int ctl_read_fields(sd_bus_message *reply, struct field *f, size_t max) {
        size_t n = 0;
        int r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *contents;
                if (n == max)
                        return -E2BIG;
                f[n] = (struct field) {};
                if ((r = sd_bus_message_read(reply, "s", &f[n].key)) < 0 ||
                    (r = sd_bus_message_peek_type(reply, NULL, &contents)) < 0 ||
                    (r = sd_bus_message_enter_container(reply, 'v', contents)) < 0)
                        return r;
                int b = 0;
                f[n].type = contents[0];
                switch (f[n].type) {
                case 's':
                        r = sd_bus_message_read(reply, "s", &f[n].s);
                        break;
                case 't':
                        r = sd_bus_message_read(reply, "t", &f[n].t);
                        break;
                case 'b':
                        r = sd_bus_message_read(reply, "b", &b);
                        f[n].t = b;
                        break;
                case 'd':
                        r = sd_bus_message_read(reply, "d", &f[n].d);
                        break;
                default:
                        r = sd_bus_message_skip(reply, contents);
                        f[n].type = 0;
                }
                if (r < 0 || (r = sd_bus_message_exit_container(reply)) < 0 ||
                    (r = sd_bus_message_exit_container(reply)) < 0)
                        return r;
                if (f[n].type)
                        n++;
        }
        if (r < 0 || (r = sd_bus_message_exit_container(reply)) < 0)
                return r;
        return (int) n;
}

const struct field *ctl_field_get(const struct field *f, size_t n, const char *key) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(f[i].key, key) == 0)
                        return &f[i];
        return NULL;
}

uint64_t ctl_field_u64(const struct field *f, size_t n, const char *key) {
        const struct field *x = ctl_field_get(f, n, key);
        return x ? x->t : 0;
}

void ctl_json_string(const char *s) {
        putchar('"');
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if (*p == '"' || *p == '\\')
                        printf("\\%c", *p);
                else if (*p == '\n')
                        fputs("\\n", stdout);
                else if (*p == '\t')
                        fputs("\\t", stdout);
                else if (*p < 0x20)
                        printf("\\u%04x", *p);
                else
                        putchar(*p);
        }
        putchar('"');
}

void ctl_json_fields(const struct field *f, size_t n) {
        putchar('{');
        for (size_t i = 0; i < n; i++) {
                if (i > 0)
                        putchar(',');
                ctl_json_string(f[i].key);
                putchar(':');
                switch (f[i].type) {
                case 's':
                        ctl_json_string(f[i].s);
                        break;
                case 't':
                        printf("%" PRIu64, f[i].t);
                        break;
                case 'b':
                        fputs(f[i].t ? "true" : "false", stdout);
                        break;
                case 'd':
                        printf("%.9g", f[i].d);
                        break;
                }
        }
        putchar('}');
}

const char *ctl_container_label(const struct field *f, size_t n, char *buf, size_t size) {
        const struct field *rt = ctl_field_get(f, n, "Runtime"),
                           *id = ctl_field_get(f, n, "ContainerId"),
                           *pod = ctl_field_get(f, n, "PodUid");
        if (id && id->type == 's')
                snprintf(buf, size, "%s %.12s", rt && rt->type == 's' ? rt->s : "?", id->s);
        else if (pod && pod->type == 's')
                snprintf(buf, size, "pod %.*s", (int) strcspn(pod->s, "-"), pod->s);
        else
                snprintf(buf, size, "-");
        return buf;
}

const char *ctl_qos_label(const struct field *f, size_t n) {
        const struct field *q = ctl_field_get(f, n, "QosClass");
        return q && q->type == 's' ? q->s : "-";
}
