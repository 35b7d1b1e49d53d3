/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager.h: the daemon's state and its cycle: configuration, the managed cgroups (tracked by
 * cgroup id), the once-per-cycle lru_gen and host readings, the kernel capabilities, the
 * actuation path, and one control cycle: discover -> sample -> decide -> act -> report. The
 * manager owns the cycle and hands each piece below it an explicit per-cycle input (cycle.h)
 * and the actuation handle; nothing below it reaches back. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-event.h>

#include "mglrud/config/config.h"
#include "mglrud/core/actuator.h"
#include "mglrud/core/cgroup-attributes.h"
#include "mglrud/core/cgroup.h"
#include "mglrud/core/control.h"
#include "mglrud/core/counters.h"
#include "mglrud/core/cycle.h"
#include "mglrud/core/discovery.h"
#include "mglrud/core/host-reader.h"
#include "mglrud/core/lrugen-source.h"
#include "mglrud/core/policy-pool.h"
#include "mglrud/core/stream-protection.h"
#include "mglrud/core/stream-wiring.h"
#include "mglrud/kernel/lrugen.h"
#include "mglrud/kernel/memcg.h"
#include "mglrud/kernel/psi.h"
#include "mglrud/policy/idle-profile.h"
#include "mglrud/policy/policy.h"
#include "mglrud/shared/fileio.h"

/* Settings given on the command line; they win over the config file, also across reloads. */
struct manager_overrides {
        const char *cgroup_root, *debugfs_root, *proc_root;
        uint64_t interval_usec; /* 0 = from config */
        bool dry_run;           /* --dry-run forces advise everywhere */
};

struct brakes;

struct manager {
        struct config config;
        char *config_file, *dropin_dir;
        struct manager_overrides overrides;

        char *cgroup_root;          /* effective roots */
        char *debugfs_root;
        char *proc_root;
        uint64_t interval_usec;
        bool dry_run;

        struct discovery discovery; /* the managed cgroups, sorted by id, and their policies */
        struct lrugen_source lrugen; /* lru_gen's files and this cycle's histogram */
        struct host_reader host;    /* the host's files, sample and idle-age profile */
        struct stream_wiring stream_wiring; /* stream protection on the event loop */

        struct kernel_caps caps;    /* what the policy gets (writes, swappiness, swap, page size) */
        struct actuator *actuator;  /* the actuation path (threaded with an event loop) */
        struct report_sink report;  /* where actions and advice go (set by the program) */
        uint64_t cycles;
        uint64_t last_cycle_usec;   /* how long the last manager_cycle() took */
        bool paused_all;            /* Pause(""): sample every cgroup, act on none */
        struct control_scratch scratch; /* working memory each cycle reuses for every cgroup */
        sd_event *event;            /* the event loop (NULL: --once) */
        sd_event_source *headroom_timer; /* HighHeadroom= between cycles (manager-headroom.c) */
        bool idle_profile;          /* the cgroups' profiles were asked for: each keeps its
                                     * idle-age state from then on (manager_want_idle_profile()) */
        uint64_t idle_profile_cycle; /* cycles when they were */

        struct brakes *brakes;      /* the PSI triggers, the stall and refault guards (brakes.h):
                                     * their state, their stops, their counters */
};

/* Daemon-wide figures that go with the per-cgroup snapshots (metrics, dump). */
struct daemon_stats {
        /* The counters (counters.h): cycles, cgroups, the interval and the last cycle's
         * duration, dry-run and the global pause, the brakes' status and stops. */
#define COUNTER_FIELD_(field, type, ...) type field;
        DAEMON_COUNTERS(COUNTER_FIELD_)
#undef COUNTER_FIELD_
        struct actuator_stats actuation;
        struct streams_stats streams; /* stream protection's fast path */
        const struct host_idle *host_idle;
};

/* Initializes m with defaults and the overrides; nothing is opened yet. Reports go nowhere
 * until the program sets them (manager_set_report()). */
void manager_init(struct manager *m, const struct manager_overrides *o, const char *config_file,
                  const char *dropin_dir);

/* Loads the configuration, resolves the roots, opens the host files and lru_gen, probes the
 * kernel, starts the actuation path (a writer thread on event loop e, or inline when e is NULL)
 * and prepares the discovery of cgroups. Returns 0 or a negative errno. */
int manager_start(struct manager *m, sd_event *e);

