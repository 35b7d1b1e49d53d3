/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reclaim-stall.h: the stall guard's BPF counters (docs/design.md, "Stall guard"): per cgroup,
 * the time its tasks (and its descendants') spent in direct and memcg reclaim, cumulative, not
 * counting the daemon's own threads. The actuation path reads a job's cgroup between two chunks
 * and stops the job when its tasks stalled past a threshold since the job began. */
#pragma once

#include <stdint.h>
#include <sys/types.h>

struct reclaim_stall;

/* Loads and attaches the BPF program (bpf/reclaim-stall.bpf.c), not counting the threads of
 * process self_tgid. Returns 0, -EOPNOTSUPP when built without BPF, or the load's negative
 * errno. */
int reclaim_stall_open(pid_t self_tgid, struct reclaim_stall **ret);

/* Detaches and frees. NULL is fine. */
void reclaim_stall_free(struct reclaim_stall *rs);

/* Reads cgroup_id's cumulative time in reclaim (ns) and number of reclaim episodes: 0 for both
 * when it never stalled. Safe from any thread (one map lookup). Returns 0 or a negative errno. */
int reclaim_stall_read(const struct reclaim_stall *rs, uint64_t cgroup_id, uint64_t *ret_ns,
                       uint64_t *ret_count);
