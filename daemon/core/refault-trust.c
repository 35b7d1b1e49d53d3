/* SPDX-License-Identifier: GPL-2.0-or-later */
/* refault-trust.c: the own refault count of a cgroup and the check of the kernel's counts
 * against it (refault-trust.h). */
#include "mglrud/core/refault-trust.h"

#include <errno.h>

#include "config.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

#if HAVE_BPF
#include <bpf/bpf.h>

#include "bpf/page-cache-refaults.h"
#endif

int refault_count_read(int map_fd, uint64_t cgroup_id, uint64_t *ret_pages) {
#if HAVE_BPF
        struct refaults_val v;
        __u64 key = cgroup_id;

        if (map_fd < 0)
                return -EOPNOTSUPP;
        if (bpf_map_lookup_elem(map_fd, &key, &v) < 0) {
                int r = negative_errno();
                if (r != -ENOENT)
                        return r;
                v.pages = 0; /* nothing counted yet (or the entry was recycled) */
        }
        *ret_pages = v.pages;
        return 0;
#else
        (void) map_fd;
        (void) cgroup_id;
        (void) ret_pages;
        return -EOPNOTSUPP;
#endif
}

void refault_trust_read(const struct cycle_input *in, const struct cgroup *cg,
                        struct refault_trust *t, struct own_refaults *ret) {
        uint64_t sum = 0;

        *ret = (struct own_refaults) {};
        if (!in->refault_check || !in->own_refaults)
                return;
        for (size_t i = 0; i <= cg->n_covered; i++) {
                uint64_t id = i == 0 ? cg->id : cg->covered_ids[i - 1], pages;
                int r = in->own_refaults(in->own_refaults_userdata, id, &pages);
                if (r < 0) {
                        if (!t->read_failed)
                                log_notice_errno(r, "%s: cannot read mglrud's own refault count "
                                                 "(cgroup id %llu): %m; checking "
                                                 "workingset_nodereclaim only.",
                                                 cg->name, (unsigned long long) id);
                        t->read_failed = true;
                        return;
                }
                sum += pages;
        }
        *ret = (struct own_refaults) { .pages = sum, .valid = true };
}

void refault_trust_update(struct refault_trust *t, const char *name, const struct memstat *prev,
                          const struct memstat *cur, const struct own_refaults *own_prev,
                          const struct own_refaults *own_cur, uint64_t dt_usec,
                          uint64_t page_size) {
        struct refault_check_sample c = {
                .dt_usec = dt_usec,
                .kernel_refault_file = memstat_delta(prev, cur, MEMSTAT_WORKINGSET_REFAULT_FILE),
                .nodereclaim = memstat_delta(prev, cur, MEMSTAT_WORKINGSET_NODERECLAIM),
                .evicted = memstat_delta(prev, cur, MEMSTAT_PGSTEAL),
                /* A count that went backwards (its map entry was recycled) tells nothing. */
                .has_own = own_prev->valid && own_cur->valid && own_cur->pages >= own_prev->pages,
        };
        if (c.has_own)
                c.own_refault_file = own_cur->pages - own_prev->pages;
        t->own_pages += c.own_refault_file;
        t->kernel_pages += c.kernel_refault_file;

        enum refault_check_verdict v = refault_check_add(&t->window, &c, page_size);
        if (t->undercount || v == REFAULT_CHECK_TRUSTED)
                return;
        t->undercount = true;
        t->verdict = (uint8_t) v;

        const struct refault_check_window *w = &t->window;
        char a[32], b[32], d[32];
        format_duration(d, sizeof d, w->usec);
        if (v == REFAULT_CHECK_OWN_COUNT)
                log_notice("%s: the kernel undercounts refaults: mglrud saw %s of page cache read "
                           "again after reclaim evicted it, workingset_refault_file counted %s, "
                           "over the last %s. The controllers take the larger of the two from "
                           "now on.", name, format_bytes(a, sizeof a, w->own_refault_file * page_size),
                           format_bytes(b, sizeof b, w->kernel_refault_file * page_size), d);
        else
                log_notice("%s: the kernel undercounts refaults: %llu shadow nodes reclaimed "
                           "(workingset_nodereclaim) against %s evicted over the last %s: its "
                           "eviction records are thrown away about as fast as they are made. "
                           "The controllers take the larger of workingset_refault_file and "
                           "mglrud's own count from now on.", name,
                           (unsigned long long) w->nodereclaim,
                           format_bytes(a, sizeof a, w->evicted * page_size), d);
}
