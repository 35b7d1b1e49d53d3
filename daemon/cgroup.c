/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mglrud/fileio.h"
#include "mglrud/macro.h"

static const char *const cgroup_file_names[_CGROUP_FILE_MAX] = {
        [CGROUP_FILE_STAT] = "memory.stat",
        [CGROUP_FILE_PRESSURE] = "memory.pressure",
        [CGROUP_FILE_CURRENT] = "memory.current",
        [CGROUP_FILE_MIN] = "memory.min",
        [CGROUP_FILE_LOW] = "memory.low",
        [CGROUP_FILE_HIGH] = "memory.high",
        [CGROUP_FILE_MAX] = "memory.max",
        [CGROUP_FILE_SWAP_CURRENT] = "memory.swap.current",
        [CGROUP_FILE_SWAP_MAX] = "memory.swap.max",
};

void cgroup_free(struct cgroup *cg) {
        if (!cg)
                return;
        for (int i = 0; i < _CGROUP_FILE_MAX; i++)
                if (cg->fds[i] >= 0)
                        close(cg->fds[i]);
        if (cg->dirfd >= 0)
                close(cg->dirfd);
        free(cg->covered_ids);
        free(cg->path);
        free(cg);
}

int cgroup_open(const char *root, const char *path, uint64_t id, struct cgroup **ret) {
        _cleanup_free_ char *full = NULL;
        struct cgroup *cg;

        if (asprintf(&full, "%s%s", root, strcmp(path, "/") == 0 ? "" : path) < 0)
                return -ENOMEM;

        cg = calloc(1, sizeof *cg);
        if (!cg)
                return -ENOMEM;
        cg->dirfd = -1;
        for (int i = 0; i < _CGROUP_FILE_MAX; i++)
                cg->fds[i] = -1;
        cg->id = id;
        cg->path = strdup(path);
        if (!cg->path) {
                cgroup_free(cg);
                return -ENOMEM;
        }

        cg->dirfd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (cg->dirfd < 0) {
                int r = negative_errno();
                cgroup_free(cg);
                return errno_is_vanished(r) ? -ENOENT : r;
        }
        /* The walk took the id from an earlier stat: if the directory was removed and another
         * created under the same name since, this is not the cgroup called id (its writes
         * would go to the wrong cgroup). Treat it as vanished; the next rescan finds the new
         * one under its own id. */
        struct stat st;
        if (fstat(cg->dirfd, &st) < 0 || (uint64_t) st.st_ino != id) {
                cgroup_free(cg);
                return -ENOENT;
        }
        for (int i = 0; i < _CGROUP_FILE_MAX; i++) {
                cg->fds[i] = openat(cg->dirfd, cgroup_file_names[i], O_RDONLY | O_CLOEXEC);
                if (cg->fds[i] < 0 && errno != ENOENT) {
                        int r = negative_errno();
                        cgroup_free(cg);
                        return errno_is_vanished(r) ? -ENOENT : r;
                }
        }
        if (cg->fds[CGROUP_FILE_STAT] < 0) {
                /* The root cgroup has memory.stat but no memory.current; a child without the
                 * memory controller has neither: nothing to manage there. */
                cgroup_free(cg);
                return -EOPNOTSUPP;
        }
        *ret = cg;
        return 0;
}

static int read_value(struct cgroup *cg, enum cgroup_file f, uint64_t dflt, uint64_t *ret) {
        if (cg->fds[f] < 0) {
                *ret = dflt;
                return 0;
        }
        return memcg_value_read(cg->fds[f], ret);
}

int cgroup_read(struct cgroup *cg, uint64_t now_usec, struct cgroup_reading *ret) {
        struct cgroup_reading r = { .now_usec = now_usec };
        int k;

        k = memstat_read(cg->fds[CGROUP_FILE_STAT], &r.stat);
        if (k < 0)
                goto fail;
        if (cg->fds[CGROUP_FILE_PRESSURE] >= 0) {
                k = psi_read(cg->fds[CGROUP_FILE_PRESSURE], &r.psi);
                if (k < 0)
                        goto fail;
                r.has_psi = true;
        }
        /* The root has no memory.current: fall back to anon + file from memory.stat. */
        uint64_t anon = 0, file = 0;
        memstat_get(&r.stat, MEMSTAT_ANON, &anon);
        memstat_get(&r.stat, MEMSTAT_FILE, &file);
        if ((k = read_value(cg, CGROUP_FILE_CURRENT, anon + file, &r.limits.current)) < 0 ||
            (k = read_value(cg, CGROUP_FILE_MIN, 0, &r.limits.min)) < 0 ||
            (k = read_value(cg, CGROUP_FILE_LOW, 0, &r.limits.low)) < 0 ||
            (k = read_value(cg, CGROUP_FILE_HIGH, MEMCG_VALUE_MAX, &r.limits.high)) < 0 ||
            (k = read_value(cg, CGROUP_FILE_MAX, MEMCG_VALUE_MAX, &r.limits.max)) < 0 ||
            (k = read_value(cg, CGROUP_FILE_SWAP_CURRENT, 0, &r.limits.swap_current)) < 0 ||
            (k = read_value(cg, CGROUP_FILE_SWAP_MAX, MEMCG_VALUE_MAX, &r.limits.swap_max)) < 0)
                goto fail;
        r.limits.has_swap = cg->fds[CGROUP_FILE_SWAP_CURRENT] >= 0;
        *ret = r;
        return 0;
fail:
        if (errno_is_vanished(k)) {
                cg->vanished = true;
                return -ENOENT;
        }
        return k;
}
