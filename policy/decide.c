/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decide.c: one cycle for one cgroup: validate, account the previous cycle's effects, adapt,
 * guard, plan. The order of the guards matters: the host guard first (it is about everybody),
 * then the absence of rates (no PSI guard possible), then error backoff, then the cgroup's own
 * pressure. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "mglrud/policy/headroom.h"
#include "policy-internal.h"

static uint64_t initial_cold_age(const struct policy *p) {
        double mid = sqrt((double) p->min_cold_age_usec * (double) p->max_cold_age_usec);
        uint64_t t = (uint64_t) mid;

        return t < p->min_cold_age_usec ? p->min_cold_age_usec :
               t > p->max_cold_age_usec ? p->max_cold_age_usec : t;
}

void policy_state_init(struct policy_state *s, const struct policy *p, uint64_t now_usec) {
        *s = (struct policy_state) {
                .cold_age_usec = initial_cold_age(p),
                .last_reason = DECISION_NONE_WARMUP,
                .last_decision_usec = now_usec,
        };
}

void decision_summarize(const struct decision *d, struct decision_summary *ret) {
        *ret = (struct decision_summary) {
                .reason = d->reason,
                .flags = d->flags,
                .act = ACT_WRITE,
                .has_estimates = d->has_estimates,
                .has_psi_some = d->has_psi_some,
                .anon_swappiness = d->anon_swappiness,
                .n_cmds = (uint16_t) d->n_cmds,    /* at most DECISION_MAX_CMDS */
                .n_age = (uint16_t) d->n_age,
                .n_reclaims = (uint8_t) d->n_reclaims, /* at most DECISION_MAX_RECLAIMS */
                .psi_some = d->psi_some,
                .cold_age_usec = d->cold_age_usec,
                .file_cold_age_usec = d->file_cold_age_usec,
                .idle_horizon_usec = d->idle_horizon_usec,
                .limit_bytes = d->limit_bytes,
                .headroom_line = d->headroom_line,
                .need_bytes = d->need_bytes,
                .need_t_bytes = d->need_t_bytes,
                .need_horizon_short = d->need_horizon_short,
        };
        memcpy(ret->horizon_bytes, d->horizon_bytes, sizeof ret->horizon_bytes);
        memcpy(ret->reclaims, d->reclaims, sizeof ret->reclaims);
        memcpy(ret->cold_bytes, d->cold_bytes, sizeof ret->cold_bytes);
        memcpy(ret->cooling_bytes, d->cooling_bytes, sizeof ret->cooling_bytes);
        memcpy(ret->warm_bytes, d->warm_bytes, sizeof ret->warm_bytes);
        memcpy(ret->planned_bytes, d->planned_bytes, sizeof ret->planned_bytes);
}

void policy_note_error(struct policy_state *s, uint64_t now_usec) {
        if (s->error_streak < 5)
                s->error_streak++;
        s->backoff_cycles = 1u << (s->error_streak - 1); /* 1, 2, 4, 8, 16 */
        s->error_noted = true;
        s->last_error_usec = now_usec;
        /* A write that failed took nothing because it failed: its yield says nothing of T. */
        s->last_cold_evict_pages = 0;
}

void policy_note_stall(const struct policy *p, struct policy_state *s, uint64_t now_usec) {
        s->stall_hold = 1;
        s->quiet_cycles = 0;
        s->quiet_since_usec = now_usec;
        tiering_raise_t(p, s);
        s->raise_hold = POLICY_RAISE_HOLD_CYCLES;
}

static int validate_sample(const struct cgroup_sample *c) {
        if (c->n_lruvecs > 0 && !c->lruvecs)
                return -EINVAL;
        for (size_t j = 0; j < c->n_lruvecs; j++) {
                const struct lrugen_lruvec *v = &c->lruvecs[j];

                if (v->nr_gens > LRUGEN_MAX_NR_GENS)
                        return -EINVAL;
                for (unsigned i = 1; i < v->nr_gens; i++)
                        if (v->gens[i].seq <= v->gens[i - 1].seq)
                                return -EINVAL;
        }
        return 0;
}

