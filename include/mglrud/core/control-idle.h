/* SPDX-License-Identifier: GPL-2.0-or-later */
/* control-idle.h: a managed cgroup's idle-age profile (docs/design.md, "Idle-age profile"):
 * what its control cycle keeps for it between cycles, and the profile, forecasts and re-access
 * rate it shows, computed from that when the bus, the metrics or --once ask. What is kept is
 * what the next cycle needs, no more (docs/design.md, "Memory"): per lruvec the generations'
 * bytes and idle times (struct idle_gens), not a copy of the histogram's records. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mglrud/core/cycle.h"
#include "mglrud/kernel/cgroup-files.h"
#include "mglrud/policy/idle-profile.h"

/* The forecasts of a cgroup's idle profile: what its thresholds would free. */
enum control_forecast {
        CONTROL_FORECAST_T,          /* the current cold age threshold */
        CONTROL_FORECAST_MIN,        /* MinColdAge= */
        CONTROL_FORECAST_MAX,        /* MaxColdAge= */
        _CONTROL_FORECAST_MAX,
};

/* Returns "T", "MinColdAge" or "MaxColdAge", or NULL. */
const char *control_forecast_to_string(enum control_forecast f);

/* memory.stat's LRU lists at a cgroup's last profiled reading: all a kernel without MGLRU tells
 * about use. Every managed cgroup keeps them once a profile was asked for (control.c). */
struct control_idle_lists {
        uint64_t active[_LRUGEN_NR_TYPES], inactive[_LRUGEN_NR_TYPES];
        uint64_t read_usec;         /* CLOCK_MONOTONIC of the reading; 0: none yet */
        bool has_lists;             /* all four keys were there */
};

/* What a cgroup with lru_gen data keeps between cycles for its profile: the generations of its
 * lruvecs at the last reading (the profile is computed from them when shown, and the next
 * reading's re-access measurement compares against them), the forecasts made with that
 * reading's limits, and the re-access sums. It lives in the cgroup's controller state, after
 * the policy state and the LRU lists, in the same allocation (control.c):
 * control_idle_state_size(n_gens) bytes, only once a profile was asked for and the cgroup's
 * cycle has had a histogram. Cgroups of a host without lru_gen have none. */
struct control_idle_state {
        uint64_t read_usec;         /* when gens was read */
        uint64_t steal;             /* memory.stat pgsteal then (has_steal) */
        bool has_steal;
        bool has_profile;           /* gens, forecasts hold the last reading's (lru_gen read) */
        uint32_t n_gens;
        struct idle_forecast forecasts[_CONTROL_FORECAST_MAX];
        struct idle_risk risk;      /* re-access per ladder rung, over the readings so far */
        struct idle_gens gens[];    /* n_gens */
};

/* Returns the bytes a state with n_gens lruvecs takes. */
static inline size_t control_idle_state_size(size_t n_gens) {
        return sizeof(struct control_idle_state) + n_gens * sizeof(struct idle_gens);
}

/* A cycle's update of a cgroup's profile, in three steps around the resizing of its storage,
 * which the caller owns: control_idle_begin() takes the LRU lists of cur (the cycle's reading
 * and its lruvecs) and, when a histogram was read (in->lrugen), accounts the re-access since
 * the kept reading into state (NULL: none yet) and returns true; the caller then gives state
 * control_idle_state_size(cur->n_lruvecs) bytes (a new one filled with control_idle_init()),
 * and control_idle_keep() keeps what this reading leaves for showing and for the next: the
 * generations, the forecasts of T (t, the decision's), MinColdAge= and MaxColdAge= of p (ps:
 * the policy state after the decision). Without a histogram control_idle_begin() returns false
 * and marks state as showing nothing (its re-access sums stay); nothing else is to be done. */
bool control_idle_begin(struct control_idle_lists *lists, struct control_idle_state *state,
                        const struct cycle_input *in, const struct cgroup_sample *cur);
void control_idle_init(struct control_idle_state *state);
void control_idle_keep(struct control_idle_state *state, const struct cycle_input *in,
                       const struct cgroup_sample *cur, const struct policy *p,
                       const struct policy_state *ps, uint64_t t);

/* A cgroup's idle-age profile as shown, as of its last cycle. */
struct control_idle {
        bool has_profile;           /* lru_gen was read: profile, forecasts and risk are valid */
        struct idle_profile profile;
        struct idle_forecast forecasts[_CONTROL_FORECAST_MAX];
        struct idle_risk risk;      /* re-access per ladder rung, over the readings so far */
        bool has_lists;             /* memory.stat's LRU lists (what is known without lru_gen) */
        uint64_t active[_LRUGEN_NR_TYPES], inactive[_LRUGEN_NR_TYPES];
        uint64_t read_usec;         /* CLOCK_MONOTONIC of the reading; 0: none yet */
};

/* Fills *ret from what a cgroup keeps (state may be NULL: lists only), computing the profile
 * from the kept generations. */
void control_idle_get(const struct control_idle_lists *lists,
                      const struct control_idle_state *state, struct control_idle *ret);
