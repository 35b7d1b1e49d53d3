/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The controller state of one cgroup under random sequences of cycles, job completions (its
 * own, run or not, and stale ones of an earlier incarnation), stops by every brake, and pauses,
 * in Mode=pressure (memory.reclaim jobs) and Mode=active (lru_gen jobs, whose writes fail:
 * there is no lru_gen file), checked after every step against a model of what it must show:
 *
 * - T stays within [MinColdAge, MaxColdAge] once the first cycle set it;
 * - no two jobs carry the same token, and no job is submitted while one is in flight;
 * - every counter only grows; the stops and the jobs stopped are the ones noted, by reason;
 *   actions never exceed the own jobs completed; a stale completion changes nothing;
 * - the state's bytes change only in a cycle (the policy state's size) or when the job record
 *   comes with the first job or stop, and then they grow;
 * - the cgroup counts as reclaiming while its reclaim job runs unstopped, and not after a stop.
 *
 * The seed is fixed, printed, and taken from MGLRUD_TEST_SEED when set, so that a failure is
 * replayed with the same sequence. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core-fixture.h"
#include "mglrud/core/actuator.h"
#include "mglrud/core/control.h"
#include "mglrud/kernel/lrugen.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"

#define SEC UINT64_C(1000000)
#define STEPS 1500

/* nrand48()'s generator is the one POSIX specifies: the same sequence on every libc. */
static unsigned short rng_state[3];

static uint64_t rng(void) {
        return (uint64_t) nrand48(rng_state) << 31 ^ (uint64_t) nrand48(rng_state);
}

/* Returns a number in [lo, hi]. */
static uint64_t rng_between(uint64_t lo, uint64_t hi) {
        return lo + rng() % (hi - lo + 1);
}

/* What the cgroup's files say: counters that only grow, amounts that move. */
struct workload {
        uint64_t anon, file, steal, refault_file, pgsteal;
};

/* What the controller state must show (the model), and the run around it. */
struct run {
        struct core_fixture f;
        struct lrugen l;
        struct workload w;
        uint64_t seq;                   /* the lru_gen histogram's oldest generation */
        struct actuator_job *in_flight; /* the cgroup's own job, captured and not completed */
        bool in_flight_reclaims;        /* ... and it was a reclaim (counts as reclaiming) */
        bool stopped;                   /* a stop came since the last job was submitted */
        uint64_t last_token;
        bool has_state;                 /* a cycle or a pause made the state */
        bool cycled;                    /* ... and a cycle its policy state */
        bool has_record;                /* a job or a stop made its job record */
        unsigned jobs;                  /* own jobs submitted */
        unsigned own_done;              /* ... and completed */
        uint64_t stops[3], stopped_jobs;
        bool had_record;                /* ... before this step */
        size_t bytes;                   /* the state's bytes after the last step */
        struct control_snapshot last;
        uint64_t t_min, t_max;          /* the Ts seen */
};

/* Writes the workload's memory.stat. */
static void write_stat(struct run *r) {
        char text[512];
        snprintf(text, sizeof text,
                 "anon %" PRIu64 "\nfile %" PRIu64 "\nactive_file %" PRIu64 "\ninactive_file %"
                 PRIu64 "\nworkingset_refault_file %" PRIu64 "\npgsteal %" PRIu64
                 "\npgsteal_proactive %" PRIu64 "\n",
                 r->w.anon, r->w.file, r->w.file / 2, r->w.file - r->w.file / 2,
                 r->w.refault_file, r->w.pgsteal, r->w.steal);
        write_at(r->f.dirfd, "memory.stat", text);
}

/* The workload moves on: memory comes and goes, some of it refaults, reclaim steals some. */
static void workload_step(struct run *r) {
        r->w.anon = rng_between(64, 1024) << 20;
        r->w.file = rng_between(64, 1024) << 20;
        r->w.refault_file += rng() % 4 ? rng_between(0, 64) : rng_between(0, 200000);
        uint64_t stolen = rng_between(0, 4096);
        r->w.pgsteal += stolen;
        r->w.steal += rng() % 2 ? stolen : 0;
        write_stat(r);
}

