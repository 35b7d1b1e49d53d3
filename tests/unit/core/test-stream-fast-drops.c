/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stream protection's fast path drops between cycles, without BPF: crossings fed as if the BPF
 * program had reported them are dropped at once behind the reader, within the per-second
 * budgets, the pending files and the queue bound; the next cycle does not drop them again;
 * cgroups that are paused or unprotected are left alone. On the file and cgroup of
 * stream-file-fixture.h; the cycle's own drops are test-stream-protection.c's. */
#include "stream-file-fixture.h"

/* Counters of a file read sequentially up to read_to bytes of size bytes, the last insertion at
 * at_usec (CLOCK_MONOTONIC). */
static struct streams_val seq_val(uint64_t read_to, uint64_t size, uint64_t at_usec) {
        return (struct streams_val) {
                .pages = read_to / PAGE,
                .seq_pages = read_to / PAGE,
                .next_index = read_to / PAGE,
                .max_index = read_to / PAGE,
                .i_size = size,
                .last_ns = at_usec * 1000,
        };
}

static struct cycle_input input_at(const struct kernel_caps *caps, uint64_t now_usec,
                                   bool dry_run) {
        static struct report_sink report;
        return (struct cycle_input) { .now_usec = now_usec, .caps = caps, .dry_run = dry_run,
                                      .lrugen_write_fd = -1, .report = &report };
}

/* One run of the fast path over cg at now_usec with an inline actuator; returns the job it
 * produced (NULL: none) and its return value in *ret. */
static struct actuator_job *fast(struct streams *s, struct cgroup *cg, uint64_t now_usec,
                                 bool dry_run, int *ret) {
        struct kernel_caps caps = { .page_size = PAGE };
        struct cycle_input in = input_at(&caps, now_usec, dry_run);
        struct cgroup *list[1] = { cg };
        struct actuator *act;

        assert_int_equal(actuator_new(NULL, on_done, NULL, &act), 0);
        done_job = NULL;
        *ret = streams_fast(s, &in, list, 1, act);
        actuator_free(act);
        return done_job;
}

/* A cycle at now_usec over the map state (n files), with an inline actuator; returns its job. */
static struct actuator_job *cycle_at(struct streams *s, struct cgroup *cg, uint64_t now_usec,
                                     const struct streams_key *keys,
                                     const struct streams_val *vals, size_t n) {
        struct kernel_caps caps = { .page_size = PAGE };
        struct cycle_input in = input_at(&caps, now_usec, false);
        struct cgroup *list[1] = { cg };
        struct actuator *act;

        assert_int_equal(streams_feed(s, keys, vals, n), 0);
        assert_int_equal(actuator_new(NULL, on_done, NULL, &act), 0);
        done_job = NULL;
        assert_int_equal(streams_cycle(s, &in, list, 1, act), 0);
        actuator_free(act);
        return done_job;
}

/* A big file crosses between two cycles: the fast path drops behind the reader at once, with
 * the crossing's time on the range; the next cycle, with the same counters, drops nothing
 * more. Without crossings the fast path does nothing, whatever the table holds. */
