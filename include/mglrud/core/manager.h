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
#include "mglrud/core/policy-pool.h"
#include "mglrud/core/stream-protection.h"
#include "mglrud/kernel/lrugen.h"
#include "mglrud/kernel/memcg.h"
#include "mglrud/kernel/psi.h"
#include "mglrud/policy/idle-profile.h"
#include "mglrud/policy/policy.h"
#include "mglrud/shared/fileio.h"

/* Descriptors kept for everything but the managed cgroups' files: the bus (3 per connection,
 * interfaces/bus.c), queued writes (2 per job, ACTUATOR_MAX_QUEUED), pending stream drops
 * (STREAMS_MAX_FILES_PENDING), lru_gen, host files, inotify, BPF, the journal. */
#define MANAGER_FD_RESERVE 512

/* Memory files kept open across all managed cgroups. Each one read holds a kernel buffer of at
 * least a page, charged to mglrud's cgroup: 32,768 files are 128 MiB with 4 KiB pages, which
 * keeps every file of 4,681 cgroups open, the three read every cycle of up to 10,922, and beyond
 * that only the directories (the files are then opened for each read, about twice the CPU). */
#define MANAGER_KEPT_FILES_MAX 32768

/* Settings given on the command line; they win over the config file, also across reloads. */
struct manager_overrides {
        const char *cgroup_root, *debugfs_root, *proc_root;
        uint64_t interval_usec; /* 0 = from config */
        bool dry_run;           /* --dry-run forces advise everywhere */
};

/* A kernel file that failed to read or parse, said once (manager.c: note_host_file). */
struct file_trouble {
        bool active;
        int error;
        unsigned line;
};

struct manager_caps {
        struct kernel_caps kernel; /* what the policy gets (writes, swappiness, swap, page size) */
        bool lrugen_read;          /* lru_gen or lru_gen_full readable */
        bool lrugen_full;          /* reading lru_gen_full (tier counters available) */
};

/* What lru_gen's memcg ids are (manager-probe.c: learnt from the first histograms). */
enum lrugen_ids {
        LRUGEN_IDS_UNKNOWN,        /* not known yet: paths are kept */
        LRUGEN_IDS_CGROUP,         /* 7.x: cgroup ids; a cgroup is found by id, no path kept */
        LRUGEN_IDS_PRIVATE,        /* 6.x private ids: a cgroup is found by its path */
};

/* The host's idle-age profile, over every memcg's lruvecs in lru_gen (docs/design.md,
 * "Idle-age profile"), and /proc/meminfo's LRU lists for a kernel without lru_gen. */
struct host_idle {
        bool has_profile;
        struct idle_profile profile;
        bool has_lists;
        uint64_t active[_LRUGEN_NR_TYPES], inactive[_LRUGEN_NR_TYPES];
        uint64_t read_usec;         /* CLOCK_MONOTONIC of the reading; 0: none yet */
};

/* The daemon-wide counters the manager keeps (counters.h, source COUNT): the cgroups whose
 * reclaim a pressure trigger stopped, the jobs the stall guard and the refault guard ended. */
struct manager_counters {
#define MANAGER_COUNTER_COUNT(type, field) type field;
#define MANAGER_COUNTER_STATE(type, field)
#define MANAGER_COUNTER_(field, type, source, ...) MANAGER_COUNTER_##source(type, field)
        DAEMON_COUNTERS(MANAGER_COUNTER_)
};

struct reclaim_stall;

struct manager {
        struct config config;
        char *config_file, *dropin_dir;
        struct manager_overrides overrides;

        char *cgroup_root;          /* effective roots */
        char *debugfs_root;
        char *proc_root;
        uint64_t interval_usec;
        bool dry_run;

        struct cgroup **cgroups;    /* managed cgroups, sorted by id */
        size_t n_cgroups;
        bool rescan_needed;
        uint64_t last_rescan_usec;
        unsigned keep;              /* which files each cgroup keeps open (cgroup-files.h) */
        bool fd_short;              /* the descriptor limit does not fit every cgroup */
        struct attribute_notes attribute_notes; /* whose refused xattrs were logged */

