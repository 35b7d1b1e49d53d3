/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stream protection's table of files (stream-table.c), fed as if read from the BPF map: sorted
 * by (cgroup, device, inode), each cgroup's files one run found by a search, the state of a file
 * carried from one read to the next (the pages of the last two reads, what was dropped, a
 * pending crossing, the verdict) and forgotten with the file, bounded in size. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "daemon/core/stream-protection-internal.h"

static struct streams_key key(uint64_t cg, uint32_t dev, uint64_t ino) {
        return (struct streams_key) { .cgroup_id = cg, .dev = dev, .ino = ino };
}

static int streams_setup(void **state) {
        struct streams *s;
        assert_int_equal(streams_new("/proc", &s), 0);
        *state = s;
        return 0;
}

static int streams_teardown(void **state) {
        streams_free(*state);
        return 0;
}

static void test_key_order(void **state) {
        struct streams_key a = key(1, 9, 9), b = key(2, 0, 0), c = key(2, 1, 0), d = key(2, 1, 5);
        assert_true(streams_key_cmp(&a, &b) < 0); /* the cgroup first */
        assert_true(streams_key_cmp(&b, &c) < 0); /* then the device */
        assert_true(streams_key_cmp(&c, &d) < 0); /* then the inode */
        assert_true(streams_key_cmp(&d, &a) > 0);
        assert_int_equal(streams_key_cmp(&d, &d), 0);
}

static void test_feed_sorted_runs(void **state) {
        struct streams *s = *state;
        struct streams_key k[] = { key(30, 1, 1), key(10, 1, 2), key(20, 2, 1), key(10, 1, 1),
                                   key(30, 1, 3), key(20, 1, 7) };
        struct streams_val v[6] = {};
        for (size_t i = 0; i < 6; i++)
                v[i].pages = 100 + i;
        assert_int_equal(streams_feed(s, k, v, 6), 0);
        assert_int_equal(s->n_files, 6);
        for (size_t i = 1; i < s->n_files; i++)
                assert_true(streams_key_cmp(&s->files[i - 1].key, &s->files[i].key) < 0);
        /* The values went with their keys. */
        assert_int_equal(s->files[0].key.ino, 1);
        assert_int_equal(s->files[0].val.pages, 103);

        size_t n, first = streams_files_of_cgroup(s, 20, &n);
        assert_int_equal(first, 2);
        assert_int_equal(n, 2);
        assert_int_equal(s->files[first].key.dev, 1); /* (20, 1, 7) before (20, 2, 1) */
        first = streams_files_of_cgroup(s, 30, &n);
        assert_int_equal(first, 4);
        assert_int_equal(n, 2);
        first = streams_files_of_cgroup(s, 10, &n);
        assert_int_equal(first, 0);
        assert_int_equal(n, 2);
        /* Absent: none, where it would be. */
        first = streams_files_of_cgroup(s, 15, &n);
        assert_int_equal(n, 0);
        assert_int_equal(first, 2);
        streams_files_of_cgroup(s, 99, &n);
        assert_int_equal(n, 0);
}

