/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Guards and T adaptation: pressure, refaults, quiet periods, host guard, counter resets, clock
 * jumps, error backoff, modes and input validation. */
#include <errno.h>

#include "guard-fixture.h"

static void test_pressure(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f);
        /* 50 ms stalled in 10 s = 0.5% > 0.1% */
        f.cur.psi.some.total_us = f.prev.psi.some.total_us + 50000;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_PRESSURE);
        assert_int_equal(d.n_cmds, 0);
        assert_int_equal(d.n_reclaims, 0);
        assert_true(d.has_psi_some);
        assert_near(d.psi_some, 0.005, 1e-9);
        assert_true(d.flags & DECISION_FLAG_T_RAISED);
        assert_int_equal(d.cold_age_usec, 360 * SEC);
        assert_int_equal(f.s.cold_age_usec, 360 * SEC);

        /* Pressure persisting: T saturates at MaxColdAge. */
        for (int i = 0; i < 10; i++) {
                step(&f);
                f.cur.psi.some.total_us = f.prev.psi.some.total_us + 50000;
                d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
                assert_int_equal(d.reason, DECISION_NONE_PRESSURE);
        }
        assert_int_equal(f.s.cold_age_usec, 960 * SEC);

        /* Pressure under target: reclaim resumes. */
        step(&f);
        f.cur.psi.some.total_us = f.prev.psi.some.total_us + 5000; /* 0.05% */
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_NOTHING_COLD); /* T = 960 s: nothing cold */
}

static void test_refault_burst(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f);
        /* 1 GiB = 262144 pages; target 0.2%/min = 524 pages/min; 1000 pages in 10 s = 6000/min */
        stat_set(&f.cur.stat, MEMSTAT_WORKINGSET_REFAULT_ANON, 1000);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_REFAULTS);
        assert_true(d.flags & DECISION_FLAG_T_RAISED);
        assert_int_equal(d.cold_age_usec, 360 * SEC);
        /* Still acts (no pressure), but with T = 360 s only generation 10 is cold. */
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->seq, 10);
        assert_int_equal(find_evict(&d, LRUGEN_ANON)->nr_pages, 50000);

        /* The burst goes on for two more cycles (pages evicted before the raise coming
         * back): held, no further raise; the third one raises again. */
        for (int i = 0; i < 3; i++) {
                step(&f);
                stat_set(&f.cur.stat, MEMSTAT_WORKINGSET_REFAULT_ANON,
                         f.prev.stat.value[MEMSTAT_WORKINGSET_REFAULT_ANON] + 1000);
                d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
                assert_true(d.flags & DECISION_FLAG_REFAULTS);
                assert_int_equal(!!(d.flags & DECISION_FLAG_T_RAISED), i == 2);
        }
        assert_int_equal(f.s.cold_age_usec, 540 * SEC);
        f.s.cold_age_usec = 360 * SEC;

        /* Below target (50 pages in 10 s = 300/min): T stays. */
        step(&f);
        stat_set(&f.cur.stat, MEMSTAT_WORKINGSET_REFAULT_ANON,
                 f.prev.stat.value[MEMSTAT_WORKINGSET_REFAULT_ANON] + 50);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(d.flags & (DECISION_FLAG_T_RAISED | DECISION_FLAG_T_LOWERED));
        assert_int_equal(f.s.cold_age_usec, 360 * SEC);
}

static void test_few_refaults_do_not_raise(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f);
        /* A small cgroup (16 MiB = 4096 pages, target 8 pages/min) and a 1 s cycle: 6 refaults
         * are 360/min, far above the share, but only 24 KiB: noise, not thrashing. */
        f.cur = sample_next(&f.prev, 1 * SEC);
        f.cur.limits.current = 16ULL << 20;
        stat_set(&f.cur.stat, MEMSTAT_WORKINGSET_REFAULT_ANON, 6);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(d.flags & DECISION_FLAG_REFAULTS);
        assert_false(d.flags & DECISION_FLAG_T_RAISED);
        assert_int_equal(f.s.cold_age_usec, 240 * SEC);

        /* 1 MiB of refaults in that second is thrashing: T rises. */
        step(&f);
        f.cur.limits.current = 16ULL << 20;
        stat_set(&f.cur.stat, MEMSTAT_WORKINGSET_REFAULT_ANON,
                 f.prev.stat.value[MEMSTAT_WORKINGSET_REFAULT_ANON] + 256);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_REFAULTS);
        assert_true(d.flags & DECISION_FLAG_T_RAISED);
}

