/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running a job (actuator-run.c) and making one (actuator-job.c): evictions and memory.reclaim
 * requests are written in chunks of at most ACTUATOR_CHUNK_PAGES; the check, asked before every
 * command and chunk, and shutdown's flag end a job between chunks; a failed write is counted and
 * the job's other writes go on; a vanished cgroup ends the job without a failure; a failed drop
 * leaves the other ranges to be dropped; and the counts say how many writes a job issues. */
#include "actuator-fixture.h"

#include <stdlib.h>

#define MIB (UINT64_C(1) << 20)

/* Returns what fd holds now (a regular file), in buf. */
static const char *file_text(int dirfd, const char *name, char *buf, size_t size) {
        int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        ssize_t n = read(fd, buf, size - 1);
        assert_true(n >= 0);
        buf[n] = 0;
        close(fd);
        return buf;
}

static void test_eviction_in_chunks(void **state) {
        struct sink s;
        char buf[256];
        sink_init(&s);
        struct decision d = eviction_of(5, 2 * ACTUATOR_CHUNK_PAGES + 452, 0);
        assert_int_equal(actuator_submit(s.a, sink_job(&s, 5, ACT_WRITE, &d)), 0);
        assert_string_equal(drain(s.lrugen[0], buf, sizeof buf),
                            "- 5 0 6 0 1024- 5 0 6 0 1024- 5 0 6 0 452");
        const struct actuator_result *r = actuator_job_result_const(s.done[0]);
        assert_int_equal(r->asked_bytes, (2 * ACTUATOR_CHUNK_PAGES + 452) * PAGE);
        assert_int_equal(r->failed, 0);
        assert_false(r->cancelled);
        assert_true(r->finished_usec > 0);
        assert_int_equal(actuator_get_stats(s.a).writes, 3);
        sink_done(&s);
}

/* 10 MiB with 4 MiB chunks: 4 + 4 + 2, each with the request's swappiness. */
static void test_reclaim_in_chunks(void **state) {
        struct sink s;
        char buf[256];
        sink_init(&s);
        struct decision d = { .n_reclaims = 1 };
        d.reclaims[0] = (struct reclaim_req) { .bytes = 10 * MIB, .swappiness = 201 };
        assert_int_equal(actuator_submit(s.a, sink_job(&s, 5, ACT_WRITE, &d)), 0);
        assert_string_equal(drain(s.reclaim_rd, buf, sizeof buf),
                            "4194304 swappiness=max4194304 swappiness=max2097152 swappiness=max");
        assert_int_equal(actuator_job_result_const(s.done[0])->asked_bytes, 10 * MIB);
        assert_int_equal(actuator_get_stats(s.a).writes, 3);
        sink_done(&s);
}

/* A check that ends the job when asked for the n-th time. */
struct stop_at {
        unsigned calls, n;
};

static bool stop_at_check(struct actuator_job *j, void *userdata) {
        struct stop_at *st = userdata;
        (void) j;
        return ++st->calls >= st->n;
}

/* The brake says stop before the second chunk: one chunk was written, nothing after it (not the
 * rest of the eviction, not the ageing command, not memory.reclaim), and the job is cancelled. */
static void test_check_ends_job_between_chunks(void **state) {
        struct sink s;
        char buf[256];
        sink_init(&s);
        struct stop_at st = { .n = 3 }; /* before the command, before chunk 1, before chunk 2 */
        actuator_set_check(s.a, &(struct actuator_check) { stop_at_check, &st });
        struct decision d = eviction_of(5, 3 * ACTUATOR_CHUNK_PAGES, 8192);
        d.cmds[d.n_cmds++] = (struct lrugen_cmd) { .op = '+', .memcg_id = 5, .seq = 7,
                                                   .swappiness = -1 };
        assert_int_equal(actuator_submit(s.a, sink_job(&s, 5, ACT_WRITE, &d)), 0);
        assert_string_equal(drain(s.lrugen[0], buf, sizeof buf), "- 5 0 6 0 1024");
        assert_string_equal(drain(s.reclaim_rd, buf, sizeof buf), "");
        const struct actuator_result *r = actuator_job_result_const(s.done[0]);
        assert_true(r->cancelled);
        assert_int_equal(r->asked_bytes, ACTUATOR_CHUNK_PAGES * PAGE);
        assert_int_equal(st.calls, 3); /* not asked again once it said stop */
        sink_done(&s);
}