static void test_state_carried(void **state) {
        struct streams *s = *state;
        struct streams_key k[] = { key(1, 1, 1), key(1, 1, 2) };
        struct streams_val v[2] = { { .pages = 10 }, { .pages = 50 } };
        assert_int_equal(streams_feed(s, k, v, 2), 0);
        assert_int_equal(s->files[0].prev_pages, 0);
        assert_int_equal(s->files[0].drained_pages, 10);
        assert_int_equal(s->files[0].verdict, STREAM_UNSURE);
        /* What the drops and the classification noted. */
        s->files[0].dropped_to = 6;
        s->files[0].pending_usec = 777;
        s->files[0].verdict = STREAM_ONE_SHOT;
        s->files[1].dropped_to = 40;

        /* The next read: file 1 grew, file 2 is gone from the map, file 3 is new. */
        struct streams_key k2[] = { key(1, 1, 3), key(1, 1, 1) };
        struct streams_val v2[2] = { { .pages = 5 }, { .pages = 25 } };
        assert_int_equal(streams_feed(s, k2, v2, 2), 0);
        assert_int_equal(s->n_files, 2);
        struct file_entry *e = &s->files[0];
        assert_int_equal(e->key.ino, 1);
        assert_int_equal(e->val.pages, 25);
        assert_int_equal(e->prev_pages, 10);    /* the pages at the read before */
        assert_int_equal(e->drained_pages, 25);
        assert_int_equal(e->dropped_to, 6);
        assert_int_equal(e->pending_usec, 777);
        assert_int_equal(e->verdict, STREAM_ONE_SHOT);
        e = &s->files[1];
        assert_int_equal(e->key.ino, 3);
        assert_int_equal(e->prev_pages, 0);
        assert_int_equal(e->dropped_to, 0);

        /* File 2 comes back: it starts over (what was dropped of it is forgotten). */
        struct streams_key k3[] = { key(1, 1, 2) };
        struct streams_val v3[1] = { { .pages = 60 } };
        assert_int_equal(streams_feed(s, k3, v3, 1), 0);
        assert_int_equal(s->n_files, 1);
        assert_int_equal(s->files[0].dropped_to, 0);
        assert_int_equal(s->files[0].prev_pages, 0);
        assert_int_equal(s->files[0].drained_pages, 60);

        /* Without a map a drain keeps the table as fed. */
        assert_int_equal(streams_drain(s, true), 0);
        assert_int_equal(s->n_files, 1);
        assert_int_equal(s->files[0].val.pages, 60);
        /* An empty read forgets every file. */
        assert_int_equal(streams_feed(s, NULL, NULL, 0), 0);
        assert_int_equal(s->n_files, 0);
        size_t n;
        streams_files_of_cgroup(s, 1, &n);
        assert_int_equal(n, 0);
}

static void test_bounded(void **state) {
        struct streams *s = *state;
        assert_int_equal(s->cap, 0);
        assert_int_equal(streams_tables_reserve(s, 1), 0);
        assert_int_equal(s->cap, 64); /* grows in steps, not one file at a time */
        assert_int_equal(streams_tables_reserve(s, 65), 0);
        assert_int_equal(s->cap, 128);
        assert_int_equal(streams_tables_reserve(s, 100), 0);
        assert_int_equal(s->cap, 128); /* room enough */
        assert_int_equal(streams_tables_reserve(s, STREAMS_TABLE_MAX), 0);
        assert_int_equal(s->cap, STREAMS_TABLE_MAX);
        assert_int_equal(streams_tables_reserve(s, STREAMS_TABLE_MAX + 1), -ENOMEM);

        /* A read of more files than the map holds is refused, the table unchanged. */
        size_t n = STREAMS_MAP_ENTRIES + 1;
        struct streams_key *k = calloc(n, sizeof *k);
        struct streams_val *v = calloc(n, sizeof *v);
        assert_non_null(k);
        assert_non_null(v);
        for (size_t i = 0; i < n; i++)
                k[i] = key(1, 1, i);
        assert_int_equal(streams_feed(s, k, v, n), -E2BIG);
        assert_int_equal(s->n_files, 0);
        assert_int_equal(streams_feed(s, k, v, n - 1), 0);
        assert_int_equal(s->n_files, STREAMS_MAP_ENTRIES);
        size_t m;
        assert_int_equal(streams_files_of_cgroup(s, 1, &m), 0);
        assert_int_equal(m, STREAMS_MAP_ENTRIES);
        free(k);
        free(v);
}

#define TABLE_TEST(f) cmocka_unit_test_setup_teardown(f, streams_setup, streams_teardown)

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_key_order),
                TABLE_TEST(test_feed_sorted_runs),
                TABLE_TEST(test_state_carried),
                TABLE_TEST(test_bounded),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
