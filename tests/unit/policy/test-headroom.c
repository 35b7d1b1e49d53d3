/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The headroom planner (HighHeadroom=) on hand-built histograms: the line, oldest first over
 * lruvecs, below T but never below MinColdAge, the swappiness split, the floor and MaxStep,
 * "the working set exceeds the limit", and the sizing. */
#include "policy-test.h"

#include "mglrud/kernel/memcg.h"
#include "mglrud/policy/headroom.h"

/* Ages 900/600/300/100 s: generation 0 idle >= 600 s, 1 >= 300 s, 2 >= 100 s (hot set, never
 * evicted), 3 unknown. Pages per generation, oldest first. */
static const uint32_t ages[4] = { 900, 600, 300, 100 };
static const uint64_t anon[4] = { 1000, 2000, 3000, 4000 };
static const uint64_t file[4] = { 500, 600, 700, 800 };

/* 100 MiB, memory.high 100 MiB, HighHeadroom=10%: the line is 90 MiB, 2560 pages over it.
 * MinColdAge 60 s, T 240 s, anon only, unlimited swap, no floor, no MaxStep. */
static struct headroom_input input(const struct lrugen_lruvec *v, size_t n) {
        return (struct headroom_input) {
                .current = 100 * MiB,
                .high = 100 * MiB,
                .max = MEMCG_VALUE_MAX,
                .headroom = 0.10,
                .lruvecs = v,
                .n_lruvecs = n,
                .now_usec = 1000 * SEC,
                .page_size = TEST_PAGE_SIZE,
                .min_cold_age_usec = 60 * SEC,
                .cold_age_usec = 240 * SEC,
                .anon_share = 1.0,
                .anon_room = UINT64_MAX,
                .floor = 0,
                .max_bytes = UINT64_MAX,
        };
}

static struct headroom_plan plan(const struct headroom_input *in) {
        struct headroom_plan p;

        assert_int_equal(headroom_plan(in, &p), 0);
        return p;
}

static void test_limit_and_line(void **unused) {
        assert_int_equal(headroom_limit(100 * MiB, MEMCG_VALUE_MAX), 100 * MiB);
        assert_int_equal(headroom_limit(MEMCG_VALUE_MAX, 200 * MiB), 200 * MiB);
        /* memory.high above memory.max: max is where the kernel stops the cgroup. */
        assert_int_equal(headroom_limit(300 * MiB, 200 * MiB), 200 * MiB);
        assert_int_equal(headroom_limit(MEMCG_VALUE_MAX, MEMCG_VALUE_MAX), MEMCG_VALUE_MAX);

        assert_int_equal(headroom_line(100 * MiB, 0.10, TEST_PAGE_SIZE), 23040 * TEST_PAGE_SIZE);
        /* Whole pages, rounded down. */
        assert_int_equal(headroom_line(1000 * TEST_PAGE_SIZE, 0.0015, TEST_PAGE_SIZE),
                         998 * TEST_PAGE_SIZE);
        assert_int_equal(headroom_line(MEMCG_VALUE_MAX, 0.10, TEST_PAGE_SIZE), MEMCG_VALUE_MAX);
        assert_int_equal(headroom_line(100 * MiB, 0, TEST_PAGE_SIZE), MEMCG_VALUE_MAX);
        assert_int_equal(headroom_line(100 * MiB, 0.6, TEST_PAGE_SIZE), MEMCG_VALUE_MAX);
}

static void test_inactive_without_limit_or_headroom(void **unused) {
        struct lrugen_lruvec v;
        lruvec_fill(&v, 42, 0, 10, 4, ages, anon, file);
        struct headroom_input in = input(&v, 1);
        struct headroom_plan p;

        in.high = MEMCG_VALUE_MAX;
        p = plan(&in);
        assert_false(p.active);
        assert_int_equal(p.take_bytes[LRUGEN_ANON] + p.take_bytes[LRUGEN_FILE], 0);

        /* memory.max stands in for a "max" memory.high. */
        in.max = 100 * MiB;
        p = plan(&in);
        assert_true(p.active);
        assert_int_equal(p.excess, 2560 * TEST_PAGE_SIZE);

        in.headroom = 0;
        p = plan(&in);
        assert_false(p.active);
        assert_int_equal(p.take_bytes[LRUGEN_ANON] + p.take_bytes[LRUGEN_FILE], 0);
}

