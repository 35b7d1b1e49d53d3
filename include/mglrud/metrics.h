/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.h: the daemon's state as Prometheus text (exposition format 0.0.4): the pure
 * generator over snapshots, and the textfile-collector output written each cycle. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mglrud/control.h"

struct manager;

/* Daemon-wide figures that go with the per-cgroup snapshots. */
struct daemon_stats {
        uint64_t cycles;
        size_t n_cgroups;
        uint64_t cycle_usec;     /* duration of the last cycle */
        uint64_t interval_usec;
        bool dry_run;
        bool paused_all;
};

/* A formatter over snapshots: metrics_format(), dump_format(). Returns 0 or -EIO. */
typedef int (*snapshot_format_t)(FILE *f, const struct daemon_stats *d,
                                 const struct control_snapshot *snaps, size_t n);

/* Writes the metrics for d and the n snapshots to f. Returns 0, or -EIO on a write error. */
int metrics_format(FILE *f, const struct daemon_stats *d, const struct control_snapshot *snaps,
                   size_t n);

/* Takes the daemon stats and a snapshot of every managed cgroup (*ret_snaps is malloc'ed; it
 * borrows strings from m, see struct control_snapshot). Returns 0 or -ENOMEM. */
int manager_snapshots(const struct manager *m, struct daemon_stats *ret_stats,
                      struct control_snapshot **ret_snaps, size_t *ret_n);

/* Runs fmt over m's snapshots into a malloc'ed string. Returns 0, -ENOMEM or -EIO. */
int manager_format(const struct manager *m, snapshot_format_t fmt, char **ret_text);

/* Writes the metrics to path atomically (path.tmp in the same directory, then rename).
 * Returns 0 or a negative errno. */
int metrics_write_file(const struct manager *m, const char *path);
