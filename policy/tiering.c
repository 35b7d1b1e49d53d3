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

#include "mglrud/macro.h"
#include "policy-internal.h"

static uint64_t gen_pages(const struct lrugen_gen *g, int type) {
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

/* Returns the idle lower bound of generation i in usec (0 for the youngest): the age of the
 * next generation, capped by rejected_since(). */
static uint64_t gen_idle_usec(const struct lrugen_lruvec *v, unsigned i,
                              const struct policy_lruvec_state *slot, uint64_t now_usec) {
        if (i + 1 >= v->nr_gens)
                return 0;
        return u64_min((uint64_t) v->gens[i + 1].age_ms * 1000ULL,
                       rejected_since(slot, v->gens[i].seq, now_usec));
}

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
                n += gen_pages(&v->gens[i], LRUGEN_ANON) + gen_pages(&v->gens[i], LRUGEN_FILE);
        return n;
}

void tiering_estimate(const struct policy_state *s, const struct cgroup_sample *cur,
                      struct decision *d) {
        uint64_t t = d->cold_age_usec, hot = 0;

        if (!cur->has_lrugen)
                return;
        d->has_estimates = true;
        for (size_t j = 0; j < cur->n_lruvecs; j++) {
                const struct lrugen_lruvec *v = &cur->lruvecs[j];
                const struct policy_lruvec_state *slot =
                        policy_lruvec_find(s, v->memcg_id, v->node);

                for (unsigned i = 0; i < v->nr_gens; i++) {
                        uint64_t idle = gen_idle_usec(v, i, slot, cur->now_usec);

                        for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                                uint64_t b = gen_pages(&v->gens[i], type) * POLICY_PAGE_SIZE;

                                if (idle >= t)
                                        d->cold_bytes[type] += b;
                                else if (idle >= t / 2 && i + 1 < v->nr_gens)
                                        d->cooling_bytes[type] += b;
                                else
                                        d->warm_bytes[type] += b;
                        }
                }
                hot += lruvec_hot_pages(v);
        }
        d->hot_bytes = hot * POLICY_PAGE_SIZE;
}

