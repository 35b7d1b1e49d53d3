/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup-files.h: a cgroup's memory files, kept open for per-cycle preads: memory.stat,
 * memory.pressure, memory.current/min/low/high/max and memory.swap.current/max. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "mglrud/kernel/memcg.h"
#include "mglrud/kernel/memstat.h"
#include "mglrud/kernel/psi.h"

enum cgroup_file {
        CGROUP_FILE_STAT,
        CGROUP_FILE_PRESSURE,
        CGROUP_FILE_CURRENT,
        CGROUP_FILE_MIN,
        CGROUP_FILE_LOW,
        CGROUP_FILE_HIGH,
        CGROUP_FILE_MAX,
        CGROUP_FILE_SWAP_CURRENT,
        CGROUP_FILE_SWAP_MAX,
        _CGROUP_FILE_MAX,
};

/* What one cycle read from a cgroup's own files. */
struct cgroup_reading {
        uint64_t now_usec;
        struct memstat stat;
        struct psi psi;
        bool has_psi;
        struct memcg_limits limits;
};

struct cgroup_files {
        int dirfd;                      /* the cgroup directory (writes open memory.reclaim here) */
        int fds[_CGROUP_FILE_MAX];      /* -1 when the file is absent (e.g. swap accounting off) */
};

/* Opens the cgroup directory root/path, checks that it is still the cgroup with inode id, and
 * opens its memory files into *ret. Returns 0, -ENOENT when it vanished (or another directory
 * took its name), -EOPNOTSUPP when it has no memory controller (no memory.stat), or -errno. */
int cgroup_files_open(const char *root, const char *path, uint64_t id, struct cgroup_files *ret);

/* Closes every file and marks them closed. */
void cgroup_files_close(struct cgroup_files *f);

/* Reads stat, pressure and the limit files with pread at time now_usec. Returns 0, -ENOENT
 * when the cgroup vanished, or another negative errno. */
int cgroup_files_read(const struct cgroup_files *f, uint64_t now_usec, struct cgroup_reading *ret);
