/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiering-plan.c: the commands of one tiering decision. Per lruvec: find the cold prefix of
 * each type (the generations idle for at least T), split the cycle's budget between anon and
 * file (swappiness controller), evict the prefixes ("- memcg node seq swappiness pages"), then
 * age ("+ memcg node max_seq") when the cadence says so. Evictions come before ageing: ageing a
 * lruvec with four generations merges its oldest into the next one, and the eviction seq would
 * then find nothing. Over the HighHeadroom= line, the headroom planner's evictions replace the
 * cold prefixes (plan_headroom()). */
#include "mglrud/policy/headroom.h"
#include "mglrud/shared/macro.h"
#include "policy-internal.h"

/* What one lruvec can give this cycle, per type. */
struct lruvec_plan {
        int idx[_LRUGEN_NR_TYPES];        /* youngest cold generation, -1 if none */
        uint64_t pages[_LRUGEN_NR_TYPES]; /* pages in generations 0..idx */
        bool backlog;                     /* headroom leaves part of the cold prefix */
};

/* The whole decision's plan: the per-lruvec prefixes and what is left of each type's budget. */
struct cycle_plan {
        struct lruvec_plan lruvecs[POLICY_MAX_LRUVECS];
        size_t n;
        uint64_t t[_LRUGEN_NR_TYPES];     /* T per type (file's is shorter while streaming) */
        uint64_t cadence;                 /* age about every min(T) / 2 */
        uint64_t avail[_LRUGEN_NR_TYPES]; /* bytes the prefixes hold */
        uint64_t left[_LRUGEN_NR_TYPES];  /* pages of the split not yet given to a command */
        bool file_kept[POLICY_MAX_LRUVECS]; /* hot file tiers refaulting: no file eviction */
};

/* Returns true when the file tiers >= 1 of the lruvec's oldest file generation lose more than
 * POLICY_TIER_REFAULT_RATIO of what they evict (frequently used file pages thrash). The r/e
 * lines are on the type's min_seq generation: the oldest with them (lrugen.h: file_tiers). */
static bool file_tiers_thrashing(const struct lrugen_lruvec *v) {
        const struct lrugen_tiers *t = &v->file_tiers;
        uint64_t refaulted = 0, evicted = 0;

        if (v->file_tiers_gen < 0)
                return false;
        for (unsigned k = 1; k < LRUGEN_MAX_NR_TIERS; k++) {
                refaulted += t->refaulted[k];
                evicted += t->evicted[k];
        }
        return evicted >= POLICY_TIER_MIN_EVICTED &&
               (double) refaulted >= POLICY_TIER_REFAULT_RATIO * (double) evicted;
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

static bool push_cmd(struct decision *d, const struct lrugen_cmd *c) {
        if (d->n_cmds >= DECISION_MAX_CMDS) {
                d->flags |= DECISION_FLAG_TRUNCATED;
                return false;
        }
        d->cmds[d->n_cmds++] = *c;
        return true;
}

/* Fills every lruvec's cold prefixes and what they hold (anon only as far as swap takes it,
 * file not while its hot tiers refault). */
static void plan_prefixes(const struct kernel_caps *caps, const struct policy_state *s,
                          const struct cgroup_sample *cur, struct cycle_plan *plan,
                          struct decision *d) {
        uint64_t headroom = policy_swap_headroom(caps, cur);

        for (size_t j = 0; j < plan->n; j++) {
                const struct lrugen_lruvec *v = &cur->lruvecs[j];
                const struct policy_lruvec_state *slot = policy_lruvec_find(s, v->memcg_id, v->node);
                bool protect_file = file_tiers_thrashing(v);

                plan->file_kept[j] = protect_file;

                for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                        uint64_t pages;

                        plan->lruvecs[j].idx[type] = tiering_cold_prefix(
                                v, slot, cur->now_usec, type, plan->t[type], &pages);
                        if (pages > 0 && type == LRUGEN_ANON && headroom == 0) {
                                d->flags |= DECISION_FLAG_NO_SWAP;
                                pages = 0;
                        }
                        if (pages > 0 && type == LRUGEN_FILE && protect_file) {
                                d->flags |= DECISION_FLAG_FILE_PROTECTED;
                                pages = 0;
                        }
                        plan->lruvecs[j].pages[type] = pages;
                        plan->avail[type] += pages * caps->page_size;
                }
        }
        plan->avail[LRUGEN_ANON] = u64_min(plan->avail[LRUGEN_ANON], headroom);
}

/* Splits the cycle's budget between the types (the swappiness controller) and picks the anon
 * writes' swappiness. Returns whether the split followed the share. */
