/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guard.c: sample validity (counter resets, clock jumps), rates over the cycle, PSI shares and
 * the host guard. Own tiny delta/ratio helpers: policy links without the daemon's readers. */
#include "policy-internal.h"

static bool stat_has(const struct memstat *s, enum memstat_key k) {
        return s->present & (UINT32_C(1) << k);
}

uint64_t policy_stat_delta(const struct memstat *prev, const struct memstat *cur,
                           enum memstat_key k) {
        if (!stat_has(prev, k) || !stat_has(cur, k))
                return 0;
        return u64_sub_sat(cur->value[k], prev->value[k]);
}

static bool stat_went_back(const struct memstat *prev, const struct memstat *cur,
                           enum memstat_key k) {
        return stat_has(prev, k) && stat_has(cur, k) && cur->value[k] < prev->value[k];
}

bool policy_counters_reset(const struct cgroup_sample *prev, const struct cgroup_sample *cur) {
        /* Every key from workingset_refault_anon on is a cumulative event counter; the amounts
         * before it (anon, file, …) legitimately go up and down. */
        for (int k = MEMSTAT_WORKINGSET_REFAULT_ANON; k < _MEMSTAT_KEY_MAX; k++)
                if (stat_went_back(&prev->stat, &cur->stat, k))
                        return true;

        if (prev->has_psi && cur->has_psi) {
                if (cur->psi.some.total_us < prev->psi.some.total_us)
                        return true;
                if (prev->psi.has_full && cur->psi.has_full &&
                    cur->psi.full.total_us < prev->psi.full.total_us)
                        return true;
        }
        return false;
}

bool policy_psi_share(const struct psi *prev, const struct psi *cur, uint64_t dt_usec, bool full,
                      double *ret) {
        const struct psi_line *a, *b;

        if (dt_usec == 0)
                return false;
        if (full && (!prev->has_full || !cur->has_full))
                return false;
        a = full ? &prev->full : &prev->some;
        b = full ? &cur->full : &cur->some;
        if (b->total_us < a->total_us)
                return false;
        /* Stall time can exceed wall time by sampling skew (the two files are read at slightly
         * different instants than now_usec): clamp. */
        *ret = clamp_double((double) (b->total_us - a->total_us) / (double) dt_usec, 0.0, 1.0);
        return true;
}

void policy_rates_compute(const struct cgroup_sample *prev, const struct cgroup_sample *cur,
                          struct policy_rates *ret, uint32_t *flags) {
        struct policy_rates r = {};

        if (!prev) {
                *flags |= DECISION_FLAG_FIRST_SAMPLE;
                *ret = r;
                return;
        }
        if (cur->now_usec <= prev->now_usec ||
            cur->now_usec - prev->now_usec > POLICY_MAX_SAMPLE_GAP_USEC) {
                *flags |= DECISION_FLAG_CLOCK_JUMP;
                *ret = r;
                return;
        }

        r.valid = true;
        r.dt_usec = cur->now_usec - prev->now_usec;

        if (prev->has_psi && cur->has_psi)
                r.has_psi_some = policy_psi_share(&prev->psi, &cur->psi, r.dt_usec, false,
                                                  &r.psi_some);

        /* workingset_refault, not _restore: restore (7.3) counts only pages that were
         * PG_workingset when evicted, so it misses the first refault of a periodically reused
         * set, which is exactly the mistake T must learn from. refault matches the far-memory
         * "promotion rate" definition. */
        static const enum memstat_key refault_key[_LRUGEN_NR_TYPES] = {
                [LRUGEN_ANON] = MEMSTAT_WORKINGSET_REFAULT_ANON,
                [LRUGEN_FILE] = MEMSTAT_WORKINGSET_REFAULT_FILE,
        };
        for (int t = 0; t < _LRUGEN_NR_TYPES; t++) {
                r.refault_pages[t] = policy_stat_delta(&prev->stat, &cur->stat, refault_key[t]);
                r.refaults_per_min[t] = (double) r.refault_pages[t] * (double) USEC_PER_MINUTE /
                                        (double) r.dt_usec;
        }

        if (stat_has(&prev->stat, MEMSTAT_PGSTEAL_PROACTIVE) &&
            stat_has(&cur->stat, MEMSTAT_PGSTEAL_PROACTIVE))
                r.reclaimed_pages = policy_stat_delta(&prev->stat, &cur->stat,
                                                      MEMSTAT_PGSTEAL_PROACTIVE);
        else /* 6.x: lru_gen writes and memory.reclaim count as direct reclaim */
                r.reclaimed_pages = policy_stat_delta(&prev->stat, &cur->stat, MEMSTAT_PGSTEAL);

        /* Anon pages leaving: pswpout (disk and zram) + zswpout (zswap). A zswap writeback is
         * counted twice, which slightly overstates anon; good enough for an integral term. */
        if ((stat_has(&prev->stat, MEMSTAT_PSWPOUT) && stat_has(&cur->stat, MEMSTAT_PSWPOUT)) ||
            (stat_has(&prev->stat, MEMSTAT_ZSWPOUT) && stat_has(&cur->stat, MEMSTAT_ZSWPOUT))) {
                r.has_anon_out = true;
                r.anon_out_pages = policy_stat_delta(&prev->stat, &cur->stat, MEMSTAT_PSWPOUT) +
                                   policy_stat_delta(&prev->stat, &cur->stat, MEMSTAT_ZSWPOUT);
        }
        if ((stat_has(&prev->stat, MEMSTAT_PSWPIN) && stat_has(&cur->stat, MEMSTAT_PSWPIN)) ||
            (stat_has(&prev->stat, MEMSTAT_ZSWPIN) && stat_has(&cur->stat, MEMSTAT_ZSWPIN))) {
                r.has_swapin = true;
                r.pswpin = policy_stat_delta(&prev->stat, &cur->stat, MEMSTAT_PSWPIN);
                r.zswpin = policy_stat_delta(&prev->stat, &cur->stat, MEMSTAT_ZSWPIN);
        }
        if (stat_has(&prev->stat, MEMSTAT_FILE) && stat_has(&cur->stat, MEMSTAT_FILE))
                r.file_delta_bytes = (int64_t) (cur->stat.value[MEMSTAT_FILE] -
                                                prev->stat.value[MEMSTAT_FILE]);

        *ret = r;
}

bool policy_host_guard(const struct host_sample *host_prev, const struct host_sample *host_cur,
                       const struct host_limits *limits) {
        double full;

        if (!host_cur || !limits)
                return false;
        if (limits->min_available > 0 && host_cur->meminfo.mem_available < limits->min_available)
                return true;
        if (limits->full_limit > 0 && host_prev && host_prev->has_psi && host_cur->has_psi &&
            host_cur->now_usec > host_prev->now_usec &&
            host_cur->now_usec - host_prev->now_usec <= POLICY_MAX_SAMPLE_GAP_USEC &&
            policy_psi_share(&host_prev->psi, &host_cur->psi,
                             host_cur->now_usec - host_prev->now_usec, true, &full) &&
            full > limits->full_limit)
                return true;
        return false;
}
