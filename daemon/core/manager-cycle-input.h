/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-cycle-input.h: the cycle's explicit input (cycle.h), built from the manager's state,
 * for everything that runs a cgroup's cycle or a part of it: the cycle itself (manager.c), the
 * stream fast path and the headroom watch between cycles (manager-headroom.c). Internal to the
 * manager. */
#pragma once

#include "mglrud/core/manager.h"

/* Fills *ret with the input at now_usec: the last cycle's host samples, the current histogram,
 * the daemon's settings, what the brakes watch. limits is where ret->host_limits points. */
void manager_cycle_input(struct manager *m, uint64_t now_usec, struct host_limits *limits,
                         struct cycle_input *ret);
