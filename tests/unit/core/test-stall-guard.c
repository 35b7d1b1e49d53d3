/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stall guard's check in the actuation path (docs/design.md, "Stall guard"): between two
 * chunks the worker reads the job's cgroup's reclaim time from an injected source and ends the
 * job once it grew past the job's limit since the job began; the completion says so. A cycle
 * gives reclaim jobs the limit only with the guard loaded, and a guard stop is counted apart
 * from the PSI triggers' stops. */
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

#include "core-fixture.h"
#include "mglrud/core/actuator.h"
#include "mglrud/core/control.h"
#include "mglrud/core/pressure-trigger.h"
#include "mglrud/shared/macro.h"

#include "brake-fixture.h"

#define CHUNK ((uint64_t) ACTUATOR_CHUNK_PAGES * 4096)
#define LIMIT_NS (UINT64_C(50) * 1000 * 1000)

/* A cgroup's reclaim time as the BPF map would give it: read n returns ns[n] (the last value
 * once past the end), or error. */
struct fake_stall {
        uint64_t cgroup_id;     /* the only cgroup it answers for */
        const uint64_t *ns;
        size_t n_ns;
        int error;
        unsigned reads;
};

static int fake_read(uint64_t cgroup_id, uint64_t *ret_ns, void *userdata) {
        struct fake_stall *f = userdata;
        assert_int_equal(cgroup_id, f->cgroup_id);
        unsigned i = f->reads++;
        if (f->error)
                return f->error;
        *ret_ns = f->ns[MIN((size_t) i, f->n_ns - 1)];
        return 0;
}

static struct actuator_job *done_job;

static void on_done(struct actuator_job *j, void *userdata) {
        assert_null(done_job);
        done_job = j;
}

/* Runs a job of 8 chunks of memory.reclaim (a plain file in dir) with limit, against f,
 * through an inline actuator. Returns the finished job. */
static struct actuator_job *run_guarded(const char *dir, struct fake_stall *f, uint64_t limit) {
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dirfd >= 0);
        int fd = openat(dirfd, "memory.reclaim", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);

        struct actuator *a;
        assert_int_equal(actuator_new(NULL, on_done, NULL, &a), 0);
        struct brakes *brakes = brakes_with_source(a, "stall-guard", fake_read, f);
        struct decision d = { .n_reclaims = 1 };
        d.reclaims[0].bytes = 8 * CHUNK;
        d.reclaims[0].swappiness = -1;
        struct actuator_job *j = actuator_job_new(f->cgroup_id, "/t", dirfd, -1, 4096, ACT_WRITE, &d);
        assert_non_null(j);
        actuator_job_set_limits(j, &(struct actuator_limits) { .stall_limit_ns = limit });
        done_job = NULL;
        assert_int_equal(actuator_submit(a, j), 0);
        assert_non_null(done_job);
        actuator_free(a);
        brakes_free(brakes);
        close(dirfd);
        return TAKE_PTR(done_job);
}

/* A burst in the cgroup during the second chunk (its tasks stall 60 ms in reclaim, past the
 * 50 ms limit): the check before the third chunk ends the job, two chunks written of eight. */
static void test_burst_stops_within_one_chunk(void **state) {
        char dir[] = "/tmp/mglrud-test-guard.XXXXXX";
        assert_non_null(mkdtemp(dir));
        /* reads: the job's start (base), before chunks 1, 2, 3 */
        const uint64_t ns[] = { 7000000, 7000000, 9000000, 67000001 };
        struct fake_stall f = { .cgroup_id = 42, .ns = ns, .n_ns = ELEMENTSOF(ns) };
        struct actuator_job *j = run_guarded(dir, &f, LIMIT_NS);
        assert_int_equal(actuator_job_result_const(j)->brake, brake_number("stall-guard"));
        assert_true(actuator_job_result_const(j)->cancelled);
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 2 * CHUNK);
        assert_int_equal(reading_of(j, "stall-guard")->seen, 60000001);
        assert_int_equal(f.reads, 4);
        actuator_job_free(j);

        /* At the limit is not past it: the job runs to its end. */
        const uint64_t at[] = { 0, LIMIT_NS };
        f = (struct fake_stall) { .cgroup_id = 42, .ns = at, .n_ns = ELEMENTSOF(at) };
        j = run_guarded(dir, &f, LIMIT_NS);
        assert_int_equal(actuator_job_result_const(j)->brake, 0);
        assert_false(actuator_job_result_const(j)->cancelled);
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 8 * CHUNK);
        assert_int_equal(reading_of(j, "stall-guard")->seen, LIMIT_NS);
        actuator_job_free(j);

        assert_int_equal(rm_tree(dir), 0);
}

