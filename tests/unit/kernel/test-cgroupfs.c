/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroupfs_walk(): the one walker, the same on the cgroup2 mount and on fixture trees: every
 * directory once, parents first, with its inode as id; files and symlinks skipped; names with
 * any byte passed as they are; a directory removed during the walk skipped; an error from the
 * callback stops the walk. */
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
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "mglrud/kernel/cgroup-files.h"
#include "mglrud/kernel/cgroupfs.h"

struct seen {
        char *paths[32];
        uint64_t ids[32];
        size_t n;
        const char *root;
        bool race;              /* visiting /v/x removes /v/y and the other way round */
        int fail_on_n;          /* return -EIO from the n-th call (1-based), 0: never */
};

static int collect(const char *rel_path, uint64_t id, int dirfd, void *userdata) {
        struct seen *s = userdata;
        if (s->fail_on_n && (int) s->n + 1 == s->fail_on_n)
                return -EIO;
        assert_true(s->n < 32);
        s->paths[s->n] = strdup(rel_path);
        s->ids[s->n++] = id;
        if (s->race && (strcmp(rel_path, "/v/x") == 0 || strcmp(rel_path, "/v/y") == 0)) {
                char p[PATH_MAX];
                snprintf(p, sizeof p, "%s/v/%c", s->root, rel_path[3] == 'x' ? 'y' : 'x');
                assert_int_equal(rmdir(p), 0);
        }
        return 0;
}

static void seen_free(struct seen *s) {
        for (size_t i = 0; i < s->n; i++)
                free(s->paths[i]);
        s->n = 0;
}

static size_t find(const struct seen *s, const char *path) {
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->paths[i], path) == 0)
                        return i;
        fail_msg("%s not walked", path);
        return SIZE_MAX;
}

static uint64_t ino_of(const char *root, const char *rel) {
        char p[PATH_MAX];
        struct stat st;
        snprintf(p, sizeof p, "%s%s", root, rel);
        assert_int_equal(stat(p, &st), 0);
        return (uint64_t) st.st_ino;
}

static void mk(const char *root, const char *rel) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s%s", root, rel);
        assert_int_equal(mkdir(p, 0755), 0);
}

static char root[] = "/tmp/mglrud-test-walk.XXXXXX";

static int setup(void **state) {
        assert_non_null(mkdtemp(root));
        mk(root, "/a.slice");
        mk(root, "/a.slice/b c");
        mk(root, "/a.slice/b c/d\nnewline");
        mk(root, "/e");
        mk(root, "/e/\xff\xfe not utf-8");
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/e/memory.stat", root);
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
        snprintf(p, sizeof p, "%s/link", root);
        assert_int_equal(symlink("a.slice", p), 0);
        return 0;
}

static int teardown(void **state) {
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        assert_int_equal(system(cmd), 0);
        return 0;
}

static void test_walk_tree(void **state) {
        struct seen s = { .root = root };
        assert_int_equal(cgroupfs_walk(root, collect, &s), 0);
        assert_int_equal(s.n, 6); /* /, a.slice, b c, d\nnewline, e, the non-UTF-8 one */
        assert_string_equal(s.paths[0], "/");
        assert_int_equal(s.ids[0], ino_of(root, ""));
        static const char *const dirs[] = { "/a.slice", "/a.slice/b c", "/a.slice/b c/d\nnewline",
                                            "/e", "/e/\xff\xfe not utf-8" };
        for (size_t i = 0; i < 5; i++)
                assert_int_equal(s.ids[find(&s, dirs[i])], ino_of(root, dirs[i]));
        /* Parents before children. */
        assert_true(find(&s, "/a.slice") < find(&s, "/a.slice/b c"));
        assert_true(find(&s, "/a.slice/b c") < find(&s, "/a.slice/b c/d\nnewline"));
        seen_free(&s);
}

