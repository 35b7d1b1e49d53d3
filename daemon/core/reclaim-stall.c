/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/reclaim-stall.h"

#include <errno.h>
#include <linux/types.h>
#include <stdlib.h>

#include "config.h"
#include "mglrud/shared/macro.h"

#if HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/reclaim-stall.skel.h"
#endif
#include "bpf/reclaim-stall.h"

struct reclaim_stall {
#if HAVE_BPF
        struct reclaim_stall_bpf *skel;
#endif
        int map_fd;
};

int reclaim_stall_open(pid_t self_tgid, struct reclaim_stall **ret) {
#if HAVE_BPF
        struct reclaim_stall *rs = calloc(1, sizeof *rs);
        int r;

        if (!rs)
                return -ENOMEM;
        rs->skel = reclaim_stall_bpf__open();
        if (!rs->skel) {
                r = negative_errno();
                goto fail;
        }
        rs->skel->rodata->self_tgid = (__u32) self_tgid;
        r = reclaim_stall_bpf__load(rs->skel);
        if (r < 0)
                goto fail;
        r = reclaim_stall_bpf__attach(rs->skel);
        if (r < 0)
                goto fail;
        rs->map_fd = bpf_map__fd(rs->skel->maps.reclaim_stall);
        *ret = rs;
        return 0;
fail:
        reclaim_stall_free(rs);
        return r;
#else
        return -EOPNOTSUPP;
#endif
}

void reclaim_stall_free(struct reclaim_stall *rs) {
        if (!rs)
                return;
#if HAVE_BPF
        reclaim_stall_bpf__destroy(rs->skel);
#endif
        free(rs);
}

int reclaim_stall_read(const struct reclaim_stall *rs, uint64_t cgroup_id, uint64_t *ret_ns,
                       uint64_t *ret_count) {
#if HAVE_BPF
        struct reclaim_stall_val v = {};
        __u64 key = cgroup_id;
        if (bpf_map_lookup_elem(rs->map_fd, &key, &v) < 0 && errno != ENOENT)
                return negative_errno();
        *ret_ns = v.ns;
        *ret_count = v.count;
        return 0;
#else
        return -EOPNOTSUPP;
#endif
}
