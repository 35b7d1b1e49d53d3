/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One cgroup's drops (stream-drops.c) on the core fixture's cgroup (1 GiB used, no limit, so a
 * file of 4 GiB read once is a stream), its files fed as if read from the map and opened by a
 * fake opener: which cgroups are classified and in what mode, one drop job per cgroup behind the
 * reader, a range never handed on twice, the bounds (files a second, bytes a second, files
 * pending in the actuation path) holding the rest back until the budget refills, the files of
 * covered descendants, and a mount that cannot be used said once per device. */
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

static unsigned opened;         /* files the fake opener opened */
static int open_error;          /* 0, or what the fake opener fails with */

static int open_fake(const struct streams_key *key, uint32_t generation, char *path, size_t size,
                     void *userdata) {
        (void) generation, (void) userdata;
        if (open_error)
                return open_error;
        snprintf(path, size, "/fake/%llu", (unsigned long long) key->ino);
        opened++;
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

#define subject stream_fixture

static int subject_new(void **state) {
        struct subject *t = calloc(1, sizeof *t);
        assert_non_null(t);
        stream_fixture_init(t);
        t->f.in.dry_run = true; /* the drops are reported, /dev/null is not advised */
        streams_set_file_opener(t->s, open_fake, NULL);
        opened = 0;
        open_error = 0;
        *state = t;
        return 0;
}

static int subject_free(void **state) {
        stream_fixture_done(*state);
        free(*state);
        return 0;
}

/* Feeds n files of the fixture's cgroup, ino 1..n, each read to read_to bytes. */
static void feed_streams(struct subject *t, size_t n, uint64_t read_to) {
        struct streams_key k[8];
        struct streams_val v[8];
        assert_true(n <= 8);
        for (size_t i = 0; i < n; i++)
                stream_fixture_file(t->f.cg->id, i + 1, read_to, &k[i], &v[i]);
        assert_int_equal(streams_feed(t->s, k, v, n), 0);
}

/* One pass over the fixture's cgroup at now_usec; returns the drop job it handed on (NULL:
 * none) and whether a bound held drops back in *ret_held. */
static struct actuator_job *pass(struct subject *t, uint64_t now_usec, unsigned pending,
                                 bool *ret_held) {
        t->f.in.now_usec = now_usec;
        struct drop_run run = { .in = &t->f.in, .act = t->f.act, .pending_files = pending };
        assert_int_equal(streams_cgroup(t->s, t->f.cg, ACT_REPORT, &run), 0);
        if (ret_held)
                *ret_held = run.held;
        struct actuator_job *j = captured;
        captured = NULL;
        return j;
}

static void test_protected(void **state) {
        struct subject *t = *state;
        struct cgroup *cg = t->f.cg;
        struct cycle_input in = t->f.in;
        enum act_mode mode = _ACT_MODE_MAX;

        in.dry_run = false;
        assert_true(streams_cgroup_protected(cg, &in, &mode));
        assert_int_equal(mode, ACT_WRITE);
        in.dry_run = true;
        assert_true(streams_cgroup_protected(cg, &in, &mode));
        assert_int_equal(mode, ACT_REPORT);
        in.dry_run = false;
        test_policy_of(cg)->stream_protection = STREAM_PROTECTION_ADVISE;
        assert_true(streams_cgroup_protected(cg, &in, &mode));
        assert_int_equal(mode, ACT_REPORT);
        test_policy_of(cg)->stream_protection = STREAM_PROTECTION_YES;
        test_policy_of(cg)->mode = POLICY_MODE_ADVISE;
        assert_true(streams_cgroup_protected(cg, &in, &mode));
        assert_int_equal(mode, ACT_REPORT);

        /* Not classified at all: */
        test_policy_of(cg)->mode = POLICY_MODE_OFF;
        assert_false(streams_cgroup_protected(cg, &in, &mode));
        test_policy_of(cg)->mode = POLICY_MODE_ACTIVE;
        test_policy_of(cg)->stream_protection = STREAM_PROTECTION_NO;
        assert_false(streams_cgroup_protected(cg, &in, &mode));
        test_policy_of(cg)->stream_protection = STREAM_PROTECTION_YES;
        in.paused_all = true;
        assert_false(streams_cgroup_protected(cg, &in, &mode));
        in.paused_all = false;
        assert_int_equal(control_cgroup_set_paused(cg, true), 0);
        assert_false(streams_cgroup_protected(cg, &in, &mode));
        assert_int_equal(control_cgroup_set_paused(cg, false), 0);
        cg->vanished = true;
        assert_false(streams_cgroup_protected(cg, &in, &mode));
        cg->vanished = false;
        assert_true(streams_cgroup_protected(cg, &in, &mode));
}

static void test_drop_behind_reader_once(void **state) {
        struct subject *t = *state;
        feed_streams(t, 1, 100 * MiB);
        t->s->files[0].pending_usec = 123;

        /* [0, 100M - 16M margin) in one job of the cgroup, crossing time carried. */
        struct actuator_job *j = pass(t, 1000000, 0, NULL);
        assert_non_null(j);
        assert_int_equal(actuator_job_kind(j), ACTUATOR_JOB_DROP);
        assert_int_equal(actuator_job_cgroup_id(j), t->f.cg->id);
        assert_int_equal(actuator_job_mode(j), ACT_REPORT);
        assert_int_equal(actuator_job_n_drops(j), 1);
        const struct actuator_drop *d = actuator_job_drop(j, 0);
        assert_int_equal(d->offset, 0);
        assert_int_equal(d->length, 84 * MiB);
        assert_true(d->whole_file);
        assert_int_equal(d->read_bytes, 100 * MiB);
        assert_int_equal(d->size_bytes, STREAM_SIZE);
        assert_int_equal(d->crossed_usec, 123);
        actuator_job_free(j);
        assert_int_equal(t->s->files[0].dropped_to, 84 * MiB / PAGE);
        assert_int_equal(t->s->files[0].pending_usec, 0);

        /* Nothing more read: nothing more dropped. */
        assert_null(pass(t, 2000000, 0, NULL));
        /* The reader at 110M: only [84M, 94M), not from the start. */
        feed_streams(t, 1, 110 * MiB);
        j = pass(t, 3000000, 0, NULL);
        assert_non_null(j);
        d = actuator_job_drop(j, 0);
        assert_int_equal(d->offset, 84 * MiB);
        assert_int_equal(d->length, 10 * MiB);
        assert_false(d->whole_file);
        actuator_job_free(j);
        assert_int_equal(opened, 3); /* the two drops, and the verdict's line for its name */
}

static void test_unopenable_not_retried(void **state) {
        struct subject *t = *state;
        feed_streams(t, 1, 100 * MiB);
        open_error = -ESTALE; /* deleted, or the inode reused */
        assert_null(pass(t, 1000000, 0, NULL));
        assert_int_equal(t->s->files[0].dropped_to, 84 * MiB / PAGE);
        open_error = 0;
        assert_null(pass(t, 2000000, 0, NULL)); /* the range is not tried again */
        assert_int_equal(opened, 0);
}

static void test_files_a_second(void **state) {
        struct subject *t = *state;
        /* Two files at once, one more each second. */
        t->s->budget_files = (struct token_bucket) { .rate_per_sec = USEC_PER_SEC,
                                                     .burst = 2 * USEC_PER_SEC };
        feed_streams(t, 3, 100 * MiB);
        bool held;
        struct actuator_job *j = pass(t, 1000000, 0, &held);
        assert_non_null(j);
        assert_int_equal(actuator_job_n_drops(j), 2);
        assert_true(held);
        actuator_job_free(j);
        assert_int_equal(t->s->files[2].dropped_to, 0); /* waits */

        /* Half a second later: no whole file in the budget yet. */
        assert_null(pass(t, 1500000, 0, &held));
        assert_true(held);
        j = pass(t, 2000000, 0, &held);
        assert_non_null(j);
        assert_int_equal(actuator_job_n_drops(j), 1);
        assert_int_equal(actuator_job_drop(j, 0)->length, 84 * MiB);
        assert_false(held);
        actuator_job_free(j);
        assert_int_equal(t->s->files[2].dropped_to, 84 * MiB / PAGE);
}

static void test_bytes_a_second(void **state) {
        struct subject *t = *state;
        t->s->budget_bytes = (struct token_bucket) { .rate_per_sec = 32 * MiB,
                                                     .burst = 32 * MiB };
        feed_streams(t, 1, 100 * MiB);
        /* The range is cut to the bytes left; the rest waits. */
        bool held;
        struct actuator_job *j = pass(t, 1000000, 0, &held);
        assert_non_null(j);
        assert_int_equal(actuator_job_drop(j, 0)->length, 32 * MiB);
        assert_true(held);
        actuator_job_free(j);
        assert_int_equal(t->s->files[0].dropped_to, 32 * MiB / PAGE);
        j = pass(t, 1500000, 0, &held);
        assert_non_null(j);
        assert_int_equal(actuator_job_drop(j, 0)->offset, 32 * MiB);
        assert_int_equal(actuator_job_drop(j, 0)->length, 16 * MiB);
        actuator_job_free(j);
        j = pass(t, 3000000, 0, &held);
        assert_non_null(j);
        assert_int_equal(actuator_job_drop(j, 0)->offset, 48 * MiB);
        assert_int_equal(actuator_job_drop(j, 0)->length, 32 * MiB);
        actuator_job_free(j);
        j = pass(t, 4000000, 0, &held);
        assert_non_null(j);
        assert_int_equal(actuator_job_drop(j, 0)->length, 4 * MiB); /* to 84M */
        assert_false(held);
        actuator_job_free(j);
}

static void test_pending_files_bound(void **state) {
        struct subject *t = *state;
        feed_streams(t, 2, 100 * MiB);
        bool held;
        /* The actuation path holds as many files as it may: nothing now. */
        assert_null(pass(t, 1000000, STREAMS_MAX_FILES_PENDING, &held));
        assert_true(held);
        assert_int_equal(t->s->files[0].dropped_to, 0);
        /* One place left: one file. */
        struct actuator_job *j = pass(t, 1000000, STREAMS_MAX_FILES_PENDING - 1, &held);
        assert_non_null(j);
        assert_int_equal(actuator_job_n_drops(j), 1);
        assert_true(held);
        actuator_job_free(j);
}

static void test_covered_descendants(void **state) {
        struct subject *t = *state;
        struct cgroup *cg = t->f.cg;
        uint64_t child = cg->id + 1000, other = cg->id + 2000;
        cg->covered_ids = calloc(2, sizeof *cg->covered_ids);
        assert_non_null(cg->covered_ids);
        cg->covered_ids[0] = child;
        cg->covered_ids[1] = child; /* listed twice: dropped once */
        cg->n_covered = 2;
        struct streams_key k[3];
        struct streams_val v[3];
        stream_fixture_file(child, 1, 100 * MiB, &k[0], &v[0]);
        stream_fixture_file(other, 2, 100 * MiB, &k[1], &v[1]); /* not covered: not dropped */
        stream_fixture_file(cg->id, 3, 100 * MiB, &k[2], &v[2]);
        assert_int_equal(streams_feed(t->s, k, v, 3), 0);
        struct actuator_job *j = pass(t, 1000000, 0, NULL);
        assert_non_null(j);
        assert_int_equal(actuator_job_n_drops(j), 2);
        assert_int_equal(actuator_job_cgroup_id(j), cg->id); /* one job, the managed cgroup's */
        actuator_job_free(j);
        size_t n, first = streams_files_of_cgroup(t->s, other, &n);
        assert_int_equal(n, 1);
        assert_int_equal(t->s->files[first].dropped_to, 0);
}

static void test_mount_refusal_said_once(void **state) {
        struct subject *t = *state;
        /* A proc root whose mountinfo knows no device 8:0. */
        char proc[96];
        snprintf(proc, sizeof proc, "%s/proc", t->f.dir);
        assert_int_equal(mkdir(proc, 0755), 0);
        int pfd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(pfd >= 0);
        assert_int_equal(mkdirat(pfd, "self", 0755), 0);
        write_at(pfd, "self/mountinfo",
                 "22 1 0:21 / /other rw - tmpfs tmpfs rw\n");
        close(pfd);
        free(t->s->proc_root);
        t->s->proc_root = strdup(proc);
        assert_non_null(t->s->proc_root);

        struct streams_key k = { .cgroup_id = 1, .ino = 5, .dev = 8 << 20 };
        char path[64];
        log_lines_start();
        assert_int_equal(streams_open_by_handle(&k, 0, path, sizeof path, t->s), -EOPNOTSUPP);
        k.ino = 6;
        assert_int_equal(streams_open_by_handle(&k, 0, path, sizeof path, t->s), -EOPNOTSUPP);
        streams_mounts_close(t->s); /* the next pass tries again, quietly */
        assert_int_equal(streams_open_by_handle(&k, 0, path, sizeof path, t->s), -EOPNOTSUPP);
        log_lines_stop();
        assert_int_equal(log_lines_with("cannot open the mount of 8:0"), 1);
        assert_int_equal(log_lines.n, 1);
}

#define SUBJECT_TEST(f) cmocka_unit_test_setup_teardown(f, subject_new, subject_free)

int main(void) {
        const struct CMUnitTest tests[] = {
                SUBJECT_TEST(test_protected),
                SUBJECT_TEST(test_drop_behind_reader_once),
                SUBJECT_TEST(test_unopenable_not_retried),
                SUBJECT_TEST(test_files_a_second),
                SUBJECT_TEST(test_bytes_a_second),
                SUBJECT_TEST(test_pending_files_bound),
                SUBJECT_TEST(test_covered_descendants),
                SUBJECT_TEST(test_mount_refusal_said_once),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
