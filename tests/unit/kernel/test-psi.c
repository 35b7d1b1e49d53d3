/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"
#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"
#include "mglrud/kernel/psi.h"

/* Parses s from an exact-size heap copy so ASan sees any read past len. */
static int parse_exact(const char *s, size_t len, struct psi *ret) {
        _cleanup_free_ char *copy = fixture_dup_exact(s, len);
        assert_non_null(copy);
        return psi_parse(copy, len, ret, NULL);
}

static int parse_str(const char *s, struct psi *ret) {
        return parse_exact(s, strlen(s), ret);
}

static void load(const char *rel, struct psi *ret) {
        _cleanup_(read_buf_free) struct read_buf b = {};
        assert_int_equal(fixture_read(rel, &b), 0);
        assert_int_equal(parse_exact(b.data, b.len, ret), 0);
}

static void test_fixtures(void **state) {
        struct psi p;

        load("psi/idle", &p);
        assert_true(p.has_full);
        assert_true(p.some.avg10 == 0 && p.some.total_us == 0 && p.full.total_us == 0);

        load("psi/busy", &p);
        assert_true(p.has_full);
        assert_double_near(p.some.avg10, 12.34, 1e-12);
        assert_double_near(p.some.avg60, 5.67, 1e-12);
        assert_double_near(p.some.avg300, 1.00, 1e-12);
        assert_int_equal(p.some.total_us, 123456789);
        assert_double_near(p.full.avg10, 3.50, 1e-12);
        assert_double_near(p.full.avg300, 0.40, 1e-12);
        assert_int_equal(p.full.total_us, 45678901);

        load("psi/saturated", &p);
        assert_double_near(p.some.avg10, 100.0, 0);
        assert_true(p.some.total_us == UINT64_MAX);
        assert_true(p.full.total_us == UINT64_MAX - 1);

        load("psi/some-only", &p);
        assert_false(p.has_full);
        assert_int_equal(p.some.total_us, 987654);
        assert_double_near(p.some.avg10, 0.51, 1e-12);
}

static void test_variants(void **state) {
        struct psi p;

        /* "full" before "some". */
        assert_int_equal(parse_str("full avg10=0.00 avg60=0.00 avg300=0.00 total=9\n"
                                   "some avg10=0.00 avg60=0.00 avg300=0.00 total=8\n", &p), 0);
        assert_int_equal(p.some.total_us, 8);
        assert_int_equal(p.full.total_us, 9);
}

static void test_malformed(void **state) {
        static const char *const bad[] = {
                "",
                "\n",
                "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",             /* no some */
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n\n",           /* blank line */
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=\n",              /* empty value */
                "some avg10=0.00 avg60=0.00 avg300=0.00\n",                     /* missing total */
                "some avg10=0.00 avg60=0.00 total=0\n",                         /* missing field */
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0 extra=1\n",     /* extra field */
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0 \n",            /* trailing space */
                "some avg10=0.00  avg60=0.00 avg300=0.00 total=0\n",            /* double space */
                "some avg60=0.00 avg10=0.00 avg300=0.00 total=0\n",             /* order */
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=18446744073709551616\n",
                "some avg10=-1.00 avg60=0.00 avg300=0.00 total=0\n",
                "some avg10=100.01 avg60=0.00 avg300=0.00 total=0\n",
                "some avg10=1e3 avg60=0.00 avg300=0.00 total=0\n",
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0x10\n",
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=-5\n",
                ("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
                 "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"),            /* duplicate */
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull\n",       /* truncated */
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.0",
                "some avg10=1.00 avg60=2.00 avg300=3.00 total=4",                /* no newline */
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nlots avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                "somexavg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                "some",
                "some ",
                "some avg10",
                "some avg10=",
                "garbage\n",
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct psi p = { .some.total_us = 4242 };
                if (parse_str(bad[i], &p) != -EINVAL)
                        fail_msg("accepted case %zu: \"%s\"", i, bad[i]);
                assert_int_equal(p.some.total_us, 4242);
        }
        /* An embedded NUL is garbage too. */
        struct psi p;
        assert_int_equal(parse_exact("some avg10=0.00 avg60=0.00 avg300=0.00 total=1\0", 48, &p), -EINVAL);

        /* Every truncation of a valid file that cuts into a line is rejected: the kernel ends
         * every line with a newline, so a cut never passes for a smaller number. */
        const char *good = "some avg10=12.34 avg60=5.67 avg300=1.00 total=123456789\n"
                           "full avg10=3.50 avg60=1.25 avg300=0.40 total=45678901\n";
        size_t first_line = strchr(good, '\n') - good + 1;
        for (size_t n = 0; n < strlen(good); n++)
                if (n != first_line && parse_exact(good, n, &p) != -EINVAL)
                        fail_msg("accepted truncation at %zu", n);
        assert_int_equal(parse_exact(good, first_line, &p), 0);
        assert_false(p.has_full);
}

static void test_read(void **state) {
        const char *text = "some avg10=1.00 avg60=2.00 avg300=3.00 total=4\n";
        int fd = fixture_memfd(text, strlen(text));
        struct psi p;

        assert_true(fd >= 0);
        /* Twice on the same fd: the reader preads from 0 and keeps the fd usable. */
        for (int i = 0; i < 2; i++) {
                assert_int_equal(psi_read(fd, &p, NULL), 0);
                assert_int_equal(p.some.total_us, 4);
                assert_false(p.has_full);
        }
        close(fd);
        assert_int_equal(psi_read(fd, &p, NULL), -EBADF);
}