static void test_under_the_line(void **unused) {
        struct lrugen_lruvec v;
        lruvec_fill(&v, 42, 0, 10, 4, ages, anon, file);
        struct headroom_input in = input(&v, 1);

        in.current = 23040 * TEST_PAGE_SIZE; /* at the line */
        in.base[LRUGEN_FILE] = 500 * TEST_PAGE_SIZE; /* the tiering plan's own, not ours */
        struct headroom_plan p = plan(&in);
        assert_true(p.active);
        assert_int_equal(p.excess, 0);
        assert_false(p.working_set_exceeds);
        assert_int_equal(p.take_bytes[LRUGEN_ANON] + p.take_bytes[LRUGEN_FILE], 0);
        assert_int_equal(p.takes[0].idx[LRUGEN_ANON], -1);
}

/* 2560 pages over: generation 0's 1000 anon pages, then 1560 of generation 1's 2000. Both are
 * idle for T (600 s, 300 s >= 240 s): nothing below T. */
static void test_oldest_first_to_the_line(void **unused) {
        struct lrugen_lruvec v;
        lruvec_fill(&v, 42, 0, 10, 4, ages, anon, file);
        struct headroom_input in = input(&v, 1);
        struct headroom_plan p = plan(&in);

        assert_int_equal(p.line, 23040 * TEST_PAGE_SIZE);
        assert_int_equal(p.excess, 2560 * TEST_PAGE_SIZE);
        assert_int_equal(p.takes[0].idx[LRUGEN_ANON], 1);
        assert_int_equal(p.takes[0].pages[LRUGEN_ANON], 2560);
        assert_int_equal(p.take_bytes[LRUGEN_ANON], 2560 * TEST_PAGE_SIZE);
        assert_int_equal(p.take_bytes[LRUGEN_FILE], 0);
        assert_int_equal(p.below_t_bytes, 0);
        assert_false(p.working_set_exceeds);

        /* 500 pages over: generation 0 alone. */
        in.current = (23040 + 500) * TEST_PAGE_SIZE;
        p = plan(&in);
        assert_int_equal(p.takes[0].idx[LRUGEN_ANON], 0);
        assert_int_equal(p.takes[0].pages[LRUGEN_ANON], 500);
}

/* T 400 s: generation 1 (idle 300 s) is below T, but old enough for MinColdAge 60 s: taken,
 * and counted below T. */
static void test_below_t(void **unused) {
        struct lrugen_lruvec v;
        lruvec_fill(&v, 42, 0, 10, 4, ages, anon, file);
        struct headroom_input in = input(&v, 1);

        in.cold_age_usec = 400 * SEC;
        struct headroom_plan p = plan(&in);
        assert_int_equal(p.takes[0].idx[LRUGEN_ANON], 1);
        assert_int_equal(p.takes[0].pages[LRUGEN_ANON], 2560);
        assert_int_equal(p.below_t_bytes, 1560 * TEST_PAGE_SIZE);
}

/* MinColdAge 400 s: only generation 0 (idle 600 s) may go. Its 1000 anon + 500 file pages do
 * not reach 2560: the working set exceeds the limit, and the plan takes what is old enough. */
