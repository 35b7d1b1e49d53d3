/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/kernel/cgroupfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libcgroup.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/vfs.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static bool libcgroup_ready;

static int libcgroup_init_once(void) {
        if (libcgroup_ready)
                return 0;
        int r = cgroup_init();
        if (r != 0) {
                log_debug("libcgroup: cgroup_init() failed: %s (%d)", cgroup_strerror(r), r);
                return -ENOMEDIUM;
        }
        libcgroup_ready = true;
        return 0;
}

/* Returns true if path is on a cgroup2 filesystem (statfs magic). */
static bool cgroupfs_is_cgroup2(const char *path) {
        struct statfs sfs;
        return statfs(path, &sfs) == 0 && (unsigned long) sfs.f_type == CGROUP2_SUPER_MAGIC;
}

int cgroupfs_find_memory_root(char **ret_path) {
        char *mount = NULL;
        int r = libcgroup_init_once();
        if (r < 0)
                return r;
        r = cgroup_get_subsys_mount_point("memory", &mount);
        if (r != 0 || !mount) {
                log_debug("libcgroup: no mount point for the memory controller: %s (%d)",
                          cgroup_strerror(r), r);
                return -ENOMEDIUM;
        }
        /* libcgroup also reports v1 hierarchies: only a cgroup2 mount has memory.reclaim. */
        if (!cgroupfs_is_cgroup2(mount)) {
                log_debug("libcgroup: memory controller is mounted at %s, which is not cgroup2",
                          mount);
                free(mount);
                return -ENOMEDIUM;
        }
        *ret_path = mount;
        return 0;
}

static int walk_readdir(int dirfd, char *rel, size_t rel_len, size_t rel_cap, cgroupfs_walk_fn fn,
                        void *userdata) {
        _cleanup_close_ int fd = dirfd;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return errno_is_vanished(errno) ? 0 : negative_errno();

        int r = fn(rel_len == 0 ? "/" : rel, (uint64_t) st.st_ino, fd, userdata);
        if (r < 0)
                return r;

        int dupfd = dup(fd);
        if (dupfd < 0)
                return negative_errno();
        DIR *d = fdopendir(dupfd);
        if (!d) {
                close(dupfd);
                return negative_errno();
        }
        struct dirent *de;
        r = 0;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
                                             (de->d_name[1] == '.' && de->d_name[2] == '\0')))
                        continue;
                if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
                        continue;
                size_t nl = strlen(de->d_name);
                if (rel_len + 1 + nl + 1 > rel_cap)
                        continue; /* deeper than PATH_MAX: cannot be addressed anyway */
                int child = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                if (child < 0) {
                        if (errno == ENOTDIR || errno_is_vanished(errno) || errno == ELOOP)
                                continue; /* a file, or a cgroup removed under us */
                        r = negative_errno();
                        break;
                }
                rel[rel_len] = '/';
                memcpy(rel + rel_len + 1, de->d_name, nl + 1);
                r = walk_readdir(child, rel, rel_len + 1 + nl, rel_cap, fn, userdata);
                rel[rel_len] = '\0';
                if (r < 0)
                        break;
        }
        closedir(d);
        return r;
}

int cgroupfs_walk(const char *root, cgroupfs_walk_fn fn, void *userdata) {
        char rel[PATH_MAX];
        int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        rel[0] = '\0';
        return walk_readdir(fd, rel, 0, sizeof rel, fn, userdata);
}