/* Reloads the configuration; on error the old one stays in force, and *ret_error (when not
 * NULL) may get the first error's text (malloc'ed: "file:line: key=value: reason"). Returns 0
 * or -errno. */
int manager_reload(struct manager *m, char **ret_error);

/* Runs one control cycle at monotonic time now_usec. Returns 0, or a negative errno on a fatal
 * error (-ENOMEM); per-cgroup errors are logged and backed off, not returned. */
int manager_cycle(struct manager *m, uint64_t now_usec);

/* Sets (value non-empty) or removes the runtime override of policy key k for cg over the
 * policy the configuration gives it (the bus Set() method; control_cgroup_set_override()).
 * Returns 0, -ENOMEM, or -EINVAL with a static reason in *ret_reason; nothing changes on
 * error. */
int manager_set_override(struct manager *m, struct cgroup *cg, enum policy_key k,
                         const char *value, const char **ret_reason);

/* Computes cg's advice now, without side effects (the bus Advise() method). Returns 0 or a
 * negative errno (-ENOENT: cg vanished); see control_cgroup_advise(). */
int manager_advise(struct manager *m, struct cgroup *cg, uint64_t now_usec, char *buf,
                   size_t size);

/* Returns the managed cgroup with this name (escape_path()) or raw path, or NULL. */
struct cgroup *manager_find_path(const struct manager *m, const char *path);

/* Returns the managed cgroups, sorted by id, and their number in *ret_n: valid until the next
 * cycle, reload or bus call that rescans. */
struct cgroup *const *manager_cgroups(const struct manager *m, size_t *ret_n);

/* Returns how many cgroups are managed. */
size_t manager_n_cgroups(const struct manager *m);

/* Returns the host's idle-age profile as of the last cycle. */
const struct host_idle *manager_host_idle(const struct manager *m);

/* Returns how many cycles have run (what a text rendered for one cycle is valid for). */
uint64_t manager_cycles(const struct manager *m);

/* Returns the effective cgroup root (valid until the next reload). */
const char *manager_cgroup_root(const struct manager *m);

/* Returns the effective interval between two cycles. */
uint64_t manager_interval_usec(const struct manager *m);

/* Returns how long the write in flight has taken at now_usec, or 0 with none (the watchdog:
 * actuator_write_age_usec()). */
uint64_t manager_write_age_usec(const struct manager *m, uint64_t now_usec);

/* Makes sink where actions and advice go from now on (journal records, or stdout for
 * --once). */
void manager_set_report(struct manager *m, struct report_sink sink);

/* Pause(""): with paused, every cgroup is sampled and none acted on; resumed, each cgroup's own
 * pause goes too (control_cgroup_set_paused()). Returns 0 or a negative errno. */
int manager_pause_all(struct manager *m, bool paused);

/* Turns the cgroups' idle-age profiles on (IdleProfile(), Metrics(), --once, --metrics-file):
 * from the next cycle on every managed cgroup keeps its idle-age state (control-idle.h), about
 * 550 bytes a cgroup that no one pays for until a profile is first asked for (the bus holds the
 * first calls until then: bus_server_cycle_done()). It stays on. */
void manager_want_idle_profile(struct manager *m);

/* Returns true when the cgroups' idle-age profiles are on and a cycle has kept them since: what
 * IdleProfile() and Metrics() show is then what it always was. */
bool manager_idle_profile_ready(const struct manager *m);

/* Takes the snapshot of cg, one of m's cgroups (control_cgroup_snapshot()), with the BPF stall
 * guard's reclaim time of cg when it is loaded. */
void manager_cgroup_snapshot(const struct manager *m, const struct cgroup *cg,
                             struct control_snapshot *ret);

/* Fills *ret with the daemon-wide figures (GetStatus(), and with the snapshots below). */
void manager_daemon_stats(const struct manager *m, struct daemon_stats *ret);

/* Takes the daemon stats and a snapshot of every managed cgroup (*ret_snaps is malloc'ed; it
 * borrows strings from m, see struct control_snapshot). Returns 0 or -ENOMEM. */
int manager_snapshots(const struct manager *m, struct daemon_stats *ret_stats,
                      struct control_snapshot **ret_snaps, size_t *ret_n);

/* Stops the actuation path (the chunk being written finishes) and releases everything. */
void manager_done(struct manager *m);

/* Returns the one-line summary for sd_notify STATUS= into buf. */
const char *manager_status(const struct manager *m, char *buf, size_t size);