void tiering_adapt(const struct policy *p, struct policy_state *s, const struct policy_rates *r,
                   const struct cgroup_sample *cur, uint32_t *flags) {
        double ws_pages, refault_share, t;
        bool pressure, refaulting, quiet;

        if (!r->valid)
                return;

        ws_pages = (double) u64_max(cur->limits.current / POLICY_PAGE_SIZE, 1);
        refault_share = (r->refaults_per_min[LRUGEN_ANON] + r->refaults_per_min[LRUGEN_FILE]) /
                        ws_pages;
        pressure = r->has_psi_some && r->psi_some > p->pressure_target;
        refaulting = refault_share > p->refault_target &&
                     r->refault_pages[LRUGEN_ANON] + r->refault_pages[LRUGEN_FILE] >=
                             POLICY_REFAULT_MIN_PAGES;
        quiet = refault_share <= p->refault_target * POLICY_QUIET_FRACTION &&
                (!r->has_psi_some || r->psi_some <= p->pressure_target * POLICY_QUIET_FRACTION);

        t = (double) s->cold_age_usec;
        if (refaulting)
                *flags |= DECISION_FLAG_REFAULTS;
        if (pressure || refaulting) {
                s->quiet_cycles = 0;
                if (s->raise_hold > 0) {
                        s->raise_hold--;
                        return;
                }
                s->raise_hold = POLICY_RAISE_HOLD_CYCLES;
                t *= POLICY_T_RAISE;
                if (t > (double) p->max_cold_age_usec)
                        t = (double) p->max_cold_age_usec;
                if ((uint64_t) t > s->cold_age_usec) {
                        s->cold_age_usec = (uint64_t) t;
                        s->counters.t_raised++;
                        *flags |= DECISION_FLAG_T_RAISED;
                }
                if (refaulting) {
                        /* Pressure alone says nothing about reuse distances: only refaults
                         * set the floor. */
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
                s->counters.t_lowered++;
                *flags |= DECISION_FLAG_T_LOWERED;
        }
}

void stream_update(struct policy_state *s, const struct policy_rates *r,
                   const struct cgroup_sample *cur) {
        uint64_t file_reclaimed, inflow;
        double inflow_per_min, min_per_min;

        if (!r->valid)
                return;

        /* What the file cache took in: its growth plus what reclaim took from it, else our own
         * evictions would hide the stream they are keeping small. */
        file_reclaimed = r->has_anon_out ? u64_sub_sat(r->reclaimed_pages, r->anon_out_pages) : 0;
        inflow = (r->file_delta_bytes > 0 ? (uint64_t) r->file_delta_bytes : 0) +
                 file_reclaimed * POLICY_PAGE_SIZE;
        inflow_per_min = (double) inflow * (double) USEC_PER_MINUTE / (double) r->dt_usec;
        min_per_min = fmax((double) cur->limits.current * POLICY_STREAM_INFLOW_FRACTION,
                           (double) POLICY_STREAM_MIN_BYTES);

        if (inflow_per_min >= min_per_min &&
            (double) r->refault_pages[LRUGEN_FILE] <=
                    (double) (inflow / POLICY_PAGE_SIZE) * POLICY_STREAM_REFAULT_FRACTION) {
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

/* Returns true when the file tiers >= 1 of the lruvec's oldest file generation lose more than
 * POLICY_TIER_REFAULT_RATIO of what they evict (frequently used file pages thrash). */
static bool file_tiers_thrashing(const struct lrugen_lruvec *v) {
        uint64_t refaulted = 0, evicted = 0;

        for (unsigned i = 0; i < v->nr_gens; i++) {
                const struct lrugen_gen *g = &v->gens[i];

                if (!g->has_tiers || g->tiers[0].kind[LRUGEN_FILE] != LRUGEN_TIER_REP)
                        continue;
                /* The r/e/p lines are on the type's min_seq generation: the oldest with them. */
                for (unsigned k = 1; k < LRUGEN_MAX_NR_TIERS; k++) {
                        if (g->tiers[k].kind[LRUGEN_FILE] != LRUGEN_TIER_REP)
                                continue;
                        refaulted += g->tiers[k].val[LRUGEN_FILE][0];
                        evicted += g->tiers[k].val[LRUGEN_FILE][1];
                }
                break;
        }
        return evicted >= POLICY_TIER_MIN_EVICTED &&
               (double) refaulted >= POLICY_TIER_REFAULT_RATIO * (double) evicted;
}

/* Returns the index of the youngest evictable generation of the lruvec idle for at least t
 * (-1 if none); *ret_pages gets the type's pages in generations 0..index. */
static int cold_prefix(const struct lrugen_lruvec *v, const struct policy_lruvec_state *slot,
                       uint64_t now_usec, int type, uint64_t t, uint64_t *ret_pages) {
        int last = -1;
        uint64_t pages = 0;

        /* seq <= max_seq − 2: index <= nr_gens − 3. */
        for (unsigned i = 0; i + 3 <= v->nr_gens; i++) {
                if (gen_idle_usec(v, i, slot, now_usec) < t)
                        break;
                last = (int) i;
                pages += gen_pages(&v->gens[i], type);
        }
        *ret_pages = pages;
        return last;
}

/* Returns the age the youngest generation of a lruvec must reach before it is aged again.
 * Pages in the youngest generation have no known idle time, and a generation only becomes
 * evictable once the one after it is T old: at the regular cadence, a lruvec first seen with
 * all its pages in the youngest generation (a new workload, or the daemon just started) would
 * have its cold pages evicted only after about 1.5 T + the time to the first ageing. So the
 * first ageing of a lruvec happens at once, the second a quarter cadence later (long enough
 * for the pages in use to be touched and moved out of the first generation), and the cold
 * pages become evictable after T + T/8. Pages used after that are still promoted by the
 * ageing walks in between and protected by eviction's own reference check. */
static uint64_t calibration_cadence(const struct policy_lruvec_state *slot, uint64_t cadence) {
        if (!slot || slot->n_aged >= POLICY_CALIBRATION_AGINGS)
                return cadence;
        return slot->n_aged == 0 ? 0 : cadence / 4;
}

struct lruvec_plan {
        int idx[_LRUGEN_NR_TYPES];
        uint64_t pages[_LRUGEN_NR_TYPES];
};

static bool push_cmd(struct decision *d, const struct lrugen_cmd *c) {
        if (d->n_cmds >= DECISION_MAX_CMDS) {
                d->flags |= DECISION_FLAG_TRUNCATED;
                return false;
        }
        d->cmds[d->n_cmds++] = *c;
        return true;
}

enum decision_reason tiering_plan(const struct policy *p, const struct kernel_caps *caps,
                                  struct policy_state *s, const struct cgroup_sample *cur,
                                  struct decision *d) {
        struct lruvec_plan plans[POLICY_MAX_LRUVECS] = {};
        uint64_t avail[_LRUGEN_NR_TYPES] = {}, budget, left[_LRUGEN_NR_TYPES];
        uint64_t t_type[_LRUGEN_NR_TYPES], cadence, headroom;
        bool anon_possible, free_split;
        size_t n = cur->n_lruvecs;
        int anon_swappiness;

        t_type[LRUGEN_ANON] = s->cold_age_usec;
        t_type[LRUGEN_FILE] = d->file_cold_age_usec;
        cadence = u64_min(t_type[LRUGEN_ANON], t_type[LRUGEN_FILE]) / 2;

        /* The state and the plan arrays hold POLICY_MAX_LRUVECS; the rest wait (flagged). */
        if (n > POLICY_MAX_LRUVECS) {
                n = POLICY_MAX_LRUVECS;
                d->flags |= DECISION_FLAG_TRUNCATED;
        }

        headroom = policy_swap_headroom(caps, cur);
        anon_possible = headroom > 0;

        for (size_t j = 0; j < n; j++) {
                const struct lrugen_lruvec *v = &cur->lruvecs[j];
                const struct policy_lruvec_state *found =
                        policy_lruvec_find(s, v->memcg_id, v->node);
                bool protect_file = file_tiers_thrashing(v);

                for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                        uint64_t pages;

                        plans[j].idx[type] = cold_prefix(v, found, cur->now_usec, type,
                                                         t_type[type], &pages);
                        if (pages > 0 && type == LRUGEN_ANON && !anon_possible) {
                                d->flags |= DECISION_FLAG_NO_SWAP;
                                pages = 0;
                        }
                        if (pages > 0 && type == LRUGEN_FILE && protect_file) {
                                d->flags |= DECISION_FLAG_FILE_PROTECTED;
                                pages = 0;
                        }
                        plans[j].pages[type] = pages;
                        avail[type] += pages * POLICY_PAGE_SIZE;
                }
        }
        avail[LRUGEN_ANON] = u64_min(avail[LRUGEN_ANON], headroom);

        budget = policy_budget(p, cur, d->hot_bytes, &d->floor_bytes);
        d->budget_bytes = budget;
        d->target_anon_share = swappiness_target_share(p, s);
        free_split = swappiness_split(d->target_anon_share, budget, avail[LRUGEN_ANON],
                                      avail[LRUGEN_FILE], &d->planned_bytes[LRUGEN_ANON],
                                      &d->planned_bytes[LRUGEN_FILE]);

        if (caps->swappiness_max)
                anon_swappiness = SWAPPINESS_ANON_ONLY;
        else {
                anon_swappiness = swappiness_mixed_value(p, d->target_anon_share);
                if (d->planned_bytes[LRUGEN_ANON] > 0)
                        d->flags |= DECISION_FLAG_MIXED_ANON;
        }
        d->anon_swappiness = anon_swappiness;

        for (int type = 0; type < _LRUGEN_NR_TYPES; type++)
                left[type] = d->planned_bytes[type] / POLICY_PAGE_SIZE;

        for (size_t j = 0; j < n; j++) {
                const struct lrugen_lruvec *v = &cur->lruvecs[j];
                struct policy_lruvec_state *slot;
                uint64_t max_seq;

                if (v->nr_gens == 0)
                        continue;
                max_seq = v->gens[v->nr_gens - 1].seq;

                bool backlog = false;
                for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                        uint64_t take = u64_min(plans[j].pages[type], left[type]);
                        if (take > 0 && take < plans[j].pages[type])
                                backlog = true;
                        struct lrugen_cmd c = {
                                .op = '-',
                                .memcg_id = v->memcg_id,
                                .node = v->node,
                                .swappiness = type == LRUGEN_ANON ? anon_swappiness : 0,
                                .nr_pages = take,
                                .type = type,
                        };

                        if (take == 0 || plans[j].idx[type] < 0)
                                continue;
                        c.seq = v->gens[plans[j].idx[type]].seq;
                        if (c.seq + 2 > max_seq) /* kernel: EINVAL; cold_prefix never does it */
                                continue;
                        if (!push_cmd(d, &c))
                                continue;
                        left[type] -= take;
                        /* Advice evicts nothing, so it rejects nothing either. */
                        if (p->mode == POLICY_MODE_ADVISE)
                                continue;
                        slot = policy_lruvec_slot(s, v->memcg_id, v->node, cur->now_usec);
                        if (slot) {
                                slot->has_pending_reject = true;
                                slot->pending_reject_seq = max_seq - 1;
                        }
                }

                /* Age after evicting: ageing a lruvec with four generations merges the oldest
                 * into the next one, and the eviction seq above would then find nothing. */
                slot = policy_lruvec_slot(s, v->memcg_id, v->node, cur->now_usec);
                if ((uint64_t) v->gens[v->nr_gens - 1].age_ms * 1000ULL <
                    calibration_cadence(slot, cadence))
                        continue;
                /* Nor while this cycle leaves part of a cold prefix for the next (budget or
                 * MaxStep): with four generations the merge would move that backlog into a
                 * younger generation, where it looks idle for less than T and stops being
                 * evicted until ageing has made it old again (measured: a 240 MiB cold set
                 * evicted 16 MiB per ageing interval). Eviction still protects pages accessed
                 * meanwhile; the deferral ends once the youngest generation is 4 cadences old.
                 * Advice evicts nothing, so its backlog never drains: deferring there would
                 * only let the youngest generation grow older than T and make the recently
                 * used pages of the one before it look cold (measured: the whole 336 MiB of a
                 * 240 MiB cold set advised as cold). */
                if (backlog && p->mode != POLICY_MODE_ADVISE && v->nr_gens >= LRUGEN_MAX_NR_GENS &&
                    (uint64_t) v->gens[v->nr_gens - 1].age_ms * 1000ULL < 4 * cadence)
                        continue;
                /* Don't repeat an ageing the kernel hasn't shown yet (our write failed with
                 * EEXIST, or the histogram was read before it landed) within half a cadence. */
                if (slot && slot->last_age_usec && slot->last_age_seq == max_seq &&
                    cur->now_usec - slot->last_age_usec < cadence / 2)
                        continue;
                if (!push_cmd(d, &(struct lrugen_cmd) {
                            .op = '+',
                            .memcg_id = v->memcg_id,
                            .node = v->node,
                            .seq = max_seq,
                            .swappiness = -1,
                    }))
                        continue;
                d->n_age++;
                if (slot) {
                        slot->last_age_usec = cur->now_usec;
                        slot->last_age_seq = max_seq;
                        if (slot->n_aged < POLICY_CALIBRATION_AGINGS)
                                slot->n_aged++;
                }
        }

        /* What the commands really carry (truncation may have dropped some). */
        d->planned_bytes[LRUGEN_ANON] -= left[LRUGEN_ANON] * POLICY_PAGE_SIZE;
        d->planned_bytes[LRUGEN_FILE] -= left[LRUGEN_FILE] * POLICY_PAGE_SIZE;
        s->last_split_free = free_split;

        if (d->planned_bytes[LRUGEN_ANON] + d->planned_bytes[LRUGEN_FILE] > 0)
                return s->streaming && d->planned_bytes[LRUGEN_FILE] > 0 ? DECISION_EVICT_STREAM
                                                                         : DECISION_EVICT_COLD;
        if (budget == 0 && (avail[LRUGEN_ANON] + avail[LRUGEN_FILE]) > 0)
                return DECISION_NONE_AT_FLOOR;
        if (d->n_age > 0)
                return DECISION_AGE;
        return DECISION_NONE_NOTHING_COLD;
}