static int validate(const struct policy *p, const struct kernel_caps *caps,
                    const struct policy_state *state, const struct cgroup_sample *prev,
                    const struct cgroup_sample *cur) {
        if (!p || !caps || !state || !cur)
                return -EINVAL;
        /* Every byte figure is pages times this: a power of two (4 KiB to 64 KiB in practice). */
        if (caps->page_size == 0 || (caps->page_size & (caps->page_size - 1)) != 0)
                return -EINVAL;
        if ((unsigned) p->mode >= _POLICY_MODE_MAX)
                return -EINVAL;
        if (p->min_cold_age_usec == 0 || p->min_cold_age_usec > p->max_cold_age_usec)
                return -EINVAL;
        if (p->swappiness < SWAPPINESS_AUTO || p->swappiness > SWAPPINESS_ANON_ONLY)
                return -EINVAL;
        if (!(p->high_headroom >= 0 && p->high_headroom <= HEADROOM_MAX))
                return -EINVAL;
        if (!(p->pressure_target >= 0) || !(p->refault_target >= 0) ||
            !(p->reclaim_ratio >= 0 && p->reclaim_ratio <= 1))
                return -EINVAL;
        if (prev && validate_sample(prev) < 0)
                return -EINVAL;
        return validate_sample(cur);
}

/* Zeroes every field of d but its commands, which are written as far as n_cmds. */
static void decision_clear(struct decision *d) {
        _Static_assert(offsetof(struct decision, n_cmds) ==
                       offsetof(struct decision, cmds) + sizeof d->cmds,
                       "n_cmds follows cmds: the fields around the array are cleared apart");
        memset(d, 0, offsetof(struct decision, cmds));
        memset((char *) d + offsetof(struct decision, n_cmds), 0,
               sizeof *d - offsetof(struct decision, n_cmds));
}

/* What the cgroup showed since the previous decision, learnt into s and d: a recreated cgroup
 * starts over (*prev becomes NULL), the rates, the effects of the previous decision (swappiness,
 * streams), T for this cycle and the estimates that go with it. Fills *r. */
static void decide_learn(const struct policy *p, const struct kernel_caps *caps,
                         struct policy_state *s, const struct cgroup_sample **prev,
                         const struct cgroup_sample *cur, struct policy_rates *r,
                         struct decision *d) {
        if (*prev && policy_counters_reset(*prev, cur)) {
                /* The cgroup was recreated under the same path: nothing learnt applies. */
                policy_state_init(s, p, cur->now_usec);
                d->flags |= DECISION_FLAG_COUNTER_RESET;
                *prev = NULL;
        }

        /* The previous decision wrote something and no error came back: the streak ends. */
        if (!s->error_noted && s->last_reason >= DECISION_AGE)
                s->error_streak = 0;
        s->error_noted = false;

        policy_rates_compute(*prev, cur, r, &d->flags);
        d->has_psi_some = r->has_psi_some;
        d->psi_some = r->psi_some;
        if (!cur->has_psi)
                d->flags |= DECISION_FLAG_NO_PSI;

        /* Effects of the previous decision, then T for this cycle. */
        swappiness_account(p, caps, s, r);
        stream_update(s, r, cur, caps->page_size);
        /* Where stream protection drops the streams file by file, the generation-level detector
         * only does harm: its shorter file T takes hot pages read through descriptors along with
         * the stream (their generations look idle), while the drops already take the stream's
         * (S2 at Interval=10s: one such eviction took the hot file from 100% to 13.7%). */
        if (caps->stream_drops && p->stream_protection == STREAM_PROTECTION_YES) {
                s->streaming = false;
                s->stream_cycles = 0;
        }
        tiering_adapt(p, s, r, cur, caps->page_size, &d->flags);

        d->cold_age_usec = s->cold_age_usec;
        d->file_cold_age_usec = stream_file_cold_age(p, s);
        tiering_note_rejects(s, cur);
        tiering_estimate(s, cur, caps->page_size, d);
        d->target_anon_share = swappiness_target_share(p, s);
        headroom_estimate(p, caps, s, cur, d);
}

