/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idle-report.h: the idle-age profiles of the host and of the managed cgroups (control.h,
 * manager.h) as the shared text tables (idle-table.h): what mglrud --once prints after its
 * advice, and what the bus IdleProfile() method and the metrics carry. */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "mglrud/core/manager.h"
#include "mglrud/shared/idle-table.h"

/* Fills *t from the host's profile (title "host"). */
void idle_table_from_host(const struct host_idle *h, struct idle_table *t);

/* Fills *t from a cgroup's snapshot; the policy line is written to policy_buf, which *t points
 * to (as it points to s's path). */
void idle_table_from_snapshot(const struct control_snapshot *s, struct idle_table *t,
                              char *policy_buf, size_t size);

/* Prints the host's table and every managed cgroup's. Returns 0, -ENOMEM or -EIO. */
int idle_report_print(FILE *f, const struct manager *m);