static void test_never_younger_than_min_cold_age(void **unused) {
        struct lrugen_lruvec v;
        lruvec_fill(&v, 42, 0, 10, 4, ages, anon, file);
        struct headroom_input in = input(&v, 1);

        in.min_cold_age_usec = 400 * SEC;
        in.cold_age_usec = 400 * SEC;
        in.anon_share = 0.5;
        struct headroom_plan p = plan(&in);
        assert_int_equal(p.old_enough_bytes[LRUGEN_ANON], 1000 * TEST_PAGE_SIZE);
        assert_int_equal(p.old_enough_bytes[LRUGEN_FILE], 500 * TEST_PAGE_SIZE);
        assert_true(p.working_set_exceeds);
        assert_int_equal(p.takes[0].idx[LRUGEN_ANON], 0);
        assert_int_equal(p.takes[0].idx[LRUGEN_FILE], 0);
        assert_int_equal(p.take_bytes[LRUGEN_ANON], 1000 * TEST_PAGE_SIZE);
        assert_int_equal(p.take_bytes[LRUGEN_FILE], 500 * TEST_PAGE_SIZE);

        /* Exactly enough old memory is not "exceeds". */
        in.current = (23040 + 1500) * TEST_PAGE_SIZE;
        p = plan(&in);
        assert_false(p.working_set_exceeds);
        in.current += TEST_PAGE_SIZE;
        p = plan(&in);
        assert_true(p.working_set_exceeds);
}

/* Two lruvecs (two nodes): the oldest generation over both goes first. Node 1's generation 0 is
 * idle 800 s, node 0's 600 s, node 1's generation 1 200 s, node 0's 300 s: 2500 pages over
 * take node 1's 1000, node 0's 1000, then 500 of node 0's generation 1 (300 s > 200 s). */
static void test_oldest_first_over_lruvecs(void **unused) {
        static const uint32_t ages1[4] = { 1000, 800, 200, 50 };
        struct lrugen_lruvec v[2];
        lruvec_fill(&v[0], 42, 0, 10, 4, ages, anon, file);
        lruvec_fill(&v[1], 42, 1, 20, 4, ages1, anon, file);
        struct headroom_input in = input(v, 2);

        in.current = (23040 + 2500) * TEST_PAGE_SIZE;
        struct headroom_plan p = plan(&in);
        assert_int_equal(p.takes[1].idx[LRUGEN_ANON], 0);
        assert_int_equal(p.takes[1].pages[LRUGEN_ANON], 1000);
        assert_int_equal(p.takes[0].idx[LRUGEN_ANON], 1);
        assert_int_equal(p.takes[0].pages[LRUGEN_ANON], 1500);
        /* T 240 s: node 0's generation 1 is idle 300 s: nothing below T. */
        assert_int_equal(p.below_t_bytes, 0);
}

/* A put-back by an eviction caps a generation's idle time; a younger generation is never taken
 * before an older one of the same lruvec even when its own bound is larger. */
static void test_put_back_caps_idle(void **unused) {
        struct lrugen_lruvec v;
        lruvec_fill(&v, 42, 0, 10, 4, ages, anon, file);
        struct policy_state s = { .n_lruvecs = 1 };
        s.lruvecs[0] = (struct policy_lruvec_state) { .memcg_id = 42, .node = 0 };
        /* Our eviction put referenced pages back into generation 10 (index 0) 30 s ago. */
        s.lruvecs[0].rejected[10 % 4].seq = 10;
        s.lruvecs[0].rejected[10 % 4].usec = 970 * SEC;
        struct headroom_input in = input(&v, 1);

        in.state = &s;
        struct headroom_plan p = plan(&in);
        /* Generation 0 is idle for 30 s only: below MinColdAge, and generation 1 behind it. */
        assert_int_equal(p.old_enough_bytes[LRUGEN_ANON], 0);
        assert_int_equal(p.take_bytes[LRUGEN_ANON], 0);
        assert_true(p.working_set_exceeds);

        /* Put back 100 s ago: generation 0 is old enough (100 s), and generation 1, idle 300 s
         * by its own bound, counts as idle 100 s behind it: below T (240 s). */
        s.lruvecs[0].rejected[10 % 4].usec = 900 * SEC;
        p = plan(&in);
        assert_int_equal(p.takes[0].pages[LRUGEN_ANON], 2560);
        assert_int_equal(p.below_t_bytes, 2560 * TEST_PAGE_SIZE);
}

