/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a cgroup keeps for its idle-age profile between cycles (control-idle.c): nothing but the
 * LRU lists without lru_gen; with it, the generations of its lruvecs, from which the profile
 * shown later is the one the cycle's lruvecs give; the re-access measured against them at the
 * next reading, skipped when reclaim ran in between or the previous reading had no histogram;
 * the state resized when the cgroup's lruvecs change; and, through control's cycle step on built
 * readings, kept intact at the end of the controller state while the policy state in front of
 * it grows. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core-fixture.h"
#include "mglrud/core/control.h"
#include "mglrud/core/control-idle.h"
#include "mglrud/kernel/lrugen.h"
#include "policy-test.h"
#include "test-policy.h"

struct fixture {
        struct policy p;
        struct kernel_caps caps;
        struct policy_state ps;
        struct lrugen histogram;       /* only its presence matters here */
        struct cycle_input in;
        struct control_idle_lists lists;
        struct control_idle_state *state;
};

static void fixture_init(struct fixture *f) {
        *f = (struct fixture) { .p = test_policy(), .caps = caps_all() };
        policy_state_init(&f->ps, &f->p, 0);
        f->in = (struct cycle_input) { .caps = &f->caps, .lrugen = &f->histogram,
                                       .lrugen_write_fd = -1 };
}

/* A sample at now of lruvecs v[0..n), with the LRU lists and pgsteal in memory.stat. */
static struct cgroup_sample sample_at(uint64_t now, const struct lrugen_lruvec *v, size_t n,
                                      uint64_t pgsteal) {
        struct cgroup_sample s = sample_make(now);
        s.lruvecs = v;
        s.n_lruvecs = n;
        s.has_lrugen = n > 0;
        stat_set(&s.stat, MEMSTAT_ACTIVE_ANON, 1 * MiB);
        stat_set(&s.stat, MEMSTAT_INACTIVE_ANON, 2 * MiB);
        stat_set(&s.stat, MEMSTAT_ACTIVE_FILE, 3 * MiB);
        stat_set(&s.stat, MEMSTAT_INACTIVE_FILE, 4 * MiB);
        stat_set(&s.stat, MEMSTAT_PGSTEAL, pgsteal);
        return s;
}

/* One cycle's update, the storage resized as control.c does (there it is the end of the
 * cgroup's state; here an allocation of its own). */
static int update(struct fixture *f, const struct cgroup_sample *cur) {
        if (!control_idle_begin(&f->lists, f->state, &f->in, cur))
                return 0;
        size_t size = control_idle_state_size(cur->n_lruvecs);
        bool fresh = !f->state;
        struct control_idle_state *x = realloc(f->state, size);
        if (!x)
                return -ENOMEM;
        f->state = x;
        if (fresh)
                control_idle_init(x);
        control_idle_keep(x, &f->in, cur, &f->p, &f->ps, 240 * SEC);
        return 0;
}

/* Ages 900/600/300/100 s: generation 10 idle ≥ 600 s, 11 ≥ 300 s, 12 ≥ 100 s. */
static void four_gens(struct lrugen_lruvec *v, uint64_t memcg, uint64_t old_anon) {
        lruvec_fill(v, memcg, 0, 10, 4, (uint32_t[]) { 900, 600, 300, 100 },
                    (uint64_t[]) { old_anon, 20000, 1000, 500 },
                    (uint64_t[]) { 10000, 5000, 1000, 500 });
}

static void test_no_lrugen(void **unused) {
        struct fixture f;
        struct control_idle x;

        fixture_init(&f);
        f.in.lrugen = NULL;
        struct cgroup_sample cur = sample_at(5 * SEC, NULL, 0, 0);
        assert_int_equal(update(&f, &cur), 0);
        assert_null(f.state); /* nothing allocated for a profile there is none of */
        control_idle_get(&f.lists, f.state, &x);
        assert_false(x.has_profile);
        assert_true(x.has_lists);
        assert_int_equal(x.inactive[LRUGEN_ANON], 2 * MiB);
        assert_int_equal(x.active[LRUGEN_FILE], 3 * MiB);
        assert_int_equal(x.read_usec, 5 * SEC);
}

