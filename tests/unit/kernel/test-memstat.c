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
#include "mglrud/kernel/memstat.h"
#include "mglrud/shared/fileio.h"

static int parse_exact(const char *s, size_t len, struct memstat *ret) {
        _cleanup_free_ char *copy = fixture_dup_exact(s, len);
        assert_non_null(copy);
        return memstat_parse(copy, len, ret, NULL);
}

static void load(const char *rel, struct memstat *ret) {
        _cleanup_(read_buf_free) struct read_buf b = {};
        assert_int_equal(fixture_read(rel, &b), 0);
        assert_int_equal(parse_exact(b.data, b.len, ret), 0);
}

static uint64_t get(const struct memstat *s, enum memstat_key k) {
        uint64_t v = 0;
        if (!memstat_get(s, k, &v))
                fail_msg("key %s absent", memstat_key_to_string(k));
        return v;
}

static void test_key_names(void **state) {
        for (int k = 0; k < _MEMSTAT_KEY_MAX; k++) {
                const char *name = memstat_key_to_string(k);
                assert_non_null(name);
                for (int j = 0; j < k; j++)
                        assert_string_not_equal(name, memstat_key_to_string(j));
        }
        assert_string_equal(memstat_key_to_string(MEMSTAT_WORKINGSET_RESTORE_ANON), "workingset_restore_anon");
        assert_null(memstat_key_to_string(_MEMSTAT_KEY_MAX));
        assert_null(memstat_key_to_string(-1));
}

static void test_v73(void **state) {
        struct memstat s;

        load("memstat/memory.stat-7.3", &s);
        /* Every key the policy uses is in a 7.3 memory.stat. */
        for (int k = 0; k < _MEMSTAT_KEY_MAX; k++)
                assert_true(memstat_get(&s, k, NULL));
        assert_int_equal(get(&s, MEMSTAT_ANON), 367001600);
        assert_int_equal(get(&s, MEMSTAT_ZSWAPPED), 100663296);
        assert_int_equal(get(&s, MEMSTAT_WORKINGSET_RESTORE_ANON), 250);
        assert_int_equal(get(&s, MEMSTAT_PGSCAN), 70230);
        assert_int_equal(get(&s, MEMSTAT_PGSCAN_PROACTIVE), 70000);
        assert_int_equal(get(&s, MEMSTAT_PGSTEAL_PROACTIVE), 61440);
        assert_int_equal(get(&s, MEMSTAT_PSWPOUT), 61000);
        assert_int_equal(get(&s, MEMSTAT_ZSWPOUT), 60000);
        assert_int_equal(get(&s, MEMSTAT_INACTIVE_ANON), 262144000);
        assert_int_equal(get(&s, MEMSTAT_ACTIVE_ANON), 104857600);
        assert_int_equal(get(&s, MEMSTAT_INACTIVE_FILE), 33030144);
        assert_int_equal(get(&s, MEMSTAT_ACTIVE_FILE), 33030144);
}

static void test_v61_absent(void **state) {
        struct memstat s;
        uint64_t v = 4242;

        load("memstat/memory.stat-6.1", &s);
        assert_int_equal(get(&s, MEMSTAT_ANON), 104857600);
        assert_int_equal(get(&s, MEMSTAT_PGSCAN), 5555);
        assert_int_equal(get(&s, MEMSTAT_WORKINGSET_REFAULT_FILE), 222);
        assert_int_equal(get(&s, MEMSTAT_ZSWPIN), 0);
        /* 6.1 has no per-memcg pswp*, no split pgscan/pgsteal: absent, not 0. */
        const enum memstat_key absent[] = {
                MEMSTAT_PSWPIN, MEMSTAT_PSWPOUT, MEMSTAT_PGSCAN_KSWAPD, MEMSTAT_PGSCAN_DIRECT,
                MEMSTAT_PGSCAN_PROACTIVE, MEMSTAT_PGSTEAL_KSWAPD, MEMSTAT_PGSTEAL_DIRECT,
                MEMSTAT_PGSTEAL_PROACTIVE,
        };
        for (size_t i = 0; i < ELEMENTSOF(absent); i++) {
                assert_false(memstat_get(&s, absent[i], &v));
                assert_int_equal(v, 4242);
        }

        load("memstat/memory.stat-minimal", &s);
        assert_int_equal(get(&s, MEMSTAT_ANON), 4096);
        assert_int_equal(get(&s, MEMSTAT_FILE), 0);
        assert_false(memstat_get(&s, MEMSTAT_SHMEM, NULL));
        assert_int_equal(s.present, (1u << MEMSTAT_ANON) | (1u << MEMSTAT_FILE));
}