static void test_fast_path_drops_between_cycles(void **state) {
        struct subject *t = *state;
        struct streams *s = t->streams;
        struct cgroup *cg = t->cgroup;
        int r;

        /* In the past: the drops end now, after the crossings. */
        uint64_t t0 = now_monotonic_usec() - 10 * USEC_PER_SEC;
        struct streams_key key = { .cgroup_id = cg->id, .ino = 1, .dev = 8 << 20 };
        /* The cycle sees 8M read: a stream, but nothing behind the 16M margin yet. */
        struct streams_val v = seq_val(8 * MiB, FILE_BYTES, t0);
        assert_null(cycle_at(s, cg, t0, &key, &v, 1));
        assert_null(fast(s, cg, t0 + 100000, false, &r));
        assert_int_equal(r, 0);

        /* Crossing at 40M, 2 s later (the next cycle would be at t0 + 10 s); another file
         * crossed earlier in the same batch, with nothing to drop yet: the drop is timed from
         * its own file's crossing. */
        uint64_t crossed = t0 + 2 * USEC_PER_SEC;
        v = seq_val(40 * MiB, FILE_BYTES, crossed);
        assert_int_equal(streams_feed_events(s, &key, &v, 1), 0);
        struct streams_key other = { .cgroup_id = cg->id, .ino = 2, .dev = 8 << 20 };
        struct streams_val ov = seq_val(8 * MiB, FILE_BYTES, crossed - 500000);
        assert_int_equal(streams_feed_events(s, &other, &ov, 1), 0);
        struct actuator_job *j = fast(s, cg, crossed + 20000, false, &r);
        assert_int_equal(r, 0);
        assert_non_null(j);
        assert_int_equal(actuator_job_mode(j), ACT_WRITE);
        assert_int_equal(actuator_job_n_drops(j), 1);
        assert_int_equal(actuator_job_drop(j, 0)->offset, 0);
        assert_int_equal(actuator_job_drop(j, 0)->length, 24 * MiB);
        assert_int_equal(actuator_job_drop(j, 0)->crossed_usec, crossed);
        assert_int_equal(actuator_job_drop(j, 0)->error, 0);
        streams_job_done(s, j);
        struct streams_stats st = streams_get_stats(s);
        assert_true(st.fast_path);
        assert_int_equal(st.crossings, 2);
        assert_int_equal(st.latency_count, 1);
        assert_int_equal(st.latency_sum_usec, actuator_job_result_const(j)->finished_usec - crossed);
        control_job_done(cg, j, NULL);

        /* Nothing new reported: nothing to do. The cycle then finds the range handed on. */
        assert_null(fast(s, cg, crossed + 200000, false, &r));
        assert_null(cycle_at(s, cg, t0 + 10 * USEC_PER_SEC, &key, &v, 1));

        /* The reader goes on to 44M: [24M, 28M) at the next crossing, dry-run says "would". */
        v = seq_val(44 * MiB, FILE_BYTES, crossed + USEC_PER_SEC);
        assert_int_equal(streams_feed_events(s, &key, &v, 1), 0);
        j = fast(s, cg, crossed + USEC_PER_SEC + 5000, true, &r);
        assert_non_null(j);
        assert_int_equal(actuator_job_mode(j), ACT_REPORT);
        assert_int_equal(actuator_job_drop(j, 0)->offset, 24 * MiB);
        assert_int_equal(actuator_job_drop(j, 0)->length, 4 * MiB);
        actuator_job_free(j);

        /* Off: crossings are ignored. */
        streams_set_fast_path(s, false);
        v = seq_val(48 * MiB, FILE_BYTES, crossed + 2 * USEC_PER_SEC);
        assert_int_equal(streams_feed_events(s, &key, &v, 1), 0);
        assert_null(fast(s, cg, crossed + 2 * USEC_PER_SEC + 5000, false, &r));
        assert_int_equal(r, 0);
        assert_false(streams_get_stats(s).fast_path);
}

/* n small files of size bytes, read whole, of cg: keys and counters from ino0 on. */
static void small_files(const struct cgroup *cg, size_t n, uint64_t ino0, uint64_t size,
                        uint64_t at_usec, struct streams_key *keys, struct streams_val *vals) {
        for (size_t i = 0; i < n; i++) {
                keys[i] = (struct streams_key) { .cgroup_id = cg->id, .ino = ino0 + i, .dev = 8 << 20 };
                vals[i] = seq_val(size, size, at_usec);
        }
}

/* n small files (64K each, read whole) of cg crossing at at_usec, inodes from ino0. */
static void feed_small_files(struct streams *s, const struct cgroup *cg, size_t n, uint64_t ino0,
                             uint64_t at_usec) {
        struct streams_key keys[256];
        struct streams_val vals[256];
        assert_true(n <= 256);
        small_files(cg, n, ino0, 64 * 1024, at_usec, keys, vals);
        assert_int_equal(streams_feed_events(s, keys, vals, n), 0);
}

