/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Frequency-guided tiering on lru_gen: ageing cadence, cold generations, bounds, floors, stream
 * detection, tier protection, and invariants over random histograms. */
#include "policy-test.h"

/* 4 generations, seq 10..13, ages 900/600/300/100 s: with T = 240 s generations 10 and 11 are
 * cold (idle ≥ 600 and ≥ 300 s), 12 and 13 are the hot set; the youngest is 100 s < T/2. */
static const uint32_t cold_ages[4] = { 900, 600, 300, 100 };
static const uint64_t cold_anon[4] = { 50000, 20000, 1000, 500 };
static const uint64_t cold_file[4] = { 10000, 5000, 1000, 500 };

static void cold_lruvec(struct lrugen_lruvec *v) {
        lruvec_fill(v, 42, 0, 10, 4, cold_ages, cold_anon, cold_file);
}

/* Runs a warmup cycle and returns the acting sample 10 s later in *ret_cur. */
static void warm(const struct policy *p, const struct kernel_caps *caps, struct policy_state *s,
                 struct cgroup_sample *prev, struct cgroup_sample *ret_cur) {
        struct decision d;

        state_init_running(s, p, prev);
        d = run(p, caps, s, NULL, prev);
        assert_int_equal(d.reason, DECISION_NONE_WARMUP);
        assert_true(d.flags & DECISION_FLAG_FIRST_SAMPLE);
        assert_int_equal(d.n_cmds, 0);
        *ret_cur = sample_next(prev, 10 * SEC);
}

static void test_initial_t(void **unused) {
        struct policy p = test_policy();
        struct policy_state s;

        policy_state_init(&s, &p, 0);
        assert_int_equal(s.cold_age_usec, 240 * SEC);
        p.min_cold_age_usec = p.max_cold_age_usec = 30 * SEC;
        policy_state_init(&s, &p, 0);
        assert_int_equal(s.cold_age_usec, 30 * SEC);
}

/* Runs one decision on lruvec v (memcg 42) at time now, after prev; returns it. */
static struct decision decide_at(const struct policy *p, const struct kernel_caps *caps,
                                 struct policy_state *s, struct cgroup_sample *prev,
                                 struct lrugen_lruvec *v, uint64_t now) {
        struct cgroup_sample cur = sample_next(prev, now - prev->now_usec);
        struct decision d;

        cur.lruvecs = v;
        cur.n_lruvecs = 1;
        d = run(p, caps, s, prev, &cur);
        *prev = cur;
        return d;
}

/* Shows the lruvec v to one more decision dt after prev and returns the number of '+' it asked. */
static size_t agings_after(const struct policy *p, const struct kernel_caps *caps,
                           struct policy_state *s, struct cgroup_sample *prev,
                           struct lrugen_lruvec *v, uint64_t dt) {
        struct decision d = decide_at(p, caps, s, prev, v, prev->now_usec + dt);

        return count_cmds(&d, '+');
}

/* A newly seen lruvec (the daemon just started, or a new workload) is aged at once, again a
 * quarter cadence later, and then every T/2: its cold pages become evictable T + T/8 after it
 * was first seen instead of about 1.5 T. */
