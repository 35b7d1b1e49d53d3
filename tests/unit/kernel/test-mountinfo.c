/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/self/mountinfo: the hand-made fixture (proc(5) layout), escapes, malformed lines, and
 * the open of a device's mount through a proc root of our own. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"
#include "mglrud/kernel/mountinfo.h"
#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"

/* Parses all of s (exactly len bytes, no NUL after them) into lines; returns how many parsed
 * and counts the lines that did not in *ret_bad. */
static size_t parse_all(const char *s, size_t len, struct mountinfo_line *l, size_t max,
                        size_t *ret_bad) {
        _cleanup_free_ char *copy = fixture_dup_exact(s, len);
        size_t pos = 0, n = 0, bad = 0, prev = 0;
        int r;

        assert_non_null(copy);
        while ((r = mountinfo_next(copy, len, &pos, n < max ? &l[n] : &l[max - 1])) != 0) {
                assert_true(pos > prev); /* always moves on */
                prev = pos;
                if (r < 0)
                        bad++;
                else
                        n++;
        }
        assert_int_equal(pos, len);
        *ret_bad = bad;
        return n;
}

static void test_fixture(void **state) {
        struct read_buf b = {};
        struct mountinfo_line l[16];
        size_t bad;

        assert_int_equal(fixture_read("mountinfo/hand-made", &b), 0);
        assert_int_equal(parse_all(b.data, b.len, l, ELEMENTSOF(l), &bad), 7);
        assert_int_equal(bad, 0);
        assert_int_equal(l[0].major, 0);
        assert_int_equal(l[0].minor, 21);
        assert_string_equal(l[0].mount_point, "/sys");
        assert_int_equal(l[2].major, 254);
        assert_int_equal(l[2].minor, 1);
        assert_string_equal(l[2].mount_point, "/");
        assert_string_equal(l[4].mount_point, "/srv/data set"); /* \040 */
        assert_int_equal(l[5].minor, 17);
        assert_string_equal(l[5].mount_point, "/mnt/back\\slash"); /* \134, root /sub */
        read_buf_free(&b);
}

static void test_escapes_and_ends(void **state) {
        const char *s = "1 0 8:1 / /a\\0401\\011tab\\012nl\n" /* space, tab, newline */
                        "2 1 8:2 / /not\\9escape\\04\n"     /* kept as written */
                        "3 1 8:3 / /last";                   /* no '\n': taken as it is */
        struct mountinfo_line l[4];
        size_t bad;

        assert_int_equal(parse_all(s, strlen(s), l, ELEMENTSOF(l), &bad), 3);
        assert_int_equal(bad, 0);
        assert_string_equal(l[0].mount_point, "/a 1\ttab\nnl");
        assert_string_equal(l[1].mount_point, "/not\\9escape\\04");
        assert_int_equal(l[2].minor, 3);
        assert_string_equal(l[2].mount_point, "/last");
}

/* A line that does not parse is skipped with *ret untouched, and the next one is read. */
static void test_malformed(void **state) {
        static const char *const bad_lines[] = {
                "",                             /* empty */
                "1 0 8:1 /",                    /* no mount point */
                "1 0 8:1 / ",                   /* an empty one */
                "1 0 8-1 / /a",                 /* no ':' */
                "1 0 :1 / /a",                  /* no major */
                "1 0 8: / /a",                  /* no minor */
                "x 0 8:1 / /a",                 /* an id that is no number */
                "1  0 8:1 / /a",                /* two spaces */
                "1 0 4294967296:1 / /a",        /* a major beyond 32 bits */
                "1 0 8:1 / /nul\\000byte",      /* an escape that would end the string */
        };
        for (size_t i = 0; i < ELEMENTSOF(bad_lines); i++) {
                char text[256];
                int len = snprintf(text, sizeof text, "%s\n9 1 7:7 / /good\n", bad_lines[i]);
                _cleanup_free_ char *copy = fixture_dup_exact(text, (size_t) len);
                struct mountinfo_line l, sentinel;
                size_t pos = 0;
                memset(&l, 0xa5, sizeof l);
                sentinel = l;
                assert_int_equal(mountinfo_next(copy, (size_t) len, &pos, &l), -EINVAL);
                assert_memory_equal(&l, &sentinel, sizeof l);
                assert_int_equal(mountinfo_next(copy, (size_t) len, &pos, &l), 1);
                assert_int_equal(l.major, 7);
                assert_string_equal(l.mount_point, "/good");
                assert_int_equal(mountinfo_next(copy, (size_t) len, &pos, &l), 0);
        }
}

