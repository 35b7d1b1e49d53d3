/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The refault guard's check in the actuation path (docs/design.md, "Stall guard"): between two
 * chunks the worker reads the job's cgroup's own refault count (pages of evicted page cache
 * read again) from an injected source and ends the job once more pages came back since it began
 * than its share of the pages it asked to reclaim so far; the completion says so. A cycle gives
 * jobs that reclaim file pages the share only with the guard on, and a refault stop is counted
 * apart from the stall guard's and the PSI triggers'. */
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
#include "mglrud/shared/macro.h"

#include "brake-fixture.h"

#define CHUNK ((uint64_t) ACTUATOR_CHUNK_PAGES * 4096)

/* A cgroup's own refault count as the BPF map would give it: read n returns pages[n] (the last
 * value once past the end), or error. */
struct fake_refaults {
        uint64_t cgroup_id;     /* the only cgroup it answers for */
        const uint64_t *pages;
        size_t n_pages;
        int error;
        unsigned reads;
};

static int fake_read(uint64_t cgroup_id, uint64_t *ret_pages, void *userdata) {
        struct fake_refaults *f = userdata;
        assert_int_equal(cgroup_id, f->cgroup_id);
        unsigned i = f->reads++;
        if (f->error)
                return f->error;
        *ret_pages = f->pages[MIN((size_t) i, f->n_pages - 1)];
        return 0;
}

static struct actuator_job *done_job;

static void on_done(struct actuator_job *j, void *userdata) {
        assert_null(done_job);
        done_job = j;
}

/* Runs a job of 8 chunks of memory.reclaim (a plain file in a new directory) with share,
 * against f, through an inline actuator. Returns the finished job. */
static struct actuator_job *run_guarded(struct fake_refaults *f, double share) {
        char dir[] = "/tmp/mglrud-test-refault-guard.XXXXXX";
        assert_non_null(mkdtemp(dir));
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dirfd >= 0);
        int fd = openat(dirfd, "memory.reclaim", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);

        struct actuator *a;
        assert_int_equal(actuator_new(NULL, on_done, NULL, &a), 0);
        struct brakes *brakes = brakes_with_source(a, "refault-guard", fake_read, f);
        struct decision d = { .n_reclaims = 1 };
        d.reclaims[0].bytes = 8 * CHUNK;
        d.reclaims[0].swappiness = 0;
        struct actuator_job *j = actuator_job_new(f->cgroup_id, "/t", dirfd, -1, 4096, ACT_WRITE, &d);
        assert_non_null(j);
        actuator_job_set_limits(j, &(struct actuator_limits) { .refault_share = share });
        done_job = NULL;
        assert_int_equal(actuator_submit(a, j), 0);
        assert_non_null(done_job);
        actuator_free(a);
        brakes_free(brakes);
        assert_int_equal(unlinkat(dirfd, "memory.reclaim", 0), 0);
        close(dirfd);
        assert_int_equal(rmdir(dir), 0);
        return TAKE_PTR(done_job);
}

/* The pages the first chunk evicted come back during the second: the check before the third
 * chunk (2048 pages asked, a quarter is 512) sees 600 and ends the job, two chunks written of
 * eight; the stall guard's fields stay untouched. */
static void test_burst_stops_within_one_chunk(void **state) {
        /* reads: the job's start (base), before chunks 1, 2 and 3 */
        const uint64_t pages[] = { 1000, 1000, 1010, 1600 };
        struct fake_refaults f = { .cgroup_id = 42, .pages = pages, .n_pages = ELEMENTSOF(pages) };
        struct actuator_job *j = run_guarded(&f, 0.25);
        assert_int_equal(actuator_job_result_const(j)->brake, brake_number("refault-guard"));
        assert_true(actuator_job_result_const(j)->cancelled);
        assert_true(actuator_job_result_const(j)->brake != brake_number("stall-guard"));
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 2 * CHUNK);
        assert_int_equal(reading_of(j, "refault-guard")->seen, 600);
        assert_int_equal(reading_of(j, "refault-guard")->limit, 512);
        assert_int_equal(f.reads, 4);
        actuator_job_free(j);
}

/* A count that goes backwards (its map entry recycled) is the job's new base: the burst is
 * measured from there, and the job ends at the check before the third chunk, not the second. */
static void test_count_backwards_rebases(void **state) {
        const uint64_t pages[] = { 1000, 1000, 10, 700 };
        struct fake_refaults f = { .cgroup_id = 42, .pages = pages, .n_pages = ELEMENTSOF(pages) };
        struct actuator_job *j = run_guarded(&f, 0.25);
        assert_int_equal(actuator_job_result_const(j)->brake, brake_number("refault-guard"));
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 2 * CHUNK);
        assert_int_equal(reading_of(j, "refault-guard")->seen, 690);
        actuator_job_free(j);
}

/* Pages come back, but never more than the share of what was asked by then (at the limit is
 * not past it): the job runs to its end. */
