/* SPDX-License-Identifier: GPL-2.0-or-later */
/* headroom.h: headroom under memory.high (HighHeadroom=, docs/design.md "Headroom under
 * memory.high"). Pure, like the controllers: no I/O, no clocks.
 *
 * When memory.current is above the line (1 − headroom) × limit (memory.high, or memory.max
 * where memory.high is "max"), the planner says what to evict to be back at the line: the
 * oldest generations first, over every lruvec of the cgroup, going below the cold threshold T
 * when the generations idle for T do not hold enough, but never taking a generation idle for
 * less than MinColdAge. The bytes are split between anon and file by the swappiness
 * controller's share, as every tiering plan is. When what is old enough does not reach the
 * line, the working set itself exceeds the limit: the plan takes what it can and says so (the
 * kernel's own throttling is then the right behaviour, and the limit is too low).
 *
 * Sizing: the memory a cgroup needs to run unthrottled is what it touched within an idle time
 * (MinColdAge, or T) plus the headroom: (current − bytes idle for at least that) / (1 − headroom).
 * Pages reused less often than the generations' horizon look idle, so while the horizon is
 * short the figure is a lower bound. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mglrud/policy/policy.h"

/* HighHeadroom= bounds: a share of the limit in (0, HEADROOM_MAX]; 0 is off. */
#define HEADROOM_MAX 0.5

/* What the planner needs of one cgroup in one cycle. */
struct headroom_input {
        uint64_t current;                /* memory.current */
        uint64_t high, max;              /* memory.high, memory.max (MEMCG_VALUE_MAX: "max") */
        double headroom;                 /* HighHeadroom=: share of the limit kept free, 0: off */
        const struct lrugen_lruvec *lruvecs; /* the cgroup's lruvecs (as in cgroup_sample) */
        size_t n_lruvecs;
        const struct policy_state *state; /* where evictions put pages back (NULL: nowhere) */
        uint64_t now_usec;
        uint64_t page_size;
        uint64_t min_cold_age_usec;      /* MinColdAge=: nothing idle for less is taken */
        uint64_t cold_age_usec;          /* T: what the plan takes below it is counted apart */
        double anon_share;               /* the swappiness controller's target anon share */
        uint64_t anon_room;              /* anon bytes swap can still take (0: no swap) */
        uint64_t floor;                  /* max(memory.min, Floor=, hot set): never below */
        uint64_t max_bytes;              /* MaxStep=: at most this many bytes */
        uint64_t base[_LRUGEN_NR_TYPES]; /* bytes the cycle's tiering plan takes anyway: the
                                          * plan takes at least these (oldest first too) */
        const bool *file_kept;           /* per lruvec: its file pages are not taken (hot file
                                          * tiers refaulting); NULL: none is kept */
};

/* The eviction of one lruvec: per type, the youngest generation taken (index, -1: none) and
 * the pages to take from generations 0..idx (one "- memcg node seq" write, oldest first). */
struct headroom_lruvec_take {
        int idx[_LRUGEN_NR_TYPES];
        uint64_t pages[_LRUGEN_NR_TYPES];
};

struct headroom_plan {
        bool active;                     /* headroom on and a finite limit */
        uint64_t limit;                  /* memory.high, or memory.max where high is "max" */
        uint64_t line;                   /* (1 − headroom) × limit, in whole pages */
        uint64_t excess;                 /* current − line; 0: at or under the line */
        uint64_t old_enough_bytes[_LRUGEN_NR_TYPES]; /* evictable, idle >= MinColdAge (anon
                                          * within the swap room) */
        uint64_t take_bytes[_LRUGEN_NR_TYPES]; /* what the plan evicts */
        uint64_t below_t_bytes;          /* … of which idle for less than T */
        bool working_set_exceeds;        /* excess > everything old enough: the limit is low */
        size_t n_lruvecs;                /* takes[] filled (at most POLICY_MAX_LRUVECS) */
        struct headroom_lruvec_take takes[POLICY_MAX_LRUVECS];
};

/* Returns the limit headroom keeps under: memory.high, or memory.max where high is "max";
 * MEMCG_VALUE_MAX when both are "max" (headroom has nothing to keep under). */
uint64_t headroom_limit(uint64_t high, uint64_t max);

/* Returns the line (1 − headroom) × limit rounded down to whole pages, or MEMCG_VALUE_MAX when
 * the limit is "max" or headroom is off (not in (0, HEADROOM_MAX]). */
uint64_t headroom_line(uint64_t limit, double headroom, uint64_t page_size);

/* Plans one cycle's headroom reclaim into *ret (always filled; ret->active false and nothing
 * taken when headroom is off or there is no finite limit; nothing taken at or under the line,
 * where the tiering plan alone decides). Returns 0,
 * or -EINVAL on a NULL argument, a page size that is not a power of two, lruvecs without
 * generations data (NULL with n_lruvecs > 0), or MinColdAge = 0. */
int headroom_plan(const struct headroom_input *in, struct headroom_plan *ret);

/* Between cycles (core/manager-headroom.c) a timer reads the memory.current of the cgroups with
 * a line every HEADROOM_WATCH_USEC, and an early decision for one cgroup comes at most once per
 * cycle interval / HEADROOM_REARM_DIVISOR (a decision evicts at most MaxStep: a cgroup still
 * over its line gets its next one a quarter interval later, not ten times a second). */
#define HEADROOM_WATCH_USEC (100 * UINT64_C(1000))
#define HEADROOM_REARM_DIVISOR 4

/* Returns true when a cgroup whose last decision drew the line (0 or MEMCG_VALUE_MAX: none) is
 * over it now and its last early decision, at last_armed_usec (0: none), is at least
 * interval_usec / HEADROOM_REARM_DIVISOR ago: decide for it now rather than at the next
 * cycle. */
bool headroom_should_arm(uint64_t current, uint64_t line, uint64_t now_usec,
                         uint64_t last_armed_usec, uint64_t interval_usec);

/* Returns the delay from one check of the watch to the next: HEADROOM_WATCH_USEC when the check
 * found n_watched > 0 cgroups with a line, else interval_usec: with nothing to watch the next
 * look is at the end of the next cycle, which may draw a line (the manager turns its timer off
 * until then rather than wake for nothing; core/manager-headroom.c). */
uint64_t headroom_watch_delay_usec(size_t n_watched, uint64_t interval_usec);

/* The sizing of one cgroup: what it needs to run unthrottled, beside its limit. */
struct headroom_sizing {
        uint64_t limit;                  /* headroom_limit(); MEMCG_VALUE_MAX: none */
        uint64_t need_min_cold_age;      /* (current − idle >= MinColdAge) / (1 − headroom) */
        uint64_t need_cold_age;          /* the same with T */
        uint64_t horizon_usec;           /* the longest idle time the generations tell: a
                                          * need past it is only a lower bound */
        bool horizon_short;              /* horizon_usec < MinColdAge: nothing is yet known to be
                                          * idle for MinColdAge, the need is all of current */
};

/* Fills *ret with the sizing of in (base, floor, max_bytes, anon_share and anon_room are not
 * used: the sizing counts every byte idle long enough, whatever could evict it; headroom off
 * counts as 0). Returns 0, or -EINVAL as headroom_plan(). */
int headroom_size(const struct headroom_input *in, struct headroom_sizing *ret);
