/* SPDX-License-Identifier: GPL-2.0-or-later */
/* top.h: "mglructl top", a live view of the daemon's cgroups, and the few mglructl bus helpers
 * it shares with mglructl.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

enum {
        EXIT_DAEMON = 1,
        EXIT_USAGE = 2,
        EXIT_CONNECT = 3,
        EXIT_DENIED = 4,
};

/* One entry of an a{sv} reply (types s, t, b, d). */
struct field {
        const char *key;
        char type;
        const char *s;
        uint64_t t;
        double d;
};

#define MAX_FIELDS 64

/* Calls a method; string arguments only (sig "" or "s"). Prints the error and returns 0 or an
 * exit code. (mglructl.c) */
int call(sd_bus *bus, const char *member, const char *sig, const char *arg,
         sd_bus_message **ret_reply);
/* Reads an a{sv} of s/t/b/d values into f (strings point into reply). Returns the count or
 * -errno. (mglructl.c) */
int read_fields(sd_bus_message *reply, struct field *f, size_t max);
const struct field *field_get(const struct field *f, size_t n, const char *key);
uint64_t field_u64(const struct field *f, size_t n, const char *key);

/* Shows the daemon's cgroups, refreshed every interval_usec, until 'q' or SIGINT/SIGTERM; with
 * once, prints one frame without escape sequences and returns. Returns 0 or an exit code. */
int top_run(sd_bus *bus, uint64_t interval_usec, bool once);
