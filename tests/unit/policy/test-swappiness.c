/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Swappiness controller: the anon/file split of the budget, explicit swappiness per write,
 * the integral correction from measured shares, missing "max" and missing swap, auto. */
#include "policy-test.h"

/* Plenty of both types cold (100000 pages each); MaxStep 64 MiB = 16384 pages is the limit. */
struct fixture {
        struct policy p;
        struct kernel_caps caps;
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev, cur;
};

static void setup_with(struct fixture *f, int swappiness, const uint64_t anon[4],
                       const uint64_t file[4]) {
        f->p = test_policy();
        f->p.swappiness = swappiness;
        f->p.max_step_bytes = 64 * MiB;
        f->caps = caps_all();
        lruvec_fill(&f->v, 7, 0, 20, 4, (uint32_t[]) { 900, 600, 300, 100 }, anon, file);
        f->prev = sample_make(1000 * SEC);
        f->prev.lruvecs = &f->v;
        f->prev.n_lruvecs = 1;
        state_init_running(&f->s, &f->p, &f->prev);
        (void) run(&f->p, &f->caps, &f->s, NULL, &f->prev);
        f->cur = sample_next(&f->prev, 10 * SEC);
}

static void setup(struct fixture *f, int swappiness) {
        setup_with(f, swappiness, (uint64_t[]) { 50000, 50000, 100, 100 },
                   (uint64_t[]) { 50000, 50000, 100, 100 });
}

static void test_swappiness_0_file_only(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f, 0);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.n_cmds, 1);
        assert_int_equal(d.cmds[0].type, LRUGEN_FILE);
        assert_int_equal(d.cmds[0].swappiness, 0);
        assert_int_equal(d.cmds[0].nr_pages, 16384);
        assert_near(d.target_anon_share, 0.0, 0);

        /* nothing cold in file: still no anon */
        setup_with(&f, 0, (uint64_t[]) { 50000, 50000, 100, 100 },
                   (uint64_t[]) { 0, 0, 100, 100 });
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(count_cmds(&d, '-'), 0);
        assert_int_equal(d.reason, DECISION_NONE_NOTHING_COLD);
}

static void test_swappiness_max_anon_only(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f, SWAPPINESS_ANON_ONLY);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.n_cmds, 1);
        assert_int_equal(d.cmds[0].type, LRUGEN_ANON);
        assert_int_equal(d.cmds[0].swappiness, SWAPPINESS_ANON_ONLY);
        assert_int_equal(d.cmds[0].nr_pages, 16384);
}

static void test_swappiness_split(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f, 100);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON), 8192);
        assert_int_equal(evict_pages(&d, LRUGEN_FILE), 8192);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->swappiness, SWAPPINESS_ANON_ONLY);
        assert_int_equal(find_evict(&d, LRUGEN_FILE)->swappiness, 0);

        setup(&f, 60); /* anon 60 : file 140 = 30% */
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON), 4915);
        assert_int_equal(evict_pages(&d, LRUGEN_FILE), 16384 - 4915);

        /* one type short: the other takes the rest of the budget */
        setup_with(&f, 100, (uint64_t[]) { 1000, 0, 100, 100 },
                   (uint64_t[]) { 50000, 50000, 100, 100 });
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON), 1000);
        assert_int_equal(evict_pages(&d, LRUGEN_FILE), 16384 - 1000);
        assert_false(f.s.last_split_free);
}

/* Last cycle asked 50/50; the kernel delivered 20% anon: the integral asks for more anon. */
static void test_integral_correction(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f, 100);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON), 8192);
        assert_true(f.s.last_split_free);

        f.prev = f.cur;
        f.cur = sample_next(&f.prev, 10 * SEC);
        stat_set(&f.cur.stat, MEMSTAT_PGSTEAL_PROACTIVE, 10000);
        stat_set(&f.cur.stat, MEMSTAT_ZSWPOUT, 1500);
        stat_set(&f.cur.stat, MEMSTAT_PSWPOUT, 500);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(f.s.has_measured);
        assert_near(f.s.measured_anon_share, 0.2, 1e-9);
        assert_near(f.s.anon_share_integral, 0.15, 1e-9);
        assert_near(d.target_anon_share, 0.65, 1e-9);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON), 10649); /* 0.65 × 16384, whole pages */

        /* the kernel now follows: measured = target, the integral holds */
        f.prev = f.cur;
        f.cur = sample_next(&f.prev, 10 * SEC);
        stat_set(&f.cur.stat, MEMSTAT_PGSTEAL_PROACTIVE, 20000);
        stat_set(&f.cur.stat, MEMSTAT_ZSWPOUT, 1500 + 5000);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_near(f.s.anon_share_integral, 0.15, 1e-9);

        /* too little reclaimed to say anything: no change */
        f.prev = f.cur;
        f.cur = sample_next(&f.prev, 10 * SEC);
        stat_set(&f.cur.stat, MEMSTAT_PGSTEAL_PROACTIVE, 20100);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(f.s.has_measured);
        assert_near(f.s.anon_share_integral, 0.15, 1e-9);

        /* bounded */
        for (int i = 0; i < 20; i++) {
                f.prev = f.cur;
                f.cur = sample_next(&f.prev, 10 * SEC);
                stat_set(&f.cur.stat, MEMSTAT_PGSTEAL_PROACTIVE,
                         f.prev.stat.value[MEMSTAT_PGSTEAL_PROACTIVE] + 10000);
                d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        }
        assert_near(f.s.anon_share_integral, 0.5, 1e-9);
        assert_near(d.target_anon_share, 1.0, 1e-9);
}

