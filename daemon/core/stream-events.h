/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream-events.h: the fast path's input (core-private; docs/design.md, "One-shot stream
 * protection"). The BPF program sends a record through a ring buffer when a file of a watched
 * cgroup crosses a stream threshold (bpf/page-cache-inserts.h); this collects the records
 * between two runs of the fast path into a batch, one entry per file, and keeps the program's
 * set of watched cgroup ids. Without BPF (tests) records are added by hand. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpf/page-cache-inserts.h"

/* Files one run of the fast path takes at most; the rest stays in the ring for the next run. */
#define STREAM_EVENTS_BATCH 4096

/* One file of a batch. */
struct stream_crossing {
        struct streams_key key;
        struct streams_val val;         /* its latest counters */
        uint64_t first_usec;            /* CLOCK_MONOTONIC of its earliest crossing */
};

struct stream_events;

/* Returns 0 and a new collector reading the ring buffer map ring_fd, keeping the watch map
 * watch_fd; both -1: no BPF, records come from stream_events_add(). Returns -ENOMEM or the
 * negative errno of setting up the ring buffer. */
int stream_events_new(int ring_fd, int watch_fd, struct stream_events **ret);

/* Frees. NULL is fine. */
void stream_events_free(struct stream_events *ev);

/* Returns the descriptor that becomes readable when records wait in the ring, or -1. */
int stream_events_fd(const struct stream_events *ev);

/* Adds n records to the batch as if read from the ring. Returns 0, or -ENOSPC when the batch
 * is full (the records that fit were added), or -ENOMEM. */
int stream_events_add(struct stream_events *ev, const struct streams_event *e, size_t n);

/* Moves the records waiting in the ring into the batch. Returns 1 when the batch filled up
 * before the ring was empty (records wait for the next run), 0 when it is empty, or a negative
 * errno. */
int stream_events_consume(struct stream_events *ev);

/* Sorts the batch by key and merges the records of each file. Returns the number of files and
 * the batch in *ret (valid until stream_events_clear() or the next add). */
size_t stream_events_batch(struct stream_events *ev, struct stream_crossing **ret);

/* Empties the batch. */
void stream_events_clear(struct stream_events *ev);

/* Makes ids (n, any order, duplicates allowed) the cgroup ids whose files send records; n = 0
 * stops all records. Returns 0, -ENOMEM, or the negative errno of a map update (the ids that
 * were updated stay). */
int stream_events_watch(struct stream_events *ev, const uint64_t *ids, size_t n);

/* Returns how many cgroup ids are watched. */
size_t stream_events_n_watched(const struct stream_events *ev);