/* The swappiness split: half and half at share 0.5, file only at 0, file only without swap. */
static void test_split(void **unused) {
        struct lrugen_lruvec v;
        lruvec_fill(&v, 42, 0, 10, 4, ages, anon, file);
        struct headroom_input in = input(&v, 1);

        in.current = (23040 + 1000) * TEST_PAGE_SIZE;
        in.anon_share = 0.5;
        struct headroom_plan p = plan(&in);
        assert_int_equal(p.take_bytes[LRUGEN_ANON], 500 * TEST_PAGE_SIZE);
        assert_int_equal(p.take_bytes[LRUGEN_FILE], 500 * TEST_PAGE_SIZE);
        assert_int_equal(p.takes[0].idx[LRUGEN_FILE], 0);

        in.anon_share = 0.0;
        p = plan(&in);
        assert_int_equal(p.take_bytes[LRUGEN_ANON], 0);
        assert_int_equal(p.take_bytes[LRUGEN_FILE], 1000 * TEST_PAGE_SIZE);
        assert_int_equal(p.takes[0].idx[LRUGEN_FILE], 1); /* 500 + 500 of generation 1's 600 */

        /* Share 0.5 but no swap: file takes the rest of what the line asks. */
        in.anon_share = 0.5;
        in.anon_room = 0;
        p = plan(&in);
        assert_int_equal(p.old_enough_bytes[LRUGEN_ANON], 0);
        assert_int_equal(p.take_bytes[LRUGEN_ANON], 0);
        assert_int_equal(p.take_bytes[LRUGEN_FILE], 1000 * TEST_PAGE_SIZE);
}

/* A lruvec whose hot file tiers refault keeps its file pages: the other lruvec's go. */
static void test_file_kept(void **unused) {
        struct lrugen_lruvec v[2];
        lruvec_fill(&v[0], 42, 0, 10, 4, ages, anon, file);
        lruvec_fill(&v[1], 42, 1, 20, 4, ages, anon, file);
        const bool kept[2] = { true, false };
        struct headroom_input in = input(v, 2);

        in.current = (23040 + 800) * TEST_PAGE_SIZE;
        in.anon_share = 0.0;
        in.file_kept = kept;
        struct headroom_plan p = plan(&in);
        assert_int_equal(p.old_enough_bytes[LRUGEN_FILE], 1100 * TEST_PAGE_SIZE);
        assert_int_equal(p.takes[0].pages[LRUGEN_FILE], 0);
        assert_int_equal(p.takes[0].idx[LRUGEN_FILE], -1);
        assert_int_equal(p.takes[1].pages[LRUGEN_FILE], 800);
}

/* Never under the floor, at most MaxStep; neither makes the working set "exceed". */
static void test_floor_and_max_step(void **unused) {
        struct lrugen_lruvec v;
        lruvec_fill(&v, 42, 0, 10, 4, ages, anon, file);
        struct headroom_input in = input(&v, 1);

        in.floor = in.current - 100 * TEST_PAGE_SIZE;
        struct headroom_plan p = plan(&in);
        assert_int_equal(p.take_bytes[LRUGEN_ANON], 100 * TEST_PAGE_SIZE);
        assert_false(p.working_set_exceeds);

        in.floor = 0;
        in.max_bytes = 300 * TEST_PAGE_SIZE;
        p = plan(&in);
        assert_int_equal(p.take_bytes[LRUGEN_ANON], 300 * TEST_PAGE_SIZE);
        assert_false(p.working_set_exceeds);
}

/* What the tiering plan takes anyway is taken too, even past the line. */
static void test_base_taken(void **unused) {
        struct lrugen_lruvec v;
        lruvec_fill(&v, 42, 0, 10, 4, ages, anon, file);
        struct headroom_input in = input(&v, 1);

        in.current = (23040 + 100) * TEST_PAGE_SIZE;
        in.base[LRUGEN_FILE] = 500 * TEST_PAGE_SIZE;
        struct headroom_plan p = plan(&in);
        assert_int_equal(p.take_bytes[LRUGEN_ANON], 100 * TEST_PAGE_SIZE);
        assert_int_equal(p.take_bytes[LRUGEN_FILE], 500 * TEST_PAGE_SIZE);
}