        int lrugen_read_fd, lrugen_write_fd;
        int lrugen_enabled_fd;      /* /sys/kernel/mm/lru_gen/enabled, read each cycle */
        bool lrugen_off;            /* MGLRU switched off at run time: the fallback runs */
        struct read_buf lrugen_buf;
        struct lrugen lrugen;
        bool lrugen_valid;          /* this cycle's parse succeeded */
        enum lrugen_ids lrugen_ids;

        /* The cgroups' effective policies, one copy of each (policy-pool.h): replaced at each
         * rescan; runtime overrides add theirs until the next one. */
        struct policy_pool *policies;

        int host_psi_fd, meminfo_fd, swaps_fd;
        int inotify_fd;             /* watches every cgroup directory for mkdir/rmdir */
        bool inotify_full;          /* the watch limit was hit (logged once) */
        struct host_sample host_prev, host_cur; /* what policy_decide() takes, read once per cycle */
        bool has_host_prev;
        struct file_trouble host_psi_trouble, meminfo_trouble, lrugen_trouble;

        struct manager_caps caps;
        struct actuator *actuator;  /* the actuation path (threaded with an event loop) */
        struct report_sink report;  /* where actions and advice go (set by the program) */
        uint64_t cycles;
        uint64_t last_cycle_usec;   /* how long the last manager_cycle() took */
        bool paused_all;            /* Pause(""): sample every cgroup, act on none */
        struct control_scratch scratch; /* working memory each cycle reuses for every cgroup */
        struct streams *streams;    /* one-shot stream protection; NULL without BPF */
        bool streams_tried;         /* streams_open() was attempted (and reported) */
        sd_event *event;            /* the event loop (NULL: --once) */
        sd_event_source *streams_io;    /* stream crossings waiting (the fast path) */
        sd_event_source *streams_timer; /* the fast path's next run, when it must wait */
        sd_event_source *headroom_timer; /* HighHeadroom= between cycles (manager-headroom.c) */
        uint64_t streams_fast_usec;     /* when the fast path last ran */
        struct host_idle host_idle; /* the host's idle-age profile, updated each cycle */
        bool idle_profile;          /* the cgroups' profiles were asked for: each keeps its
                                     * idle-age state from then on (manager_want_idle_profile()) */
        uint64_t idle_profile_cycle; /* cycles when they were */

        struct pressure_trigger *host_trigger; /* /proc/pressure/memory, manager-triggers.c */
        uint64_t trigger_window_usec; /* 1 s, or 2 s when the kernel takes no less */
        bool triggers_unavailable;  /* the kernel takes no trigger (said once) */
        struct reclaim_stall *stall_guard; /* the BPF stall guard (manager-triggers.c), NULL
                                    * without BPF; once loaded it stays until manager_done():
                                    * the writer thread reads it without a lock */
        bool stall_guard_tried;     /* reclaim_stall_open() was attempted (and reported) */
        bool refault_guard;         /* the refault guard's source (stream protection's BPF map)
                                     * is set in the actuation path: from then on m->streams stays
                                     * loaded until manager_done(), the writer reads it */
        bool refault_guard_said;    /* said once that the refault guard is unavailable */
        struct manager_counters counters; /* the triggers' and the guards' stops, cumulative */
};

/* Daemon-wide figures that go with the per-cgroup snapshots (metrics, dump). */
struct daemon_stats {
        /* The counters (counters.h): cycles, cgroups, the interval and the last cycle's
         * duration, dry-run and the global pause, the triggers' and the guards' stops. */
#define COUNTER_FIELD_(field, type, ...) type field;
        DAEMON_COUNTERS(COUNTER_FIELD_)
#undef COUNTER_FIELD_
        struct actuator_stats actuation;
        struct streams_stats streams; /* stream protection's fast path */
        const struct host_idle *host_idle;
};

/* Initializes m with defaults and the overrides; nothing is opened yet. Reports go nowhere
 * until the program sets m->report. */
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
