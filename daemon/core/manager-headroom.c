/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-headroom.c: HighHeadroom= between cycles (docs/design.md, "Headroom under
 * memory.high"). A cgroup that grows past its headroom line just after a cycle would otherwise
 * wait a whole interval (and be throttled by the kernel over memory.high meanwhile). The kernel
 * notifies memory.events changes, but its "high" count moves only once the cgroup is over
 * memory.high, past the line; memory.current has no notification. So a 100 ms timer reads
 * memory.current (one pread of a kept descriptor) of the cgroups with headroom on, and one
 * over its line gets its decision at once, on a fresh histogram and the last cycle's host
 * samples. */
#include "manager-headroom.h"
#include "manager-cycle-input.h"

#include <errno.h>

#include "mglrud/core/control.h"
#include "mglrud/kernel/cgroup-files.h"
#include "mglrud/policy/headroom.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglrud/shared/time.h"

/* Returns true when cg is watched: in Mode=active with HighHeadroom= and a line drawn. */
static bool watched(const struct cgroup *cg, uint64_t *ret_line) {
        if (!cg->policy || cg->policy->mode != POLICY_MODE_ACTIVE || !(cg->policy->high_headroom > 0))
                return false;
        *ret_line = control_cgroup_headroom_line(cg);
        return *ret_line > 0;
}

/* Decides now for cg, one of the watched cgroups over its line, on this moment's input (*in,
 * built on the first such cgroup of the check: a fresh histogram, the last cycle's host
 * samples). */
static void decide_now(struct manager *m, struct cgroup *cg, uint64_t now_usec,
                       struct cycle_input *in, struct host_limits *limits, bool *have_input) {
        if (!*have_input) {
                lrugen_source_read(&m->lrugen, m->debugfs_root, m->cgroup_root);
                manager_cycle_input(m, now_usec, limits, in);
                *have_input = true;
        }
        cg->headroom_armed_usec = now_usec;
        if (control_cgroup_cycle(cg, in, m->actuator) == -ENOMEM)
                log_warning_errno(-ENOMEM, "%s: no headroom decision between cycles: %m", cg->name);
}

/* Returns true when some cgroup is watched now (none while every cgroup is paused). */
static bool any_watched(const struct manager *m) {
        for (size_t i = 0; i < m->discovery.n_cgroups && !m->paused_all; i++) {
                uint64_t line;
                if (!m->discovery.cgroups[i]->vanished && watched(m->discovery.cgroups[i], &line))
                        return true;
        }
        return false;
}

static int on_headroom_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        struct manager *m = userdata;
        uint64_t now = now_monotonic_usec();
        struct host_limits limits;
        struct cycle_input in;
        bool have_input = false;
        size_t n_watched = 0;

        for (size_t i = 0; i < m->discovery.n_cgroups && !m->paused_all; i++) {
                struct cgroup *cg = m->discovery.cgroups[i];
                uint64_t line, current;

                if (cg->vanished || !watched(cg, &line))
                        continue;
                n_watched++;
                if (cgroup_files_read_value(&cg->files, CGROUP_FILE_CURRENT, 0, &current) < 0)
                        continue; /* vanished: the next cycle finds out */
                if (!headroom_should_arm(current, line, now, cg->headroom_armed_usec,
                                         m->interval_usec))
                        continue;
                char c[16], l[16];
                log_debug("%s: memory.current %s past its headroom line %s: deciding now.",
                          cg->name, format_bytes(c, sizeof c, current),
                          format_bytes(l, sizeof l, line));
                decide_now(m, cg, now, &in, &limits, &have_input);
        }
        /* Nothing to watch: off until a cycle draws a line (manager_headroom_cycle_done()).
         * A timer that looked anyway would wake the daemon between its cycles for nothing,
         * on whatever CPU the workload runs (docs/design.md, "What the daemon costs"). */
        if (n_watched)
                (void) sd_event_source_set_time(s, usec + headroom_watch_delay_usec(n_watched,
                                                                                 m->interval_usec));
        else
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        return 0;
}

void manager_headroom_cycle_done(struct manager *m, uint64_t now_usec) {
        int enabled;

        if (!m->headroom_timer ||
            sd_event_source_get_enabled(m->headroom_timer, &enabled) < 0 ||
            enabled != SD_EVENT_OFF || !any_watched(m))
                return;
        (void) sd_event_source_set_time(m->headroom_timer, now_usec + HEADROOM_WATCH_USEC);
        (void) sd_event_source_set_enabled(m->headroom_timer, SD_EVENT_ON);
}

void manager_watch_headroom(struct manager *m) {
        if (!m->event || m->dry_run || m->headroom_timer)
                return;
        /* Off until a cycle draws a line for some cgroup (manager_headroom_cycle_done()). */
        int r = sd_event_add_time_relative(m->event, &m->headroom_timer, CLOCK_MONOTONIC,
                                           HEADROOM_WATCH_USEC, USEC_PER_MSEC * 10,
                                           on_headroom_timer, m);
        if (r < 0) {
                log_warning_errno(r, "Cannot add the headroom timer: %m; HighHeadroom= acts at "
                                     "each cycle only.");
                return;
        }
        (void) sd_event_source_set_enabled(m->headroom_timer, SD_EVENT_OFF);
}
