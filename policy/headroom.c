/* SPDX-License-Identifier: GPL-2.0-or-later */
/* headroom.c: what to evict to keep memory.current under (1 − HighHeadroom) × memory.high, and
 * what a cgroup needs to run unthrottled (headroom.h). The idle model is the tiering
 * controller's (tiering.c: tiering_gen_idle_usec), and so is the rule that the two youngest
 * generations are never evicted. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "mglrud/kernel/memcg.h"
#include "mglrud/policy/headroom.h"
#include "mglrud/policy/idle-profile.h"
#include "policy-internal.h"

/* The generations of one lruvec old enough to go: 0..n−1, each with its idle lower bound,
 * made non-increasing (an eviction write takes a lruvec's generations oldest first, so a
 * generation is never taken before an older one, whatever a put-back did to its own bound). */
struct old_prefix {
        unsigned n;
        uint64_t idle[LRUGEN_MAX_NR_GENS];
};

uint64_t headroom_limit(uint64_t high, uint64_t max) {
        return high != MEMCG_VALUE_MAX ? u64_min(high, max) : max;
}

uint64_t headroom_line(uint64_t limit, double headroom, uint64_t page_size) {
        if (limit == MEMCG_VALUE_MAX || !(headroom > 0 && headroom <= HEADROOM_MAX))
                return MEMCG_VALUE_MAX;
        return pages_floor_bytes((uint64_t) ((1.0 - headroom) * (double) limit), page_size);
}

static int validate(const struct headroom_input *in, const void *ret) {
        if (!in || !ret)
                return -EINVAL;
        if (in->page_size == 0 || (in->page_size & (in->page_size - 1)) != 0)
                return -EINVAL;
        if (in->n_lruvecs > 0 && !in->lruvecs)
                return -EINVAL;
        if (in->min_cold_age_usec == 0)
                return -EINVAL;
        return 0;
}

static const struct policy_lruvec_state *slot_of(const struct headroom_input *in,
                                                 const struct lrugen_lruvec *v) {
        return in->state ? policy_lruvec_find(in->state, v->memcg_id, v->node) : NULL;
}

/* Fills *ret with the evictable generations of v (never the two youngest) idle for at least
 * MinColdAge. */
static void old_prefix_of(const struct headroom_input *in, const struct lrugen_lruvec *v,
                          struct old_prefix *ret) {
        const struct policy_lruvec_state *slot = slot_of(in, v);
        uint64_t bound = UINT64_MAX;

        ret->n = 0;
        for (unsigned i = 0; i + 3 <= v->nr_gens && i < LRUGEN_MAX_NR_GENS; i++) {
                bound = u64_min(bound, tiering_gen_idle_usec(v, i, slot, in->now_usec));
                if (bound < in->min_cold_age_usec)
                        break;
                ret->idle[ret->n++] = bound;
        }
}

/* Takes up to want pages of type, the oldest generation over every lruvec first, into
 * ret->takes. Returns the pages taken; adds those idle for less than T to ret->below_t_bytes. */
static bool type_kept(const struct headroom_input *in, size_t j, int type) {
        return type == LRUGEN_FILE && in->file_kept && in->file_kept[j];
}

static uint64_t take_oldest(const struct headroom_input *in, const struct old_prefix *pre,
                            int type, uint64_t want, struct headroom_plan *ret) {
        unsigned cursor[POLICY_MAX_LRUVECS] = { 0 };
        uint64_t left = want;

        while (left > 0) {
                size_t best = SIZE_MAX;

                for (size_t j = 0; j < ret->n_lruvecs; j++)
                        if (cursor[j] < pre[j].n && !type_kept(in, j, type) &&
                            (best == SIZE_MAX || pre[j].idle[cursor[j]] > pre[best].idle[cursor[best]]))
                                best = j;
                if (best == SIZE_MAX)
                        break;
                unsigned i = cursor[best]++;
                uint64_t take = u64_min(tiering_gen_pages(&in->lruvecs[best].gens[i], type), left);
                if (take == 0)
                        continue;
                ret->takes[best].idx[type] = (int) i;
                ret->takes[best].pages[type] += take;
                if (pre[best].idle[i] < in->cold_age_usec)
                        ret->below_t_bytes += take * in->page_size;
                left -= take;
        }
        return want - left;
}

