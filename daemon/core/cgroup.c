/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/cgroup.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mglrud/core/pressure-trigger.h"
#include "mglrud/shared/escape.h"

/* Returns the name of path (escape_path()): path itself when it needs no escaping, the common
 * case, which costs no allocation. NULL on OOM. */
static char *name_of(char *path) {
        char *n = escape_path(path);
        if (n && strcmp(n, path) == 0) {
                free(n);
                return path;
        }
        return n;
}

static void free_path_and_name(struct cgroup *cg) {
        if (cg->name != cg->path)
                free(cg->name);
        if (cg->path != cg->path_storage)
                free(cg->path);
}

int cgroup_new(const char *root, const char *path, uint64_t id, unsigned keep,
               struct cgroup **ret) {
        /* The path lives at the end of the same allocation (one allocation per cgroup, not
         * two: there can be thousands). */
        size_t len = strlen(path);
        struct cgroup *cg = calloc(1, sizeof *cg + len + 1);
        int r;

        if (!cg)
                return -ENOMEM;
        cg->id = id;
        cg->files.dirfd = -1;
        for (int i = 0; i < _CGROUP_FILE_MAX; i++)
                cg->files.fds[i] = -1;
        cg->path = memcpy(cg->path_storage, path, len + 1);
        cg->name = name_of(cg->path);
        r = cg->name ? cgroup_files_open(root, path, id, keep, &cg->files) : -ENOMEM;
        if (r < 0) {
                cgroup_free(cg);
                return r;
        }
        *ret = cg;
        return 0;
}

int cgroup_set_path(struct cgroup *cg, const char *path) {
        if (strcmp(cg->path, path) == 0)
                return 0;
        char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        char *n = name_of(p);
        if (!n) {
                free(p);
                return -ENOMEM;
        }
        free_path_and_name(cg);
        cg->path = p;
        cg->name = n;
        return 0;
}

int cgroup_set_identity(struct cgroup *cg, const struct container_identity *ci,
                        const struct cgroup_annotation *a) {
        bool has_ci = ci && ci->kind != CONTAINER_KIND_NONE, has_a = cgroup_annotation_present(a);
        struct container_identity *c = cg->container;
        struct cgroup_annotation *n = cg->annotation;

        /* Both allocated first, so that an OOM leaves cg as it was. */
        if (has_ci && !c && !(c = malloc(sizeof *c)))
                return -ENOMEM;
        if (has_a && !n && !(n = malloc(sizeof *n))) {
                if (c != cg->container)
                        free(c);
                return -ENOMEM;
        }
        if (has_ci)
                *c = *ci;
        else {
                free(c);
                c = NULL;
        }
        if (has_a)
                *n = *a;
        else {
                free(n);
                n = NULL;
        }
        cg->container = c;
        cg->annotation = n;
        return 0;
}

void cgroup_free(struct cgroup *cg) {
        if (!cg)
                return;
        pressure_trigger_disarm(&cg->trigger);
        cgroup_files_close(&cg->files);
        free(cg->covered_ids);
        free(cg->container);
        free(cg->annotation);
        free_path_and_name(cg);
        free(cg);
}

int cgroup_read(struct cgroup *cg, uint64_t now_usec, struct cgroup_reading *ret,
                struct cgroup_read_error *ret_error) {
        int r = cgroup_files_read(&cg->files, now_usec, ret, ret_error);
        /* The limits headroom keeps under: read only where it is on (a read each, per cycle). */
        if (r >= 0 && cg->policy && cg->policy->high_headroom > 0) {
                r = cgroup_files_read_high_max(&cg->files, &ret->limits);
                if (r < 0 && ret_error)
                        *ret_error = (struct cgroup_read_error) { .file = CGROUP_FILE_HIGH };
        }
        if (r == -ENOENT)
                cg->vanished = true;
        return r;
}
