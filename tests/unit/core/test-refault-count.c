/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The BPF program's own refault count (daemon/core/bpf/page-cache-refaults.h), run on the host:
 * insertions, evictions by reclaim and dirtied pages of one file replayed the way the program
 * sees them. A file read, evicted and read again counts its pages; a first read, a re-read
 * without eviction, a file rewritten after a truncation, a file being written, another file on
 * the same inode number and a re-read long after the eviction count nothing; what is counted
 * never exceeds what reclaim evicted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/types.h>

#include "daemon/core/bpf/page-cache-refaults.h"

#define SEC UINT64_C(1000000000)
#define PAGE UINT64_C(4096)

/* One file of the stream map, as page-cache-inserts.bpf.c keeps it. */
struct file {
        struct streams_val v;
        bool known;
        uint64_t counted; /* what the cgroup's counter got */
};

/* Replays streams_add() for an insertion of nr pages at index (file size, generation now). */
static void insert(struct file *f, uint64_t index, uint64_t nr, uint64_t size, uint32_t gen,
                   uint64_t now) {
        struct streams_val *v = &f->v;
        if (!f->known) {
                *v = (struct streams_val) { .pages = nr, .max_index = index + nr, .i_size = size,
                                            .generation = gen };
                f->known = true;
                return;
        }
        v->pages += nr;
        if (index + nr > v->max_index)
                v->max_index = index + nr;
        f->counted += refaults_note_insertion(v, size, gen, now);
        v->i_size = size;
}

/* Reads pages [from, to) one page at a time. */
static void read_range(struct file *f, uint64_t from, uint64_t to, uint64_t now) {
        for (uint64_t i = from; i < to; i++)
                insert(f, i, 1, 64 * PAGE, 7, now);
}

static void evict(struct file *f, uint64_t nr, uint64_t now) {
        refaults_note_eviction(&f->v, nr, now);
}

static void test_read_evict_read(void **state) {
        struct file f = {};
        read_range(&f, 0, 64, 1 * SEC);
        assert_int_equal(f.counted, 0);     /* a first read is no refault */
        evict(&f, 64, 2 * SEC);
        read_range(&f, 0, 64, 3 * SEC);
        assert_int_equal(f.counted, 64);
        /* Read a third time without a new eviction: still cached in truth, and nothing to
         * explain re-insertions with. */
        read_range(&f, 0, 64, 4 * SEC);
        assert_int_equal(f.counted, 64);
}

/* Only as much as reclaim took is counted: half the file evicted, all of it re-inserted (some
 * other way: invalidation) counts half. */
static void test_bounded_by_evictions(void **state) {
        struct file f = {};
        read_range(&f, 0, 64, 1 * SEC);
        evict(&f, 32, 2 * SEC);
        read_range(&f, 0, 64, 3 * SEC);
        assert_int_equal(f.counted, 32);
        assert_int_equal(f.v.evicted_budget, 0);
}

/* A file read at random, holes filled later: insertions below the highest index that were never
 * inserted before are no re-insertions (pages never exceed max_index). */
static void test_holes_filled(void **state) {
        struct file f = {};
        insert(&f, 63, 1, 64 * PAGE, 7, 1 * SEC);
        evict(&f, 1, 2 * SEC);
        read_range(&f, 0, 63, 3 * SEC);
        assert_int_equal(f.counted, 0);
        insert(&f, 63, 1, 64 * PAGE, 7, 4 * SEC);
        assert_int_equal(f.counted, 1);
}

/* Truncated and written again from scratch: the kernel drops the shadow entries with the pages,
 * so none of it is a refault, whatever reclaim had evicted before. */
static void test_truncated_rewrite(void **state) {
        struct file f = {};
        read_range(&f, 0, 64, 1 * SEC);
        evict(&f, 64, 2 * SEC);
        for (uint64_t i = 0; i < 64; i++) /* size 0 after the truncation, growing as written */
                insert(&f, i, 1, i * PAGE, 7, 100 * SEC);
        assert_int_equal(f.counted, 0);
}

/* Another file on the same inode number (deleted, the number reused): its generation differs. */
static void test_inode_reused(void **state) {
        struct file f = {};
        read_range(&f, 0, 64, 1 * SEC);
        evict(&f, 64, 2 * SEC);
        for (uint64_t i = 0; i < 64; i++)
                insert(&f, i, 1, 64 * PAGE, 8, 3 * SEC);
        assert_int_equal(f.counted, 0);
}

/* Overwritten in place (pages evicted, then written whole: the kernel counts no refault for a
 * __GFP_WRITE insertion): once the first page is dirtied, nothing counts for 10 s. The first
 * insertion of the burst, before its page is dirtied, is the one that slips through. */
static void test_written(void **state) {
        struct file f = {};
        read_range(&f, 0, 64, 1 * SEC);
        evict(&f, 64, 2 * SEC);
        for (uint64_t i = 0; i < 64; i++) {
                insert(&f, i, 1, 64 * PAGE, 7, 3 * SEC + i);
                refaults_note_dirtied(&f.v, 3 * SEC + i);
        }
        assert_int_equal(f.counted, 1);
        /* 10 s after the last write, reads of evicted pages count again. */
        evict(&f, 64, 5 * SEC);
        read_range(&f, 0, 64, 3 * SEC + 63 + REFAULTS_WRITE_HOLD_NS);
        assert_int_equal(f.counted, 1 + 64);
}

/* A re-read long after the eviction is no reuse any T could have kept. */
static void test_window(void **state) {
        struct file f = {};
        read_range(&f, 0, 64, 1 * SEC);
        evict(&f, 64, 2 * SEC);
        read_range(&f, 0, 64, 2 * SEC + REFAULTS_WINDOW_NS + 1);
        assert_int_equal(f.counted, 0);

        struct file g = {};
        read_range(&g, 0, 64, 1 * SEC);
        evict(&g, 64, 2 * SEC);
        read_range(&g, 0, 64, 2 * SEC + REFAULTS_WINDOW_NS);
        assert_int_equal(g.counted, 64);
}

/* Large folios count their pages. */
static void test_large_folios(void **state) {
        struct file f = {};
        for (uint64_t i = 0; i < 64; i += 16)
                insert(&f, i, 16, 64 * PAGE, 7, 1 * SEC);
        evict(&f, 16, 2 * SEC);
        evict(&f, 16, 2 * SEC);
        for (uint64_t i = 0; i < 64; i += 16)
                insert(&f, i, 16, 64 * PAGE, 7, 3 * SEC);
        assert_int_equal(f.counted, 32);

        /* A folio bigger than what reclaim took counts only that much. */
        evict(&f, 4, 4 * SEC);
        insert(&f, 0, 16, 64 * PAGE, 7, 5 * SEC);
        assert_int_equal(f.counted, 36);
        assert_int_equal(f.v.evicted_budget, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_read_evict_read),
                cmocka_unit_test(test_bounded_by_evictions),
                cmocka_unit_test(test_holes_filled),
                cmocka_unit_test(test_truncated_rewrite),
                cmocka_unit_test(test_inode_reused),
                cmocka_unit_test(test_written),
                cmocka_unit_test(test_window),
                cmocka_unit_test(test_large_folios),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