/* The small-file inflow of the fast path is the last period's length back from now (cycles 10 s
 * apart: 10 s): 20 files of 128K read whole 18 s ago, in the last period (2.5M, not dropped
 * then: below 8M), do not count, so 60 more (7.5M) drop nothing, and 5 more (8.1M) drop those
 * 65, not the 20. */
static void test_fast_path_inflow_of_last_interval(void **state) {
        struct subject *t = *state;
        struct streams *s = t->streams;
        struct cgroup *cg = t->cgroup;
        struct streams_key keys[65];
        struct streams_val vals[65];
        int r;
        uint64_t t0 = 4000 * USEC_PER_SEC;

        assert_null(cycle_at(s, cg, t0, NULL, NULL, 0));
        small_files(cg, 20, 1, 128 * 1024, t0 + USEC_PER_SEC, keys, vals);
        assert_null(cycle_at(s, cg, t0 + 10 * USEC_PER_SEC, keys, vals, 20));

        small_files(cg, 60, 100, 128 * 1024, t0 + 19 * USEC_PER_SEC, keys, vals);
        assert_int_equal(streams_feed_events(s, keys, vals, 60), 0);
        assert_null(fast(s, cg, t0 + 19 * USEC_PER_SEC, false, &r));
        small_files(cg, 5, 160, 128 * 1024, t0 + 19 * USEC_PER_SEC + 500000, keys, vals);
        assert_int_equal(streams_feed_events(s, keys, vals, 5), 0);
        struct actuator_job *j = fast(s, cg, t0 + 19 * USEC_PER_SEC + 500000, false, &r);
        assert_non_null(j);
        assert_int_equal(actuator_job_n_drops(j), 65);
        for (size_t i = 0; i < actuator_job_n_drops(j); i++)
                assert_true(actuator_job_drop(j, i)->small_file);
        actuator_job_free(j);
}

/* A stream of small files goes on across a cycle: 70 files of 128K (8.75M) dropped by the fast
 * path 5 s after a cycle, the next cycle (nothing left to drop), and the first file read whole
 * 200 ms after it is dropped at once, timed from its own crossing: the inflow of the last 10 s
 * is still 8.9M. (Counting from the cycle's drain, it waited for 8M more: 64 files, S2's grep
 * up to 2 s.) */
static void test_fast_path_inflow_across_cycle(void **state) {
        struct subject *t = *state;
        struct streams *s = t->streams;
        struct cgroup *cg = t->cgroup;
        struct streams_key keys[70];
        struct streams_val vals[70];
        int r;
        uint64_t t0 = 6000 * USEC_PER_SEC;

        assert_null(cycle_at(s, cg, t0, NULL, NULL, 0));
        small_files(cg, 70, 100, 128 * 1024, t0 + 5 * USEC_PER_SEC, keys, vals);
        assert_int_equal(streams_feed_events(s, keys, vals, 70), 0);
        struct actuator_job *j = fast(s, cg, t0 + 5 * USEC_PER_SEC, false, &r);
        assert_non_null(j);
        assert_int_equal(actuator_job_n_drops(j), 70);
        control_job_done(cg, j, NULL);
        assert_null(cycle_at(s, cg, t0 + 10 * USEC_PER_SEC, keys, vals, 70));

        uint64_t crossed = t0 + 10 * USEC_PER_SEC + 200000;
        small_files(cg, 1, 200, 128 * 1024, crossed, keys, vals);
        assert_int_equal(streams_feed_events(s, keys, vals, 1), 0);
        j = fast(s, cg, crossed, false, &r);
        assert_non_null(j);
        assert_int_equal(r, 0);
        assert_int_equal(actuator_job_n_drops(j), 1);
        assert_true(actuator_job_drop(j, 0)->small_file);
        assert_int_equal(actuator_job_drop(j, 0)->crossed_usec, crossed);
        control_job_done(cg, j, NULL);
}

