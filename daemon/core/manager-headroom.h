/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-headroom.h: HighHeadroom= between cycles (manager-headroom.c). Internal to the
 * manager. */
#pragma once

#include "mglrud/core/manager.h"

/* Starts the between-cycle watch (with an event loop only): every HEADROOM_WATCH_USEC
 * (policy/headroom.h, which also decides when to arm and when to look again), the
 * memory.current of each cgroup in Mode=active with HighHeadroom= whose last decision drew a
 * line (control_cgroup_headroom_line()) is read, and a cgroup over it gets its decision now,
 * not at the next cycle (at most one such decision per quarter interval). Without such a cgroup
 * the watch looks once per interval. Nothing in dry-run. */
void manager_watch_headroom(struct manager *m);