static void test_quiet_lowers_t(void **unused) {
        struct fixture f;
        struct decision d;
        int lowered = 0;

        setup(&f);
        /* 10 s cycles: quiet for 6 cycles is not enough, T (240 s) of quiet is. */
        for (int i = 0; i < 23; i++) {
                d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
                assert_int_equal(d.cold_age_usec, 240 * SEC);
                step(&f);
        }
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_T_LOWERED);
        assert_int_equal(d.cold_age_usec, 216 * SEC);
        /* The next step waits for the new T: 216 s = 22 cycles. */
        for (int i = 0; i < 21; i++) {
                step(&f);
                d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
                assert_false(d.flags & DECISION_FLAG_T_LOWERED);
        }
        step(&f);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_T_LOWERED);

        /* With 1 s cycles and a small T the 6-cycle minimum holds instead. */
        f.s.cold_age_usec = 61 * SEC;
        f.s.quiet_cycles = 0;
        for (int i = 0; i < 5; i++) {
                f.prev = f.cur;
                f.cur = sample_next(&f.prev, 60 * SEC);
                sample_took_asked(&f.cur, &f.s);
                d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
                assert_false(d.flags & DECISION_FLAG_T_LOWERED);
        }
        f.prev = f.cur;
        f.cur = sample_next(&f.prev, 60 * SEC);
        sample_took_asked(&f.cur, &f.s);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_T_LOWERED);
        f.s.cold_age_usec = 216 * SEC;

        /* Long quiet: T converges to MinColdAge and never below. */
        for (int i = 0; i < 400; i++) {
                step(&f);
                d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
                lowered += !!(d.flags & DECISION_FLAG_T_LOWERED);
                assert_true(f.s.cold_age_usec >= 60 * SEC);
        }
        assert_int_equal(f.s.cold_age_usec, 60 * SEC);
        assert_true(lowered >= 13);

        /* Small refaults (between a quarter of the target and the target) stop the descent
         * without raising T. */
        f.s.quiet_since_usec = 0;
        f.s.cold_age_usec = 300 * SEC;
        f.s.quiet_cycles = 5;
        step(&f);
        stat_set(&f.cur.stat, MEMSTAT_WORKINGSET_REFAULT_FILE,
                 f.prev.stat.value[MEMSTAT_WORKINGSET_REFAULT_FILE] + 40); /* 240/min */
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(f.s.cold_age_usec, 300 * SEC);
        assert_int_equal(f.s.quiet_cycles, 0);
}

/* A steady trickle of refaults, each cycle under POLICY_REFAULT_MIN_PAGES: summed over the
 * cycles, above RefaultTarget it raises T once the sum reaches 256 pages, below it never. */
static void test_refault_trickle(void **unused) {
        struct fixture f;
        struct decision d;
        /* 1 GiB = 262144 pages, target 524 pages/min: 100 pages in 10 s = 600/min (over),
         * 80 = 480/min (under), 20 = 120/min (under). In 16 MiB (target 8 pages/min) 20 pages
         * in 10 s are far over target but only 120 in a 60 s window: below 256, noise. */
        static const struct {
                uint64_t per_cycle, current;
                int raised_at; /* cycle that raises T (-1: none in 14) */
        } cases[] = { { 100, 0, 2 }, { 80, 0, -1 }, { 20, 0, -1 }, { 20, 16ULL << 20, -1 } };

        for (size_t c = 0; c < ELEMENTSOF(cases); c++) {
                setup(&f);
                uint64_t total = 0;
                for (int i = 0; i < 14; i++) {
                        if (i > 0)
                                step(&f);
                        if (cases[c].current)
                                f.cur.limits.current = cases[c].current;
                        total += cases[c].per_cycle;
                        stat_set(&f.cur.stat, MEMSTAT_WORKINGSET_REFAULT_ANON, total);
                        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
                        if (cases[c].raised_at < 0 || i < cases[c].raised_at) {
                                assert_false(d.flags & DECISION_FLAG_T_RAISED);
                                assert_int_equal(f.s.cold_age_usec, 240 * SEC);
                        } else if (i == cases[c].raised_at) {
                                assert_true(d.flags & DECISION_FLAG_REFAULTS);
                                assert_true(d.flags & DECISION_FLAG_T_RAISED);
                                assert_int_equal(f.s.cold_age_usec, 360 * SEC);
                                assert_int_equal(f.s.t_floor_usec, 360 * SEC);
                        }
                }
        }
}

