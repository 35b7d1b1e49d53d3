/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idle-profile.c: the idle-age profile (bytes idle for at least t on a ladder of t), the
 * savings forecast of a cold age threshold, and the measured re-access rate per rung. The idle
 * time of a generation (tiering_gen_idle_usec) and what a threshold frees (tiering_cold_prefix)
 * come from idle-model.c, the tiering controller's model too: the advice and the profile cannot
 * disagree with what Mode=active then does. */
#include "mglrud/policy/idle-profile.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "policy-internal.h"

const uint64_t idle_ladder_default_usec[IDLE_LADDER_DEFAULT_N] = {
        10 * USEC_PER_SEC,  30 * USEC_PER_SEC,      USEC_PER_MINUTE,      2 * USEC_PER_MINUTE,
        5 * USEC_PER_MINUTE, 10 * USEC_PER_MINUTE, 30 * USEC_PER_MINUTE, 60 * USEC_PER_MINUTE,
};

static bool ladder_valid(const uint64_t *ladder, size_t n) {
        if (!ladder || n == 0 || n > IDLE_LADDER_MAX || ladder[0] == 0)
                return false;
        for (size_t k = 1; k < n; k++)
                if (ladder[k] <= ladder[k - 1])
                        return false;
        return true;
}

static uint64_t lruvec_pages(const struct lrugen_lruvec *v) {
        uint64_t n = 0;

        for (unsigned i = 0; i < v->nr_gens; i++)
                n += tiering_gen_pages(&v->gens[i], LRUGEN_ANON) +
                     tiering_gen_pages(&v->gens[i], LRUGEN_FILE);
        return n;
}

/* Fills *ret from lruvec v (1..LRUGEN_MAX_NR_GENS generations). */
static void gens_take(const struct lrugen_lruvec *v, const struct policy_lruvec_state *slot,
                      uint64_t now_usec, uint64_t page_size, struct idle_gens *ret) {
        *ret = (struct idle_gens) {
                .memcg_id = v->memcg_id,
                .min_seq = v->gens[0].seq,
                .node = v->node,
                .nr_gens = v->nr_gens,
                .aged_usec = (uint64_t) v->gens[v->nr_gens - 1].age_ms * USEC_PER_MSEC,
        };
        for (unsigned i = 0; i < v->nr_gens; i++) {
                ret->idle_usec[i] = tiering_gen_idle_usec(v, i, slot, now_usec);
                for (int type = 0; type < _LRUGEN_NR_TYPES; type++)
                        ret->bytes[i][type] = tiering_gen_pages(&v->gens[i], type) * page_size;
        }
}

int idle_gens_take(const struct lrugen_lruvec *v, const struct policy_state *state,
                   uint64_t now_usec, uint64_t page_size, struct idle_gens *ret) {
        if (!v || !ret || page_size == 0 || v->nr_gens == 0 || v->nr_gens > LRUGEN_MAX_NR_GENS)
                return -EINVAL;
        /* Only the oldest sequence number is kept. */
        for (unsigned i = 1; i < v->nr_gens; i++)
                if (v->gens[i].seq != v->gens[0].seq + i)
                        return -EINVAL;
        gens_take(v, state ? policy_lruvec_find(state, v->memcg_id, v->node) : NULL, now_usec,
                  page_size, ret);
        return 0;
}

/* The lruvecs a profile is computed over: a histogram's, taken one at a time, or what a cgroup
 * kept of its own. */
struct gens_source {
        const struct idle_gens *gens;          /* kept, or NULL: */
        const struct lrugen_lruvec *lruvecs;   /* read now */
        const struct policy_state *state;
        uint64_t now_usec, page_size;
        size_t n;
};

/* Returns lruvec j of s, taken into *buf unless it was kept. */
static const struct idle_gens *source_get(const struct gens_source *s, size_t j,
                                          struct idle_gens *buf) {
        if (s->gens)
                return &s->gens[j];
        const struct lrugen_lruvec *v = &s->lruvecs[j];
        gens_take(v, s->state ? policy_lruvec_find(s->state, v->memcg_id, v->node) : NULL,
                  s->now_usec, s->page_size, buf);
        return buf;
}

static uint64_t gens_bytes(const struct idle_gens *g) {
        uint64_t n = 0;

        for (unsigned i = 0; i < g->nr_gens; i++)
                n += g->bytes[i][LRUGEN_ANON] + g->bytes[i][LRUGEN_FILE];
        return n;
}

/* Returns the idle time of g's oldest generation that holds pages, other than the youngest
 * (idle_lruvec_horizon()), or 0. */
static uint64_t gens_horizon(const struct idle_gens *g) {
        for (unsigned i = 0; i + 1 < g->nr_gens; i++)
                if (g->bytes[i][LRUGEN_ANON] + g->bytes[i][LRUGEN_FILE] > 0)
                        return g->idle_usec[i];
        return 0;
}

