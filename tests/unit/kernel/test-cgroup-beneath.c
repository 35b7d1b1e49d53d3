/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening a cgroup beneath the root only (cgroup-beneath.h), with openat2 and with the walk it
 * falls back to before Linux 5.6, on a temporary tree:
 *   root/a.slice/b.scope      a directory
 *   root/link.scope -> ../out a symlink out of the root
 *   root/in.scope -> a.slice  a symlink that stays inside (refused all the same)
 *   root/file                 not a directory
 *   out/                      outside the root */
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

#include "mglrud/kernel/cgroup-beneath.h"
#include "mglrud/shared/macro.h"

struct tree {
        char dir[PATH_MAX];
        int root_fd;
};

static int setup(void **state) {
        static struct tree t;
        char p[PATH_MAX + 32];
        snprintf(t.dir, sizeof t.dir, "%s/mglrud-beneath-XXXXXX", getenv("TMPDIR") ?: "/tmp");
        assert_non_null(mkdtemp(t.dir));
        const char *const dirs[] = { "root", "root/a.slice", "root/a.slice/b.scope", "out" };
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                snprintf(p, sizeof p, "%s/%s", t.dir, dirs[i]);
                assert_int_equal(mkdir(p, 0755), 0);
        }
        snprintf(p, sizeof p, "%s/root/link.scope", t.dir);
        assert_int_equal(symlink("../out", p), 0);
        snprintf(p, sizeof p, "%s/root/in.scope", t.dir);
        assert_int_equal(symlink("a.slice", p), 0);
        snprintf(p, sizeof p, "%s/root/file", t.dir);
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
        snprintf(p, sizeof p, "%s/root", t.dir);
        t.root_fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(t.root_fd >= 0);
        *state = &t;
        return 0;
}

static int teardown(void **state) {
        struct tree *t = *state;
        char cmd[PATH_MAX + 16];
        close(t->root_fd);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
        return system(cmd) == 0 ? 0 : -1;
}

/* Returns what open(path) gives on the tree: the inode of the directory reached, or the
 * negative errno. */
static long long open_ino(int (*open_fn)(int, const char *), int root_fd, const char *path) {
        int fd = open_fn(root_fd, path);
        if (fd < 0)
                return fd;
        struct stat st;
        assert_int_equal(fstat(fd, &st), 0);
        close(fd);
        return (long long) st.st_ino;
}

static void check(int (*open_fn)(int, const char *), struct tree *t) {
        struct stat root, b;
        char p[PATH_MAX + 32];
        assert_int_equal(fstat(t->root_fd, &root), 0);
        snprintf(p, sizeof p, "%s/root/a.slice/b.scope", t->dir);
        assert_int_equal(stat(p, &b), 0);

        assert_int_equal(open_ino(open_fn, t->root_fd, "/"), (long long) root.st_ino);
        assert_int_equal(open_ino(open_fn, t->root_fd, ""), (long long) root.st_ino);
        assert_int_equal(open_ino(open_fn, t->root_fd, "/a.slice/b.scope"), (long long) b.st_ino);
        assert_int_equal(open_ino(open_fn, t->root_fd, "a.slice//./b.scope/"), (long long) b.st_ino);

        assert_int_equal(open_ino(open_fn, t->root_fd, "/../out"), -EXDEV);
        assert_int_equal(open_ino(open_fn, t->root_fd, "/a.slice/../a.slice"), -EXDEV);
        assert_int_equal(open_ino(open_fn, t->root_fd, ".."), -EXDEV);
        assert_int_equal(open_ino(open_fn, t->root_fd, "/link.scope"), -ELOOP);
        assert_int_equal(open_ino(open_fn, t->root_fd, "/in.scope/b.scope"), -ELOOP);
        assert_int_equal(open_ino(open_fn, t->root_fd, "/file"), -ENOTDIR);
        assert_int_equal(open_ino(open_fn, t->root_fd, "/gone.scope"), -ENOENT);
        /* A name that merely starts with dots is a name. */
        assert_int_equal(open_ino(open_fn, t->root_fd, "/...scope"), -ENOENT);
}

static void test_openat2(void **state) {
        check(cgroup_open_beneath, *state);
}

static void test_walk(void **state) {
        check(cgroup_open_beneath_walk, *state);
}

static void test_cgroup2(void **state) {
        struct tree *t = *state;
        /* A temporary directory is not cgroup2; the cgroup2 mount, where there is one, is. */
        assert_int_equal(cgroup_fd_is_cgroup2(t->root_fd), -EMEDIUMTYPE);
        int fd = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
                int r = cgroup_fd_is_cgroup2(fd);
                assert_true(r == 0 || r == -EMEDIUMTYPE); /* a v1 or hybrid host */
                close(fd);
        }
        assert_int_equal(cgroup_fd_is_cgroup2(-1), -EBADF);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_openat2, setup, teardown),
                cmocka_unit_test_setup_teardown(test_walk, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cgroup2, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