/* Refaults raise T and make the raised T a floor for POLICY_T_FLOOR_HOLD_USEC (10 min): quiet
 * periods do not lower it back into the reuse period that refaulted, until the hold ends. */
static void test_refault_floor(void **unused) {
        struct fixture f;
        struct decision d;
        uint64_t raised_at;

        setup(&f);
        stat_set(&f.cur.stat, MEMSTAT_WORKINGSET_REFAULT_ANON, 5000);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_T_RAISED);
        assert_int_equal(f.s.cold_age_usec, 360 * SEC);
        assert_int_equal(f.s.t_floor_usec, 360 * SEC);
        raised_at = f.cur.now_usec;

        /* 9 min 50 s of quiet: T stays at the floor. */
        while (f.cur.now_usec + 10 * SEC < raised_at + 600 * SEC) {
                step(&f);
                d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
                assert_false(d.flags & DECISION_FLAG_T_LOWERED);
                assert_int_equal(f.s.cold_age_usec, 360 * SEC);
        }
        /* The hold is over and the cgroup has been quiet for more than T: one step down. */
        step(&f);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_T_LOWERED);
        assert_int_equal(f.s.cold_age_usec, 324 * SEC);

        /* PSI pressure raises T but sets no floor. */
        setup(&f);
        f.s.t_floor_usec = 0;
        f.cur.psi.some.total_us = f.prev.psi.some.total_us + 100000; /* 1% of 10 s */
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_T_RAISED);
        assert_int_equal(f.s.t_floor_usec, 0);
}

static void test_host_guard(void **unused) {
        struct fixture f;
        struct host_sample hp, hc;
        struct host_limits hl = host_limits_default();
        struct decision d;

        setup(&f);
        hp = host_make(f.prev.now_usec);
        hc = host_make(f.cur.now_usec);
        struct policy_input in = { .policy = &f.p, .caps = &f.caps, .prev = &f.prev,
                                   .cur = &f.cur, .host_prev = &hp, .host_cur = &hc,
                                   .host_limits = &hl };

        hc.meminfo.mem_available = 100 * MiB;
        assert_int_equal(policy_decide(&in, &f.s, &f.s, &d), 0);
        assert_int_equal(d.reason, DECISION_NONE_HOST_PRESSURE);
        assert_int_equal(d.n_cmds, 0);

        /* MemAvailable needs no previous host sample */
        in.host_prev = NULL;
        assert_int_equal(policy_decide(&in, &f.s, &f.s, &d), 0);
        in.host_prev = &hp;
        assert_int_equal(d.reason, DECISION_NONE_HOST_PRESSURE);

        /* host PSI full 10% over the cycle > 5% */
        hc = host_make(f.cur.now_usec);
        hc.psi.full.total_us = hp.psi.full.total_us + 1 * SEC;
        assert_int_equal(policy_decide(&in, &f.s, &f.s, &d), 0);
        assert_int_equal(d.reason, DECISION_NONE_HOST_PRESSURE);

        /* 1%: fine */
        hc.psi.full.total_us = hp.psi.full.total_us + SEC / 10;
        assert_int_equal(policy_decide(&in, &f.s, &f.s, &d), 0);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);

        /* guard off */
        hc.meminfo.mem_available = 0;
        hc.psi.full.total_us = hp.psi.full.total_us + 5 * SEC;
        hl = (struct host_limits) {};
        assert_int_equal(policy_decide(&in, &f.s, &f.s, &d), 0);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
}

