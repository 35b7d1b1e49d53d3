/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager.c: the daemon's lifecycle, reload and cycle (manager.h). What the cycle runs over
 * lives in the satellites it owns: discovery (manager-discovery.c), the host reader
 * (manager-host.c), the lru_gen source (manager-probe.c), stream protection's wiring
 * (stream-wiring.c), the brakes (brakes.c); the figures it shows in manager-stats.c. */
#include "mglrud/core/manager.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "manager-cycle-input.h"
#include "manager-headroom.h"
#include "mglrud/core/brakes.h"
#include "mglrud/core/control.h"
#include "mglrud/core/policy-pool.h"
#include "mglrud/core/reclaim-stall.h"
#include "mglrud/core/refault-trust.h"
#include "mglrud/core/stream-protection.h"
#include "mglrud/kernel/cgroupfs.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglrud/shared/time.h"

static int manager_run_fast_path(struct streams *s, uint64_t now_usec, void *userdata);

void manager_init(struct manager *m, const struct manager_overrides *o, const char *config_file,
                  const char *dropin_dir) {
        *m = (struct manager) { .overrides = *o };
        discovery_init(&m->discovery);
        lrugen_source_init(&m->lrugen);
        host_reader_init(&m->host);
        stream_wiring_init(&m->stream_wiring, NULL, manager_run_fast_path, m);
        config_init(&m->config);
        m->config_file = strdup(config_file);
        m->dropin_dir = strdup(dropin_dir);
}

void manager_done(struct manager *m) {
        /* First stop the writer: its completions refer to cgroups by id. */
        actuator_free(m->actuator);
        m->actuator = NULL;
        brakes_free(m->brakes); /* after the writer, which reads their sources */
        m->brakes = NULL;
        m->headroom_timer = sd_event_source_disable_unref(m->headroom_timer);
        discovery_done(&m->discovery);
        stream_wiring_done(&m->stream_wiring);
        lrugen_source_done(&m->lrugen);
        host_reader_done(&m->host);
        control_scratch_done(&m->scratch);
        config_done(&m->config);
        free(m->config_file);
        free(m->dropin_dir);
        free(m->cgroup_root);
        free(m->debugfs_root);
        free(m->proc_root);
        *m = (struct manager) {};
        lrugen_source_init(&m->lrugen);
        host_reader_init(&m->host);
        m->discovery.inotify_fd = -1;
}

static int set_string(char **dst, const char *src) {
        char *n = strdup(src);
        if (!n)
                return -ENOMEM;
        free(*dst);
        *dst = n;
        return 0;
}

/* Applies config and command line to the effective settings. Returns 0 or -errno. */
static int manager_apply_settings(struct manager *m) {
        const struct manager_overrides *o = &m->overrides;
        const struct config *c = &m->config;
        int r;

        m->dry_run = o->dry_run || c->dry_run;
        m->interval_usec = o->interval_usec ? o->interval_usec : c->interval_usec;
        log_set_max_level(c->log_level);

        if ((r = set_string(&m->debugfs_root, o->debugfs_root ? o->debugfs_root
                                                               : c->debugfs_root)) < 0 ||
            (r = set_string(&m->proc_root, o->proc_root ? o->proc_root : c->proc_root)) < 0)
                return r;

        const char *root = o->cgroup_root ? o->cgroup_root
                           : (c->cgroup_root && *c->cgroup_root) ? c->cgroup_root : NULL;
        if (root)
                return set_string(&m->cgroup_root, root);

        _cleanup_free_ char *found = NULL;
        r = cgroupfs_find_memory_root(&found);
        if (r < 0)
                return log_error_errno(r, "No cgroup v2 hierarchy with the memory controller is "
                                          "mounted; set CgroupRoot= or --cgroup-root.");
        free(m->cgroup_root);
        m->cgroup_root = TAKE_PTR(found);
        return 0;
}

/* The stream wiring's run of the fast path, on this moment's cycle input. */
static int manager_run_fast_path(struct streams *s, uint64_t now_usec, void *userdata) {
        struct manager *m = userdata;
        struct host_limits limits;
        struct cycle_input in;

        manager_cycle_input(m, now_usec, &limits, &in);
        return streams_fast(s, &in, m->discovery.cgroups, m->discovery.n_cgroups, m->actuator);
}

/* Loads or detaches stream protection as the configuration asks (kept loaded while the refault
 * guard reads its map: brakes_holds_streams()). */
static void manager_open_streams(struct manager *m) {
        stream_wiring_update(&m->stream_wiring, &m->config, brakes_holds_streams(m->brakes),
                             m->proc_root, &m->caps);
}

