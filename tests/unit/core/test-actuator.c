/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The actuation path's queue and writer thread: jobs run in order with drops ahead of queued
 * decisions; actuator_stop_cgroup() finishes a cgroup's queued decisions as cancelled before any
 * write, ends its running one after the chunk in flight and lets its drops go on;
 * actuator_cancel() frees its queued jobs without a completion; actuator_report_only() leaves
 * nothing more to write; actuator_free() drops what is queued. A gate in the actuator's check
 * holds the writer thread before the first chunk of the first job, so what is queued behind it
 * and what is done meanwhile are known. */
#include <pthread.h>
#include <time.h>

#include "actuator-fixture.h"

/* The gate: the check asked the second time (the first is before the job's first command,
 * the second before its first chunk) tells the test through entered and waits on release. */
struct gate {
        int entered[2], release[2];
        unsigned calls;
};

static bool gate_check(struct actuator_job *j, void *userdata) {
        struct gate *g = userdata;
        (void) j;
        if (__atomic_add_fetch(&g->calls, 1, __ATOMIC_SEQ_CST) != 2)
                return false;
        char c = 'x';
        assert_int_equal(write(g->entered[1], &c, 1), 1);
        assert_int_equal(read(g->release[0], &c, 1), 1);
        return false;
}

/* Sets up s with a writer thread whose check is gate g. */
static void gated_sink_init(struct sink *s, struct gate *g) {
        sink_init_with(s, true);
        *g = (struct gate) {};
        assert_int_equal(pipe2(g->entered, O_CLOEXEC), 0);
        assert_int_equal(pipe2(g->release, O_CLOEXEC), 0);
        actuator_set_check(s->a, &(struct actuator_check) { gate_check, g });
}

/* Submits job j with token; the first one submitted is held at the gate: returns once the writer
 * thread is there. */
static void submit(struct sink *s, struct gate *g, struct actuator_job *j, uint64_t token) {
        bool first = actuator_pending(s->a) == 0;
        actuator_job_tag(j)->token = token;
        assert_int_equal(actuator_submit(s->a, j), 0);
        if (first) {
                char c;
                assert_int_equal(read(g->entered[0], &c, 1), 1);
        }
}

static void gate_release(struct gate *g) {
        assert_int_equal(write(g->release[1], "x", 1), 1);
}

static void gated_sink_done(struct sink *s, struct gate *g) {
        sink_done(s);
        close(g->entered[0]), close(g->entered[1]);
        close(g->release[0]), close(g->release[1]);
}

/* Returns the finished job of s with token (it must be there). */
static const struct actuator_job *done_of(const struct sink *s, uint64_t token) {
        for (unsigned i = 0; i < s->n_done; i++)
                if (actuator_job_tag_const(s->done[i])->token == token)
                        return s->done[i];
        fail_msg("no finished job with token %llu", (unsigned long long) token);
        return NULL;
}

/* Returns a new drop job of cgroup id with one range of 8 pages of this test's own binary. */
static struct actuator_job *drop_job(uint64_t id) {
        struct actuator_job *j = actuator_drop_job_new(id, "/t", ACT_WRITE);
        assert_non_null(j);
        int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        struct actuator_drop range = { .offset = 0, .length = 8 * PAGE, .whole_file = true };
        assert_int_equal(actuator_drop_job_add(j, fd, "exe", &range), 0);
        return j;
}

static struct actuator_job *eviction_job(struct sink *s, uint64_t id, uint64_t pages) {
        struct decision d = eviction_of(id, pages, 0);
        return sink_job(s, id, ACT_WRITE, &d);
}

/* Submits cgroup 1's eviction of three chunks (token 1, held at the gate), then behind it cgroup
 * 1's eviction of 7 pages (2), cgroup 2's of 10 (3) and cgroup 1's drop (4, queued ahead of the
 * two decisions). */
static void queue_behind_running(struct sink *s, struct gate *g) {
        submit(s, g, eviction_job(s, 1, 3 * ACTUATOR_CHUNK_PAGES), 1);
        submit(s, g, eviction_job(s, 1, 7), 2);
        submit(s, g, eviction_job(s, 2, 10), 3);
        submit(s, g, drop_job(1), 4);
}

