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

/* The keep mask fits both budgets: descriptors and files held open (kernel buffers). */
static void test_keep_mask_for(void **state) {
        (void) state;
        size_t max;
        const unsigned all = cgroup_files_fd_cost(CGROUP_KEEP_ALL) - 1; /* nine files */

        assert_int_equal(cgroup_files_keep_mask_for(100, UINT64_MAX, 32768, &max), CGROUP_KEEP_ALL);
        assert_int_equal(max, SIZE_MAX);
        /* 10,000 cgroups: descriptors to spare, but all nine files would be 90,000 buffers. */
        assert_int_equal(cgroup_files_keep_mask_for(10000, UINT64_MAX, 32768, &max), CGROUP_KEEP_HOT);
        assert_int_equal(max, SIZE_MAX);
        assert_int_equal(cgroup_files_keep_mask_for(32768 / all, UINT64_MAX, 32768, &max),
                         CGROUP_KEEP_ALL);
        assert_int_equal(cgroup_files_keep_mask_for(32768 / all + 1, UINT64_MAX, 32768, &max),
                         CGROUP_KEEP_HOT);
        assert_int_equal(cgroup_files_keep_mask_for(20000, UINT64_MAX, 32768, &max), CGROUP_KEEP_NONE);
        assert_int_equal(max, SIZE_MAX);
        /* The descriptor limit alone: 400 cgroups under 512 descriptors keep the directory. */
        assert_int_equal(cgroup_files_keep_mask_for(400, 512, 32768, &max), CGROUP_KEEP_NONE);
        assert_int_equal(max, SIZE_MAX);
        assert_int_equal(cgroup_files_keep_mask_for(400, 1600, 32768, &max), CGROUP_KEEP_HOT);
        assert_int_equal(cgroup_files_keep_mask_for(600, 512, 32768, &max), CGROUP_KEEP_NONE);
        assert_int_equal(max, 512);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_walk_tree),
                cmocka_unit_test(test_vanished_and_errors),
                cmocka_unit_test(test_keep_mask_for),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
