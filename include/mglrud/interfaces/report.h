/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h: the daemon's state as text: a formatter over the manager's snapshots (metrics, dump)
 * run into a string, for the bus and the metrics file. */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "mglrud/core/manager.h"

/* A formatter over snapshots: metrics_format(), dump_format(). Returns 0 or -EIO. */
typedef int (*snapshot_format_t)(FILE *f, const struct daemon_stats *d,
                                 const struct control_snapshot *snaps, size_t n);

/* Runs fmt over m's snapshots into a malloc'ed string. Returns 0, -ENOMEM or -EIO. */
int report_text(const struct manager *m, snapshot_format_t fmt, char **ret_text);
