/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idle-profile.h: how much memory has been idle for how long, what a cold age threshold would
 * free, and how often idle pages come back (docs/design.md, "Idle-age profile"). Pure functions
 * over lru_gen lruvecs, like the controllers: no I/O, no clocks.
 *
 * One idle model, the tiering controller's (idle-model.c: tiering_gen_idle_usec): the pages of
 * generation g have been idle for at least age(g+1); the youngest generation's idle time is not
 * known. The generations cannot tell anything past the oldest one: a ladder rung longer than the
 * oldest generation's idle time is "not known yet", and where only some lruvecs reach a rung the
 * figure is "at least". */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mglrud/kernel/lrugen.h"
#include "mglrud/policy/policy.h"

/* The default ladder: 10 s, 30 s, 1, 2, 5, 10, 30 min, 1 h. */
#define IDLE_LADDER_DEFAULT_N 8
extern const uint64_t idle_ladder_default_usec[IDLE_LADDER_DEFAULT_N];

/* Rungs of a ladder: the default's. Every managed cgroup keeps re-access sums per rung
 * (struct idle_risk), so a slot no ladder uses costs memory on every one of them. */
#define IDLE_LADDER_MAX IDLE_LADDER_DEFAULT_N
#define IDLE_ROWS_MAX (IDLE_LADDER_MAX + 1) /* the rungs and the oldest generation's row */

/* Flags of a row (and of a forecast). */
enum {
        IDLE_ROW_PARTIAL = 1u << 0, /* some lruvec's generations end before this idle time: the
                                     * figure is a lower bound ("at least") */
        IDLE_ROW_UNKNOWN = 1u << 1, /* beyond every lruvec's oldest generation: not known yet */
        IDLE_ROW_HORIZON = 1u << 2, /* the row of the oldest generation's idle time itself */
        IDLE_ROW_NO_SWAP = 1u << 3, /* forecast: cold anon, but no swap (headroom) takes it */
        IDLE_ROW_FLOOR   = 1u << 4, /* forecast: cut to current − max(memory.min, Floor, hot) */
};

struct idle_profile_row {
        uint64_t idle_usec;
        uint64_t bytes[_LRUGEN_NR_TYPES]; /* idle for at least idle_usec; 0 when UNKNOWN */
        unsigned flags;
        /* The bytes whose known idle time (the youngest generation's: 0) is at most idle_usec:
         * a Prometheus histogram's bucket le=idle_usec. Past the oldest generation it is every
         * byte, as no idle time longer than that is known. */
        uint64_t known_le_bytes[_LRUGEN_NR_TYPES];
};

struct idle_profile {
        struct idle_profile_row rows[IDLE_ROWS_MAX]; /* by idle time, shortest first */
        size_t n_rows;
        uint64_t total_bytes[_LRUGEN_NR_TYPES];  /* every generation */
        uint64_t hot_bytes[_LRUGEN_NR_TYPES];    /* the two youngest generations (never evicted) */
        double known_idle_byte_seconds[_LRUGEN_NR_TYPES]; /* Σ bytes × known idle time (the
                                                   * histogram's _sum) */
        uint64_t horizon_usec;     /* the longest idle time the generations tell: the oldest
                                    * generation's, over the lruvecs; 0 when none does */
        uint64_t aged_min_usec;    /* age of the youngest generation (time since the last ageing)
                                    * over the lruvecs with pages: min and max */
        uint64_t aged_max_usec;
        size_t n_lruvecs;          /* lruvecs with pages */
};

/* What the profile and the re-access rate keep of one lruvec between two readings: per
 * generation its bytes and its idle time at the reading, and nothing else of the histogram (no
 * path, no tier counters). A managed cgroup keeps one per lruvec of its last reading. */
struct idle_gens {
        uint64_t memcg_id;
        uint64_t min_seq;          /* the oldest generation's; the others follow it one by one */
        int node;
        unsigned nr_gens;          /* 1..LRUGEN_MAX_NR_GENS, oldest first */
        uint64_t aged_usec;        /* the youngest generation's age: time since the last ageing */
        uint64_t idle_usec[LRUGEN_MAX_NR_GENS]; /* tiering_gen_idle_usec(); the youngest's 0 */
        uint64_t bytes[LRUGEN_MAX_NR_GENS][_LRUGEN_NR_TYPES]; /* 0 where marked gone ("x") */
};

/* Fills *ret with what the profile keeps of lruvec v read at now_usec; state (may be NULL)
 * caps the idle times as the controller does. Returns 0, or -EINVAL (NULL pointers, a zero page
 * size, no or too many generations, sequence numbers that do not follow one another). */
int idle_gens_take(const struct lrugen_lruvec *v, const struct policy_state *state,
                   uint64_t now_usec, uint64_t page_size, struct idle_gens *ret);

