/* SPDX-License-Identifier: GPL-2.0-or-later */
/* control.h: one managed cgroup's control cycle: sample, decide (policy/), act through the
 * write helpers (actuate.h), measure the effect from stat deltas, report. */
#pragma once

#include <stdint.h>

#include "mglrud/cgroup.h"

struct manager;

/* Runs sample -> decide -> act -> report for cg. Returns 0 (also when cg vanished: cg->vanished
 * is set), or -ENOMEM. */
int control_cgroup_cycle(struct manager *m, struct cgroup *cg, uint64_t now_usec);

/* Returns the bytes mglrud reclaimed from cg so far (measured, not requested). */
uint64_t control_cgroup_reclaimed_bytes(const struct cgroup *cg);

/* Frees the controller state attached to cg->userdata. */
void control_cgroup_free(struct cgroup *cg);
