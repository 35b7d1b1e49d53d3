/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup-beneath.c: resolving a cgroup path beneath the cgroup2 root only (cgroup-beneath.h). */
#include "mglrud/kernel/cgroup-beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mglrud/shared/macro.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)

/* Copies path without its leading slashes into buf. Returns 0, -EXDEV when a component is
 * "..", or -ENAMETOOLONG. */
static int relative_path(const char *path, char *buf, size_t size) {
        path += strspn(path, "/");
        if (strlen(path) >= size)
                return -ENAMETOOLONG;
        for (const char *p = path; *p;) {
                size_t len = strcspn(p, "/");
                if (len == 2 && p[0] == '.' && p[1] == '.')
                        return -EXDEV;
                p += len;
                p += strspn(p, "/");
        }
        strcpy(buf, path);
        return 0;
}

int cgroup_open_beneath_walk(int root_fd, const char *path) {
        char rel[PATH_MAX];
        int r = relative_path(path, rel, sizeof rel);
        if (r < 0)
                return r;
        int fd = openat(root_fd, ".", DIR_FLAGS);
        if (fd < 0)
                return negative_errno();
        for (char *save = NULL, *c = strtok_r(rel, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
                if (strcmp(c, ".") == 0)
                        continue;
                int next = openat(fd, c, DIR_FLAGS | O_NOFOLLOW);
                r = next < 0 ? negative_errno() : 0;
                /* O_DIRECTORY wins over O_NOFOLLOW: a symlink gives ENOTDIR. Say what it is. */
                struct stat st;
                if (r == -ENOTDIR && fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) >= 0 &&
                    S_ISLNK(st.st_mode))
                        r = -ELOOP;
                close(fd);
                if (r < 0)
                        return r;
                fd = next;
        }
        return fd;
}

int cgroup_open_beneath(int root_fd, const char *path) {
        char rel[PATH_MAX];
        int r = relative_path(path, rel, sizeof rel);
        if (r < 0)
                return r;
        struct open_how how = {
                .flags = DIR_FLAGS,
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        long fd = syscall(SYS_openat2, root_fd, rel[0] ? rel : ".", &how, sizeof how);
        if (fd >= 0)
                return (int) fd;
        if (errno == ENOSYS) /* before Linux 5.6 */
                return cgroup_open_beneath_walk(root_fd, path);
        return negative_errno();
}

int cgroup_fd_is_cgroup2(int fd) {
        struct statfs sfs;
        if (fstatfs(fd, &sfs) < 0)
                return negative_errno();
        return sfs.f_type == CGROUP2_SUPER_MAGIC ? 0 : -EMEDIUMTYPE;
}
