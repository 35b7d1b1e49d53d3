/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lrugen-source.h: the lru_gen files (lru_gen or lru_gen_full for reading, lru_gen for writing,
 * /sys/kernel/mm/lru_gen/enabled), read once per cycle into the histogram the cycle input
 * carries, and the kernel capabilities probed with them (manager-probe.c). */
#pragma once

#include <stdbool.h>

#include "mglrud/core/file-trouble.h"
#include "mglrud/kernel/lrugen.h"
#include "mglrud/policy/policy.h"
#include "mglrud/shared/fileio.h"

/* What lru_gen's memcg ids are (manager-probe.c: learnt from the first histograms). */
enum lrugen_ids {
        LRUGEN_IDS_UNKNOWN,        /* not known yet: paths are kept */
        LRUGEN_IDS_CGROUP,         /* 7.x: cgroup ids; a cgroup is found by id, no path kept */
        LRUGEN_IDS_PRIVATE,        /* 6.x private ids: a cgroup is found by its path */
};

struct lrugen_source {
        int read_fd, write_fd;
        int enabled_fd;             /* /sys/kernel/mm/lru_gen/enabled, read each cycle */
        bool readable;              /* lru_gen or lru_gen_full readable */
        bool full;                  /* reading lru_gen_full (tier counters available) */
        bool off;                   /* MGLRU switched off at run time: the fallback runs */
        struct read_buf buf;
        struct lrugen lrugen;
        bool valid;                 /* this cycle's parse succeeded */
        enum lrugen_ids ids;
        struct file_trouble trouble;
};

/* Initializes s with no file open. */
void lrugen_source_init(struct lrugen_source *s);

/* Closes the files and frees the histogram. */
void lrugen_source_done(struct lrugen_source *s);

/* (Re)opens lru_gen under debugfs_root for reading (lru_gen_full if possible) and, unless
 * dry_run, writing; sets s->readable/full and caps->lrugen_write, and says once what is
 * missing. */
void lrugen_source_open(struct lrugen_source *s, const char *debugfs_root, bool dry_run,
                        struct kernel_caps *caps);

/* Reads this cycle's lru_gen(_full) into s->lrugen; s->valid says whether it worked. Until
 * s->ids is known, learns it from what was read against the tree under cgroup_root (then reads
 * without paths). */
void lrugen_source_read(struct lrugen_source *s, const char *debugfs_root,
                        const char *cgroup_root);

/* Returns this cycle's histogram, or NULL when it could not be read. */
const struct lrugen *lrugen_source_histogram(const struct lrugen_source *s);

/* Fills the page size and the memory.reclaim capabilities of caps from the kernel: write
 * probes in the cgroup root outside dry_run, inferred from the lru_gen id format (read through
 * s) in dry-run. */
void lrugen_source_probe_caps(struct lrugen_source *s, const char *debugfs_root,
                              const char *cgroup_root, bool dry_run, struct kernel_caps *caps);
