/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/cgroup.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mglrud/core/pressure-trigger.h"
#include "mglrud/shared/escape.h"

int cgroup_set_path(struct cgroup *cg, const char *path) {
        char *p = strdup(path), *n = escape_path(path);
        if (!p || !n) {
                free(p);
                free(n);
                return -ENOMEM;
        }
        free(cg->path);
        free(cg->name);
        cg->path = p;
        cg->name = n;
        return 0;
}

int cgroup_new(const char *root, const char *path, uint64_t id, unsigned keep,
               struct cgroup **ret) {
        struct cgroup *cg = calloc(1, sizeof *cg);
        int r;

        if (!cg)
                return -ENOMEM;
        cg->id = id;
        cg->files.dirfd = -1;
        for (int i = 0; i < _CGROUP_FILE_MAX; i++)
                cg->files.fds[i] = -1;
        r = cgroup_set_path(cg, path);
        if (r >= 0)
                r = cgroup_files_open(root, path, id, keep, &cg->files);
        if (r < 0) {
                cgroup_free(cg);
                return r;
        }
        *ret = cg;
        return 0;
}

void cgroup_free(struct cgroup *cg) {
        if (!cg)
                return;
        pressure_trigger_disarm(&cg->trigger);
        cgroup_files_close(&cg->files);
        free(cg->covered_ids);
        free(cg->path);
        free(cg->name);
        free(cg);
}

int cgroup_read(struct cgroup *cg, uint64_t now_usec, struct cgroup_reading *ret,
                struct cgroup_read_error *ret_error) {
        int r = cgroup_files_read(&cg->files, now_usec, ret, ret_error);
        if (r == -ENOENT)
                cg->vanished = true;
        return r;
}