/* Returns the managed cgroups (the brakes' view of them, brake_env.cgroups). */
static struct cgroup *const *manager_brake_cgroups(void *owner, size_t *ret_n) {
        struct manager *m = owner;
        *ret_n = m->discovery.n_cgroups;
        return m->discovery.cgroups;
}

/* Returns what the brakes see of m now (brake.h). */
static struct brake_env manager_brake_env(struct manager *m) {
        return (struct brake_env) {
                .event = m->event, .config = &m->config, .proc_root = m->proc_root,
                .interval_usec = m->interval_usec, .dry_run = m->dry_run,
                .actuator = m->actuator, .streams = m->stream_wiring.streams,
                .cgroups = manager_brake_cgroups, .owner = m,
        };
}

/* Opens or re-opens the brakes for the configuration in force (start, reload). */
static void manager_open_brakes(struct manager *m) {
        struct brake_env env = manager_brake_env(m);
        brakes_open(m->brakes, &env);
}

/* The actuation path's completions: the job's cgroup (by id: it may be gone) measures it. */
static void manager_job_done(struct actuator_job *j, void *userdata) {
        struct manager *m = userdata;
        struct cgroup *cg = discovery_find(&m->discovery, actuator_job_cgroup_id(j));
        streams_job_done(m->stream_wiring.streams, j);
        brakes_job_done(m->brakes, cg, j, now_monotonic_usec());
        control_job_done(cg, j, &m->report);
}

/* Probes what the kernel offers (start; reload when dry-run changes). */
static void manager_probe(struct manager *m) {
        host_reader_probe(&m->host, m->proc_root, &m->caps);
        lrugen_source_probe_caps(&m->lrugen, m->debugfs_root, m->cgroup_root, m->dry_run,
                                 &m->caps);
}

/* Walks the tree (discovery_rescan()) with m's configuration and actuation path. */
static int manager_rescan(struct manager *m, uint64_t now_usec) {
        return discovery_rescan(&m->discovery, &m->config, m->cgroup_root, m->actuator, now_usec);
}

int manager_start(struct manager *m, sd_event *e) {
        m->event = e;
        m->stream_wiring.event = e;
        int r = config_load(m->config_file, m->dropin_dir, &m->config, NULL);
        if (r < 0)
                return r;
        r = manager_apply_settings(m);
        if (r < 0)
                return r;
        r = host_reader_open(&m->host, m->proc_root);
        if (r < 0)
                return r;
        lrugen_source_open(&m->lrugen, m->debugfs_root, m->dry_run, &m->caps);
        manager_probe(m);
        r = actuator_new(e, manager_job_done, m, &m->actuator);
        if (r < 0)
                return log_error_errno(r, "Cannot start the writer thread: %m");
        r = brakes_new(&m->brakes);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the brakes: %m");
        discovery_watch_start(&m->discovery);
        char ivl[32];
        format_duration(ivl, sizeof ivl, m->interval_usec);
        log_info("mglrud %s: cgroup root %s, %s, lru_gen %s%s, swap %s, interval %s.",
                 MGLRUD_VERSION, m->cgroup_root, m->dry_run ? "dry-run (advise only)" : "active",
                 m->lrugen.readable ? (m->lrugen.full ? "full" : "read") : "absent",
                 m->caps.lrugen_write ? "+write" : "",
                 !m->caps.has_swap ? "off" : m->caps.swap_compressed ? "on (zram)" : "on",
                 ivl);
        manager_open_streams(m);
        manager_open_brakes(m);
        manager_watch_headroom(m);
        m->discovery.rescan_needed = true;
        return 0;
}

int manager_reload(struct manager *m, char **ret_error) {
        struct config c;
        config_init(&c);
        int r = config_load(m->config_file, m->dropin_dir, &c, ret_error);
        if (r < 0) {
                config_done(&c);
                return log_error_errno(r, "Reload failed, keeping the previous configuration.");
        }
        config_move(&m->config, &c);
        /* The cgroups' sections pointed into the old configuration: none until the rescan
         * below (or the next cycle's, if it fails) finds the new ones. */
        discovery_forget_sections(&m->discovery);
        bool was_dry_run = m->dry_run;
        r = manager_apply_settings(m);
        /* DryRun= turned on: the writes decided before it must not happen either. */
        if (m->dry_run)
                actuator_report_only(m->actuator);
        if (r < 0)
                return r;
        lrugen_source_open(&m->lrugen, m->debugfs_root, m->dry_run, &m->caps);
        /* In dry-run the capabilities were inferred, not probed: probe them now that we
         * write (and infer again, without writing, when dry-run starts). */
        if (was_dry_run != m->dry_run)
                manager_probe(m);
        manager_open_streams(m);
        manager_open_brakes(m);
        m->discovery.rescan_needed = true;
        /* Rescan now, so that bus calls before the next cycle see the new policies (and the
         * runtime overrides re-applied over them). */
        r = manager_rescan(m, now_monotonic_usec());
        if (r == -ENOMEM)
                return r;
        log_info("Configuration reloaded.");
        return 0;
}