static void test_vanished_and_errors(void **state) {
        /* A directory removed while the walk is in its parent (listed, then gone): skipped, no
         * error. Whichever of the two siblings comes first removes the other. */
        mk(root, "/v");
        mk(root, "/v/x");
        mk(root, "/v/y");
        struct seen s = { .root = root, .race = true };
        assert_int_equal(cgroupfs_walk(root, collect, &s), 0);
        assert_int_equal(s.n, 8); /* the 6 of test_walk_tree, /v, one of x and y */
        seen_free(&s);

        /* The callback's error stops the walk and is returned. */
        struct seen f = { .root = root, .fail_on_n = 3 };
        assert_int_equal(cgroupfs_walk(root, collect, &f), -EIO);
        assert_int_equal(f.n, 2);
        seen_free(&f);

        /* A root that does not exist is an error. */
        struct seen g = {};
        assert_int_equal(cgroupfs_walk("/nonexistent/mglrud", collect, &g), -ENOENT);
        assert_int_equal(g.n, 0);
}

/* Returns the plan for n cgroups under fd_budget and kept_files_budget, with how many fit in
 * *ret_max. */
static struct cgroup_keep_plan plan_for(size_t n, uint64_t fd_budget, uint64_t kept_files_budget,
                                        size_t *ret_max) {
        struct cgroup_keep_plan p;
        cgroup_files_keep_plan_for(n, fd_budget, kept_files_budget, &p, ret_max);
        return p;
}

/* Returns the descriptors the plan p for n cgroups holds (the directories included). */
static uint64_t plan_fds(const struct cgroup_keep_plan *p, size_t n) {
        uint64_t fds = 0;
        for (size_t i = 0; i < n; i++)
                fds += cgroup_files_fd_cost(cgroup_keep_plan_mask(p, i));
        return fds;
}

/* The plan fits both budgets, descriptors and files held open (kernel buffers): the largest
 * mask every cgroup fits, and the next one up for as many as the rest allows. */
static void test_keep_plan_for(void **state) {
        (void) state;
        size_t max;
        struct cgroup_keep_plan p;
        const unsigned all = cgroup_files_fd_cost(CGROUP_KEEP_ALL) - 1; /* seven files */
        const unsigned hot = cgroup_files_fd_cost(CGROUP_KEEP_HOT) - 1; /* three */

        p = plan_for(100, UINT64_MAX, 32768, &max);
        assert_int_equal(p.mask, CGROUP_KEEP_ALL);
        assert_int_equal(p.n_first, 0);
        assert_int_equal(max, SIZE_MAX);
        /* 10,000 cgroups: descriptors to spare, but all seven files would be 70,000 buffers;
         * the hot three are 30,000, and the 2,768 buffers left give 692 cgroups all seven. */
        p = plan_for(10000, UINT64_MAX, 32768, &max);
        assert_int_equal(p.mask, CGROUP_KEEP_HOT);
        assert_int_equal(p.first_mask, CGROUP_KEEP_ALL);
        assert_int_equal(p.n_first, (32768 - 10000 * hot) / (all - hot));
        assert_int_equal(max, SIZE_MAX);
        p = plan_for(32768 / all, UINT64_MAX, 32768, &max);
        assert_int_equal(p.mask, CGROUP_KEEP_ALL);
        p = plan_for(32768 / all + 1, UINT64_MAX, 32768, &max);
        assert_int_equal(p.mask, CGROUP_KEEP_HOT);
        assert_int_equal(p.n_first, (32768 - (32768 / all + 1) * hot) / (all - hot));
        /* 20,000: the hot files of all would be 60,000 buffers: none each, the hot three for
         * as many as 32,768 buffers hold. */
        p = plan_for(20000, UINT64_MAX, 32768, &max);
        assert_int_equal(p.mask, CGROUP_KEEP_NONE);
        assert_int_equal(p.first_mask, CGROUP_KEEP_HOT);
        assert_int_equal(p.n_first, 32768 / hot);
        assert_int_equal(max, SIZE_MAX);
        /* 10,000 under this host's limit (20,000 - 512): the directories, and the hot files of
         * as many as the 9,488 descriptors left hold, within the budget to the last one. */
        p = plan_for(10000, 19488, 32768, &max);
        assert_int_equal(p.mask, CGROUP_KEEP_NONE);
        assert_int_equal(p.first_mask, CGROUP_KEEP_HOT);
        assert_int_equal(p.n_first, 9488 / hot);
        assert_true(plan_fds(&p, 10000) <= 19488);
        assert_true(plan_fds(&p, 10000) + hot > 19488);
        assert_int_equal(max, SIZE_MAX);
        /* The descriptor limit alone: 400 cgroups under 512 descriptors keep the directory,
         * and 37 of them their hot files too. */
        p = plan_for(400, 512, 32768, &max);
        assert_int_equal(p.mask, CGROUP_KEEP_NONE);
        assert_int_equal(p.n_first, (512 - 400) / hot);
        assert_int_equal(max, SIZE_MAX);
        p = plan_for(400, 1600, 32768, &max);
        assert_int_equal(p.mask, CGROUP_KEEP_HOT);
        assert_int_equal(p.n_first, 0); /* 1,600 is 4 a cgroup: nothing left over */
        assert_int_equal(plan_fds(&p, 400), 1600);
        p = plan_for(400, 2000, 32768, &max);
        assert_int_equal(p.n_first, (2000 - 400 * (hot + 1)) / (all - hot));
        assert_true(plan_fds(&p, 400) <= 2000);
        /* Not even the directories fit: none more, and only 512 managed. */
        p = plan_for(600, 512, 32768, &max);
        assert_int_equal(p.mask, CGROUP_KEEP_NONE);
        assert_int_equal(p.n_first, 0);
        assert_int_equal(max, 512);
        /* Both budgets at once: descriptors to spare, files not. */
        p = plan_for(1000, UINT64_MAX, 3000 + 8, &max);
        assert_int_equal(p.mask, CGROUP_KEEP_HOT);
        assert_int_equal(p.n_first, 8 / (all - hot));
}

