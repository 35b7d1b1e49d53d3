/* SPDX-License-Identifier: GPL-2.0-or-later */
/* swappiness.c: the anon/file split of each cycle's budget.
 *
 * Swappiness= keeps its classic LRU meaning: anon weight s, file weight 200 − s, so the anon
 * share of what is reclaimed should be s/200 when both types have cold pages (0 = file only,
 * max = anon only). MGLRU honours only 0 and max reliably (memory.reclaim "64M swappiness=N"
 * reclaimed 97–98% file for every N in 1..200 on 7.3), so the daemon writes anon-only and
 * file-only commands in the wanted ratio, and this controller checks the measured share from
 * stat deltas and corrects the ratio with an integral term (undershooting anon writes, e.g.
 * zswap rejecting pages, get asked for more next cycle).
 *
 * Swappiness=auto balances refault cost instead: each type is reclaimed in inverse proportion
 * to cost × (refaults/min + 1), with a per-refault cost of 0.5 for anon from zswap or zram, 2
 * for anon from disk swap and 1 for file. zswap loads count as zswpin, disk and zram reads as
 * pswpin, so the kernel caps say whether every swap device is zram (/proc/swaps); otherwise
 * the last cycle with swap-ins decides (pswpin > zswpin: disk), and before any, disk is
 * assumed (the conservative side). With no refaults at all that is an anon share of 2/3 on
 * zram or zswap and 1/3 on disk swap. */
#include <math.h>

#include "policy-internal.h"

static double base_share(const struct policy *p, const struct policy_state *s) {
        double cost_anon, cost_file, share;

        if (p->swappiness == SWAPPINESS_ANON_ONLY)
                return 1.0;
        if (p->swappiness >= 0)
                return (double) p->swappiness / 200.0;

        /* auto */
        cost_anon = (s->anon_compressed ? POLICY_COST_ANON_COMPRESSED : POLICY_COST_ANON_DISK) *
                    (s->refault_rate[LRUGEN_ANON] + 1.0);
        cost_file = POLICY_COST_FILE * (s->refault_rate[LRUGEN_FILE] + 1.0);
        share = cost_file / (cost_anon + cost_file);
        return clamp_double(share, POLICY_AUTO_SHARE_MIN, POLICY_AUTO_SHARE_MAX);
}

void swappiness_account(const struct policy *p, const struct kernel_caps *caps,
                        struct policy_state *s, const struct policy_rates *r) {
        double target, measured;

        if (!r->valid)
                return;

        for (int t = 0; t < _LRUGEN_NR_TYPES; t++)
                s->refault_rate[t] = 0.5 * s->refault_rate[t] + 0.5 * r->refaults_per_min[t];
        if (caps->swap_compressed)
                s->anon_compressed = true;
        else if (r->has_swapin) {
                if (r->pswpin > r->zswpin)
                        s->anon_compressed = false;
                else if (r->zswpin > r->pswpin)
                        s->anon_compressed = true;
        }

        s->has_measured = false;
        if (!r->has_anon_out || r->reclaimed_pages < POLICY_SHARE_MIN_PAGES)
                return;
        measured = (double) u64_min(r->anon_out_pages, r->reclaimed_pages) /
                   (double) r->reclaimed_pages;
        s->measured_anon_share = measured;
        s->has_measured = true;

        /* Integrate only when last cycle's plan followed the share freely: when one type ran
         * short of cold pages the deviation is the workload's, not the kernel's, and
         * integrating it would wind the term up. */
        if (!(s->last_planned_bytes[LRUGEN_ANON] && s->last_planned_bytes[LRUGEN_FILE]) ||
            !s->last_split_free)
                return;
        target = base_share(p, s);
        if (target <= 0.0 || target >= 1.0)
                return;
        s->anon_share_integral = clamp_double(s->anon_share_integral +
                                                      POLICY_SHARE_KI * (target - measured),
                                              -POLICY_SHARE_I_MAX, POLICY_SHARE_I_MAX);
}

double swappiness_target_share(const struct policy *p, const struct policy_state *s) {
        double share = base_share(p, s);

        /* 0 and max are exclusive by definition: no correction can make them mixed. */
        if (share <= 0.0 || share >= 1.0)
                return share;
        return clamp_double(share + s->anon_share_integral, 0.0, 1.0);
}

bool swappiness_split(double share, uint64_t budget, uint64_t avail_anon, uint64_t avail_file,
                      uint64_t page_size, uint64_t *ret_anon, uint64_t *ret_file) {
        uint64_t want_anon, anon, file;

        budget = pages_floor_bytes(budget, page_size);
        if (share <= 0.0) {
                *ret_anon = 0;
                *ret_file = pages_floor_bytes(u64_min(avail_file, budget), page_size);
                return true;
        }
        if (share >= 1.0) {
                *ret_anon = pages_floor_bytes(u64_min(avail_anon, budget), page_size);
                *ret_file = 0;
                return true;
        }

        want_anon = pages_floor_bytes((uint64_t) llround(share * (double) budget), page_size);
        anon = u64_min(avail_anon, want_anon);
        file = u64_min(avail_file, budget - anon);
        /* The classic meaning: when one type has nothing (more) to give, the other takes the
         * rest of the budget. */
        if (anon + file < budget)
                anon = u64_min(avail_anon, budget - file);
        *ret_anon = pages_floor_bytes(anon, page_size);
        *ret_file = pages_floor_bytes(file, page_size);
        return anon == want_anon && file == budget - want_anon;
}

int swappiness_mixed_value(const struct policy *p, double share) {
        long v;

        if (p->swappiness >= 1 && p->swappiness <= 200)
                return p->swappiness;
        if (p->swappiness == SWAPPINESS_ANON_ONLY)
                return 200;
        v = lround(share * 200.0);
        return (int) (v < 1 ? 1 : v > 200 ? 200 : v);
}
