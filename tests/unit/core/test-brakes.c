/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The table of brakes (brakes.h, docs/design.md, "Brakes"): the brakes are asked in table order
 * between two chunks of decision jobs only, the first that ends a job is the one its result
 * names, and a stop of any of them goes the one way: control records it by its reason, the
 * brake counts it, and the daemon-wide counters read it from the table. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "mglrud/core/actuator.h"
#include "mglrud/core/brakes.h"
#include "mglrud/core/control.h"
#include "mglrud/shared/macro.h"

#include "brake-fixture.h"
#include "core-fixture.h"

#define CHUNK ((uint64_t) ACTUATOR_CHUNK_PAGES * 4096)

/* A reading that grows by step at every read, counted. */
struct growing {
        uint64_t value, step;
        unsigned reads;
};

static int growing_read(uint64_t cgroup_id, uint64_t *ret, void *userdata) {
        struct growing *g = userdata;
        g->reads++;
        *ret = g->value;
        g->value += g->step;
        return 0;
}

static struct actuator_job *finished;

static void keep_finished(struct actuator_job *j, void *userdata) {
        assert_null(finished);
        finished = j;
}

/* Runs a decision job of 8 chunks of memory.reclaim in dirfd for cgroup id with limits through
 * inline actuator a. Returns the finished job. */
static struct actuator_job *run_job(struct actuator *a, uint64_t id, int dirfd,
                                    const struct actuator_limits *limits) {
        struct decision d = { .n_reclaims = 1 };
        d.reclaims[0].bytes = 8 * CHUNK;
        d.reclaims[0].swappiness = 0;
        struct actuator_job *j = actuator_job_new(id, "/cg", dirfd, -1, 4096, ACT_WRITE, &d);
        assert_non_null(j);
        actuator_job_set_limits(j, limits);
        assert_int_equal(actuator_submit(a, j), 0);
        return TAKE_PTR(finished);
}

/* Both guards would end the job at the same check: the stall guard, first in the table, does,
 * and the refault guard is not asked then. A drop job is asked nothing, even with limits. */
static void test_table_order_and_drops(void **state) {
        struct core_fixture f;
        core_fixture_init(&f, POLICY_MODE_PRESSURE, "anon 0\nfile 1073741824\n");
        struct cgroup *cg = f.cg;
        int dirfd = f.dirfd;
        int cgfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(cgfd >= 0);

        struct actuator *a;
        assert_int_equal(actuator_new(NULL, keep_finished, NULL, &a), 0);
        struct growing stall = { .step = UINT64_C(1) << 30 }, refaults = { .step = 1 << 20 };
        struct brakes *t = brakes_with_source(a, "stall-guard", growing_read, &stall);
        brakes_find(t, "refault-guard")->source = (struct brake_source) { growing_read, &refaults };

        struct actuator_job *j = run_job(a, cg->id, cgfd, &(struct actuator_limits) {
                .stall_limit_ns = 1000, .refault_share = 0.25 });
        assert_int_equal(actuator_job_result_const(j)->brake, brake_number("stall-guard"));
        assert_true(actuator_job_result_const(j)->cancelled);
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 0); /* the second check */
        assert_int_equal(stall.reads, 2);
        assert_int_equal(refaults.reads, 1); /* its base, at the first check */
        actuator_job_free(j);

        struct actuator_job *drop = actuator_drop_job_new(cg->id, "/cg", ACT_WRITE);
        assert_non_null(drop);
        int fd = openat(dirfd, "memory.stat", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(actuator_drop_job_add(drop, fd, "memory.stat", &(struct actuator_drop) {
                .length = 4096 }), 0);
        actuator_job_set_limits(drop, &(struct actuator_limits) { .stall_limit_ns = 1000 });
        assert_int_equal(actuator_submit(a, drop), 0);
        assert_int_equal(actuator_job_result_const(finished)->brake, 0);
        assert_int_equal(stall.reads, 2);
        actuator_job_free(TAKE_PTR(finished));

        actuator_free(a);
        brakes_free(t);
        close(cgfd);
        core_fixture_done(&f);
}

/* A stop of each guard goes through the one path: control records it by its reason with what
 * the guard saw, and the table counts it under the guard's daemon-wide counter only. */
