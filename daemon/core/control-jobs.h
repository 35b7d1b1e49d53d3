/* SPDX-License-Identifier: GPL-2.0-or-later */
/* control-jobs.h: a cgroup's jobs (control-jobs.c): submission, completion and stops. The cycle
 * (control.c) hands its decisions here. Core-private. */
#pragma once

#include "control-state.h"
#include "mglrud/policy/act-mode.h"


/* Hands the decision's writes to the actuation path in mode (ACT_WRITE or ACT_AGE_ONLY;
 * completion: control_job_done()), measured against cur's memory.stat. Returns 0, or -ENOMEM
 * (-ESHUTDOWN while stopping is not an error: nothing more is written). */
int control_job_submit(const struct cycle_input *in, struct actuator *act, struct cgroup *cg,
                       struct control_state *s, const struct cgroup_reading *cur,
                       const struct decision *d, enum act_mode mode);

/* Says once per cgroup that its memory.reclaim may not be written (docs/design.md, "Delegated
 * cgroups"). */
void control_note_reclaim_denied(struct cgroup *cg, struct control_state *s);

/* Reports a decision that is only reported (advice, or an active decision without writes). */
void control_report_advice(const struct report_sink *report, const struct cgroup *cg,
                           const struct decision_summary *d);