/* Shutdown's flag, set before the job runs: nothing is written, and the check is not asked. */
static void test_shutdown_flag(void **state) {
        struct sink s;
        char buf[256];
        sink_init(&s);
        struct decision d = eviction_of(5, 10, 8192);
        struct actuator_job *j = sink_job(&s, 5, ACT_WRITE, &d);
        bool stop = true;
        actuator_run_job(j, &stop);
        assert_string_equal(drain(s.lrugen[0], buf, sizeof buf), "");
        assert_string_equal(drain(s.reclaim_rd, buf, sizeof buf), "");
        assert_true(actuator_job_result_const(j)->cancelled);
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 0);
        actuator_job_free(j);
        sink_done(&s);
}

/* lru_gen not open: the eviction fails and is counted, memory.reclaim is still written. */
static void test_failed_write_counted(void **state) {
        struct sink s;
        char buf[256];
        sink_init(&s);
        struct decision d = eviction_of(5, 10, 8192);
        struct actuator_job *j = actuator_job_new(5, "/t", s.dirfd, -1, PAGE, ACT_WRITE, &d);
        assert_non_null(j);
        assert_int_equal(actuator_submit(s.a, j), 0);
        assert_string_equal(drain(s.reclaim_rd, buf, sizeof buf), "8192");
        const struct actuator_result *r = actuator_job_result_const(s.done[0]);
        assert_int_equal(r->failed, 1);
        assert_int_equal(r->last_error, -EBADF);
        assert_false(r->vanished);
        assert_int_equal(actuator_get_stats(s.a).failed, 1);
        sink_done(&s);
}

/* A cgroup whose memory.reclaim is gone: vanished, not a failure, and its second request is not
 * tried. */
static void test_vanished_cgroup(void **state) {
        struct sink s;
        sink_init(&s);
        char dir[] = "/tmp/mglrud-test-actuator-run.XXXXXX";
        assert_non_null(mkdtemp(dir));
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dirfd >= 0);
        struct decision d = { .n_reclaims = 2 };
        d.reclaims[0] = d.reclaims[1] = (struct reclaim_req) { .bytes = 8192, .swappiness = -1 };
        struct actuator_job *j = actuator_job_new(5, "/t", dirfd, -1, PAGE, ACT_WRITE, &d);
        assert_non_null(j);
        assert_int_equal(actuator_submit(s.a, j), 0);
        const struct actuator_result *r = actuator_job_result_const(s.done[0]);
        assert_true(r->vanished);
        assert_int_equal(r->failed, 0);
        assert_int_equal(r->asked_bytes, 8192);
        close(dirfd);
        assert_int_equal(rmdir(dir), 0);
        sink_done(&s);
}

/* A regular memory.reclaim file: the request is what it holds afterwards. */
static void test_reclaim_to_plain_file(void **state) {
        char dir[] = "/tmp/mglrud-test-actuator-run.XXXXXX", buf[64];
        assert_non_null(mkdtemp(dir));
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dirfd >= 0);
        int fd = openat(dirfd, "memory.reclaim", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
        struct decision d = { .n_reclaims = 1 };
        d.reclaims[0] = (struct reclaim_req) { .bytes = 12288, .swappiness = 0 };
        struct actuator_job *j = actuator_job_new(5, "/t", dirfd, -1, PAGE, ACT_WRITE, &d);
        assert_non_null(j);
        actuator_run_job(j, NULL);
        assert_string_equal(file_text(dirfd, "memory.reclaim", buf, sizeof buf),
                            "12288 swappiness=0");
        assert_int_equal(actuator_job_result_const(j)->failed, 0);
        actuator_job_free(j);
        assert_int_equal(unlinkat(dirfd, "memory.reclaim", 0), 0);
        close(dirfd);
        assert_int_equal(rmdir(dir), 0);
}

/* Returns a drop job in mode with two ranges: a pipe (which cannot be dropped) and this test's
 * binary. */
static struct actuator_job *two_drops(enum act_mode mode) {
        struct actuator_job *j = actuator_drop_job_new(7, "/t", mode);
        assert_non_null(j);
        int p[2];
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        close(p[1]);
        struct actuator_drop range = { .offset = 0, .length = 4 * PAGE };
        assert_int_equal(actuator_drop_job_add(j, p[0], "pipe", &range), 0);
        int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        range.length = 2 * PAGE;
        assert_int_equal(actuator_drop_job_add(j, fd, "exe", &range), 0);
        return j;
}