/* Returns true when nothing is reclaimed this cycle, with why in *ret (the host guard, the
 * warm-up, a back-off, a stall or the cgroup's pressure), counting down the holds; false when
 * the plan may run. */
static bool decide_hold(const struct policy *p, struct policy_state *s,
                        const struct policy_rates *r, const struct host_sample *host_prev,
                        const struct host_sample *host_cur, const struct host_limits *host_limits,
                        enum decision_reason *ret) {
        if (policy_host_guard(host_prev, host_cur, host_limits))
                *ret = DECISION_NONE_HOST_PRESSURE;
        else if (!r->valid)
                *ret = DECISION_NONE_WARMUP;
        else if (s->backoff_cycles > 0) {
                s->backoff_cycles--;
                *ret = DECISION_NONE_BACKOFF;
        } else if (s->stall_hold > 0) {
                /* A pressure trigger fired since the last decision (policy_note_stall()). */
                s->stall_hold--;
                *ret = DECISION_NONE_PRESSURE;
        } else if (r->has_psi_some && r->psi_some > p->pressure_target)
                *ret = DECISION_NONE_PRESSURE;
        else
                return false;
        return true;
}

int policy_decide(const struct policy_input *in, const struct policy_state *state,
                  struct policy_state *ret_state, struct decision *ret_decision) {
        struct policy_state s;
        struct policy_rates r;
        struct decision *d;
        enum decision_reason reason;
        int k;

        if (!in || !ret_state || !ret_decision)
                return -EINVAL;
        const struct policy *p = in->policy;
        const struct kernel_caps *caps = in->caps;
        const struct cgroup_sample *prev = in->prev, *cur = in->cur;
        k = validate(p, caps, state, prev, cur);
        if (k < 0)
                return k;

        /* Only the bytes in use: the rest of the slots are never read before they are filled
         * (policy_state_size()), and copying all 64 would cost more than the decision. */
        memcpy(&s, state, policy_state_size(state));
        /* The decision is made in place: past validation nothing fails, and a decision is
         * bigger than everything else this does (its 96 command slots are written only as far
         * as n_cmds, the rest is never read). */
        d = ret_decision;
        decision_clear(d);
        d->anon_swappiness = -1;

        /* A reload may have moved the bounds; an all-zero state was never initialised. */
        if (s.cold_age_usec == 0)
                s.cold_age_usec = initial_cold_age(p);
        s.cold_age_usec = s.cold_age_usec < p->min_cold_age_usec ? p->min_cold_age_usec :
                          s.cold_age_usec > p->max_cold_age_usec ? p->max_cold_age_usec :
                          s.cold_age_usec;

        if (p->mode == POLICY_MODE_OFF)
                reason = DECISION_NONE_MODE_OFF;
        else {
                decide_learn(p, caps, &s, &prev, cur, &r, d);
                if (decide_hold(p, &s, &r, in->host_prev, in->host_cur, in->host_limits, &reason))
                        ; /* reason says why */
                else if (p->mode != POLICY_MODE_PRESSURE && caps->lrugen_write && cur->has_lrugen)
                        reason = tiering_plan(p, caps, &s, cur, d);
                else
                        reason = tmo_plan(p, caps, &s, cur, d);
        }

        d->reason = reason;
        for (int t = 0; t < _LRUGEN_NR_TYPES; t++)
                s.last_planned_bytes[t] = d->planned_bytes[t];
        if (d->planned_bytes[LRUGEN_ANON] == 0 || d->planned_bytes[LRUGEN_FILE] == 0)
                s.last_split_free = false;
        s.last_reason = reason;
        s.last_decision_usec = cur->now_usec;
        s.last_cold_evict_pages = 0;
        if (reason == DECISION_EVICT_COLD && p->mode == POLICY_MODE_ACTIVE &&
            !(d->flags & DECISION_FLAG_HEADROOM))
                s.last_cold_evict_pages = (d->planned_bytes[LRUGEN_ANON] +
                                           d->planned_bytes[LRUGEN_FILE]) / caps->page_size;

        memcpy(ret_state, &s, policy_state_size(&s));
        return 0;
}