static void test_counter_reset(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f);
        stat_set(&f.prev.stat, MEMSTAT_PGSTEAL_PROACTIVE, 100000);
        f.s.cold_age_usec = 700 * SEC;
        f.s.streaming = true;
        stat_set(&f.cur.stat, MEMSTAT_PGSTEAL_PROACTIVE, 10);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_WARMUP);
        assert_true(d.flags & DECISION_FLAG_COUNTER_RESET);
        assert_int_equal(d.n_cmds, 0);
        assert_int_equal(f.s.cold_age_usec, 240 * SEC); /* fresh state */
        assert_false(f.s.streaming);

        /* PSI totals going back too */
        setup(&f);
        f.prev.psi.some.total_us = 5 * SEC;
        f.cur.psi.some.total_us = 1;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_WARMUP);
        assert_true(d.flags & DECISION_FLAG_COUNTER_RESET);

        /* the next cycle acts again */
        step(&f);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);

        /* Amounts go up and down: a shrinking inactive list or anon is no reset. */
        setup(&f);
        for (int k = 0; k < MEMSTAT_WORKINGSET_REFAULT_ANON; k++) {
                stat_set(&f.prev.stat, k, 1000 * MiB);
                stat_set(&f.cur.stat, k, 1 * MiB);
        }
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(d.flags & DECISION_FLAG_COUNTER_RESET);
        /* The LRU lists by name, wherever they sit in the enum. */
        setup(&f);
        const enum memstat_key lists[] = { MEMSTAT_INACTIVE_ANON, MEMSTAT_ACTIVE_ANON,
                                           MEMSTAT_INACTIVE_FILE, MEMSTAT_ACTIVE_FILE };
        for (size_t i = 0; i < ELEMENTSOF(lists); i++) {
                stat_set(&f.prev.stat, lists[i], 1000 * MiB);
                stat_set(&f.cur.stat, lists[i], 1 * MiB);
        }
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(d.flags & DECISION_FLAG_COUNTER_RESET);
}

/* Returns prev with only the memory.stat keys a caller keeps of a previous sample
 * (policy_prev_memstat_keys). */
static struct cgroup_sample prev_as_kept(const struct cgroup_sample *prev) {
        struct cgroup_sample r = *prev;
        r.stat = (struct memstat) {};
        for (size_t i = 0; i < POLICY_PREV_MEMSTAT_KEYS; i++) {
                enum memstat_key k = policy_prev_memstat_keys[i];
                if (memstat_has(&prev->stat, k))
                        stat_set(&r.stat, k, prev->stat.value[k]);
        }
        return r;
}

/* The daemon keeps only policy_prev_memstat_keys of a previous sample (control.c): the policy
 * must decide the same from them as from the whole sample. Each round moves every counter of cur
 * by a random amount, now and then backwards (a reset), and decides from both. */
static void test_prev_keys_suffice(void **unused) {
        uint64_t rng = 0x9e3779b97f4a7c15u;
        for (int round = 0; round < 400; round++) {
                struct fixture f;
                setup(&f);
                for (int k = 0; k < _MEMSTAT_KEY_MAX; k++) {
                        rng = rng * 6364136223846793005u + 1442695040888963407u;
                        uint64_t base = (rng >> 20) % 100000, step = (rng >> 40) % 20000;
                        stat_set(&f.prev.stat, k, base);
                        bool back = k >= MEMSTAT_WORKINGSET_REFAULT_ANON && (rng >> 8) % 40 == 0;
                        stat_set(&f.cur.stat, k, back ? base / 2 : base + step);
                }
                rng = rng * 6364136223846793005u + 1442695040888963407u;
                f.cur.psi.some.total_us = f.prev.psi.some.total_us + (rng >> 33) % 40000;
                struct policy_state s_full = f.s, s_kept = f.s;
                struct cgroup_sample kept = prev_as_kept(&f.prev);
                struct decision full = run(&f.p, &f.caps, &s_full, &f.prev, &f.cur),
                                only = run(&f.p, &f.caps, &s_kept, &kept, &f.cur);
                assert_decision_equal(&full, &only);
                assert_memory_equal(&s_full, &s_kept, policy_state_size(&s_full));
        }
}

static void test_clock_jump(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f);
        f.cur.now_usec = f.prev.now_usec; /* no time passed */
        f.cur.psi.some.total_us = 1 * SEC; /* would be infinite pressure */
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_WARMUP);
        assert_true(d.flags & DECISION_FLAG_CLOCK_JUMP);
        assert_false(d.has_psi_some);
        assert_int_equal(f.s.cold_age_usec, 240 * SEC);

        setup(&f);
        f.cur.now_usec = f.prev.now_usec - 1;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_CLOCK_JUMP);

        /* a suspend: an hour without samples */
        setup(&f);
        f.cur.now_usec = f.prev.now_usec + 3600 * SEC;
        stat_set(&f.cur.stat, MEMSTAT_WORKINGSET_REFAULT_ANON, 100000);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_WARMUP);
        assert_true(d.flags & DECISION_FLAG_CLOCK_JUMP);
        assert_false(d.flags & DECISION_FLAG_T_RAISED);
}

