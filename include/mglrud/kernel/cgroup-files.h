/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup-files.h: a cgroup's memory files: memory.stat, memory.pressure,
 * memory.current/min/max and memory.swap.current/max (memory.low is not read: no controller uses
 * it, and each file read costs every cgroup a syscall per cycle; memory.high only for the
 * cgroups that keep headroom under it, cgroup_files_read_high_max(); memory.min and
 * memory.swap.max are kept between reads until they are written, cgroup_files_forget_limits()).
 * The directory stays open (it identifies the cgroup: writes go through it); the files are kept
 * open for per-cycle preads as far as the descriptor budget allows (a keep plan), the others
 * are opened for each read. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mglrud/kernel/memcg.h"
#include "mglrud/kernel/memstat.h"
#include "mglrud/kernel/psi.h"

enum cgroup_file {
        CGROUP_FILE_STAT,
        CGROUP_FILE_PRESSURE,
        CGROUP_FILE_CURRENT,
        CGROUP_FILE_MIN,
        CGROUP_FILE_MAX,
        CGROUP_FILE_SWAP_CURRENT,
        CGROUP_FILE_SWAP_MAX,
        CGROUP_FILE_HIGH,               /* read by headroom only: never kept open */
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

/* Keep masks (1u << enum cgroup_file): which files stay open. memory.high is read only where
 * headroom is on: it is opened for each read and holds no descriptor. */
#define CGROUP_KEEP_ALL (((1u << _CGROUP_FILE_MAX) - 1) & ~(1u << CGROUP_FILE_HIGH))
/* The ones read every cycle whatever the policy: 3 descriptors. */
#define CGROUP_KEEP_HOT ((1u << CGROUP_FILE_STAT) | (1u << CGROUP_FILE_PRESSURE) | \
                         (1u << CGROUP_FILE_CURRENT))
#define CGROUP_KEEP_NONE 0u

struct cgroup_files {
        int dirfd;                      /* the cgroup directory (writes open memory.reclaim here) */
        int fds[_CGROUP_FILE_MAX];      /* kept open, or -1 */
        unsigned present;               /* (1u << file) for the files the cgroup has (swap files
                                         * are absent without swap accounting) */
        bool reclaim_denied;            /* memory.reclaim exists but we may not write it (a
                                         * delegated subtree, and no CAP_DAC_OVERRIDE) */
        uid_t owner;                    /* the directory's owner */
        /* memory.min and memory.swap.max as last read: limits change only when someone writes
         * them, so they are read again only after cgroup_files_forget_limits() (inotify saw a
         * write, a rescan, no inotify): two reads a cycle fewer for every cgroup. */
        bool limits_known;
        uint64_t min, swap_max;
};

/* Returns the descriptors a cgroup_files holds with keep mask keep. */
unsigned cgroup_files_fd_cost(unsigned keep);

/* Which files n managed cgroups keep open: every one keeps mask, and the first n_first (in the
 * manager's order) first_mask, the next mask up, with the descriptors left over. A limit that
 * does not fit every cgroup's hot files then still keeps them for as many as it fits, and only
 * the others open their files for each read. */
struct cgroup_keep_plan {
        unsigned mask;
        unsigned first_mask;            /* == mask when n_first is 0 */
        size_t n_first;
};

/* Returns the keep mask of the i-th of the cgroups that plan p is for. */
static inline unsigned cgroup_keep_plan_mask(const struct cgroup_keep_plan *p, size_t i) {
        return i < p->n_first ? p->first_mask : p->mask;
}

/* Fills *ret with the plan under which n cgroups fit both budgets: fd_budget descriptors (a
 * cgroup holds cgroup_files_fd_cost() of them) and kept_files_budget memory files held open.
 * Its mask is the largest of all files, the hot ones and none that every cgroup fits; the next
 * one up goes to as many as the rest of both budgets allows. The second budget bounds kernel
 * memory: a kernfs file that was read keeps its seq_file buffer, at least a page, until it is
 * closed (measured on 7.3: 26 KiB per cgroup with all nine open, 3 KiB with the directory
 * alone). *ret_max is how many cgroups fit at all (SIZE_MAX: all of them; only the descriptors
 * can run out). */
void cgroup_files_keep_plan_for(size_t n, uint64_t fd_budget, uint64_t kept_files_budget,
                                struct cgroup_keep_plan *ret, size_t *ret_max);

/* Opens the cgroup directory root/path, checks that it is still the cgroup with inode id, notes
 * which memory files it has and keeps those in the keep mask open. Returns 0, -ENOENT when it
 * vanished (or another directory took its name), -EOPNOTSUPP when it has no memory controller
 * (no memory.stat), or -errno. */
int cgroup_files_open(const char *root, const char *path, uint64_t id, unsigned keep,
                      struct cgroup_files *ret);

/* Opens or closes files so that exactly those in keep (and present) are kept open. Returns 0, or
 * a negative errno (what was opened stays open). */
int cgroup_files_keep(struct cgroup_files *f, unsigned keep);

/* Reads one single-value file (memory.current, ...) into *ret: dflt when the cgroup has no such
 * file. Returns 0, -ENOENT when the cgroup vanished, or another negative errno. */
int cgroup_files_read_value(const struct cgroup_files *f, enum cgroup_file k, uint64_t dflt,
                            uint64_t *ret);

/* Reads memory.high and memory.max into limits (MEMCG_VALUE_MAX where the cgroup has no such
 * file, the root) and sets limits->has_high_max. Returns 0, -ENOENT when the cgroup vanished,
 * or another negative errno (limits then untouched). */
int cgroup_files_read_high_max(const struct cgroup_files *f, struct memcg_limits *limits);

/* Closes every file and marks them closed. */
void cgroup_files_close(struct cgroup_files *f);

/* Which file a read failed on, and its line (1-based; 0: the file as a whole). */
struct cgroup_read_error {
        enum cgroup_file file;
        unsigned line;
};

/* Returns "memory.stat" etc., or NULL. */
const char *cgroup_file_name(enum cgroup_file k);

/* Reads stat, pressure, memory.current and (when finite swap.max makes it matter)
 * memory.swap.current at time now_usec, and memory.min and memory.swap.max when they are not
 * known (f->limits_known), keeping them in f. Returns 0, -ENOENT when the cgroup vanished, or
 * another negative errno with the file and line in *ret_error (when not NULL). */
int cgroup_files_read(struct cgroup_files *f, uint64_t now_usec, struct cgroup_reading *ret,
                      struct cgroup_read_error *ret_error);

/* Makes the next cgroup_files_read() read memory.min and memory.swap.max again. */
void cgroup_files_forget_limits(struct cgroup_files *f);

/* Returns whether name is one of the files cgroup_files_read() keeps (memory.min,
 * memory.swap.max): a write to it means the kept values are out of date. */
bool cgroup_file_is_kept_limit(const char *name);