int headroom_plan(const struct headroom_input *in, struct headroom_plan *ret) {
        struct old_prefix pre[POLICY_MAX_LRUVECS];
        uint64_t avail[_LRUGEN_NR_TYPES], want[_LRUGEN_NR_TYPES], need;
        int r = validate(in, ret);

        if (r < 0)
                return r;
        memset(ret, 0, sizeof *ret);
        ret->limit = headroom_limit(in->high, in->max);
        ret->line = headroom_line(ret->limit, in->headroom, in->page_size);
        ret->active = ret->line != MEMCG_VALUE_MAX;
        ret->n_lruvecs = u64_min(in->n_lruvecs, POLICY_MAX_LRUVECS);
        for (size_t j = 0; j < ret->n_lruvecs; j++) {
                old_prefix_of(in, &in->lruvecs[j], &pre[j]);
                for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                        ret->takes[j].idx[type] = -1;
                        for (unsigned i = 0; i < pre[j].n && !type_kept(in, j, type); i++)
                                ret->old_enough_bytes[type] +=
                                        tiering_gen_pages(&in->lruvecs[j].gens[i], type) *
                                        in->page_size;
                }
        }
        ret->old_enough_bytes[LRUGEN_ANON] =
                pages_floor_bytes(u64_min(ret->old_enough_bytes[LRUGEN_ANON], in->anon_room),
                                  in->page_size);
        if (!ret->active)
                return 0;
        ret->excess = u64_sub_sat(in->current, ret->line);
        if (ret->excess == 0)
                return 0;
        ret->working_set_exceeds =
                ret->excess > ret->old_enough_bytes[LRUGEN_ANON] + ret->old_enough_bytes[LRUGEN_FILE];

        /* Back to the line, never under the floor, at most MaxStep; then the usual split. */
        need = u64_min(u64_min(ret->excess, u64_sub_sat(in->current, in->floor)), in->max_bytes);
        need = (need + in->page_size - 1) / in->page_size * in->page_size;
        memcpy(avail, ret->old_enough_bytes, sizeof avail);
        swappiness_split(in->anon_share, need, avail[LRUGEN_ANON], avail[LRUGEN_FILE],
                         in->page_size, &want[LRUGEN_ANON], &want[LRUGEN_FILE]);
        for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                want[type] = u64_min(u64_max(want[type], in->base[type]), avail[type]);
                ret->take_bytes[type] =
                        take_oldest(in, pre, type, want[type] / in->page_size, ret) * in->page_size;
        }
        return 0;
}

bool headroom_should_arm(uint64_t current, uint64_t line, uint64_t now_usec,
                         uint64_t last_armed_usec, uint64_t interval_usec) {
        if (line == 0 || current <= line) /* MEMCG_VALUE_MAX: no current is above it */
                return false;
        return last_armed_usec == 0 ||
               u64_sub_sat(now_usec, last_armed_usec) >= interval_usec / HEADROOM_REARM_DIVISOR;
}

uint64_t headroom_watch_delay_usec(size_t n_watched, uint64_t interval_usec) {
        return n_watched > 0 ? HEADROOM_WATCH_USEC : interval_usec;
}

/* Returns the bytes of every generation of in's lruvecs idle for at least idle_usec. */
static uint64_t bytes_idle_for(const struct headroom_input *in, uint64_t idle_usec) {
        uint64_t pages = 0;

        for (size_t j = 0; j < in->n_lruvecs; j++) {
                const struct lrugen_lruvec *v = &in->lruvecs[j];
                const struct policy_lruvec_state *slot = slot_of(in, v);

                for (unsigned i = 0; i < v->nr_gens && i < LRUGEN_MAX_NR_GENS; i++)
                        if (tiering_gen_idle_usec(v, i, slot, in->now_usec) >= idle_usec)
                                pages += tiering_gen_pages(&v->gens[i], LRUGEN_ANON) +
                                         tiering_gen_pages(&v->gens[i], LRUGEN_FILE);
        }
        return pages * in->page_size;
}

/* Returns what is touched within idle_usec plus the headroom, in whole pages (rounded up). */
static uint64_t need_for(const struct headroom_input *in, uint64_t idle_usec, double headroom) {
        double touched = (double) u64_sub_sat(in->current, bytes_idle_for(in, idle_usec));
        double pages = ceil(touched / (1.0 - headroom) / (double) in->page_size);

        return (uint64_t) pages * in->page_size;
}

int headroom_size(const struct headroom_input *in, struct headroom_sizing *ret) {
        int r = validate(in, ret);
        double h = in && in->headroom > 0 && in->headroom <= HEADROOM_MAX ? in->headroom : 0.0;

        if (r < 0)
                return r;
        *ret = (struct headroom_sizing) {
                .limit = headroom_limit(in->high, in->max),
                .need_min_cold_age = need_for(in, in->min_cold_age_usec, h),
                .need_cold_age = need_for(in, u64_max(in->cold_age_usec, in->min_cold_age_usec), h),
        };
        for (size_t j = 0; j < in->n_lruvecs; j++)
                ret->horizon_usec = u64_max(ret->horizon_usec,
                                            idle_lruvec_horizon(&in->lruvecs[j],
                                                                slot_of(in, &in->lruvecs[j]),
                                                                in->now_usec));
        ret->horizon_short = ret->horizon_usec < in->min_cold_age_usec;
        return 0;
}