/* 1,200 small files read whole between two cycles (75M: above the 8M inflow): the fast path
 * hands on 128 a run (the pending files bound) while the budget's burst lasts, 1,024 files in 8
 * runs 1 us apart, holds the rest back (asking to run again), then goes at the budget's pace of
 * 1,024 a second: 102 files 100 ms later, the last 74 after 100 ms more. A 2G range is cut to
 * the 1G of a second. */
static void test_fast_path_budget(void **state) {
        struct subject *t = *state;
        struct streams *s = t->streams;
        struct cgroup *cg = t->cgroup;
        int r;

        uint64_t t0 = 1000 * USEC_PER_SEC, t1 = t0 + USEC_PER_SEC;
        assert_null(cycle_at(s, cg, t0, NULL, NULL, 0));
        for (unsigned k = 0; k < 6; k++)
                feed_small_files(s, cg, 200, 100 + 200 * k, t1);
        /* 8 runs of 128 (1 us apart: next to nothing earned), then none; 100 ms later 102,
         * 100 ms after that the last 74. */
        static const struct { uint64_t at_usec; size_t n; int more; } runs[] = {
                { 0, 128, 1 }, { 1, 128, 1 }, { 2, 128, 1 }, { 3, 128, 1 }, { 4, 128, 1 },
                { 5, 128, 1 }, { 6, 128, 1 }, { 7, 128, 1 }, { 8, 0, 1 }, { 100008, 102, 1 },
                { 200008, 74, 0 },
        };
        unsigned total = 0;
        for (size_t k = 0; k < ELEMENTSOF(runs); k++) {
                struct actuator_job *j = fast(s, cg, t1 + runs[k].at_usec, false, &r);
                assert_int_equal(r, runs[k].more);
                if (runs[k].n == 0) {
                        assert_null(j);
                        continue;
                }
                assert_non_null(j);
                assert_int_equal(actuator_job_n_drops(j), runs[k].n);
                for (size_t i = 0; i < actuator_job_n_drops(j); i++) {
                        assert_true(actuator_job_drop(j, i)->small_file);
                        assert_int_equal(actuator_job_drop(j, i)->length, 64 * 1024);
                        assert_int_equal(actuator_job_drop(j, i)->crossed_usec, t1);
                }
                total += actuator_job_n_drops(j);
                control_job_done(cg, j, NULL);
        }
        assert_int_equal(total, 1200);
        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(cg, &snap), 0);
        assert_int_equal(snap.stream_files, 1200);
        struct actuator_job *j;

        /* A 3G file read to 2G + 16M in one go: the first 1G now, the second in the next
         * second. */
        struct streams_key key = { .cgroup_id = cg->id, .ino = 7, .dev = 8 << 20 };
        struct streams_val v = seq_val((2048 + 16) * MiB, 3072 * MiB, t0 + 3500000);
        assert_int_equal(streams_feed_events(s, &key, &v, 1), 0);
        j = fast(s, cg, t0 + 3500000, false, &r);
        assert_non_null(j);
        assert_int_equal(r, 1);
        assert_int_equal(actuator_job_drop(j, 0)->offset, 0);
        assert_int_equal(actuator_job_drop(j, 0)->length, 1024 * MiB);
        actuator_job_free(j);
        j = fast(s, cg, t0 + 4600000, false, &r);
        assert_non_null(j);
        assert_int_equal(r, 0);
        assert_int_equal(actuator_job_drop(j, 0)->offset, 1024 * MiB);
        assert_int_equal(actuator_job_drop(j, 0)->length, 1024 * MiB);
        actuator_job_free(j);
}

struct count_ctx {
        unsigned jobs, drops;
};

static void count_done(struct actuator_job *j, void *userdata) {
        struct count_ctx *c = userdata;
        c->jobs++;
        if (actuator_job_kind(j) == ACTUATOR_JOB_DROP)
                c->drops += (unsigned) actuator_job_n_drops(j);
        actuator_job_free(j);
}

/* A directory whose memory.reclaim is a FIFO: a decision job writing there holds the writer
 * thread until someone opens the FIFO for reading. */
