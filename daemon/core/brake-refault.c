/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The refault guard as a brake (brake.h; docs/design.md, "Stall guard"): stream protection's BPF
 * program counts per cgroup the page-cache re-insertions of file pages reclaim evicted (the
 * daemon's own count); between two chunks of a job, the writer ends the job once more of its
 * cgroup's pages came back since it began than its share of the pages it asked to reclaim by
 * then. Pages that return while the job still runs were evicted seconds before: the job is taking
 * the working set. */
#include <stdio.h>
#include <stdlib.h>

#include "mglrud/core/brake.h"
#include "mglrud/core/refault-trust.h"
#include "mglrud/core/stream-protection.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/parse-util.h"

/* The brake's own state. */
struct refault_state {
        bool said;              /* said once that the refault guard is unavailable */
};

static int read_refaults(uint64_t cgroup_id, uint64_t *ret_pages, void *userdata) {
        return refault_count_read(streams_refaults_map_fd(userdata), cgroup_id, ret_pages);
}

/* Takes stream protection's BPF map of the daemon's own refault counts as its source once it is
 * loaded, with an event loop and RefaultGuard=yes; from then on stream protection stays loaded
 * (brakes_holds_streams()). Without it (no BPF) it says so once: the PSI triggers act. */
static void refault_open(struct brake *b) {
        const struct brake_env *env = b->env;
        b->enabled = env->config->refault_guard;
        if (b->source.read || !env->event || !env->config->refault_guard)
                return;
        if (!b->state)
                b->state = calloc(1, sizeof(struct refault_state));
        struct refault_state *s = b->state;
        if (!env->streams) {
                if (!s || !s->said)
                        log_notice("Refault guard unavailable: no BPF program counts the re-reads "
                                   "of evicted pages; PSI triggers alone stop reclaim.");
                if (s)
                        s->said = true;
                return;
        }
        b->source = (struct brake_source) { .read = read_refaults, .userdata = env->streams };
        log_info("Refault guard: counting re-reads of evicted file pages per cgroup with BPF.");
}

/* Returns true when more of the job's cgroup's evicted file pages came back since its first
 * check than j's refault share of the pages the job asked to reclaim by now. One map lookup; a
 * failed read skips the check. */
static bool refault_check_job(struct brake *b, struct actuator_job *j,
                              struct actuator_brake_reading *reading) {
        double share = actuator_job_limits(j).refault_share;
        uint64_t page_size = actuator_job_page_size(j), pages;
        if (!(share > 0) || page_size == 0 ||
            b->source.read(actuator_job_cgroup_id(j), &pages, b->source.userdata) < 0)
                return false;
        if (!reading->has_base) {
                reading->base = pages;
                reading->has_base = true;
                return false;
        }
        /* A count that went backwards (its map entry was recycled) starts the job's anew. */
        if (pages < reading->base)
                reading->base = pages;
        reading->seen = pages - reading->base;
        uint64_t asked_pages = actuator_job_result_const(j)->asked_bytes / page_size;
        reading->limit = (uint64_t) ((double) asked_pages * share);
        return reading->seen > reading->limit;
}

static void refault_job_stop(struct brake *b, const struct actuator_job *j,
                             const struct actuator_brake_reading *reading,
                             struct control_stop *ret, char *why, size_t size) {
        const struct actuator_result *r = actuator_job_result_const(j);
        uint64_t page_size = actuator_job_page_size(j);
        char rb[32], lb[32], ab[32];
        snprintf(why, size, "refault burst (%s of evicted file pages read again during the "
                 "job, limit %s after %s asked; %llu pages back, %llu asked)",
                 format_bytes(rb, sizeof rb, reading->seen * page_size),
                 format_bytes(lb, sizeof lb, reading->limit * page_size),
                 format_bytes(ab, sizeof ab, r->asked_bytes),
                 (unsigned long long) reading->seen,
                 (unsigned long long) (r->asked_bytes / page_size));
        *ret = (struct control_stop) { .reason = CONTROL_STOP_REFAULT_BURST,
                                       .refault_pages = reading->seen,
                                       .refault_limit_pages = reading->limit };
}

static bool refault_status(const struct brake *b) {
        return b->source.read && b->enabled;
}

static void refault_close(struct brake *b) {
        b->source = (struct brake_source) {};
        free(b->state);
        b->state = NULL;
}

const struct brake_ops brake_refault = {
        .name = "refault-guard",
        .stops_counter = DAEMON_COUNTER_refault_guard_stops,
        .status_counter = DAEMON_COUNTER_refault_guard,
        .open = refault_open,
        .check_job = refault_check_job,
        .job_stop = refault_job_stop,
        .status = refault_status,
        .close = refault_close,
};
