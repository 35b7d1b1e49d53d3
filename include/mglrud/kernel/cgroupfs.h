/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroupfs.h: cgroup discovery: the cgroup2 mount that carries the memory controller (found by
 * libcgroup, the only place the daemon uses it) and the walk of a cgroup tree. Used at start, on
 * reload and on rescans, never on the per-cycle path. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Finds the cgroup v2 mount that has the memory controller, via libcgroup. Returns 0 and a
 * malloc'd path in *ret_path, -ENOMEDIUM when memory is only on a v1 hierarchy (or nowhere), or
 * another negative errno. */
int cgroupfs_find_memory_root(char **ret_path);

/* Called for every cgroup directory of a walk, parents before children. rel_path is "/" for the
 * root and "/a/b" below it; id is the directory's inode number (the cgroup id on cgroup2);
 * dirfd is the directory, open for the call only (to read its xattrs). Returning a negative
 * errno stops the walk with that error. */
typedef int (*cgroupfs_walk_fn)(const char *rel_path, uint64_t id, int dirfd, void *userdata);

/* Walks every directory under root, root included, with openat/readdir (the same walk on the
 * real cgroup2 mount and on fixture trees; symlinks are not followed, names with any byte are
 * passed as they are). A directory that vanishes mid-walk is skipped. Returns 0, or a negative
 * errno (from fn, or when root itself cannot be read). */
int cgroupfs_walk(const char *root, cgroupfs_walk_fn fn, void *userdata);
