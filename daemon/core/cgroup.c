/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/cgroup.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cgroup_new(const char *root, const char *path, uint64_t id, struct cgroup **ret) {
        /* The path lives at the end of the same allocation (one allocation per cgroup, not
         * two: there can be thousands). */
        size_t len = strlen(path);
        struct cgroup *cg = calloc(1, sizeof *cg + len + 1);
        int r;

        if (!cg)
                return -ENOMEM;
        cg->id = id;
        cg->path = memcpy(cg->path_storage, path, len + 1);
        r = cgroup_files_open(root, path, id, &cg->files);
        if (r < 0) {
                free(cg);
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
        if (cg->path != cg->path_storage)
                free(cg->path);
        cg->path = p;
        return 0;
}

void cgroup_free(struct cgroup *cg) {
        if (!cg)
                return;
        cgroup_files_close(&cg->files);
        free(cg->covered_ids);
        if (cg->path != cg->path_storage)
                free(cg->path);
        free(cg);
}

int cgroup_read(struct cgroup *cg, uint64_t now_usec, struct cgroup_reading *ret) {
        int r = cgroup_files_read(&cg->files, now_usec, ret);
        if (r == -ENOENT)
                cg->vanished = true;
        return r;
}
