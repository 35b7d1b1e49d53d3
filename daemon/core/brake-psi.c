/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The PSI triggers as a brake (brake.h; docs/design.md, "Pressure triggers"): while mglrud
 * reclaims in a cgroup, a trigger on its memory.pressure, and one on the host's while any is
 * armed. When one fires, the writes queued for the cgroup are cancelled, the one in flight ends
 * after its chunk, T goes up and the next decision reclaims nothing (brake_stop()). A host
 * trigger does the same for every cgroup mglrud reclaims in. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "mglrud/core/brake.h"
#include "mglrud/core/pressure-trigger.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/parse-util.h"

/* Triggers armed at once at most: each holds a descriptor (within MANAGER_FD_RESERVE) and a
 * kernel thread. Reclaim runs in few cgroups at a time (ACTUATOR_MAX_QUEUED jobs), so this is
 * a bound, not a budget. */
#define BRAKE_PSI_MAX_TRIGGERS 128

/* The brake's own state; each cgroup's trigger is its cg->trigger. */
struct psi_state {
        struct pressure_trigger *host_trigger; /* /proc/pressure/memory */
        uint64_t window_usec;   /* 1 s, or 2 s when the kernel takes no less */
        bool unavailable;       /* the kernel takes no trigger (said once) */
};

static struct psi_state *psi(struct brake *b) {
        return b->state;
}

/* Disarms every trigger. */
static void disarm_all(struct brake *b) {
        const struct brake_env *env = b->env;
        size_t n = 0;
        struct cgroup *const *cgroups = env->cgroups ? env->cgroups(env->owner, &n) : NULL;
        for (size_t i = 0; i < n; i++)
                pressure_trigger_disarm(&cgroups[i]->trigger);
        if (psi(b))
                pressure_trigger_disarm(&psi(b)->host_trigger);
}

static void on_cgroup_stall(struct pressure_trigger *t, uint64_t now_usec, void *userdata) {
        struct brake *b = userdata;
        const struct brake_env *env = b->env;
        struct cgroup *cg = NULL;
        size_t n = 0;
        struct cgroup *const *cgroups = env->cgroups(env->owner, &n);
        uint64_t stall = pressure_trigger_stall_usec(t);
        /* Found by its trigger: a firing is rare, and the cgroup keeps no pointer back. */
        for (size_t i = 0; i < n && !cg; i++)
                if (cgroups[i]->trigger == t)
                        cg = cgroups[i];
        if (!cg)
                return;
        /* It did its work: reclaim there is stopped until a decision resumes it, and the
         * kernel would fire again every window while the stall lasts. */
        pressure_trigger_disarm(&cg->trigger);
        char sb[32], wb[32];
        char why[96];
        snprintf(why, sizeof why, "memory pressure (tasks stalled %s within %s)",
                 format_duration(sb, sizeof sb, stall),
                 format_duration(wb, sizeof wb, psi(b)->window_usec));
        brake_stop(b, cg, why, (struct control_stop) {
                .reason = CONTROL_STOP_PRESSURE, .now_usec = now_usec });
}

static void on_host_stall(struct pressure_trigger *t, uint64_t now_usec, void *userdata) {
        struct brake *b = userdata;
        const struct brake_env *env = b->env;
        char sb[32], wb[32];
        char why[128];
        snprintf(why, sizeof why, "host memory pressure (all tasks stalled %s within %s)",
                 format_duration(sb, sizeof sb, pressure_trigger_stall_usec(t)),
                 format_duration(wb, sizeof wb, psi(b)->window_usec));
        uint64_t grace = 2 * env->interval_usec;
        size_t n = 0;
        struct cgroup *const *cgroups = env->cgroups(env->owner, &n);
        for (size_t i = 0; i < n; i++)
                if (control_cgroup_reclaiming(cgroups[i], now_usec, grace))
                        brake_stop(b, cgroups[i], why, (struct control_stop) {
                                .reason = CONTROL_STOP_PRESSURE, .now_usec = now_usec });
}

/* Says once why triggers are off; returns false when they cannot be used at all. */
static bool trigger_error(struct brake *b, int r, const char *what) {
        if (r == -ENOENT || r == -ENODEV)
                return true; /* the cgroup went away: the rescan drops it */
        if (r == -EOPNOTSUPP || r == -EACCES || r == -EPERM) {
                log_notice_errno(r, "Cannot register a PSI trigger on %s (%m): reclaim stops "
                                    "at the next cycle instead of within a second.", what);
                psi(b)->unavailable = true;
                disarm_all(b);
                return false;
        }
        log_warning_errno(r, "Cannot register a PSI trigger on %s: %m", what);
        return true;
}