static void put(const char *dir, const char *name, const char *text) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", dir, name);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* memory.swap.current is read only under a finite memory.swap.max (it only sizes the swap
 * room): with "max" a bad swap.current is never looked at; with a limit it is read, a bad one
 * named in the error, a good one returned. memory.low and memory.high are never read. */
static void test_read_skips_unused_files(void **state) {
        (void) state;
        char dir[] = "/tmp/mglrud-test-read.XXXXXX";
        assert_non_null(mkdtemp(dir));
        put(dir, "memory.stat", "anon 4096\nfile 8192\n");
        put(dir, "memory.current", "12288\n");
        put(dir, "memory.min", "4096\n");
        put(dir, "memory.low", "not a number\n");
        put(dir, "memory.high", "not a number\n");
        put(dir, "memory.swap.max", "max\n");
        put(dir, "memory.swap.current", "not a number\n");
        struct stat st;
        assert_int_equal(stat(dir, &st), 0);

        for (unsigned keep = 0; keep < 2; keep++) {
                struct cgroup_files f;
                struct cgroup_reading rd;
                struct cgroup_read_error e = {};
                assert_int_equal(cgroup_files_open("", dir, (uint64_t) st.st_ino,
                                                   keep ? CGROUP_KEEP_ALL : CGROUP_KEEP_NONE, &f), 0);
                put(dir, "memory.swap.max", "max\n");
                assert_int_equal(cgroup_files_read(&f, 1, &rd, &e), 0);
                assert_int_equal(rd.limits.current, 12288);
                assert_int_equal(rd.limits.min, 4096);
                assert_int_equal(rd.limits.swap_max, MEMCG_VALUE_MAX);
                assert_int_equal(rd.limits.swap_current, 0);
                assert_true(rd.limits.has_swap);

                /* The limits are kept: written, they are read again only once forgotten. */
                put(dir, "memory.swap.max", "1073741824\n");
                put(dir, "memory.min", "8192\n");
                assert_int_equal(cgroup_files_read(&f, 2, &rd, &e), 0);
                assert_int_equal(rd.limits.min, 4096);
                assert_int_equal(rd.limits.swap_max, MEMCG_VALUE_MAX);
                cgroup_files_forget_limits(&f);
                assert_int_equal(cgroup_files_read(&f, 2, &rd, &e), -EINVAL);
                assert_int_equal(e.file, CGROUP_FILE_SWAP_CURRENT);
                assert_int_equal(f.min, 8192);
                put(dir, "memory.min", "4096\n");
                cgroup_files_forget_limits(&f);

                put(dir, "memory.swap.current", "65536\n");
                assert_int_equal(cgroup_files_read(&f, 3, &rd, &e), 0);
                assert_int_equal(rd.limits.swap_max, UINT64_C(1073741824));
                assert_int_equal(rd.limits.swap_current, 65536);
                assert_int_equal(rd.limits.min, 4096);
                /* A bad limit is an error naming it, and is read again next time. */
                put(dir, "memory.min", "bad\n");
                cgroup_files_forget_limits(&f);
                assert_int_equal(cgroup_files_read(&f, 4, &rd, &e), -EINVAL);
                assert_int_equal(e.file, CGROUP_FILE_MIN);
                assert_false(f.limits_known);
                put(dir, "memory.min", "4096\n");
                assert_int_equal(cgroup_files_read(&f, 5, &rd, &e), 0);
                assert_true(f.limits_known);
                assert_true(cgroup_file_is_kept_limit("memory.min"));
                assert_true(cgroup_file_is_kept_limit("memory.swap.max"));
                assert_false(cgroup_file_is_kept_limit("memory.events"));
                assert_false(cgroup_file_is_kept_limit("memory.reclaim"));
                put(dir, "memory.swap.current", "not a number\n");
                put(dir, "memory.swap.max", "max\n");
                cgroup_files_close(&f);
        }
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

/* memory.high and memory.max for headroom: read when asked, "max" as MEMCG_VALUE_MAX, a missing
 * memory.high (the root) as "max", a bad one an error that leaves the limits untouched; a plain
 * cycle's read never says it has them. */
static void test_read_high_max(void **state) {
        (void) state;
        char dir[] = "/tmp/mglrud-test-high.XXXXXX";
        assert_non_null(mkdtemp(dir));
        put(dir, "memory.stat", "anon 4096\nfile 8192\n");
        put(dir, "memory.current", "12288\n");
        put(dir, "memory.high", "1048576\n");
        put(dir, "memory.max", "max\n");
        struct stat st;
        assert_int_equal(stat(dir, &st), 0);
        struct cgroup_files f;
        struct cgroup_reading rd;
        assert_int_equal(cgroup_files_open("", dir, (uint64_t) st.st_ino, CGROUP_KEEP_ALL, &f), 0);
        assert_int_equal(f.fds[CGROUP_FILE_HIGH], -1); /* never kept open */
        assert_int_equal(cgroup_files_read(&f, 1, &rd, NULL), 0);
        assert_false(rd.limits.has_high_max);

        assert_int_equal(cgroup_files_read_high_max(&f, &rd.limits), 0);
        assert_true(rd.limits.has_high_max);
        assert_int_equal(rd.limits.high, 1048576);
        assert_int_equal(rd.limits.max, MEMCG_VALUE_MAX);

        put(dir, "memory.high", "max\n");
        put(dir, "memory.max", "2097152\n");
        assert_int_equal(cgroup_files_read_high_max(&f, &rd.limits), 0);
        assert_int_equal(rd.limits.high, MEMCG_VALUE_MAX);
        assert_int_equal(rd.limits.max, 2097152);

        struct memcg_limits l = { .high = 1, .max = 2 };
        put(dir, "memory.high", "lots\n");
        assert_int_equal(cgroup_files_read_high_max(&f, &l), -EINVAL);
        assert_false(l.has_high_max);
        assert_int_equal(l.high, 1);
        cgroup_files_close(&f);

        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/memory.high", dir);
        assert_int_equal(unlink(p), 0);
        assert_int_equal(cgroup_files_open("", dir, (uint64_t) st.st_ino, CGROUP_KEEP_NONE, &f), 0);
        assert_int_equal(cgroup_files_read_high_max(&f, &l), 0);
        assert_int_equal(l.high, MEMCG_VALUE_MAX);
        assert_int_equal(l.max, 2097152);
        cgroup_files_close(&f);

        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_read_high_max),
                cmocka_unit_test(test_walk_tree),
                cmocka_unit_test(test_vanished_and_errors),
                cmocka_unit_test(test_keep_plan_for),
                cmocka_unit_test(test_read_skips_unused_files),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