/* No limit (no guard for this job), or a source that cannot be read: every chunk is written. */
static void test_no_limit_or_unreadable(void **state) {
        char dir[] = "/tmp/mglrud-test-guard.XXXXXX";
        assert_non_null(mkdtemp(dir));
        const uint64_t ns[] = { 0, UINT64_C(1) << 40 };
        struct fake_stall f = { .cgroup_id = 7, .ns = ns, .n_ns = ELEMENTSOF(ns) };
        struct actuator_job *j = run_guarded(dir, &f, 0);
        assert_int_equal(actuator_job_result_const(j)->brake, 0);
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 8 * CHUNK);
        assert_int_equal(f.reads, 0);
        actuator_job_free(j);

        f = (struct fake_stall) { .cgroup_id = 7, .ns = ns, .n_ns = ELEMENTSOF(ns),
                                  .error = -EBADF };
        j = run_guarded(dir, &f, LIMIT_NS);
        assert_int_equal(actuator_job_result_const(j)->brake, 0);
        assert_false(actuator_job_result_const(j)->cancelled);
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 8 * CHUNK);
        assert_true(f.reads > 1);
        actuator_job_free(j);

        assert_int_equal(rm_tree(dir), 0);
}

/* A cycle's reclaim job carries the limit the PSI trigger would use within its window when the
 * guard is loaded (none without); a guard stop counts as a guard stop, not a pressure stop, and
 * raises T like one. */
static void test_cycle_limit_and_guard_stop(void **state) {
        struct core_fixture f;
        core_fixture_init(&f, POLICY_MODE_PRESSURE,
                          "anon 536870912\nfile 536870912\npgsteal_proactive 0\n");
        f.in.stall_guard = true;
        core_fixture_first_job(&f);
        uint64_t want = policy_trigger_stall_usec(f.cg->policy->pressure_target,
                                                  f.in.interval_usec,
                                                  PRESSURE_TRIGGER_WINDOW_USEC) * 1000;
        assert_true(want > 0);
        assert_int_equal(actuator_job_limits(captured).stall_limit_ns, want);

        control_cgroup_note_stop(f.cg, &(struct control_stop) {
                .reason = CONTROL_STOP_RECLAIM_STALL, .now_usec = f.in.now_usec, .n_stopped = 1,
                .stall_ns = want + 1 });
        control_job_done(f.cg, TAKE_PTR(captured), &f.report);
        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(f.cg, &snap), 0);
        assert_int_equal(snap.guard_stops, 1);
        assert_int_equal(snap.pressure_stops, 0);
        assert_int_equal(snap.stopped_jobs, 1);
        assert_int_equal(snap.guard_last_stall_ns, want + 1);
        assert_int_equal(snap.last_stop_usec, f.in.now_usec);
        assert_int_equal(snap.guard_last_stop_usec, f.in.now_usec);

        /* Without the guard, no limit. */
        f.in.stall_guard = false;
        f.in.now_usec += 20000000;
        write_at(f.dirfd, "memory.stat", "anon 536870912\nfile 536870912\npgsteal_proactive 0\n");
        for (int i = 0; i < 10 && !captured; i++) {
                assert_int_equal(control_cgroup_cycle(f.cg, &f.in, f.act), 0);
                f.in.now_usec += 10000000;
        }
        assert_non_null(captured);
        assert_int_equal(actuator_job_limits(captured).stall_limit_ns, 0);
        actuator_job_free(TAKE_PTR(captured));

        core_fixture_done(&f);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_burst_stops_within_one_chunk),
                cmocka_unit_test(test_no_limit_or_unreadable),
                cmocka_unit_test(test_cycle_limit_and_guard_stop),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
