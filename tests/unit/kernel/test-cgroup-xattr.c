/* SPDX-License-Identifier: GPL-2.0-or-later */
/* user.mglrud.* xattrs: the flistxattr list parser (names of other namespaces, over-long and
 * bare-prefix names skipped, a list without its final NUL refused), and reading and replacing
 * them on a real directory (a temporary directory: cgroupfs and ext4/tmpfs keep user xattrs
 * alike; skipped where the filesystem has none). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <cmocka.h>

#include "mglrud/kernel/cgroup-xattr.h"
#include "mglrud/shared/macro.h"

struct names {
        char seen[8][CGROUP_XATTR_NAME_MAX + 1];
        size_t n;
        int fail_at; /* return -EIO for this name (1-based), 0 never */
};

static int collect(const char *name, void *userdata) {
        struct names *s = userdata;
        if (s->fail_at && (int) s->n + 1 == s->fail_at)
                return -EIO;
        assert_true(s->n < 8);
        snprintf(s->seen[s->n++], sizeof s->seen[0], "%s", name);
        return 0;
}

#define LIST(s) s, sizeof(s) - 1 /* keep the NULs inside, drop the literal's own */

static void test_list_parse(void **state) {
        struct names s = {};
        assert_int_equal(cgroup_xattr_list_parse(LIST("user.mglrud.policy\0security.selinux\0"
                                                      "user.mglrud.MinColdAge\0user.other\0"
                                                      "user.mglrud.\0"),
                                                 collect, &s),
                         2);
        assert_int_equal(s.n, 2);
        assert_string_equal(s.seen[0], "policy");
        assert_string_equal(s.seen[1], "MinColdAge");

        /* 64 bytes after the prefix pass, 65 do not */
        char list[256];
        memset(&s, 0, sizeof s);
        int l = snprintf(list, sizeof list, "user.mglrud.%064d", 0);
        l += 1 + snprintf(list + l + 1, sizeof list - (size_t) l - 1, "user.mglrud.%065d", 0);
        assert_int_equal(cgroup_xattr_list_parse(list, (size_t) l + 1, collect, &s), 1);

        memset(&s, 0, sizeof s);
        assert_int_equal(cgroup_xattr_list_parse("", 0, collect, &s), 0);
        assert_int_equal(cgroup_xattr_list_parse("user.mglrud.policy", 18, collect, &s), -EINVAL);
        assert_int_equal(s.n, 0);

        s = (struct names) { .fail_at = 2 };
        assert_int_equal(cgroup_xattr_list_parse(LIST("user.mglrud.a\0user.mglrud.b\0"), collect,
                                                 &s),
                         -EIO);
}

static char dir[] = "/tmp/mglrud-test-xattr.XXXXXX";

static int setup(void **state) {
        assert_non_null(mkdtemp(dir));
        return 0;
}

static int teardown(void **state) {
        rmdir(dir);
        return 0;
}

static void test_read_write(void **state) {
        _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(fd >= 0);
        if (fsetxattr(fd, "user.other", "x", 1, 0) < 0 && (errno == ENOTSUP || errno == EPERM))
                skip();

        struct cgroup_xattrs x;
        memset(&x, 0xa5, sizeof x);
        assert_int_equal(cgroup_xattrs_read(fd, &x), 0);
        assert_int_equal(x.n, 0);

        struct cgroup_xattrs w = { .n = 2 };
        snprintf(w.items[0].name, sizeof w.items[0].name, "policy");
        snprintf(w.items[0].value, sizeof w.items[0].value, "batch");
        snprintf(w.items[1].name, sizeof w.items[1].name, "MinColdAge");
        snprintf(w.items[1].value, sizeof w.items[1].value, "5min");
        /* a stale entry of an earlier record goes, a foreign one stays */
        assert_int_equal(fsetxattr(fd, "user.mglrud.MaxStep", "1G", 2, 0), 0);
        assert_int_equal(cgroup_xattrs_write(fd, &w), 0);
        assert_int_equal(cgroup_xattrs_read(fd, &x), 0);
        assert_int_equal(x.n, 2);
        assert_string_equal(cgroup_xattrs_get(&x, "policy"), "batch");
        assert_string_equal(cgroup_xattrs_get(&x, "MinColdAge"), "5min");
        assert_null(cgroup_xattrs_get(&x, "MaxStep"));
        char v[8];
        assert_int_equal(fgetxattr(fd, "user.other", v, sizeof v), 1);

        /* values with a NUL byte or longer than CGROUP_XATTR_VALUE_MAX are skipped */
        char big[CGROUP_XATTR_VALUE_MAX + 2];
        memset(big, 'x', sizeof big);
        assert_int_equal(fsetxattr(fd, "user.mglrud.Floor", big, sizeof big, 0), 0);
        assert_int_equal(fsetxattr(fd, "user.mglrud.Mode", "a\0b", 3, 0), 0);
        assert_int_equal(cgroup_xattrs_read(fd, &x), 0);
        assert_int_equal(x.n, 2);

        /* an empty record removes ours, and only ours */
        struct cgroup_xattrs none = {};
        assert_int_equal(cgroup_xattrs_write(fd, &none), 0);
        assert_int_equal(cgroup_xattrs_read(fd, &x), 0);
        assert_int_equal(x.n, 0);
        assert_int_equal(fgetxattr(fd, "user.other", v, sizeof v), 1);
        assert_int_equal(fremovexattr(fd, "user.other"), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_list_parse),
                cmocka_unit_test_setup_teardown(test_read_write, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