static void test_backoff(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
        policy_note_error(&f.s, f.cur.now_usec); /* 1st failure: 1 cycle */
        step(&f);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_BACKOFF);
        assert_int_equal(d.n_cmds, 0);
        step(&f);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
        policy_note_error(&f.s, f.cur.now_usec); /* 2nd consecutive: 2 cycles */
        for (int i = 0; i < 2; i++) {
                step(&f);
                d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
                assert_int_equal(d.reason, DECISION_NONE_BACKOFF);
        }
        step(&f);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
        /* success (no error noted): the streak ends, the next failure backs off 1 again */
        step(&f);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(f.s.error_streak, 0);
        policy_note_error(&f.s, f.cur.now_usec);
        assert_int_equal(f.s.backoff_cycles, 1);

        /* capped at 16 cycles */
        for (int i = 0; i < 10; i++)
                policy_note_error(&f.s, f.cur.now_usec);
        assert_int_equal(f.s.backoff_cycles, 16);
}

/* A pressure trigger fired (policy_note_stall()): T goes up at once (x1.5), the next decision
 * reclaims nothing, further raises wait for the hold (the cycle's PSI average shows the same
 * stall), then reclaim resumes under the raised T. */
static void test_stall(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
        assert_int_equal(f.s.cold_age_usec, 240 * SEC);

        policy_note_stall(&f.p, &f.s, f.cur.now_usec + 2 * SEC);
        assert_int_equal(f.s.cold_age_usec, 360 * SEC);
        assert_int_equal(f.s.stall_hold, 1);

        /* The cycle after: PSI over target too (the stall), but T is not raised twice. */
        step(&f);
        f.cur.psi.some.total_us = f.prev.psi.some.total_us + 50000;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_PRESSURE);
        assert_int_equal(d.n_cmds, 0);
        assert_int_equal(d.n_reclaims, 0);
        assert_int_equal(f.s.cold_age_usec, 360 * SEC);

        /* Quiet again: reclaim resumes, under T = 360 s (100 s-old generations stay). */
        step(&f);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
        assert_int_equal(d.cold_age_usec, 360 * SEC);

        /* Even a quiet cycle right after a stall reclaims nothing. */
        policy_note_stall(&f.p, &f.s, f.cur.now_usec);
        step(&f);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_PRESSURE);
        assert_int_equal(f.s.cold_age_usec, 540 * SEC);
        /* At MaxColdAge T stays there. */
        for (int i = 0; i < 4; i++)
                policy_note_stall(&f.p, &f.s, f.cur.now_usec);
        assert_int_equal(f.s.cold_age_usec, 960 * SEC);
        assert_int_equal(f.s.stall_hold, 1);
}

/* The trigger's threshold: the stall that alone puts a cycle over the target, within bounds. */
static void test_trigger_stall(void **unused) {
        const uint64_t w = 1 * SEC;
        assert_int_equal(policy_trigger_stall_usec(0.001, 10 * SEC, w), 10000);  /* 0.1% x 10 s */
        assert_int_equal(policy_trigger_stall_usec(0.05, 10 * SEC, w), w / 2);   /* capped */
        assert_int_equal(policy_trigger_stall_usec(0.0001, 1 * SEC, w),
                         POLICY_TRIGGER_MIN_STALL_USEC);                          /* floor */
        assert_int_equal(policy_trigger_stall_usec(0, 10 * SEC, w), POLICY_TRIGGER_MIN_STALL_USEC);
        assert_int_equal(policy_trigger_stall_usec(NAN, 10 * SEC, w), POLICY_TRIGGER_MIN_STALL_USEC);
        assert_int_equal(policy_trigger_stall_usec(0.01, 60 * SEC, 2 * SEC), 600000);
}

