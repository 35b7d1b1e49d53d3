/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon side of stream protection, without BPF: counters fed as if read from the map, a
 * managed cgroup made of plain files, the drop handed to the actuation path and measured with
 * mincore() on a real file: a one-shot stream is dropped behind the reader, a dry-run or advise
 * cgroup only counts "would drop", a paused one or StreamProtection=no gets nothing. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/types.h>

#include "daemon/core/bpf/page-cache-inserts.h"
#include "mglrud/core/control.h"
#include "mglrud/core/stream-protection.h"

#define MiB (UINT64_C(1) << 20)
#define PAGE UINT64_C(4096)
#define FILE_BYTES (48 * MiB)

static char dir[PATH_MAX];
static char data_path[PATH_MAX + 16];

static void write_file(const char *name, const char *text) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "%s/cg/%s", dir, name);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* The cgroup: memory.max 16M with 15M used, so a 48M file read once is a stream. */
static struct cgroup *make_cgroup(void) {
        char p[PATH_MAX + 8];
        struct stat st;
        snprintf(p, sizeof p, "%s/cg", dir);
        assert_int_equal(stat(p, &st), 0);
        struct cgroup *cg;
        assert_int_equal(cgroup_new(dir, "/cg", st.st_ino, CGROUP_KEEP_ALL, &cg), 0);
        policy_init_defaults(&cg->policy);
        return cg;
}

