/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup_xattr_list_parse() on any flistxattr() list: only NUL-terminated lists are taken,
 * every name handed on is a suffix of a "user.mglrud." name of the list, within the limits. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "mglrud/kernel/cgroup-xattr.h"

struct ctx {
        const char *list;
        size_t len;
        int n;
};

static int check_name(const char *name, void *userdata) {
        struct ctx *c = userdata;
        size_t plen = strlen(CGROUP_XATTR_PREFIX);
        /* Offsets, not pointer arithmetic: a name outside the list must fail the check, not
         * overflow a pointer. */
        fuzz_check(name >= c->list && name < c->list + c->len);
        size_t off = (size_t) (name - c->list);
        fuzz_check(off >= plen);
        size_t start = off - plen;
        fuzz_check(memcmp(c->list + start, CGROUP_XATTR_PREFIX, plen) == 0);
        fuzz_check(start == 0 || c->list[start - 1] == '\0');
        size_t l = strlen(name);
        fuzz_check(l >= 1 && l <= CGROUP_XATTR_NAME_MAX);
        c->n++;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct ctx c = { .list = (const char *) data, .len = size };
        int r = cgroup_xattr_list_parse((const char *) data, size, check_name, &c);
        if (size > 0 && data[size - 1] != '\0') {
                fuzz_check(r == -EINVAL && c.n == 0);
                return 0;
        }
        fuzz_check(r == c.n);
        return 0;
}
