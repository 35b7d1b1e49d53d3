/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/kernel/cgroup-files.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"

static const char *const cgroup_file_names[_CGROUP_FILE_MAX] = {
        [CGROUP_FILE_STAT] = "memory.stat",
        [CGROUP_FILE_PRESSURE] = "memory.pressure",
        [CGROUP_FILE_CURRENT] = "memory.current",
        [CGROUP_FILE_MIN] = "memory.min",
        [CGROUP_FILE_MAX] = "memory.max",
        [CGROUP_FILE_SWAP_CURRENT] = "memory.swap.current",
        [CGROUP_FILE_SWAP_MAX] = "memory.swap.max",
        [CGROUP_FILE_HIGH] = "memory.high",
};

void cgroup_files_close(struct cgroup_files *f) {
        for (int i = 0; i < _CGROUP_FILE_MAX; i++)
                closep_reset(&f->fds[i]);
        closep_reset(&f->dirfd);
}

unsigned cgroup_files_fd_cost(unsigned keep) {
        return 1 + (unsigned) __builtin_popcount(keep & CGROUP_KEEP_ALL);
}

void cgroup_files_keep_plan_for(size_t n, uint64_t fd_budget, uint64_t kept_files_budget,
                                struct cgroup_keep_plan *ret, size_t *ret_max) {
        static const unsigned masks[] = { CGROUP_KEEP_ALL, CGROUP_KEEP_HOT, CGROUP_KEEP_NONE };
        size_t i = 0;

        *ret_max = SIZE_MAX;
        for (; i + 1 < ELEMENTSOF(masks); i++)
                if ((uint64_t) n * cgroup_files_fd_cost(masks[i]) <= fd_budget &&
                    (uint64_t) n * (uint64_t) __builtin_popcount(masks[i]) <= kept_files_budget)
                        break;
        *ret = (struct cgroup_keep_plan) { .mask = masks[i], .first_mask = masks[i] };
        uint64_t fds = (uint64_t) n * cgroup_files_fd_cost(masks[i]);
        if (fds > fd_budget) {
                /* Not even the directories fit: no room for more. */
                *ret_max = (size_t) MIN(fd_budget / cgroup_files_fd_cost(CGROUP_KEEP_NONE),
                                        (uint64_t) SIZE_MAX);
                return;
        }
        if (i == 0)
                return;
        unsigned up = masks[i - 1];
        uint64_t files = (uint64_t) n * (uint64_t) __builtin_popcount(masks[i]);
        uint64_t more_fds = cgroup_files_fd_cost(up) - cgroup_files_fd_cost(masks[i]);
        uint64_t by_fds = (fd_budget - fds) / more_fds;
        uint64_t by_files = files >= kept_files_budget ? 0 : (kept_files_budget - files) / more_fds;
        uint64_t first = MIN(MIN(by_fds, by_files), (uint64_t) n);
        if (first > 0)
                *ret = (struct cgroup_keep_plan) { .mask = masks[i], .first_mask = up,
                                                   .n_first = (size_t) first };
}

int cgroup_files_keep(struct cgroup_files *f, unsigned keep) {
        for (int i = 0; i < _CGROUP_FILE_MAX; i++) {
                bool want = (keep & (1u << i)) && (f->present & (1u << i));
                if (!want) {
                        closep_reset(&f->fds[i]);
                        continue;
                }
                if (f->fds[i] >= 0)
                        continue;
                f->fds[i] = openat(f->dirfd, cgroup_file_names[i], O_RDONLY | O_CLOEXEC);
                if (f->fds[i] < 0) {
                        int r = negative_errno();
                        return errno_is_vanished(r) ? -ENOENT : r;
                }
        }
        return 0;
}

int cgroup_files_open(const char *root, const char *path, uint64_t id, unsigned keep,
                      struct cgroup_files *ret) {
        _cleanup_free_ char *full = NULL;
        struct cgroup_files f = { .dirfd = -1 };
        int r;

        for (int i = 0; i < _CGROUP_FILE_MAX; i++)
                f.fds[i] = -1;
        if (asprintf(&full, "%s%s", root, strcmp(path, "/") == 0 ? "" : path) < 0)
                return -ENOMEM;

        f.dirfd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (f.dirfd < 0) {
                r = negative_errno();
                return errno_is_vanished(r) ? -ENOENT : r;
        }
        /* The walk took the id from an earlier stat: if the directory was removed and another
         * created under the same name since, this is not the cgroup called id (its writes
         * would go to the wrong cgroup). Treat it as vanished; the next rescan finds the new
         * one under its own id. */
        struct stat st;
        if (fstat(f.dirfd, &st) < 0 || (uint64_t) st.st_ino != id) {
                r = -ENOENT;
                goto fail;
        }
        for (int i = 0; i < _CGROUP_FILE_MAX; i++) {
                if (faccessat(f.dirfd, cgroup_file_names[i], F_OK, 0) == 0)
                        f.present |= 1u << i;
                else if (errno != ENOENT) {
                        r = negative_errno();
                        if (errno_is_vanished(r))
                                r = -ENOENT;
                        goto fail;
                }
        }
        f.owner = st.st_uid;
        /* A subtree delegated to a user (systemd's Delegate=, rootless containers) has its files
         * owned by that user, memory.reclaim mode 0200: without CAP_DAC_OVERRIDE even root
         * cannot write it. AT_EACCESS checks with our effective ids and capabilities. */
        f.reclaim_denied = faccessat(f.dirfd, "memory.reclaim", W_OK, AT_EACCESS) < 0 &&
                           (errno == EACCES || errno == EPERM);
        if (!(f.present & (1u << CGROUP_FILE_STAT))) {
                /* The root cgroup has memory.stat but no memory.current; a child without the
                 * memory controller has neither: nothing to manage there. */
                r = -EOPNOTSUPP;
                goto fail;
        }
        r = cgroup_files_keep(&f, keep);
        if (r < 0)
                goto fail;
        *ret = f;
        return 0;
fail:
        cgroup_files_close(&f);
        return r;
}