static bool plan_split(const struct policy *p, const struct kernel_caps *caps,
                       const struct policy_state *s, const struct cgroup_sample *cur,
                       struct cycle_plan *plan, struct decision *d) {
        d->budget_bytes = policy_budget(p, cur, d->hot_bytes, caps->page_size, &d->floor_bytes);
        d->target_anon_share = swappiness_target_share(p, s);
        bool free_split = swappiness_split(d->target_anon_share, d->budget_bytes,
                                           plan->avail[LRUGEN_ANON], plan->avail[LRUGEN_FILE],
                                           caps->page_size, &d->planned_bytes[LRUGEN_ANON],
                                           &d->planned_bytes[LRUGEN_FILE]);
        if (caps->swappiness_max)
                d->anon_swappiness = SWAPPINESS_ANON_ONLY;
        else {
                d->anon_swappiness = swappiness_mixed_value(p, d->target_anon_share);
                if (d->planned_bytes[LRUGEN_ANON] > 0)
                        d->flags |= DECISION_FLAG_MIXED_ANON;
        }
        for (int type = 0; type < _LRUGEN_NR_TYPES; type++)
                plan->left[type] = d->planned_bytes[type] / caps->page_size;
        return free_split;
}

/* Adds the eviction commands of lruvec j, within what is left of each type's split. Returns
 * true when it leaves part of a cold prefix for a later cycle (a backlog). */
static bool plan_evictions(const struct policy *p, struct policy_state *s,
                           const struct cgroup_sample *cur, size_t j, struct cycle_plan *plan,
                           struct decision *d) {
        const struct lrugen_lruvec *v = &cur->lruvecs[j];
        const struct lruvec_plan *lp = &plan->lruvecs[j];
        uint64_t max_seq = v->gens[v->nr_gens - 1].seq;
        bool backlog = lp->backlog;

        for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                uint64_t take = u64_min(lp->pages[type], plan->left[type]);
                if (take > 0 && take < lp->pages[type])
                        backlog = true;
                if (take == 0 || lp->idx[type] < 0)
                        continue;
                struct lrugen_cmd c = {
                        .op = '-',
                        .memcg_id = v->memcg_id,
                        .node = v->node,
                        .seq = v->gens[lp->idx[type]].seq,
                        .swappiness = type == LRUGEN_ANON ? d->anon_swappiness : 0,
                        .nr_pages = take,
                        .type = type,
                };
                if (c.seq + 2 > max_seq) /* kernel: EINVAL; the prefix never has it */
                        continue;
                if (!push_cmd(d, &c))
                        continue;
                plan->left[type] -= take;
                /* Advice evicts nothing, so it rejects nothing either. */
                if (p->mode == POLICY_MODE_ADVISE)
                        continue;
                struct policy_lruvec_state *slot =
                        policy_lruvec_slot(s, v->memcg_id, v->node, cur->now_usec);
                if (slot) {
                        slot->has_pending_reject = true;
                        slot->pending_reject_seq = max_seq - 1;
                }
        }
        return backlog;
}

/* Over the HighHeadroom= line, replaces the cold prefixes and the split with the headroom
 * planner's evictions (headroom.h): the oldest generations first, at least what the split took,
 * below T down to MinColdAge as far as the line asks. */
static void plan_headroom(const struct policy *p, const struct kernel_caps *caps,
                          const struct policy_state *s, const struct cgroup_sample *cur,
                          struct cycle_plan *plan, struct decision *d) {
        struct headroom_input in;
        struct headroom_plan hp;

        headroom_input_of(p, caps, s, cur, d, &in);
        in.n_lruvecs = plan->n;
        in.file_kept = plan->file_kept;
        for (int type = 0; type < _LRUGEN_NR_TYPES; type++)
                in.base[type] = d->planned_bytes[type];
        if (headroom_plan(&in, &hp) < 0 || hp.excess == 0)
                return;
        d->flags |= DECISION_FLAG_HEADROOM;
        for (size_t j = 0; j < plan->n; j++)
                for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                        struct lruvec_plan *lp = &plan->lruvecs[j];

                        lp->backlog |= hp.takes[j].pages[type] < lp->pages[type];
                        lp->idx[type] = hp.takes[j].idx[type];
                        lp->pages[type] = hp.takes[j].pages[type];
                }
        for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                d->planned_bytes[type] = hp.take_bytes[type];
                plan->left[type] = hp.take_bytes[type] / caps->page_size;
        }
        d->headroom_below_t_bytes = hp.below_t_bytes;
}

