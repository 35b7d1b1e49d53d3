/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a pressure trigger does when it fires (docs/design.md, "Pressure triggers"): the writes
 * queued for the cgroup are cancelled, the one in flight ends after its chunk, T goes up and
 * the next decision reclaims nothing there. A host trigger does the same for every cgroup
 * mglrud reclaims in. */
#include "manager-triggers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "mglrud/core/pressure-trigger.h"
#include "mglrud/core/reclaim-stall.h"
#include "mglrud/core/refault-trust.h"
#include "mglrud/core/stream-protection.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/parse-util.h"

/* Triggers armed at once at most: each holds a descriptor (within MANAGER_FD_RESERVE) and a
 * kernel thread. Reclaim runs in few cgroups at a time (ACTUATOR_MAX_QUEUED jobs), so this is
 * a bound, not a budget. */
#define MANAGER_MAX_TRIGGERS 128

/* Stops cg's reclaim and records stop in its control state; stop->n_stopped counts the jobs the
 * caller already ended (the guard's). Returns how many of its write jobs were cancelled or cut
 * short. */
static unsigned stop_cgroup(struct manager *m, struct cgroup *cg, const char *why,
                            struct control_stop stop) {
        struct actuator_stopped st = actuator_stop_cgroup(m->actuator, cg->id);
        stop.n_stopped += st.queued + st.running;
        uint64_t t = control_cgroup_note_stop(cg, &stop);
        char tb[32];
        log_notice("%s: %s: reclaim stopped (%u queued write%s cancelled%s)%s%s.", cg->name, why,
                   st.queued, st.queued == 1 ? "" : "s",
                   st.running ? ", the running one ends after its chunk" : "",
                   t ? ", T raised to " : "", t ? format_duration(tb, sizeof tb, t) : "");
        if (stop.reason == CONTROL_STOP_PRESSURE)
                m->counters.pressure_stops++;
        return stop.n_stopped;
}

static void on_cgroup_stall(struct pressure_trigger *t, uint64_t now_usec, void *userdata) {
        struct manager *m = userdata;
        struct cgroup *cg = NULL;
        uint64_t stall = pressure_trigger_stall_usec(t);
        /* Found by its trigger: a firing is rare, and the cgroup keeps no pointer back. */
        for (size_t i = 0; i < m->n_cgroups && !cg; i++)
                if (m->cgroups[i]->trigger == t)
                        cg = m->cgroups[i];
        if (!cg)
                return;
        /* It did its work: reclaim there is stopped until a decision resumes it, and the
         * kernel would fire again every window while the stall lasts. */
        pressure_trigger_disarm(&cg->trigger);
        char sb[32], wb[32];
        char why[96];
        snprintf(why, sizeof why, "memory pressure (tasks stalled %s within %s)",
                 format_duration(sb, sizeof sb, stall), format_duration(wb, sizeof wb,
                                                                      m->trigger_window_usec));
        stop_cgroup(m, cg, why, (struct control_stop) {
                .reason = CONTROL_STOP_PRESSURE, .now_usec = now_usec });
}

static void on_host_stall(struct pressure_trigger *t, uint64_t now_usec, void *userdata) {
        struct manager *m = userdata;
        char sb[32], wb[32];
        char why[128];
        snprintf(why, sizeof why, "host memory pressure (all tasks stalled %s within %s)",
                 format_duration(sb, sizeof sb, pressure_trigger_stall_usec(t)),
                 format_duration(wb, sizeof wb, m->trigger_window_usec));
        uint64_t grace = 2 * m->interval_usec;
        for (size_t i = 0; i < m->n_cgroups; i++)
                if (control_cgroup_reclaiming(m->cgroups[i], now_usec, grace))
                        stop_cgroup(m, m->cgroups[i], why, (struct control_stop) {
                                .reason = CONTROL_STOP_PRESSURE, .now_usec = now_usec });
}

/* Says once why triggers are off; returns false when they cannot be used at all. */
static bool trigger_error(struct manager *m, int r, const char *what) {
        if (r == -ENOENT || r == -ENODEV)
                return true; /* the cgroup went away: the rescan drops it */
        if (r == -EOPNOTSUPP || r == -EACCES || r == -EPERM) {
                log_notice_errno(r, "Cannot register a PSI trigger on %s (%m): reclaim stops "
                                    "at the next cycle instead of within a second.", what);
                m->triggers_unavailable = true;
                manager_triggers_done(m);
                return false;
        }
        log_warning_errno(r, "Cannot register a PSI trigger on %s: %m", what);
        return true;
}

/* Arms (or keeps) a trigger and says once when the kernel only took the unprivileged window. */
static int arm(struct manager *m, struct pressure_trigger **slot, int dirfd, const char *name,
               bool full, uint64_t stall_usec, pressure_trigger_fn fn, void *userdata) {
        uint64_t asked = m->trigger_window_usec;
        int r = pressure_trigger_arm(slot, m->event, dirfd, name, full, stall_usec,
                                     &m->trigger_window_usec, fn, userdata);
        if (r >= 0 && m->trigger_window_usec != asked)
                log_notice("PSI triggers take 2s windows only (no CAP_SYS_RESOURCE): reclaim "
                           "stops up to two seconds after a stall.");
        return r;
}

