/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A tree for the manager's tests (manager_start() and manager_cycle() on files): in a mkdtemp()
 * directory, cgroup/ (the root with its memory.stat), proc/ (meminfo without swap, swaps,
 * pressure/memory), no-debugfs/ (absent: no lru_gen), mglrud.conf with the test's text, and
 * cgroups made of plain memory files. */
#pragma once

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files-fixture.h"

struct manager_tree {
        char dir[64]; /* the temporary directory */
        char cgroup_root[96], proc_root[96], debugfs_root[96], conf[96], dropins[96];
};

/* Writes text into dir/name (write_at() on the directory). */
static inline void tree_write_file(const char *dir, const char *name, const char *text) {
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dirfd >= 0);
        write_at(dirfd, name, text);
        assert_int_equal(close(dirfd), 0);
}

/* Lays out t in a new directory made from template tmpl ("/tmp/NAME.XXXXXX"), its
 * configuration config_text. */
static inline void manager_tree_init(struct manager_tree *t, const char *tmpl,
                                     const char *config_text) {
        snprintf(t->dir, sizeof t->dir, "%s", tmpl);
        assert_non_null(mkdtemp(t->dir));
        snprintf(t->cgroup_root, sizeof t->cgroup_root, "%s/cgroup", t->dir);
        snprintf(t->proc_root, sizeof t->proc_root, "%s/proc", t->dir);
        snprintf(t->debugfs_root, sizeof t->debugfs_root, "%s/no-debugfs", t->dir);
        snprintf(t->conf, sizeof t->conf, "%s/mglrud.conf", t->dir);
        snprintf(t->dropins, sizeof t->dropins, "%s/mglrud.conf.d", t->dir);

        assert_int_equal(mkdir(t->cgroup_root, 0755), 0);
        tree_write_file(t->cgroup_root, "memory.stat", "anon 0\nfile 0\n");
        char pressure[PATH_MAX];
        assert_int_equal(mkdir(t->proc_root, 0755), 0);
        snprintf(pressure, sizeof pressure, "%s/pressure", t->proc_root);
        assert_int_equal(mkdir(pressure, 0755), 0);
        tree_write_file(pressure, "memory", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
                                            "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
        tree_write_file(t->proc_root, "meminfo", "MemTotal:        8388608 kB\n"
                                                 "MemFree:         4194304 kB\n"
                                                 "MemAvailable:    6291456 kB\n"
                                                 "SwapTotal:             0 kB\n"
                                                 "SwapFree:              0 kB\n");
        tree_write_file(t->proc_root, "swaps", "Filename\tType\tSize\tUsed\tPriority\n");
        tree_write_file(t->dir, "mglrud.conf", config_text);
}

/* Makes the cgroup directory rel under t's cgroup root: with the memory files of a small idle
 * cgroup (2 MiB, memory.high high: "max" or bytes), or none (no memory controller) when high
 * is NULL. */
static inline void manager_tree_cgroup(const struct manager_tree *t, const char *rel,
                                       const char *high) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s%s", t->cgroup_root, rel);
        assert_int_equal(mkdir(p, 0755), 0);
        if (!high)
                return;
        tree_write_file(p, "memory.stat", "anon 1048576\nfile 1048576\n");
        tree_write_file(p, "memory.current", "2097152\n");
        tree_write_file(p, "memory.min", "0\n");
        tree_write_file(p, "memory.low", "0\n");
        tree_write_file(p, "memory.high", high);
        tree_write_file(p, "memory.max", "max\n");
        tree_write_file(p, "memory.swap.current", "0\n");
        tree_write_file(p, "memory.swap.max", "max\n");
        tree_write_file(p, "memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
                                              "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
        tree_write_file(p, "memory.reclaim", "");
}