static void test_calibration_agings(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC);
        struct decision d;

        /* T fixed at 240 s (quiet cycles would lower it): cadence 120 s, calibration step 30 s. */
        p.min_cold_age_usec = p.max_cold_age_usec = 240 * SEC;
        /* Everything in the youngest generation, 5 s old: below any regular cadence. */
        lruvec_fill(&v, 42, 0, 5, 3, (uint32_t[]) { 100, 50, 5 }, (uint64_t[]) { 0, 0, 60000 },
                    (uint64_t[]) { 0, 0, 1000 });
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;
        policy_state_init(&s, &p, prev.now_usec);
        d = run(&p, &caps, &s, NULL, &prev);
        assert_int_equal(d.reason, DECISION_NONE_WARMUP);

        assert_int_equal(agings_after(&p, &caps, &s, &prev, &v, 2 * SEC), 1); /* first sight */
        assert_int_equal(s.lruvecs[0].n_aged, 1);
        lruvec_fill(&v, 42, 0, 5, 4, (uint32_t[]) { 102, 52, 7, 0 }, (uint64_t[]) { 0, 0, 60000, 0 },
                    (uint64_t[]) { 0, 0, 1000, 0 });
        /* The youngest generation must be a quarter cadence (30 s) old for the second. */
        assert_int_equal(agings_after(&p, &caps, &s, &prev, &v, 2 * SEC), 0);
        v.gens[3].age_ms = 29 * 1000;
        assert_int_equal(agings_after(&p, &caps, &s, &prev, &v, 27 * SEC), 0);
        v.gens[3].age_ms = 30 * 1000;
        assert_int_equal(agings_after(&p, &caps, &s, &prev, &v, 1 * SEC), 1);
        assert_int_equal(s.lruvecs[0].n_aged, 2);
        /* Calibrated: the regular T/2 cadence from now on. */
        lruvec_fill(&v, 42, 0, 6, 4, (uint32_t[]) { 300, 250, 200, 30 },
                    (uint64_t[]) { 0, 58000, 2000, 0 }, (uint64_t[]) { 0, 900, 100, 0 });
        assert_int_equal(agings_after(&p, &caps, &s, &prev, &v, 30 * SEC), 0);
        v.gens[3].age_ms = 119 * 1000;
        assert_int_equal(agings_after(&p, &caps, &s, &prev, &v, 89 * SEC), 0);
        v.gens[3].age_ms = 120 * 1000;
        assert_int_equal(agings_after(&p, &caps, &s, &prev, &v, 1 * SEC), 1);
        assert_int_equal(s.lruvecs[0].n_aged, 2);
}

/* Pages an eviction finds referenced go back to max_seq − 1 with their accessed bit cleared,
 * so the next ageing leaves them under a generation older than their last access: their
 * generation's idle bound is capped by the time since that eviction. */
static void test_rejected_pages_not_cold_early(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC);
        struct decision d;
        uint64_t t0 = 1010 * SEC;

        p.min_cold_age_usec = p.max_cold_age_usec = 40 * SEC; /* cadence 20 s */
        lruvec_fill(&v, 42, 0, 10, 4, (uint32_t[]) { 200, 100, 50, 10 },
                    (uint64_t[]) { 0, 1000, 500, 500 }, (uint64_t[]) { 0, 0, 0, 0 });
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;
        state_init_running(&s, &p, &prev);
        (void) run(&p, &caps, &s, NULL, &prev);

        /* t0: generation 11 is idle >= 50 s: evicted (the kernel will put back what it finds
         * referenced at max_seq − 1 = 12). */
        d = decide_at(&p, &caps, &s, &prev, &v, t0);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->seq, 11);

        /* t0 + 10 s: it took nothing; the 1000 pages are in generation 12 now. */
        lruvec_fill(&v, 42, 0, 10, 4, (uint32_t[]) { 210, 110, 60, 20 },
                    (uint64_t[]) { 0, 0, 1500, 500 }, (uint64_t[]) { 0, 0, 0, 0 });
        d = decide_at(&p, &caps, &s, &prev, &v, t0 + 10 * SEC);
        assert_null(find_evict(&d, LRUGEN_ANON));
        assert_int_equal(count_cmds(&d, '+'), 1); /* youngest 20 s old: ages */

        /* t0 + 40 s, after that ageing: generation 12 is below 13, created 45 s ago, but its
         * pages were referenced 30 s ago at most: not cold. */
        lruvec_fill(&v, 42, 0, 11, 4, (uint32_t[]) { 140, 90, 45, 15 },
                    (uint64_t[]) { 0, 1500, 250, 250 }, (uint64_t[]) { 0, 0, 0, 0 });
        d = decide_at(&p, &caps, &s, &prev, &v, t0 + 40 * SEC);
        assert_null(find_evict(&d, LRUGEN_ANON));
        assert_int_equal(d.cold_bytes[LRUGEN_ANON], 0);
        assert_int_equal(d.cooling_bytes[LRUGEN_ANON], 1500 * TEST_PAGE_SIZE);

        /* t0 + 50 s: 40 s since the eviction: cold. */
        for (unsigned i = 0; i < 4; i++)
                v.gens[i].age_ms += 10 * 1000;
        d = decide_at(&p, &caps, &s, &prev, &v, t0 + 50 * SEC);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->seq, 12);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->nr_pages, 1500);

        /* Advice evicts nothing: no cap. */
        p.mode = POLICY_MODE_ADVISE;
        lruvec_fill(&v, 42, 0, 20, 4, (uint32_t[]) { 200, 100, 50, 10 },
                    (uint64_t[]) { 0, 1000, 500, 500 }, (uint64_t[]) { 0, 0, 0, 0 });
        state_init_running(&s, &p, &prev);
        d = decide_at(&p, &caps, &s, &prev, &v, prev.now_usec + 10 * SEC);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->seq, 21);
        assert_false(s.lruvecs[0].has_pending_reject);
}