/* Adds lruvec g to row, of idle time row->idle_usec, in a profile whose longest idle time is
 * horizon. */
static void row_add(struct idle_profile_row *row, const struct idle_gens *g, uint64_t horizon) {
        uint64_t t = row->idle_usec;

        /* The histogram's bucket: bytes whose known idle time is at most t. */
        for (unsigned i = 0; i < g->nr_gens; i++)
                if (g->idle_usec[i] <= t)
                        for (int type = 0; type < _LRUGEN_NR_TYPES; type++)
                                row->known_le_bytes[type] += g->bytes[i][type];
        if (horizon == 0 || t > horizon || gens_bytes(g) == 0)
                return;
        /* This lruvec cannot tell whether its oldest pages are idle this long. */
        if (gens_horizon(g) < t)
                row->flags |= IDLE_ROW_PARTIAL;
        for (unsigned i = 0; i < g->nr_gens; i++)
                if (g->idle_usec[i] >= t)
                        for (int type = 0; type < _LRUGEN_NR_TYPES; type++)
                                row->bytes[type] += g->bytes[i][type];
}

/* Appends the row of idle time t to p. */
static void row_new(struct idle_profile *p, uint64_t t) {
        struct idle_profile_row *row = &p->rows[p->n_rows++];

        *row = (struct idle_profile_row) { .idle_usec = t };
        if (p->horizon_usec == 0 || t > p->horizon_usec)
                row->flags |= IDLE_ROW_UNKNOWN;
        else if (t == p->horizon_usec)
                row->flags |= IDLE_ROW_HORIZON;
}

/* Two passes over the lruvecs: the totals and the horizon, then every row at once (the rows
 * depend on the horizon). */
static int profile_compute(const struct gens_source *src, const uint64_t *ladder, size_t n_ladder,
                           struct idle_profile *ret) {
        struct idle_profile p = {};
        struct idle_gens buf;

        if (!ret || !ladder_valid(ladder, n_ladder))
                return -EINVAL;
        for (size_t j = 0; j < src->n; j++) {
                unsigned nr = src->gens ? src->gens[j].nr_gens : src->lruvecs[j].nr_gens;
                if (nr == 0 || nr > LRUGEN_MAX_NR_GENS)
                        return -EINVAL;
        }

        for (size_t j = 0; j < src->n; j++) {
                const struct idle_gens *g = source_get(src, j, &buf);

                if (gens_bytes(g) == 0)
                        continue;
                p.aged_min_usec = p.n_lruvecs == 0 ? g->aged_usec
                                                   : u64_min(p.aged_min_usec, g->aged_usec);
                p.aged_max_usec = u64_max(p.aged_max_usec, g->aged_usec);
                p.n_lruvecs++;
                p.horizon_usec = u64_max(p.horizon_usec, gens_horizon(g));
                for (unsigned i = 0; i < g->nr_gens; i++)
                        for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                                uint64_t b = g->bytes[i][type];

                                p.total_bytes[type] += b;
                                if (i + 2 >= g->nr_gens)
                                        p.hot_bytes[type] += b;
                                p.known_idle_byte_seconds[type] += (double) b *
                                                                   (double) g->idle_usec[i] /
                                                                   (double) USEC_PER_SEC;
                        }
        }

        /* The rungs, with the horizon's own row where it falls between two of them. */
        bool horizon_done = p.horizon_usec == 0;
        for (size_t k = 0; k < n_ladder; k++) {
                if (!horizon_done && p.horizon_usec <= ladder[k]) {
                        if (p.horizon_usec < ladder[k])
                                row_new(&p, p.horizon_usec);
                        horizon_done = true;
                }
                row_new(&p, ladder[k]);
        }
        if (!horizon_done)
                row_new(&p, p.horizon_usec);

        for (size_t j = 0; j < src->n; j++) {
                const struct idle_gens *g = source_get(src, j, &buf);

                for (size_t k = 0; k < p.n_rows; k++)
                        row_add(&p.rows[k], g, p.horizon_usec);
        }
        *ret = p;
        return 0;
}

int idle_profile_compute(const struct lrugen_lruvec *v, size_t n, const struct policy_state *state,
                         uint64_t now_usec, uint64_t page_size, const uint64_t *ladder,
                         size_t n_ladder, struct idle_profile *ret) {
        if ((n > 0 && !v) || page_size == 0)
                return -EINVAL;
        return profile_compute(&(struct gens_source) { .lruvecs = v, .state = state,
                                                       .now_usec = now_usec,
                                                       .page_size = page_size, .n = n },
                               ladder, n_ladder, ret);
}