/* The profile shown is the one the cycle's lruvecs give, and the forecasts are the cycle's. */
static void test_profile_as_the_cycle_saw_it(void **unused) {
        struct fixture f;
        struct lrugen_lruvec v[2];
        struct control_idle x;
        struct idle_profile want;
        struct idle_forecast fc;

        fixture_init(&f);
        four_gens(&v[0], 42, 50000);
        lruvec_fill(&v[1], 43, 0, 5, 3, (uint32_t[]) { 90, 40, 5 }, (uint64_t[]) { 1000, 0, 10 },
                    (uint64_t[]) { 0, 7, 0 });
        struct cgroup_sample cur = sample_at(1000 * SEC, v, 2, 0);
        assert_int_equal(update(&f, &cur), 0);
        assert_non_null(f.state);
        assert_int_equal(f.state->n_gens, 2);
        control_idle_get(&f.lists, f.state, &x);
        assert_true(x.has_profile);
        assert_int_equal(idle_profile_compute(v, 2, &f.ps, 1000 * SEC, TEST_PAGE_SIZE,
                                              idle_ladder_default_usec, IDLE_LADDER_DEFAULT_N,
                                              &want),
                         0);
        assert_memory_equal(&x.profile, &want, sizeof want);
        assert_int_equal(idle_forecast_compute(&f.p, &f.caps, &f.ps, &cur, 240 * SEC, &fc), 0);
        assert_memory_equal(&x.forecasts[CONTROL_FORECAST_T], &fc, sizeof fc);
        assert_int_equal(x.forecasts[CONTROL_FORECAST_MIN].threshold_usec, 60 * SEC);
        assert_int_equal(x.forecasts[CONTROL_FORECAST_MAX].threshold_usec, 960 * SEC);
        /* The histogram changes (or goes) after the cycle: what is shown does not. */
        v[0].gens[0].nr_pages[LRUGEN_ANON] = 0;
        control_idle_get(&f.lists, f.state, &x);
        assert_memory_equal(&x.profile, &want, sizeof want);
        free(f.state);
}

/* Pages leave the oldest generation (idle ≥ 600 s) between two readings: re-access at every
 * rung up to 10 min; not when reclaim ran in between, nor across a cycle without lru_gen. */
static void test_reaccess(void **unused) {
        struct fixture f;
        struct lrugen_lruvec v;

        fixture_init(&f);
        four_gens(&v, 42, 50000);
        struct cgroup_sample cur = sample_at(1000 * SEC, &v, 1, 100);
        assert_int_equal(update(&f, &cur), 0);
        assert_int_equal(f.state->risk.intervals, 0);

        four_gens(&v, 42, 40000); /* 10000 pages used again */
        cur = sample_at(1010 * SEC, &v, 1, 100);
        assert_int_equal(update(&f, &cur), 0);
        assert_int_equal(f.state->risk.intervals, 1);
        assert_near(f.state->risk.promoted[5][LRUGEN_ANON], 10000.0 * TEST_PAGE_SIZE, 1e-6);
        assert_near(f.state->risk.promoted[6][LRUGEN_ANON], 0.0, 1e-6); /* 30 min: none */

        /* Reclaim took pages meanwhile (pgsteal grew): eviction, not re-access. */
        four_gens(&v, 42, 30000);
        cur = sample_at(1020 * SEC, &v, 1, 10100);
        assert_int_equal(update(&f, &cur), 0);
        assert_int_equal(f.state->risk.intervals, 1);
        assert_int_equal(f.state->risk.skipped, 1);

        /* No histogram for a cycle: nothing shown, and the next interval has no start. */
        f.in.lrugen = NULL;
        cur = sample_at(1030 * SEC, &v, 0, 10100);
        assert_int_equal(update(&f, &cur), 0);
        struct control_idle x;
        control_idle_get(&f.lists, f.state, &x);
        assert_false(x.has_profile);
        assert_int_equal(x.read_usec, 1030 * SEC);
        f.in.lrugen = &f.histogram;
        four_gens(&v, 42, 20000);
        cur = sample_at(1040 * SEC, &v, 1, 10100);
        assert_int_equal(update(&f, &cur), 0);
        assert_int_equal(f.state->risk.intervals, 1);
        assert_int_equal(f.state->risk.skipped, 1);
        control_idle_get(&f.lists, f.state, &x);
        assert_true(x.has_profile);
        free(f.state);
}

/* A second node appears, then goes: the kept generations follow, the sums stay. */
static void test_lruvecs_change(void **unused) {
        struct fixture f;
        struct lrugen_lruvec v[2];

        fixture_init(&f);
        four_gens(&v[0], 42, 50000);
        four_gens(&v[1], 42, 50000);
        v[1].node = 1;
        struct cgroup_sample cur = sample_at(1000 * SEC, v, 1, 0);
        assert_int_equal(update(&f, &cur), 0);
        cur = sample_at(1010 * SEC, v, 2, 0);
        assert_int_equal(update(&f, &cur), 0);
        assert_int_equal(f.state->n_gens, 2);
        assert_int_equal(f.state->gens[1].node, 1);
        assert_int_equal(f.state->risk.intervals, 1);
        cur = sample_at(1020 * SEC, &v[1], 1, 0);
        assert_int_equal(update(&f, &cur), 0);
        assert_int_equal(f.state->n_gens, 1);
        assert_int_equal(f.state->gens[0].node, 1);
        assert_int_equal(f.state->risk.intervals, 2);
        struct control_idle x;
        control_idle_get(&f.lists, f.state, &x);
        assert_int_equal(x.profile.n_lruvecs, 1);
        free(f.state);
}

