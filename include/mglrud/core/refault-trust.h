/* SPDX-License-Identifier: GPL-2.0-or-later */
/* refault-trust.h: refault counts you can trust (docs/design.md). Per managed cgroup the daemon
 * reads its own count of page-cache re-insertions of pages reclaim evicted (BPF, kept by
 * stream protection's program: bpf/page-cache-refaults.h) and checks the kernel's
 * workingset_refault_file against it and workingset_nodereclaim against the evictions
 * (policy/refault-check.h). On the first sign of an undercount it says so once (log here;
 * metric and dump from the snapshot) and from then on the controllers get the larger of the
 * two counts (struct cgroup_sample: refault_file_undercount). The controller state
 * (control-state.h) keeps one struct refault_trust per cgroup. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "mglrud/core/cgroup.h"
#include "mglrud/core/cycle.h"
#include "mglrud/kernel/memstat.h"
#include "mglrud/policy/refault-check.h"

/* The own count of one cgroup at one reading. */
struct own_refaults {
        uint64_t pages;        /* cumulative, over the cgroup and the descendants it covers */
        bool valid;            /* read: RefaultCheck=yes, with BPF, and the map answered */
};

struct refault_trust {
        struct refault_check_window window;
        uint64_t own_pages;    /* the own count over the cycles checked */
        uint64_t kernel_pages; /* Δworkingset_refault_file over the same cycles */
        uint8_t verdict;       /* enum refault_check_verdict that found the undercount */
        bool undercount;       /* found short: said once; the larger count from then on */
        bool read_failed;      /* a read of the own count failed (logged once) */
};

/* Reads the daemon's own refault count of cgroup_id from the refaults map of stream
 * protection's BPF program (map_fd: streams_refaults_map_fd(); page-cache-refaults.h: file pages
 * re-inserted after reclaim evicted them, cumulative; 0 when none were counted). Returns 0,
 * -EOPNOTSUPP for a negative map_fd (no BPF program), or the errno of the map lookup. */
int refault_count_read(int map_fd, uint64_t cgroup_id, uint64_t *ret_pages);

/* Reads cg's own count, summed over cg and the descendants its work covers, through
 * in->own_refaults. ret->valid is false without RefaultCheck=, without a reader, or when a read
 * fails (said once per cgroup, through t). */
void refault_trust_read(const struct cycle_input *in, const struct cgroup *cg,
                        struct refault_trust *t, struct own_refaults *ret);

/* Checks one cycle of the cgroup named name: memory.stat prev -> cur and the own count
 * own_prev -> own_cur, dt_usec apart. On the first sign of an undercount sets t->undercount and
 * t->verdict and logs it once, naming the cgroup and the two numbers compared. */
void refault_trust_update(struct refault_trust *t, const char *name, const struct memstat *prev,
                          const struct memstat *cur, const struct own_refaults *own_prev,
                          const struct own_refaults *own_cur, uint64_t dt_usec,
                          uint64_t page_size);
