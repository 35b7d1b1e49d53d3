/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream-protection-internal.h: what the pieces of stream protection share (core-private): the
 * state (struct streams), the table of files (stream-table.c), one cgroup's classification and
 * drops (stream-drops.c) and the fast path between cycles (stream-fast.c). Calls go one way:
 * stream-protection.c (lifecycle, the cycle) -> stream-fast.c -> stream-drops.c ->
 * stream-table.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "bpf/page-cache-inserts.h"
#include "mglrud/core/stream-protection.h"
#include "mglrud/policy/act-mode.h"
#include "mglrud/policy/stream-classify.h"
#include "mglrud/shared/token-bucket.h"
#include "stream-events.h"

/* Bounds over all cgroups (the cycle and the fast path share them): files acted on, and bytes
 * asked to drop, at most so many a second on average, with bursts of up to STREAMS_BURST_FILES
 * files and STREAMS_MAX_BYTES_PER_SEC bytes (a token bucket: a stream crossing its threshold
 * drops the files read so far at once, and the files that follow do not wait for the next
 * second: struct token_bucket). 1,024 files a second keeps up with stream-protect's reader (590 files of 256 KiB a
 * second); at 128 its drops fell seconds behind (median 2 s). A drop costs the daemon an
 * open_by_handle_at(), a readlink() and a posix_fadvise(). Files handed to the actuation path
 * and not dropped yet hold a descriptor each: at most STREAMS_MAX_FILES_PENDING of them at any
 * time (MANAGER_FD_RESERVE), which also bounds one run of the fast path. */
#define STREAMS_MAX_FILES_PER_SEC 1024
#define STREAMS_BURST_FILES 1024
#define STREAMS_MAX_BYTES_PER_SEC (UINT64_C(1) << 30)
#define STREAMS_MAX_FILES_PENDING 128
/* The table holds the map's files and, between two cycles, the new files the fast path saw. */
#define STREAMS_TABLE_MAX (STREAMS_MAP_ENTRIES + STREAM_EVENTS_BATCH)

struct file_entry {
        struct streams_key key;
        struct streams_val val;
        uint64_t prev_pages;            /* val.pages at the drain before the last one */
        uint64_t drained_pages;         /* val.pages at the last drain (the fast path may
                                         * have newer counters in val since) */
        uint64_t dropped_to;            /* pages [0, dropped_to) were dropped (or advised) */
        uint64_t pending_usec;          /* the first threshold crossing not acted on yet
                                         * (CLOCK_MONOTONIC), or 0 */
        enum stream_verdict verdict;    /* the last logged verdict */
};

/* Mount fds are held for one cycle only: an fd kept open would make umount fail (EBUSY). */
struct mount_entry {
        dev_t dev;
        int fd;                         /* -1: refused or not found; MOUNT_UNKNOWN: not opened */
        bool logged;                    /* the refusal was logged */
};
#define MOUNT_UNKNOWN (-2)

struct streams {
        struct page_cache_inserts_bpf *skel; /* NULL: fed by streams_feed() only (tests) */
        bool no_batch;                  /* the kernel refused batch lookups: key by key */
        streams_open_file_fn open_file; /* by handle; tests open their own files */
        void *open_userdata;
        char *proc_root;
        struct file_entry *files, *next; /* sorted by key; next is the drain buffer */
        size_t n_files, cap;            /* cap grows as the map fills, to STREAMS_TABLE_MAX */
        struct mount_entry *mounts;
        size_t n_mounts;

