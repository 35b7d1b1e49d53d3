/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/control-idle.h"

#include <string.h>

#include "mglrud/shared/macro.h"

static const char *const forecast_names[_CONTROL_FORECAST_MAX] = {
        [CONTROL_FORECAST_T] = "T",
        [CONTROL_FORECAST_MIN] = "MinColdAge",
        [CONTROL_FORECAST_MAX] = "MaxColdAge",
};

const char *control_forecast_to_string(enum control_forecast f) {
        return (unsigned) f < _CONTROL_FORECAST_MAX ? forecast_names[f] : NULL;
}

static void lists_take(const struct memstat *m, uint64_t now_usec, struct control_idle_lists *ret) {
        struct control_idle_lists l = { .read_usec = now_usec };
        l.has_lists = memstat_get(m, MEMSTAT_ACTIVE_ANON, &l.active[LRUGEN_ANON]) &&
                      memstat_get(m, MEMSTAT_INACTIVE_ANON, &l.inactive[LRUGEN_ANON]) &&
                      memstat_get(m, MEMSTAT_ACTIVE_FILE, &l.active[LRUGEN_FILE]) &&
                      memstat_get(m, MEMSTAT_INACTIVE_FILE, &l.inactive[LRUGEN_FILE]);
        *ret = l;
}

/* Returns the pages reclaim took from the cgroup between the kept reading and cur, as far as
 * re-access is concerned: without pgsteal nothing tells eviction from re-access, so the interval
 * counts as reclaimed. */
static uint64_t reclaimed_since(const struct control_idle_state *x, const struct memstat *cur) {
        uint64_t steal;
        if (!memstat_get(cur, MEMSTAT_PGSTEAL, &steal))
                return 1;
        /* As memstat_delta(): 0 when the kept reading had none or the counter went back. */
        return x->has_steal && steal >= x->steal ? steal - x->steal : 0;
}

bool control_idle_begin(struct control_idle_lists *lists, struct control_idle_state *state,
                        const struct cycle_input *in, const struct cgroup_sample *cur) {
        struct control_idle_state *x = state;

        lists_take(&cur->stat, cur->now_usec, lists);
        if (!in->lrugen) {
                /* No histogram this cycle: nothing to show, and the next interval has no start.
                 * The re-access sums stay. */
                if (x)
                        x->has_profile = false;
                return false;
        }
        if (x && x->has_profile)
                (void) idle_risk_account(&x->risk, &(const struct idle_interval) {
                        .prev = x->gens, .n_prev = x->n_gens, .prev_usec = x->read_usec,
                        .cur = cur->lruvecs, .n_cur = cur->n_lruvecs, .cur_usec = cur->now_usec,
                        .reclaimed_pages = reclaimed_since(x, &cur->stat),
                }, in->caps->page_size);
        return true;
}

void control_idle_init(struct control_idle_state *state) {
        *state = (struct control_idle_state) {};
        (void) idle_risk_init(&state->risk, idle_ladder_default_usec, IDLE_LADDER_DEFAULT_N);
}

void control_idle_keep(struct control_idle_state *state, const struct cycle_input *in,
                       const struct cgroup_sample *cur, const struct policy *p,
                       const struct policy_state *ps, uint64_t t) {
        struct control_idle_state *x = state;
        const uint64_t thresholds[_CONTROL_FORECAST_MAX] = {
                [CONTROL_FORECAST_T] = t,
                [CONTROL_FORECAST_MIN] = p->min_cold_age_usec,
                [CONTROL_FORECAST_MAX] = p->max_cold_age_usec,
        };

        x->has_profile = false;
        x->n_gens = (uint32_t) cur->n_lruvecs;
        x->read_usec = cur->now_usec;
        x->has_steal = memstat_get(&cur->stat, MEMSTAT_PGSTEAL, &x->steal);
        for (int i = 0; i < _CONTROL_FORECAST_MAX; i++)
                if (idle_forecast_compute(p, in->caps, ps, cur, thresholds[i],
                                          &x->forecasts[i]) < 0)
                        return; /* not what the parser lets through: shown as no profile */
        for (size_t j = 0; j < cur->n_lruvecs; j++)
                if (idle_gens_take(&cur->lruvecs[j], ps, cur->now_usec, in->caps->page_size,
                                   &x->gens[j]) < 0)
                        return;
        x->has_profile = true;
}

void control_idle_get(const struct control_idle_lists *lists,
                      const struct control_idle_state *state, struct control_idle *ret) {
        *ret = (struct control_idle) {
                .has_lists = lists->has_lists,
                .read_usec = lists->read_usec,
        };
        memcpy(ret->active, lists->active, sizeof ret->active);
        memcpy(ret->inactive, lists->inactive, sizeof ret->inactive);
        if (!state || !state->has_profile ||
            idle_profile_compute_gens(state->gens, state->n_gens, idle_ladder_default_usec,
                                      IDLE_LADDER_DEFAULT_N, &ret->profile) < 0)
                return;
        memcpy(ret->forecasts, state->forecasts, sizeof ret->forecasts);
        ret->risk = state->risk;
        ret->has_profile = true;
}
