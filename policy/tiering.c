/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiering.c: the frequency-guided tiering (cold-age) controller on lru_gen, its T adaptation
 * and the one-shot stream detector.
 *
 * Idle time: a page in generation g has not been accessed (through page tables, as seen by
 * ageing) since generation g+1 was created, so its idle time is at least age(g+1); the pages of
 * the youngest generation have no known idle time. Generation g is therefore cold when
 * age(g+1) >= T. Since ages grow towards the oldest generation, the cold generations are a
 * prefix of the list, and one "- memcg node seq" evicts them all (oldest first, bounded by
 * nr_pages). The kernel refuses seq > max_seq − 2, and the two youngest generations are what
 * we keep as the hot set anyway.
 *
 * Cadence: with at most four generations, the generations only span known idle times when the
 * lruvec is aged about every T/2 (then the oldest bound is about T..1.5 T old). Ageing always
 * omits swappiness: 0 or max on '+' re-labels the coldest pages as the youngest when a type
 * already has four generations (7.3 hot/cold inversion). */
#include <math.h>

#include "mglrud/shared/macro.h"
#include "policy-internal.h"

void tiering_note_rejects(struct policy_state *s, const struct cgroup_sample *cur) {
        /* The previous decision's writes have completed when this one is taken (the daemon
         * does not decide while they run), so now is a safe upper bound of when they ran. */
        for (size_t i = 0; i < s->n_lruvecs; i++) {
                struct policy_lruvec_state *l = &s->lruvecs[i];

                if (!l->has_pending_reject)
                        continue;
                l->has_pending_reject = false;
                l->rejected[l->pending_reject_seq % ELEMENTSOF(l->rejected)].seq =
                        l->pending_reject_seq;
                l->rejected[l->pending_reject_seq % ELEMENTSOF(l->rejected)].usec = cur->now_usec;
        }
}

static uint64_t lruvec_hot_pages(const struct lrugen_lruvec *v) {
        uint64_t n = 0;

        for (unsigned i = v->nr_gens >= 2 ? v->nr_gens - 2 : 0; i < v->nr_gens; i++)
                n += tiering_gen_pages(&v->gens[i], LRUGEN_ANON) +
                     tiering_gen_pages(&v->gens[i], LRUGEN_FILE);
        return n;
}

void tiering_estimate(const struct policy_state *s, const struct cgroup_sample *cur,
                      uint64_t page_size, struct decision *d) {
        uint64_t t = d->cold_age_usec, hot = 0;

        if (!cur->has_lrugen)
                return;
        d->has_estimates = true;
        for (size_t j = 0; j < cur->n_lruvecs; j++) {
                const struct lrugen_lruvec *v = &cur->lruvecs[j];
                const struct policy_lruvec_state *slot =
                        policy_lruvec_find(s, v->memcg_id, v->node);

                for (unsigned i = 0; i < v->nr_gens; i++) {
                        uint64_t idle = tiering_gen_idle_usec(v, i, slot, cur->now_usec);

                        for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                                uint64_t b = tiering_gen_pages(&v->gens[i], type) * page_size;

                                if (idle >= t)
                                        d->cold_bytes[type] += b;
                                else if (idle >= t / 2 && i + 1 < v->nr_gens)
                                        d->cooling_bytes[type] += b;
                                else
                                        d->warm_bytes[type] += b;
                        }
                }
                hot += lruvec_hot_pages(v);
                d->idle_horizon_usec = u64_max(d->idle_horizon_usec,
                                               idle_lruvec_horizon(v, slot, cur->now_usec));
        }
        d->hot_bytes = hot * page_size;
        /* What the generations can tell when T is longer than the oldest one's idle time. */
        for (size_t j = 0; d->idle_horizon_usec > 0 && j < cur->n_lruvecs; j++) {
                const struct lrugen_lruvec *v = &cur->lruvecs[j];
                const struct policy_lruvec_state *slot =
                        policy_lruvec_find(s, v->memcg_id, v->node);

                for (unsigned i = 0; i < v->nr_gens; i++) {
                        uint64_t idle = tiering_gen_idle_usec(v, i, slot, cur->now_usec);

                        if (idle < d->idle_horizon_usec)
                                continue;
                        for (int type = 0; type < _LRUGEN_NR_TYPES; type++)
                                d->horizon_bytes[type] +=
                                        tiering_gen_pages(&v->gens[i], type) * page_size;
                }
        }
}

bool tiering_raise_t(const struct policy *p, struct policy_state *s) {
        double t = (double) s->cold_age_usec * POLICY_T_RAISE;
        if (t > (double) p->max_cold_age_usec)
                t = (double) p->max_cold_age_usec;
        if ((uint64_t) t <= s->cold_age_usec)
                return false;
        s->cold_age_usec = (uint64_t) t;
        return true;
}

/* Adds this cycle's refaults to s's window (POLICY_REFAULT_WINDOW_USEC). Returns true when the
 * window holds POLICY_REFAULT_MIN_PAGES or more at a share per minute of ws_pages above
 * RefaultTarget. The caller starts the window over. */
static bool refault_window_add(const struct policy *p, struct policy_state *s,
                               const struct policy_rates *r, double ws_pages) {
        s->refault_window_pages += r->refault_pages[LRUGEN_ANON] + r->refault_pages[LRUGEN_FILE];
        s->refault_window_usec += r->dt_usec;
        return s->refault_window_pages >= POLICY_REFAULT_MIN_PAGES &&
               (double) s->refault_window_pages * (double) USEC_PER_MINUTE /
                               (double) u64_max(s->refault_window_usec, 1) / ws_pages >
                       p->refault_target;
}

