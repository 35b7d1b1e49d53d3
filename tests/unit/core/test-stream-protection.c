/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon side of stream protection, without BPF: counters fed as if read from the map, a
 * managed cgroup made of plain files, the drop handed to the actuation path and measured with
 * mincore() on a real file: a one-shot stream is dropped behind the reader, a dry-run or advise
 * cgroup only counts "would drop", a paused one or StreamProtection=no gets nothing. The fast
 * path's drops between cycles are test-stream-fast-drops.c's. */
#include "stream-file-fixture.h"

/* One cycle over cg with a file read sequentially up to read_to bytes of FILE_BYTES; returns the
 * drop job it produced (NULL: none), already run inline. */
static struct actuator_job *cycle(struct streams *s, struct cgroup *cg, uint64_t read_to,
                                  bool dry_run, bool paused_all) {
        struct streams_key key = { .cgroup_id = cg->id, .ino = 1, .dev = 8 << 20 };
        struct streams_val val = {
                .pages = read_to / PAGE,
                .seq_pages = read_to / PAGE,
                .next_index = read_to / PAGE,
                .max_index = read_to / PAGE,
                .i_size = FILE_BYTES,
        };
        struct kernel_caps caps = { .page_size = PAGE };
        struct report_sink report = {};
        struct cycle_input in = { .caps = &caps, .dry_run = dry_run, .paused_all = paused_all,
                                  .lrugen_write_fd = -1, .report = &report };
        struct actuator *act;
        struct cgroup *list[1] = { cg };

        assert_int_equal(streams_feed(s, &key, &val, 1), 0);
        assert_int_equal(actuator_new(NULL, on_done, NULL, &act), 0);
        done_job = NULL;
        assert_int_equal(streams_cycle(s, &in, list, 1, act), 0);
        actuator_free(act);
        return done_job;
}

static void test_stream_dropped_behind_reader(void **state) {
        struct statfs sfs;
        assert_int_equal(statfs(dir, &sfs), 0);
        if (sfs.f_type == 0x01021994 /* tmpfs */)
                skip();
        struct subject *t = *state;
        struct streams *s = t->streams;
        struct cgroup *cg = t->cgroup;
        cache_file();
        uint64_t before = resident_pages(FILE_BYTES / PAGE);
        if (before < FILE_BYTES / PAGE / 2)
                skip(); /* the page cache cannot hold it here: nothing to measure */

        /* Read up to 40M: [0, 40M - 16M margin) goes. */
        struct actuator_job *j = cycle(s, cg, 40 * MiB, false, false);
        assert_non_null(j);
        assert_int_equal(actuator_job_kind(j), ACTUATOR_JOB_DROP);
        assert_int_equal(actuator_job_n_drops(j), 1);
        assert_int_equal(actuator_job_drop(j, 0)->offset, 0);
        assert_int_equal(actuator_job_drop(j, 0)->length, 24 * MiB);
        assert_int_equal(actuator_job_drop(j, 0)->error, 0);
        assert_int_equal(actuator_job_result_const(j)->failed, 0);
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 24 * MiB);
        control_job_done(cg, j, NULL);
        assert_true(resident_pages(24 * MiB / PAGE) < 24 * MiB / PAGE / 8);
        assert_true(resident_pages(FILE_BYTES / PAGE) > before - 24 * MiB / PAGE - 256);

        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(cg, &snap), 0);
        assert_int_equal(snap.stream_files, 1);
        assert_int_equal(snap.stream_dropped_bytes, 24 * MiB);

        /* The reader moved on to 44M: only [24M, 28M) is new. */
        j = cycle(s, cg, 44 * MiB, false, false);
        assert_non_null(j);
        assert_int_equal(actuator_job_drop(j, 0)->offset, 24 * MiB);
        assert_int_equal(actuator_job_drop(j, 0)->length, 4 * MiB);
        control_job_done(cg, j, NULL);
        assert_int_equal(control_cgroup_snapshot(cg, &snap), 0);
        assert_int_equal(snap.stream_files, 1); /* the same file */
        assert_int_equal(snap.stream_dropped_bytes, 28 * MiB);
}

static void test_dry_run_and_advise_drop_nothing(void **state) {
        struct subject *t = *state;
        struct streams *s = t->streams;
        struct cgroup *cg = t->cgroup;
        cache_file();
        uint64_t before = resident_pages(24 * MiB / PAGE);

        /* --dry-run: a job that says "would drop" and drops nothing. */
        struct actuator_job *j = cycle(s, cg, 40 * MiB, true, false);
        assert_non_null(j);
        assert_int_equal(actuator_job_mode(j), ACT_REPORT);
        assert_int_equal(actuator_job_n_drops(j), 1);
        assert_int_equal(actuator_job_drop(j, 0)->length, 24 * MiB);
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 0); /* nothing asked of the kernel */
        control_job_done(cg, j, NULL);
        assert_int_equal(resident_pages(24 * MiB / PAGE), before);

        /* StreamProtection=advise: the same, decided per cgroup. */
        test_policy_of(cg)->stream_protection = STREAM_PROTECTION_ADVISE;
        j = cycle(s, cg, 44 * MiB, false, false);
        assert_non_null(j);
        assert_int_equal(actuator_job_mode(j), ACT_REPORT);
        control_job_done(cg, j, NULL);
        assert_int_equal(resident_pages(24 * MiB / PAGE), before);

        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(cg, &snap), 0);
        assert_int_equal(snap.stream_dropped_bytes, 28 * MiB); /* counted as advised */
}

static void test_paused_or_off_get_nothing(void **state) {
        struct subject *t = *state;
        struct streams *s = t->streams;
        struct cgroup *cg = t->cgroup;

        assert_int_equal(control_cgroup_set_paused(cg, true), 0);
        assert_null(cycle(s, cg, 40 * MiB, false, false));
        assert_int_equal(control_cgroup_set_paused(cg, false), 0);
        assert_null(cycle(s, cg, 41 * MiB, false, true)); /* Pause("") */
        test_policy_of(cg)->stream_protection = STREAM_PROTECTION_NO;
        assert_null(cycle(s, cg, 42 * MiB, false, false));
        test_policy_of(cg)->stream_protection = STREAM_PROTECTION_YES;
        test_policy_of(cg)->mode = POLICY_MODE_OFF;
        assert_null(cycle(s, cg, 43 * MiB, false, false));
        /* And the control: the same cgroup, active, gets its drop. */
        test_policy_of(cg)->mode = POLICY_MODE_ACTIVE;
        struct actuator_job *j = cycle(s, cg, 44 * MiB, true, false);
        assert_non_null(j);
        actuator_job_free(j);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                SUBJECT_TEST(test_stream_dropped_behind_reader),
                SUBJECT_TEST(test_dry_run_and_advise_drop_nothing),
                SUBJECT_TEST(test_paused_or_off_get_nothing),
        };
        return cmocka_run_group_tests(tests, stream_file_setup, stream_file_teardown);
}
