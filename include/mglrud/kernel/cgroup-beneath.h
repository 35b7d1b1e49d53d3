/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup-beneath.h: opening a cgroup that someone else named (a container runtime's state, a
 * bundle's config.json, /proc/PID/cgroup of a container's process) without leaving the cgroup2
 * mount: a path is resolved beneath the root's fd only, never through "..", a symlink or a
 * magic link, and what it reaches must be a cgroup2 directory. */
#pragma once

#include <stdbool.h>

/* Opens path ("/", "/a.slice/b.scope", or without the leading '/') as a directory beneath the
 * directory root_fd, read-only, O_CLOEXEC. Refuses a ".." component before any lookup, then
 * resolves with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS) (Linux
 * 5.6), or component by component with O_NOFOLLOW where openat2 is missing (ENOSYS). Returns the
 * fd, or -EXDEV (a ".." component, or the resolution left root_fd), -ELOOP (a symlink on the
 * way), -ENOTDIR, -ENOENT, -ENAMETOOLONG or another negative errno. */
int cgroup_open_beneath(int root_fd, const char *path);

/* What cgroup_open_beneath() does without openat2: one openat(O_NOFOLLOW | O_DIRECTORY) per
 * component. Same returns. Exposed for tests on kernels that have openat2. */
int cgroup_open_beneath_walk(int root_fd, const char *path);

/* Returns 0 when fd is on a cgroup2 filesystem (fstatfs f_type CGROUP2_SUPER_MAGIC),
 * -EMEDIUMTYPE when it is on another filesystem, or the negative errno of fstatfs. */
int cgroup_fd_is_cgroup2(int fd);