int idle_profile_compute_gens(const struct idle_gens *g, size_t n, const uint64_t *ladder,
                              size_t n_ladder, struct idle_profile *ret) {
        static const struct idle_gens none;

        if (n > 0 && !g)
                return -EINVAL;
        return profile_compute(&(struct gens_source) { .gens = g ?: &none, .n = n }, ladder,
                               n_ladder, ret);
}

int idle_forecast_compute(const struct policy *p, const struct kernel_caps *caps,
                          const struct policy_state *state, const struct cgroup_sample *cur,
                          uint64_t threshold_usec, struct idle_forecast *ret) {
        struct idle_forecast f = { .threshold_usec = threshold_usec };
        uint64_t horizon = 0, hot = 0;

        if (!p || !caps || !cur || !ret || caps->page_size == 0 || threshold_usec == 0 ||
            (cur->n_lruvecs > 0 && !cur->lruvecs))
                return -EINVAL;

        for (size_t j = 0; cur->has_lrugen && j < cur->n_lruvecs; j++) {
                const struct lrugen_lruvec *v = &cur->lruvecs[j];
                const struct policy_lruvec_state *slot =
                        state ? policy_lruvec_find(state, v->memcg_id, v->node) : NULL;

                if (v->nr_gens == 0 || v->nr_gens > LRUGEN_MAX_NR_GENS)
                        return -EINVAL;
                if (lruvec_pages(v) == 0)
                        continue;
                uint64_t h = idle_lruvec_horizon(v, slot, cur->now_usec);
                horizon = u64_max(horizon, h);
                if (h < threshold_usec)
                        f.flags |= IDLE_ROW_PARTIAL;
                for (unsigned i = v->nr_gens >= 2 ? v->nr_gens - 2 : 0; i < v->nr_gens; i++)
                        hot += tiering_gen_pages(&v->gens[i], LRUGEN_ANON) +
                               tiering_gen_pages(&v->gens[i], LRUGEN_FILE);
                for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                        uint64_t pages;

                        (void) tiering_cold_prefix(v, slot, cur->now_usec, type, threshold_usec,
                                                   &pages);
                        f.bytes[type] += pages * caps->page_size;
                }
        }
        if (horizon < threshold_usec) {
                f.flags = (f.flags & ~IDLE_ROW_PARTIAL) | IDLE_ROW_UNKNOWN;
                *ret = f;
                return 0;
        }

        uint64_t headroom = policy_swap_headroom(caps, cur);
        if (f.bytes[LRUGEN_ANON] > headroom) {
                f.bytes[LRUGEN_ANON] = pages_floor_bytes(headroom, caps->page_size);
                f.flags |= IDLE_ROW_NO_SWAP;
        }
        /* Never below max(memory.min, Floor=, hot set), as policy_budget() keeps it. */
        uint64_t floor;
        (void) policy_budget(p, cur, hot * caps->page_size, caps->page_size, &floor);
        uint64_t limit = u64_sub_sat(cur->limits.current, floor);
        uint64_t sum = f.bytes[LRUGEN_ANON] + f.bytes[LRUGEN_FILE];
        if (sum > limit) {
                double k = (double) limit / (double) sum;

                f.bytes[LRUGEN_ANON] =
                        pages_floor_bytes((uint64_t) ((double) f.bytes[LRUGEN_ANON] * k),
                                          caps->page_size);
                f.bytes[LRUGEN_FILE] = pages_floor_bytes(limit - f.bytes[LRUGEN_ANON],
                                                         caps->page_size);
                f.flags |= IDLE_ROW_FLOOR;
        }
        *ret = f;
        return 0;
}

int idle_risk_init(struct idle_risk *r, const uint64_t *ladder, size_t n) {
        if (!r || !ladder_valid(ladder, n))
                return -EINVAL;
        *r = (struct idle_risk) { .ladder_usec = ladder, .n = n };
        return 0;
}

/* Returns the lruvec of cur[0..n) with g's memcg and node, trying index hint first. */
static const struct lrugen_lruvec *match_lruvec(const struct lrugen_lruvec *cur, size_t n,
                                                const struct idle_gens *g, size_t hint) {
        if (hint < n && cur[hint].memcg_id == g->memcg_id && cur[hint].node == g->node)
                return &cur[hint];
        for (size_t j = 0; j < n; j++)
                if (cur[j].memcg_id == g->memcg_id && cur[j].node == g->node)
                        return &cur[j];
        return NULL;
}

/* Fills gone[i] with the bytes of type that left generation i of p by the reading c. The
 * generations of p up to c's oldest sequence number were merged into that one (ageing with four
 * generations folds the oldest into the next): what that group lost is taken from its youngest
 * member first, whose pages are the most recently used. Returns false when c is not a later
 * reading of the same lruvec (its sequence numbers went back: recreated). */
