/* SPDX-License-Identifier: GPL-2.0-or-later */
/* control-decide.h: the cycle's reading and decision (control.c), which Advise()
 * (control-overrides.c) reuses. Core-private. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "control-state.h"

/* Finds the lruvecs of cg's memcg and of the unmanaged descendants its work covers. On 7.x the
 * lru_gen id is the cgroup id; on 6.x (private 16-bit ids) we fall back to the path. Sets
 * *ret_lruvecs to them: into the histogram itself when they are all cg's own (no copy), else
 * gathered in the scratch, which the next call reuses. Returns their number or -ENOMEM. */
ssize_t control_collect_lruvecs(const struct lrugen *l, const struct cgroup *cg,
                                struct control_scratch *x,
                                const struct lrugen_lruvec **ret_lruvecs);

/* One cgroup's reading and what the decision on it starts from. */
struct control_decide_input {
        const struct cycle_input *in;  /* the cycle's host readings and capabilities */
        const struct policy *policy;   /* the policy to decide with (Mode=advise for advice) */
        const struct policy_state *state; /* the policy state before the decision */
        const struct prev_reading *prev; /* the previous sample, NULL before the first */
        const struct cgroup_reading *cur;
        const struct own_refaults *own; /* cur's own refault count (refault-trust.h) */
        bool refault_undercount;       /* the controllers take the larger of own and the
                                        * kernel's count */
        const struct lrugen_lruvec *lruvecs; /* control_collect_lruvecs() */
        size_t n_lruvecs;
};

/* Runs policy_decide() for one cgroup reading on the cycle's host readings. Returns 0 or
 * -errno (the policy rejected the sample). */
int control_decide_for_cycle(const struct control_decide_input *x, struct policy_state *ret_state,
                             struct decision *ret);