/* Fills *ret with the idle-age profile of lruvecs v[0..n) at now_usec on ladder[0..n_ladder)
 * (ascending, at most IDLE_LADDER_MAX), adding a row for the horizon when it falls between
 * rungs. state (may be NULL) caps the idle time of generations our evictions put pages back
 * into, as the controller does. Returns 0, or -EINVAL (NULL pointers, a ladder too long or not
 * ascending, a zero page size, a lruvec without generations or with too many). */
int idle_profile_compute(const struct lrugen_lruvec *v, size_t n, const struct policy_state *state,
                         uint64_t now_usec, uint64_t page_size, const uint64_t *ladder,
                         size_t n_ladder, struct idle_profile *ret);

/* The same profile from what was kept of the lruvecs (idle_gens_take() at their reading): the
 * same figures idle_profile_compute() gave on the lruvecs then. Returns 0 or -EINVAL. */
int idle_profile_compute_gens(const struct idle_gens *g, size_t n, const uint64_t *ladder,
                              size_t n_ladder, struct idle_profile *ret);

/* What a cold age threshold would free now. */
struct idle_forecast {
        uint64_t threshold_usec;
        uint64_t bytes[_LRUGEN_NR_TYPES];
        unsigned flags;            /* IDLE_ROW_PARTIAL, UNKNOWN, NO_SWAP, FLOOR */
};

/* Fills *ret with what evicting the generations idle for at least threshold_usec would free
 * from cur's lruvecs: the cold prefix of each lruvec (never the two youngest generations) as the
 * tiering controller computes it, anon no more than the swap headroom, in all no more than
 * memory.current − max(memory.min, Floor=, hot set). Unlike a decision it is not cut to
 * MaxStep: it is what the threshold frees over the next cycles. Returns 0 or -EINVAL. */
int idle_forecast_compute(const struct policy *p, const struct kernel_caps *caps,
                          const struct policy_state *state, const struct cgroup_sample *cur,
                          uint64_t threshold_usec, struct idle_forecast *ret);

/* Re-access (promotion) rate per rung: pages that left a generation that eviction could take,
 * idle for at least the rung, between two readings (the ageing walk moved them to the youngest
 * generation because they were used again; the workload may also have freed them). Accumulated
 * over the readings with an exponential window, so the figure follows the workload. */
#define IDLE_RISK_WINDOW_USEC (10ULL * 60 * 1000000)

struct idle_risk {
        const uint64_t *ladder_usec; /* the ladder given to idle_risk_init(), which must outlive
                                      * r (a static table, such as idle_ladder_default_usec) */
        size_t n;
        double exposed[IDLE_LADDER_MAX][_LRUGEN_NR_TYPES];  /* byte-seconds at or above a rung */
        double promoted[IDLE_LADDER_MAX][_LRUGEN_NR_TYPES]; /* bytes that left those generations */
        double window_usec;        /* time covered, weighted like the sums */
        uint64_t intervals, skipped; /* readings used, and skipped (reclaim, gap, recreated) */
};

/* Initialises r for ladder[0..n) (ascending, at most IDLE_LADDER_MAX), which r points to.
 * Returns 0 or -EINVAL. */
int idle_risk_init(struct idle_risk *r, const uint64_t *ladder, size_t n);

/* The interval between two readings of the same lruvecs (matched by memcg and node): what was
 * kept of the first (idle_gens_take() at prev_usec) and the lruvecs of the second. */
struct idle_interval {
        const struct idle_gens *prev;
        size_t n_prev;
        uint64_t prev_usec;
        const struct lrugen_lruvec *cur;
        size_t n_cur;
        uint64_t cur_usec;
        uint64_t reclaimed_pages;       /* pages reclaim took from the cgroup meanwhile */
};

/* Accounts the interval iv (page_size: the size of the pages the lruvecs count). For each
 * generation eviction could take at the first reading (not the two youngest), its idle time
 * then, its bytes, and how many of them (or of those merged into the oldest generation since)
 * are gone at the second. An interval in which reclaim took pages from the cgroup
 * (reclaimed_pages > 0: eviction takes the oldest pages too), longer than
 * POLICY_MAX_SAMPLE_GAP_USEC or not forward in time is skipped; so is a lruvec whose sequence
 * numbers went back (recreated). Returns true when the interval was used. */
bool idle_risk_account(struct idle_risk *r, const struct idle_interval *iv, uint64_t page_size);

#define IDLE_RISK_ALL _LRUGEN_NR_TYPES /* a type for idle_risk_share_per_min(): anon and file */

/* Returns the share of the bytes of type (or IDLE_RISK_ALL) idle for at least rung k that came
 * back per minute (0.05: 5% per minute), or a negative value when nothing was exposed at that
 * rung yet. */
double idle_risk_share_per_min(const struct idle_risk *r, size_t k, int type);

/* Returns the index of the rung of r at idle_usec, or -1 when it is not one of r's rungs. */
int idle_risk_rung(const struct idle_risk *r, uint64_t idle_usec);