/* Sizing: current − bytes idle for at least the age, over 1 − headroom. Idle >= 60 s: the
 * generations 0..2 (idle 600, 300, 100 s), 1000+2000+3000 anon + 500+600+700 file = 7800
 * pages; >= 240 s: generations 0 and 1, 4100 pages. */
static void test_sizing(void **unused) {
        struct lrugen_lruvec v;
        lruvec_fill(&v, 42, 0, 10, 4, ages, anon, file);
        struct headroom_input in = input(&v, 1);
        struct headroom_sizing z;

        in.current = 25600 * TEST_PAGE_SIZE;
        assert_int_equal(headroom_size(&in, &z), 0);
        assert_int_equal(z.limit, 100 * MiB);
        /* (25600 − 7800) / 0.9 = 19777.8 → 19778 pages. */
        assert_int_equal(z.need_min_cold_age, 19778 * TEST_PAGE_SIZE);
        /* (25600 − 4100) / 0.9 = 23888.9 → 23889 pages. */
        assert_int_equal(z.need_cold_age, 23889 * TEST_PAGE_SIZE);
        assert_int_equal(z.horizon_usec, 600 * SEC);
        assert_false(z.horizon_short);

        /* Headroom off: what is touched, nothing added. */
        in.headroom = 0;
        assert_int_equal(headroom_size(&in, &z), 0);
        assert_int_equal(z.need_min_cold_age, (25600 - 7800) * TEST_PAGE_SIZE);

        /* MinColdAge past the horizon: nothing known idle that long, a lower bound. */
        in.min_cold_age_usec = in.cold_age_usec = 900 * SEC;
        assert_int_equal(headroom_size(&in, &z), 0);
        assert_int_equal(z.need_min_cold_age, 25600 * TEST_PAGE_SIZE);
        assert_true(z.horizon_short);
}

static void test_invalid(void **unused) {
        struct headroom_input in = input(NULL, 0);
        struct headroom_plan p;
        struct headroom_sizing z;

        assert_int_equal(headroom_plan(NULL, &p), -EINVAL);
        assert_int_equal(headroom_plan(&in, NULL), -EINVAL);
        in.n_lruvecs = 1;
        assert_int_equal(headroom_plan(&in, &p), -EINVAL);
        in.n_lruvecs = 0;
        in.page_size = 3000;
        assert_int_equal(headroom_size(&in, &z), -EINVAL);
        in.page_size = TEST_PAGE_SIZE;
        in.min_cold_age_usec = 0;
        assert_int_equal(headroom_plan(&in, &p), -EINVAL);
        in.min_cold_age_usec = 60 * SEC;
        /* No generations at all: everything is over the line and nothing is old enough. */
        assert_int_equal(headroom_plan(&in, &p), 0);
        assert_true(p.working_set_exceeds);
}

/* Between cycles: over the line, once per quarter interval (a 4 s interval: a 1 s gap). */
static void test_should_arm(void **unused) {
        const uint64_t line = 90 * MiB, interval = 4 * SEC;

        assert_false(headroom_should_arm(80 * MiB, line, 10 * SEC, 0, interval));
        assert_false(headroom_should_arm(line, line, 10 * SEC, 0, interval));
        assert_true(headroom_should_arm(line + 1, line, 10 * SEC, 0, interval));
        /* No line drawn (headroom off, no limit, no decision yet). */
        assert_false(headroom_should_arm(100 * MiB, 0, 10 * SEC, 0, interval));
        assert_false(headroom_should_arm(100 * MiB, MEMCG_VALUE_MAX, 10 * SEC, 0, interval));
        /* Armed 0.5 s ago: not yet; 1 s ago: again. */
        assert_false(headroom_should_arm(100 * MiB, line, 10 * SEC, 10 * SEC - SEC / 2, interval));
        assert_true(headroom_should_arm(100 * MiB, line, 10 * SEC, 9 * SEC, interval));
}

/* What one simulated run of the watch saw. */
struct watch_run {
        uint64_t checks_before_line;    /* checks while no line was drawn */
        uint64_t first_check_with_line; /* the time of the first check that saw the line */
        uint64_t armed[64];             /* the times of the early decisions (the first 64) */
        size_t n_armed;
};

