/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

static void test_u64(void **state) {
        uint64_t v = 7;

        assert_int_equal(parse_u64("0", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(parse_u64("18446744073709551615", &v), 0);
        assert_true(v == UINT64_MAX);
        assert_int_equal(parse_u64("000123", &v), 0);
        assert_int_equal(v, 123);

        v = 7;
        assert_int_equal(parse_u64("18446744073709551616", &v), -ERANGE);
        assert_int_equal(parse_u64("99999999999999999999999", &v), -ERANGE);
        assert_int_equal(parse_u64("", &v), -EINVAL);
        assert_int_equal(parse_u64("-1", &v), -EINVAL);
        assert_int_equal(parse_u64("+1", &v), -EINVAL);
        assert_int_equal(parse_u64(" 1", &v), -EINVAL);
        assert_int_equal(parse_u64("1 ", &v), -EINVAL);
        assert_int_equal(parse_u64("1x", &v), -EINVAL);
        assert_int_equal(parse_u64("0x10", &v), -EINVAL);
        assert_int_equal(parse_u64(NULL, &v), -EINVAL);
        assert_int_equal(v, 7); /* untouched on failure */

        /* Only len bytes count, whatever follows. */
        assert_int_equal(parse_u64_n("12345", 3, &v), 0);
        assert_int_equal(v, 123);
        assert_int_equal(parse_u64_n("12x", 2, &v), 0);
        assert_int_equal(v, 12);
        assert_int_equal(parse_u64_n("12", 0, &v), -EINVAL);
}

static void test_decimal(void **state) {
        double d = -1;

        assert_int_equal(parse_decimal_n("12.34", 5, &d), 0);
        assert_true(d == 12.34);
        assert_int_equal(parse_decimal_n("0.00", 4, &d), 0);
        assert_true(d == 0.0);
        assert_int_equal(parse_decimal_n("100", 3, &d), 0);
        assert_true(d == 100.0);
        assert_int_equal(parse_decimal_n("5.67xyz", 3, &d), 0);
        assert_true(d == 5.6);

        d = -1;
        assert_int_equal(parse_decimal_n("", 0, &d), -EINVAL);
        assert_int_equal(parse_decimal_n(".5", 2, &d), -EINVAL);
        assert_int_equal(parse_decimal_n("5.", 2, &d), -EINVAL);
        assert_int_equal(parse_decimal_n("-1.0", 4, &d), -EINVAL);
        assert_int_equal(parse_decimal_n("1.2.3", 5, &d), -EINVAL);
        assert_int_equal(parse_decimal_n("1e5", 3, &d), -EINVAL);
        assert_int_equal(parse_decimal_n("nan", 3, &d), -EINVAL);
        assert_true(d == -1);
}

static void test_size(void **state) {
        uint64_t v = 0;

        assert_int_equal(parse_size("4096", &v), 0);
        assert_int_equal(v, 4096);
        assert_int_equal(parse_size("512M", &v), 0);
        assert_int_equal(v, UINT64_C(512) << 20);
        assert_int_equal(parse_size("1.5G", &v), 0);
        assert_int_equal(v, UINT64_C(3) << 29);
        assert_int_equal(parse_size("512K", &v), 0);
        assert_int_equal(v, UINT64_C(512) << 10);
        assert_int_equal(parse_size("2T", &v), 0);
        assert_int_equal(v, UINT64_C(2) << 40);
        assert_int_equal(parse_size("1GiB", &v), 0);
        assert_int_equal(v, UINT64_C(1) << 30);
        assert_int_equal(parse_size("1MB", &v), 0);
        assert_int_equal(v, UINT64_C(1) << 20);
        assert_int_equal(parse_size("100B", &v), 0);
        assert_int_equal(v, 100);
        assert_int_equal(parse_size("0", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(parse_size("15E", &v), 0);
        assert_true(v == UINT64_C(15) << 60);

        v = 1;
        assert_int_equal(parse_size("16E", &v), -ERANGE);
        assert_int_equal(parse_size("18446744073709551616", &v), -ERANGE);
        assert_int_equal(parse_size("99999999999999999999999K", &v), -ERANGE);
        assert_int_equal(parse_size("", &v), -EINVAL);
        assert_int_equal(parse_size("M", &v), -EINVAL);
        assert_int_equal(parse_size("1.5", &v), -EINVAL);
        assert_int_equal(parse_size("-1M", &v), -EINVAL);
        assert_int_equal(parse_size("1X", &v), -EINVAL);
        assert_int_equal(parse_size("1 M", &v), -EINVAL);
        assert_int_equal(parse_size("1M ", &v), -EINVAL);
        assert_int_equal(parse_size("1MiBB", &v), -EINVAL);
        assert_int_equal(v, 1);
}

static void test_duration(void **state) {
        uint64_t v = 0;

        assert_int_equal(parse_duration("500ms", &v), 0);
        assert_int_equal(v, 500 * USEC_PER_MSEC);
        assert_int_equal(parse_duration("5s", &v), 0);
        assert_int_equal(v, 5 * USEC_PER_SEC);
        assert_int_equal(parse_duration("2min", &v), 0);
        assert_int_equal(v, 120 * USEC_PER_SEC);
        assert_int_equal(parse_duration("1h", &v), 0);
        assert_int_equal(v, 3600 * USEC_PER_SEC);
        assert_int_equal(parse_duration("1min 30s", &v), 0);
        assert_int_equal(v, 90 * USEC_PER_SEC);
        assert_int_equal(parse_duration("1min30s", &v), 0);
        assert_int_equal(v, 90 * USEC_PER_SEC);
        assert_int_equal(parse_duration("10", &v), 0);
        assert_int_equal(v, 10 * USEC_PER_SEC);
        assert_int_equal(parse_duration("1.5s", &v), 0);
        assert_int_equal(v, 1500 * USEC_PER_MSEC);
        assert_int_equal(parse_duration("0.5", &v), 0);
        assert_int_equal(v, 500 * USEC_PER_MSEC);
        assert_int_equal(parse_duration("250us", &v), 0);
        assert_int_equal(v, 250);
        assert_int_equal(parse_duration("1d", &v), 0);
        assert_int_equal(v, 86400 * USEC_PER_SEC);
        assert_int_equal(parse_duration("0", &v), 0);
        assert_int_equal(v, 0);

        v = 1;
        assert_int_equal(parse_duration("", &v), -EINVAL);
        assert_int_equal(parse_duration(" ", &v), -EINVAL);
        assert_int_equal(parse_duration("s", &v), -EINVAL);
        assert_int_equal(parse_duration("-5s", &v), -EINVAL);
        assert_int_equal(parse_duration("5x", &v), -EINVAL);
        assert_int_equal(parse_duration("1min 30", &v), -EINVAL);
        assert_int_equal(parse_duration("5s,", &v), -EINVAL);
        assert_int_equal(parse_duration("99999999999999999999w", &v), -ERANGE);
        assert_int_equal(parse_duration("18446744073709551615s", &v), -ERANGE);
        assert_int_equal(parse_duration("18446744073709551615us 1us", &v), -ERANGE);
        assert_int_equal(v, 1);
}

static void test_percent(void **state) {
        double d = -1;

        assert_int_equal(parse_percent("0.1%", &d), 0);
        assert_double_near(d, 0.001, 1e-15);
        assert_int_equal(parse_percent("100%", &d), 0);
        assert_double_near(d, 1.0, 0);
        assert_int_equal(parse_percent("0.25", &d), 0);
        assert_double_near(d, 0.25, 0);
        assert_int_equal(parse_percent("0%", &d), 0);
        assert_double_near(d, 0, 0);

        d = -1;
        assert_int_equal(parse_percent("100.1%", &d), -EINVAL);
        assert_int_equal(parse_percent("1.5", &d), -EINVAL);
        assert_int_equal(parse_percent("-1%", &d), -EINVAL);
        assert_int_equal(parse_percent("%", &d), -EINVAL);
        assert_int_equal(parse_percent("", &d), -EINVAL);
        assert_int_equal(parse_percent("5%%", &d), -EINVAL);
        assert_int_equal(parse_percent("abc", &d), -EINVAL);
        /* at most 12 decimals, so that format_percent_exact can write every ratio back */
        assert_int_equal(parse_percent("0.0000000000001%", &d), -EINVAL);
        assert_int_equal(parse_percent("0.1000000000000", &d), -EINVAL);
        assert_double_near(d, -1, 0);
        assert_int_equal(parse_percent("0.000000000001%", &d), 0);
        assert_double_near(d, 1e-14, 1e-28);
}

static void test_format_percent_exact(void **state) {
        static const char *const ratios[] = { "0%", "0.1%", "100%", "0.25", "1", "0.123456789%",
                                              "0.00001%", "0.000000000001%", "99.999999999999%",
                                              "0.000000000001", "0.999999999999", "33.3%" };
        char buf[32];

        for (size_t i = 0; i < ELEMENTSOF(ratios); i++) {
                double d, back;
                assert_int_equal(parse_percent(ratios[i], &d), 0);
                const char *s = format_percent_exact(buf, sizeof buf, d);
                assert_true(strlen(s) <= 17);
                assert_int_equal(parse_percent(s, &back), 0);
                /* exact for a percentage; a bare ratio may move by the last bit of the double */
                if (strchr(ratios[i], '%'))
                        assert_true(back == d);
                else
                        assert_double_near(back, d, 1e-16 * d);
        }
        assert_string_equal(format_percent_exact(buf, sizeof buf, 0.001), "0.1%");
        assert_string_equal(format_percent_exact(buf, sizeof buf, 0.25), "25%");
        assert_string_equal(format_percent_exact(buf, sizeof buf, 1), "100%");
        assert_string_equal(format_percent_exact(buf, sizeof buf, 0), "0%");
        assert_string_equal(format_percent_exact(buf, sizeof buf, 1e-7), "0.00001%");
}

static void test_boolean(void **state) {
        const char *yes[] = { "1", "yes", "YES", "true", "on", "y" };
        const char *no[] = { "0", "no", "false", "Off", "n" };
        const char *bad[] = { "", "2", "yess", "maybe", " yes" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                assert_int_equal(parse_boolean(yes[i]), 1);
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                assert_int_equal(parse_boolean(no[i]), 0);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_int_equal(parse_boolean(bad[i]), -EINVAL);
}

static void test_format_bytes(void **state) {
        char buf[32];

        assert_string_equal(format_bytes(buf, sizeof(buf), 100), "100B");
        assert_string_equal(format_bytes(buf, sizeof(buf), 0), "0");
        assert_string_equal(format_bytes(buf, sizeof(buf), 12 * 1024), "12K");
        assert_string_equal(format_bytes(buf, sizeof(buf), UINT64_C(512) << 20), "512M");
        assert_string_equal(format_bytes(buf, sizeof(buf), UINT64_C(3) << 29), "1.5G");
        assert_string_equal(format_bytes(buf, sizeof(buf), (UINT64_C(2) << 30) - 1), "1.9G");
        assert_string_equal(format_bytes(buf, sizeof(buf), UINT64_MAX), "15E");

        /* What it prints parses back to no more than the input. */
        const uint64_t samples[] = { 1, 1023, 1024, 1536, 999999, UINT64_C(5) << 40, UINT64_MAX };
        for (size_t i = 0; i < ELEMENTSOF(samples); i++) {
                uint64_t back;
                assert_int_equal(parse_size(format_bytes(buf, sizeof(buf), samples[i]), &back), 0);
                assert_true(back <= samples[i]);
        }

        char tiny[4];
        assert_string_equal(format_bytes(tiny, sizeof(tiny), UINT64_C(512) << 20), "512");

        /* Three significant digits: one decimal below 10, whole numbers from 10 on. */
        assert_string_equal(format_bytes(buf, sizeof(buf), 536576), "524K");
        assert_string_equal(format_bytes(buf, sizeof(buf), 212 * (UINT64_C(1) << 20) + 300000), "212M");
        assert_string_equal(format_bytes(buf, sizeof(buf), UINT64_C(1) << 40), "1T");
}

/* The exact forms, for configuration text: parse back to the same value. */
static void test_format_exact(void **state) {
        char buf[32];
        const uint64_t sizes[] = { 0, 1, 4096, 2047 * (UINT64_C(1) << 20), UINT64_C(3) << 29,
                                   UINT64_C(64) << 20, 123456789 };
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                uint64_t back;
                assert_int_equal(parse_size(format_bytes_exact(buf, sizeof(buf), sizes[i]), &back), 0);
                assert_int_equal(back, sizes[i]);
        }
        assert_string_equal(format_bytes_exact(buf, sizeof(buf), 2047 * (UINT64_C(1) << 20)), "2047M");
        const uint64_t durations[] = { 0, 7, 90500 * USEC_PER_MSEC, 120 * USEC_PER_SEC,
                                       86400 * USEC_PER_SEC, 1234567 };
        for (size_t i = 0; i < ELEMENTSOF(durations); i++) {
                uint64_t back;
                assert_int_equal(parse_duration(format_duration_exact(buf, sizeof(buf), durations[i]),
                                                &back), 0);
                assert_int_equal(back, durations[i]);
        }
        assert_string_equal(format_duration_exact(buf, sizeof(buf), 90500 * USEC_PER_MSEC), "90500ms");
        assert_string_equal(format_duration_exact(buf, sizeof(buf), 120 * USEC_PER_SEC), "2min");
}

static void test_format_duration(void **state) {
        char buf[32];

        assert_string_equal(format_duration(buf, sizeof(buf), 120 * USEC_PER_SEC), "2min");
        assert_string_equal(format_duration(buf, sizeof(buf), 1500 * USEC_PER_MSEC), "1.5s");
        assert_string_equal(format_duration(buf, sizeof(buf), 250 * USEC_PER_MSEC), "250ms");
        assert_string_equal(format_duration(buf, sizeof(buf), 90 * USEC_PER_SEC), "1.5min");
        assert_string_equal(format_duration(buf, sizeof(buf), 3600 * USEC_PER_SEC), "1h");
        assert_string_equal(format_duration(buf, sizeof(buf), 7), "7us");
        assert_string_equal(format_duration(buf, sizeof(buf), 0), "0");
        assert_string_equal(format_duration(buf, sizeof(buf), 86400 * USEC_PER_SEC), "1d");
        assert_string_equal(format_duration(buf, sizeof(buf), 156 * USEC_PER_SEC), "2.6min");

        const uint64_t samples[] = { 0, 1, 999, 1000, 1234567, 86400 * USEC_PER_SEC, UINT64_MAX };
        for (size_t i = 0; i < ELEMENTSOF(samples); i++) {
                uint64_t back;
                assert_int_equal(parse_duration(format_duration(buf, sizeof(buf), samples[i]), &back), 0);
                assert_true(back <= samples[i]);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_u64),
                cmocka_unit_test(test_decimal),
                cmocka_unit_test(test_size),
                cmocka_unit_test(test_duration),
                cmocka_unit_test(test_percent),
                cmocka_unit_test(test_boolean),
                cmocka_unit_test(test_format_bytes),
                cmocka_unit_test(test_format_exact),
                cmocka_unit_test(test_format_percent_exact),
                cmocka_unit_test(test_format_duration),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
