/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stream protection's fast path (stream-fast.c), on the core fixture's cgroup and a second one
 * beside it: which cgroup ids the BPF program is told to watch (crossings) and to track
 * (insertions), the list of cgroups run again soon, crossings of cgroups the fast path does not
 * act on left out of the table, turning it off, and the latency of finished drops in their
 * buckets. Drops themselves are test-stream-drops.c's, test-stream-protection.c's and
 * test-stream-fast-drops.c's. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "mglrud/shared/time.h"
#include "stream-fixture.h"

struct subject {
        struct stream_fixture t;
        struct cgroup *other;           /* "/other", beside "/cg", with its own policy */
};

static int subject_new(void **state) {
        struct subject *t = calloc(1, sizeof *t);
        assert_non_null(t);
        stream_fixture_init(&t->t);
        int root = open(t->t.f.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(root >= 0);
        assert_int_equal(mkdirat(root, "other", 0755), 0);
        int fd = openat(root, "other", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(fd >= 0);
        write_at(fd, "memory.stat", "anon 0\nfile 0\n");
        write_at(fd, "memory.current", "1073741824\n");
        struct stat st;
        assert_int_equal(fstat(fd, &st), 0);
        close(fd);
        close(root);
        assert_int_equal(cgroup_new(t->t.f.dir, "/other", st.st_ino, CGROUP_KEEP_ALL, &t->other), 0);
        test_give_policy(t->other);
        *state = t;
        return 0;
}

static int subject_free(void **state) {
        struct subject *t = *state;
        control_cgroup_free(t->other);
        cgroup_free(t->other);
        stream_fixture_done(&t->t);
        free(t);
        return 0;
}

#define SUBJECT_TEST(f) cmocka_unit_test_setup_teardown(f, subject_new, subject_free)

static void test_retry_list_sorted(void **state) {
        struct subject *t = *state;
        const uint64_t ids[] = { 50, 10, 30, 20, 40 };
        for (size_t i = 0; i < 5; i++)
                assert_int_equal(streams_retry_add(t->t.s, ids[i]), 0);
        assert_int_equal(t->t.s->n_retry, 5);
        for (size_t i = 0; i < 5; i++)
                assert_int_equal(t->t.s->retry_ids[i], (i + 1) * 10);
        /* Off: nothing waits for a retry. */
        streams_set_fast_path(t->t.s, false);
        assert_int_equal(t->t.s->n_retry, 0);
}

static void test_watched_and_tracked(void **state) {
        struct subject *t = *state;
        struct cgroup *cg = t->t.f.cg, *list[2] = { cg, t->other };
        cg->covered_ids = calloc(1, sizeof *cg->covered_ids);
        assert_non_null(cg->covered_ids);
        cg->covered_ids[0] = 4242;
        cg->n_covered = 1;
        test_policy_of(t->other)->stream_protection = STREAM_PROTECTION_NO;

        /* The protected cgroup and what it covers; the other one neither. */
        streams_watch_update(t->t.s, &t->t.f.in, list, 2);
        streams_track_update(t->t.s, &t->t.f.in, list, 2);
        struct streams_stats st = streams_get_stats(t->t.s);
        assert_int_equal(st.watched, 2);
        assert_int_equal(st.tracked, 2);

        /* Paused: its crossings are not acted on, its insertions still counted (history). */
        assert_int_equal(control_cgroup_set_paused(cg, true), 0);
        streams_watch_update(t->t.s, &t->t.f.in, list, 2);
        streams_track_update(t->t.s, &t->t.f.in, list, 2);
        st = streams_get_stats(t->t.s);
        assert_int_equal(st.watched, 0);
        assert_int_equal(st.tracked, 2);
        assert_int_equal(control_cgroup_set_paused(cg, false), 0);

        /* RefaultCheck= (or the refault guard) wants every cgroup's own refault count. */
        t->t.f.in.refault_check = true;
        streams_track_update(t->t.s, &t->t.f.in, list, 2);
        assert_int_equal(streams_get_stats(t->t.s).tracked, 3);
        t->t.f.in.refault_check = false;
        t->t.f.in.refault_guard = true;
        streams_track_update(t->t.s, &t->t.f.in, list, 2);
        assert_int_equal(streams_get_stats(t->t.s).tracked, 3);
        t->t.f.in.refault_guard = false;
        test_policy_of(cg)->mode = POLICY_MODE_OFF;
        streams_track_update(t->t.s, &t->t.f.in, list, 2);
        assert_int_equal(streams_get_stats(t->t.s).tracked, 0);
        test_policy_of(cg)->mode = POLICY_MODE_ACTIVE;

        /* The fast path off: none watched, whatever the cgroups. */
        streams_watch_update(t->t.s, &t->t.f.in, list, 2);
        assert_int_equal(streams_get_stats(t->t.s).watched, 2);
        streams_set_fast_path(t->t.s, false);
        assert_int_equal(streams_get_stats(t->t.s).watched, 0);
        streams_watch_update(t->t.s, &t->t.f.in, list, 2);
        assert_int_equal(streams_get_stats(t->t.s).watched, 0);
        assert_false(streams_get_stats(t->t.s).fast_path);
}

/* A crossing of file ino of cgroup id, read to 8M of a 4 GiB file (nothing to drop yet). */
static void feed_crossing(struct streams *s, uint64_t id, uint64_t ino, uint64_t at_usec) {
        struct streams_key k;
        struct streams_val v;
        stream_fixture_file(id, ino, 8 * MiB, &k, &v);
        v.last_ns = at_usec * 1000;
        assert_int_equal(streams_feed_events(s, &k, &v, 1), 0);
}

static void test_crossings_of_others_left_out(void **state) {
        struct subject *t = *state;
        struct cgroup *cg = t->t.f.cg, *list[2] = { cg, t->other };
        test_policy_of(t->other)->stream_protection = STREAM_PROTECTION_NO;

        /* Crossings of the protected cgroup, of the unprotected one and of one not managed. */
        feed_crossing(t->t.s, cg->id, 1, 500000);
        feed_crossing(t->t.s, t->other->id, 2, 500000);
        feed_crossing(t->t.s, 999999, 3, 500000);
        assert_int_equal(streams_fast(t->t.s, &t->t.f.in, list, 2, t->t.f.act), 0);
        assert_null(captured);
        assert_int_equal(t->t.s->n_files, 1);
        assert_int_equal(t->t.s->files[0].key.cgroup_id, cg->id);
        assert_int_equal(t->t.s->files[0].pending_usec, 0); /* nothing to drop: not pending */
        struct streams_stats st = streams_get_stats(t->t.s);
        assert_int_equal(st.fast_runs, 1);
        assert_int_equal(st.crossings, 3);
        /* The batch was emptied: the next run has nothing. */
        assert_int_equal(streams_fast(t->t.s, &t->t.f.in, list, 2, t->t.f.act), 0);
        assert_int_equal(streams_get_stats(t->t.s).crossings, 3);

        /* Off: the run does nothing, not even count itself; the crossings wait no more. */
        feed_crossing(t->t.s, cg->id, 4, 600000);
        streams_set_fast_path(t->t.s, false);
        assert_int_equal(streams_fast(t->t.s, &t->t.f.in, list, 2, t->t.f.act), 0);
        assert_int_equal(streams_get_stats(t->t.s).fast_runs, 2);
        assert_int_equal(streams_event_fd(t->t.s), -1);
        streams_set_fast_path(t->t.s, true);
        assert_int_equal(streams_fast(t->t.s, &t->t.f.in, list, 2, t->t.f.act), 0);
        assert_int_equal(t->t.s->n_files, 1); /* ino 4 was dropped with the batch */
}

/* The opener of test_retry_drops(): /dev/null for every file. */
static int open_null(const struct streams_key *key, uint32_t generation, char *path, size_t size,
                     void *userdata) {
        (void) key, (void) generation, (void) userdata;
        snprintf(path, size, "/dev/null");
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

static void test_retry_drops(void **state) {
        struct subject *t = *state;
        struct cgroup *cg = t->t.f.cg, *list[1] = { cg };
        t->t.f.in.dry_run = true;
        streams_set_file_opener(t->t.s, open_null, NULL);
        /* The cycle read the file at 8M; it crosses at 100M (of 4 GiB). */
        struct streams_key k;
        struct streams_val v;
        stream_fixture_file(cg->id, 1, 8 * MiB, &k, &v);
        assert_int_equal(streams_feed(t->t.s, &k, &v, 1), 0);
        v.pages = v.seq_pages = v.next_index = v.max_index = 100 * MiB / PAGE;
        v.last_ns = 500000 * UINT64_C(1000);
        assert_int_equal(streams_feed_events(t->t.s, &k, &v, 1), 0);

        /* Held back by the bytes a second: the run drops what fits and asks to run again. */
        t->t.s->budget_bytes = (struct token_bucket) { .rate_per_sec = 64 * MiB, .burst = 64 * MiB };
        assert_int_equal(streams_fast(t->t.s, &t->t.f.in, list, 1, t->t.f.act), 1);
        assert_non_null(captured);
        assert_int_equal(actuator_job_drop(captured, 0)->length, 64 * MiB);
        actuator_job_free(captured);
        captured = NULL;
        assert_int_equal(t->t.s->n_retry, 1);
        assert_int_equal(t->t.s->retry_ids[0], cg->id);

        /* A second later, without a crossing, the retry drops the rest, and nothing waits. */
        t->t.f.in.now_usec += USEC_PER_SEC;
        assert_int_equal(streams_fast(t->t.s, &t->t.f.in, list, 1, t->t.f.act), 0);
        assert_non_null(captured);
        assert_int_equal(actuator_job_drop(captured, 0)->offset, 64 * MiB);
        assert_int_equal(actuator_job_drop(captured, 0)->length, 20 * MiB);
        actuator_job_free(captured);
        captured = NULL;
        assert_int_equal(t->t.s->n_retry, 0);
        /* No crossing and no retry: nothing more. */
        t->t.f.in.now_usec += USEC_PER_SEC;
        assert_int_equal(streams_fast(t->t.s, &t->t.f.in, list, 1, t->t.f.act), 0);
        assert_null(captured);
}

/* Adds a range crossed at crossed_usec with error to drop job j. */
static void add_range(struct actuator_job *j, uint64_t crossed_usec, int error) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        struct actuator_drop d = { .length = PAGE, .crossed_usec = crossed_usec };
        assert_int_equal(actuator_drop_job_add(j, fd, "/dev/null", &d), 0);
        ((struct actuator_drop *) actuator_job_drop(j, actuator_job_n_drops(j) - 1))->error = error;
}

static void test_latency_buckets(void **state) {
        struct subject *t = *state;
        struct actuator_job *j = actuator_drop_job_new(t->t.f.cg->id, "/cg", ACT_WRITE);
        assert_non_null(j);
        uint64_t end = 100 * USEC_PER_SEC;
        actuator_job_result(j)->finished_usec = end;
        add_range(j, end - 20000, 0);            /* 20 ms: (10 ms, 25 ms] */
        add_range(j, end - 25000, 0);            /* 25 ms: the same bucket, its bound included */
        add_range(j, end - 10000, 0);            /* 10 ms: the first */
        add_range(j, end - 20 * USEC_PER_SEC, 0); /* above the last bound: counted, no bucket */
        add_range(j, end - 5000, -EIO);          /* failed: not a latency */
        add_range(j, 0, 0);                      /* crossing unknown */
        add_range(j, end + 1, 0);                /* "after" the end: clocks apart */
        streams_job_done(t->t.s, j);
        streams_job_done(NULL, j);
        actuator_job_free(j);

        struct streams_stats st = streams_get_stats(t->t.s);
        assert_int_equal(st.latency_count, 4);
        assert_int_equal(st.latency_buckets[0], 1);
        assert_int_equal(st.latency_buckets[1], 2);
        uint64_t in_buckets = 0;
        for (size_t b = 0; b < STREAMS_LATENCY_BUCKETS; b++)
                in_buckets += st.latency_buckets[b];
        assert_int_equal(in_buckets, 3);
        assert_int_equal(st.latency_sum_usec, 20000 + 25000 + 10000 + 20 * USEC_PER_SEC);
        assert_int_equal(st.latency_max_usec, 20 * USEC_PER_SEC);

        st = streams_get_stats(NULL);
        assert_int_equal(st.latency_count, 0);
        assert_false(st.fast_path);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                SUBJECT_TEST(test_retry_list_sorted),
                SUBJECT_TEST(test_watched_and_tracked),
                SUBJECT_TEST(test_crossings_of_others_left_out),
                SUBJECT_TEST(test_retry_drops),
                SUBJECT_TEST(test_latency_buckets),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
