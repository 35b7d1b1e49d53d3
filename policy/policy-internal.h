/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy-internal.h: what the controller files share. Not installed, not used by daemon/. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "mglrud/policy/policy.h"
#include "mglrud/shared/time.h"

/* T adaptation (far-memory style: the smallest T that keeps refaults under target). Raising is
 * fast because a too-small T costs the workload stalls now; lowering is slow because a
 * too-large T only costs memory: one ×0.9 step once the cgroup has been quiet for at least
 * POLICY_QUIET_CYCLES cycles and for T itself. A page reused every P seconds is evicted only
 * when T drops below P, and refaults at most P after: waiting T after each step shows the
 * refaults of the previous one before the next (measured in S1 with a 6-cycle wait: T fell from
 * 49 s to 21 s in 70 s and evicted a 64 MiB set reused every 30 s). */
#define POLICY_T_RAISE 1.5
#define POLICY_T_LOWER 0.9
#define POLICY_QUIET_CYCLES 6
/* After refaults raised T, quiet periods do not lower it below the raised value for this long:
 * else the descent would find the same reuse period again and evict that set every few
 * minutes, far above RefaultTarget. */
#define POLICY_T_FLOOR_HOLD_USEC (10ULL * 60 * 1000000)
/* After a raise, refaults of pages evicted before it keep coming for a cycle or two (the
 * feedback is delayed): hold further raises for this many cycles, else one burst would drive T
 * to MaxColdAge (×1.5 per cycle). */
#define POLICY_RAISE_HOLD_CYCLES 2
/* Refaults in one cycle below this many pages never raise T: a handful of refaults scaled
 * from a 2 s cycle to a per-minute rate looks like a storm (6 refaults raised T in the S1
 * benchmark and stalled eviction). 256 pages = 1 MiB. */
#define POLICY_REFAULT_MIN_PAGES 256
/* ... but they are not forgotten: each cycle's refaults add to a window of at most this long,
 * judged whole (its share per minute of the working set against RefaultTarget) once it holds
 * POLICY_REFAULT_MIN_PAGES. Without it a steady refault rate under 256 pages a cycle never
 * raised T however far above target it was, and the shorter the interval the blinder: memcached
 * at Interval=2s got 13 refaults a second back (0.95% of its memory a minute, target 0.2%) and
 * T stayed until a stall raised it (issue 24, tests/bench/RESULTS.md). 60 s: refaults of
 * pages evicted at T come within a few T of the eviction. */
#define POLICY_REFAULT_WINDOW_USEC (60ULL * 1000000ULL)
/* An eviction at T that got less than this share of what it asked (at least
 * POLICY_REFAULT_MIN_PAGES asked) raises T as refaults above target do. The kernel takes a page
 * only if its accessed bit is still clear when eviction looks (rmap), so such a write says most
 * of the generations counted idle for T were in use: the ageing walks skip page tables they
 * found sparse (the Bloom filter), their pages keep old generations however often they are used,
 * and what the write does take is the edge of the working set, which comes back. Measured on
 * memcached under a Zipf client at T = 44-48 s: writes asked 26-35M and got 0-1.7M, and 78-88%
 * of what they took was swapped back in (tests/bench/RESULTS.md, issue 24). */
#define POLICY_FUTILE_YIELD 0.25
/* Agings of a newly seen lruvec at a shorter cadence (tiering.c: calibration_cadence). */
#define POLICY_CALIBRATION_AGINGS 2
/* "Quiet" means refaults and PSI at most a quarter of their targets. */
#define POLICY_QUIET_FRACTION 0.25

/* Swappiness controller: integral gain per cycle and bound of the correction. */
#define POLICY_SHARE_KI 0.5
#define POLICY_SHARE_I_MAX 0.5
/* A cycle that reclaimed less than this (pages) tells nothing reliable about the split. */
#define POLICY_SHARE_MIN_PAGES 256
/* Swappiness=auto: relative cost of one refault per type (file read ≈ 1). Anon from zswap or
 * zram is cheaper than a file read, anon from disk swap costs more (random 4K reads). */
#define POLICY_COST_FILE 1.0
#define POLICY_COST_ANON_COMPRESSED 0.5
#define POLICY_COST_ANON_DISK 2.0
#define POLICY_AUTO_SHARE_MIN 0.05
#define POLICY_AUTO_SHARE_MAX 0.95