#define MSEC UINT64_C(1000)

/* Runs the watch's timer as core/manager-headroom.c does, from t = 0 to end_usec, into *ret:
 * each check reads memory.current of the watched cgroup, decides for it when it is over its
 * line (headroom_should_arm(), noting the time) and sets the next check
 * headroom_watch_delay_usec() later. One cgroup: its line (90 MiB) is drawn from line_from
 * (its first decision); memory.current is 80 MiB until then and grows 1 MiB per 100 ms after
 * it, crossing the line 1 s later and staying over it, as when the decisions evict less than
 * the cgroup grows. */
static void run_watch(uint64_t interval, uint64_t line_from, uint64_t end_usec, struct watch_run *ret) {
        const uint64_t line = 90 * MiB;
        uint64_t armed_usec = 0;

        *ret = (struct watch_run) { 0 };
        /* The first check comes one delay with nothing watched after the start (t = 0). */
        for (uint64_t t = headroom_watch_delay_usec(0, interval); t <= end_usec;) {
                bool has_line = t >= line_from;
                uint64_t current = 80 * MiB + (t > line_from ? (t - line_from) / (100 * MSEC) : 0) * MiB;

                if (!has_line)
                        ret->checks_before_line++;
                else if (!ret->first_check_with_line)
                        ret->first_check_with_line = t;
                if (has_line && headroom_should_arm(current, line, t, armed_usec, interval)) {
                        armed_usec = t;
                        if (ret->n_armed < ELEMENTSOF(ret->armed))
                                ret->armed[ret->n_armed++] = t;
                }
                t += headroom_watch_delay_usec(has_line ? 1 : 0, interval);
        }
}

static void test_watch_timer(void **unused) {
        const uint64_t interval = 2 * SEC;
        struct watch_run r;

        /* 100 ms, exactly, once a cgroup is watched; the interval while none is. */
        assert_int_equal(headroom_watch_delay_usec(1, interval), 100 * MSEC);
        assert_int_equal(headroom_watch_delay_usec(3, interval), 100 * MSEC);
        assert_int_equal(headroom_watch_delay_usec(0, interval), interval);
        assert_int_equal(headroom_watch_delay_usec(0, 60 * SEC), 60 * SEC);

        run_watch(interval, 3 * SEC, 8 * SEC, &r);
        /* Before the line: checks at 2 s only (once per interval), then at 4 s the first one that
         * sees it (the line drawn at 3 s is found at the next interval's check). */
        assert_int_equal(r.checks_before_line, 1);
        assert_int_equal(r.first_check_with_line, 4 * SEC);
        /* Crossing: memory.current is 90 MiB at 4 s (the line: not over), 91 MiB at 4.1 s: the
         * decision comes at that check, within 100 ms of crossing. */
        assert_true(r.n_armed > 0);
        assert_int_equal(r.armed[0], 4 * SEC + 100 * MSEC);
        /* Still over the line: again every quarter interval (0.5 s), not at every check. */
        assert_int_equal(r.n_armed, 8); /* 4.1, 4.6, ..., 7.6 s */
        for (size_t i = 1; i < r.n_armed; i++)
                assert_int_equal(r.armed[i] - r.armed[i - 1], interval / 4);
        /* A 60 s interval: a 15 s gap, the first decision still 100 ms after the crossing. */
        run_watch(60 * SEC, 60 * SEC, 100 * SEC, &r);
        assert_int_equal(r.checks_before_line, 0);
        assert_int_equal(r.first_check_with_line, 60 * SEC);
        assert_int_equal(r.armed[0], 61 * SEC + 100 * MSEC);
        assert_int_equal(r.n_armed, 3); /* 61.1, 76.1, 91.1 s */
}

/* ---- in the decision (policy_decide) ---- */

/* Ages 900/200/100/50 s: generations 0 and 1 are idle 200 s and 100 s, below T (240 s) and
 * above MinColdAge (60 s): nothing is cold, the tiering plan alone evicts nothing. */