/* A mount point that does not fit MOUNTINFO_PATH_MAX (with its NUL) is refused; one that just
 * fits is taken. */
static void test_long_mount_point(void **state) {
        for (size_t want = MOUNTINFO_PATH_MAX - 1; want <= MOUNTINFO_PATH_MAX; want++) {
                _cleanup_free_ char *text = malloc(want + 32);
                assert_non_null(text);
                int n = snprintf(text, 32, "1 0 8:1 / /");
                memset(text + n, 'a', want - 1);
                text[n + want - 1] = '\n';
                size_t len = (size_t) n + want, pos = 0;
                struct mountinfo_line l;
                int r = mountinfo_next(text, len, &pos, &l);
                if (want < MOUNTINFO_PATH_MAX) {
                        assert_int_equal(r, 1);
                        assert_int_equal(strlen(l.mount_point), want);
                } else
                        assert_int_equal(r, -EINVAL);
        }
}

/* mountinfo_open_dev() through a proc root of our own: the first mount point of the device
 * that opens, past one that does not; "MAJOR:MINOR" when none is listed. */
static void test_open_dev(void **state) {
        char root[] = "/tmp/mglrud-test-mountinfo.XXXXXX", path[512], what[256], text[1024];
        assert_non_null(mkdtemp(root));
        snprintf(path, sizeof path, "%s/self", root);
        assert_int_equal(mkdir(path, 0700), 0);
        snprintf(path, sizeof path, "%s/mnt", root);
        assert_int_equal(mkdir(path, 0700), 0);
        snprintf(text, sizeof text,
                 "1 0 8:1 / %s/gone rw - ext4 /dev/sda1 rw\n"
                 "2 0 8:2 / /elsewhere rw - ext4 /dev/sda2 rw\n"
                 "3 0 8:1 / %s/mnt rw - ext4 /dev/sda1 rw\n", root, root);
        snprintf(path, sizeof path, "%s/self/mountinfo", root);
        assert_int_equal(write_file_atomic(path, text, 0600), 0);

        int fd = mountinfo_open_dev(root, makedev(8, 1), what, sizeof what);
        assert_true(fd >= 0);
        struct stat a, b;
        snprintf(path, sizeof path, "%s/mnt", root);
        assert_int_equal(fstat(fd, &a), 0);
        assert_int_equal(stat(path, &b), 0);
        assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
        assert_string_equal(what, path);
        close(fd);

        assert_int_equal(mountinfo_open_dev(root, makedev(8, 9), what, sizeof what), -ENOENT);
        assert_string_equal(what, "8:9");
        /* /elsewhere does not open: the last mount point tried is what names the device */
        assert_int_equal(mountinfo_open_dev(root, makedev(8, 2), what, sizeof what), -ENOENT);
        assert_string_equal(what, "/elsewhere");

        snprintf(path, sizeof path, "%s/self/mountinfo", root);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(mountinfo_open_dev(root, makedev(8, 1), what, sizeof what), -ENOENT);
        assert_string_equal(what, "8:1");
        snprintf(path, sizeof path, "%s/mnt", root);
        assert_int_equal(rmdir(path), 0);
        snprintf(path, sizeof path, "%s/self", root);
        assert_int_equal(rmdir(path), 0);
        assert_int_equal(rmdir(root), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fixture),
                cmocka_unit_test(test_escapes_and_ends),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_long_mount_point),
                cmocka_unit_test(test_open_dev),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
