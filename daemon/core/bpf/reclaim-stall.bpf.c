// SPDX-License-Identifier: GPL-2.0-or-later
/* reclaim-stall.bpf.c: the stall guard's counters (docs/design.md, "Stall guard"): per cgroup,
 * the time its tasks spend in direct reclaim and in memcg reclaim (charges over memory.high or
 * memory.max), from the vmscan begin/end tracepoints. A task's reclaim counts for its cgroup
 * and every ancestor, so a managed parent sees its children's stalls. The daemon's own
 * memory.reclaim writes are memcg reclaim too: its threads (self_tgid) are not counted, or
 * every job would stop itself. tp_btf programs that read no tracepoint argument: the same
 * object loads whatever arguments the kernel passes (7.x added the memcg). */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "reclaim-stall.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the daemon before loading: its own process id. */
const volatile __u32 self_tgid = 0;

struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, RECLAIM_STALL_TASK_ENTRIES);
        __type(key, __u32);     /* thread id */
        __type(value, __u64);   /* bpf_ktime_get_ns() at the begin tracepoint */
} reclaim_start SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_LRU_HASH);
        __uint(max_entries, RECLAIM_STALL_MAP_ENTRIES);
        __type(key, __u64);     /* cgroup id */
        __type(value, struct reclaim_stall_val);
} reclaim_stall SEC(".maps");

static __always_inline int on_begin(void) {
        __u64 id = bpf_get_current_pid_tgid();
        __u32 tid = (__u32) id;
        __u64 now;

        if ((__u32) (id >> 32) == self_tgid)
                return 0;
        now = bpf_ktime_get_ns();
        bpf_map_update_elem(&reclaim_start, &tid, &now, BPF_ANY);
        return 0;
}

static __always_inline void account(__u64 cgroup_id, __u64 ns) {
        struct reclaim_stall_val *v, init = { .ns = ns, .count = 1 };

        v = bpf_map_lookup_elem(&reclaim_stall, &cgroup_id);
        if (!v) {
                if (bpf_map_update_elem(&reclaim_stall, &cgroup_id, &init, BPF_NOEXIST) == 0)
                        return;
                v = bpf_map_lookup_elem(&reclaim_stall, &cgroup_id); /* another CPU made it */
                if (!v)
                        return;
        }
        __sync_fetch_and_add(&v->ns, ns);
        __sync_fetch_and_add(&v->count, 1);
}

static __always_inline int on_end(void) {
        __u32 tid = (__u32) bpf_get_current_pid_tgid();
        struct task_struct *task;
        struct cgroup *cgrp;
        __u64 *start, ns;

        start = bpf_map_lookup_elem(&reclaim_start, &tid);
        if (!start)
                return 0; /* began before the program was attached, or the daemon's own */
        ns = bpf_ktime_get_ns() - *start;
        bpf_map_delete_elem(&reclaim_start, &tid);

        task = bpf_get_current_task_btf();
        cgrp = BPF_CORE_READ(task, cgroups, dfl_cgrp);
        for (int i = 0; i < RECLAIM_STALL_MAX_LEVELS && cgrp; i++) {
                account(BPF_CORE_READ(cgrp, kn, id), ns);
                struct cgroup_subsys_state *parent = BPF_CORE_READ(cgrp, self.parent);
                cgrp = parent ? BPF_CORE_READ(parent, cgroup) : NULL;
        }
        return 0;
}

SEC("tp_btf/mm_vmscan_direct_reclaim_begin")
int BPF_PROG(direct_reclaim_begin) {
        return on_begin();
}

SEC("tp_btf/mm_vmscan_direct_reclaim_end")
int BPF_PROG(direct_reclaim_end) {
        return on_end();
}

SEC("tp_btf/mm_vmscan_memcg_reclaim_begin")
int BPF_PROG(memcg_reclaim_begin) {
        return on_begin();
}

SEC("tp_btf/mm_vmscan_memcg_reclaim_end")
int BPF_PROG(memcg_reclaim_end) {
        return on_end();
}