static void test_delta(void **state) {
        struct memstat a, b;

        assert_int_equal(parse_exact("pgscan 10\npgsteal 5\nanon 7\n", 27, &a), 0);
        assert_int_equal(parse_exact("pgscan 25\npgsteal 3\nfile 1\n", 27, &b), 0);
        assert_int_equal(memstat_delta(&a, &b, MEMSTAT_PGSCAN), 15);
        assert_int_equal(memstat_delta(&a, &b, MEMSTAT_PGSTEAL), 0); /* went backwards */
        assert_int_equal(memstat_delta(&a, &b, MEMSTAT_ANON), 0);    /* absent in cur */
        assert_int_equal(memstat_delta(&a, &b, MEMSTAT_FILE), 0);    /* absent in prev */
}

static void test_malformed(void **state) {
        static const char *const bad[] = {
                "",
                "\n",
                "anon\n",
                "anon \n",
                "anon  5\n",
                "anon 5 \n",
                "anon 5 6\n",
                " anon 5\n",
                "anon -5\n",
                "anon 5x\n",
                "anon 0x5\n",
                "anon 18446744073709551616\n",
                "unknown_key 18446744073709551616\n",   /* unknown keys must still be well formed */
                "unknown_key garbage\n",
                "Anon 5\n",
                "anon\t5\n",
                "anon 5\r\n",
                "anon 5\n\nfile 6\n",
                "anon 5\nfile",
                "anon 5\nfile 6",                        /* cut: no final newline */
                "anon 5\nfi",
                "garbage",
                " 5\n",
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct memstat s = { .present = 0xdead };
                if (parse_exact(bad[i], strlen(bad[i]), &s) != -EINVAL)
                        fail_msg("accepted case %zu: \"%s\"", i, bad[i]);
                assert_int_equal(s.present, 0xdead);
        }
        struct memstat s;
        assert_int_equal(parse_exact("anon 5\0\n", 8, &s), -EINVAL);
        assert_int_equal(parse_exact("anon 5\n", 7, &s), 0);
        assert_int_equal(get(&s, MEMSTAT_ANON), 5);

        /* Every cut of a real file inside a line fails, every cut between lines parses. */
        _cleanup_(read_buf_free) struct read_buf b = {};
        assert_int_equal(fixture_read("memstat/memory.stat-7.3", &b), 0);
        for (size_t n = 0; n < b.len; n++) {
                int r = parse_exact(b.data, n, &s);
                bool boundary = n > 0 && b.data[n - 1] == '\n';
                if (boundary ? r != 0 : r != -EINVAL)
                        fail_msg("cut at %zu gave %d", n, r);
        }
}

static void test_read(void **state) {
        _cleanup_(read_buf_free) struct read_buf b = {};
        struct memstat s;

        assert_int_equal(fixture_read("memstat/memory.stat-7.3", &b), 0);
        int fd = fixture_memfd(b.data, b.len);
        assert_true(fd >= 0);
        for (int i = 0; i < 2; i++) {
                assert_int_equal(memstat_read(fd, &s, NULL), 0);
                assert_int_equal(get(&s, MEMSTAT_PSWPIN), 900);
        }
        close(fd);
        assert_int_equal(memstat_read(fd, &s, NULL), -EBADF);
}

/* A memory.stat bigger than the stack buffer of READ_AND_PARSE (READ_SMALL_MAX) is read on the
 * heap, whole. */
