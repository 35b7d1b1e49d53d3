/* SPDX-License-Identifier: GPL-2.0-or-later */
/* discovery.h: the managed cgroups and how they are found (manager-discovery.c): a walk of the
 * cgroup tree matches every directory against the configuration's sections; new matching
 * cgroups are opened, gone or no longer matching ones released, kept ones get the current
 * policy. inotify on every cgroup directory says when to walk again; a periodic rescan catches
 * what it cannot see. The manager owns one and runs the cycle over its cgroups. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mglrud/config/config.h"
#include "mglrud/core/actuator.h"
#include "mglrud/core/cgroup-attributes.h"
#include "mglrud/core/cgroup.h"
#include "mglrud/core/policy-pool.h"

/* Descriptors kept for everything but the managed cgroups' files: the bus (3 per connection,
 * interfaces/bus.c), queued writes (2 per job, ACTUATOR_MAX_QUEUED), pending stream drops
 * (STREAMS_MAX_FILES_PENDING), lru_gen, host files, inotify, BPF, the journal. */
#define MANAGER_FD_RESERVE 512

/* Memory files kept open across all managed cgroups. Each one read holds a kernel buffer of at
 * least a page, charged to mglrud's cgroup: 32,768 files are 128 MiB with 4 KiB pages, which
 * keeps every file of 4,681 cgroups open, the three read every cycle of up to 10,922, and beyond
 * that only the directories, with the three for as many as the rest holds (the others' files
 * are then opened for each read, about twice the CPU; cgroup_files_keep_plan_for()). */
#define MANAGER_KEPT_FILES_MAX 32768

struct discovery {
        struct cgroup **cgroups;    /* managed cgroups, sorted by id */
        size_t n_cgroups;
        bool rescan_needed;
        uint64_t last_rescan_usec;
        struct cgroup_keep_plan keep; /* which files each cgroup keeps open (cgroup-files.h) */
        bool fd_short;              /* the descriptor limit does not fit every cgroup */
        struct attribute_notes attribute_notes; /* whose refused xattrs were logged */
        /* The cgroups' effective policies, one copy of each (policy-pool.h): replaced at each
         * rescan; runtime overrides add theirs until the next one. */
        struct policy_pool *policies;
        int inotify_fd;             /* watches every cgroup directory for mkdir/rmdir */
        bool inotify_full;          /* the watch limit was hit (logged once) */
};

/* Initializes d with no cgroup, a rescan due and no inotify yet. */
void discovery_init(struct discovery *d);

/* Starts watching the tree with inotify; without it (said once) new cgroups are found by the
 * periodic rescan only. */
void discovery_watch_start(struct discovery *d);

/* Releases every cgroup (their control state too), the policies and inotify. */
void discovery_done(struct discovery *d);

/* Returns true when the tree should be walked at now_usec: asked for (start, reload, a cgroup
 * vanished), inotify saw a directory come or go (drained here), or the periodic rescan is due.
 * When inotify saw memory.min or memory.swap.max written (or cannot see writes), every managed
 * cgroup's next read takes those limits again (cgroup_files_forget_limits()). */
bool discovery_rescan_due(struct discovery *d, uint64_t now_usec);

/* Walks the tree under cgroup_root against c: new matching cgroups are opened, gone or no
 * longer matching ones released (their writes cancelled on a, which may be NULL), kept ones get
 * the current policy. Controller state survives across rescans by cgroup id. Returns 0 or a
 * negative errno (the walk failed, logged; -ENOMEM). */
int discovery_rescan(struct discovery *d, const struct config *c, const char *cgroup_root,
                     struct actuator *a, uint64_t now_usec);

/* Forgets every cgroup's section (they point into a configuration about to be freed) until the
 * next rescan sets them again. */
void discovery_forget_sections(struct discovery *d);

/* Returns the managed cgroup with this cgroup id, or NULL. */
struct cgroup *discovery_find(const struct discovery *d, uint64_t id);

/* Returns the managed cgroup with this name (escape_path()) or raw path, or NULL. */
struct cgroup *discovery_find_path(const struct discovery *d, const char *path);
