/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup.h: one managed cgroup: its identity (cgroup id = directory inode), the files it keeps
 * open for per-cycle preads, and its samples. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "mglrud/config.h"
#include "mglrud/memcg.h"
#include "mglrud/memstat.h"
#include "mglrud/psi.h"

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

struct cgroup {
        uint64_t id;                    /* cgroup id (directory inode on cgroup2) */
        char *path;                     /* "/system.slice/foo.service", "/" for the root */
        int dirfd;
        int fds[_CGROUP_FILE_MAX];      /* -1 when the file is absent (e.g. swap accounting off) */
        const struct policy_section *section; /* most specific matching section */
        struct policy policy;           /* effective policy */
        uint64_t *covered_ids;          /* unmanaged descendants this cgroup's lru_gen work covers */
        size_t n_covered;
        bool seen;                      /* mark for the rescan sweep */
        bool vanished;                  /* a read saw ENOENT/ENODEV: drop at next rescan */
        uint64_t stream_files;          /* one-shot stream files dropped (or advised) */
        uint64_t stream_dropped_bytes;  /* … bytes asked to drop (POSIX_FADV_DONTNEED ranges) */
        void *userdata;                 /* the daemon's per-cgroup controller state */
};

/* Opens the cgroup directory root/path and its memory files. Returns 0 and a new cgroup, -ENOENT
 * when it vanished, -EOPNOTSUPP when it has no memory controller (no memory.stat), or -errno. */
int cgroup_open(const char *root, const char *path, uint64_t id, struct cgroup **ret);

/* Closes files and frees the cgroup (not its userdata). NULL is fine. */
void cgroup_free(struct cgroup *cg);

/* Reads stat, pressure and the limit files with pread. Returns 0, -ENOENT when the cgroup
 * vanished (cg->vanished is set), or another negative errno. */
int cgroup_read(struct cgroup *cg, uint64_t now_usec, struct cgroup_reading *ret);
