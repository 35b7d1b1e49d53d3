/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the core's tests of kernel files share: writing a file of a fixture tree, copying a real
 * capture from tests/fixtures/ into it, removing the tree without a shell, and the log lines
 * said meanwhile (to check what is said once). */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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

#include "mglrud/shared/log.h"

/* Writes text as the whole file name in dirfd, creating it (an open descriptor of it reads the
 * new text: the file is truncated, not replaced). */
static inline void write_at(int dirfd, const char *name, const char *text) {
        int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        close(fd);
}

/* Copies tests/fixtures/rel (MGLRUD_FIXTURES) to name in dirfd. */
static inline void copy_fixture(int dirfd, const char *name, const char *rel) {
        char path[512], buf[65536];
        const char *root = getenv("MGLRUD_FIXTURES");
        assert_non_null(root);
        snprintf(path, sizeof path, "%s/%s", root, rel);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        ssize_t n = read(fd, buf, sizeof buf - 1);
        assert_true(n >= 0 && n < (ssize_t) sizeof buf - 1);
        close(fd);
        buf[n] = 0;
        write_at(dirfd, name, buf);
}

static inline int rm_tree_entry(const char *path, const struct stat *st, int type,
                                struct FTW *ftw) {
        (void) st, (void) type, (void) ftw;
        return remove(path) < 0 ? -errno : 0;
}

/* Removes dir and everything below it, symlinks as links. Returns 0 or a negative errno. */
static inline int rm_tree(const char *dir) {
        int r = nftw(dir, rm_tree_entry, 16, FTW_DEPTH | FTW_PHYS);
        return r < 0 ? -errno : r;
}

/* The log lines said since log_lines_start(). */
#define LOG_LINES_MAX 32
static struct {
        char line[LOG_LINES_MAX][256];
        int level[LOG_LINES_MAX];
        unsigned n;
} log_lines;

static inline void log_lines_capture(int level, const char *msg, void *userdata) {
        (void) userdata;
        if (log_lines.n < LOG_LINES_MAX) {
                log_lines.level[log_lines.n] = level;
                snprintf(log_lines.line[log_lines.n++], sizeof log_lines.line[0], "%s", msg);
        }
}

/* Forgets the lines said so far and captures those said from now on. */
static inline void log_lines_start(void) {
        log_lines.n = 0;
        log_set_capture(log_lines_capture, NULL);
}

static inline void log_lines_stop(void) {
        log_set_capture(NULL, NULL);
}

/* Returns how many lines said since log_lines_start() hold text. */
static inline unsigned log_lines_with(const char *text) {
        unsigned n = 0;
        for (unsigned i = 0; i < log_lines.n; i++)
                n += strstr(log_lines.line[i], text) != NULL;
        return n;
}
