/* SPDX-License-Identifier: GPL-2.0-or-later */
/* refault-check.h: is the kernel's refault count of a cgroup to be trusted? (docs/design.md,
 * "Refault counts you can trust"). A pure function like the rest of policy/: the daemon
 * (core/refault-trust.c) feeds it each cycle's counter deltas and keeps the window between
 * cycles; once it says "undercount" the daemon hands the controllers the larger of the kernel's
 * workingset_refault_file and its own count (struct cgroup_sample, own_refault_file).
 *
 * Two signs, each over a window of up to REFAULT_CHECK_WINDOW_USEC, and each needs at least
 * REFAULT_CHECK_MIN_BYTES worth of pages so that noise never trips it:
 *  - own count: the daemon's own count of page-cache re-insertions of pages reclaim evicted is
 *    at least REFAULT_CHECK_OWN_RATIO times workingset_refault_file. With its shadow entries
 *    intact the kernel counts every one of those (and overwrites, and other files) itself.
 *  - shadow nodes: workingset_nodereclaim (shadow nodes the shrinker freed, each with at least
 *    one eviction record) is at least 1/REFAULT_CHECK_NODE_DIV of the pages reclaimed
 *    (pgsteal): eviction records are thrown away about as fast as they are made. A sequential
 *    eviction fills a node with 64 records, so a working shadow budget trims at most about
 *    one node per 64 pages evicted. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define REFAULT_CHECK_WINDOW_USEC (300ULL * 1000000ULL)
#define REFAULT_CHECK_MIN_BYTES (8ULL << 20)
#define REFAULT_CHECK_OWN_RATIO 4
#define REFAULT_CHECK_NODE_DIV 2

/* One cycle's counter deltas (pages; shadow nodes for nodereclaim). */
struct refault_check_sample {
        uint64_t dt_usec;
        uint64_t kernel_refault_file;   /* Δworkingset_refault_file */
        uint64_t own_refault_file;      /* Δ the daemon's own count (has_own) */
        uint64_t nodereclaim;           /* Δworkingset_nodereclaim */
        uint64_t evicted;               /* Δpgsteal */
        bool has_own;                   /* the own count was read at both ends */
};

/* What the check accumulates, kept by the daemon between cycles; all zero to start. */
struct refault_check_window {
        uint64_t usec;
        uint64_t kernel_refault_file, own_refault_file, nodereclaim, evicted;
};

enum refault_check_verdict {
        REFAULT_CHECK_TRUSTED,          /* no sign of an undercount (or too little to tell) */
        REFAULT_CHECK_OWN_COUNT,        /* the own count is far above the kernel's */
        REFAULT_CHECK_SHADOW_NODES,     /* shadow nodes are reclaimed about as fast as evictions */
        _REFAULT_CHECK_VERDICT_MAX,
};

/* Adds one cycle to w (which starts over with this cycle once it would cover more than
 * REFAULT_CHECK_WINDOW_USEC) and returns what the window says. page_size converts
 * REFAULT_CHECK_MIN_BYTES to pages. */
enum refault_check_verdict refault_check_add(struct refault_check_window *w,
                                             const struct refault_check_sample *c,
                                             uint64_t page_size);

/* Returns "trusted", "own-count", "shadow-nodes", or NULL for an unknown value. */
const char *refault_check_verdict_to_string(enum refault_check_verdict v);
