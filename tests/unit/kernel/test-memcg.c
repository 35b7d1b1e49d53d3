/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
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
#include "mglrud/shared/macro.h"
#include "mglrud/kernel/memcg.h"

static int value_exact(const char *s, size_t len, uint64_t *ret) {
        _cleanup_free_ char *copy = fixture_dup_exact(s, len);
        assert_non_null(copy);
        return memcg_value_parse(copy, len, ret);
}

static int value_str(const char *s, uint64_t *ret) {
        return value_exact(s, strlen(s), ret);
}

static int meminfo_exact(const char *s, size_t len, struct meminfo *ret) {
        _cleanup_free_ char *copy = fixture_dup_exact(s, len);
        assert_non_null(copy);
        return meminfo_parse(copy, len, ret, NULL);
}

static void test_value(void **state) {
        uint64_t v = 0;

        assert_int_equal(value_str("max\n", &v), 0);
        assert_true(v == MEMCG_VALUE_MAX);
        assert_int_equal(value_str("max", &v), 0);
        assert_true(v == MEMCG_VALUE_MAX);
        assert_int_equal(value_str("0\n", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(value_str("367001600\n", &v), 0);
        assert_int_equal(v, 367001600);
        assert_int_equal(value_str("18446744073709551614\n", &v), 0);
        assert_true(v == UINT64_MAX - 1);

        v = 4242;
        assert_int_equal(value_str("18446744073709551616\n", &v), -ERANGE);
        assert_int_equal(value_str("18446744073709551615\n", &v), -ERANGE); /* "max" in disguise */
        static const char *const bad[] = {
                "", "\n", "\n\n", "max\n\n", "5\n\n", "MAX\n", "max \n", " 5\n", "5 \n", "-1\n",
                "5x\n", "maxx\n", "ma", "1.5\n", "5\n6\n", "infinity\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                if (value_str(bad[i], &v) != -EINVAL)
                        fail_msg("accepted \"%s\"", bad[i]);
        assert_int_equal(value_exact("5\0", 2, &v), -EINVAL);
        assert_int_equal(v, 4242);
}

static void test_value_fixtures(void **state) {
        static const struct {
                const char *file;
                uint64_t value;
        } cases[] = {
                { "memcg/memory.max", MEMCG_VALUE_MAX },
                { "memcg/memory.current", 367001600 },
                { "memcg/memory.low", 0 },
                { "memcg/memory.swap.max", MEMCG_VALUE_MAX },
                { "memcg/memory.high", UINT64_C(1) << 30 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(read_buf_free) struct read_buf b = {};
                uint64_t v;

                assert_int_equal(fixture_read(cases[i].file, &b), 0);
                int fd = fixture_memfd(b.data, b.len);
                assert_true(fd >= 0);
                assert_int_equal(memcg_value_read(fd, &v), 0);
                assert_true(v == cases[i].value);
                assert_int_equal(memcg_value_read(fd, &v), 0); /* pread from 0 again */
                assert_true(v == cases[i].value);
                close(fd);
        }
        uint64_t v;
        assert_int_equal(memcg_value_read(-1, &v), -EBADF);
}

static void test_meminfo(void **state) {
        _cleanup_(read_buf_free) struct read_buf b = {};
        struct meminfo m;

        assert_int_equal(fixture_read("memcg/meminfo", &b), 0);
        assert_int_equal(meminfo_exact(b.data, b.len, &m), 0);
        assert_int_equal(m.mem_total, UINT64_C(16318412) * 1024);
        assert_int_equal(m.mem_available, UINT64_C(9876543) * 1024);
        assert_int_equal(m.swap_total, UINT64_C(8388604) * 1024);
        assert_int_equal(m.swap_free, UINT64_C(8000000) * 1024);
        assert_true(m.has_lru);
        assert_int_equal(m.active_anon, 333 * 1024);
        assert_int_equal(m.inactive_anon, 444 * 1024);
        assert_int_equal(m.active_file, 555 * 1024);
        assert_int_equal(m.inactive_file, 666 * 1024);

        int fd = fixture_memfd(b.data, b.len);
        assert_true(fd >= 0);
        memset(&m, 0, sizeof(m));
        assert_int_equal(meminfo_read(fd, &m, NULL), 0);
        assert_int_equal(m.mem_total, UINT64_C(16318412) * 1024);
        close(fd);

        assert_int_equal(fixture_read("memcg/meminfo-noswap", &b), 0);
        assert_int_equal(meminfo_exact(b.data, b.len, &m), 0);
        assert_int_equal(m.swap_total, 0);
        assert_int_equal(m.swap_free, 0);
        assert_int_equal(m.mem_available, UINT64_C(9876543) * 1024);
}

static void test_meminfo_malformed(void **state) {
        static const char *const good = "MemTotal:       100 kB\nMemAvailable:    50 kB\n"
                                        "SwapTotal:        0 kB\nSwapFree:         0 kB\n";
        static const char *const bad[] = {
                "",
                "MemTotal:       100 kB\nMemAvailable:    50 kB\nSwapTotal:        0 kB\n", /* missing */
                "MemTotal:       100 kB\nMemAvailable:    50 kB\nSwapTotal:        0 kB\nSwapFree:         0 kB",
                "MemTotal:       100 kB\nMemAvailable:    50 kB\nSwapTotal:        0 kB\nSwapFree:    kB\n",
                "MemTotal:       100 kB\nMemAvailable:    50 kB\nSwapTotal:        0 kB\nSwapFree:\n",
                "MemTotal:       100 kB\nMemAvailable:    50 kB\nSwapTotal:        0 kB\nSwapFree 0 kB\n",
                "MemTotal:       100 kB\nMemAvailable:    50 kB\nSwapTotal:        0 kB\nSwapFree:0 kB\n",
                "MemTotal:       100 kB\nMemAvailable:    -50 kB\nSwapTotal:        0 kB\nSwapFree:   0 kB\n",
                "MemTotal:       100 MB\nMemAvailable:    50 kB\nSwapTotal:        0 kB\nSwapFree:   0 kB\n",
                "MemTotal:       18014398509481984 kB\nMemAvailable:    50 kB\nSwapTotal:        0 kB\nSwapFree:   0 kB\n",
                "MemTotal:       99999999999999999999 kB\nMemAvailable:    50 kB\nSwapTotal:        0 kB\nSwapFree:   0 kB\n",
                "MemTotal:       100 kB\n\nMemAvailable:    50 kB\nSwapTotal:        0 kB\nSwapFree:   0 kB\n",
                "MemTotal:       100 kB\nMemAvailable:    50 kB\nSwapTotal:        0 kB\nSwapFree:   0 kB\ngarbage\n",
                ":       100 kB\nMemAvailable:    50 kB\nSwapTotal:        0 kB\nSwapFree:   0 kB\n",
        };
        struct meminfo m = { .mem_total = 4242 };

        assert_int_equal(meminfo_exact(good, strlen(good), &m), 0);
        assert_int_equal(m.mem_total, 102400);
        /* The LRU lists are optional, but only all four together count. */
        assert_false(m.has_lru);
        static const char *const three = "MemTotal: 1 kB\nMemAvailable: 1 kB\nSwapTotal: 0 kB\n"
                "SwapFree: 0 kB\nActive(anon): 1 kB\nInactive(anon): 2 kB\nActive(file): 3 kB\n";
        assert_int_equal(meminfo_exact(three, strlen(three), &m), 0);
        assert_false(m.has_lru);
        m.mem_total = 4242;
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                if (meminfo_exact(bad[i], strlen(bad[i]), &m) != -EINVAL)
                        fail_msg("accepted case %zu", i);
        assert_int_equal(m.mem_total, 4242);

        /* Cuts of a real file: inside a line always fails; between lines fails until the four
         * required keys are in, then parses. */
        _cleanup_(read_buf_free) struct read_buf b = {};
        assert_int_equal(fixture_read("memcg/meminfo", &b), 0);
        const char *after_swapfree = strstr(b.data, "SwapFree:");
        size_t complete = strchr(after_swapfree, '\n') - b.data + 1;
        for (size_t n = 0; n < b.len; n++) {
                int r = meminfo_exact(b.data, n, &m);
                bool ok = n >= complete && b.data[n - 1] == '\n';
                if (ok ? r != 0 : r != -EINVAL)
                        fail_msg("cut at %zu gave %d", n, r);
        }
}

/* Real captures from the 7.3 kernel (skipped while absent). */
static void test_kernel_73(void **state) {
        static const char *const files[] = {
                "memory.current", "memory.min", "memory.low", "memory.high", "memory.max",
                "memory.swap.current", "memory.swap.max", "memory.peak", "memory.zswap.current",
                "memory.zswap.max",
        };
        static const char *const dirs[] = { "kernel-7.3/cgroup-a-b", "kernel-7.3/cgroup-b" };
        unsigned seen = 0;

        for (size_t d = 0; d < ELEMENTSOF(dirs); d++)
                for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                        char rel[256];
                        snprintf(rel, sizeof(rel), "%s/%s", dirs[d], files[i]);
                        if (!fixture_exists(rel))
                                continue;
                        _cleanup_(read_buf_free) struct read_buf b = {};
                        uint64_t v;
                        assert_int_equal(fixture_read(rel, &b), 0);
                        assert_int_equal(value_exact(b.data, b.len, &v), 0);
                        if (strcmp(b.data, "max\n") == 0)
                                assert_true(v == MEMCG_VALUE_MAX);
                        else
                                assert_true(v == strtoull(b.data, NULL, 10));
                        seen++;
                }

        if (fixture_exists("kernel-7.3/meminfo")) {
                _cleanup_(read_buf_free) struct read_buf b = {};
                unsigned long long total, avail, stotal, sfree;
                struct meminfo m;

                assert_int_equal(fixture_read("kernel-7.3/meminfo", &b), 0);
                assert_int_equal(meminfo_exact(b.data, b.len, &m), 0);
                assert_int_equal(sscanf(strstr(b.data, "MemTotal:"), "MemTotal: %llu kB", &total), 1);
                assert_int_equal(sscanf(strstr(b.data, "MemAvailable:"), "MemAvailable: %llu kB", &avail), 1);
                assert_int_equal(sscanf(strstr(b.data, "SwapTotal:"), "SwapTotal: %llu kB", &stotal), 1);
                assert_int_equal(sscanf(strstr(b.data, "SwapFree:"), "SwapFree: %llu kB", &sfree), 1);
                assert_true(m.mem_total == total * 1024 && m.mem_available == avail * 1024);
                assert_true(m.swap_total == stotal * 1024 && m.swap_free == sfree * 1024);
                seen++;
        }
        if (seen == 0)
                skip();
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_value),
                cmocka_unit_test(test_value_fixtures),
                cmocka_unit_test(test_meminfo),
                cmocka_unit_test(test_meminfo_malformed),
                cmocka_unit_test(test_kernel_73),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