static void test_ages_then_evicts(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;

        /* Two generations: nothing evictable (seq <= max_seq - 2 needs three), youngest 300 s
         * old >= T/2: age it. */
        lruvec_fill(&v, 42, 0, 12, 2, (uint32_t[]) { 600, 300 }, (uint64_t[]) { 30000, 100 },
                    (uint64_t[]) { 2000, 100 });
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;
        warm(&p, &caps, &s, &prev, &cur);
        d = run(&p, &caps, &s, &prev, &cur);
        assert_int_equal(d.reason, DECISION_AGE);
        assert_int_equal(d.n_cmds, 1);
        assert_int_equal(d.cmds[0].op, '+');
        assert_int_equal(d.cmds[0].memcg_id, 42);
        assert_int_equal(d.cmds[0].node, 0);
        assert_int_equal(d.cmds[0].seq, 13);
        assert_int_equal(d.cmds[0].swappiness, -1); /* never 0 or max on '+' */
        assert_int_equal(d.n_age, 1);

        /* After ageing: generation 12 is idle >= 310 s (age of 13) and evictable (<= 14 - 2). */
        prev = cur;
        lruvec_fill(&v, 42, 0, 12, 3, (uint32_t[]) { 620, 310, 10 },
                    (uint64_t[]) { 30000, 100, 50 }, (uint64_t[]) { 2000, 100, 50 });
        cur = sample_next(&prev, 10 * SEC);
        cur.lruvecs = &v;
        cur.n_lruvecs = 1;
        d = run(&p, &caps, &s, &prev, &cur);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
        assert_int_equal(count_cmds(&d, '+'), 0); /* youngest 10 s */
        assert_int_equal(count_cmds(&d, '-'), 2);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->seq, 12);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->nr_pages, 30000);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->swappiness, SWAPPINESS_ANON_ONLY);
        assert_int_equal(find_evict(&d, LRUGEN_FILE)->seq, 12);
        assert_int_equal(find_evict(&d, LRUGEN_FILE)->nr_pages, 2000);
        assert_int_equal(find_evict(&d, LRUGEN_FILE)->swappiness, 0);
        assert_int_equal(d.planned_bytes[LRUGEN_ANON], 30000 * TEST_PAGE_SIZE);
}

static void test_steady_cold_set(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;

        cold_lruvec(&v);
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;
        warm(&p, &caps, &s, &prev, &cur);
        d = run(&p, &caps, &s, &prev, &cur);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
        assert_int_equal(d.n_cmds, 2);
        /* exactly generations 10 and 11, every cold page, nothing from 12/13 */
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->seq, 11);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->nr_pages, 70000);
        assert_int_equal(find_evict(&d, LRUGEN_FILE)->seq, 11);
        assert_int_equal(find_evict(&d, LRUGEN_FILE)->nr_pages, 15000);
        assert_int_equal(d.cold_bytes[LRUGEN_ANON], 70000 * TEST_PAGE_SIZE);
        assert_int_equal(d.cold_bytes[LRUGEN_FILE], 15000 * TEST_PAGE_SIZE);
        assert_int_equal(d.hot_bytes, 3000 * TEST_PAGE_SIZE);
        assert_int_equal(d.floor_bytes, 3000 * TEST_PAGE_SIZE);
        assert_int_equal(d.cold_age_usec, 240 * SEC);
}

