/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idle-model.c: how long the pages of a generation have been idle, as far as the histogram and
 * our own evictions tell, and the prefix of generations idle for at least a given time. One
 * model for the tiering controller (tiering.c, tiering-plan.c) and the idle-age profile
 * (idle-profile.c), which both stand on it: the advice and the profile cannot disagree with
 * what Mode=active then does. */
#include "mglrud/shared/macro.h"
#include "policy-internal.h"

uint64_t tiering_gen_pages(const struct lrugen_gen *g, int type) {
        return g->gone[type] ? 0 : g->nr_pages[type];
}

/* Returns how long ago our eviction put pages it found referenced back into generation seq of
 * the lruvec, or UINT64_MAX if none did (as far as we know).
 *
 * Eviction re-checks the accessed bit of every page it takes (rmap), keeps the referenced
 * ones, clears their bit and adds them back at max_seq − 1 (lru_gen_folio_seq: PG_active).
 * The next ageing walk then finds the bit clear and leaves them there, below a generation
 * created before their last access: age(g + 1) overstates their idle time by up to a cadence.
 * Measured in S1: an eviction at T = 40 s took 0 of 64 MiB of a set reused every 30 s, two
 * agings later 32 MiB of it was "idle >= 40 s", was evicted and refaulted. */
static uint64_t rejected_since(const struct policy_lruvec_state *slot, uint64_t seq,
                               uint64_t now_usec) {
        if (!slot)
                return UINT64_MAX;
        for (size_t k = 0; k < ELEMENTSOF(slot->rejected); k++)
                if (slot->rejected[k].usec && slot->rejected[k].seq == seq)
                        return u64_sub_sat(now_usec, slot->rejected[k].usec);
        return UINT64_MAX;
}

uint64_t tiering_gen_idle_usec(const struct lrugen_lruvec *v, unsigned i,
                               const struct policy_lruvec_state *slot, uint64_t now_usec) {
        if (i + 1 >= v->nr_gens)
                return 0;
        return u64_min((uint64_t) v->gens[i + 1].age_ms * 1000ULL,
                       rejected_since(slot, v->gens[i].seq, now_usec));
}

int tiering_cold_prefix(const struct lrugen_lruvec *v, const struct policy_lruvec_state *slot,
                        uint64_t now_usec, int type, uint64_t t, uint64_t *ret_pages) {
        int last = -1;
        uint64_t pages = 0;

        /* seq <= max_seq − 2: index <= nr_gens − 3. */
        for (unsigned i = 0; i + 3 <= v->nr_gens; i++) {
                if (tiering_gen_idle_usec(v, i, slot, now_usec) < t)
                        break;
                last = (int) i;
                pages += tiering_gen_pages(&v->gens[i], type);
        }
        *ret_pages = pages;
        return last;
}

uint64_t idle_lruvec_horizon(const struct lrugen_lruvec *v, const struct policy_lruvec_state *slot,
                             uint64_t now_usec) {
        /* The youngest generation has no known idle time. */
        for (unsigned i = 0; i + 1 < v->nr_gens; i++)
                if (tiering_gen_pages(&v->gens[i], LRUGEN_ANON) +
                    tiering_gen_pages(&v->gens[i], LRUGEN_FILE) > 0)
                        return tiering_gen_idle_usec(v, i, slot, now_usec);
        return 0;
}
