/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The actuation path and the completions: a completion that is not the one the cgroup's state
 * waits for is dropped; a pressure stop during a job keeps the job's end as the last write;
 * actuator_report_only() stops the writes of jobs already queued or running; drop
 * jobs go before queued decisions. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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
#include <systemd/sd-event.h>

#include "core-fixture.h"
#include "mglrud/core/actuator.h"
#include "mglrud/core/control.h"
#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/time.h"

static struct decision reclaim_decision(uint64_t bytes) {
        struct decision d = { .n_reclaims = 1 };
        d.reclaims[0].bytes = bytes;
        d.reclaims[0].swappiness = -1;
        return d;
}

/* The memory.stat of the fixture's cgroup: 512 MiB of each type, nothing stolen yet. */
#define HALF_AND_HALF "anon 536870912\nfile 536870912\npgsteal_proactive 0\n"

/* A cgroup's state is waiting for its own job (in flight, token T) when a job of an earlier
 * incarnation of the cgroup (same id, another token) completes: that completion must not be
 * counted as the state's action; the state's own job then is. */
static void test_stale_completion_ignored(void **state) {
        struct core_fixture f;
        core_fixture_init(&f, POLICY_MODE_PRESSURE, HALF_AND_HALF); /* the TMO step */
        /* The first cycle only samples; the second reclaims a TMO step. */
        core_fixture_first_job(&f);
        struct actuator_job *own = captured;
        assert_true(actuator_job_result_const(own)->asked_bytes > 0);

        /* The stale job: same cgroup id, submitted for a previous incarnation. */
        struct decision d = reclaim_decision(4096);
        struct actuator_job *stale = actuator_job_new(f.cg->id, f.cg->path, f.dirfd, -1, 4096,
                                                      ACT_REPORT, &d);
        assert_non_null(stale);
        actuator_run_job(stale, NULL);
        actuator_job_tag(stale)->token = actuator_job_tag_const(own)->token + 1000;
        control_job_done(f.cg, stale, &f.report);

        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(f.cg, &snap), 0);
        assert_int_equal(snap.actions, 0);
        assert_int_equal(snap.errors, 0);

        /* Its own job is measured and counted: 8 KiB of anon left, two pages stolen. */
        write_at(f.dirfd, "memory.stat", "anon 536862720\nfile 536870912\npgsteal_proactive 2\n");
        control_job_done(f.cg, own, &f.report);
        assert_int_equal(control_cgroup_snapshot(f.cg, &snap), 0);
        assert_int_equal(snap.actions, 1);
        assert_int_equal(snap.reclaimed_bytes[LRUGEN_ANON], 8192);
        assert_int_equal(snap.reclaimed_bytes[LRUGEN_FILE], 0);

        core_fixture_done(&f);
}

/* A pressure trigger stops a cgroup while its reclaim job is in flight: the cgroup stops
 * counting as reclaiming (its trigger is disarmed until a decision submits again), the stop is
 * recorded, and the job's end, when its last chunk returns, is still the last reclaim write
 * (mglructl dump's "Last reclaim write", which the VM scenario compares with the stall). */
