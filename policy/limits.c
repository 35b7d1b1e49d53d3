/* SPDX-License-Identifier: GPL-2.0-or-later */
/* limits.c: what the planners share: the per-lruvec state slots, the cycle's budget (never
 * below max(memory.min, Floor=, the hot set), at most MaxStep=) and the swap headroom. */
#include "policy-internal.h"

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
                       uint64_t page_size, uint64_t *ret_floor) {
        /* lru_gen '-' ignores memory.min/low, so the floor is ours to enforce. */
        uint64_t floor = u64_max(u64_max(cur->limits.min, p->floor_bytes), hot);

        *ret_floor = floor;
        return pages_floor_bytes(
                u64_min(p->max_step_bytes, u64_sub_sat(cur->limits.current, floor)), page_size);
}

uint64_t policy_swap_headroom(const struct kernel_caps *caps, const struct cgroup_sample *cur) {
        if (!caps->has_swap)
                return 0;
        if (!cur->limits.has_swap || cur->limits.swap_max == MEMCG_VALUE_MAX)
                return UINT64_MAX;
        return u64_sub_sat(cur->limits.swap_max, cur->limits.swap_current);
}