        struct stream_events *events;   /* the fast path's batch (BPF ring buffer, or fed) */
        bool fast_path;                 /* StreamFastPath=: watch cgroups, act on crossings */
        uint64_t *ids;                  /* the last cycle's managed cgroups and what they cover
                                         * (sorted): the drains keep their files only */
        size_t n_ids, ids_cap;
        uint64_t *retry_ids;            /* cgroups whose drops waited for a bound (sorted) */
        size_t n_retry;
        uint64_t drain_usec;            /* when the last two cycles read the map: the */
        uint64_t prev_drain_usec;       /* … length of the last period (0: none yet) */
        struct token_bucket budget_files; /* files to act on, in millionths of a file */
        struct token_bucket budget_bytes; /* bytes to drop */
        bool watch_failed;              /* the last watch update failed (logged once) */
        struct stream_events *track;    /* the ids of the streams_track map (no ring buffer: a
                                         * set of ids kept in a map, as the watched ones) */
        bool track_failed;              /* the last track update failed (logged once) */
        struct streams_stats stats;
};

/* One pass over some cgroups' files: a cycle's, or a run of the fast path. */
struct drop_run {
        const struct cycle_input *in;
        struct actuator *act;
        bool fast;                      /* between cycles: new pages count from the last drain */
        unsigned pending_files;         /* drop files in the actuation path, this pass's too */
        bool held;                      /* a bound held drops back in the current cgroup */
};

/* stream-table.c */

/* Compares two struct streams_key (the table's order: cgroup id, device, inode). */
int streams_key_cmp(const void *a, const void *b);

/* Makes room for n files in both tables. Returns 0 or -ENOMEM (also beyond STREAMS_TABLE_MAX). */
int streams_tables_reserve(struct streams *s, size_t n);

/* Reads the whole BPF map into the table. new_period: a cycle's drain, which starts a new period
 * for the counts of new pages; else the fast path re-reads the map within the current one.
 * Entries the LRU map evicted are forgotten. Returns 0, or the errno of the map walk (without a
 * map: 0, the table stays as fed). */
int streams_drain(struct streams *s, bool new_period);

/* Returns the index of the first file of cgroup id in the table (sorted by key, cgroup id
 * first), and its number of files in *ret_n. */
size_t streams_files_of_cgroup(const struct streams *s, uint64_t id, size_t *ret_n);

/* stream-drops.c */

/* The default opener (streams_open_file_fn, userdata the struct streams): by handle, on a mount
 * of the file's device opened for this pass. */
int streams_open_by_handle(const struct streams_key *key, uint32_t generation, char *path,
                           size_t size, void *userdata);

/* Closes the mount fds opened for this pass's drops (a refused device is tried again, quietly,
 * next cycle). */
void streams_mounts_close(struct streams *s);

/* Returns whether the files of cg are classified now (stream protection on, acting, not
 * paused, still there), and in *ret_mode what its drops do (act_mode_decide()). */
bool streams_cgroup_protected(const struct cgroup *cg, const struct cycle_input *in,
                              enum act_mode *ret_mode);

/* Classifies the files of one cgroup and hands its drops to the actuation path as one job,
 * within the bounds (run->held says some were held back). Returns 0 or -ENOMEM. */
int streams_cgroup(struct streams *s, struct cgroup *cg, enum act_mode mode,
                   struct drop_run *run);

/* stream-fast.c */

/* Adds a cgroup id to the ones the fast path runs again soon (drops held back). Returns 0 or
 * -ENOMEM. */
int streams_retry_add(struct streams *s, uint64_t id);

/* Makes the cgroups whose crossings the BPF program reports those the fast path acts on: the
 * protected ones among the n and the descendants they cover (none when it is off). Failures are
 * logged once (the cycle still acts). */
void streams_watch_update(struct streams *s, const struct cycle_input *in,
                          struct cgroup *const *cgroups, size_t n_cgroups);

/* Makes the cgroups whose page-cache insertions the BPF program counts those whose files the
 * daemon reads: among the n, the ones with stream protection on (paused ones too: their files
 * keep their history), all of them while RefaultCheck= or the refault guard wants the own
 * refault count, and the descendants they cover. Failures are logged once. */
void streams_track_update(struct streams *s, const struct cycle_input *in,
                          struct cgroup *const *cgroups, size_t n_cgroups);