static int fifo_dir_new(char *tmpl) {
        assert_non_null(mkdtemp(tmpl));
        int dirfd = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dirfd >= 0);
        assert_int_equal(mkfifoat(dirfd, "memory.reclaim", 0600), 0);
        return dirfd;
}

static void fifo_dir_free(int dirfd, const char *path) {
        assert_int_equal(unlinkat(dirfd, "memory.reclaim", 0), 0);
        close(dirfd);
        assert_int_equal(rmdir(path), 0);
}

static void submit_decision(struct actuator *act, uint64_t id, int dirfd) {
        struct decision d = { .n_reclaims = 1 };
        d.reclaims[0].bytes = 4096;
        d.reclaims[0].swappiness = -1;
        struct actuator_job *j = actuator_job_new(id, "/q", dirfd, -1, PAGE, ACT_WRITE, &d);
        assert_non_null(j);
        assert_int_equal(actuator_submit(act, j), 0);
}

/* Runs the event loop until at most n jobs are pending. */
static void run_until_pending(sd_event *e, struct actuator *act, unsigned n) {
        for (int i = 0; i < 200 && actuator_pending(act) > n; i++)
                assert_true(sd_event_run(e, 100000) >= 0);
        assert_int_equal(actuator_pending(act), n);
}

/* The cycle after a fast-path run counts its period whole: 60 small files of 128K (7.5M, no
 * drop) came through the fast path, 5 more were not reported (a full ring buffer): the cycle
 * sees 8.1M read whole in its period and drops the 65. */
static void test_cycle_after_fast_path(void **state) {
        struct subject *t = *state;
        struct streams *s = t->streams;
        struct cgroup *cg = t->cgroup;
        struct streams_key keys[65];
        struct streams_val vals[65];
        int r;
        uint64_t t0 = 5000 * USEC_PER_SEC;

        assert_null(cycle_at(s, cg, t0, NULL, NULL, 0));
        small_files(cg, 65, 100, 128 * 1024, t0 + USEC_PER_SEC, keys, vals);
        assert_int_equal(streams_feed_events(s, keys, vals, 60), 0);
        assert_null(fast(s, cg, t0 + USEC_PER_SEC, false, &r));
        struct actuator_job *j = cycle_at(s, cg, t0 + 10 * USEC_PER_SEC, keys, vals, 65);
        assert_non_null(j);
        assert_int_equal(actuator_job_n_drops(j), 65);
        actuator_job_free(j);
}

/* The table holds the map's files and one batch of new ones: a second batch of new files before
 * the next cycle finds no room (without BPF there is no map to read again) and is left to the
 * cycle, while a file the table has still gets its crossing. The watched cgroups, and those
 * whose insertions are counted, follow the cycle: with protection off none, unless RefaultCheck=
 * wants the own refault count. */