/* A split clamped by what was cold does not wind the integral up. */
static void test_integral_no_windup(void **unused) {
        struct fixture f;

        setup_with(&f, 100, (uint64_t[]) { 1000, 0, 100, 100 },
                   (uint64_t[]) { 50000, 50000, 100, 100 });
        (void) run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        f.prev = f.cur;
        f.cur = sample_next(&f.prev, 10 * SEC);
        stat_set(&f.cur.stat, MEMSTAT_PGSTEAL_PROACTIVE, 16384);
        stat_set(&f.cur.stat, MEMSTAT_ZSWPOUT, 1000);
        (void) run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(f.s.has_measured);
        assert_near(f.s.anon_share_integral, 0.0, 0);
}

static void test_no_max_cap(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f, 100);
        f.caps.swappiness_max = false;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_MIXED_ANON);
        for (size_t i = 0; i < d.n_cmds; i++)
                assert_int_not_equal(d.cmds[i].swappiness, SWAPPINESS_ANON_ONLY);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->swappiness, 100);
        assert_int_equal(find_evict(&d, LRUGEN_FILE)->swappiness, 0);

        /* Swappiness=max without the cap: the strongest mixed value */
        setup(&f, SWAPPINESS_ANON_ONLY);
        f.caps.swappiness_max = false;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.n_cmds, 1);
        assert_int_equal(d.cmds[0].swappiness, 200);
}

static void test_no_swap(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f, 100);
        f.caps.has_swap = false;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_NO_SWAP);
        assert_null(find_evict(&d, LRUGEN_ANON));
        assert_int_equal(evict_pages(&d, LRUGEN_FILE), 16384);

        /* swap.max reached */
        setup(&f, SWAPPINESS_ANON_ONLY);
        f.cur.limits.swap_max = 512 * MiB;
        f.cur.limits.swap_current = 512 * MiB;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_NO_SWAP);
        assert_int_equal(d.n_cmds, 0);
        assert_int_equal(d.reason, DECISION_NONE_NOTHING_COLD);

        /* 1 MiB of swap headroom left: at most that much anon */
        f.cur.limits.swap_current = 511 * MiB;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON), 256);
}

static void test_auto(void **unused) {
        struct fixture f;
        struct decision d;

        /* no refaults, all swap on zram: anon costs half a file refault → 2/3 anon */
        setup(&f, SWAPPINESS_AUTO);
        f.caps.swap_compressed = true;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(f.s.anon_compressed);
        assert_near(d.target_anon_share, 2.0 / 3.0, 1e-9);
        /* zram swap-ins count as pswpin: still compressed */
        stat_set(&f.cur.stat, MEMSTAT_PSWPIN, 10);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(f.s.anon_compressed);

        /* not zram and no swap-in seen yet: disk assumed, anon costs twice a file refault */
        setup(&f, SWAPPINESS_AUTO);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(f.s.anon_compressed);
        assert_near(d.target_anon_share, 1.0 / 3.0, 1e-9);
        /* zswap loads (zswpin > pswpin): compressed; then disk reads win again */
        stat_set(&f.cur.stat, MEMSTAT_ZSWPIN, 10);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(f.s.anon_compressed);
        f.prev = f.cur;
        f.cur = sample_next(&f.prev, 10 * SEC);
        stat_set(&f.cur.stat, MEMSTAT_PSWPIN, 40);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(f.s.anon_compressed);
        assert_near(d.target_anon_share, 1.0 / 3.0, 1e-2);

        /* anon refaulting hard: the share drops to the floor; file refaulting: it rises */
        setup(&f, SWAPPINESS_AUTO);
        stat_set(&f.cur.stat, MEMSTAT_WORKINGSET_REFAULT_ANON, 300);
        stat_set(&f.cur.stat, MEMSTAT_ZSWPIN, 300);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.target_anon_share < 0.1);
        setup(&f, SWAPPINESS_AUTO);
        stat_set(&f.cur.stat, MEMSTAT_WORKINGSET_REFAULT_FILE, 300);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.target_anon_share > 0.9);
        assert_true(d.target_anon_share <= 0.95);
        /* a mixed write stands in with the matching swappiness */
        f.caps.swappiness_max = false;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(find_evict(&d, LRUGEN_ANON)->swappiness >= 180);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_swappiness_0_file_only),
                cmocka_unit_test(test_swappiness_max_anon_only),
                cmocka_unit_test(test_swappiness_split),
                cmocka_unit_test(test_integral_correction),
                cmocka_unit_test(test_integral_no_windup),
                cmocka_unit_test(test_no_max_cap),
                cmocka_unit_test(test_no_swap),
                cmocka_unit_test(test_auto),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