/* A histogram of four generations for Mode=active, aged now and then, with idle ages of
 * seconds to hours. */
static void histogram_step(struct run *r) {
        char text[512];
        if (rng() % 3 == 0)
                r->seq++;
        uint64_t age[4];
        age[3] = rng_between(100, 10000);
        for (int i = 2; i >= 0; i--)
                age[i] = age[i + 1] + rng_between(1000, 3600000);
        snprintf(text, sizeof text,
                 "memcg %" PRIu64 " /cg\n node 0\n"
                 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n"
                 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n"
                 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n"
                 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                 r->f.cg->id,
                 r->seq, age[0], rng_between(0, 50000), rng_between(0, 50000),
                 r->seq + 1, age[1], rng_between(0, 50000), rng_between(0, 50000),
                 r->seq + 2, age[2], rng_between(0, 50000), rng_between(0, 50000),
                 r->seq + 3, age[3], rng_between(0, 50000), rng_between(0, 50000));
        lrugen_done(&r->l);
        r->l = (struct lrugen) {};
        assert_int_equal(lrugen_parse(text, strlen(text), &r->l), 0);
}

static void run_init(struct run *r, enum policy_mode mode) {
        *r = (struct run) { .seq = 10 };
        core_fixture_init(&r->f, mode, "anon 0\nfile 0\n");
        r->w = (struct workload) { .anon = 512 << 20, .file = 512 << 20 };
        write_stat(r);
        if (mode == POLICY_MODE_ACTIVE) {
                r->f.caps.lrugen_write = true;
                r->f.caps.has_swap = true;
                histogram_step(r);
                r->f.in.lrugen = &r->l;
        }
        r->f.in.stall_guard = true;
        r->f.in.refault_guard = true;
}

static void run_done(struct run *r) {
        if (r->in_flight)
                actuator_job_free(r->in_flight);
        lrugen_done(&r->l);
        core_fixture_done(&r->f);
}

/* Runs a cycle some time after the last one, with the workload moved on. */
static void step_cycle(struct run *r) {
        r->f.in.now_usec += rng_between(SEC / 2, 20 * SEC);
        r->f.in.dry_run = rng() % 8 == 0;
        workload_step(r);
        if (r->f.in.lrugen)
                histogram_step(r);
        assert_int_equal(control_cgroup_cycle(r->f.cg, &r->f.in, r->f.act), 0);
        r->cycled = r->has_state = true;
        if (!captured)
                return;
        /* A job is submitted only when none is in flight, with a token never seen. */
        assert_null(r->in_flight);
        uint64_t token = actuator_job_tag_const(captured)->token;
        assert_true(token > r->last_token);
        r->last_token = token;
        const struct decision_summary *d = actuator_job_decision(captured);
        r->in_flight_reclaims = actuator_job_mode(captured) == ACT_WRITE &&
                                d->planned_bytes[LRUGEN_ANON] + d->planned_bytes[LRUGEN_FILE] > 0;
        r->in_flight = TAKE_PTR(captured);
        r->stopped = false;
        r->has_record = true;
        r->jobs++;
}

/* Completes the job in flight, after running it or not (a cancelled job writes nothing). */
static void step_complete(struct run *r) {
        if (!r->in_flight)
                return;
        struct actuator_job *j = TAKE_PTR(r->in_flight);
        if (rng() % 2)
                actuator_run_job(j, NULL);
        actuator_job_result(j)->finished_usec = r->f.in.now_usec + rng_between(0, SEC);
        workload_step(r);
        control_job_done(r->f.cg, j, &r->f.report);
        r->own_done++;
}