static void test_failed_drop_others_go_on(void **state) {
        struct actuator_job *j = two_drops(ACT_WRITE);
        actuator_run_job(j, NULL);
        assert_int_equal(actuator_job_n_drops(j), 2);
        assert_int_equal(actuator_job_drop(j, 0)->error, -ESPIPE);
        assert_int_equal(actuator_job_drop(j, 1)->error, 0);
        const struct actuator_result *r = actuator_job_result_const(j);
        assert_int_equal(r->failed, 1);
        assert_int_equal(r->last_error, -ESPIPE);
        assert_int_equal(r->asked_bytes, 6 * PAGE);
        actuator_job_free(j);

        j = two_drops(ACT_REPORT); /* a report: not even the pipe is tried */
        actuator_run_job(j, NULL);
        assert_int_equal(actuator_job_drop(j, 0)->error, 0);
        assert_int_equal(actuator_job_result_const(j)->failed, 0);
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 0);
        actuator_job_free(j);
}

/* The counts: an eviction of three chunks, an ageing command and 10 MiB of memory.reclaim are
 * seven writes when the job writes, one when it only ages. */
static void test_counted_writes(void **state) {
        struct sink s;
        char buf[512];
        sink_init(&s);
        struct decision d = eviction_of(5, 2 * ACTUATOR_CHUNK_PAGES + 1, 10 * MIB);
        d.cmds[d.n_cmds++] = (struct lrugen_cmd) { .op = '+', .memcg_id = 5, .seq = 7,
                                                   .swappiness = -1 };
        assert_int_equal(actuator_submit(s.a, sink_job(&s, 5, ACT_WRITE, &d)), 0);
        assert_int_equal(actuator_get_stats(s.a).writes, 7);
        assert_int_equal(actuator_submit(s.a, sink_job(&s, 5, ACT_AGE_ONLY, &d)), 0);
        assert_int_equal(actuator_get_stats(s.a).writes, 8);
        assert_int_equal(actuator_get_stats(s.a).jobs, 2);
        drain(s.lrugen[0], buf, sizeof buf);
        assert_string_equal(buf, "- 5 0 6 0 1024- 5 0 6 0 1024- 5 0 6 0 1+ 5 0 7+ 5 0 7");
        sink_done(&s);
}

/* A job holds what it was decided with, in its mode, and its limits; it needs a directory. */
static void test_job_new(void **state) {
        struct sink s;
        sink_init(&s);
        struct decision d = eviction_of(5, 10, 8192);
        d.reason = DECISION_NONE_BACKOFF;
        assert_null(actuator_job_new(5, "/t", -1, -1, PAGE, ACT_WRITE, &d)); /* no directory */
        struct actuator_job *j = sink_job(&s, 5, ACT_AGE_ONLY, &d);
        assert_int_equal(actuator_job_kind(j), ACTUATOR_JOB_DECISION);
        assert_int_equal(actuator_job_cgroup_id(j), 5);
        assert_int_equal(actuator_job_page_size(j), PAGE);
        const struct decision_summary *sum = actuator_job_decision(j);
        assert_int_equal(sum->act, ACT_AGE_ONLY);
        assert_int_equal(sum->reason, DECISION_NONE_BACKOFF);
        assert_int_equal(sum->n_reclaims, 1);
        assert_int_equal(sum->reclaims[0].bytes, 8192);
        struct actuator_limits l = { .stall_limit_ns = 5, .refault_share = 0.5 };
        actuator_job_set_limits(j, &l);
        assert_int_equal(actuator_job_limits(j).stall_limit_ns, 5);
        actuator_job_free(j);
        sink_done(&s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_eviction_in_chunks),
                cmocka_unit_test(test_reclaim_in_chunks),
                cmocka_unit_test(test_check_ends_job_between_chunks),
                cmocka_unit_test(test_shutdown_flag),
                cmocka_unit_test(test_failed_write_counted),
                cmocka_unit_test(test_vanished_cgroup),
                cmocka_unit_test(test_reclaim_to_plain_file),
                cmocka_unit_test(test_failed_drop_others_go_on),
                cmocka_unit_test(test_counted_writes),
                cmocka_unit_test(test_job_new),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
