/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream-classify.h: one-shot stream classification (docs/design.md, "One-shot stream protection"),
 * a pure function like the rest of policy/: no I/O, no clocks. The daemon (core/stream-protection.c) feeds
 * it the per-file page-cache insertion counters its BPF program keeps and executes the verdict
 * with posix_fadvise(POSIX_FADV_DONTNEED) on the pages behind the reader.
 *
 * A stream is a file read once, front to back, that the cgroup cannot keep anyway:
 *  - big file: almost all insertions sequential, none re-inserted below the highest index
 *    reached, still growing, and the file is at least twice the cgroup's memory (memory.max, or
 *    memory.current when unlimited): caching it only pushes other pages out. Its pages up to the
 *    reader minus a margin (readahead) are dropped.
 *  - many small files: a file read completely, sequentially, never re-inserted, at most
 *    1/16 of the cgroup's memory, while the cgroup uses at least half of memory.max and reads
 *    at least STREAM_SMALL_MIN_INFLOW of such files in one cycle. The whole file is dropped.
 * A file with re-inserted pages (read again after its pages went away, or read at random) is not
 * a stream, and never becomes one while its counters live. Anything else: unsure, nothing. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Sequential share of the insertions a stream needs (9/10) and the largest re-inserted share it
 * may have (1/32: a few pages raced by two readers, or read twice by readahead). */
#define STREAM_SEQ_NUM 9
#define STREAM_SEQ_DEN 10
#define STREAM_BACK_DEN 32
/* A big file must have inserted this much before it is judged. */
#define STREAM_MIN_BYTES (4ULL << 20)
/* Left cached below the highest inserted index: the BPF program sees readahead, which runs
 * ahead of the reader, not the reader itself. */
#define STREAM_MARGIN_BYTES (16ULL << 20)
/* Unlimited cgroups: a stream must be at least this large (64 MiB) whatever memory.current. */
#define STREAM_UNLIMITED_MIN_BYTES (64ULL << 20)
/* Many small files: this much complete one-shot reading per cycle (8 MiB) makes a stream. */
#define STREAM_SMALL_MIN_INFLOW (8ULL << 20)

/* One file's cumulative insertion counters (pages) and what the daemon already did. */
struct stream_file {
        uint64_t pages;        /* inserted into the page cache */
        uint64_t seq_pages;    /* … sequentially (at or just after the previous insertion) */
        uint64_t back_pages;   /* … far below the highest index reached (re-read, random) */
        uint64_t next_index;   /* end of the last insertion (the reader's position) */
        uint64_t max_index;    /* highest end of any insertion */
        uint64_t size_pages;   /* file size, rounded up */
        uint64_t new_pages;    /* inserted since the previous cycle */
        uint64_t dropped_to;   /* pages [0, dropped_to) were already dropped by us */
};

/* The cgroup the file's pages are charged to, this cycle. */
struct stream_cgroup {
        uint64_t page_size;    /* the size of the pages the counters count */
        uint64_t limit_bytes;  /* memory.max, UINT64_MAX when unlimited */
        uint64_t current_bytes;
        uint64_t small_inflow_bytes; /* stream_small_inflow() summed over this cycle's files */
};

enum stream_verdict {
        STREAM_UNSURE,       /* too little data, or neither rule fits: do nothing */
        STREAM_NOT_RANDOM,   /* insertions mostly not sequential */
        STREAM_NOT_REREAD,   /* pages re-inserted: read again, or at random */
        STREAM_NOT_SMALL,    /* fits the cgroup: may be a working file */
        STREAM_NOT_ACTIVE,   /* a big stream that made no progress this cycle: already handled */
        STREAM_ONE_SHOT,     /* a big file read once: drop behind the reader */
        STREAM_SMALL_FILES,  /* one of many small files read once: drop it */
        _STREAM_VERDICT_MAX,
};

struct stream_action {
        enum stream_verdict verdict;
        uint64_t drop_start, drop_end; /* pages to drop, [start, end); empty unless a stream */
};

/* Returns "unsure", "random", "re-read", "fits", "idle", "read once", "small files", or NULL. */
const char *stream_verdict_to_string(enum stream_verdict v);

/* Returns the bytes this file contributes to its cgroup's small_inflow_bytes this cycle: its
 * size when it was read completely, once and sequentially, and finished this cycle; else 0. */
uint64_t stream_small_inflow(const struct stream_file *f, uint64_t page_size);

/* Classifies one file. Writes *ret (verdict and the page range to drop, clamped to what was
 * not dropped yet). Returns 0, or -EINVAL on NULL arguments or a zero page size. */
int stream_classify(const struct stream_file *f, const struct stream_cgroup *cg,
                    struct stream_action *ret);
