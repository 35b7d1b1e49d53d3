/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "manager-cycle-input.h"

#include "mglrud/core/brakes.h"
#include "mglrud/core/refault-trust.h"
#include "mglrud/core/stream-protection.h"

/* The own refault count of a cgroup (cycle_input.own_refaults), from stream protection's BPF
 * program. */
static int manager_own_refaults(void *userdata, uint64_t cgroup_id, uint64_t *ret_pages) {
        return refault_count_read(streams_refaults_map_fd(userdata), cgroup_id, ret_pages);
}

void manager_cycle_input(struct manager *m, uint64_t now_usec, struct host_limits *limits,
                         struct cycle_input *ret) {
        struct streams *streams = m->stream_wiring.streams;

        *limits = (struct host_limits) { .full_limit = m->config.host_full_limit,
                                         .min_available = m->config.host_min_available };
        *ret = (struct cycle_input) {
                .now_usec = now_usec,
                .host_prev = m->host.has_prev ? &m->host.prev : NULL,
                .host_cur = &m->host.cur,
                .host_limits = limits,
                .lrugen = lrugen_source_histogram(&m->lrugen),
                .caps = &m->caps,
                .lrugen_readable = m->lrugen.readable,
                .lrugen_write_fd = m->lrugen.write_fd,
                .dry_run = m->dry_run,
                .paused_all = m->paused_all,
                .report = &m->report,
                .scratch = &m->scratch,
                .refault_check = m->config.refault_check,
                .own_refaults = streams ? manager_own_refaults : NULL,
                .own_refaults_userdata = streams,
                .interval_usec = m->interval_usec,
                .stall_guard = brakes_watching(m->brakes, "stall-guard"),
                .idle_profile = m->idle_profile,
                .refault_guard = brakes_watching(m->brakes, "refault-guard"),
        };
}