static bool gens_gone_bytes(const struct idle_gens *p, const struct lrugen_lruvec *c, int type,
                            uint64_t page_size, uint64_t gone[LRUGEN_MAX_NR_GENS]) {
        uint64_t oldest = c->gens[0].seq, group_prev = 0;
        int last_in_group = -1;

        if (c->gens[c->nr_gens - 1].seq < p->min_seq + p->nr_gens - 1 || oldest < p->min_seq)
                return false;
        for (unsigned i = 0; i < p->nr_gens; i++) {
                uint64_t seq = p->min_seq + i, bytes = p->bytes[i][type];

                gone[i] = 0;
                if (seq <= oldest) {
                        group_prev += bytes;
                        last_in_group = (int) i;
                        continue;
                }
                /* Generations are consecutive sequence numbers, oldest first. */
                uint64_t k = seq - oldest;
                if (k >= c->nr_gens || c->gens[k].seq != seq)
                        return false;
                gone[i] = u64_sub_sat(bytes, tiering_gen_pages(&c->gens[k], type) * page_size);
        }
        uint64_t left = u64_sub_sat(group_prev, tiering_gen_pages(&c->gens[0], type) * page_size);
        for (int i = last_in_group; i >= 0 && left > 0; i--) {
                uint64_t g = u64_min(left, p->bytes[i][type]);

                gone[i] = g;
                left -= g;
        }
        return true;
}

bool idle_risk_account(struct idle_risk *r, const struct idle_interval *iv, uint64_t page_size) {
        bool used = false;

        if (!r || !iv || (iv->n_prev > 0 && !iv->prev) || (iv->n_cur > 0 && !iv->cur) ||
            page_size == 0)
                return false;
        const struct idle_gens *prev = iv->prev;
        const struct lrugen_lruvec *cur = iv->cur;
        size_t n_prev = iv->n_prev, n_cur = iv->n_cur;
        uint64_t prev_usec = iv->prev_usec, cur_usec = iv->cur_usec;
        if (iv->reclaimed_pages > 0 || cur_usec <= prev_usec ||
            cur_usec - prev_usec > POLICY_MAX_SAMPLE_GAP_USEC || n_prev == 0) {
                r->skipped++;
                return false;
        }
        double dt = (double) (cur_usec - prev_usec);
        double decay = exp(-dt / (double) IDLE_RISK_WINDOW_USEC);
        for (size_t k = 0; k < r->n; k++)
                for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                        r->exposed[k][type] *= decay;
                        r->promoted[k][type] *= decay;
                }

        for (size_t j = 0; j < n_prev; j++) {
                const struct idle_gens *p = &prev[j];
                const struct lrugen_lruvec *c = match_lruvec(cur, n_cur, p, j);
                uint64_t gone[_LRUGEN_NR_TYPES][LRUGEN_MAX_NR_GENS];

                if (!c || p->nr_gens == 0 || p->nr_gens > LRUGEN_MAX_NR_GENS || c->nr_gens == 0 ||
                    c->nr_gens > LRUGEN_MAX_NR_GENS)
                        continue;
                if (!gens_gone_bytes(p, c, LRUGEN_ANON, page_size, gone[LRUGEN_ANON]) ||
                    !gens_gone_bytes(p, c, LRUGEN_FILE, page_size, gone[LRUGEN_FILE]))
                        continue;
                used = true;
                /* What eviction could take: never the two youngest generations. */
                for (unsigned i = 0; i + 3 <= p->nr_gens; i++)
                        for (size_t k = 0; k < r->n && r->ladder_usec[k] <= p->idle_usec[i]; k++)
                                for (int type = 0; type < _LRUGEN_NR_TYPES; type++) {
                                        r->exposed[k][type] += (double) p->bytes[i][type] * dt /
                                                               (double) USEC_PER_SEC;
                                        r->promoted[k][type] += (double) gone[type][i];
                                }
        }
        if (!used) {
                r->window_usec *= decay;
                r->skipped++;
                return false;
        }
        r->window_usec = r->window_usec * decay + dt;
        r->intervals++;
        return true;
}

double idle_risk_share_per_min(const struct idle_risk *r, size_t k, int type) {
        double promoted = 0, exposed = 0;

        if (!r || k >= r->n || type < 0 || type > IDLE_RISK_ALL)
                return -1;
        for (int t = 0; t < _LRUGEN_NR_TYPES; t++)
                if (type == IDLE_RISK_ALL || type == t) {
                        promoted += r->promoted[k][t];
                        exposed += r->exposed[k][t];
                }
        if (exposed <= 0)
                return -1;
        return promoted * 60.0 / exposed;
}

int idle_risk_rung(const struct idle_risk *r, uint64_t idle_usec) {
        for (size_t k = 0; r && k < r->n; k++)
                if (r->ladder_usec[k] == idle_usec)
                        return (int) k;
        return -1;
}
