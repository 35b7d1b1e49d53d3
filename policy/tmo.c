/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tmo.c: the fallback without lru_gen (classic LRU, debugfs absent or locked down) and
 * Mode=pressure: memory.reclaim with the TMO law (ASPLOS'22)
 *     step = memory.current × ReclaimRatio × max(0, 1 − PSI some / PressureTarget)
 * capped by MaxStep and the floors, split by the swappiness controller into a file-only
 * (swappiness=0) and an anon-only (swappiness=max) write. Without "max" one mixed write with the
 * wanted swappiness stands in (the kernel then mostly takes file: noted in the flags), and
 * without swappiness= at all (6.1) one plain write. */
#include <math.h>

#include "policy-internal.h"

uint64_t tmo_step_bytes(uint64_t current, double ratio, double psi_some, double target) {
        double factor, step;

        if (target > 0)
                factor = fmax(0.0, 1.0 - psi_some / target);
        else
                factor = psi_some > 0 ? 0.0 : 1.0;
        step = (double) current * ratio * factor;
        if (!(step > 0)) /* also NaN */
                return 0;
        if (step >= (double) UINT64_MAX)
                return UINT64_MAX;
        return (uint64_t) step;
}

static void push_reclaim(struct decision *d, uint64_t bytes, int swappiness) {
        if (bytes == 0 || d->n_reclaims >= DECISION_MAX_RECLAIMS)
                return;
        d->reclaims[d->n_reclaims++] = (struct reclaim_req) {
                .bytes = bytes,
                .swappiness = swappiness,
        };
}

enum decision_reason tmo_plan(const struct policy *p, const struct kernel_caps *caps,
                              struct policy_state *s, const struct cgroup_sample *cur,
                              struct decision *d) {
        uint64_t step, budget, avail_anon, avail_file, anon, file;
        bool free_split;

        step = tmo_step_bytes(cur->limits.current, p->reclaim_ratio,
                              d->has_psi_some ? d->psi_some : 0.0, p->pressure_target);
        /* The hot set is known only when lru_gen could be read (lru_gen_full under lockdown). */
        budget = policy_budget(p, cur, d->has_estimates ? d->hot_bytes : 0, caps->page_size,
                               &d->floor_bytes);
        d->budget_bytes = pages_floor_bytes(u64_min(budget, step), caps->page_size);
        d->target_anon_share = swappiness_target_share(p, s);

        /* memory.reclaim picks the pages itself, so what each type can give is all of it. */
        avail_anon = (cur->stat.present & (UINT32_C(1) << MEMSTAT_ANON)) ?
                             cur->stat.value[MEMSTAT_ANON] : 0;
        avail_file = (cur->stat.present & (UINT32_C(1) << MEMSTAT_FILE)) ?
                             cur->stat.value[MEMSTAT_FILE] : 0;
        avail_anon = u64_min(avail_anon, policy_swap_headroom(caps, cur));
        if (avail_anon == 0 && d->target_anon_share > 0 &&
            (cur->stat.present & (UINT32_C(1) << MEMSTAT_ANON)) && cur->stat.value[MEMSTAT_ANON])
                d->flags |= DECISION_FLAG_NO_SWAP;

        free_split = swappiness_split(d->target_anon_share, d->budget_bytes, avail_anon,
                                      avail_file, caps->page_size, &anon, &file);
        d->planned_bytes[LRUGEN_ANON] = anon;
        d->planned_bytes[LRUGEN_FILE] = file;
        s->last_split_free = free_split;

        if (anon == 0 || (caps->reclaim_swappiness && caps->swappiness_max)) {
                d->anon_swappiness = SWAPPINESS_ANON_ONLY;
                push_reclaim(d, file, caps->reclaim_swappiness ? 0 : -1);
                push_reclaim(d, anon, SWAPPINESS_ANON_ONLY);
        } else if (caps->reclaim_swappiness) {
                d->anon_swappiness = swappiness_mixed_value(p, d->target_anon_share);
                d->flags |= DECISION_FLAG_MIXED_ANON;
                push_reclaim(d, anon + file, d->anon_swappiness);
        } else {
                d->anon_swappiness = -1;
                d->flags |= DECISION_FLAG_MIXED_ANON;
                push_reclaim(d, anon + file, -1);
        }

        if (d->n_reclaims > 0)
                return DECISION_TMO_STEP;
        if (budget == 0)
                return DECISION_NONE_AT_FLOOR;
        if (step == 0 && d->has_psi_some && d->psi_some >= p->pressure_target)
                return DECISION_NONE_PRESSURE; /* the law itself says stop */
        return DECISION_NONE_NOTHING_COLD;
}
