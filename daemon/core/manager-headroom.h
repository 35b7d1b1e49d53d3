/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-headroom.h: HighHeadroom= between cycles (manager-headroom.c). Internal to the
 * manager. */
#pragma once

#include "mglrud/core/manager.h"

/* Prepares the between-cycle watch (with an event loop only): every HEADROOM_WATCH_USEC
 * (policy/headroom.h, which also decides when to look again), the memory.current of each
 * cgroup in Mode=active with HighHeadroom= whose last decision drew a line (control_cgroup_headroom_line()) is read, and a cgroup over it gets its decision now,
 * not at the next cycle (at most one such decision per quarter interval). The timer runs only
 * while such a cgroup exists: it starts off, manager_headroom_cycle_done() turns it on, and it
 * turns itself off when it finds none. Nothing in dry-run. */
void manager_watch_headroom(struct manager *m);

/* After a cycle at now_usec: turns the watch on when a cgroup is watched and it is off. */
void manager_headroom_cycle_done(struct manager *m, uint64_t now_usec);