/* Completes a job of an earlier incarnation of the cgroup: same id, a token it never had. */
static void step_stale(struct run *r) {
        struct decision d = { .n_reclaims = 1 };
        d.reclaims[0].bytes = 4096;
        d.reclaims[0].swappiness = -1;
        struct actuator_job *j = actuator_job_new(r->f.cg->id, r->f.cg->path, r->f.dirfd, -1,
                                                  4096, ACT_WRITE, &d);
        assert_non_null(j);
        actuator_run_job(j, NULL);
        actuator_job_tag(j)->token = r->last_token + 1 + rng() % 1000;
        struct control_snapshot before, after;
        assert_int_equal(control_cgroup_snapshot(r->f.cg, &before), 0);
        control_job_done(r->f.cg, j, &r->f.report);
        assert_int_equal(control_cgroup_snapshot(r->f.cg, &after), 0);
        assert_int_equal(after.actions, before.actions);
        assert_int_equal(after.errors, before.errors);
        assert_int_equal(after.reclaimed_bytes[LRUGEN_ANON], before.reclaimed_bytes[LRUGEN_ANON]);
        assert_int_equal(after.reclaimed_bytes[LRUGEN_FILE], before.reclaimed_bytes[LRUGEN_FILE]);
        assert_int_equal(after.last_write_usec, before.last_write_usec);
}

/* A brake stops the cgroup's reclaim, for a random reason. */
static void step_stop(struct run *r) {
        r->f.in.now_usec += rng_between(0, SEC / 2); /* the next cycle comes after it */
        struct control_stop stop = {
                .reason = (enum control_stop_reason) (rng() % 3),
                .now_usec = r->f.in.now_usec,
                .n_stopped = (unsigned) (rng() % 3),
                .stall_ns = rng_between(1, 1000000000),
                .refault_pages = rng_between(1, 100000),
                .refault_limit_pages = rng_between(1, 100000),
        };
        uint64_t t = control_cgroup_note_stop(r->f.cg, &stop);
        const struct policy *p = r->f.cg->policy;
        if (!r->has_state) {
                assert_int_equal(t, 0); /* no state: nothing to count */
                return;
        }
        r->has_record = true;
        if (p->mode == POLICY_MODE_ACTIVE && r->cycled) {
                assert_true(t >= p->min_cold_age_usec);
                assert_true(t <= p->max_cold_age_usec);
        } else
                assert_int_equal(t, 0); /* Mode=pressure has no T to report, nor a state
                                         * without a policy state yet */
        r->stops[stop.reason]++;
        r->stopped_jobs += stop.n_stopped;
        r->stopped = true;
        struct control_snapshot s;
        assert_int_equal(control_cgroup_snapshot(r->f.cg, &s), 0);
        if (stop.reason == CONTROL_STOP_RECLAIM_STALL) {
                assert_int_equal(s.guard_last_stall_ns, stop.stall_ns);
                assert_int_equal(s.guard_last_stop_usec, stop.now_usec);
        } else if (stop.reason == CONTROL_STOP_REFAULT_BURST) {
                assert_int_equal(s.refault_guard_last_pages, stop.refault_pages);
                assert_int_equal(s.refault_guard_last_limit, stop.refault_limit_pages);
                assert_int_equal(s.refault_guard_last_stop_usec, stop.now_usec);
        }
        assert_int_equal(s.last_stop_usec, stop.now_usec);
}

/* Checks the invariants against the model and the snapshot before this step (cycle says
 * whether it was a cycle). */