static void test_evict_before_age(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;

        lruvec_fill(&v, 42, 0, 10, 4, (uint32_t[]) { 900, 600, 300, 130 }, cold_anon, cold_file);
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;
        warm(&p, &caps, &s, &prev, &cur);
        d = run(&p, &caps, &s, &prev, &cur);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
        assert_int_equal(d.n_cmds, 3);
        assert_int_equal(d.cmds[0].op, '-');
        assert_int_equal(d.cmds[1].op, '-');
        assert_int_equal(d.cmds[2].op, '+');
        assert_int_equal(d.cmds[2].seq, 13);
        assert_int_equal(d.cmds[2].swappiness, -1);
        /* cooling: generation 12 is idle >= 130 s, in [T/2, T) */
        assert_int_equal(d.cooling_bytes[LRUGEN_ANON], 1000 * TEST_PAGE_SIZE);

        /* The kernel hasn't shown the new generation yet 1 s later: don't age again. */
        prev = cur;
        cur = sample_next(&prev, 1 * SEC);
        d = run(&p, &caps, &s, &prev, &cur);
        assert_int_equal(count_cmds(&d, '+'), 0);
}

static void test_max_step(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;

        p.max_step_bytes = 16 * MiB;
        cold_lruvec(&v);
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;
        warm(&p, &caps, &s, &prev, &cur);
        d = run(&p, &caps, &s, &prev, &cur);
        assert_int_equal(d.budget_bytes, 16 * MiB);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON), PAGES(8 * MiB));
        assert_int_equal(evict_pages(&d, LRUGEN_FILE), PAGES(8 * MiB));
}

static void test_floors(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;

        cold_lruvec(&v);
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;

        /* memory.min */
        warm(&p, &caps, &s, &prev, &cur);
        cur.limits.min = 1 * GiB - 8 * MiB;
        d = run(&p, &caps, &s, &prev, &cur);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
        assert_int_equal(d.floor_bytes, 1 * GiB - 8 * MiB);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON) + evict_pages(&d, LRUGEN_FILE),
                         PAGES(8 * MiB));

        /* Floor= */
        warm(&p, &caps, &s, &prev, &cur);
        p.floor_bytes = 1 * GiB - 4 * MiB;
        d = run(&p, &caps, &s, &prev, &cur);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON) + evict_pages(&d, LRUGEN_FILE),
                         PAGES(4 * MiB));
        p.floor_bytes = 0;

        /* hot set: the two youngest generations hold all but 2 MiB of memory.current */
        lruvec_fill(&v, 42, 0, 10, 4, cold_ages, (uint64_t[]) { 50000, 20000, 150000, 100000 },
                    cold_file);
        prev.limits.current = (70000 + 15000 + 250000 + 1500) * TEST_PAGE_SIZE;
        warm(&p, &caps, &s, &prev, &cur);
        cur.limits.current = (250000 + 1500) * TEST_PAGE_SIZE + 2 * MiB;
        d = run(&p, &caps, &s, &prev, &cur);
        assert_int_equal(d.hot_bytes, (250000 + 1500) * TEST_PAGE_SIZE);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON) + evict_pages(&d, LRUGEN_FILE),
                         PAGES(2 * MiB));

        /* at the floor: nothing, but say why */
        warm(&p, &caps, &s, &prev, &cur);
        cur.limits.current = (250000 + 1500) * TEST_PAGE_SIZE;
        d = run(&p, &caps, &s, &prev, &cur);
        assert_int_equal(d.reason, DECISION_NONE_AT_FLOOR);
        assert_int_equal(count_cmds(&d, '-'), 0);
        assert_int_equal(d.budget_bytes, 0);
}

static void test_nothing_cold(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;

        lruvec_fill(&v, 42, 0, 10, 4, (uint32_t[]) { 300, 200, 50, 20 }, cold_anon, cold_file);
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;
        warm(&p, &caps, &s, &prev, &cur);
        d = run(&p, &caps, &s, &prev, &cur);
        assert_int_equal(d.reason, DECISION_NONE_NOTHING_COLD);
        assert_int_equal(d.n_cmds, 0);
        assert_int_equal(d.cold_bytes[LRUGEN_ANON], 0);
        assert_int_equal(d.cooling_bytes[LRUGEN_ANON], 50000 * TEST_PAGE_SIZE);
}