static void test_ratio(void **state) {
        struct psi a = { .some.total_us = 1000, .full.total_us = 100, .has_full = true };
        struct psi b = { .some.total_us = 1500, .full.total_us = 150, .has_full = true };

        double v = -1;

        assert_true(psi_share(&a, &b, 1000, false, &v));
        assert_double_near(v, 0.5, 1e-12);
        assert_true(psi_share(&a, &b, 1000, true, &v));
        assert_double_near(v, 0.05, 1e-12);
        v = -1;
        assert_false(psi_share(&a, &b, 0, false, &v));
        assert_false(psi_share(&b, &a, 1000, false, &v)); /* went backwards */
        assert_double_near(v, -1, 0);                      /* untouched */
        assert_true(psi_share(&a, &b, 100, false, &v));
        assert_double_near(v, 1.0, 0);                     /* clamped */
        b.has_full = false;
        assert_false(psi_share(&a, &b, 1000, true, &v));
}

/* Real captures from the 7.3 kernel (skipped while absent). */
static void test_kernel_73(void **state) {
        static const char *const files[] = {
                "kernel-7.3/proc-pressure-memory", "kernel-7.3/cgroup-root/memory.pressure",
                "kernel-7.3/cgroup-a-b/memory.pressure", "kernel-7.3/cgroup-b/memory.pressure",
        };
        unsigned seen = 0;

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                if (!fixture_exists(files[i]))
                        continue;
                _cleanup_(read_buf_free) struct read_buf b = {};
                unsigned long long some_total, full_total;
                struct psi p;

                load(files[i], &p);
                assert_true(p.has_full);
                /* Cross-check with a plain sscanf of the same text. */
                assert_int_equal(fixture_read(files[i], &b), 0);
                const char *full = strstr(b.data, "full ");
                assert_non_null(full);
                assert_int_equal(sscanf(strstr(b.data, "total="), "total=%llu", &some_total), 1);
                assert_int_equal(sscanf(strstr(full, "total="), "total=%llu", &full_total), 1);
                assert_true(p.some.total_us == some_total);
                assert_true(p.full.total_us == full_total);
                seen++;
        }
        if (seen == 0)
                skip();
}

/* The trigger text, and the kernel's bounds checked before any write. */
static void test_trigger_format(void **state) {
        char buf[64];
        assert_int_equal(psi_trigger_format(buf, sizeof buf, false, 10000, 1000000), 18);
        assert_string_equal(buf, "some 10000 1000000");
        assert_int_equal(psi_trigger_format(buf, sizeof buf, true, 500000, 2000000), 19);
        assert_string_equal(buf, "full 500000 2000000");
        assert_int_equal(psi_trigger_format(buf, sizeof buf, false, 0, 1000000), -EINVAL);
        assert_int_equal(psi_trigger_format(buf, sizeof buf, false, 1000000, 1000000), -EINVAL);
        assert_int_equal(psi_trigger_format(buf, sizeof buf, false, 1000, 499999), -EINVAL);
        assert_int_equal(psi_trigger_format(buf, sizeof buf, false, 1000, 10000001), -EINVAL);
        assert_int_equal(psi_trigger_format(buf, 8, false, 10000, 1000000), -EINVAL);
}

/* A pressure file that is not the kernel's (a test tree) is left alone: no trigger text lands
 * in it. The host's /proc/pressure/memory takes one when PSI is on. */
static void test_trigger_open(void **state) {
        char dir[] = "/tmp/mglrud-test-psi.XXXXXX";
        assert_non_null(mkdtemp(dir));
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dirfd >= 0);
        static const char text[] = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        int fd = openat(dirfd, "memory.pressure", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        close(fd);

        assert_int_equal(psi_trigger_open(dirfd, "memory.pressure", false, 10000, 1000000),
                         -EOPNOTSUPP);
        struct read_buf b = {};
        assert_int_equal(read_full_file_at(dirfd, "memory.pressure", &b), 0);
        assert_string_equal(b.data, text);
        read_buf_free(&b);
        assert_int_equal(psi_trigger_open(dirfd, "missing", false, 10000, 1000000), -ENOENT);
        assert_int_equal(psi_trigger_open(dirfd, "memory.pressure", false, 0, 1000000), -EINVAL);
        assert_int_equal(unlinkat(dirfd, "memory.pressure", 0), 0);
        close(dirfd);
        assert_int_equal(rmdir(dir), 0);

        fd = psi_trigger_open(AT_FDCWD, "/proc/pressure/memory", false, 10000, 2000000);
        if (fd == -ENOENT || fd == -EOPNOTSUPP)
                return; /* no PSI on this kernel */
        assert_true(fd >= 0);
        close(fd);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fixtures),
                cmocka_unit_test(test_variants),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_read),
                cmocka_unit_test(test_trigger_format),
                cmocka_unit_test(test_trigger_open),
                cmocka_unit_test(test_ratio),
                cmocka_unit_test(test_kernel_73),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