/* The cgroup's memory.stat in the cycles of a cycle fixture. */
#define CYCLE_STAT                                                                              \
        "anon 536870912\nfile 536870912\ninactive_anon 400000000\n"                             \
        "active_anon 136870912\ninactive_file 1000\nactive_file 2000\npgsteal 7\n"

/* A cgroup with a histogram, cycled in dry-run advice: by control_cgroup_step() on a reading
 * built from CYCLE_STAT, or by control_cgroup_cycle() reading its files (from_files). */
struct cycle_fixture {
        struct core_fixture c;
        struct lrugen l;
        bool from_files;
};

static void cycle_fixture_init(struct cycle_fixture *f) {
        *f = (struct cycle_fixture) {};
        core_fixture_init(&f->c, POLICY_MODE_ADVISE, CYCLE_STAT);
        char text[512];
        snprintf(text, sizeof text,
                 "memcg %llu /cg\n node 0\n 3 30708 24716 0\n 4 18016 4524 0\n"
                 " 5 15396 2053 0\n 6 14612 0 13824\n", (unsigned long long) f->c.cg->id);
        assert_int_equal(lrugen_parse(text, strlen(text), &f->l), 0);
        f->c.caps = (struct kernel_caps) { .page_size = 4096, .lrugen_write = true,
                                           .has_swap = true };
        f->c.in.now_usec = 0;
        f->c.in.lrugen = &f->l;
        f->c.in.dry_run = true;
        f->c.in.idle_profile = true;
}

/* Runs cycle i (at 1 + 2 i seconds). */
static void cycle_fixture_run(struct cycle_fixture *f, int i) {
        f->c.in.now_usec = (uint64_t) (1 + 2 * i) * SEC;
        if (f->from_files) {
                assert_int_equal(control_cgroup_cycle(f->c.cg, &f->c.in, f->c.act), 0);
                return;
        }
        const struct control_reading rd = core_reading(f->c.in.now_usec, CYCLE_STAT,
                                                       UINT64_C(1) << 30);
        assert_int_equal(control_cgroup_step(f->c.cg, &f->c.in, &rd, f->c.act), 0);
}

/* Checks that the cgroup shows the histogram's profile as of cycle last, with the re-access
 * sums of intervals intervals. */
static void cycle_fixture_check(struct cycle_fixture *f, int last, unsigned intervals) {
        struct control_snapshot snap;
        struct control_idle x;
        struct idle_profile want;
        uint64_t read_usec = (uint64_t) (1 + 2 * last) * SEC;
        assert_int_equal(control_cgroup_snapshot(f->c.cg, &snap), 0);
        assert_non_null(snap.idle_state);
        control_snapshot_idle(&snap, &x);
        assert_true(x.has_profile);
        assert_true(x.has_lists);
        assert_int_equal(x.inactive[LRUGEN_ANON], 400000000);
        assert_int_equal(x.read_usec, read_usec);
        assert_int_equal(idle_profile_compute(f->l.lruvecs, 1, NULL, read_usec, 4096,
                                              idle_ladder_default_usec, IDLE_LADDER_DEFAULT_N,
                                              &want),
                         0);
        assert_memory_equal(&x.profile, &want, sizeof want);
        assert_ptr_equal(x.risk.ladder_usec, idle_ladder_default_usec);
        assert_int_equal(x.risk.n, IDLE_LADDER_DEFAULT_N);
        assert_int_equal(x.risk.intervals, intervals);
        assert_int_equal(x.risk.skipped, 0);
        assert_int_equal(x.forecasts[CONTROL_FORECAST_MIN].threshold_usec,
                         f->c.cg->policy->min_cold_age_usec);
}

static void cycle_fixture_done(struct cycle_fixture *f) {
        lrugen_done(&f->l);
        core_fixture_done(&f->c);
}

/* Cycles of a cgroup with a histogram: the policy state gives the lruvec its slot after the
 * first cycle, which grows the controller state in front of the idle-age state; what is shown
 * after three cycles is the profile of the histogram and two intervals of re-access sums on the
 * default ladder. */
static void test_cycles_keep_it(void **unused) {
        struct cycle_fixture f;
        cycle_fixture_init(&f);
        for (int i = 0; i < 3; i++)
                cycle_fixture_run(&f, i);
        cycle_fixture_check(&f, 2, 2);
        cycle_fixture_done(&f);
}