static void test_multi_lruvec_budget(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v[2];
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;

        p.swappiness = SWAPPINESS_ANON_ONLY;
        p.max_step_bytes = PAGES(0) + 80000 * TEST_PAGE_SIZE;
        cold_lruvec(&v[0]);
        cold_lruvec(&v[1]);
        v[1].node = 1;
        prev.lruvecs = v;
        prev.n_lruvecs = 2;
        warm(&p, &caps, &s, &prev, &cur);
        d = run(&p, &caps, &s, &prev, &cur);
        assert_int_equal(d.n_cmds, 2);
        assert_int_equal(d.cmds[0].node, 0);
        assert_int_equal(d.cmds[0].nr_pages, 70000);
        assert_int_equal(d.cmds[1].node, 1);
        assert_int_equal(d.cmds[1].nr_pages, 10000);
        assert_int_equal(d.cold_bytes[LRUGEN_ANON], 140000 * TEST_PAGE_SIZE);
}

static void test_stream(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;

        /* File generations idle 30 and 20 s: not cold for T = 240 s, cold for the stream's
         * 15 s (MinColdAge / 4). */
        lruvec_fill(&v, 42, 0, 10, 4, (uint32_t[]) { 60, 30, 20, 5 },
                    (uint64_t[]) { 1000, 1000, 1000, 1000 }, (uint64_t[]) { 20000, 10000, 500, 500 });
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;
        warm(&p, &caps, &s, &prev, &cur);
        for (int i = 0; i < 3; i++) {
                stat_set(&cur.stat, MEMSTAT_FILE, prev.stat.value[MEMSTAT_FILE] + 100 * MiB);
                d = run(&p, &caps, &s, &prev, &cur);
                if (i < 2) {
                        assert_int_equal(d.reason, DECISION_NONE_NOTHING_COLD);
                        assert_false(s.streaming);
                }
                prev = cur;
                cur = sample_next(&prev, 10 * SEC);
        }
        assert_true(s.streaming);
        assert_int_equal(d.reason, DECISION_EVICT_STREAM);
        assert_int_equal(d.file_cold_age_usec, 15 * SEC);
        assert_null(find_evict(&d, LRUGEN_ANON));
        assert_int_equal(find_evict(&d, LRUGEN_FILE)->seq, 11);
        assert_int_equal(find_evict(&d, LRUGEN_FILE)->nr_pages, 30000);
        assert_int_equal(find_evict(&d, LRUGEN_FILE)->swappiness, 0);

        /* File refaults end the stream. */
        stat_set(&cur.stat, MEMSTAT_FILE, prev.stat.value[MEMSTAT_FILE] + 100 * MiB);
        stat_set(&cur.stat, MEMSTAT_WORKINGSET_REFAULT_FILE, 5000);
        d = run(&p, &caps, &s, &prev, &cur);
        assert_false(s.streaming);
        assert_null(find_evict(&d, LRUGEN_FILE));
}

/* With BPF stream protection dropping this cgroup's streams, the same inflow never makes the
 * generation-level detector shorten T for file: nothing is evicted; with StreamProtection=advise
 * (nothing dropped) it still does. */
static void test_stream_left_to_drops(void **unused) {
        struct kernel_caps caps = caps_all();
        caps.stream_drops = true;
        for (int advise = 0; advise <= 1; advise++) {
                struct policy p = test_policy();
                p.stream_protection = advise ? STREAM_PROTECTION_ADVISE : STREAM_PROTECTION_YES;
                struct policy_state s;
                struct lrugen_lruvec v;
                struct cgroup_sample prev = sample_make(1000 * SEC), cur;
                struct decision d;
                lruvec_fill(&v, 42, 0, 10, 4, (uint32_t[]) { 60, 30, 20, 5 },
                            (uint64_t[]) { 1000, 1000, 1000, 1000 },
                            (uint64_t[]) { 20000, 10000, 500, 500 });
                prev.lruvecs = &v;
                prev.n_lruvecs = 1;
                warm(&p, &caps, &s, &prev, &cur);
                for (int i = 0; i < 4; i++) {
                        stat_set(&cur.stat, MEMSTAT_FILE, prev.stat.value[MEMSTAT_FILE] + 100 * MiB);
                        d = run(&p, &caps, &s, &prev, &cur);
                        prev = cur;
                        cur = sample_next(&prev, 10 * SEC);
                }
                assert_int_equal(s.streaming, advise);
                if (advise) {
                        assert_int_equal(d.reason, DECISION_EVICT_STREAM);
                        continue;
                }
                assert_int_equal(d.reason, DECISION_NONE_NOTHING_COLD);
                assert_int_equal(d.file_cold_age_usec, d.cold_age_usec);
                assert_null(find_evict(&d, LRUGEN_FILE));
        }
}