/* The writes of queue_behind_running() after its cgroup 1 was stopped: one chunk of the running
 * eviction, none of the queued one, all of cgroup 2's. */
#define STOPPED_CGROUP_1 "- 1 0 6 0 1024- 2 0 6 0 10"

static void test_jobs_run_in_order_drops_first(void **state) {
        struct sink s;
        struct gate g;
        char buf[256];
        gated_sink_init(&s, &g);
        submit(&s, &g, eviction_job(&s, 1, 10), 1);
        submit(&s, &g, eviction_job(&s, 2, 10), 2);
        submit(&s, &g, drop_job(3), 3);
        assert_int_equal(actuator_pending(s.a), 3);
        assert_int_equal(actuator_pending_drop_files(s.a), 1);
        gate_release(&g);
        sink_wait_done(&s, 3);
        /* The drop went before the decision queued ahead of it, not before the running one. */
        assert_int_equal(actuator_job_tag_const(s.done[0])->token, 1);
        assert_int_equal(actuator_job_tag_const(s.done[1])->token, 3);
        assert_int_equal(actuator_job_tag_const(s.done[2])->token, 2);
        assert_string_equal(drain(s.lrugen[0], buf, sizeof buf), "- 1 0 6 0 10- 2 0 6 0 10");
        assert_int_equal(actuator_job_drop(done_of(&s, 3), 0)->error, 0);
        assert_int_equal(actuator_pending(s.a), 0);
        assert_int_equal(actuator_pending_drop_files(s.a), 0);
        struct actuator_stats st = actuator_get_stats(s.a);
        assert_int_equal(st.jobs, 3);
        assert_int_equal(st.writes, 3);
        assert_int_equal(st.failed, 0);
        assert_int_equal(st.asked_bytes, 28 * PAGE);
        gated_sink_done(&s, &g);
}

/* A pressure stop of cgroup 1: its queued decision finishes cancelled unwritten, its running
 * eviction of three chunks ends after the first, its drop and cgroup 2's decision go on. */
static void test_stop_cgroup(void **state) {
        struct sink s;
        struct gate g;
        char buf[256];
        gated_sink_init(&s, &g);
        queue_behind_running(&s, &g);
        struct actuator_stopped st = actuator_stop_cgroup(s.a, 1);
        assert_int_equal(st.queued, 1);
        assert_true(st.running);
        assert_int_equal(actuator_pending(s.a), 4); /* until the loop hands them to done */
        gate_release(&g);
        sink_wait_done(&s, 4);
        assert_string_equal(drain(s.lrugen[0], buf, sizeof buf), STOPPED_CGROUP_1);
        const struct actuator_result *r = actuator_job_result_const(done_of(&s, 1));
        assert_true(r->cancelled);
        assert_int_equal(r->asked_bytes, ACTUATOR_CHUNK_PAGES * PAGE);
        r = actuator_job_result_const(done_of(&s, 2));
        assert_true(r->cancelled);
        assert_int_equal(r->asked_bytes, 0);
        assert_true(r->finished_usec > 0);
        assert_false(actuator_job_result_const(done_of(&s, 3))->cancelled);
        r = actuator_job_result_const(done_of(&s, 4));
        assert_false(r->cancelled);
        assert_int_equal(r->asked_bytes, 8 * PAGE);
        assert_int_equal(actuator_pending(s.a), 0);
        assert_int_equal(actuator_pending_drop_files(s.a), 0);
        gated_sink_done(&s, &g);
}

/* A cgroup no longer managed: its queued jobs, drops too, are freed without a completion, its
 * running one ends after the chunk in flight; another cgroup's job goes on. */