static void test_modes(void **unused) {
        struct fixture f;
        struct decision active, advise, off;
        struct policy_state s0;

        setup(&f);
        s0 = f.s;
        active = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        f.s = s0;
        f.p.mode = POLICY_MODE_ADVISE;
        advise = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        /* Whether it is written is not the policy's: act_mode_decide() (act-mode.h). */
        assert_decision_equal(&active, &advise);

        f.s = s0;
        f.p.mode = POLICY_MODE_OFF;
        off = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(off.reason, DECISION_NONE_MODE_OFF);
        assert_int_equal(off.n_cmds, 0);
        assert_int_equal(off.n_reclaims, 0);

        /* Mode=pressure uses memory.reclaim even with lru_gen. */
        f.s = s0;
        f.p.mode = POLICY_MODE_PRESSURE;
        active = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(active.reason, DECISION_TMO_STEP);
        assert_int_equal(active.n_cmds, 0);
        assert_true(active.n_reclaims > 0);
}

static void test_no_psi(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f);
        f.prev.has_psi = f.cur.has_psi = false;
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_NO_PSI);
        assert_false(d.has_psi_some);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
}

static void test_einval(void **unused) {
        struct fixture f;
        struct decision d = { .reason = 77 };
        struct policy_state s2;
        struct host_limits hl = host_limits_default();
        struct lrugen_lruvec bad;

        setup(&f);
        s2 = f.s;
        struct policy_input in = { .caps = &f.caps, .cur = &f.cur, .host_limits = &hl };
        assert_int_equal(policy_decide(&in, &f.s, &s2, &d), -EINVAL); /* no policy */
        assert_int_equal(policy_decide(NULL, &f.s, &s2, &d), -EINVAL);
        in.policy = &f.p;
        in.cur = NULL;
        assert_int_equal(policy_decide(&in, &f.s, &s2, &d), -EINVAL);
        in.cur = &f.cur;
        f.p.min_cold_age_usec = 2000 * SEC;
        assert_int_equal(policy_decide(&in, &f.s, &s2, &d), -EINVAL);
        f.p = test_policy();
        f.p.swappiness = 202;
        assert_int_equal(policy_decide(&in, &f.s, &s2, &d), -EINVAL);
        f.p = test_policy();
        bad = f.v;
        bad.gens[2].seq = bad.gens[1].seq;
        f.cur.lruvecs = &bad;
        assert_int_equal(policy_decide(&in, &f.s, &s2, &d), -EINVAL);
        bad.nr_gens = 5;
        assert_int_equal(policy_decide(&in, &f.s, &s2, &d), -EINVAL);
        f.cur.lruvecs = NULL;
        assert_int_equal(policy_decide(&in, &f.s, &s2, &d), -EINVAL);
        /* outputs untouched */
        assert_int_equal(d.reason, 77);
        assert_memory_equal(&s2, &f.s, sizeof(s2));

        /* no host sample at all is fine */
        f.cur.lruvecs = &f.v;
        in = (struct policy_input) { .policy = &f.p, .caps = &f.caps, .prev = &f.prev,
                                     .cur = &f.cur };
        assert_int_equal(policy_decide(&in, &f.s, &s2, &d), 0);
        assert_int_equal(d.reason, DECISION_EVICT_COLD);
}

static void test_reason_strings(void **unused) {
        for (int r = 0; r < _DECISION_REASON_MAX; r++)
                assert_non_null(decision_reason_to_string(r));
        assert_string_equal(decision_reason_to_string(DECISION_EVICT_COLD), "cold-generations");
        assert_string_equal(decision_reason_to_string(DECISION_NONE_HOST_PRESSURE),
                            "host-pressure");
        assert_null(decision_reason_to_string(_DECISION_REASON_MAX));
        assert_null(decision_reason_to_string(-1));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pressure),
                cmocka_unit_test(test_refault_burst),
                cmocka_unit_test(test_few_refaults_do_not_raise),
                cmocka_unit_test(test_refault_trickle),
                cmocka_unit_test(test_quiet_lowers_t),
                cmocka_unit_test(test_refault_floor),
                cmocka_unit_test(test_host_guard),
                cmocka_unit_test(test_counter_reset),
                cmocka_unit_test(test_prev_keys_suffice),
                cmocka_unit_test(test_clock_jump),
                cmocka_unit_test(test_backoff),
                cmocka_unit_test(test_stall),
                cmocka_unit_test(test_trigger_stall),
                cmocka_unit_test(test_modes),
                cmocka_unit_test(test_no_psi),
                cmocka_unit_test(test_einval),
                cmocka_unit_test(test_reason_strings),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
