/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy-test.h: builders for synthetic samples shared by the policy tests. */
#pragma once

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mglrud/shared/macro.h"
#include "mglrud/policy/policy.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)
#define SEC UINT64_C(1000000)
/* cmocka 1.1.5 has no float assertion. */
#define assert_near(a, b, eps) assert_true(fabs((double) (a) - (double) (b)) <= (eps))
/* The page size the tests run with (the daemon passes sysconf(_SC_PAGESIZE) in caps). */
#define TEST_PAGE_SIZE UINT64_C(4096)
#define PAGES(bytes) ((bytes) / TEST_PAGE_SIZE)

/* MinColdAge 60 s, MaxColdAge 960 s: T starts at their geometric middle, 240 s. */
static inline struct policy test_policy(void) {
        return (struct policy) {
                .mode = POLICY_MODE_ACTIVE,
                .min_cold_age_usec = 60 * SEC,
                .max_cold_age_usec = 960 * SEC,
                .pressure_target = 0.001,
                .refault_target = 0.002,
                .swappiness = 100,
                .floor_bytes = 0,
                .max_step_bytes = 1 * GiB,
                .reclaim_ratio = 0.0005,
        };
}

static inline struct kernel_caps caps_all(void) {
        return (struct kernel_caps) {
                .page_size = TEST_PAGE_SIZE,
                .lrugen_write = true,
                .swappiness_max = true,
                .reclaim_swappiness = true,
                .has_swap = true,
        };
}

static inline void stat_set(struct memstat *s, enum memstat_key k, uint64_t v) {
        s->value[k] = v;
        s->present |= UINT32_C(1) << k;
}

/* A 1 GiB cgroup at time now, every counter present at 0, no PSI stall, unlimited swap. */
static inline struct cgroup_sample sample_make(uint64_t now_usec) {
        struct cgroup_sample s = {
                .now_usec = now_usec,
                .has_psi = true,
                .psi = { .has_full = true },
                .limits = {
                        .current = 1 * GiB,
                        .swap_max = UINT64_MAX,
                        .has_swap = true,
                },
                .has_lrugen = true,
        };

        for (int k = 0; k < _MEMSTAT_KEY_MAX; k++)
                stat_set(&s.stat, k, 0);
        stat_set(&s.stat, MEMSTAT_ANON, 600 * MiB);
        stat_set(&s.stat, MEMSTAT_FILE, 400 * MiB);
        return s;
}

/* A sample that follows prev by dt with the same counters (a quiet cycle). */
static inline struct cgroup_sample sample_next(const struct cgroup_sample *prev, uint64_t dt) {
        struct cgroup_sample s = *prev;

        s.now_usec += dt;
        return s;
}

/* Adds to cur's reclaim counters what the kernel reports after taking anon and file pages (the
 * anon ones as swap-outs). */
static inline void sample_add_reclaimed(struct cgroup_sample *cur, uint64_t anon, uint64_t file) {
        cur->stat.value[MEMSTAT_PGSTEAL] += anon + file;
        cur->stat.value[MEMSTAT_PGSTEAL_PROACTIVE] += anon + file;
        cur->stat.value[MEMSTAT_PSWPOUT] += anon;
}

/* Adds to cur what the kernel reports when the evictions of the decision that left s took all
 * they asked for. Without it a cycle after an eviction looks as if the eviction found its pages
 * in use (tiering.c: futile). */
static inline void sample_took_asked(struct cgroup_sample *cur, const struct policy_state *s) {
        sample_add_reclaimed(cur, s->last_planned_bytes[LRUGEN_ANON] / TEST_PAGE_SIZE,
                             s->last_planned_bytes[LRUGEN_FILE] / TEST_PAGE_SIZE);
}

/* Fills v with n generations (oldest first) starting at seq0. */
static inline void lruvec_fill(struct lrugen_lruvec *v, uint64_t memcg_id, int node,
                               uint64_t seq0, unsigned n, const uint32_t *age_s,
                               const uint64_t *anon_pages, const uint64_t *file_pages) {
        memset(v, 0, sizeof(*v));
        v->memcg_id = memcg_id;
        v->node = node;
        v->nr_gens = n;
        v->file_tiers_gen = -1; /* no tier lines */
        for (unsigned i = 0; i < n; i++) {
                v->gens[i].seq = seq0 + i;
                v->gens[i].age_ms = age_s[i] * 1000;
                v->gens[i].nr_pages[LRUGEN_ANON] = anon_pages[i];
                v->gens[i].nr_pages[LRUGEN_FILE] = file_pages[i];
        }
}

/* Initialises s as the state of a daemon that has been managing the cgroup for a while: the
 * lruvecs of smp are past their calibration agings (tiering.c), so ageing follows the regular
 * T/2 cadence. A fresh policy_state_init() ages a newly seen lruvec at once instead. */