/* Returns true when the last decision's eviction at T asked for at least
 * POLICY_REFAULT_MIN_PAGES and the cgroup lost under POLICY_FUTILE_YIELD of that since (any
 * reclaim counts, so the kernel's own only makes it less likely). */
static bool last_eviction_futile(const struct policy_state *s, const struct policy_rates *r) {
        return s->last_cold_evict_pages >= POLICY_REFAULT_MIN_PAGES &&
               (double) r->reclaimed_pages <
                       POLICY_FUTILE_YIELD * (double) s->last_cold_evict_pages;
}

void tiering_adapt(const struct policy *p, struct policy_state *s, const struct policy_rates *r,
                   const struct cgroup_sample *cur, uint64_t page_size, uint32_t *flags) {
        double ws_pages, refault_share, t;
        bool pressure, refaulting, futile, quiet;

        if (!r->valid)
                return;

        ws_pages = (double) u64_max(cur->limits.current / page_size, 1);
        refault_share = (r->refaults_per_min[LRUGEN_ANON] + r->refaults_per_min[LRUGEN_FILE]) /
                        ws_pages;
        pressure = r->has_psi_some && r->psi_some > p->pressure_target;
        refaulting = refault_share > p->refault_target &&
                     r->refault_pages[LRUGEN_ANON] + r->refault_pages[LRUGEN_FILE] >=
                             POLICY_REFAULT_MIN_PAGES;
        if (refault_window_add(p, s, r, ws_pages))
                refaulting = true;
        futile = last_eviction_futile(s, r);
        /* Refaults that counted (by the window or by this cycle alone) do not count again; a
         * window of full length that did not count starts over too. */
        if (refaulting || s->refault_window_usec >= POLICY_REFAULT_WINDOW_USEC)
                s->refault_window_pages = s->refault_window_usec = 0;
        quiet = refault_share <= p->refault_target * POLICY_QUIET_FRACTION &&
                (!r->has_psi_some || r->psi_some <= p->pressure_target * POLICY_QUIET_FRACTION);

        t = (double) s->cold_age_usec;
        if (refaulting)
                *flags |= DECISION_FLAG_REFAULTS;
        if (futile)
                *flags |= DECISION_FLAG_FUTILE;
        if (pressure || refaulting || futile) {
                s->quiet_cycles = 0;
                if (s->raise_hold > 0) {
                        s->raise_hold--;
                        return;
                }
                s->raise_hold = POLICY_RAISE_HOLD_CYCLES;
                if (tiering_raise_t(p, s))
                        *flags |= DECISION_FLAG_T_RAISED;
                if (refaulting || futile) {
                        /* Pressure alone says nothing about reuse distances: only refaults
                         * and evictions that found their pages in use set the floor. */
                        s->t_floor_usec = s->cold_age_usec;
                        s->t_floor_until_usec = cur->now_usec + POLICY_T_FLOOR_HOLD_USEC;
                }
                return;
        }

        if (s->raise_hold > 0)
                s->raise_hold--;
        if (!quiet) {
                s->quiet_cycles = 0;
                return;
        }
        if (s->quiet_cycles == 0)
                s->quiet_since_usec = cur->now_usec - r->dt_usec; /* the streak began last cycle */
        if (s->quiet_cycles < POLICY_QUIET_CYCLES)
                s->quiet_cycles++;
        if (s->quiet_cycles < POLICY_QUIET_CYCLES ||
            cur->now_usec - s->quiet_since_usec < s->cold_age_usec)
                return;
        t *= POLICY_T_LOWER;
        if (t < (double) p->min_cold_age_usec)
                t = (double) p->min_cold_age_usec;
        if (cur->now_usec < s->t_floor_until_usec && t < (double) s->t_floor_usec)
                t = (double) s->t_floor_usec;
        /* At a bound the streak goes on, so the step comes as soon as the floor's hold ends. */
        if ((uint64_t) t < s->cold_age_usec) {
                s->quiet_cycles = 0;
                s->cold_age_usec = (uint64_t) t;
                *flags |= DECISION_FLAG_T_LOWERED;
        }
}

void stream_update(struct policy_state *s, const struct policy_rates *r,
                   const struct cgroup_sample *cur, uint64_t page_size) {
        uint64_t file_reclaimed, inflow;
        double inflow_per_min, min_per_min;

        if (!r->valid)
                return;

        /* What the file cache took in: its growth plus what reclaim took from it, else our own
         * evictions would hide the stream they are keeping small. */
        file_reclaimed = r->has_anon_out ? u64_sub_sat(r->reclaimed_pages, r->anon_out_pages) : 0;
        inflow = (r->file_delta_bytes > 0 ? (uint64_t) r->file_delta_bytes : 0) +
                 file_reclaimed * page_size;
        inflow_per_min = (double) inflow * (double) USEC_PER_MINUTE / (double) r->dt_usec;
        min_per_min = fmax((double) cur->limits.current * POLICY_STREAM_INFLOW_FRACTION,
                           (double) POLICY_STREAM_MIN_BYTES);

        if (inflow_per_min >= min_per_min &&
            (double) r->refault_pages[LRUGEN_FILE] <=
                    (double) (inflow / page_size) * POLICY_STREAM_REFAULT_FRACTION) {
                if (s->stream_cycles < POLICY_STREAM_CYCLES)
                        s->stream_cycles++;
        } else
                s->stream_cycles = 0;
        s->streaming = s->stream_cycles >= POLICY_STREAM_CYCLES;
}

uint64_t stream_file_cold_age(const struct policy *p, const struct policy_state *s) {
        if (!s->streaming)
                return s->cold_age_usec;
        return u64_min(s->cold_age_usec,
                       u64_max(p->min_cold_age_usec / 4, POLICY_STREAM_MIN_T_USEC));
}
