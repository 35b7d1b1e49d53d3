/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiering-headroom.c: the headroom planner (headroom.c) fed from a decision: its input from the
 * cycle's sample, state and estimates, and the estimates it adds to the decision (the line, the
 * excess, the sizing, "the working set exceeds the limit"). tiering-plan.c turns its plan into
 * eviction commands. */
#include "mglrud/kernel/memcg.h"
#include "mglrud/policy/headroom.h"
#include "policy-internal.h"

void headroom_input_of(const struct policy *p, const struct kernel_caps *caps,
                       const struct policy_state *s, const struct cgroup_sample *cur,
                       const struct decision *d, struct headroom_input *ret) {
        uint64_t floor;

        /* The floor the tiering plan's budget keeps: max(memory.min, Floor=, hot set). */
        (void) policy_budget(p, cur, d->hot_bytes, caps->page_size, &floor);
        *ret = (struct headroom_input) {
                .current = cur->limits.current,
                .high = cur->limits.has_high_max ? cur->limits.high : MEMCG_VALUE_MAX,
                .max = cur->limits.has_high_max ? cur->limits.max : MEMCG_VALUE_MAX,
                .headroom = p->high_headroom, /* no line without the limits (high, max above) */
                .lruvecs = cur->lruvecs,
                .n_lruvecs = cur->n_lruvecs,
                .state = s,
                .now_usec = cur->now_usec,
                .page_size = caps->page_size,
                .min_cold_age_usec = p->min_cold_age_usec,
                .cold_age_usec = s->cold_age_usec,
                .anon_share = d->target_anon_share,
                .anon_room = policy_swap_headroom(caps, cur),
                .floor = floor,
                .max_bytes = p->max_step_bytes,
        };
}

void headroom_estimate(const struct policy *p, const struct kernel_caps *caps,
                       const struct policy_state *s, const struct cgroup_sample *cur,
                       struct decision *d) {
        struct headroom_input in;
        struct headroom_sizing z;
        struct headroom_plan hp;

        if (!cur->has_lrugen)
                return;
        headroom_input_of(p, caps, s, cur, d, &in);
        if (headroom_size(&in, &z) < 0 || headroom_plan(&in, &hp) < 0)
                return;
        d->limit_bytes = z.limit == MEMCG_VALUE_MAX ? 0 : z.limit;
        d->need_bytes = z.need_min_cold_age;
        d->need_t_bytes = z.need_cold_age;
        d->need_horizon_short = z.horizon_short;
        if (!hp.active)
                return;
        d->headroom_line = hp.line;
        d->headroom_excess = hp.excess;
        if (hp.working_set_exceeds)
                d->flags |= DECISION_FLAG_OVER_LIMIT;
}
