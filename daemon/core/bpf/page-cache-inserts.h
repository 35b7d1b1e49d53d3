/* SPDX-License-Identifier: GPL-2.0-or-later */
/* page-cache-inserts.h: the map layout shared by the BPF program (page-cache-inserts.bpf.c) and
 * the daemon (daemon/core/stream-protection.c). Only fixed-width types: the BPF side includes
 * vmlinux.h, the daemon <linux/types.h>. */
#pragma once

#define STREAMS_MAP_ENTRIES 16384
/* An insertion at most this many pages past the end of the previous one counts as sequential
 * (readahead may skip what is already cached). */
#define STREAMS_SEQ_WINDOW 64
/* An insertion this many pages or more below the highest index reached counts as re-inserted
 * (the file is read again, or at random). Nearer ones are the reader's own readahead pages
 * that memory pressure took before they were read (readahead thrashing), not a re-read. */
#define STREAMS_BACK_WINDOW 2048 /* at most half the file's highest index */

/* The fast path (docs/design.md, "One-shot stream protection"): the program tells the daemon
 * through a ring buffer when a file of a watched cgroup crosses a stream threshold, so that it
 * drops the stream within a fraction of a second instead of at the next cycle. A file crosses
 * when it is still a candidate (the classifier's sequential share and re-inserted bound, below)
 * and either its insertions pass a multiple of STREAMS_EVENT_STEP_PAGES (a big file being read:
 * one more step behind the reader can go) or an insertion reaches its end while each page was
 * inserted once (a small file read whole). */
#define STREAMS_EVENT_STEP_PAGES 1024 /* 4 MiB with 4 KiB pages: STREAM_MIN_BYTES */
#define STREAMS_RING_BYTES (256 * 1024) /* 2,730 events: a batch of the fast path, and more */
#define STREAMS_WATCH_ENTRIES 16384 /* cgroup ids whose files send events */
#define STREAMS_TRACK_ENTRIES 16384 /* cgroup ids whose insertions are counted (the same ids
                                     * stream_events_watch() keeps: both go through it) */
/* The classifier's bounds (policy/stream-classify.h: STREAM_SEQ_NUM, _DEN, STREAM_BACK_DEN);
 * the daemon checks at build time that they agree. */
#define STREAMS_EVENT_SEQ_NUM 9
#define STREAMS_EVENT_SEQ_DEN 10
#define STREAMS_EVENT_BACK_DEN 32

struct streams_key {
        __u64 cgroup_id;   /* the folio's memcg's cgroup id (the current task's without one) */
        __u64 ino;
        __u32 dev;         /* kernel dev_t: major << 20 | minor */
        __u32 pad;
};

/* Cumulative counters: the daemon computes deltas. Updated without locks: off by a few pages
 * when two CPUs insert into the same file at once, which the classification tolerates. */
struct streams_val {
        __u64 pages;        /* pages inserted into the page cache */
        __u64 seq_pages;    /* … of which at or just after the end of the previous insertion */
        __u64 back_pages;   /* … of which far below the highest end so far (re-read, random) */
        __u64 next_index;   /* end (index + nr) of the last insertion */
        __u64 max_index;    /* highest end of any insertion */
        __u64 i_size;       /* file size in bytes at the last insertion */
        __u64 last_ns;      /* bpf_ktime_get_ns() of the last insertion */
        __u32 generation;   /* i_generation, for open_by_handle_at */
        __u32 pad;
        /* The daemon's own refault count (page-cache-refaults.h): */
        __s64 evicted_budget; /* pages reclaim took out of the page cache, not yet matched by a
                               * re-insertion (a little below 0 after racing updates) */
        __u64 reinserted;     /* the highest pages − max_index seen: re-insertions so far */
        __u64 evicted_ns;     /* bpf_ktime_get_ns() of the last eviction by reclaim, 0: none */
        __u64 dirtied_ns;     /* … of the last page of the file made dirty (written), 0: none */
};

/* One ring buffer record: the file and its counters just after the insertion that crossed
 * (val.last_ns is when). */
struct streams_event {
        struct streams_key key;
        struct streams_val val;
};