/* Stream detector: file inflow per minute of at least a quarter of memory.current (and at least
 * POLICY_STREAM_MIN_BYTES), file refaults at most 1% of that inflow, for POLICY_STREAM_CYCLES
 * consecutive cycles. While streaming, file uses T_file = min(T, max(MinColdAge/4, 10 s)). */
#define POLICY_STREAM_INFLOW_FRACTION 0.25
#define POLICY_STREAM_MIN_BYTES (16ULL << 20)
#define POLICY_STREAM_REFAULT_FRACTION 0.01
#define POLICY_STREAM_CYCLES 3
#define POLICY_STREAM_MIN_T_USEC (10ULL * 1000000ULL)

/* Tier protection (lru_gen_full): file tiers >= 1 of the oldest generation refaulting at least a
 * quarter of what was evicted from them (with at least 64 evicted) → frequently used file pages
 * are being lost: no file eviction on that lruvec this cycle. */
#define POLICY_TIER_MIN_EVICTED 64
#define POLICY_TIER_REFAULT_RATIO 0.25


/* Rates over the cycle, from prev→cur deltas. */
struct policy_rates {
        bool valid;                             /* prev usable: no reset, no clock jump */
        uint64_t dt_usec;
        bool has_psi_some;
        double psi_some;                        /* share 0..1 */
        double refaults_per_min[_LRUGEN_NR_TYPES]; /* pages per minute */
        uint64_t refault_pages[_LRUGEN_NR_TYPES];
        uint64_t reclaimed_pages;               /* Δpgsteal_proactive (or Δpgsteal) */
        bool has_anon_out;
        uint64_t anon_out_pages;                /* Δpswpout + Δzswpout */
        bool has_swapin;
        uint64_t pswpin, zswpin;
        int64_t file_delta_bytes;               /* Δ memory.stat file */
};

/* guard.c */
/* Returns true when a cumulative counter (memory.stat events, PSI totals) went backwards. */
bool policy_counters_reset(const struct cgroup_sample *prev, const struct cgroup_sample *cur);
/* Fills *ret from prev→cur. ret->valid is false on a first sample or a clock jump (flags tell
 * which). */
void policy_rates_compute(const struct cgroup_sample *prev, const struct cgroup_sample *cur,
                          struct policy_rates *ret, uint32_t *flags);
/* Returns true when the host guard stops everything this cycle. */
bool policy_host_guard(const struct host_sample *host_prev, const struct host_sample *host_cur,
                       const struct host_limits *limits);

/* swappiness.c */
/* Updates the integral term and the refault cost inputs from the rates of the last cycle. */
void swappiness_account(const struct policy *p, const struct kernel_caps *caps,
                        struct policy_state *s,
                        const struct policy_rates *r);
/* Returns the anon share (0..1) the controller aims at, integral correction included. */
double swappiness_target_share(const struct policy *p, const struct policy_state *s);
/* Splits budget between anon and file given what each type can give. Returns true when the
 * split followed the share (neither type ran short). */
bool swappiness_split(double share, uint64_t budget, uint64_t avail_anon, uint64_t avail_file,
                      uint64_t page_size, uint64_t *ret_anon, uint64_t *ret_file);
/* Returns the swappiness (1..200) of a mixed write standing in for an anon-only one. */
int swappiness_mixed_value(const struct policy *p, double share);

/* idle-model.c: the idle model tiering.c and idle-profile.c share */
/* Returns the pages of type in generation g (0 when marked gone). */
uint64_t tiering_gen_pages(const struct lrugen_gen *g, int type);
/* Returns the idle lower bound of generation i of v in usec (0 for the youngest): the age of
 * the next generation, capped by the time since an eviction of ours put pages it found
 * referenced back into it (idle-model.c: rejected_since). slot may be NULL. */
uint64_t tiering_gen_idle_usec(const struct lrugen_lruvec *v, unsigned i,
                               const struct policy_lruvec_state *slot, uint64_t now_usec);
/* Returns the index of the youngest evictable generation of v (never the two youngest) in the
 * prefix idle for at least t (-1 if none); *ret_pages gets the type's pages in generations
 * 0..index. */
int tiering_cold_prefix(const struct lrugen_lruvec *v, const struct policy_lruvec_state *slot,
                        uint64_t now_usec, int type, uint64_t t, uint64_t *ret_pages);
/* Returns the idle time of lruvec v's oldest generation that holds pages, other than the
 * youngest (the longest idle time it tells), or 0. slot may be NULL. */