static int setup(void **state) {
        /* Not in /tmp: tmpfs pages are not dropped by POSIX_FADV_DONTNEED. */
        snprintf(dir, sizeof dir, "%s/mglrud-test-streams.XXXXXX", getenv("MESON_BUILD_ROOT") ?: ".");
        assert_non_null(mkdtemp(dir));
        char p[PATH_MAX + 8];
        snprintf(p, sizeof p, "%s/cg", dir);
        assert_int_equal(mkdir(p, 0755), 0);
        write_file("memory.stat", "anon 0\nfile 15728640\n");
        write_file("memory.current", "15728640\n");
        write_file("memory.max", "16777216\n");
        snprintf(data_path, sizeof data_path, "%s/stream.bin", dir);
        int fd = open(data_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        static char buf[1 << 20];
        memset(buf, 0x5a, sizeof buf);
        for (uint64_t i = 0; i < FILE_BYTES / sizeof buf; i++)
                assert_int_equal(write(fd, buf, sizeof buf), (ssize_t) sizeof buf);
        assert_int_equal(fsync(fd), 0);
        close(fd);
        return 0;
}

static int teardown(void **state) {
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        return 0;
}

/* Reads the whole file, so all its pages are cached. */
static void cache_file(void) {
        int fd = open(data_path, O_RDONLY | O_CLOEXEC);
        static char buf[1 << 20];
        assert_true(fd >= 0);
        while (read(fd, buf, sizeof buf) > 0)
                ;
        close(fd);
}

/* Returns how many of the file's first n pages are resident. */
static uint64_t resident_pages(uint64_t n) {
        int fd = open(data_path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        void *m = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
        assert_true(m != MAP_FAILED);
        unsigned char vec[FILE_BYTES / PAGE];
        assert_int_equal(mincore(m, FILE_BYTES, vec), 0);
        uint64_t r = 0;
        for (uint64_t i = 0; i < n; i++)
                r += vec[i] & 1;
        munmap(m, FILE_BYTES);
        close(fd);
        return r;
}

static int open_data(const struct streams_key *key, uint32_t generation, char *path,
                     size_t size, void *userdata) {
        snprintf(path, size, "%s", data_path);
        int fd = open(data_path, O_RDONLY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

static struct actuator_job *done_job;

static void on_done(struct actuator_job *j, void *userdata) {
        assert_null(done_job);
        done_job = j;
}

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
        struct streams *s;
        struct cgroup *cg = make_cgroup();
        assert_int_equal(streams_new("/proc", &s), 0);
        streams_set_file_opener(s, open_data, NULL);
        cache_file();
        uint64_t before = resident_pages(FILE_BYTES / PAGE);
        if (before < FILE_BYTES / PAGE / 2)
                skip(); /* the page cache cannot hold it here: nothing to measure */

        /* Read up to 40M: [0, 40M - 16M margin) goes. */
        struct actuator_job *j = cycle(s, cg, 40 * MiB, false, false);
        assert_non_null(j);
        assert_int_equal(j->kind, ACTUATOR_JOB_DROP);
        assert_int_equal(j->n_drops, 1);
        assert_int_equal(j->drops[0].offset, 0);
        assert_int_equal(j->drops[0].length, 24 * MiB);
        assert_int_equal(j->drops[0].error, 0);
        assert_int_equal(j->failed, 0);
        assert_int_equal(j->asked_bytes, 24 * MiB);
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
        assert_int_equal(j->drops[0].offset, 24 * MiB);
        assert_int_equal(j->drops[0].length, 4 * MiB);
        control_job_done(cg, j, NULL);
        assert_int_equal(control_cgroup_snapshot(cg, &snap), 0);
        assert_int_equal(snap.stream_files, 1); /* the same file */
        assert_int_equal(snap.stream_dropped_bytes, 28 * MiB);

        control_cgroup_free(cg);
        cgroup_free(cg);
        streams_free(s);
}

static void test_dry_run_and_advise_drop_nothing(void **state) {
        struct streams *s;
        struct cgroup *cg = make_cgroup();
        assert_int_equal(streams_new("/proc", &s), 0);
        streams_set_file_opener(s, open_data, NULL);
        cache_file();
        uint64_t before = resident_pages(24 * MiB / PAGE);

        /* --dry-run: a job that says "would drop" and drops nothing. */
        struct actuator_job *j = cycle(s, cg, 40 * MiB, true, false);
        assert_non_null(j);
        assert_true(j->dry_run);
        assert_int_equal(j->asked_bytes, 24 * MiB);
        control_job_done(cg, j, NULL);
        assert_int_equal(resident_pages(24 * MiB / PAGE), before);

        /* StreamProtection=advise: the same, decided per cgroup. */
        cg->policy.stream_protection = STREAM_PROTECTION_ADVISE;
        j = cycle(s, cg, 44 * MiB, false, false);
        assert_non_null(j);
        assert_true(j->dry_run);
        control_job_done(cg, j, NULL);
        assert_int_equal(resident_pages(24 * MiB / PAGE), before);

        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(cg, &snap), 0);
        assert_int_equal(snap.stream_dropped_bytes, 28 * MiB); /* counted as advised */

        control_cgroup_free(cg);
        cgroup_free(cg);
        streams_free(s);
}

static void test_paused_or_off_get_nothing(void **state) {
        struct streams *s;
        struct cgroup *cg = make_cgroup();
        assert_int_equal(streams_new("/proc", &s), 0);
        streams_set_file_opener(s, open_data, NULL);

        assert_int_equal(control_cgroup_set_paused(cg, true), 0);
        assert_null(cycle(s, cg, 40 * MiB, false, false));
        assert_int_equal(control_cgroup_set_paused(cg, false), 0);
        assert_null(cycle(s, cg, 41 * MiB, false, true)); /* Pause("") */
        cg->policy.stream_protection = STREAM_PROTECTION_NO;
        assert_null(cycle(s, cg, 42 * MiB, false, false));
        cg->policy.stream_protection = STREAM_PROTECTION_YES;
        cg->policy.mode = POLICY_MODE_OFF;
        assert_null(cycle(s, cg, 43 * MiB, false, false));
        /* And the control: the same cgroup, active, gets its drop. */
        cg->policy.mode = POLICY_MODE_ACTIVE;
        struct actuator_job *j = cycle(s, cg, 44 * MiB, true, false);
        assert_non_null(j);
        actuator_job_free(j);

        control_cgroup_free(cg);
        cgroup_free(cg);
        streams_free(s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_stream_dropped_behind_reader),
                cmocka_unit_test(test_dry_run_and_advise_drop_nothing),
                cmocka_unit_test(test_paused_or_off_get_nothing),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
