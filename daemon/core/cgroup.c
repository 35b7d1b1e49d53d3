/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/cgroup.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

void cgroup_free(struct cgroup *cg) {
        if (!cg)
                return;
        cgroup_files_close(&cg->files);
        free(cg->covered_ids);
        free_path_and_name(cg);
        free(cg);
}

int cgroup_read(struct cgroup *cg, uint64_t now_usec, struct cgroup_reading *ret,
                struct cgroup_read_error *ret_error) {
        int r = cgroup_files_read(&cg->files, now_usec, ret, ret_error);
        if (r == -ENOENT)
                cg->vanished = true;
        return r;
}