static void test_read_big(void **state) {
        size_t cap = 2 * READ_SMALL_MAX + 4096, len = 0;
        _cleanup_free_ char *text = malloc(cap);
        struct memstat s;

        assert_non_null(text);
        for (int i = 0; len < 2 * READ_SMALL_MAX; i++)
                len += (size_t) snprintf(text + len, cap - len, "unused_key_%d %d\n", i, i);
        len += (size_t) snprintf(text + len, cap - len, "pswpin 900\nanon 4096\n");
        int fd = fixture_memfd(text, len);
        assert_true(fd >= 0);
        assert_int_equal(memstat_read(fd, &s, NULL), 0);
        assert_int_equal(get(&s, MEMSTAT_PSWPIN), 900);
        assert_int_equal(get(&s, MEMSTAT_ANON), 4096);
        close(fd);
}

/* The line a malformed file is rejected at (what the warning names): the bad line itself, a
 * cut last line included, and 0 for an empty file; a key of 20 digits' value is still read
 * exactly up to the largest one. */
static void test_bad_line(void **state) {
        static const struct {
                const char *text;
                unsigned line;
        } cases[] = {
                { "", 0 },
                { "x 1\n", 0 },                                 /* ok: the line stays unset */
                { "anon 5\nfile", 2 },
                { "anon 5\nfile 6", 2 },
                { "anon 5\nfile 6\n\n", 3 },
                { "anon 5\nunknown_key 1\nfile 6x\nshmem 1\n", 3 },
                { "anon 5\nfile 018446744073709551616\n", 2 },
        };
        struct memstat s;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                unsigned line = 4242;
                int r = memstat_parse(cases[i].text, strlen(cases[i].text), &s, &line);
                if (i == 1) {
                        assert_int_equal(r, 0);
                        assert_int_equal(line, 4242);
                        continue;
                }
                assert_int_equal(r, -EINVAL);
                if (line != cases[i].line)
                        fail_msg("case %zu: line %u, not %u", i, line, cases[i].line);
        }
        assert_int_equal(parse_exact("anon 018446744073709551615\nfile 00000000000000000000007\n",
                                     56, &s), 0);
        assert_true(get(&s, MEMSTAT_ANON) == UINT64_MAX);
        assert_int_equal(get(&s, MEMSTAT_FILE), 7);
}

/* Real captures from the 7.3 kernel (skipped while absent): every key the policy uses is
 * there, with the value the text says. */
static void test_kernel_73(void **state) {
        static const char *const files[] = {
                "kernel-7.3/cgroup-root/memory.stat", "kernel-7.3/cgroup-a-b/memory.stat",
                "kernel-7.3/cgroup-b/memory.stat",
        };
        unsigned seen = 0;

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                if (!fixture_exists(files[i]))
                        continue;
                _cleanup_(read_buf_free) struct read_buf b = {};
                struct memstat s;

                load(files[i], &s);
                assert_int_equal(fixture_read(files[i], &b), 0);
                for (int k = 0; k < _MEMSTAT_KEY_MAX; k++) {
                        char key[64];
                        unsigned long long v;
                        snprintf(key, sizeof(key), "\n%s ", memstat_key_to_string(k));
                        const char *at = k == MEMSTAT_ANON ? b.data : strstr(b.data, key);
                        if (!at)
                                fail_msg("%s: no %s", files[i], memstat_key_to_string(k));
                        at = strchr(at + (k == MEMSTAT_ANON ? 0 : 1), ' ');
                        assert_int_equal(sscanf(at, " %llu", &v), 1);
                        assert_true(get(&s, k) == v);
                }
                seen++;
        }
        if (seen == 0)
                skip();
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_key_names),
                cmocka_unit_test(test_v73),
                cmocka_unit_test(test_v61_absent),
                cmocka_unit_test(test_delta),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_bad_line),
                cmocka_unit_test(test_read),
                cmocka_unit_test(test_read_big),
                cmocka_unit_test(test_kernel_73),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