/* Arms (or keeps) a trigger and says once when the kernel only took the unprivileged window. */
static int arm(struct brake *b, struct pressure_trigger **slot, int dirfd, const char *name,
               bool full, uint64_t stall_usec, pressure_trigger_fn fn) {
        struct psi_state *s = psi(b);
        uint64_t asked = s->window_usec;
        const struct pressure_threshold threshold = { .full = full, .stall_usec = stall_usec };
        int r = pressure_trigger_arm(slot, b->env->event, dirfd, name, &threshold,
                                     &s->window_usec, fn, b);
        if (r >= 0 && s->window_usec != asked)
                log_notice("PSI triggers take 2s windows only (no CAP_SYS_RESOURCE): reclaim "
                           "stops up to two seconds after a stall.");
        return r;
}

/* Arms the host's trigger while n_armed cgroup triggers are armed and HostPressureLimit= is a
 * share, and disarms it otherwise. */
static void arm_host(struct brake *b, unsigned n_armed) {
        const struct brake_env *env = b->env;
        double host_limit = env->config->host_full_limit;
        if (n_armed == 0 || !(host_limit > 0 && host_limit < 1)) {
                pressure_trigger_disarm(&psi(b)->host_trigger);
                return;
        }
        char path[512];
        snprintf(path, sizeof path, "%s/pressure/memory", env->proc_root);
        uint64_t stall = policy_trigger_stall_usec(host_limit, env->interval_usec,
                                                   psi(b)->window_usec);
        int r = arm(b, &psi(b)->host_trigger, AT_FDCWD, path, true, stall, on_host_stall);
        if (r < 0)
                trigger_error(b, r, path);
}

/* Arms a trigger on every cgroup mglrud reclaims in (control_cgroup_reclaiming() over two
 * intervals) and on the host while any is armed, and disarms the others: triggers cost the
 * kernel a polling thread per group. Nothing with PressureTriggers=no, dry-run or without an
 * event loop. Says once when the kernel takes no trigger (PSI off, too old). */
static void psi_cycle(struct brake *b, struct cgroup *const *cgroups, size_t n, uint64_t now_usec) {
        const struct brake_env *env = b->env;
        struct psi_state *s = psi(b);
        if (!s || !env->config->pressure_triggers || env->dry_run || !env->event ||
            s->unavailable) {
                disarm_all(b);
                return;
        }
        if (!s->window_usec)
                s->window_usec = PRESSURE_TRIGGER_WINDOW_USEC;

        uint64_t grace = 2 * env->interval_usec;
        unsigned n_armed = 0;
        for (size_t i = 0; i < n; i++) {
                struct cgroup *cg = cgroups[i];
                bool want = n_armed < BRAKE_PSI_MAX_TRIGGERS &&
                            (cg->files.present & (1u << CGROUP_FILE_PRESSURE)) && !cg->vanished &&
                            control_cgroup_reclaiming(cg, now_usec, grace);
                if (!want) {
                        pressure_trigger_disarm(&cg->trigger);
                        continue;
                }
                uint64_t stall = policy_trigger_stall_usec(cg->policy->pressure_target,
                                                           env->interval_usec, s->window_usec);
                int r = arm(b, &cg->trigger, cg->files.dirfd, "memory.pressure", false, stall,
                            on_cgroup_stall);
                if (r < 0 && !trigger_error(b, r, cg->name))
                        return;
                n_armed += r >= 0;
        }
        arm_host(b, n_armed);
}

static void psi_open(struct brake *b) {
        if (!b->state)
                b->state = calloc(1, sizeof(struct psi_state)); /* NULL: no triggers */
        b->enabled = b->env->config->pressure_triggers;
}

static void psi_close(struct brake *b) {
        disarm_all(b);
        free(b->state);
        b->state = NULL;
}

const struct brake_ops brake_psi = {
        .name = "pressure-trigger",
        .stops_counter = DAEMON_COUNTER_pressure_stops,
        .status_counter = _DAEMON_COUNTER_MAX,
        .open = psi_open,
        .cycle = psi_cycle,
        .close = psi_close,
};