static inline void state_init_running(struct policy_state *s, const struct policy *p,
                                      const struct cgroup_sample *smp) {
        policy_state_init(s, p, smp->now_usec);
        for (size_t i = 0; i < smp->n_lruvecs && s->n_lruvecs < POLICY_MAX_LRUVECS; i++)
                s->lruvecs[s->n_lruvecs++] = (struct policy_lruvec_state) {
                        .memcg_id = smp->lruvecs[i].memcg_id,
                        .node = smp->lruvecs[i].node,
                        .n_aged = 2,
                        .last_seen_usec = smp->now_usec,
                };
}

static inline struct host_sample host_make(uint64_t now_usec) {
        return (struct host_sample) {
                .now_usec = now_usec,
                .has_psi = true,
                .psi = { .has_full = true },
                .meminfo = {
                        .mem_total = 16 * GiB,
                        .mem_available = 8 * GiB,
                        .swap_total = 4 * GiB,
                        .swap_free = 4 * GiB,
                },
        };
}

static inline struct host_limits host_limits_default(void) {
        return (struct host_limits) { .full_limit = 0.05, .min_available = 256 * MiB };
}

/* Runs one decision with default host samples, asserting success. */
/* Fails unless a and b decide the same: every field, and the commands up to n_cmds (the slots
 * after them hold nothing; policy_decide() does not clear them). */
static inline void assert_decision_equal(const struct decision *a, const struct decision *b) {
        assert_int_equal(a->reason, b->reason);
        assert_int_equal(a->flags, b->flags);
        assert_int_equal(a->n_cmds, b->n_cmds);
        for (size_t i = 0; i < a->n_cmds; i++) {
                const struct lrugen_cmd *x = &a->cmds[i], *y = &b->cmds[i];
                assert_int_equal(x->op, y->op);
                assert_int_equal(x->memcg_id, y->memcg_id);
                assert_int_equal(x->node, y->node);
                assert_int_equal(x->seq, y->seq);
                assert_int_equal(x->swappiness, y->swappiness);
                assert_int_equal(x->nr_pages, y->nr_pages);
                assert_int_equal(x->type, y->type);
        }
        assert_int_equal(a->n_reclaims, b->n_reclaims);
        for (size_t i = 0; i < a->n_reclaims; i++) {
                assert_int_equal(a->reclaims[i].bytes, b->reclaims[i].bytes);
                assert_int_equal(a->reclaims[i].swappiness, b->reclaims[i].swappiness);
        }
        assert_memory_equal(a->cold_bytes, b->cold_bytes, sizeof a->cold_bytes);
        assert_memory_equal(a->cooling_bytes, b->cooling_bytes, sizeof a->cooling_bytes);
        assert_memory_equal(a->warm_bytes, b->warm_bytes, sizeof a->warm_bytes);
        assert_int_equal(a->hot_bytes, b->hot_bytes);
        assert_int_equal(a->has_estimates, b->has_estimates);
        assert_true(a->psi_some == b->psi_some);
        assert_int_equal(a->has_psi_some, b->has_psi_some);
        assert_int_equal(a->cold_age_usec, b->cold_age_usec);
        assert_int_equal(a->file_cold_age_usec, b->file_cold_age_usec);
        assert_int_equal(a->floor_bytes, b->floor_bytes);
        assert_int_equal(a->budget_bytes, b->budget_bytes);
        assert_memory_equal(a->planned_bytes, b->planned_bytes, sizeof a->planned_bytes);
        assert_true(a->target_anon_share == b->target_anon_share);
        assert_int_equal(a->anon_swappiness, b->anon_swappiness);
        assert_int_equal(a->n_age, b->n_age);
}

static inline struct decision run(const struct policy *p, const struct kernel_caps *caps,
                                  struct policy_state *s, const struct cgroup_sample *prev,
                                  const struct cgroup_sample *cur) {
        struct host_sample hp = host_make(prev ? prev->now_usec : 0),
                           hc = host_make(cur->now_usec);
        struct host_limits hl = host_limits_default();
        struct decision d;

        const struct policy_input in = { .policy = p, .caps = caps, .prev = prev, .cur = cur,
                                         .host_prev = prev ? &hp : NULL, .host_cur = &hc,
                                         .host_limits = &hl };

        assert_int_equal(policy_decide(&in, s, s, &d), 0);
        return d;
}

static inline size_t count_cmds(const struct decision *d, char op) {
        size_t n = 0;

        for (size_t i = 0; i < d->n_cmds; i++)
                n += d->cmds[i].op == op;
        return n;
}

/* Returns the first '-' command for type, or NULL. */
static inline const struct lrugen_cmd *find_evict(const struct decision *d, enum lrugen_type t) {
        for (size_t i = 0; i < d->n_cmds; i++)
                if (d->cmds[i].op == '-' && d->cmds[i].type == t)
                        return &d->cmds[i];
        return NULL;
}

static inline uint64_t evict_pages(const struct decision *d, enum lrugen_type t) {
        uint64_t n = 0;

        for (size_t i = 0; i < d->n_cmds; i++)
                if (d->cmds[i].op == '-' && d->cmds[i].type == t)
                        n += d->cmds[i].nr_pages;
        return n;
}
