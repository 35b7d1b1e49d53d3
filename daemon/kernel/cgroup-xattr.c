/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup-xattr.c: user.mglrud.* attributes of a cgroup directory, read with flistxattr and
 * fgetxattr on the directory's fd, written by mglrud-oci-hook with fsetxattr. */
#include "mglrud/kernel/cgroup-xattr.h"

#include <errno.h>
#include <string.h>
#include <sys/xattr.h>

#include <stdio.h>
#include "mglrud/shared/macro.h"

/* flistxattr's whole list: cgroupfs allows 128 user xattrs (names up to 255 bytes). */
#define XATTR_LIST_MAX_BYTES 65536

int cgroup_xattr_list_parse(const char *list, size_t len,
                            int (*fn)(const char *name, void *userdata), void *userdata) {
        const size_t plen = strlen(CGROUP_XATTR_PREFIX);
        int n = 0;

        if (len == 0)
                return 0;
        if (!list || list[len - 1] != '\0')
                return -EINVAL;
        for (const char *p = list; p < list + len;) {
                size_t l = strlen(p);
                if (l > plen && l - plen <= CGROUP_XATTR_NAME_MAX &&
                    memcmp(p, CGROUP_XATTR_PREFIX, plen) == 0) {
                        int r = fn(p + plen, userdata);
                        if (r < 0)
                                return r;
                        n++;
                }
                p += l + 1;
        }
        return n;
}

/* Reads the list of dirfd's attribute names into buf. Returns its length or a negative
 * errno; 0 when the filesystem has no xattrs. */
static ssize_t list_names(int dirfd, char *buf, size_t size) {
        ssize_t n = flistxattr(dirfd, buf, size);
        if (n < 0) {
                if (errno == ENOTSUP)
                        return 0;
                return negative_errno();
        }
        return n;
}

struct read_ctx {
        int dirfd;
        struct cgroup_xattrs *x;
        int error;
};

static int read_one(const char *name, void *userdata) {
        struct read_ctx *c = userdata;
        char full[sizeof CGROUP_XATTR_PREFIX + CGROUP_XATTR_NAME_MAX];
        char value[CGROUP_XATTR_VALUE_MAX + 1];

        if (c->x->n >= CGROUP_XATTR_MAX)
                return 0;
        snprintf(full, sizeof full, "%s%s", CGROUP_XATTR_PREFIX, name);
        ssize_t l = fgetxattr(c->dirfd, full, value, sizeof value - 1);
        if (l < 0) {
                if (errno == ENODATA || errno == ERANGE)
                        return 0; /* removed since the list, or too long: skipped */
                return negative_errno();
        }
        if (memchr(value, '\0', (size_t) l))
                return 0;
        value[l] = '\0';
        struct cgroup_xattr *it = &c->x->items[c->x->n++];
        snprintf(it->name, sizeof it->name, "%s", name);
        memcpy(it->value, value, (size_t) l + 1);
        return 0;
}

int cgroup_xattrs_read(int dirfd, struct cgroup_xattrs *ret) {
        char list[XATTR_LIST_MAX_BYTES];
        struct cgroup_xattrs x = {};

        ssize_t n = list_names(dirfd, list, sizeof list);
        if (n < 0)
                return (int) n;
        struct read_ctx c = { .dirfd = dirfd, .x = &x };
        int r = cgroup_xattr_list_parse(list, (size_t) n, read_one, &c);
        if (r < 0)
                return r;
        *ret = x;
        return 0;
}

const char *cgroup_xattrs_get(const struct cgroup_xattrs *x, const char *name) {
        for (size_t i = 0; i < x->n; i++)
                if (strcmp(x->items[i].name, name) == 0)
                        return x->items[i].value;
        return NULL;
}

struct stale_ctx {
        int dirfd;
        const struct cgroup_xattrs *keep;
};

static int remove_stale(const char *name, void *userdata) {
        struct stale_ctx *c = userdata;
        char full[sizeof CGROUP_XATTR_PREFIX + CGROUP_XATTR_NAME_MAX];

        if (cgroup_xattrs_get(c->keep, name))
                return 0;
        snprintf(full, sizeof full, "%s%s", CGROUP_XATTR_PREFIX, name);
        if (fremovexattr(c->dirfd, full) < 0 && errno != ENODATA)
                return negative_errno();
        return 0;
}

static void remove_all(int dirfd, const struct cgroup_xattrs *x, size_t n) {
        char full[sizeof CGROUP_XATTR_PREFIX + CGROUP_XATTR_NAME_MAX];
        for (size_t i = 0; i < n; i++) {
                snprintf(full, sizeof full, "%s%s", CGROUP_XATTR_PREFIX, x->items[i].name);
                (void) fremovexattr(dirfd, full);
        }
}

int cgroup_xattrs_write(int dirfd, const struct cgroup_xattrs *x) {
        char list[XATTR_LIST_MAX_BYTES];
        char full[sizeof CGROUP_XATTR_PREFIX + CGROUP_XATTR_NAME_MAX];

        ssize_t n = list_names(dirfd, list, sizeof list);
        if (n < 0)
                return (int) n;
        struct stale_ctx c = { .dirfd = dirfd, .keep = x };
        int r = cgroup_xattr_list_parse(list, (size_t) n, remove_stale, &c);
        if (r < 0)
                return r;
        for (size_t i = 0; i < x->n && i < CGROUP_XATTR_MAX; i++) {
                snprintf(full, sizeof full, "%s%s", CGROUP_XATTR_PREFIX, x->items[i].name);
                if (fsetxattr(dirfd, full, x->items[i].value, strlen(x->items[i].value), 0) < 0) {
                        r = negative_errno();
                        remove_all(dirfd, x, i);
                        return r;
                }
        }
        return 0;
}