static void test_under_limit_goes_on(void **state) {
        /* base, before chunk 1, then 256 more per chunk asked: exactly a quarter of 1024 pages
         * a chunk */
        const uint64_t pages[] = { 5, 5, 5 + 256, 5 + 512, 5 + 768, 5 + 1024, 5 + 1280, 5 + 1536,
                                   5 + 1792 };
        struct fake_refaults f = { .cgroup_id = 9, .pages = pages, .n_pages = ELEMENTSOF(pages) };
        struct actuator_job *j = run_guarded(&f, 0.25);
        assert_int_equal(actuator_job_result_const(j)->brake, 0);
        assert_false(actuator_job_result_const(j)->cancelled);
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 8 * CHUNK);
        assert_int_equal(reading_of(j, "refault-guard")->seen, 1792);
        assert_int_equal(reading_of(j, "refault-guard")->limit, 1792);
        assert_int_equal(f.reads, 9);
        actuator_job_free(j);

        /* No share (a job that reclaims no file pages): never read. */
        const uint64_t burst[] = { 0, UINT64_C(1) << 40 };
        f = (struct fake_refaults) { .cgroup_id = 9, .pages = burst, .n_pages = ELEMENTSOF(burst) };
        j = run_guarded(&f, 0);
        assert_int_equal(actuator_job_result_const(j)->brake, 0);
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 8 * CHUNK);
        assert_int_equal(f.reads, 0);
        actuator_job_free(j);
}

/* A source that cannot be read skips the check: every chunk is written. */
static void test_read_error_skips(void **state) {
        const uint64_t pages[] = { 0, UINT64_C(1) << 40 };
        struct fake_refaults f = { .cgroup_id = 7, .pages = pages, .n_pages = ELEMENTSOF(pages),
                                   .error = -EBADF };
        struct actuator_job *j = run_guarded(&f, 0.25);
        assert_int_equal(actuator_job_result_const(j)->brake, 0);
        assert_false(actuator_job_result_const(j)->cancelled);
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 8 * CHUNK);
        assert_true(f.reads > 1);
        actuator_job_free(j);
}

/* The share: a quarter of the file part of the plan; none without file pages. */
static void test_share(void **state) {
        struct decision d = {};
        d.planned_bytes[LRUGEN_FILE] = 300 << 20;
        d.planned_bytes[LRUGEN_ANON] = 100 << 20;
        assert_true(control_refault_guard_share(&d) > 0.1874 &&
                    control_refault_guard_share(&d) < 0.1876);
        d.planned_bytes[LRUGEN_FILE] = 0;
        assert_true(control_refault_guard_share(&d) == 0);
}

/* A cycle's reclaim job that plans file pages carries the share when the refault guard is on
 * (none without); a refault stop counts as one, neither as a stall-guard nor a pressure stop,
 * and raises T like them. */
static void test_cycle_share_and_stop(void **state) {
        struct core_fixture f;
        core_fixture_init(&f, POLICY_MODE_PRESSURE,
                          "anon 0\nfile 1073741824\npgsteal_proactive 0\n");
        f.in.refault_guard = true;
        core_fixture_first_job(&f);
        assert_true(actuator_job_decision(captured)->planned_bytes[LRUGEN_FILE] > 0);
        struct decision d = {};
        memcpy(d.planned_bytes, actuator_job_decision(captured)->planned_bytes, sizeof d.planned_bytes);
        assert_true(actuator_job_limits(captured).refault_share > 0);
        assert_true(actuator_job_limits(captured).refault_share == control_refault_guard_share(&d));
        assert_int_equal(actuator_job_limits(captured).stall_limit_ns, 0);

        control_cgroup_note_stop(f.cg, &(struct control_stop) {
                .reason = CONTROL_STOP_REFAULT_BURST, .now_usec = f.in.now_usec, .n_stopped = 1,
                .refault_pages = 600, .refault_limit_pages = 512 });
        control_job_done(f.cg, TAKE_PTR(captured), &f.report);
        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(f.cg, &snap), 0);
        assert_int_equal(snap.refault_guard_stops, 1);
        assert_int_equal(snap.refault_guard_jobs, 1);
        assert_int_equal(snap.guard_stops, 0);
        assert_int_equal(snap.pressure_stops, 0);
        assert_int_equal(snap.stopped_jobs, 1);
        assert_int_equal(snap.refault_guard_last_pages, 600);
        assert_int_equal(snap.refault_guard_last_limit, 512);
        assert_int_equal(snap.refault_guard_last_stop_usec, f.in.now_usec);

        /* Without the guard, no share. */
        f.in.refault_guard = false;
        f.in.now_usec += 20000000;
        for (int i = 0; i < 10 && !captured; i++) {
                assert_int_equal(control_cgroup_cycle(f.cg, &f.in, f.act), 0);
                f.in.now_usec += 10000000;
        }
        assert_non_null(captured);
        assert_true(actuator_job_decision(captured)->planned_bytes[LRUGEN_FILE] > 0);
        assert_true(actuator_job_limits(captured).refault_share == 0);
        actuator_job_free(TAKE_PTR(captured));
        assert_int_equal(control_cgroup_snapshot(f.cg, &snap), 0);
        assert_int_equal(snap.refault_guard_jobs, 1); /* the guard did not watch that one */

        core_fixture_done(&f);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_burst_stops_within_one_chunk),
                cmocka_unit_test(test_count_backwards_rebases),
                cmocka_unit_test(test_under_limit_goes_on),
                cmocka_unit_test(test_read_error_skips),
                cmocka_unit_test(test_share),
                cmocka_unit_test(test_cycle_share_and_stop),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
