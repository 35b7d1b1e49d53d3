/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fast path's batch of crossings (stream-events.c), fed by hand as a collector without a
 * ring buffer is: records of one file merge into one entry with the newest counters and the
 * earliest crossing, the batch is sorted by key and bounded, and the set of watched cgroup ids
 * is kept sorted and once each. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <linux/types.h>

#include "daemon/core/bpf/page-cache-inserts.h"
#include "daemon/core/stream-events.h"

/* A record of file (cg, ino) on device 8:0 with pages inserted, its last insertion at_usec. */
static struct streams_event record(uint64_t cg, uint64_t ino, uint64_t pages, uint64_t at_usec) {
        return (struct streams_event) {
                .key = { .cgroup_id = cg, .ino = ino, .dev = 8 << 20 },
                .val = { .pages = pages, .next_index = pages, .last_ns = at_usec * 1000 },
        };
}

static void test_without_ring(void **state) {
        struct stream_events *ev;
        assert_int_equal(stream_events_new(-1, -1, &ev), 0);
        assert_int_equal(stream_events_fd(ev), -1);
        assert_int_equal(stream_events_fd(NULL), -1);
        assert_int_equal(stream_events_consume(ev), 0); /* nothing to read: the batch is empty */
        struct stream_crossing *c;
        assert_int_equal(stream_events_batch(ev, &c), 0);
        assert_int_equal(stream_events_n_watched(ev), 0);
        assert_int_equal(stream_events_n_watched(NULL), 0);
        stream_events_free(ev);
        stream_events_free(NULL);
}

static void test_batch_sorted_and_merged(void **state) {
        struct stream_events *ev;
        assert_int_equal(stream_events_new(-1, -1, &ev), 0);
        /* Out of order: file (2, 5) crosses three times, the latest record first. */
        struct streams_event e[] = {
                record(2, 5, 300, 3000), record(1, 9, 10, 500), record(2, 5, 100, 1000),
                record(2, 4, 50, 700), record(2, 5, 200, 2000),
        };
        assert_int_equal(stream_events_add(ev, e, 5), 0);
        struct stream_crossing *c;
        assert_int_equal(stream_events_batch(ev, &c), 3);
        assert_int_equal(c[0].key.cgroup_id, 1);
        assert_int_equal(c[1].key.cgroup_id, 2);
        assert_int_equal(c[1].key.ino, 4);
        assert_int_equal(c[2].key.ino, 5);
        /* The newest counters, the earliest crossing. */
        assert_int_equal(c[2].val.pages, 300);
        assert_int_equal(c[2].first_usec, 1000);
        assert_int_equal(c[0].first_usec, 500);
        /* Batching again changes nothing; a new record of the same file merges in. */
        assert_int_equal(stream_events_batch(ev, &c), 3);
        struct streams_event later = record(2, 5, 400, 4000);
        assert_int_equal(stream_events_add(ev, &later, 1), 0);
        assert_int_equal(stream_events_batch(ev, &c), 3);
        assert_int_equal(c[2].val.pages, 400);
        assert_int_equal(c[2].first_usec, 1000);
        stream_events_clear(ev);
        assert_int_equal(stream_events_batch(ev, &c), 0);
        stream_events_free(ev);
}

static void test_batch_bounded(void **state) {
        struct stream_events *ev;
        assert_int_equal(stream_events_new(-1, -1, &ev), 0);
        static struct streams_event e[STREAM_EVENTS_BATCH + 2];
        for (size_t i = 0; i < STREAM_EVENTS_BATCH + 2; i++)
                e[i] = record(7, i + 1, 1, 10);
        /* The records that fit are taken, the rest said to wait. */
        assert_int_equal(stream_events_add(ev, e, STREAM_EVENTS_BATCH + 2), -ENOSPC);
        struct stream_crossing *c;
        assert_int_equal(stream_events_batch(ev, &c), STREAM_EVENTS_BATCH);
        assert_int_equal(c[STREAM_EVENTS_BATCH - 1].key.ino, STREAM_EVENTS_BATCH);
        /* Full even after the merge (all different files): one more does not fit. */
        assert_int_equal(stream_events_add(ev, &e[STREAM_EVENTS_BATCH], 1), -ENOSPC);
        stream_events_clear(ev);
        assert_int_equal(stream_events_add(ev, &e[STREAM_EVENTS_BATCH], 2), 0);
        assert_int_equal(stream_events_batch(ev, &c), 2);
        stream_events_free(ev);
}

static void test_watched_ids(void **state) {
        struct stream_events *ev;
        assert_int_equal(stream_events_new(-1, -1, &ev), 0);
        const uint64_t ids[] = { 30, 10, 20, 10, 30 };
        assert_int_equal(stream_events_watch(ev, ids, 5), 0);
        assert_int_equal(stream_events_n_watched(ev), 3); /* once each */
        const uint64_t fewer[] = { 20, 40 };
        assert_int_equal(stream_events_watch(ev, fewer, 2), 0);
        assert_int_equal(stream_events_n_watched(ev), 2);
        assert_int_equal(stream_events_watch(ev, NULL, 0), 0); /* none: stops all records */
        assert_int_equal(stream_events_n_watched(ev), 0);
        stream_events_free(ev);
}

static void test_watched_ids_bounded(void **state) {
        struct stream_events *ev;
        assert_int_equal(stream_events_new(-1, -1, &ev), 0);
        size_t n = STREAMS_WATCH_ENTRIES + 10;
        uint64_t *ids = calloc(n, sizeof *ids);
        assert_non_null(ids);
        for (size_t i = 0; i < n; i++)
                ids[i] = n - i;
        /* The map holds so many: the ids beyond are not watched. */
        assert_int_equal(stream_events_watch(ev, ids, n), 0);
        assert_int_equal(stream_events_n_watched(ev), STREAMS_WATCH_ENTRIES);
        free(ids);
        stream_events_free(ev);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_without_ring),
                cmocka_unit_test(test_batch_sorted_and_merged),
                cmocka_unit_test(test_batch_bounded),
                cmocka_unit_test(test_watched_ids),
                cmocka_unit_test(test_watched_ids_bounded),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