/* Returns true when lruvec v should be aged now. */
static bool ageing_due(const struct policy *p, const struct policy_lruvec_state *slot,
                       const struct lrugen_lruvec *v, uint64_t cadence, bool backlog,
                       uint64_t now_usec) {
        uint64_t youngest_age = (uint64_t) v->gens[v->nr_gens - 1].age_ms * 1000ULL;
        uint64_t max_seq = v->gens[v->nr_gens - 1].seq;

        if (youngest_age < calibration_cadence(slot, cadence))
                return false;
        /* Not while this cycle leaves part of a cold prefix for the next (budget or MaxStep):
         * with four generations the merge would move that backlog into a younger generation,
         * where it looks idle for less than T and stops being evicted until ageing has made it
         * old again (measured: a 240 MiB cold set evicted 16 MiB per ageing interval).
         * Eviction still protects pages accessed meanwhile; the deferral ends once the
         * youngest generation is 4 cadences old. Advice evicts nothing, so its backlog never
         * drains: deferring there would only let the youngest generation grow older than T
         * and make the recently used pages of the one before it look cold (measured: the whole
         * 336 MiB of a 240 MiB cold set advised as cold). */
        if (backlog && p->mode != POLICY_MODE_ADVISE && v->nr_gens >= LRUGEN_MAX_NR_GENS &&
            youngest_age < 4 * cadence)
                return false;
        /* Don't repeat an ageing the kernel hasn't shown yet (our write failed with EEXIST, or
         * the histogram was read before it landed) within half a cadence. */
        if (slot && slot->last_age_usec && slot->last_age_seq == max_seq &&
            now_usec - slot->last_age_usec < cadence / 2)
                return false;
        return true;
}

/* Adds the ageing command of lruvec v and notes it in its slot. */
static void plan_ageing(struct policy_lruvec_state *slot, const struct lrugen_lruvec *v,
                        uint64_t now_usec, struct decision *d) {
        uint64_t max_seq = v->gens[v->nr_gens - 1].seq;

        if (!push_cmd(d, &(struct lrugen_cmd) {
                    .op = '+',
                    .memcg_id = v->memcg_id,
                    .node = v->node,
                    .seq = max_seq,
                    .swappiness = -1,
            }))
                return;
        d->n_age++;
        if (slot) {
                slot->last_age_usec = now_usec;
                slot->last_age_seq = max_seq;
                if (slot->n_aged < POLICY_CALIBRATION_AGINGS)
                        slot->n_aged++;
        }
}

enum decision_reason tiering_plan(const struct policy *p, const struct kernel_caps *caps,
                                  struct policy_state *s, const struct cgroup_sample *cur,
                                  struct decision *d) {
        struct cycle_plan plan = {
                .n = cur->n_lruvecs,
                .t = { [LRUGEN_ANON] = s->cold_age_usec, [LRUGEN_FILE] = d->file_cold_age_usec },
        };
        plan.cadence = u64_min(plan.t[LRUGEN_ANON], plan.t[LRUGEN_FILE]) / 2;

        /* The state and the plan arrays hold POLICY_MAX_LRUVECS; the rest wait (flagged). */
        if (plan.n > POLICY_MAX_LRUVECS) {
                plan.n = POLICY_MAX_LRUVECS;
                d->flags |= DECISION_FLAG_TRUNCATED;
        }
        plan_prefixes(caps, s, cur, &plan, d);
        s->last_split_free = plan_split(p, caps, s, cur, &plan, d);
        if (p->high_headroom > 0 && cur->limits.has_high_max)
                plan_headroom(p, caps, s, cur, &plan, d);

        for (size_t j = 0; j < plan.n; j++) {
                const struct lrugen_lruvec *v = &cur->lruvecs[j];
                if (v->nr_gens == 0)
                        continue;
                bool backlog = plan_evictions(p, s, cur, j, &plan, d);
                struct policy_lruvec_state *slot =
                        policy_lruvec_slot(s, v->memcg_id, v->node, cur->now_usec);
                if (ageing_due(p, slot, v, plan.cadence, backlog, cur->now_usec))
                        plan_ageing(slot, v, cur->now_usec, d);
        }

        /* What the commands really carry (truncation may have dropped some). */
        for (int type = 0; type < _LRUGEN_NR_TYPES; type++)
                d->planned_bytes[type] -= plan.left[type] * caps->page_size;

        if (d->planned_bytes[LRUGEN_ANON] + d->planned_bytes[LRUGEN_FILE] > 0)
                return s->streaming && d->planned_bytes[LRUGEN_FILE] > 0 ? DECISION_EVICT_STREAM
                                                                         : DECISION_EVICT_COLD;
        if (d->budget_bytes == 0 && plan.avail[LRUGEN_ANON] + plan.avail[LRUGEN_FILE] > 0)
                return DECISION_NONE_AT_FLOOR;
        if (d->n_age > 0)
                return DECISION_AGE;
        return DECISION_NONE_NOTHING_COLD;
}
