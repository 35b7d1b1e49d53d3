/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-stats.c: what the manager shows of itself: the status line, the daemon-wide figures
 * and the per-cgroup snapshots (manager.h), for the bus, the metrics and the dump. */
#include "mglrud/core/manager.h"

#include <errno.h>
#include <stdlib.h>

#include "mglrud/core/brakes.h"
#include "mglrud/core/reclaim-stall.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglrud/shared/time.h"

const char *manager_status(const struct manager *m, char *buf, size_t size) {
        uint64_t reclaimed = 0;
        for (size_t i = 0; i < m->discovery.n_cgroups; i++)
                reclaimed += control_cgroup_reclaimed_bytes(m->discovery.cgroups[i]);
        char b[32], t[32];
        /* The cycle's duration too: with thousands of cgroups it is what an operator checks
         * first (tests/bench/cycle-meter reads it from here). */
        snprintf(buf, size, "%s %zu cgroup%s, %s reclaimed, cycle %llu took %s",
                 m->dry_run ? "Advising on" : "Managing", m->discovery.n_cgroups,
                 m->discovery.n_cgroups == 1 ? "" : "s", format_bytes(b, sizeof b, reclaimed),
                 (unsigned long long) m->cycles, format_duration(t, sizeof t, m->last_cycle_usec));
        return buf;
}

void manager_cgroup_snapshot(const struct manager *m, const struct cgroup *cg,
                             struct control_snapshot *ret) {
        (void) control_cgroup_snapshot(cg, ret);
        const struct reclaim_stall *rs = brakes_reclaim_stall(m->brakes);
        ret->has_reclaim_stall = rs &&
                reclaim_stall_read(rs, cg->id, &ret->reclaim_stall_ns,
                                   &ret->reclaim_stall_count) >= 0;
}

void manager_daemon_stats(const struct manager *m, struct daemon_stats *ret) {
        *ret = (struct daemon_stats) {
                .cycles = m->cycles,
                .n_cgroups = m->discovery.n_cgroups,
                .cycle_usec = m->last_cycle_usec,
                .interval_usec = m->interval_usec,
                .dry_run = m->dry_run,
                .paused_all = m->paused_all,
                .actuation = m->actuator ? actuator_get_stats(m->actuator)
                                         : (struct actuator_stats) {},
                .write_age_usec = m->actuator ? actuator_write_age_usec(m->actuator,
                                                                        now_monotonic_usec())
                                              : 0,
                .streams = streams_get_stats(m->stream_wiring.streams),
                .host_idle = &m->host.idle,
        };
#define STATS_COPY_BRAKE(field) ret->field = brakes_counter(m->brakes, DAEMON_COUNTER_##field);
#define STATS_COPY_STATE(field)
#define STATS_COPY_(field, type, source, ...) STATS_COPY_##source(field)
        DAEMON_COUNTERS(STATS_COPY_)
}

int manager_snapshots(const struct manager *m, struct daemon_stats *ret_stats,
                      struct control_snapshot **ret_snaps, size_t *ret_n) {
        struct control_snapshot *s = calloc(MAX(m->discovery.n_cgroups, (size_t) 1), sizeof *s);
        if (!s)
                return -ENOMEM;
        for (size_t i = 0; i < m->discovery.n_cgroups; i++)
                manager_cgroup_snapshot(m, m->discovery.cgroups[i], &s[i]);
        manager_daemon_stats(m, ret_stats);
        *ret_snaps = s;
        *ret_n = m->discovery.n_cgroups;
        return 0;
}
