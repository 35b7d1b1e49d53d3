/* SPDX-License-Identifier: GPL-2.0-or-later */
/* streams.h: one-shot stream protection (DESIGN.md): a BPF program counts page-cache insertions
 * per (cgroup, device, inode); each cycle the daemon reads the counters, classifies the files of
 * every managed cgroup (policy/streams.c) and drops the clean pages of one-shot streams behind
 * the reader with posix_fadvise(POSIX_FADV_DONTNEED), opening them by handle. Without BPF (build
 * or kernel) the rest of the daemon works as before. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct manager;
struct streams;

/* Loads and attaches the BPF program. Returns 0 and a new struct streams in *ret, -EOPNOTSUPP
 * when built without BPF, or the negative errno of the load or attach. */
int streams_open(const char *proc_root, struct streams **ret);

/* Detaches and frees. NULL is fine. */
void streams_free(struct streams *s);

/* Reads the counters, classifies the files of every managed cgroup with StreamProtection= yes or
 * advise and drops (or, in dry-run or advise, reports) the one-shot streams, within the per-cycle
 * bounds. Counts what it did in each cgroup (stream_files, stream_dropped_bytes). Returns 0, or
 * -ENOMEM; other errors are logged and skipped. */
int streams_cycle(struct streams *s, struct manager *m);
