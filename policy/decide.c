/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decide.c: one cycle for one cgroup: validate, account the previous cycle's effects, adapt,
 * guard, plan. The order of the guards matters: the host guard first (it is about everybody),
 * then the absence of rates (no PSI guard possible), then error backoff, then the cgroup's own
 * pressure. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "policy-internal.h"

static const char *const reason_table[_DECISION_REASON_MAX] = {
        [DECISION_NONE_MODE_OFF] = "mode-off",
        [DECISION_NONE_WARMUP] = "warmup",
        [DECISION_NONE_HOST_PRESSURE] = "host-pressure",
        [DECISION_NONE_BACKOFF] = "backoff",
        [DECISION_NONE_PRESSURE] = "pressure",
        [DECISION_NONE_AT_FLOOR] = "at-floor",
        [DECISION_NONE_NOTHING_COLD] = "nothing-cold",
        [DECISION_AGE] = "age",
        [DECISION_EVICT_COLD] = "cold-generations",
        [DECISION_EVICT_STREAM] = "stream",
        [DECISION_TMO_STEP] = "tmo-step",
};

const char *decision_reason_to_string(enum decision_reason r) {
        if ((unsigned) r >= _DECISION_REASON_MAX)
                return NULL;
        return reason_table[r];
}

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

void policy_note_error(struct policy_state *s, uint64_t now_usec) {
        if (s->error_streak < 5)
                s->error_streak++;
        s->backoff_cycles = 1u << (s->error_streak - 1); /* 1, 2, 4, 8, 16 */
        s->error_noted = true;
        s->last_error_usec = now_usec;
        s->counters.errors++;
}

const struct policy_lruvec_state *policy_lruvec_find(const struct policy_state *s,
                                                     uint64_t memcg_id, int node) {
        for (size_t i = 0; i < s->n_lruvecs; i++)
                if (s->lruvecs[i].memcg_id == memcg_id && s->lruvecs[i].node == node)
                        return &s->lruvecs[i];
        return NULL;
}

struct policy_lruvec_state *policy_lruvec_slot(struct policy_state *s, uint64_t memcg_id,
                                               int node, uint64_t now_usec) {
        struct policy_lruvec_state *oldest = NULL;

        for (size_t i = 0; i < s->n_lruvecs; i++) {
                struct policy_lruvec_state *l = &s->lruvecs[i];

                if (l->memcg_id == memcg_id && l->node == node) {
                        l->last_seen_usec = now_usec;
                        return l;
                }
                if (!oldest || l->last_seen_usec < oldest->last_seen_usec)
                        oldest = l;
        }
        if (s->n_lruvecs < POLICY_MAX_LRUVECS)
                oldest = &s->lruvecs[s->n_lruvecs++];
        if (!oldest)
                return NULL;
        *oldest = (struct policy_lruvec_state) {
                .memcg_id = memcg_id,
                .node = node,
                .last_seen_usec = now_usec,
        };
        return oldest;
}

uint64_t policy_budget(const struct policy *p, const struct cgroup_sample *cur, uint64_t hot,
                       uint64_t *ret_floor) {
        /* lru_gen '-' ignores memory.min/low, so the floor is ours to enforce. */
        uint64_t floor = u64_max(u64_max(cur->limits.min, p->floor_bytes), hot);

        *ret_floor = floor;
        return pages_floor_bytes(u64_min(p->max_step_bytes,
                                         u64_sub_sat(cur->limits.current, floor)));
}

uint64_t policy_swap_headroom(const struct kernel_caps *caps, const struct cgroup_sample *cur) {
        if (!caps->has_swap)
                return 0;
        if (!cur->limits.has_swap || cur->limits.swap_max == MEMCG_VALUE_MAX)
                return UINT64_MAX;
        return u64_sub_sat(cur->limits.swap_max, cur->limits.swap_current);
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
        if ((unsigned) p->mode >= _POLICY_MODE_MAX)
                return -EINVAL;
        if (p->min_cold_age_usec == 0 || p->min_cold_age_usec > p->max_cold_age_usec)
                return -EINVAL;
        if (p->swappiness < SWAPPINESS_AUTO || p->swappiness > SWAPPINESS_ANON_ONLY)
                return -EINVAL;
        if (!(p->pressure_target >= 0) || !(p->refault_target >= 0) ||
            !(p->reclaim_ratio >= 0 && p->reclaim_ratio <= 1))
                return -EINVAL;
        if (prev && validate_sample(prev) < 0)
                return -EINVAL;
        return validate_sample(cur);
}

