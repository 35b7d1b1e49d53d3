/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Refault counts you can trust, the pure half: the check of the kernel's counts
 * (refault_check_add(): thresholds, minimum size, the window, the shadow-node sign) and the
 * controllers fed the larger of the kernel's and the daemon's own count once the daemon says the
 * kernel undercounts (policy_decide() with refault_file_undercount). */
#include "mglrud/policy/refault-check.h"

#include "policy-test.h"

/* REFAULT_CHECK_MIN_BYTES in pages of the tests' page size: 8 MiB = 2048 pages. */
#define MIN_PAGES (REFAULT_CHECK_MIN_BYTES / TEST_PAGE_SIZE)

static struct refault_check_sample cycle(uint64_t kernel, uint64_t own) {
        return (struct refault_check_sample) {
                .dt_usec = 2 * SEC,
                .kernel_refault_file = kernel,
                .own_refault_file = own,
                .has_own = true,
        };
}

static void test_own_count_far_above(void **unused) {
        struct refault_check_window w = {};
        struct refault_check_sample c = cycle(100, 4000);

        /* 4000 pages read back, the kernel counted 100: 40 times fewer. */
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_OWN_COUNT);

        /* Exactly four times the kernel's count is "far above"; a page less is not. */
        w = (struct refault_check_window) {};
        c = cycle(1000, 4000);
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_OWN_COUNT);
        w = (struct refault_check_window) {};
        c = cycle(1000, 3999);
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_TRUSTED);

        /* A kernel that counts more than the daemon (anon refaults are not in the own count,
         * other files are) is trusted. */
        w = (struct refault_check_window) {};
        c = cycle(50000, 40000);
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_TRUSTED);
}

static void test_minimum_size(void **unused) {
        struct refault_check_window w = {};
        struct refault_check_sample c = cycle(0, MIN_PAGES - 1);

        /* Just under 8 MiB with no kernel refaults at all: too little to tell. */
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_TRUSTED);
        /* One more page in the next cycle reaches it. */
        c = cycle(0, 1);
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_OWN_COUNT);

        /* The minimum is in bytes: with 64 KiB pages 128 pages are 8 MiB. */
        w = (struct refault_check_window) {};
        c = cycle(0, 127);
        assert_int_equal(refault_check_add(&w, &c, 65536), REFAULT_CHECK_TRUSTED);
        c = cycle(0, 1);
        assert_int_equal(refault_check_add(&w, &c, 65536), REFAULT_CHECK_OWN_COUNT);
}

/* Slow undercounts add up over the window; a window longer than REFAULT_CHECK_WINDOW_USEC
 * starts over, so that a long healthy history does not hide a counter that broke since. */
static void test_window(void **unused) {
        struct refault_check_window w = {};
        struct refault_check_sample c = cycle(5, 600);

        for (int i = 0; i < 3; i++)
                assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_TRUSTED);
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_OWN_COUNT);
        assert_int_equal(w.own_refault_file, 2400);
        assert_int_equal(w.kernel_refault_file, 20);
        assert_int_equal(w.usec, 8 * SEC);

        /* Four minutes of a healthy kernel (it counted more than the daemon)... */
        w = (struct refault_check_window) {};
        c = cycle(100000, 90000);
        c.dt_usec = 240 * SEC;
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_TRUSTED);
        /* ...then it breaks: within the same window its history still covers it... */
        c = cycle(10, 20000);
        c.dt_usec = 50 * SEC;
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_TRUSTED);
        /* ...the window starts over after 5 minutes and sees it. */
        c.dt_usec = 20 * SEC;
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_OWN_COUNT);
        assert_int_equal(w.usec, 20 * SEC);
        assert_int_equal(w.own_refault_file, 20000);
}

/* Without the own count (no BPF, or its read failed) only the shadow-node sign can trip. */
static void test_no_own_count(void **unused) {
        struct refault_check_window w = {};
        struct refault_check_sample c = cycle(0, 1000000);

        c.has_own = false;
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_TRUSTED);
        assert_int_equal(w.own_refault_file, 0);
}

static void test_shadow_nodes(void **unused) {
        struct refault_check_window w = {};
        struct refault_check_sample c = { .dt_usec = 2 * SEC, .nodereclaim = MIN_PAGES,
                                          .evicted = 2 * MIN_PAGES };

        /* A record lost (at least one per node) for every two pages evicted. */
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_SHADOW_NODES);

        /* A working budget trimming behind a sequential stream: about one node per 64 pages
         * evicted. */
        w = (struct refault_check_window) {};
        c.evicted = 64 * MIN_PAGES;
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_TRUSTED);

        /* Too few nodes to tell, even with no eviction at all in the window. */
        w = (struct refault_check_window) {};
        c = (struct refault_check_sample) { .dt_usec = 2 * SEC, .nodereclaim = MIN_PAGES - 1 };
        assert_int_equal(refault_check_add(&w, &c, TEST_PAGE_SIZE), REFAULT_CHECK_TRUSTED);
}

