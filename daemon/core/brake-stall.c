/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stall guard as a brake (brake.h; docs/design.md, "Stall guard"): with BPF, the time each
 * cgroup's tasks spent in direct and memcg reclaim (reclaim-stall.h); between two chunks of a
 * job, the writer reads the job's cgroup's and ends the job once it grew past the job's limit
 * since the job began. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mglrud/core/brake.h"
#include "mglrud/core/reclaim-stall.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/parse-util.h"

/* The brake's own state: whether the load was tried (and said), and the loaded program. */
struct stall_state {
        bool tried;
        struct reclaim_stall *rs;
};

static int read_stall(uint64_t cgroup_id, uint64_t *ret_ns, void *userdata) {
        uint64_t count;
        return reclaim_stall_read(userdata, cgroup_id, ret_ns, &count);
}

/* Loads the BPF program once, with an event loop and StallGuard=yes, and says once when it
 * cannot (built without BPF, load refused): the PSI triggers alone stop reclaim then. Once
 * loaded it stays until close(): the writer thread reads it without a lock. */
static void stall_open(struct brake *b) {
        const struct brake_env *env = b->env;
        b->enabled = env->config->stall_guard;
        if (!b->state && !(b->state = calloc(1, sizeof(struct stall_state))))
                return; /* tried at the next reload */
        struct stall_state *s = b->state;
        if (s->tried || !env->event || !env->config->stall_guard)
                return;
        s->tried = true;
        int r = reclaim_stall_open(getpid(), &s->rs);
        if (r == -EOPNOTSUPP) {
                log_notice("Stall guard unavailable: built without BPF; PSI triggers alone stop "
                           "reclaim under pressure.");
                return;
        }
        if (r < 0) {
                log_notice_errno(r, "Stall guard unavailable: cannot load the BPF program (%m); "
                                    "PSI triggers alone stop reclaim under pressure.");
                return;
        }
        b->source = (struct brake_source) { .read = read_stall, .userdata = s->rs };
        log_info("Stall guard: timing direct and memcg reclaim per cgroup with BPF.");
}

/* Returns true when the job's cgroup's tasks spent more than its limit in reclaim since its
 * first check (the job's start). One map lookup; a failed read skips the check (the PSI
 * trigger still watches). */
static bool stall_check_job(struct brake *b, struct actuator_job *j,
                            struct actuator_brake_reading *reading) {
        uint64_t limit = actuator_job_limits(j).stall_limit_ns, ns;
        if (!limit || b->source.read(actuator_job_cgroup_id(j), &ns, b->source.userdata) < 0)
                return false;
        if (!reading->has_base) {
                reading->base = ns;
                reading->has_base = true;
                return false;
        }
        reading->seen = ns > reading->base ? ns - reading->base : 0;
        reading->limit = limit;
        return reading->seen > limit;
}

static void stall_job_stop(struct brake *b, const struct actuator_job *j,
                           const struct actuator_brake_reading *reading, struct control_stop *ret,
                           char *why, size_t size) {
        char sb[32], lb[32];
        snprintf(why, size, "reclaim stall (tasks spent %s in reclaim during the job, "
                 "limit %s; %llu ns)", format_duration(sb, sizeof sb, reading->seen / 1000),
                 format_duration(lb, sizeof lb, actuator_job_limits(j).stall_limit_ns / 1000),
                 (unsigned long long) reading->seen);
        *ret = (struct control_stop) { .reason = CONTROL_STOP_RECLAIM_STALL,
                                       .stall_ns = reading->seen };
}

static bool stall_status(const struct brake *b) {
        return b->source.read; /* loaded, even when StallGuard= was turned off since */
}

static void stall_close(struct brake *b) {
        struct stall_state *s = b->state;
        if (s)
                reclaim_stall_free(s->rs);
        free(s);
        b->state = NULL;
        b->source = (struct brake_source) {};
}

const struct reclaim_stall *brake_stall_counters(const struct brake *b) {
        const struct stall_state *s = b && b->source.read ? b->state : NULL;
        return s ? s->rs : NULL;
}

const struct brake_ops brake_stall = {
        .name = "stall-guard",
        .stops_counter = DAEMON_COUNTER_stall_guard_stops,
        .status_counter = DAEMON_COUNTER_stall_guard,
        .open = stall_open,
        .check_job = stall_check_job,
        .job_stop = stall_job_stop,
        .status = stall_status,
        .close = stall_close,
};
