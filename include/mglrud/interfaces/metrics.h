/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.h: the daemon's state as Prometheus text (exposition format 0.0.4): the pure
 * generator over snapshots, and the textfile-collector output written each cycle. */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "mglrud/core/manager.h"
#include "mglrud/interfaces/report.h"

/* Writes the metrics for d and the n snapshots to f. Returns 0, or -EIO on a write error. */
int metrics_format(FILE *f, const struct daemon_stats *d, const struct control_snapshot *snaps,
                   size_t n);

/* Writes the metrics to path atomically (write_file_atomic(): a new file with a random name
 * in the same directory, then rename). Returns 0 or a negative errno. */
int metrics_write_file(const struct manager *m, const char *path);
