/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/cgroup.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cgroup_new(const char *root, const char *path, uint64_t id, struct cgroup **ret) {
        struct cgroup *cg = calloc(1, sizeof *cg);
        int r;

        if (!cg)
                return -ENOMEM;
        cg->id = id;
        cg->path = strdup(path);
        if (!cg->path) {
                free(cg);
                return -ENOMEM;
        }
        r = cgroup_files_open(root, path, id, &cg->files);
        if (r < 0) {
                free(cg->path);
                free(cg);
                return r;
        }
        *ret = cg;
        return 0;
}

void cgroup_free(struct cgroup *cg) {
        if (!cg)
                return;
        cgroup_files_close(&cg->files);
        free(cg->covered_ids);
        free(cg->path);
        free(cg);
}

int cgroup_read(struct cgroup *cg, uint64_t now_usec, struct cgroup_reading *ret) {
        int r = cgroup_files_read(&cg->files, now_usec, ret);
        if (r == -ENOENT)
                cg->vanished = true;
        return r;
}