static void check(struct run *r, bool cycle) {
        struct control_snapshot s;
        const struct policy *p = r->f.cg->policy;
        assert_int_equal(control_cgroup_snapshot(r->f.cg, &s), 0);
        if (r->cycled) {
                assert_true(s.cold_age_usec >= p->min_cold_age_usec);
                assert_true(s.cold_age_usec <= p->max_cold_age_usec);
                r->t_min = r->t_min ? MIN(r->t_min, s.cold_age_usec) : s.cold_age_usec;
                r->t_max = MAX(r->t_max, s.cold_age_usec);
        }
        /* Counters only grow. */
        const struct control_snapshot *b = &r->last;
        assert_true(s.actions >= b->actions);
        assert_true(s.errors >= b->errors);
        assert_true(s.refault_guard_jobs >= b->refault_guard_jobs);
        assert_true(s.reclaimed_bytes[LRUGEN_ANON] >= b->reclaimed_bytes[LRUGEN_ANON]);
        assert_true(s.reclaimed_bytes[LRUGEN_FILE] >= b->reclaimed_bytes[LRUGEN_FILE]);
        assert_true(s.last_stop_usec >= b->last_stop_usec);
        if (b->first_stop_usec)
                assert_int_equal(s.first_stop_usec, b->first_stop_usec);
        /* The stops are the ones noted, each under its reason. */
        assert_int_equal(s.pressure_stops, r->stops[CONTROL_STOP_PRESSURE]);
        assert_int_equal(s.guard_stops, r->stops[CONTROL_STOP_RECLAIM_STALL]);
        assert_int_equal(s.refault_guard_stops, r->stops[CONTROL_STOP_REFAULT_BURST]);
        assert_int_equal(s.stopped_jobs, r->stopped_jobs);
        assert_true(s.actions <= r->own_done);
        /* Reclaiming while its reclaim job runs unstopped; not after a stop until the next. */
        uint64_t now = r->f.in.now_usec;
        if (r->in_flight && r->in_flight_reclaims && !r->stopped)
                assert_true(control_cgroup_reclaiming(r->f.cg, now, 0));
        if (r->stopped)
                assert_false(control_cgroup_reclaiming(r->f.cg, now + SEC, 0));
        /* The state's bytes: none before the state (a cycle's or a pause's), then changed only
         * by a cycle (the first one's policy state, its lruvec slots) or when the job record
         * comes. */
        size_t bytes = control_cgroup_state_bytes(r->f.cg);
        if (!r->has_state)
                assert_int_equal(bytes, 0);
        else
                assert_true(bytes > 0);
        if (!cycle && r->bytes && r->has_record == r->had_record)
                assert_int_equal(bytes, r->bytes);
        if (r->has_record && !r->had_record && r->bytes)
                assert_true(bytes > r->bytes);
        r->bytes = bytes;
        r->had_record = r->has_record;
        r->last = s;
}

static void run_random(enum policy_mode mode) {
        struct run r;
        run_init(&r, mode);
        for (unsigned i = 0; i < STEPS; i++) {
                uint64_t what = rng() % 16;
                if (what < 7)
                        step_cycle(&r);
                else if (what < 11)
                        step_complete(&r);
                else if (what < 13)
                        step_stop(&r);
                else if (what < 14)
                        step_stale(&r);
                else {
                        assert_int_equal(control_cgroup_set_paused(r.f.cg, rng() % 4 == 0), 0);
                        r.has_state = true;
                }
                check(&r, what < 7);
        }
        printf("%s: %u jobs, %u completed, %" PRIu64 " actions, %" PRIu64 " errors, stops %"
               PRIu64 "/%" PRIu64 "/%" PRIu64 ", T %" PRIu64 "..%" PRIu64 " s\n",
               policy_mode_to_string(mode), r.jobs, r.own_done, (uint64_t) r.last.actions,
               (uint64_t) r.last.errors,
               r.stops[0], r.stops[1], r.stops[2], r.t_min / SEC, r.t_max / SEC);
        /* The sequence did reach what it is about. */
        assert_true(r.jobs > 0);
        assert_true(r.own_done > 0);
        assert_true(r.stops[0] + r.stops[1] + r.stops[2] > 0);
        run_done(&r);
}

static void test_random_pressure(void **state) {
        (void) state;
        run_random(POLICY_MODE_PRESSURE);
}

static void test_random_active(void **state) {
        (void) state;
        run_random(POLICY_MODE_ACTIVE);
}

int main(void) {
        const char *env = getenv("MGLRUD_TEST_SEED");
        uint64_t seed = env ? strtoull(env, NULL, 0) : UINT64_C(0x6d676c727564);
        printf("seed %" PRIu64 " (MGLRUD_TEST_SEED=%" PRIu64 " replays it)\n", seed, seed);
        rng_state[0] = (unsigned short) seed;
        rng_state[1] = (unsigned short) (seed >> 16);
        rng_state[2] = (unsigned short) (seed >> 32);
        /* Mode=active's writes fail by design (no lru_gen file): a warning each. */
        log_set_max_level(LOG_ERR);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_random_pressure),
                cmocka_unit_test(test_random_active),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
