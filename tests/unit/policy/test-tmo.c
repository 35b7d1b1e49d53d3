/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fallback without lru_gen: memory.reclaim with the TMO step, split and floors. */
#include "policy-test.h"
#include "policy/policy-internal.h"

struct fixture {
        struct policy p;
        struct kernel_caps caps;
        struct policy_state s;
        struct cgroup_sample prev, cur;
};

/* 1 GiB, no lru_gen (classic LRU or debugfs locked down). */
static void setup(struct fixture *f, int swappiness) {
        f->p = test_policy();
        f->p.swappiness = swappiness;
        f->caps = caps_all();
        f->caps.lrugen_write = false;
        f->prev = sample_make(1000 * SEC);
        f->prev.has_lrugen = false;
        state_init_running(&f->s, &f->p, &f->prev);
        (void) run(&f->p, &f->caps, &f->s, NULL, &f->prev);
        f->cur = sample_next(&f->prev, 6 * SEC);
}

static void test_step_formula(void **unused) {
        /* TMO: current × 0.0005 × max(0, 1 − psi / 0.1%) */
        assert_int_equal(tmo_step_bytes(GiB, 0.0005, 0.0, 0.001), 536870); /* 524.3 KiB */
        assert_int_equal(tmo_step_bytes(GiB, 0.0005, 0.0005, 0.001), 268435);
        assert_int_equal(tmo_step_bytes(GiB, 0.0005, 0.001, 0.001), 0);
        assert_int_equal(tmo_step_bytes(GiB, 0.0005, 0.01, 0.001), 0);
        assert_int_equal(tmo_step_bytes(100 * GiB, 0.01, 0.0, 0.001), GiB);
        assert_int_equal(tmo_step_bytes(GiB, 0.0005, 0.0, 0.0), 536870);
        assert_int_equal(tmo_step_bytes(GiB, 0.0005, 0.0001, 0.0), 0);
}

static void test_file_only(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f, 0);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_TMO_STEP);
        assert_int_equal(d.n_cmds, 0);
        assert_int_equal(d.n_reclaims, 1);
        assert_int_equal(d.reclaims[0].bytes, 131 * TEST_PAGE_SIZE); /* 536870 in pages */
        assert_int_equal(d.reclaims[0].swappiness, 0);
        assert_false(d.has_estimates);
}

static void test_split(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f, 100);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.n_reclaims, 2);
        assert_int_equal(d.reclaims[0].swappiness, 0);
        assert_int_equal(d.reclaims[0].bytes, 66 * TEST_PAGE_SIZE);
        assert_int_equal(d.reclaims[1].swappiness, SWAPPINESS_ANON_ONLY);
        assert_int_equal(d.reclaims[1].bytes, 65 * TEST_PAGE_SIZE);

        setup(&f, SWAPPINESS_ANON_ONLY);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.n_reclaims, 1);
        assert_int_equal(d.reclaims[0].swappiness, SWAPPINESS_ANON_ONLY);
        assert_int_equal(d.reclaims[0].bytes, 131 * TEST_PAGE_SIZE);
}

static void test_old_kernels(void **unused) {
        struct fixture f;
        struct decision d;

        /* swappiness=N but no max (6.9..6.14): one mixed write */
        setup(&f, 60);
        f.caps.swappiness_max = false;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.n_reclaims, 1);
        assert_int_equal(d.reclaims[0].bytes, 131 * TEST_PAGE_SIZE);
        assert_int_equal(d.reclaims[0].swappiness, 60);
        assert_true(d.flags & DECISION_FLAG_MIXED_ANON);

        /* still file-only when asked: swappiness=0 works there */
        setup(&f, 0);
        f.caps.swappiness_max = false;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.n_reclaims, 1);
        assert_int_equal(d.reclaims[0].swappiness, 0);

        /* no swappiness= at all (6.1): one plain write */
        setup(&f, 100);
        f.caps.swappiness_max = f.caps.reclaim_swappiness = false;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.n_reclaims, 1);
        assert_int_equal(d.reclaims[0].swappiness, -1);
        assert_int_equal(d.reclaims[0].bytes, 131 * TEST_PAGE_SIZE);
}

static void test_pressure_scales(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f, 0);
        /* 3 ms in 6 s = 0.05%: half the step */
        f.cur.psi.some.total_us = 3000;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_TMO_STEP);
        assert_int_equal(d.reclaims[0].bytes, 65 * TEST_PAGE_SIZE); /* 268435 in pages */

        /* at the target: the law gives 0; above it the pressure guard stops it */
        setup(&f, 0);
        f.cur.psi.some.total_us = 6000;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_PRESSURE); /* not above it, but the step is 0 */
        assert_int_equal(d.n_reclaims, 0);
        setup(&f, 0);
        f.cur.psi.some.total_us = 6001;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_PRESSURE);
        assert_int_equal(d.n_reclaims, 0);
}

static void test_bounds(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f, 0);
        f.p.max_step_bytes = 64 * KiB;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reclaims[0].bytes, 64 * KiB);

        setup(&f, 0);
        f.cur.limits.min = GiB - 100 * KiB;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reclaims[0].bytes, 25 * TEST_PAGE_SIZE);

        setup(&f, 0);
        f.p.floor_bytes = GiB;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_AT_FLOOR);
        assert_int_equal(d.n_reclaims, 0);

        /* tiny cgroup: the step rounds to no page */
        setup(&f, 0);
        f.cur.limits.current = 4 * MiB;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_NOTHING_COLD);
        assert_int_equal(d.n_reclaims, 0);

        /* no swap: anon request dropped, file takes the step */
        setup(&f, 100);
        f.caps.has_swap = false;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.n_reclaims, 1);
        assert_int_equal(d.reclaims[0].swappiness, 0);
        assert_int_equal(d.reclaims[0].bytes, 131 * TEST_PAGE_SIZE);
        assert_true(d.flags & DECISION_FLAG_NO_SWAP);
}

/* lru_gen readable but not writable (lockdown): TMO, with the hot set as a floor. */
static void test_hot_set_floor(void **unused) {
        struct fixture f;
        struct lrugen_lruvec v;
        struct decision d;

        setup(&f, 0);
        lruvec_fill(&v, 9, 0, 1, 4, (uint32_t[]) { 900, 600, 300, 100 },
                    (uint64_t[]) { 0, 0, 0, 0 },
                    (uint64_t[]) { 10, 10, PAGES(GiB) - 100, 70 });
        f.cur.has_lrugen = true;
        f.cur.lruvecs = &v;
        f.cur.n_lruvecs = 1;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.has_estimates);
        assert_int_equal(d.hot_bytes, GiB - 30 * TEST_PAGE_SIZE);
        assert_int_equal(d.reclaims[0].bytes, 30 * TEST_PAGE_SIZE);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_step_formula),
                cmocka_unit_test(test_file_only),
                cmocka_unit_test(test_split),
                cmocka_unit_test(test_old_kernels),
                cmocka_unit_test(test_pressure_scales),
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_hot_set_floor),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