/* Asserts that cg keeps no profile: neither the LRU lists nor the idle-age state. */
static void assert_no_profile(struct cgroup *cg) {
        struct control_snapshot snap;
        struct control_idle x;
        assert_int_equal(control_cgroup_snapshot(cg, &snap), 0);
        assert_null(snap.idle_state);
        control_snapshot_idle(&snap, &x);
        assert_false(x.has_profile);
        assert_false(x.has_lists);
        assert_int_equal(x.read_usec, 0);
}

/* Before a profile is asked for (cycle_input.idle_profile off) a cgroup that is not configured
 * to advise (here Mode=active under the daemon's dry run) keeps neither the LRU lists nor the
 * idle-age state; asked for, both come with the next cycle and show what a cgroup that always
 * had them shows, its re-access sums counted from that cycle on. */
static void test_lazy_until_asked(void **unused) {
        struct cycle_fixture f;
        cycle_fixture_init(&f);
        test_policy_of(f.c.cg)->mode = POLICY_MODE_ACTIVE;
        f.c.in.idle_profile = false;
        for (int i = 0; i < 2; i++)
                cycle_fixture_run(&f, i);
        assert_no_profile(f.c.cg);
        size_t unasked = control_cgroup_state_bytes(f.c.cg);

        f.c.in.idle_profile = true;
        cycle_fixture_run(&f, 2);
        cycle_fixture_check(&f, 2, 0);
        assert_true(control_cgroup_state_bytes(f.c.cg) > unasked);
        for (int i = 3; i < 5; i++)
                cycle_fixture_run(&f, i);
        cycle_fixture_check(&f, 4, 2);
        cycle_fixture_done(&f);
}

/* A cgroup configured with Mode=advise keeps its profile from its first cycle although no one
 * asked yet (advice is what it is for; the re-access rates need the cycles before the first
 * ask), and drops it when a reload makes it Mode=active while still no one asked. */
static void test_advise_keeps_it_unasked(void **unused) {
        struct cycle_fixture f;
        cycle_fixture_init(&f);
        f.c.in.idle_profile = false;
        for (int i = 0; i < 3; i++)
                cycle_fixture_run(&f, i);
        cycle_fixture_check(&f, 2, 2);
        size_t advising = control_cgroup_state_bytes(f.c.cg);

        test_policy_of(f.c.cg)->mode = POLICY_MODE_ACTIVE;
        cycle_fixture_run(&f, 3);
        assert_no_profile(f.c.cg);
        assert_true(control_cgroup_state_bytes(f.c.cg) < advising);
        cycle_fixture_done(&f);
}

/* HighHeadroom= over a memory.high the working set exceeds (nothing idle for MinColdAge 1 h):
 * every decision counts in WorkingSetOverLimit; the cycles read memory.high for it. */
static void test_over_limit_counted(void **unused) {
        struct cycle_fixture f;
        cycle_fixture_init(&f);
        f.from_files = true; /* memory.high is read for HighHeadroom= */
        write_at(f.c.dirfd, "memory.high", "104857600\n");
        struct stat st;
        assert_int_equal(fstat(f.c.dirfd, &st), 0);
        cgroup_free(f.c.cg); /* opened again: the files a cgroup has are noted at opening */
        assert_int_equal(cgroup_new(f.c.dir, "/cg", st.st_ino, CGROUP_KEEP_ALL, &f.c.cg), 0);
        struct policy *p = test_give_policy(f.c.cg);
        p->mode = POLICY_MODE_ADVISE;
        p->high_headroom = 0.1;
        p->min_cold_age_usec = p->max_cold_age_usec = 3600 * SEC;
        for (int i = 0; i < 3; i++)
                cycle_fixture_run(&f, i);
        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(f.c.cg, &snap), 0);
        assert_int_equal(snap.over_limit_decisions, 3);
        assert_non_null(strstr(snap.line, "working set exceeds the limit"));
        assert_int_equal(control_cgroup_headroom_line(f.c.cg), 90 * MiB);
        /* The sizing: nothing known idle for 1 h, so all of memory.current (1 GiB) / 0.9, in
         * whole pages, a lower bound; the limit beside it. */
        assert_int_equal(snap.need_bytes, 291272 * 4096);
        assert_true(snap.need_horizon_short);
        assert_int_equal(snap.limit_bytes, 100 * MiB);
        cycle_fixture_done(&f);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_lrugen),
                cmocka_unit_test(test_profile_as_the_cycle_saw_it),
                cmocka_unit_test(test_reaccess),
                cmocka_unit_test(test_lruvecs_change),
                cmocka_unit_test(test_cycles_keep_it),
                cmocka_unit_test(test_over_limit_counted),
                cmocka_unit_test(test_lazy_until_asked),
                cmocka_unit_test(test_advise_keeps_it_unasked),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