static const uint32_t warm_ages[4] = { 900, 200, 100, 50 };

struct decide_fixture {
        struct policy p;
        struct kernel_caps caps;
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev, cur;
};

/* A cgroup of 100 MiB under a 100 MiB memory.high with HighHeadroom=10%, after a warmup. */
static void decide_setup(struct decide_fixture *f) {
        f->p = test_policy();
        f->p.high_headroom = 0.10;
        f->caps = caps_all();
        lruvec_fill(&f->v, 42, 0, 10, 4, warm_ages, anon, file);
        f->prev = sample_make(1000 * SEC);
        f->prev.limits.current = 100 * MiB;
        f->prev.limits.high = 100 * MiB;
        f->prev.limits.max = MEMCG_VALUE_MAX;
        f->prev.limits.has_high_max = true;
        f->prev.lruvecs = &f->v;
        f->prev.n_lruvecs = 1;
        state_init_running(&f->s, &f->p, &f->prev);
        (void) run(&f->p, &f->caps, &f->s, NULL, &f->prev);
        f->cur = sample_next(&f->prev, 10 * SEC);
}

/* Over the line: the decision evicts the 2560 pages over it from generations below T, split
 * half and half (Swappiness=100) with anon taking what file lacks (1100 file pages are old
 * enough), and says so. */
static void test_decision_evicts_to_the_line(void **unused) {
        struct decide_fixture f;
        decide_setup(&f);
        struct decision d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);

        assert_int_equal(d.reason, DECISION_EVICT_COLD);
        assert_true(d.flags & DECISION_FLAG_HEADROOM);
        assert_false(d.flags & DECISION_FLAG_OVER_LIMIT);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON), 1460);
        assert_int_equal(evict_pages(&d, LRUGEN_FILE), 1100);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->seq, 11);
        assert_int_equal(find_evict(&d, LRUGEN_FILE)->seq, 11);
        assert_int_equal(d.planned_bytes[LRUGEN_ANON], 1460 * TEST_PAGE_SIZE);
        assert_int_equal(d.headroom_below_t_bytes, 2560 * TEST_PAGE_SIZE);
        assert_int_equal(d.headroom_line, 90 * MiB);
        assert_int_equal(d.headroom_excess, 10 * MiB);
        assert_int_equal(d.limit_bytes, 100 * MiB);
        /* Idle >= 60 s: generations 0 and 1, 3000 anon + 1100 file pages: (25600 − 4100) / 0.9. */
        assert_int_equal(d.need_bytes, 23889 * TEST_PAGE_SIZE);

        struct decision_summary sum;
        decision_summarize(&d, &sum);
        assert_int_equal(sum.need_bytes, d.need_bytes);
        assert_int_equal(sum.limit_bytes, 100 * MiB);
        assert_int_equal(sum.headroom_line, 90 * MiB);
}

/* Headroom's evictions go below T on purpose: what they get says nothing about T. */
static void test_headroom_eviction_not_judged(void **unused) {
        struct decide_fixture f;
        decide_setup(&f);
        struct decision d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);

        assert_true(d.flags & DECISION_FLAG_HEADROOM);
        assert_int_equal(f.s.last_cold_evict_pages, 0);
        f.prev = f.cur;
        f.cur = sample_next(&f.prev, 10 * SEC);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(d.flags & (DECISION_FLAG_FUTILE | DECISION_FLAG_T_RAISED));
}

/* Headroom off, or the limits not read: the tiering plan alone, which finds nothing cold. */
static void test_decision_without_headroom(void **unused) {
        struct decide_fixture f;
        decide_setup(&f);
        f.p.high_headroom = 0;
        struct decision d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(d.flags & DECISION_FLAG_HEADROOM);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON) + evict_pages(&d, LRUGEN_FILE), 0);
        assert_int_equal(d.headroom_line, 0);

        decide_setup(&f);
        f.cur.limits.has_high_max = false;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(d.flags & DECISION_FLAG_HEADROOM);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON) + evict_pages(&d, LRUGEN_FILE), 0);
        assert_int_equal(d.limit_bytes, 0);
}