static void test_tier_protection(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;

        cold_lruvec(&v);
        v.gens[0].has_tiers = true;
        v.file_tiers_gen = 0;                          /* the file r/e lines, on gen 0 */
        v.file_tiers.evicted[0] = 5000;        /* tier 0 evicts a lot: fine */
        v.file_tiers.refaulted[1] = 50;        /* tier 1: half of it comes back */
        v.file_tiers.evicted[1] = 100;
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;
        warm(&p, &caps, &s, &prev, &cur);
        d = run(&p, &caps, &s, &prev, &cur);
        assert_true(d.flags & DECISION_FLAG_FILE_PROTECTED);
        assert_null(find_evict(&d, LRUGEN_FILE));
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->nr_pages, 70000);

        /* few evictions: no conclusion */
        v.file_tiers.refaulted[1] = 20;
        v.file_tiers.evicted[1] = 40;
        d = run(&p, &caps, &s, &prev, &cur);
        assert_false(d.flags & DECISION_FLAG_FILE_PROTECTED);
        assert_non_null(find_evict(&d, LRUGEN_FILE));
}

/* More lruvecs than commands fit: flagged, and the plan only counts what was kept. */
static void test_truncation(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        static struct lrugen_lruvec v[POLICY_MAX_LRUVECS + 4];
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;
        uint64_t pages = 0;

        p.max_step_bytes = 64 * GiB;
        prev.limits.current = 64 * GiB;
        for (size_t j = 0; j < ELEMENTSOF(v); j++)
                lruvec_fill(&v[j], 1000 + j, 0, 10, 4, (uint32_t[]) { 900, 600, 300, 130 },
                            (uint64_t[]) { 100, 100, 10, 10 }, (uint64_t[]) { 100, 100, 10, 10 });
        prev.lruvecs = v;
        prev.n_lruvecs = ELEMENTSOF(v);
        warm(&p, &caps, &s, &prev, &cur);
        d = run(&p, &caps, &s, &prev, &cur);
        assert_true(d.flags & DECISION_FLAG_TRUNCATED);
        assert_int_equal(d.n_cmds, DECISION_MAX_CMDS);
        for (size_t i = 0; i < d.n_cmds; i++)
                if (d.cmds[i].op == '-')
                        pages += d.cmds[i].nr_pages;
        assert_int_equal(pages * TEST_PAGE_SIZE,
                         d.planned_bytes[LRUGEN_ANON] + d.planned_bytes[LRUGEN_FILE]);
        assert_int_equal(d.n_age, count_cmds(&d, '+'));
        assert_true(s.n_lruvecs <= POLICY_MAX_LRUVECS);
}

/* Invariants over random histograms and policies. */
static uint64_t rnd_state = 88172645463325252ULL;
static uint64_t rnd(uint64_t n) {
        rnd_state ^= rnd_state << 13;
        rnd_state ^= rnd_state >> 7;
        rnd_state ^= rnd_state << 17;
        return n ? rnd_state % n : 0;
}

