/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream-protection.h: one-shot stream protection (docs/design.md): a BPF program counts page-cache
 * insertions per (cgroup, device, inode); each cycle the daemon reads the counters, classifies the
 * files of every managed cgroup (policy/stream-classify.c), opens the one-shot streams by handle and
 * hands the ranges behind the reader to the actuation path, which drops their clean pages
 * (POSIX_FADV_DONTNEED). Without BPF (build or kernel) the rest of the daemon works as before. */
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

/* Loads and attaches the BPF program. Returns 0 and a new struct streams in *ret, -EOPNOTSUPP
 * when built without BPF, or the negative errno of the load or attach. */
int streams_open(const char *proc_root, struct streams **ret);

/* Detaches and frees. NULL is fine. */
void streams_free(struct streams *s);

/* Reads the daemon's own refault count of cgroup_id from the BPF program (page-cache-refaults.h:
 * file pages re-inserted after reclaim evicted them, cumulative; 0 when none were counted).
 * Returns 0, -EOPNOTSUPP without the BPF program (s NULL, or fed by streams_feed()), or the
 * errno of the map lookup. */
int streams_refault_pages(const struct streams *s, uint64_t cgroup_id, uint64_t *ret_pages);

/* Reads the counters, classifies the files of each of the n cgroups with StreamProtection= yes or
 * advise (not paused, not Mode=off) and submits one drop job per cgroup to act (dry-run or advise:
 * a job that drops nothing and says "would drop"), within the per-cycle bounds; the completions
 * count and log the drops (control_job_done()). Returns 0, or -ENOMEM; other errors are logged
 * and skipped. */
int streams_cycle(struct streams *s, const struct cycle_input *in, struct cgroup *const *cgroups,
                  size_t n_cgroups, struct actuator *act);