void manager_update_triggers(struct manager *m, uint64_t now_usec) {
        if (!m->config.pressure_triggers || m->dry_run || !m->event || m->triggers_unavailable) {
                manager_triggers_done(m);
                return;
        }
        if (!m->trigger_window_usec)
                m->trigger_window_usec = PRESSURE_TRIGGER_WINDOW_USEC;

        uint64_t grace = 2 * m->interval_usec;
        unsigned n_armed = 0;
        for (size_t i = 0; i < m->n_cgroups; i++) {
                struct cgroup *cg = m->cgroups[i];
                bool want = n_armed < MANAGER_MAX_TRIGGERS &&
                            (cg->files.present & (1u << CGROUP_FILE_PRESSURE)) && !cg->vanished &&
                            control_cgroup_reclaiming(cg, now_usec, grace);
                if (!want) {
                        pressure_trigger_disarm(&cg->trigger);
                        continue;
                }
                uint64_t stall = policy_trigger_stall_usec(cg->policy->pressure_target,
                                                           m->interval_usec,
                                                           m->trigger_window_usec);
                int r = arm(m, &cg->trigger, cg->files.dirfd, "memory.pressure", false, stall,
                            on_cgroup_stall, m);
                if (r < 0 && !trigger_error(m, r, cg->name))
                        return;
                n_armed += r >= 0;
        }

        double host_limit = m->config.host_full_limit;
        if (n_armed == 0 || !(host_limit > 0 && host_limit < 1)) {
                pressure_trigger_disarm(&m->host_trigger);
                return;
        }
        char path[512];
        snprintf(path, sizeof path, "%s/pressure/memory", m->proc_root);
        uint64_t stall = policy_trigger_stall_usec(host_limit, m->interval_usec,
                                                   m->trigger_window_usec);
        int r = arm(m, &m->host_trigger, AT_FDCWD, path, true, stall, on_host_stall, m);
        if (r < 0)
                trigger_error(m, r, path);
}

void manager_triggers_done(struct manager *m) {
        for (size_t i = 0; i < m->n_cgroups; i++)
                pressure_trigger_disarm(&m->cgroups[i]->trigger);
        pressure_trigger_disarm(&m->host_trigger);
}

static int read_stall(uint64_t cgroup_id, uint64_t *ret_ns, void *userdata) {
        uint64_t count;
        return reclaim_stall_read(userdata, cgroup_id, ret_ns, &count);
}

void manager_open_stall_guard(struct manager *m) {
        if (m->stall_guard_tried || !m->event || !m->config.stall_guard)
                return;
        m->stall_guard_tried = true;
        int r = reclaim_stall_open(getpid(), &m->stall_guard);
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
        actuator_set_stall_source(m->actuator, &(struct actuator_stall_source) {
                .read = read_stall, .userdata = m->stall_guard });
        log_info("Stall guard: timing direct and memcg reclaim per cgroup with BPF.");
}

void manager_stall_guard_stop(struct manager *m, struct cgroup *cg,
                              const struct actuator_job *j, uint64_t now_usec) {
        const struct actuator_result *r = actuator_job_result_const(j);
        char sb[32], lb[32];
        char why[128];
        snprintf(why, sizeof why, "reclaim stall (tasks spent %s in reclaim during the job, "
                 "limit %s; %llu ns)", format_duration(sb, sizeof sb, r->stall_ns / 1000),
                 format_duration(lb, sizeof lb, actuator_job_limits(j).stall_limit_ns / 1000),
                 (unsigned long long) r->stall_ns);
        stop_cgroup(m, cg, why, (struct control_stop) {
                .reason = CONTROL_STOP_RECLAIM_STALL, .now_usec = now_usec, .n_stopped = 1,
                .stall_ns = r->stall_ns });
        m->counters.stall_guard_stops++;
}

static int read_refaults(uint64_t cgroup_id, uint64_t *ret_pages, void *userdata) {
        return refault_count_read(streams_refaults_map_fd(userdata), cgroup_id, ret_pages);
}

void manager_open_refault_guard(struct manager *m) {
        if (m->refault_guard || !m->event || !m->config.refault_guard)
                return;
        if (!m->streams) {
                if (!m->refault_guard_said)
                        log_notice("Refault guard unavailable: no BPF program counts the re-reads "
                                   "of evicted pages; PSI triggers alone stop reclaim.");
                m->refault_guard_said = true;
                return;
        }
        m->refault_guard = true;
        actuator_set_refault_source(m->actuator, &(struct actuator_refault_source) {
                .read = read_refaults, .userdata = m->streams });
        log_info("Refault guard: counting re-reads of evicted file pages per cgroup with BPF.");
}

void manager_refault_guard_stop(struct manager *m, struct cgroup *cg,
                                const struct actuator_job *j, uint64_t now_usec) {
        const struct actuator_result *r = actuator_job_result_const(j);
        uint64_t page_size = actuator_job_page_size(j);
        char rb[32], lb[32], ab[32];
        char why[192];
        snprintf(why, sizeof why, "refault burst (%s of evicted file pages read again during the "
                 "job, limit %s after %s asked; %llu pages back, %llu asked)",
                 format_bytes(rb, sizeof rb, r->refault_pages * page_size),
                 format_bytes(lb, sizeof lb, r->refault_limit_pages * page_size),
                 format_bytes(ab, sizeof ab, r->asked_bytes),
                 (unsigned long long) r->refault_pages,
                 (unsigned long long) (r->asked_bytes / page_size));
        stop_cgroup(m, cg, why, (struct control_stop) {
                .reason = CONTROL_STOP_REFAULT_BURST, .now_usec = now_usec, .n_stopped = 1,
                .refault_pages = r->refault_pages,
                .refault_limit_pages = r->refault_limit_pages });
        m->counters.refault_guard_stops++;
}