static void test_verdict_strings(void **unused) {
        assert_string_equal(refault_check_verdict_to_string(REFAULT_CHECK_TRUSTED), "trusted");
        assert_string_equal(refault_check_verdict_to_string(REFAULT_CHECK_OWN_COUNT), "own-count");
        assert_string_equal(refault_check_verdict_to_string(REFAULT_CHECK_SHADOW_NODES),
                            "shadow-nodes");
        assert_null(refault_check_verdict_to_string(_REFAULT_CHECK_VERDICT_MAX));
}

/* ---- the controllers fed the larger count ---- */

static const uint32_t ages[4] = { 900, 600, 300, 100 };
static const uint64_t anon[4] = { 50000, 20000, 1000, 500 };
static const uint64_t file[4] = { 10000, 5000, 1000, 500 };

struct fixture {
        struct policy p;
        struct kernel_caps caps;
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev, cur;
};

/* A 1 GiB cgroup past its warmup; cur follows prev by 10 s, in which the kernel counted 10 file
 * refaults (60/min: far under RefaultTarget, 524 pages/min) and the daemon 2000 (12000/min). */
static void setup(struct fixture *f, bool undercount) {
        f->p = test_policy();
        f->caps = caps_all();
        lruvec_fill(&f->v, 42, 0, 10, 4, ages, anon, file);
        f->prev = sample_make(1000 * SEC);
        f->prev.lruvecs = &f->v;
        f->prev.n_lruvecs = 1;
        f->prev.own_refault_file = 70000;
        f->prev.has_own_refault_file = true;
        state_init_running(&f->s, &f->p, &f->prev);
        struct decision d = run(&f->p, &f->caps, &f->s, NULL, &f->prev);
        assert_int_equal(d.reason, DECISION_NONE_WARMUP);
        f->cur = sample_next(&f->prev, 10 * SEC);
        stat_set(&f->cur.stat, MEMSTAT_WORKINGSET_REFAULT_FILE, 10);
        f->cur.own_refault_file = 72000;
        f->cur.refault_file_undercount = undercount;
}

static void test_larger_count_raises_t(void **unused) {
        struct fixture f;

        setup(&f, true);
        struct decision d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_OWN_REFAULTS);
        assert_true(d.flags & DECISION_FLAG_REFAULTS);
        assert_true(d.flags & DECISION_FLAG_T_RAISED);
        assert_int_equal(f.s.cold_age_usec, 360 * SEC);
}

/* The same cycle while the kernel is trusted: the daemon's count is not used, T stays. */
static void test_trusted_kernel_count(void **unused) {
        struct fixture f;

        setup(&f, false);
        struct decision d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(d.flags & (DECISION_FLAG_OWN_REFAULTS | DECISION_FLAG_REFAULTS |
                                DECISION_FLAG_T_RAISED));
        assert_int_equal(f.s.cold_age_usec, 240 * SEC);
}

/* The larger of the two: a kernel count above the daemon's is kept as it is. */
static void test_kernel_count_larger(void **unused) {
        struct fixture f;

        setup(&f, true);
        stat_set(&f.cur.stat, MEMSTAT_WORKINGSET_REFAULT_FILE, 3000);
        struct decision d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(d.flags & DECISION_FLAG_OWN_REFAULTS);
        assert_true(d.flags & DECISION_FLAG_T_RAISED);
}

/* An own count that went backwards (its BPF map entry recycled) or that one sample lacks gives
 * nothing, and is no counter reset: the state (T) is kept. */
static void test_own_count_unusable(void **unused) {
        struct fixture f;

        setup(&f, true);
        f.cur.own_refault_file = 5;
        struct decision d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(d.flags & (DECISION_FLAG_OWN_REFAULTS | DECISION_FLAG_T_RAISED |
                                DECISION_FLAG_COUNTER_RESET));

        setup(&f, true);
        f.prev.has_own_refault_file = false;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(d.flags & (DECISION_FLAG_OWN_REFAULTS | DECISION_FLAG_T_RAISED));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_own_count_far_above),
                cmocka_unit_test(test_minimum_size),
                cmocka_unit_test(test_window),
                cmocka_unit_test(test_no_own_count),
                cmocka_unit_test(test_shadow_nodes),
                cmocka_unit_test(test_verdict_strings),
                cmocka_unit_test(test_larger_count_raises_t),
                cmocka_unit_test(test_trusted_kernel_count),
                cmocka_unit_test(test_kernel_count_larger),
                cmocka_unit_test(test_own_count_unusable),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