int manager_cycle(struct manager *m, uint64_t now_usec) {
        struct discovery *d = &m->discovery;
        int r;

        if (discovery_rescan_due(d, now_usec)) {
                r = manager_rescan(m, now_usec);
                if (r == -ENOMEM)
                        return r;
                /* swapon/swapoff are rare: checked with the tree, not every cycle. */
                host_reader_read_swaps(&m->host, m->proc_root, &m->caps);
        }

        host_reader_read(&m->host, m->proc_root, now_usec, m->cycles > 0, &m->caps);
        lrugen_source_read(&m->lrugen, m->debugfs_root, m->cgroup_root);
        host_reader_update_idle(&m->host, lrugen_source_histogram(&m->lrugen), m->caps.page_size,
                                now_usec);

        struct host_limits limits;
        struct cycle_input in;
        manager_cycle_input(m, now_usec, &limits, &in);
        for (size_t i = 0; i < d->n_cgroups; i++) {
                struct cgroup *cg = d->cgroups[i];
                r = control_cgroup_cycle(cg, &in, m->actuator);
                if (r == -ENOMEM)
                        return r;
                if (cg->vanished) {
                        log_debug("Cgroup %s vanished.", cg->name);
                        d->rescan_needed = true;
                }
        }
        r = streams_cycle(m->stream_wiring.streams, &in, d->cgroups, d->n_cgroups, m->actuator);
        if (r == -ENOMEM)
                return r;
        struct brake_env env = manager_brake_env(m);
        brakes_cycle(m->brakes, &env, d->cgroups, d->n_cgroups, now_usec);
        m->cycles++;
        uint64_t end = now_monotonic_usec();
        manager_headroom_cycle_done(m, end);
        m->last_cycle_usec = end > now_usec ? end - now_usec : 0;
        return 0;
}

int manager_set_override(struct manager *m, struct cgroup *cg, enum policy_key k,
                         const char *value, const char **ret_reason) {
        struct policy base;
        const struct cgroup_match match = { .path = cg->path, .container = cg->container,
                                            .annotation = cg->annotation };
        (void) config_policy_for(&m->config, &match, &base);
        /* (A cgroup exists only after a rescan that made the policies.) */
        return control_cgroup_set_override(cg, m->discovery.policies, &base, k, value,
                                           ret_reason);
}

int manager_advise(struct manager *m, struct cgroup *cg, uint64_t now_usec, char *buf,
                   size_t size) {
        struct host_limits limits;
        struct cycle_input in;
        manager_cycle_input(m, now_usec, &limits, &in);
        return control_cgroup_advise(cg, &in, buf, size);
}

struct cgroup *manager_find_path(const struct manager *m, const char *path) {
        return discovery_find_path(&m->discovery, path);
}

struct cgroup *const *manager_cgroups(const struct manager *m, size_t *ret_n) {
        *ret_n = m->discovery.n_cgroups;
        return m->discovery.cgroups;
}

size_t manager_n_cgroups(const struct manager *m) {
        return m->discovery.n_cgroups;
}

const struct host_idle *manager_host_idle(const struct manager *m) {
        return &m->host.idle;
}

uint64_t manager_cycles(const struct manager *m) {
        return m->cycles;
}

const char *manager_cgroup_root(const struct manager *m) {
        return m->cgroup_root;
}

uint64_t manager_interval_usec(const struct manager *m) {
        return m->interval_usec;
}

uint64_t manager_write_age_usec(const struct manager *m, uint64_t now_usec) {
        return actuator_write_age_usec(m->actuator, now_usec);
}

void manager_set_report(struct manager *m, struct report_sink sink) {
        m->report = sink;
}

int manager_pause_all(struct manager *m, bool paused) {
        struct discovery *d = &m->discovery;
        int r;

        m->paused_all = paused;
        for (size_t i = 0; !paused && i < d->n_cgroups; i++)
                if ((r = control_cgroup_set_paused(d->cgroups[i], false)) < 0)
                        return r;
        return 0;
}

void manager_want_idle_profile(struct manager *m) {
        if (m->idle_profile)
                return;
        m->idle_profile = true;
        m->idle_profile_cycle = m->cycles;
        log_info("Idle-age profiles asked for: every managed cgroup keeps one from the next "
                 "cycle on.");
}

bool manager_idle_profile_ready(const struct manager *m) {
        return m->idle_profile && m->cycles > m->idle_profile_cycle;
}
