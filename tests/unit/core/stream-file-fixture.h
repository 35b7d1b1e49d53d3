/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What test-stream-protection.c (the cycle's drops) and test-stream-fast-drops.c (the fast path's)
 * share: a managed cgroup of plain files whose memory.max a 48 MiB file read once exceeds, that
 * file on a real file system (its pages measured with mincore()), and a stream table that opens
 * it for every drop. One copy of this state per test program. */
#pragma once

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
#include <systemd/sd-event.h>

#include <linux/types.h>

#include "core-fixture.h"
#include "daemon/core/bpf/page-cache-inserts.h"
#include "daemon/core/stream-events.h"
#include "mglrud/core/control.h"
#include "mglrud/core/stream-protection.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/time.h"
#include "test-policy.h"

#define MiB (UINT64_C(1) << 20)
#define PAGE UINT64_C(4096)
#define FILE_BYTES (48 * MiB)

static char dir[PATH_MAX];
static char data_path[PATH_MAX + 16];

static inline void write_file(const char *name, const char *text) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "%s/cg/%s", dir, name);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* The cgroup: memory.max 16M with 15M used, so a 48M file read once is a stream. */
static inline struct cgroup *make_cgroup(void) {
        char p[PATH_MAX + 8];
        struct stat st;
        snprintf(p, sizeof p, "%s/cg", dir);
        assert_int_equal(stat(p, &st), 0);
        struct cgroup *cg;
        assert_int_equal(cgroup_new(dir, "/cg", st.st_ino, CGROUP_KEEP_ALL, &cg), 0);
        test_give_policy(cg);
        return cg;
}

static inline int stream_file_setup(void **state) {
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

static inline int stream_file_teardown(void **state) {
        assert_int_equal(rm_tree(dir), 0);
        return 0;
}

/* Reads the whole file, so all its pages are cached. */
static inline void cache_file(void) {
        int fd = open(data_path, O_RDONLY | O_CLOEXEC);
        static char buf[1 << 20];
        assert_true(fd >= 0);
        while (read(fd, buf, sizeof buf) > 0)
                ;
        close(fd);
}

/* Returns how many of the file's first n pages are resident. */
static inline uint64_t resident_pages(uint64_t n) {
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

static inline int open_data(const struct streams_key *key, uint32_t generation, char *path,
                     size_t size, void *userdata) {
        snprintf(path, size, "%s", data_path);
        int fd = open(data_path, O_RDONLY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

/* What every test works on: the managed cgroup of setup()'s tree (make_cgroup()) and a stream
 * table reading its files through open_data(); made before each test, freed after it, skipped
 * or failed alike. */
struct subject {
        struct streams *streams;
        struct cgroup *cgroup;
};

static inline int subject_new(void **state) {
        struct subject *t = calloc(1, sizeof *t);
        assert_non_null(t);
        t->cgroup = make_cgroup();
        assert_int_equal(streams_new("/proc", &t->streams), 0);
        streams_set_file_opener(t->streams, open_data, NULL);
        *state = t;
        return 0;
}

static inline int subject_free(void **state) {
        struct subject *t = *state;
        control_cgroup_free(t->cgroup);
        cgroup_free(t->cgroup);
        streams_free(t->streams);
        free(t);
        return 0;
}

#define SUBJECT_TEST(f) cmocka_unit_test_setup_teardown(f, subject_new, subject_free)

static struct actuator_job *done_job;

static inline void on_done(struct actuator_job *j, void *userdata) {
        assert_null(done_job);
        done_job = j;
}
