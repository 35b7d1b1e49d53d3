/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-triggers.h: the manager's PSI triggers (manager-triggers.c, pressure-trigger.h).
 * Internal to the manager. */
#pragma once

#include "mglrud/core/manager.h"

/* Arms a trigger on every cgroup mglrud reclaims in (control_cgroup_reclaiming() over two
 * intervals) and on the host while any is armed, and disarms the others: triggers cost the
 * kernel a polling thread per group. Nothing with PressureTriggers=no, dry-run or without an
 * event loop. Says once when the kernel takes no trigger (PSI off, too old). */
void manager_update_triggers(struct manager *m, uint64_t now_usec);

/* Disarms every trigger. */
void manager_triggers_done(struct manager *m);

/* Loads the BPF stall guard (docs/design.md, "Stall guard") once, with an event loop and
 * StallGuard=yes, and hands it to the actuation path; says once when it cannot (built
 * without BPF, load refused): the PSI triggers alone stop reclaim then. */
void manager_open_stall_guard(struct manager *m);

/* Hands the refault guard (docs/design.md, "Stall guard") its source, stream protection's
 * BPF map of the daemon's own refault counts, once it is loaded, with an event loop and
 * RefaultGuard=yes. Without it (no BPF) nothing changes: the PSI triggers act. */
void manager_open_refault_guard(struct manager *m);

/* The refault guard ended cg's job j between two chunks: the same stop as the stall guard's,
 * reason refault-burst. */
void manager_refault_guard_stop(struct manager *m, struct cgroup *cg,
                                const struct actuator_job *j, uint64_t now_usec);

/* The stall guard ended cg's job j between two chunks: cancels cg's queued writes and backs T
 * off as a pressure trigger does (control_cgroup_note_stop(), reason reclaim-stall). */
void manager_stall_guard_stop(struct manager *m, struct cgroup *cg,
                              const struct actuator_job *j, uint64_t now_usec);
