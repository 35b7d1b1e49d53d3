/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mglructl.h: what mglructl's files share: exit codes, the bus client (mglructl-client.c) and
 * the live view (mglructl-top.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "mglrud/shared/idle-table.h"

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

/* Connects to RUNTIME_DIR/bus. Returns 0 or -errno; prints why it failed. */
int ctl_connect(const char *runtime_dir, sd_bus **ret);
/* Prints why member failed and frees error. Returns the exit code (EXIT_DENIED or
 * EXIT_DAEMON). */
int ctl_call_failed(const char *member, sd_bus_error *error, int r);
/* Calls a method; string arguments only (sig "" or "s"). Prints the error and returns 0 or an
 * exit code. */
int ctl_call(sd_bus *bus, const char *member, const char *sig, const char *arg,
             sd_bus_message **ret_reply);
/* Reads an a{sv} of s/t/b/d values into f (strings point into reply). Returns the count or
 * -errno. */
int ctl_read_fields(sd_bus_message *reply, struct field *f, size_t max);
/* Returns the field called key, or NULL. */
const struct field *ctl_field_get(const struct field *f, size_t n, const char *key);
/* Returns the t value of the field called key, or 0. */
uint64_t ctl_field_u64(const struct field *f, size_t n, const char *key);

/* Writes s to stdout as a JSON string. */
void ctl_json_string(const char *s);
/* Writes f[0..n) to stdout as a JSON object. */
void ctl_json_fields(const struct field *f, size_t n);

/* One IdleProfile() entry (mglructl-idle.c); strings point into the reply. */
struct ctl_idle {
        const char *path;          /* "" for the host */
        struct field fields[MAX_FIELDS];
        size_t n_fields;
        struct idle_table_row rows[IDLE_TABLE_ROWS_MAX];
        size_t n_rows;
};

/* Calls IdleProfile(): the host's entry first, then the cgroups'. *ret is malloc'ed, its
 * strings live in *ret_reply. Prints the error and returns 0 or an exit code. */
int ctl_idle_fetch(sd_bus *bus, sd_bus_message **ret_reply, struct ctl_idle **ret, size_t *ret_n);
/* Fills the text table of an entry (pointing into it). */
void ctl_idle_table(const struct ctl_idle *x, struct idle_table *t);
/* Writes an entry to stdout as a JSON object: Path, Fields, Ladder. */
void ctl_idle_json(const struct ctl_idle *x);

/* Writes what a GetCgroup reply says about the cgroup's container into buf, the way status
 * and top show it: "docker 0123456789ab" (runtime and short id, like `docker ps`; "?" for an
 * unknown runtime), "pod 4b6a1c3e" (a Kubernetes pod, its uid's first group), or "-".
 * Returns buf. */
const char *ctl_container_label(const struct field *f, size_t n, char *buf, size_t size);
/* Returns the QosClass of a GetCgroup reply, or "-". */
const char *ctl_qos_label(const struct field *f, size_t n);

/* Shows the daemon's cgroups, refreshed every interval_usec, until 'q' or SIGINT/SIGTERM; with
 * once, prints one frame without escape sequences and returns; idle_view starts in the idle-age
 * view ('i' switches). Returns 0 or an exit code. */
int ctl_top_run(sd_bus *bus, uint64_t interval_usec, bool once, bool idle_view);

/* Draws the idle-age curves of the host and of the cgroups with the most idle memory into an
 * SVG file (svg_path) and/or an HTML page with the picture and the tables (html_path). Returns
 * 0 or an exit code. */
int ctl_report_run(sd_bus *bus, const char *svg_path, const char *html_path);