static void test_fast_path_table_full(void **state) {
        struct subject *t = *state;
        struct streams *s = t->streams;
        struct cgroup *cg = t->cgroup;
        int r;
        uint64_t t0 = 6000 * USEC_PER_SEC;
        const size_t n = STREAMS_MAP_ENTRIES;
        struct streams_key *keys = calloc(n, sizeof *keys);
        struct streams_val *vals = calloc(n, sizeof *vals);
        assert_non_null(keys);
        assert_non_null(vals);
        /* read at random: classified, never dropped */
        for (size_t i = 0; i < n; i++) {
                keys[i] = (struct streams_key) { .cgroup_id = cg->id, .ino = 2 * i + 2, .dev = 8 << 20 };
                vals[i] = (struct streams_val) { .pages = 64, .seq_pages = 8, .next_index = 900,
                                                 .max_index = 1000, .i_size = 4 * MiB };
        }
        assert_null(cycle_at(s, cg, t0, keys, vals, n));
        assert_int_equal(streams_get_stats(s).watched, 1);
        assert_int_equal(streams_get_stats(s).tracked, 1);
        /* A batch of new files (odd inodes) fits. */
        for (size_t i = 0; i < STREAM_EVENTS_BATCH; i++)
                keys[i].ino = 2 * i + 1;
        assert_int_equal(streams_feed_events(s, keys, vals, STREAM_EVENTS_BATCH), 0);
        assert_int_equal(streams_feed_events(s, keys, vals, 1), -ENOSPC);
        assert_null(fast(s, cg, t0 + USEC_PER_SEC, false, &r));
        /* More new files, and the big stream (inode 2, in the table) crossing at 40M. */
        for (size_t i = 0; i < 16; i++)
                keys[i].ino = 2 * n + 2 * i + 1;
        assert_int_equal(streams_feed_events(s, keys, vals, 16), 0);
        struct streams_key key = { .cgroup_id = cg->id, .ino = 2, .dev = 8 << 20 };
        struct streams_val v = seq_val(40 * MiB, FILE_BYTES, t0 + 2 * USEC_PER_SEC);
        assert_int_equal(streams_feed_events(s, &key, &v, 1), 0);
        struct actuator_job *j = fast(s, cg, t0 + 2 * USEC_PER_SEC, false, &r);
        assert_non_null(j);
        assert_int_equal(actuator_job_n_drops(j), 1);
        assert_int_equal(actuator_job_drop(j, 0)->length, 24 * MiB);
        actuator_job_free(j);
        assert_int_equal(streams_get_stats(s).crossings, STREAM_EVENTS_BATCH + 17);

        /* Protection off: no cgroup is watched after the next cycle. */
        test_policy_of(cg)->stream_protection = STREAM_PROTECTION_NO;
        assert_null(cycle_at(s, cg, t0 + 10 * USEC_PER_SEC, NULL, NULL, 0));
        assert_int_equal(streams_get_stats(s).watched, 0);
        /* ... and its insertions are no longer counted, unless the own refault count is
         * wanted. */
        assert_int_equal(streams_get_stats(s).tracked, 0);
        struct kernel_caps caps = { .page_size = PAGE };
        struct cycle_input in = input_at(&caps, t0 + 11 * USEC_PER_SEC, false);
        struct cgroup *list[1] = { cg };
        struct actuator *act;
        in.refault_check = true;
        assert_int_equal(actuator_new(NULL, on_done, NULL, &act), 0);
        assert_int_equal(streams_cycle(s, &in, list, 1, act), 0);
        actuator_free(act);
        assert_int_equal(streams_get_stats(s).tracked, 1);

        free(keys);
        free(vals);
}

/* With the writer thread held on decisions whose memory.reclaim is a FIFO nobody reads: while
 * ACTUATOR_MAX_QUEUED jobs are queued the fast path adds none; with room in the queue it queues
 * one job of 128 files, then none while those files are pending, even in a new second; once the
 * writer is free, it catches up. */
