/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream-protection.h: one-shot stream protection (docs/design.md): a BPF program counts page-cache
 * insertions per (cgroup, device, inode); each cycle the daemon reads the counters, classifies the
 * files of every managed cgroup (policy/stream-classify.c), opens the one-shot streams by handle and
 * hands the ranges behind the reader to the actuation path, which drops their clean pages
 * (POSIX_FADV_DONTNEED). Between cycles the fast path does the same for the files the program
 * reports as they cross a stream threshold (a ring buffer), so that a stream is dropped as it
 * starts, not at the next cycle. Without BPF (build or kernel) the rest of the daemon works as
 * before. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mglrud/core/actuator.h"
#include "mglrud/core/cycle.h"
#include "mglrud/core/cgroup.h"

struct streams;
struct streams_key;
struct streams_val;

/* The fast path runs at most this often (the event loop waits for the rest of the gap when
 * crossings come sooner): with a 100 ms gap, a drop starts within about 100 ms of a crossing,
 * and the daemon wakes at most 10 times a second for a stream. */
#define STREAMS_FAST_GAP_USEC (100 * UINT64_C(1000))

/* Latency of the drops the fast path started: from the crossing to the end of the drop. Upper
 * bounds of the histogram's buckets, in microseconds (the last bucket is everything above). */
#define STREAMS_LATENCY_BUCKETS 10
extern const uint64_t streams_latency_bounds_usec[STREAMS_LATENCY_BUCKETS];

struct streams_stats {
        bool counting;                  /* the BPF program counts insertions */
        size_t tracked;                 /* cgroup ids whose insertions it counts */
        size_t map_files;               /* files in its map at the last read */
        bool fast_path;                 /* StreamFastPath= is on */
        size_t watched;                 /* cgroup ids whose crossings are reported */
        uint64_t fast_runs;             /* runs of the fast path */
        uint64_t crossings;             /* files it was told about (one per file and run) */
        uint64_t lost;                  /* crossings the ring buffer had no room for */
        uint64_t latency_count, latency_sum_usec, latency_max_usec;
        uint64_t latency_buckets[STREAMS_LATENCY_BUCKETS]; /* per bucket (not cumulative); the
                                                            * ones above the last bound are
                                                            * latency_count minus their sum */
};

/* Opens the file a counter is about and writes its path into path (which holds "dev:ino" on
 * entry). Returns the fd or a negative errno. */
typedef int (*streams_open_file_fn)(const struct streams_key *key, uint32_t generation,
                                    char *path, size_t size, void *userdata);

/* Returns 0 and a new struct streams without BPF: its counters come from streams_feed() (tests
 * of the daemon side), its files are opened by handle. Returns -ENOMEM on failure. */
int streams_new(const char *proc_root, struct streams **ret);

/* Replaces the way files are opened (tests open files of their own). */
void streams_set_file_opener(struct streams *s, streams_open_file_fn fn, void *userdata);

/* Sets the cumulative counters of n files as if read from the BPF map (the state of files seen
 * before is kept). Returns 0, or -E2BIG beyond the map's size. */
int streams_feed(struct streams *s, const struct streams_key *keys, const struct streams_val *vals,
                 size_t n);

/* Adds threshold crossings as if the BPF program had reported them (val.last_ns: when, on
 * CLOCK_MONOTONIC): the next streams_fast() acts on them. Returns 0, -ENOSPC beyond a batch
 * (STREAM_EVENTS_BATCH files), or -ENOMEM. */
int streams_feed_events(struct streams *s, const struct streams_key *keys,
                        const struct streams_val *vals, size_t n);

/* Loads and attaches the BPF program. Returns 0 and a new struct streams in *ret, -EOPNOTSUPP
 * when built without BPF, or the negative errno of the load or attach. */
int streams_open(const char *proc_root, struct streams **ret);

/* Detaches and frees. NULL is fine. */
void streams_free(struct streams *s);

/* Returns the descriptor of the BPF program's refaults map, where the program keeps the daemon's
 * own refault count (refault_count_read()), or -EOPNOTSUPP without the BPF program (s NULL, or
 * fed by streams_feed()). */
int streams_refaults_map_fd(const struct streams *s);

/* Reads the counters, classifies the files of each of the n cgroups with StreamProtection= yes or
 * advise (not paused, not Mode=off) and submits one drop job per cgroup to act (dry-run or advise:
 * a job that drops nothing and says "would drop"), within the bounds (per second: files and
 * bytes; files pending in the actuation path); the completions count and log the drops
 * (control_job_done()). Then makes those cgroups the ones whose crossings the BPF program
 * reports (with the fast path on). Returns 0, or -ENOMEM; other errors are logged and skipped. */
int streams_cycle(struct streams *s, const struct cycle_input *in, struct cgroup *const *cgroups,
                  size_t n_cgroups, struct actuator *act);

/* The fast path, between cycles: takes the crossings reported since the last run, updates
 * those files' counters and classifies the files of the protected cgroups among the n that have
 * crossings (or drops held back by a bound last time), as streams_cycle() does, with new pages
 * counted since the last cycle; submits their drops within the same bounds, and only while the
 * actuation path holds fewer than ACTUATOR_MAX_QUEUED jobs. Returns 1 when it should run again
 * soon (crossings left in the ring, drops held back), 0 when done, or -ENOMEM. */
int streams_fast(struct streams *s, const struct cycle_input *in, struct cgroup *const *cgroups,
                 size_t n_cgroups, struct actuator *act);

/* Turns the fast path on or off (StreamFastPath=; on after streams_new() and streams_open()).
 * Off: no crossings are reported, streams_fast() does nothing. NULL is fine. */
void streams_set_fast_path(struct streams *s, bool on);

/* Returns the descriptor that becomes readable when crossings wait (for the event loop), or -1
 * (no BPF, fast path off, NULL). */
int streams_event_fd(const struct streams *s);

/* Records the latency of a finished drop job's ranges (crossing to completion) in the stats.
 * Other jobs and NULL are fine. */
void streams_job_done(struct streams *s, const struct actuator_job *j);

/* Returns the fast path's counts (zeros for NULL). */
struct streams_stats streams_get_stats(const struct streams *s);
