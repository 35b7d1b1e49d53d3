/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/swaps: the real 7.3 capture (zram0), lines rendered with the kernel's own format
 * (mm/swapfile.c swap_show: "%*s%s\t%lu\t%s%lu\t%s%d\n" after the escaped path), and
 * malformed input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"
#include "mglrud/kernel/swaps.h"

#define HEADER "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"

static int parse_exact(const char *s, size_t len, struct swaps_summary *ret) {
        _cleanup_free_ char *copy = fixture_dup_exact(s, len);
        assert_non_null(copy);
        return swaps_parse(copy, len, ret, NULL);
}

static int parse_str(const char *s, struct swaps_summary *ret) {
        return parse_exact(s, strlen(s), ret);
}

/* Appends one area the way swap_show prints it. */
static void render(char *buf, size_t size, const char *path, bool partition, unsigned long kib,
                   unsigned long used, int prio) {
        size_t n = strlen(buf);
        int len = (int) strlen(path);

        snprintf(buf + n, size - n, "%s%*s%s\t%lu\t%s%lu\t%s%d\n", path, len < 40 ? 40 - len : 1,
                 " ", partition ? "partition" : "file\t", kib, kib < 10000000 ? "\t" : "", used,
                 used < 10000000 ? "\t" : "", prio);
}

static void test_kernel_73(void **state) {
        struct read_buf b = {};
        struct swaps_summary s = {};

        /* The VM's zram0 (tests/vm/guest-init.sh), captured by tests/vm/capture-fixtures.sh. */
        assert_int_equal(fixture_read("kernel-7.3/swaps", &b), 0);
        assert_int_equal(swaps_parse(b.data, b.len, &s, NULL), 0);
        assert_int_equal(s.n_devices, 1);
        assert_int_equal(s.n_zram, 1);
        assert_true(s.size_kib > 0);
        assert_true(swaps_all_compressed(&s));
        read_buf_free(&b);
}

static void test_rendered(void **state) {
        char buf[4096] = HEADER;
        struct swaps_summary s = {};

        assert_int_equal(parse_str(buf, &s), 0); /* no swap: header only */
        assert_int_equal(s.n_devices, 0);
        assert_false(swaps_all_compressed(&s));

        render(buf, sizeof buf, "/dev/zram0", true, 786428, 1024, 100);
        assert_int_equal(parse_str(buf, &s), 0);
        assert_int_equal(s.n_devices, 1);
        assert_int_equal(s.n_zram, 1);
        assert_int_equal(s.size_kib, 786428);
        assert_int_equal(s.used_kib, 1024);
        assert_true(swaps_all_compressed(&s));

        /* A second zram, then a disk partition with a big size (no padding tab) and a swap file
         * whose path has a space (escaped \040) and is longer than 40 characters. */
        render(buf, sizeof buf, "/dev/zram1", true, 12000000, 12000000, 100);
        assert_int_equal(parse_str(buf, &s), 0);
        assert_true(swaps_all_compressed(&s));
        render(buf, sizeof buf, "/dev/nvme0n1p3", true, 33554428, 0, -2);
        render(buf, sizeof buf, "/var/lib/swap/a\\040very\\040long\\040directory\\040name/swapfile",
               false, 1048572, 4, -3);
        assert_int_equal(parse_str(buf, &s), 0);
        assert_int_equal(s.n_devices, 4);
        assert_int_equal(s.n_zram, 2);
        assert_int_equal(s.size_kib, 786428 + 12000000 + 33554428 + 1048572);
        assert_int_equal(s.used_kib, 1024 + 12000000 + 4);
        assert_false(swaps_all_compressed(&s));

        /* Newer kernels may add columns after the priority (an Id): ignored. */
        assert_int_equal(parse_str("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\t\tId\n"
                                   "/dev/zram0                              partition\t786428\t\t0\t\t100\t\t\t7\n",
                                   &s),
                         0);
        assert_int_equal(s.n_zram, 1);
}

static void test_zram_names(void **state) {
        static const struct {
                const char *path;
                bool zram;
        } cases[] = {
                { "/dev/zram0", true },     { "/dev/zram15", true }, { "/dev/zram", false },
                { "/dev/zramx", false },    { "/dev/zram0p1", false }, { "/dev/sda2", false },
                { "/zram0", false },        { "/dev/zram0/x", false },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[512] = HEADER;
                struct swaps_summary s = {};

                render(buf, sizeof buf, cases[i].path, true, 1000, 0, -2);
                assert_int_equal(parse_str(buf, &s), 0);
                if (swaps_all_compressed(&s) != cases[i].zram)
                        fail_msg("%s: zram %d", cases[i].path, !cases[i].zram);
        }
}

static void test_malformed(void **state) {
        static const char *const bad[] = {
                "",
                "\n",
                "Filenam\n",
                "/dev/zram0 partition 10 0 100\n",                  /* no header */
                HEADER "/dev/zram0 partition 10 0\n",                /* no priority */
                HEADER "/dev/zram0 partition 10 x 100\n",
                HEADER "/dev/zram0 partition -10 0 100\n",
                HEADER "/dev/zram0 partition 10 0 1x\n",
                HEADER "/dev/zram0 partition 10 0 -\n",
                HEADER "/dev/zram0 partition 10 11 100\n",           /* used > size */
                HEADER "/dev/zram0 partition 18446744073709551616 0 100\n",
                HEADER "/dev/zram0 partition 18446744073709551615 0 1\n"
                       "/dev/zram1 partition 1 0 1\n",               /* total overflows */
                HEADER "/dev/zram0 partition 10 0 100",              /* cut last line */
        };
        struct swaps_summary s = { .n_devices = 42 };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                if (parse_str(bad[i], &s) != -EINVAL)
                        fail_msg("accepted \"%s\"", bad[i]);
        assert_int_equal(s.n_devices, 42); /* untouched on failure */
        assert_int_equal(swaps_parse(NULL, 0, &s, NULL), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_kernel_73),
                cmocka_unit_test(test_rendered),
                cmocka_unit_test(test_zram_names),
                cmocka_unit_test(test_malformed),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