static void test_one_stop_path(void **state) {
        struct core_fixture f;
        core_fixture_init(&f, POLICY_MODE_PRESSURE,
                          "anon 0\nfile 1073741824\npgsteal_proactive 0\n");
        struct cgroup *cg = f.cg;
        int dirfd = f.dirfd;
        struct cycle_input in = f.in;
        struct report_sink report = {};

        /* Two cycles give the cgroup its job record (what control keeps the stops in). */
        core_fixture_first_job(&f);
        in = f.in;

        struct actuator *a;
        assert_int_equal(actuator_new(NULL, keep_finished, NULL, &a), 0);
        struct growing stall = { .step = 5000 }, refaults = { .step = 1 << 20 };
        struct brakes *t = brakes_with_source(a, "stall-guard", growing_read, &stall);
        brakes_find(t, "refault-guard")->source = (struct brake_source) { growing_read, &refaults };
        int cgfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(cgfd >= 0);

        struct actuator_job *j = run_job(a, cg->id, cgfd,
                                         &(struct actuator_limits) { .stall_limit_ns = 1000 });
        assert_int_equal(reading_of(j, "stall-guard")->seen, 5000);
        brakes_job_done(t, cg, j, in.now_usec);
        brakes_job_done(t, NULL, j, in.now_usec); /* its cgroup gone: nothing to stop */
        actuator_job_free(j);
        assert_int_equal(brakes_counter(t, DAEMON_COUNTER_stall_guard_stops), 1);
        assert_int_equal(brakes_counter(t, DAEMON_COUNTER_refault_guard_stops), 0);
        assert_int_equal(brakes_counter(t, DAEMON_COUNTER_pressure_stops), 0);

        j = run_job(a, cg->id, cgfd, &(struct actuator_limits) { .refault_share = 0.25 });
        assert_int_equal(actuator_job_result_const(j)->brake, brake_number("refault-guard"));
        brakes_job_done(t, cg, j, in.now_usec + 1);
        actuator_job_free(j);
        assert_int_equal(brakes_counter(t, DAEMON_COUNTER_stall_guard_stops), 1);
        assert_int_equal(brakes_counter(t, DAEMON_COUNTER_refault_guard_stops), 1);

        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(cg, &snap), 0);
        assert_int_equal(snap.guard_stops, 1);
        assert_int_equal(snap.guard_last_stall_ns, 5000);
        assert_int_equal(snap.guard_last_stop_usec, in.now_usec);
        assert_int_equal(snap.refault_guard_stops, 1);
        assert_int_equal(snap.refault_guard_last_pages, 1 << 20);
        assert_int_equal(snap.refault_guard_last_stop_usec, in.now_usec + 1);
        assert_int_equal(snap.pressure_stops, 0);
        assert_int_equal(snap.stopped_jobs, 2);
        control_job_done(cg, TAKE_PTR(captured), &report);

        actuator_free(a);
        close(cgfd);
        brakes_free(t);
        core_fixture_done(&f);
}

/* The status flags and what jobs get: a guard watches (its limit goes to jobs) with its source
 * and its setting; the stall guard's flag says loaded, the refault guard's watching. */
static void test_status_and_watching(void **state) {
        struct brakes *t;
        assert_int_equal(brakes_new(&t), 0);
        struct brake *stall = brakes_find(t, "stall-guard"), *refault = brakes_find(t, "refault-guard");
        assert_non_null(stall);
        assert_non_null(refault);
        assert_non_null(brakes_find(t, "pressure-trigger"));
        assert_null(brakes_find(t, "no-such-brake"));
        assert_false(brakes_watching(t, "stall-guard"));
        assert_int_equal(brakes_counter(t, DAEMON_COUNTER_stall_guard), 0);

        stall->source = refault->source = (struct brake_source) { growing_read, NULL };
        assert_int_equal(brakes_counter(t, DAEMON_COUNTER_stall_guard), 1);
        assert_int_equal(brakes_counter(t, DAEMON_COUNTER_refault_guard), 0);
        assert_false(brakes_watching(t, "stall-guard"));
        assert_false(brakes_watching(t, "refault-guard"));
        stall->enabled = refault->enabled = true;
        assert_true(brakes_watching(t, "stall-guard"));
        assert_true(brakes_watching(t, "refault-guard"));
        assert_int_equal(brakes_counter(t, DAEMON_COUNTER_refault_guard), 1);
        assert_int_equal(brakes_counter(t, DAEMON_COUNTER_cycles), 0); /* no brake's */
        assert_null(brakes_reclaim_stall(t)); /* a fake source, no BPF program */
        stall->source = refault->source = (struct brake_source) {};
        brakes_free(t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table_order_and_drops),
                cmocka_unit_test(test_one_stop_path),
                cmocka_unit_test(test_status_and_watching),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