static void test_fast_path_queue_bounds(void **state) {
        char dir_a[] = "/tmp/mglrud-test-fast-a.XXXXXX", dir_b[] = "/tmp/mglrud-test-fast-b.XXXXXX";
        int fd_a = fifo_dir_new(dir_a), fd_b = fifo_dir_new(dir_b);
        sd_event *e = NULL;
        struct actuator *act = NULL;
        struct count_ctx c = {};
        assert_int_equal(sd_event_new(&e), 0);
        assert_int_equal(actuator_new(e, count_done, &c, &act), 0);

        struct subject *t = *state;
        struct streams *s = t->streams;
        struct cgroup *cg = t->cgroup;
        struct cgroup *list[1] = { cg };
        struct kernel_caps caps = { .page_size = PAGE };
        uint64_t t0 = 2000 * USEC_PER_SEC;
        struct cycle_input in = input_at(&caps, t0, false);
        assert_int_equal(streams_cycle(s, &in, list, 1, act), 0);

        /* The queue full: decisions held on FIFO a, the last one on FIFO b. */
        for (unsigned i = 0; i + 1 < ACTUATOR_MAX_QUEUED; i++)
                submit_decision(act, 100 + i, fd_a);
        submit_decision(act, 99, fd_b);
        feed_small_files(s, cg, 200, 100, t0 + USEC_PER_SEC);
        in.now_usec = t0 + USEC_PER_SEC;
        assert_int_equal(streams_fast(s, &in, list, 1, act), 1);
        assert_int_equal(actuator_pending(act), ACTUATOR_MAX_QUEUED);
        assert_int_equal(actuator_pending_drop_files(act), 0);

        /* FIFO a read: the writer waits on b with one job. 128 files are queued. */
        int rd_a = openat(fd_a, "memory.reclaim", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        assert_true(rd_a >= 0);
        run_until_pending(e, act, 1);
        in.now_usec = t0 + 2 * USEC_PER_SEC;
        assert_int_equal(streams_fast(s, &in, list, 1, act), 1);
        assert_int_equal(actuator_pending(act), 2);
        assert_int_equal(actuator_pending_drop_files(act), 128);
        /* A new second, but 128 files pending: nothing. */
        in.now_usec = t0 + 4 * USEC_PER_SEC;
        assert_int_equal(streams_fast(s, &in, list, 1, act), 1);
        assert_int_equal(actuator_pending(act), 2);

        /* FIFO b read: the writer is free; the rest goes. */
        int rd_b = openat(fd_b, "memory.reclaim", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        assert_true(rd_b >= 0);
        run_until_pending(e, act, 0);
        assert_int_equal(c.drops, 128);
        assert_int_equal(actuator_pending_drop_files(act), 0);
        in.now_usec = t0 + 6 * USEC_PER_SEC;
        assert_int_equal(streams_fast(s, &in, list, 1, act), 0);
        run_until_pending(e, act, 0);
        assert_int_equal(c.drops, 200);

        actuator_free(act);
        sd_event_unref(e);
        close(rd_a);
        close(rd_b);
        fifo_dir_free(fd_a, dir_a);
        fifo_dir_free(fd_b, dir_b);
}

/* Crossings of a cgroup with StreamProtection=no, or paused, are left alone by the fast path. */
static void test_fast_path_unprotected(void **state) {
        struct subject *t = *state;
        struct streams *s = t->streams;
        struct cgroup *cg = t->cgroup;
        int r;
        uint64_t t0 = 3000 * USEC_PER_SEC;
        assert_null(cycle_at(s, cg, t0, NULL, NULL, 0));
        struct streams_key key = { .cgroup_id = cg->id, .ino = 1, .dev = 8 << 20 };
        struct streams_val v = seq_val(40 * MiB, FILE_BYTES, t0 + 1000);

        test_policy_of(cg)->stream_protection = STREAM_PROTECTION_NO;
        assert_int_equal(streams_feed_events(s, &key, &v, 1), 0);
        assert_null(fast(s, cg, t0 + 2000, false, &r));
        test_policy_of(cg)->stream_protection = STREAM_PROTECTION_YES;
        assert_int_equal(control_cgroup_set_paused(cg, true), 0);
        assert_int_equal(streams_feed_events(s, &key, &v, 1), 0);
        assert_null(fast(s, cg, t0 + 3000, false, &r));
        assert_int_equal(control_cgroup_set_paused(cg, false), 0);
        /* The control: reported again, it is dropped. */
        assert_int_equal(streams_feed_events(s, &key, &v, 1), 0);
        struct actuator_job *j = fast(s, cg, t0 + 4000, false, &r);
        assert_non_null(j);
        actuator_job_free(j);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                SUBJECT_TEST(test_fast_path_drops_between_cycles),
                SUBJECT_TEST(test_fast_path_budget),
                SUBJECT_TEST(test_fast_path_inflow_of_last_interval),
                SUBJECT_TEST(test_fast_path_inflow_across_cycle),
                SUBJECT_TEST(test_cycle_after_fast_path),
                SUBJECT_TEST(test_fast_path_table_full),
                SUBJECT_TEST(test_fast_path_queue_bounds),
                SUBJECT_TEST(test_fast_path_unprotected),
        };
        return cmocka_run_group_tests(tests, stream_file_setup, stream_file_teardown);
}