/* Returns an fd to read file k from: the kept one, or a new one in *tmp (closed by the caller);
 * -ENOENT when the cgroup has no such file... or vanished. */
static int file_fd(const struct cgroup_files *f, enum cgroup_file k, int *tmp) {
        if (f->fds[k] >= 0)
                return f->fds[k];
        *tmp = openat(f->dirfd, cgroup_file_names[k], O_RDONLY | O_CLOEXEC);
        return *tmp >= 0 ? *tmp : negative_errno();
}

int cgroup_files_read_value(const struct cgroup_files *f, enum cgroup_file k, uint64_t dflt,
                            uint64_t *ret) {
        _cleanup_close_ int tmp = -1;
        if (!(f->present & (1u << k))) {
                *ret = dflt;
                return 0;
        }
        int fd = file_fd(f, k, &tmp);
        int r = fd < 0 ? fd : memcg_value_read(fd, ret);
        return r < 0 && errno_is_vanished(r) ? -ENOENT : r;
}

int cgroup_files_read_high_max(const struct cgroup_files *f, struct memcg_limits *limits) {
        uint64_t high, max;
        int r = cgroup_files_read_value(f, CGROUP_FILE_HIGH, MEMCG_VALUE_MAX, &high);

        if (r >= 0)
                r = cgroup_files_read_value(f, CGROUP_FILE_MAX, MEMCG_VALUE_MAX, &max);
        if (r < 0)
                return r;
        limits->high = high;
        limits->max = max;
        limits->has_high_max = true;
        return 0;
}

const char *cgroup_file_name(enum cgroup_file k) {
        return (unsigned) k < _CGROUP_FILE_MAX ? cgroup_file_names[k] : NULL;
}

/* Reads memory.min and memory.swap.max into f when they are not known. Returns 0 or what
 * cgroup_files_read_value() returns, with the file it failed on in *ret_file. */
static int read_kept_limits(struct cgroup_files *f, enum cgroup_file *ret_file) {
        uint64_t min, swap_max;
        int r;

        if (f->limits_known)
                return 0;
        *ret_file = CGROUP_FILE_MIN;
        if ((r = cgroup_files_read_value(f, CGROUP_FILE_MIN, 0, &min)) < 0)
                return r;
        *ret_file = CGROUP_FILE_SWAP_MAX;
        if ((r = cgroup_files_read_value(f, CGROUP_FILE_SWAP_MAX, MEMCG_VALUE_MAX, &swap_max)) < 0)
                return r;
        f->min = min;
        f->swap_max = swap_max;
        f->limits_known = true;
        return 0;
}

void cgroup_files_forget_limits(struct cgroup_files *f) {
        f->limits_known = false;
}

bool cgroup_file_is_kept_limit(const char *name) {
        return strcmp(name, cgroup_file_names[CGROUP_FILE_MIN]) == 0 ||
               strcmp(name, cgroup_file_names[CGROUP_FILE_SWAP_MAX]) == 0;
}

int cgroup_files_read(struct cgroup_files *f, uint64_t now_usec, struct cgroup_reading *ret,
                      struct cgroup_read_error *ret_error) {
        struct cgroup_reading r = { .now_usec = now_usec };
        struct cgroup_read_error e = { .file = CGROUP_FILE_STAT };
        int k;

        {
                _cleanup_close_ int tmp = -1;
                int fd = file_fd(f, CGROUP_FILE_STAT, &tmp);
                k = fd < 0 ? fd : memstat_read(fd, &r.stat, &e.line);
                if (k < 0)
                        goto fail;
        }
        if (f->present & (1u << CGROUP_FILE_PRESSURE)) {
                _cleanup_close_ int tmp = -1;
                int fd = file_fd(f, CGROUP_FILE_PRESSURE, &tmp);
                e.file = CGROUP_FILE_PRESSURE;
                k = fd < 0 ? fd : psi_read(fd, &r.psi, &e.line);
                if (k < 0)
                        goto fail;
                r.has_psi = true;
        }
        /* The root has no memory.current: fall back to anon + file from memory.stat. */
        uint64_t anon = 0, file = 0;
        memstat_get(&r.stat, MEMSTAT_ANON, &anon);
        memstat_get(&r.stat, MEMSTAT_FILE, &file);
        e = (struct cgroup_read_error) { .file = CGROUP_FILE_CURRENT, .line = 1 };
        k = cgroup_files_read_value(f, CGROUP_FILE_CURRENT, anon + file, &r.limits.current);
        if (k >= 0)
                k = read_kept_limits(f, &e.file);
        r.limits.min = f->min;
        r.limits.swap_max = f->swap_max;
        /* Only a finite memory.swap.max makes the swap use matter (the swap room); most cgroups
         * have none, and they save a read a cycle. */
        if (k >= 0 && r.limits.swap_max != MEMCG_VALUE_MAX) {
                e.file = CGROUP_FILE_SWAP_CURRENT;
                k = cgroup_files_read_value(f, CGROUP_FILE_SWAP_CURRENT, 0, &r.limits.swap_current);
        }
        if (k < 0)
                goto fail;
        r.limits.has_swap = f->present & (1u << CGROUP_FILE_SWAP_CURRENT);
        *ret = r;
        return 0;
fail:
        if (errno_is_vanished(k))
                return -ENOENT;
        if (ret_error)
                *ret_error = e;
        return k;
}