uint64_t idle_lruvec_horizon(const struct lrugen_lruvec *v, const struct policy_lruvec_state *slot,
                             uint64_t now_usec);

/* tiering.c */
/* Raises T by POLICY_T_RAISE, within MaxColdAge. Returns true when T went up. */
bool tiering_raise_t(const struct policy *p, struct policy_state *s);
void tiering_adapt(const struct policy *p, struct policy_state *s, const struct policy_rates *r,
                   const struct cgroup_sample *cur, uint64_t page_size, uint32_t *flags);
void stream_update(struct policy_state *s, const struct policy_rates *r,
                   const struct cgroup_sample *cur, uint64_t page_size);
uint64_t stream_file_cold_age(const struct policy *p, const struct policy_state *s);
/* Notes, per lruvec, when the previous decision's evictions (now done) put the pages they found
 * referenced back into a generation. Call before tiering_estimate(). */
void tiering_note_rejects(struct policy_state *s, const struct cgroup_sample *cur);
/* Fills the estimate fields of d (cold/cooling/warm/hot) from cur's lruvecs and d's T. */
void tiering_estimate(const struct policy_state *s, const struct cgroup_sample *cur,
                      uint64_t page_size, struct decision *d);

/* tiering-headroom.c */
struct headroom_input;
/* Fills *ret with the planner's input for cur under p (headroom.h); the base is zero and
 * file_kept NULL, for the caller to set. Without the limits read (has_high_max) they count as
 * "max": no line. */
void headroom_input_of(const struct policy *p, const struct kernel_caps *caps,
                       const struct policy_state *s, const struct cgroup_sample *cur,
                       const struct decision *d, struct headroom_input *ret);
/* Fills d's headroom and sizing estimates (limit, line, excess, need) and sets
 * DECISION_FLAG_OVER_LIMIT when the working set exceeds the limit. Call after
 * tiering_estimate() and swappiness_target_share(). */
void headroom_estimate(const struct policy *p, const struct kernel_caps *caps,
                       const struct policy_state *s, const struct cgroup_sample *cur,
                       struct decision *d);

/* tiering-plan.c */
/* Plans ageing and eviction commands. Returns the reason. */
enum decision_reason tiering_plan(const struct policy *p, const struct kernel_caps *caps,
                                  struct policy_state *s, const struct cgroup_sample *cur,
                                  struct decision *d);

/* tmo.c */
/* Returns the TMO step in bytes (not rounded, not capped): current × ratio × max(0, 1 − psi /
 * target). */
uint64_t tmo_step_bytes(uint64_t current, double ratio, double psi_some, double target);
enum decision_reason tmo_plan(const struct policy *p, const struct kernel_caps *caps,
                              struct policy_state *s, const struct cgroup_sample *cur,
                              struct decision *d);

/* limits.c */
/* Returns max(memory.min, Floor, hot) and the budget: min(MaxStep, current − that), in pages. */
uint64_t policy_budget(const struct policy *p, const struct cgroup_sample *cur, uint64_t hot,
                       uint64_t page_size, uint64_t *ret_floor);
/* Returns how many anon bytes may go to swap (swap.max − swap.current, or unlimited). */
uint64_t policy_swap_headroom(const struct kernel_caps *caps, const struct cgroup_sample *cur);
/* Returns the state slot of a lruvec, or NULL if it has none. */
const struct policy_lruvec_state *policy_lruvec_find(const struct policy_state *s,
                                                     uint64_t memcg_id, int node);
/* Finds (or allocates, reusing the least recently seen) the state slot of a lruvec. */
struct policy_lruvec_state *policy_lruvec_slot(struct policy_state *s, uint64_t memcg_id,
                                               int node, uint64_t now_usec);

static inline uint64_t pages_floor_bytes(uint64_t bytes, uint64_t page_size) {
        return bytes / page_size * page_size;
}
static inline uint64_t u64_min(uint64_t a, uint64_t b) {
        return a < b ? a : b;
}
static inline uint64_t u64_max(uint64_t a, uint64_t b) {
        return a > b ? a : b;
}
static inline uint64_t u64_sub_sat(uint64_t a, uint64_t b) {
        return a > b ? a - b : 0;
}
static inline double clamp_double(double x, double lo, double hi) {
        return x < lo ? lo : x > hi ? hi : x;
}