int policy_decide(const struct policy *p, const struct kernel_caps *caps,
                  const struct policy_state *state, const struct cgroup_sample *prev,
                  const struct cgroup_sample *cur, const struct host_sample *host_prev,
                  const struct host_sample *host_cur, const struct host_limits *host_limits,
                  struct policy_state *ret_state, struct decision *ret_decision) {
        struct policy_state s;
        struct policy_rates r;
        struct decision d = {};
        enum decision_reason reason;
        int k;

        if (!ret_state || !ret_decision)
                return -EINVAL;
        k = validate(p, caps, state, prev, cur);
        if (k < 0)
                return k;

        s = *state;
        d.advise = p->mode == POLICY_MODE_ADVISE;
        d.anon_swappiness = -1;

        /* A reload may have moved the bounds; an all-zero state was never initialised. */
        if (s.cold_age_usec == 0)
                s.cold_age_usec = initial_cold_age(p);
        s.cold_age_usec = s.cold_age_usec < p->min_cold_age_usec ? p->min_cold_age_usec :
                          s.cold_age_usec > p->max_cold_age_usec ? p->max_cold_age_usec :
                          s.cold_age_usec;

        if (p->mode == POLICY_MODE_OFF) {
                reason = DECISION_NONE_MODE_OFF;
                goto finish;
        }

        if (prev && policy_counters_reset(prev, cur)) {
                /* The cgroup was recreated under the same path: nothing learnt applies. */
                struct policy_counters counters = s.counters;

                policy_state_init(&s, p, cur->now_usec);
                s.counters = counters;
                s.counters.resets++;
                d.flags |= DECISION_FLAG_COUNTER_RESET;
                prev = NULL;
        }

        /* The previous decision wrote something and no error came back: the streak ends. */
        if (!s.error_noted && s.last_reason >= DECISION_AGE)
                s.error_streak = 0;
        s.error_noted = false;

        policy_rates_compute(prev, cur, &r, &d.flags);
        d.has_psi_some = r.has_psi_some;
        d.psi_some = r.psi_some;
        if (!cur->has_psi)
                d.flags |= DECISION_FLAG_NO_PSI;

        /* Effects of the previous decision, then T for this cycle. */
        swappiness_account(p, caps, &s, &r);
        stream_update(&s, &r, cur);
        tiering_adapt(p, &s, &r, cur, &d.flags);

        d.cold_age_usec = s.cold_age_usec;
        d.file_cold_age_usec = stream_file_cold_age(p, &s);
        tiering_note_rejects(&s, cur);
        tiering_estimate(&s, cur, &d);
        d.target_anon_share = swappiness_target_share(p, &s);

        if (policy_host_guard(host_prev, host_cur, host_limits)) {
                s.counters.host_pressure++;
                reason = DECISION_NONE_HOST_PRESSURE;
                goto finish;
        }
        if (!r.valid) {
                s.counters.warmups++;
                reason = DECISION_NONE_WARMUP;
                goto finish;
        }

        if (s.backoff_cycles > 0) {
                s.backoff_cycles--;
                reason = DECISION_NONE_BACKOFF;
                goto finish;
        }

        if (r.has_psi_some && r.psi_some > p->pressure_target) {
                s.counters.pressure++;
                reason = DECISION_NONE_PRESSURE;
                goto finish;
        }

        if (p->mode != POLICY_MODE_PRESSURE && caps->lrugen_write && cur->has_lrugen)
                reason = tiering_plan(p, caps, &s, cur, &d);
        else
                reason = tmo_plan(p, caps, &s, cur, &d);

finish:
        d.reason = reason;
        s.counters.cycles++;
        for (int t = 0; t < _LRUGEN_NR_TYPES; t++) {
                s.last_planned_bytes[t] = d.planned_bytes[t];
                s.counters.planned_bytes[t] += d.planned_bytes[t];
        }
        if (d.planned_bytes[LRUGEN_ANON] == 0 || d.planned_bytes[LRUGEN_FILE] == 0)
                s.last_split_free = false;
        s.last_reason = reason;
        s.last_decision_usec = cur->now_usec;

        *ret_state = s;
        *ret_decision = d;
        return 0;
}