static void test_stall_during_job(void **state) {
        struct core_fixture f;
        core_fixture_init(&f, POLICY_MODE_PRESSURE, HALF_AND_HALF);
        const uint64_t grace = 20000000;
        assert_int_equal(control_cgroup_cycle(f.cg, &f.in, f.act), 0);
        assert_false(control_cgroup_reclaiming(f.cg, f.in.now_usec, grace));
        f.in.now_usec += 2000000;
        assert_int_equal(control_cgroup_cycle(f.cg, &f.in, f.act), 0);
        struct actuator_job *job = captured;
        captured = NULL;
        assert_non_null(job);
        assert_true(actuator_job_result_const(job)->asked_bytes > 0);
        assert_true(control_cgroup_reclaiming(f.cg, f.in.now_usec + 1, grace));

        /* The trigger fires 500 ms into the job. */
        uint64_t stop = f.in.now_usec + 500000;
        control_cgroup_note_stop(f.cg, &(struct control_stop) {
                .reason = CONTROL_STOP_PRESSURE, .now_usec = stop, .n_stopped = 1 });
        assert_false(control_cgroup_reclaiming(f.cg, stop, grace));
        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(f.cg, &snap), 0);
        assert_int_equal(snap.pressure_stops, 1);
        assert_int_equal(snap.stopped_jobs, 1);
        assert_int_equal(snap.first_stop_usec, stop);
        assert_int_equal(snap.last_write_usec, 0);

        /* Its chunk in flight returns 300 ms later: that is the last write. */
        write_at(f.dirfd, "memory.stat",
                 "anon 532676608\nfile 536870912\npgsteal_proactive 1024\n");
        actuator_job_result(job)->finished_usec = stop + 300000;
        control_job_done(f.cg, job, &f.report);
        assert_int_equal(control_cgroup_snapshot(f.cg, &snap), 0);
        assert_int_equal(snap.last_write_usec, stop + 300000);
        assert_int_equal(snap.actions, 1);
        assert_false(control_cgroup_reclaiming(f.cg, stop + 300000, grace));

        core_fixture_done(&f);
}

/* An actuator whose cgroup directory has a FIFO for memory.reclaim: the worker blocks in the
 * open of its first write until fifo_jobs_release() opens the reader, so that a test can act
 * while a job runs and others wait in the queue. */
struct fifo_jobs {
        char dir[64];
        int dirfd, rd;
        sd_event *e;
        struct actuator *a;
};

