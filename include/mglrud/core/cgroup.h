/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup.h: one managed cgroup: its identity (cgroup id = directory inode, and the container
 * or pod its path names), its open memory files, the policy the configuration and the
 * container's annotation give it, and the controller state (control-state.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "mglrud/config/config.h"
#include "mglrud/kernel/cgroup-files.h"
#include "mglrud/kernel/container.h"

struct pressure_trigger;

struct cgroup {
        uint64_t id;                    /* cgroup id (directory inode on cgroup2) */
        char *path;                     /* "/system.slice/foo.service", "/" for the root */
        char *name;                     /* path for people and protocols (escape_path()): what
                                         * logs, the bus, metrics and dumps show; path itself
                                         * when it needs no escaping */
        struct cgroup_files files;
        bool seen;                      /* mark for the rescan sweep */
        bool vanished;                  /* a read saw ENOENT/ENODEV: drop at next rescan */
        uint8_t read_error_file;        /* 1 + the enum cgroup_file the last read failed on,
                                         * 0 when it succeeded: the failure was logged once */
        uint8_t read_error_errno;       /* ... and its errno (at most 255) */
        const struct policy_section *section; /* most specific matching section, NULL when
                                               * only the annotation's keys manage it */
        /* Out of line, allocated only when they say something (cgroup_set_identity()): inline
         * they cost every cgroup 304 bytes, and few cgroups are containers, fewer annotated. */
        struct container_identity *container; /* what its path says; NULL: no container */
        struct cgroup_annotation *annotation; /* recorded by mglrud-oci-hook (user.mglrud.*);
                                               * NULL: none */
        /* The effective policy: the manager's pooled copy (policy-pool.h), shared with every
         * cgroup that has the same; NULL until the manager sets it. Never written through. */
        const struct policy *policy;
        uint64_t *covered_ids;          /* unmanaged descendants this cgroup's lru_gen work covers */
        size_t n_covered;
        void *userdata;                 /* the controller state (control.c) */
        struct pressure_trigger *trigger; /* armed while mglrud reclaims here (brake-psi.c) */
        uint64_t headroom_armed_usec;   /* its last decision between cycles (manager-headroom.c) */
        char path_storage[];            /* the path it was found at (path, until a rename) */
};

/* Opens the cgroup root/path with id, keeping the files in keep open (cgroup-files.h). Returns 0
 * and a new cgroup, or what cgroup_files_open() returns. */
int cgroup_new(const char *root, const char *path, uint64_t id, unsigned keep,
               struct cgroup **ret);

/* Sets cg's path after a rename (ids are stable, paths are not) and its name. Returns 0 or
 * -ENOMEM (cg unchanged). */
int cgroup_set_path(struct cgroup *cg, const char *path);

/* Sets cg's container identity (ci; kind NONE or NULL: none) and annotation (a; NULL or
 * carrying nothing: none), each a copy of its own only when it says something (the NULL
 * pointers then mean what an empty one means to config_policy_for()). Returns 0 or -ENOMEM
 * (cg unchanged). */
int cgroup_set_identity(struct cgroup *cg, const struct container_identity *ci,
                        const struct cgroup_annotation *a);

/* Closes files and frees the cgroup (not its userdata). NULL is fine. */
void cgroup_free(struct cgroup *cg);

/* Reads the cgroup's memory files. Returns 0, -ENOENT when the cgroup vanished (cg->vanished is
 * set), or another negative errno with the file and line in *ret_error (when not NULL). */
int cgroup_read(struct cgroup *cg, uint64_t now_usec, struct cgroup_reading *ret,
                struct cgroup_read_error *ret_error);
