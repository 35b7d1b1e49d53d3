/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup-xattr.h: the user.mglrud.* extended attributes on a cgroup directory, where
 * mglrud-oci-hook records a container's annotated policy ("user.mglrud.policy") and key
 * overrides ("user.mglrud.MinColdAge") and the daemon reads them at discovery. cgroupfs keeps
 * user xattrs since Linux 5.7 (at most 128 per cgroup, 128 KiB in all). */
#pragma once

#include <stddef.h>

#define CGROUP_XATTR_PREFIX "user.mglrud."
#define CGROUP_XATTR_MAX 32         /* entries read or written; more are ignored */
#define CGROUP_XATTR_NAME_MAX 64    /* after the prefix */
#define CGROUP_XATTR_VALUE_MAX 256

struct cgroup_xattr {
        char name[CGROUP_XATTR_NAME_MAX + 1]; /* without the prefix: "policy", "MinColdAge" */
        char value[CGROUP_XATTR_VALUE_MAX + 1];
};

struct cgroup_xattrs {
        struct cgroup_xattr items[CGROUP_XATTR_MAX];
        size_t n;
};

/* Parses a flistxattr() list (NUL-terminated names, one after the other) and calls fn for each
 * name that starts with CGROUP_XATTR_PREFIX and has 1..CGROUP_XATTR_NAME_MAX bytes after it,
 * with that suffix; fn returning a negative errno stops with it. Returns the number of names
 * passed to fn, or -EINVAL when the list does not end with a NUL. */
int cgroup_xattr_list_parse(const char *list, size_t len,
                            int (*fn)(const char *name, void *userdata), void *userdata);

/* Reads every user.mglrud.* attribute of the directory dirfd into *ret (values longer than
 * CGROUP_XATTR_VALUE_MAX or with a NUL byte are skipped, at most CGROUP_XATTR_MAX entries).
 * Returns 0 (n = 0 when there are none, also on filesystems without user xattrs), or a
 * negative errno (-ENOENT/-ENODEV when the cgroup vanished). */
int cgroup_xattrs_read(int dirfd, struct cgroup_xattrs *ret);

/* Replaces the user.mglrud.* attributes of dirfd with x: removes the ones x does not name,
 * then sets each of x. Returns 0, or the first failure's negative errno (-EOPNOTSUPP: the
 * filesystem has no user xattrs; -EPERM, -ENOSPC). On failure the attributes set so far are
 * removed again, so a half record is not left behind. */
int cgroup_xattrs_write(int dirfd, const struct cgroup_xattrs *x);

/* Returns the value of name in x, or NULL. */
const char *cgroup_xattrs_get(const struct cgroup_xattrs *x, const char *name);
