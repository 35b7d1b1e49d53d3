/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guard.c: sample validity (counter resets, clock jumps), rates over the cycle, PSI shares and
 * the host guard. */
#include "policy-internal.h"

static bool stat_went_back(const struct memstat *prev, const struct memstat *cur,
                           enum memstat_key k) {
        return memstat_has(prev, k) && memstat_has(cur, k) && cur->value[k] < prev->value[k];
}

const enum memstat_key policy_prev_memstat_keys[POLICY_PREV_MEMSTAT_KEYS] = {
        MEMSTAT_FILE,
        MEMSTAT_WORKINGSET_REFAULT_ANON,
        MEMSTAT_WORKINGSET_REFAULT_FILE,
        MEMSTAT_WORKINGSET_NODERECLAIM,
        MEMSTAT_PGSTEAL,
        MEMSTAT_PGSTEAL_PROACTIVE,
        MEMSTAT_PSWPIN,
        MEMSTAT_PSWPOUT,
        MEMSTAT_ZSWPIN,
        MEMSTAT_ZSWPOUT,
};

bool policy_counters_reset(const struct cgroup_sample *prev, const struct cgroup_sample *cur) {
        /* The event counters of a previous sample (every kept key from workingset_refault_anon
         * on; file is an amount, which legitimately goes up and down): a cgroup recreated under
         * the same path starts them all again from 0, so these nine tell as well as all. */
        for (size_t i = 0; i < POLICY_PREV_MEMSTAT_KEYS; i++) {
                enum memstat_key k = policy_prev_memstat_keys[i];
                if (k >= MEMSTAT_WORKINGSET_REFAULT_ANON && stat_went_back(&prev->stat, &cur->stat, k))
                        return true;
        }

        if (prev->has_psi && cur->has_psi) {
                if (cur->psi.some.total_us < prev->psi.some.total_us)
                        return true;
                if (prev->psi.has_full && cur->psi.has_full &&
                    cur->psi.full.total_us < prev->psi.full.total_us)
                        return true;
        }
        return false;
}

/* From a previous sample only its time, PSI totals, the memory.stat keys in
 * policy_prev_memstat_keys and the own refault count are read: the daemon keeps no more of it
 * (control.c, prev_reading; reading another key here means adding it to that list). */
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
                r.has_psi_some = psi_share(&prev->psi, &cur->psi, r.dt_usec, false,
                                                  &r.psi_some);

        /* workingset_refault, not _restore: restore (7.3) counts only pages that were
         * PG_workingset when evicted, so it misses the first refault of a periodically reused
         * set, which is exactly the mistake T must learn from. refault matches the far-memory
         * "promotion rate" definition. */
        static const enum memstat_key refault_key[_LRUGEN_NR_TYPES] = {
                [LRUGEN_ANON] = MEMSTAT_WORKINGSET_REFAULT_ANON,
                [LRUGEN_FILE] = MEMSTAT_WORKINGSET_REFAULT_FILE,
        };
        for (int t = 0; t < _LRUGEN_NR_TYPES; t++)
                r.refault_pages[t] = memstat_delta(&prev->stat, &cur->stat, refault_key[t]);
        /* Where the kernel's count was found short, the daemon's own count of re-inserted page
         * cache stands in when it is larger (docs/design.md, "Refault counts you can trust").
         * A count that went backwards (its BPF map entry was recycled) gives nothing. */
        if (cur->refault_file_undercount && prev->has_own_refault_file &&
            cur->has_own_refault_file && cur->own_refault_file >= prev->own_refault_file &&
            cur->own_refault_file - prev->own_refault_file > r.refault_pages[LRUGEN_FILE]) {
                r.refault_pages[LRUGEN_FILE] = cur->own_refault_file - prev->own_refault_file;
                *flags |= DECISION_FLAG_OWN_REFAULTS;
        }
        for (int t = 0; t < _LRUGEN_NR_TYPES; t++)
                r.refaults_per_min[t] = (double) r.refault_pages[t] * (double) USEC_PER_MINUTE /
                                        (double) r.dt_usec;

        if (memstat_has(&prev->stat, MEMSTAT_PGSTEAL_PROACTIVE) &&
            memstat_has(&cur->stat, MEMSTAT_PGSTEAL_PROACTIVE))
                r.reclaimed_pages = memstat_delta(&prev->stat, &cur->stat,
                                                      MEMSTAT_PGSTEAL_PROACTIVE);
        else /* 6.x: lru_gen writes and memory.reclaim count as direct reclaim */
                r.reclaimed_pages = memstat_delta(&prev->stat, &cur->stat, MEMSTAT_PGSTEAL);

        /* Anon pages leaving: pswpout (disk and zram) + zswpout (zswap). A zswap writeback is
         * counted twice, which slightly overstates anon; good enough for an integral term. */
        if ((memstat_has(&prev->stat, MEMSTAT_PSWPOUT) && memstat_has(&cur->stat, MEMSTAT_PSWPOUT)) ||
            (memstat_has(&prev->stat, MEMSTAT_ZSWPOUT) && memstat_has(&cur->stat, MEMSTAT_ZSWPOUT))) {
                r.has_anon_out = true;
                r.anon_out_pages = memstat_delta(&prev->stat, &cur->stat, MEMSTAT_PSWPOUT) +
                                   memstat_delta(&prev->stat, &cur->stat, MEMSTAT_ZSWPOUT);
        }
        if ((memstat_has(&prev->stat, MEMSTAT_PSWPIN) && memstat_has(&cur->stat, MEMSTAT_PSWPIN)) ||
            (memstat_has(&prev->stat, MEMSTAT_ZSWPIN) && memstat_has(&cur->stat, MEMSTAT_ZSWPIN))) {
                r.has_swapin = true;
                r.pswpin = memstat_delta(&prev->stat, &cur->stat, MEMSTAT_PSWPIN);
                r.zswpin = memstat_delta(&prev->stat, &cur->stat, MEMSTAT_ZSWPIN);
        }
        if (memstat_has(&prev->stat, MEMSTAT_FILE) && memstat_has(&cur->stat, MEMSTAT_FILE))
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
            psi_share(&host_prev->psi, &host_cur->psi,
                             host_cur->now_usec - host_prev->now_usec, true, &full) &&
            full > limits->full_limit)
                return true;
        return false;
}

uint64_t policy_trigger_stall_usec(double target, uint64_t interval_usec, uint64_t window_usec) {
        double stall = target * (double) interval_usec;
        double most = (double) (window_usec / 2);
        if (!(stall >= POLICY_TRIGGER_MIN_STALL_USEC)) /* NaN too */
                stall = POLICY_TRIGGER_MIN_STALL_USEC;
        if (stall > most)
                stall = most;
        return (uint64_t) stall;
}
