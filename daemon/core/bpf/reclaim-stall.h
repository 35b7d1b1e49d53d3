/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reclaim-stall.h: the map layout shared by the BPF stall guard (reclaim-stall.bpf.c) and the
 * daemon (daemon/core/reclaim-stall.c). Only fixed-width types: the BPF side includes
 * vmlinux.h, the daemon <linux/types.h>. */
#pragma once

/* Cgroups with a reclaim total; least recently updated ones are dropped beyond it. */
#define RECLAIM_STALL_MAP_ENTRIES 16384
/* Tasks inside reclaim at once. */
#define RECLAIM_STALL_TASK_ENTRIES 16384
/* A stall counts for the task's cgroup and this many of its ancestors (the managed cgroup can
 * be a parent of the stalled task's). */
#define RECLAIM_STALL_MAX_LEVELS 16

/* Cumulative, per cgroup id (the kernfs id, what name_to_handle_at() gives for the directory):
 * the daemon computes deltas. Updated with atomic adds. */
struct reclaim_stall_val {
        __u64 ns;       /* time its tasks spent in direct or memcg reclaim */
        __u64 count;    /* reclaim episodes that ended */
};