static void fifo_jobs_init(struct fifo_jobs *f, actuator_done_fn done, void *userdata) {
        snprintf(f->dir, sizeof f->dir, "/tmp/mglrud-test-fifo.XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        f->dirfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(f->dirfd >= 0);
        assert_int_equal(mkfifoat(f->dirfd, "memory.reclaim", 0600), 0);
        f->rd = -1;
        f->e = NULL;
        f->a = NULL;
        assert_int_equal(sd_event_new(&f->e), 0);
        assert_int_equal(actuator_new(f->e, done, userdata, &f->a), 0);
}

/* Queues a job of cgroup id with decision d. */
static void fifo_jobs_submit(struct fifo_jobs *f, uint64_t id, const struct decision *d) {
        struct actuator_job *j = actuator_job_new(id, "/t", f->dirfd, -1, 4096, ACT_WRITE, d);
        assert_non_null(j);
        assert_int_equal(actuator_submit(f->a, j), 0);
}

/* Waits until the worker is in its first write (blocked in the FIFO's open). */
static void fifo_jobs_wait_write(struct fifo_jobs *f) {
        for (int i = 0; i < 1000 && actuator_write_age_usec(f->a, now_monotonic_usec()) == 0; i++)
                usleep(1000);
        assert_true(actuator_write_age_usec(f->a, now_monotonic_usec()) > 0);
}

/* Opens the reader, which lets the writes through, and runs the loop until *n reaches want. */
static void fifo_jobs_release(struct fifo_jobs *f, const unsigned *n, unsigned want) {
        f->rd = openat(f->dirfd, "memory.reclaim", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        assert_true(f->rd >= 0);
        for (int i = 0; i < 100 && *n < want; i++)
                assert_true(sd_event_run(f->e, 100000) >= 0);
        assert_int_equal(*n, want);
}

/* Asserts that the kernel got, through memory.reclaim, one chunk of the first job (which asked
 * for more) and then the 4096-byte request of the next one. */
static void fifo_jobs_assert_chunk_then_small(struct fifo_jobs *f, uint64_t chunk) {
        char buf[128] = "", want[64];
        ssize_t n = read(f->rd, buf, sizeof buf - 1);
        assert_true(n > 0);
        buf[n] = 0;
        snprintf(want, sizeof want, "%llu4096", (unsigned long long) chunk);
        assert_string_equal(buf, want);
}

static void fifo_jobs_done(struct fifo_jobs *f) {
        actuator_free(f->a);
        sd_event_unref(f->e);
        if (f->rd >= 0)
                close(f->rd);
        assert_int_equal(unlinkat(f->dirfd, "memory.reclaim", 0), 0);
        close(f->dirfd);
        assert_int_equal(rmdir(f->dir), 0);
}

struct ids_ctx {
        unsigned n;
        uint64_t ids[8];
};

static void on_job_id(struct actuator_job *j, void *userdata) {
        struct ids_ctx *c = userdata;
        if (c->n < ELEMENTSOF(c->ids))
                c->ids[c->n] = actuator_job_cgroup_id(j);
        c->n++;
        actuator_job_free(j);
}

/* actuator_cancel() drops the queued jobs of a cgroup that is no longer managed; the other
 * cgroups' jobs run. The worker is held on the first job, whose memory.reclaim is a FIFO (its
 * open blocks until a reader comes), so that the others wait in the queue. */
static void test_actuator_cancel(void **state) {
        struct fifo_jobs f;
        struct ids_ctx c = {};
        fifo_jobs_init(&f, on_job_id, &c);
        struct decision d = reclaim_decision(4096);
        const uint64_t order[] = { 7, 1, 2, 1 }; /* 7 blocks the worker; 1 goes away */
        for (size_t i = 0; i < ELEMENTSOF(order); i++)
                fifo_jobs_submit(&f, order[i], &d);
        assert_int_equal(actuator_cancel(f.a, 1), 2);
        assert_int_equal(actuator_cancel(f.a, 1), 0);
        assert_int_equal(actuator_pending(f.a), 2);
        /* The last queued job was one of 1's: a job queued now goes after 2's. */
        fifo_jobs_submit(&f, 3, &d);
        assert_int_equal(actuator_pending(f.a), 3);

        /* A reader lets the write of job 7 through (and then the next jobs'). */
        fifo_jobs_release(&f, &c.n, 3);
        assert_int_equal(c.ids[0], 7);
        assert_int_equal(c.ids[1], 2);
        assert_int_equal(c.ids[2], 3);
        assert_int_equal(actuator_pending(f.a), 0);
        fifo_jobs_done(&f);
}

struct stop_ctx {
        unsigned n;
        uint64_t ids[8];
        bool cancelled[8];
        uint64_t asked[8];
};

static void on_job_stopped(struct actuator_job *j, void *userdata) {
        struct stop_ctx *c = userdata;
        if (c->n < ELEMENTSOF(c->ids)) {
                c->ids[c->n] = actuator_job_cgroup_id(j);
                c->cancelled[c->n] = actuator_job_result_const(j)->cancelled;
                c->asked[c->n] = actuator_job_result_const(j)->asked_bytes;
        }
        c->n++;
        actuator_job_free(j);
}

/* actuator_stop_cgroup() (a pressure trigger fired): the cgroup's queued job is handed back as
 * cancelled without writing, its running job ends after the chunk in flight (one 4 MiB chunk
 * of four), the other cgroup's job runs. The worker is held in the open of the first chunk
 * (memory.reclaim is a FIFO without a reader) while the stop comes. */
static void test_actuator_stop_cgroup(void **state) {
        struct fifo_jobs f;
        struct stop_ctx c = {};
        fifo_jobs_init(&f, on_job_stopped, &c);
        const uint64_t chunk = (uint64_t) ACTUATOR_CHUNK_PAGES * 4096;
        struct decision big = reclaim_decision(4 * chunk), small = reclaim_decision(4096);
        fifo_jobs_submit(&f, 1, &big);
        fifo_jobs_submit(&f, 1, &small);
        fifo_jobs_submit(&f, 2, &small);
        fifo_jobs_wait_write(&f);

        struct actuator_stopped st = actuator_stop_cgroup(f.a, 1);
        assert_int_equal(st.queued, 1);
        assert_true(st.running);
        st = actuator_stop_cgroup(f.a, 3); /* nothing of it */
        assert_int_equal(st.queued, 0);
        assert_false(st.running);

        fifo_jobs_release(&f, &c.n, 3);
        /* the queued job of 1 first (handed back at the stop), then the running one, then 2 */
        assert_int_equal(c.ids[0], 1);
        assert_true(c.cancelled[0]);
        assert_int_equal(c.asked[0], 0);
        assert_int_equal(c.ids[1], 1);
        assert_true(c.cancelled[1]);
        assert_int_equal(c.asked[1], chunk);
        assert_int_equal(c.ids[2], 2);
        assert_false(c.cancelled[2]);
        assert_int_equal(c.asked[2], 4096);
        assert_int_equal(actuator_pending(f.a), 0);

        /* What the kernel got: one chunk of job 1, then job 2's request. */
        fifo_jobs_assert_chunk_then_small(&f, chunk);
        fifo_jobs_done(&f);
}

/* actuator_cancel() on a cgroup whose job is running (it went away mid-job): the job ends
 * after the chunk in flight (one 4 MiB chunk of four), handed to done as cancelled; another
 * cgroup's queued job runs. The worker is held in the open of the first chunk. */
static void test_actuator_cancel_running(void **state) {
        struct fifo_jobs f;
        struct stop_ctx c = {};
        fifo_jobs_init(&f, on_job_stopped, &c);
        const uint64_t chunk = (uint64_t) ACTUATOR_CHUNK_PAGES * 4096;
        struct decision big = reclaim_decision(4 * chunk), small = reclaim_decision(4096);
        fifo_jobs_submit(&f, 1, &big);
        fifo_jobs_submit(&f, 2, &small);
        fifo_jobs_wait_write(&f);

        assert_int_equal(actuator_cancel(f.a, 1), 0); /* nothing queued: it runs */

        fifo_jobs_release(&f, &c.n, 2);
        assert_int_equal(c.ids[0], 1);
        assert_true(c.cancelled[0]);
        assert_int_equal(c.asked[0], chunk);
        assert_int_equal(c.ids[1], 2);
        assert_false(c.cancelled[1]);
        fifo_jobs_assert_chunk_then_small(&f, chunk);
        fifo_jobs_done(&f);
}

/* actuator_report_only() (a reload turned DryRun= on): the running job ends its writes after
 * the chunk in flight (one 4 MiB chunk of two), the queued job writes nothing; both are handed
 * to done, not cancelled, with only what was written counted as asked. The worker is held in
 * the open of the first chunk. */
static void test_actuator_report_only(void **state) {
        struct fifo_jobs f;
        struct stop_ctx c = {};
        fifo_jobs_init(&f, on_job_stopped, &c);
        const uint64_t chunk = (uint64_t) ACTUATOR_CHUNK_PAGES * 4096;
        struct decision big = reclaim_decision(2 * chunk), small = reclaim_decision(4096);
        fifo_jobs_submit(&f, 1, &big);
        fifo_jobs_submit(&f, 2, &small);
        fifo_jobs_wait_write(&f);

        actuator_report_only(f.a);

        fifo_jobs_release(&f, &c.n, 2);
        assert_int_equal(c.ids[0], 1);
        assert_false(c.cancelled[0]);
        assert_int_equal(c.asked[0], chunk);
        assert_int_equal(c.ids[1], 2);
        assert_false(c.cancelled[1]);
        assert_int_equal(c.asked[1], 0);
        /* What the kernel got: the chunk in flight, nothing after it. */
        char buf[128] = "", want[32];
        ssize_t n = read(f.rd, buf, sizeof buf - 1);
        assert_true(n > 0);
        buf[n] = 0;
        snprintf(want, sizeof want, "%llu", (unsigned long long) chunk);
        assert_string_equal(buf, want);
        fifo_jobs_done(&f);
}

static void on_alarm(int sig) {
        (void) sig;
}

/* memory.reclaim interrupted (EINTR; EAGAIN takes the same branch: "the kernel reclaimed less
 * than asked") is not a failure: the job ends without an error and the next cycle measures what
 * was done. The write is held in the open of a FIFO without a reader until SIGALRM (installed
 * without SA_RESTART) interrupts it. */
static void test_reclaim_interrupted(void **state) {
        (void) state;
        char dir[] = "/tmp/mglrud-test-eintr.XXXXXX";
        assert_non_null(mkdtemp(dir));
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dirfd >= 0);
        assert_int_equal(mkfifoat(dirfd, "memory.reclaim", 0600), 0);

        struct sigaction sa = { .sa_handler = on_alarm }, old;
        assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
        struct decision d = reclaim_decision(4096);
        struct actuator_job *j = actuator_job_new(3, "/t", dirfd, -1, 4096, ACT_WRITE, &d);
        assert_non_null(j);
        alarm(1);
        actuator_run_job(j, NULL);
        alarm(0);
        assert_int_equal(sigaction(SIGALRM, &old, NULL), 0);
        assert_int_equal(actuator_job_result_const(j)->failed, 0);
        assert_int_equal(actuator_job_result_const(j)->last_error, 0);
        assert_false(actuator_job_result_const(j)->vanished);
        actuator_job_free(j);

        assert_int_equal(unlinkat(dirfd, "memory.reclaim", 0), 0);
        close(dirfd);
        assert_int_equal(rmdir(dir), 0);
}

/* A cgroup's job record comes with its first job (control_acts_get()): dry-run cycles that
 * decide a TMO step every time leave the state's size as the first cycle made it and show no
 * counts; the first real job adds the record, and what it did is counted in it. */
static void test_job_record_with_first_job(void **state) {
        struct core_fixture f;
        core_fixture_init(&f, POLICY_MODE_PRESSURE, HALF_AND_HALF);
        f.in.dry_run = true;

        assert_int_equal(control_cgroup_state_bytes(f.cg), 0);
        assert_int_equal(control_cgroup_cycle(f.cg, &f.in, f.act), 0);
        size_t sampled = control_cgroup_state_bytes(f.cg);
        assert_true(sampled > 0);
        struct control_snapshot snap;
        for (int i = 0; i < 3; i++) {
                f.in.now_usec += 2000000;
                assert_int_equal(control_cgroup_cycle(f.cg, &f.in, f.act), 0);
                assert_null(captured);
                assert_int_equal(control_cgroup_snapshot(f.cg, &snap), 0);
                assert_string_equal(snap.reason, "tmo-step"); /* decided, not written */
                assert_int_equal(control_cgroup_state_bytes(f.cg), sampled);
        }
        assert_int_equal(snap.actions, 0);

        f.in.dry_run = false;
        f.in.now_usec += 2000000;
        assert_int_equal(control_cgroup_cycle(f.cg, &f.in, f.act), 0);
        assert_non_null(captured);
        assert_true(control_cgroup_state_bytes(f.cg) > sampled);
        struct actuator_job *j = captured;
        captured = NULL;
        actuator_run_job(j, NULL);
        write_at(f.dirfd, "memory.stat", "anon 536862720\nfile 536870912\npgsteal_proactive 2\n");
        control_job_done(f.cg, j, &f.report);
        assert_int_equal(control_cgroup_snapshot(f.cg, &snap), 0);
        assert_int_equal(snap.actions, 1);
        assert_int_equal(snap.reclaimed_bytes[LRUGEN_ANON], 8192);
        assert_int_equal(control_cgroup_reclaimed_bytes(f.cg), 8192);

        core_fixture_done(&f);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_stale_completion_ignored),
                cmocka_unit_test(test_job_record_with_first_job),
                cmocka_unit_test(test_stall_during_job),
                cmocka_unit_test(test_actuator_report_only),
                cmocka_unit_test(test_actuator_stop_cgroup),
                cmocka_unit_test(test_actuator_cancel_running),
                cmocka_unit_test(test_reclaim_interrupted),
                cmocka_unit_test(test_actuator_cancel),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