static void test_random_invariants(void **unused) {
        static const int swp[] = { 0, 1, 60, 100, 200, SWAPPINESS_ANON_ONLY, SWAPPINESS_AUTO };

        for (int iter = 0; iter < 2000; iter++) {
                struct policy p = test_policy();
                struct kernel_caps caps = caps_all();
                struct policy_state s;
                struct lrugen_lruvec v[6];
                struct cgroup_sample prev = sample_make(1000 * SEC), cur;
                struct decision d;
                size_t n = 1 + rnd(6);
                uint64_t total = 0;

                p.swappiness = swp[rnd(ELEMENTSOF(swp))];
                p.min_cold_age_usec = (1 + rnd(600)) * SEC;
                p.max_cold_age_usec = p.min_cold_age_usec + rnd(3000) * SEC;
                p.max_step_bytes = (1 + rnd(512)) * MiB;
                p.floor_bytes = rnd(2) ? rnd(1024) * MiB : 0;
                caps.swappiness_max = rnd(4) != 0;
                caps.has_swap = rnd(4) != 0;
                for (size_t j = 0; j < n; j++) {
                        unsigned ng = 1 + rnd(4);
                        uint32_t ages[4];
                        uint64_t an[4], fi[4];
                        uint32_t age = 1 + rnd(3000);

                        for (unsigned i = 0; i < ng; i++) {
                                ages[i] = age;
                                age = age > 1 ? rnd(age) : 0;
                                an[i] = rnd(100000);
                                fi[i] = rnd(100000);
                        }
                        lruvec_fill(&v[j], 100 + j / 2, j % 2, 5 + rnd(100), ng, ages, an, fi);
                }
                prev.limits.current = rnd(4) * GiB + rnd(GiB);
                prev.limits.min = rnd(3) ? 0 : rnd(GiB);
                prev.lruvecs = v;
                prev.n_lruvecs = n;
                state_init_running(&s, &p, &prev);
                (void) run(&p, &caps, &s, NULL, &prev);
                cur = sample_next(&prev, 10 * SEC);
                d = run(&p, &caps, &s, &prev, &cur);

                for (size_t i = 0; i < d.n_cmds; i++) {
                        const struct lrugen_cmd *c = &d.cmds[i];
                        const struct lrugen_lruvec *lv = NULL;

                        for (size_t j = 0; j < n; j++)
                                if (v[j].memcg_id == c->memcg_id && v[j].node == c->node)
                                        lv = &v[j];
                        assert_non_null(lv);
                        if (c->op == '+') {
                                assert_int_equal(c->swappiness, -1);
                                assert_int_equal(c->seq, lv->gens[lv->nr_gens - 1].seq);
                                continue;
                        }
                        assert_int_equal(c->op, '-');
                        assert_true(c->seq + 2 <= lv->gens[lv->nr_gens - 1].seq);
                        /* The safety invariant: every generation an eviction may take has been
                         * idle for at least T (of its type): the next younger generation, which
                         * was created after its pages' last access, is at least T old. */
                        uint64_t t = c->type == LRUGEN_FILE && d.file_cold_age_usec
                                             ? d.file_cold_age_usec
                                             : d.cold_age_usec;
                        assert_true(t >= p.min_cold_age_usec);
                        for (unsigned g = 0; g + 1 < lv->nr_gens && lv->gens[g].seq <= c->seq; g++)
                                assert_true((uint64_t) lv->gens[g + 1].age_ms * 1000 >= t);
                        assert_true(c->nr_pages > 0);
                        if (c->type == LRUGEN_FILE)
                                assert_int_equal(c->swappiness, 0);
                        else {
                                assert_true(caps.has_swap);
                                assert_int_not_equal(p.swappiness, 0);
                                if (caps.swappiness_max)
                                        assert_int_equal(c->swappiness, SWAPPINESS_ANON_ONLY);
                                else
                                        assert_true(c->swappiness >= 1 && c->swappiness <= 200);
                        }
                        if (p.swappiness == SWAPPINESS_ANON_ONLY)
                                assert_int_equal(c->type, LRUGEN_ANON);
                        total += c->nr_pages * TEST_PAGE_SIZE;
                }
                assert_true(total <= p.max_step_bytes);
                assert_true(total <= d.budget_bytes);
                if (total > 0) {
                        assert_true(cur.limits.current - total >= cur.limits.min);
                        assert_true(cur.limits.current - total >= p.floor_bytes);
                        assert_true(cur.limits.current - total >= d.hot_bytes);
                }
                assert_int_equal(total, d.planned_bytes[0] + d.planned_bytes[1]);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_initial_t),
                cmocka_unit_test(test_calibration_agings),
                cmocka_unit_test(test_ages_then_evicts),
                cmocka_unit_test(test_rejected_pages_not_cold_early),
                cmocka_unit_test(test_steady_cold_set),
                cmocka_unit_test(test_evict_before_age),
                cmocka_unit_test(test_max_step),
                cmocka_unit_test(test_floors),
                cmocka_unit_test(test_nothing_cold),
                cmocka_unit_test(test_multi_lruvec_budget),
                cmocka_unit_test(test_stream),
                cmocka_unit_test(test_stream_left_to_drops),
                cmocka_unit_test(test_tier_protection),
                cmocka_unit_test(test_truncation),
                cmocka_unit_test(test_random_invariants),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
