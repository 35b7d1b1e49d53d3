/* SPDX-License-Identifier: GPL-2.0-or-later */
/* page-cache-refaults.h: the daemon's own refault count (docs/design.md, "Refault counts you
 * can trust"), which does not depend on the kernel's shadow entries. page-cache-inserts.bpf.c
 * keeps it in the stream map's entries (struct streams_val) and sums it per cgroup in the
 * refaults map; the accounting below is plain arithmetic, shared with the unit tests, which run
 * it on the host. Only fixed-width types (vmlinux.h on the BPF side, <linux/types.h> on the
 * host).
 *
 * A file's re-insertions are at least pages − max_index: it cannot have had more distinct pages
 * inserted than its highest index. Each increase of that bound counts as refaults as far as
 * the pages reclaim took out of the file (the eviction budget) explain it, and only within
 * REFAULTS_WINDOW_NS of the file's last eviction by reclaim. What is written is no refault,
 * neither for the kernel (filemap_add_folio() counts none for a __GFP_WRITE insertion) nor here:
 * a truncation (the size went down) or another file on the same inode number (the generation
 * changed) empties the budget, and nothing counts while the file is being written (a page made
 * dirty within REFAULTS_WRITE_HOLD_NS). The insertion comes before the page is dirtied, so a
 * write that starts after a quiet spell may count its first folio: one folio per write burst. */
#pragma once

#include "page-cache-inserts.h"

/* cgroups with refaults counted; the least recently counted go first when it is full. */
#define REFAULTS_MAP_ENTRIES 16384
/* A re-insertion counts only this long after reclaim last evicted pages of the file: longer
 * than the default MaxColdAge (20 min), so every reuse period T can learn from is seen, and
 * short enough that a data set re-read hours later (which no T would have kept) is not. */
#define REFAULTS_WINDOW_NS (30ULL * 60 * 1000000000ULL)
/* Re-insertions into a file that had a page dirtied this recently are writes, not refaults. */
#define REFAULTS_WRITE_HOLD_NS (10ULL * 1000000000ULL)

/* Pages of the cgroup's files re-inserted into the page cache after reclaim evicted them,
 * cumulative since the map entry was made. */
struct refaults_val {
        __u64 pages;
};

#ifndef REFAULTS_INLINE
#define REFAULTS_INLINE static inline __attribute__((always_inline))
#endif

/* Notes that reclaim took nr pages of v's file out of the page cache at now_ns. */
REFAULTS_INLINE void refaults_note_eviction(struct streams_val *v, __u64 nr, __u64 now_ns) {
        __sync_fetch_and_add(&v->evicted_budget, (__s64) nr);
        v->evicted_ns = now_ns;
}

/* Notes that a page of v's file was made dirty at now_ns. */
REFAULTS_INLINE void refaults_note_dirtied(struct streams_val *v, __u64 now_ns) {
        v->dirtied_ns = now_ns;
}

/* Accounts an insertion into v's file: call it once v->pages and v->max_index count the
 * insertion and before v->i_size does; i_size and generation are the inode's now. Returns the
 * pages to count as refaults. */
REFAULTS_INLINE __u64 refaults_note_insertion(struct streams_val *v, __u64 i_size,
                                              __u32 generation, __u64 now_ns) {
        __u64 reinserted = v->pages > v->max_index ? v->pages - v->max_index : 0;
        __u64 n;
        __s64 budget;

        if (i_size < v->i_size || generation != v->generation) {
                v->evicted_budget = 0;
                v->reinserted = reinserted;
                return 0;
        }
        if (reinserted <= v->reinserted)
                return 0;
        n = reinserted - v->reinserted;
        v->reinserted = reinserted;
        budget = v->evicted_budget;
        if (budget <= 0 || now_ns - v->evicted_ns > REFAULTS_WINDOW_NS ||
            (v->dirtied_ns && now_ns - v->dirtied_ns < REFAULTS_WRITE_HOLD_NS))
                return 0;
        if (n > (__u64) budget)
                n = (__u64) budget;
        __sync_fetch_and_add(&v->evicted_budget, -(__s64) n);
        return n;
}