static void test_cancel(void **state) {
        struct sink s;
        struct gate g;
        char buf[256];
        gated_sink_init(&s, &g);
        queue_behind_running(&s, &g);
        assert_int_equal(actuator_cancel(s.a, 1), 2);
        assert_int_equal(actuator_pending(s.a), 2);
        assert_int_equal(actuator_pending_drop_files(s.a), 0);
        assert_int_equal(actuator_cancel(s.a, 1), 0); /* nothing more queued */
        gate_release(&g);
        sink_wait_done(&s, 2);
        assert_true(sd_event_run(s.e, 100000) >= 0); /* nothing else comes */
        assert_int_equal(s.n_done, 2);
        assert_string_equal(drain(s.lrugen[0], buf, sizeof buf), STOPPED_CGROUP_1);
        assert_true(actuator_job_result_const(done_of(&s, 1))->cancelled);
        assert_false(actuator_job_result_const(done_of(&s, 3))->cancelled);
        assert_int_equal(actuator_pending(s.a), 0);
        gated_sink_done(&s, &g);
}

/* DryRun= turned on by a reload: neither the rest of the running job nor a queued one writes. */
static void test_report_only(void **state) {
        struct sink s;
        struct gate g;
        char buf[256];
        gated_sink_init(&s, &g);
        submit(&s, &g, eviction_job(&s, 1, 3 * ACTUATOR_CHUNK_PAGES), 1);
        struct decision d = eviction_of(2, 10, 8192);
        submit(&s, &g, sink_job(&s, 2, ACT_WRITE, &d), 2);
        actuator_report_only(s.a);
        gate_release(&g);
        sink_wait_done(&s, 2);
        assert_string_equal(drain(s.lrugen[0], buf, sizeof buf), "");
        assert_string_equal(drain(s.reclaim_rd, buf, sizeof buf), "");
        for (unsigned i = 0; i < 2; i++) {
                assert_int_equal(actuator_job_mode(s.done[i]), ACT_REPORT);
                assert_int_equal(actuator_job_result_const(s.done[i])->asked_bytes, 0);
        }
        struct actuator_stats st = actuator_get_stats(s.a);
        assert_int_equal(st.jobs, 2);
        assert_int_equal(st.writes, 0);
        assert_int_equal(st.asked_bytes, 0);
        gated_sink_done(&s, &g);
}

static void *release_later(void *userdata) {
        nanosleep(&(struct timespec) { .tv_nsec = 200 * 1000 * 1000 }, NULL);
        gate_release(userdata);
        return NULL;
}

/* Shutdown: the queued job is freed unwritten and no completion is handed out; the running one
 * ends after its chunk in flight (its remaining chunks are not written). */
static void test_free_drops_queued(void **state) {
        struct sink s;
        struct gate g;
        char buf[256];
        gated_sink_init(&s, &g);
        submit(&s, &g, eviction_job(&s, 1, 3 * ACTUATOR_CHUNK_PAGES), 1);
        submit(&s, &g, eviction_job(&s, 2, 10), 2);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, release_later, &g), 0);
        actuator_free(s.a); /* waits for the gate, then for the chunk */
        s.a = NULL;
        assert_int_equal(pthread_join(t, NULL), 0);
        assert_int_equal(s.n_done, 0);
        drain(s.lrugen[0], buf, sizeof buf);
        assert_null(strstr(buf, "- 2 "));
        assert_true(strlen(buf) < strlen("- 1 0 6 0 1024") * 3);
        gated_sink_done(&s, &g);
}

/* Without an event loop the job runs in actuator_submit() and nothing is ever queued. */
static void test_inline(void **state) {
        struct sink s;
        char buf[256];
        sink_init(&s);
        assert_int_equal(actuator_submit(s.a, eviction_job(&s, 1, 10)), 0);
        assert_int_equal(s.n_done, 1);
        assert_string_equal(drain(s.lrugen[0], buf, sizeof buf), "- 1 0 6 0 10");
        assert_int_equal(actuator_pending(s.a), 0);
        assert_int_equal(actuator_cancel(s.a, 1), 0);
        assert_int_equal(actuator_stop_cgroup(s.a, 1).queued, 0);
        assert_int_equal(actuator_write_age_usec(s.a, 1000), 0);
        sink_done(&s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_jobs_run_in_order_drops_first),
                cmocka_unit_test(test_stop_cgroup),
                cmocka_unit_test(test_cancel),
                cmocka_unit_test(test_report_only),
                cmocka_unit_test(test_free_drops_queued),
                cmocka_unit_test(test_inline),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