/* The pressure guard wins: PSI some over PressureTarget, nothing evicted; the line is still
 * reported. A trigger's stall hold likewise. */
static void test_decision_brakes_win(void **unused) {
        struct decide_fixture f;
        decide_setup(&f);
        f.cur.psi.some.total_us = f.prev.psi.some.total_us + 100000; /* 1% of 10 s */
        struct decision d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_PRESSURE);
        assert_int_equal(d.n_cmds, 0);
        assert_int_equal(d.headroom_excess, 10 * MiB);

        decide_setup(&f);
        policy_note_stall(&f.p, &f.s, f.cur.now_usec - SEC);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_PRESSURE);
        assert_int_equal(d.n_cmds, 0);
}

/* MinColdAge 150 s: only generation 0 (idle 200 s) may go, 1500 pages of the 2560: the working
 * set exceeds the limit; the plan takes what is old enough. */
static void test_decision_over_limit(void **unused) {
        struct decide_fixture f;
        decide_setup(&f);
        f.p.min_cold_age_usec = 150 * SEC;
        struct decision d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_OVER_LIMIT);
        assert_true(d.flags & DECISION_FLAG_HEADROOM);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON), 1000);
        assert_int_equal(evict_pages(&d, LRUGEN_FILE), 500);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->seq, 10);
}

/* Hot file tiers refaulting keep the lruvec's file pages: anon takes the whole excess. */
static void test_decision_file_protected(void **unused) {
        struct decide_fixture f;
        decide_setup(&f);
        f.v.file_tiers_gen = 0;
        f.v.file_tiers.evicted[1] = 100;
        f.v.file_tiers.refaulted[1] = 50;
        struct decision d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_HEADROOM);
        assert_int_equal(evict_pages(&d, LRUGEN_FILE), 0);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON), 2560);
}

/* Advice plans the same evictions (act_mode_decide() then writes none of them). */
static void test_decision_advise(void **unused) {
        struct decide_fixture f;
        decide_setup(&f);
        f.p.mode = POLICY_MODE_ADVISE;
        struct decision d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_HEADROOM);
        assert_int_equal(evict_pages(&d, LRUGEN_ANON) + evict_pages(&d, LRUGEN_FILE), 2560);
}

/* An invalid HighHeadroom is refused, as every other bad policy value. */
static void test_decision_invalid_headroom(void **unused) {
        struct decide_fixture f;
        struct decision d;
        decide_setup(&f);
        f.p.high_headroom = 0.9;
        const struct policy_input in = { .policy = &f.p, .caps = &f.caps, .prev = &f.prev,
                                         .cur = &f.cur };
        assert_int_equal(policy_decide(&in, &f.s, &f.s, &d), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_limit_and_line),
                cmocka_unit_test(test_inactive_without_limit_or_headroom),
                cmocka_unit_test(test_under_the_line),
                cmocka_unit_test(test_oldest_first_to_the_line),
                cmocka_unit_test(test_below_t),
                cmocka_unit_test(test_never_younger_than_min_cold_age),
                cmocka_unit_test(test_oldest_first_over_lruvecs),
                cmocka_unit_test(test_put_back_caps_idle),
                cmocka_unit_test(test_split),
                cmocka_unit_test(test_file_kept),
                cmocka_unit_test(test_floor_and_max_step),
                cmocka_unit_test(test_base_taken),
                cmocka_unit_test(test_sizing),
                cmocka_unit_test(test_invalid),
                cmocka_unit_test(test_should_arm),
                cmocka_unit_test(test_watch_timer),
                cmocka_unit_test(test_decision_evicts_to_the_line),
                cmocka_unit_test(test_decision_without_headroom),
                cmocka_unit_test(test_headroom_eviction_not_judged),
                cmocka_unit_test(test_decision_brakes_win),
                cmocka_unit_test(test_decision_over_limit),
                cmocka_unit_test(test_decision_file_protected),
                cmocka_unit_test(test_decision_advise),
                cmocka_unit_test(test_decision_invalid_headroom),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
