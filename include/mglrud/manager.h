/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager.h: the daemon's state: configuration, the managed cgroups (tracked by cgroup id), the
 * once-per-cycle lru_gen and host readings, the kernel capabilities, and one control cycle:
 * discover -> sample -> decide -> act -> report. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mglrud/actuator.h"
#include "mglrud/cgroup.h"
#include "mglrud/config.h"
#include "mglrud/fileio.h"
#include "mglrud/lrugen.h"
#include "mglrud/memcg.h"
#include "mglrud/policy.h"
#include "mglrud/psi.h"

/* Settings given on the command line; they win over the config file, also across reloads. */
struct manager_overrides {
        const char *cgroup_root, *debugfs_root, *proc_root;
        uint64_t interval_usec; /* 0 = from config */
        bool dry_run;           /* --dry-run forces advise everywhere */
};

struct manager_caps {
        bool lrugen_read;       /* lru_gen or lru_gen_full readable */
        bool lrugen_full;       /* reading lru_gen_full (tier counters available) */
        bool lrugen_write;      /* lru_gen opened for writing (no lockdown) */
        bool lrugen_enabled;    /* /sys/kernel/mm/lru_gen/enabled & 1 (or unknown: assumed) */
        bool swappiness_max;    /* "max" accepted by lru_gen and memory.reclaim */
        bool reclaim_swappiness;/* memory.reclaim takes swappiness= */
        bool has_swap;          /* SwapTotal > 0 */
        bool swap_compressed;   /* /proc/swaps lists only zram devices */
};

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

        int lrugen_read_fd, lrugen_write_fd;
        struct read_buf lrugen_buf;
        struct lrugen lrugen;
        bool lrugen_valid;          /* this cycle's parse succeeded */

        int host_psi_fd, meminfo_fd, swaps_fd;
        int inotify_fd;             /* watches every cgroup directory for mkdir/rmdir */
        bool inotify_full;          /* the watch limit was hit (logged once) */
        struct host_sample host_prev, host_cur; /* what policy_decide() takes, read once per cycle */
        bool has_host_prev;

        struct manager_caps caps;
        struct actuator *actuator;  /* writes off the event loop; NULL: run them inline (--once) */
        uint64_t cycles;
        uint64_t last_cycle_usec;   /* how long the last manager_cycle() took */
        bool paused_all;            /* Pause(""): sample every cgroup, act on none */
        FILE *advice_out;           /* where advice lines go in the foreground (stdout) */
        struct streams *streams;    /* one-shot stream protection; NULL without BPF */
        bool streams_tried;         /* streams_open() was attempted (and reported) */
};

/* Returns CLOCK_MONOTONIC in microseconds. */
uint64_t now_monotonic_usec(void);

/* Initializes m with defaults and the overrides; nothing is opened yet. */
void manager_init(struct manager *m, const struct manager_overrides *o, const char *config_file,
                  const char *dropin_dir);

/* Loads the configuration (keeping the old one on error), resolves the roots, opens the host
 * files and lru_gen, probes the kernel and discovers cgroups. Returns 0 or a negative errno. */
int manager_start(struct manager *m);

/* Reloads the configuration; on error the old one stays in force. Returns 0 or -errno. */
int manager_reload(struct manager *m);

/* Runs one control cycle at monotonic time now_usec. Returns 0, or a negative errno on a fatal
 * error (-ENOMEM); per-cgroup errors are logged and backed off, not returned. */
int manager_cycle(struct manager *m, uint64_t now_usec);

/* Returns the managed cgroup with this path, or NULL. */
struct cgroup *manager_find_path(const struct manager *m, const char *path);
/* Returns the managed cgroup with this cgroup id, or NULL. */
struct cgroup *manager_find(const struct manager *m, uint64_t id);

/* Releases everything. */
void manager_done(struct manager *m);

/* Returns the one-line summary for sd_notify STATUS= into buf. */
const char *manager_status(const struct manager *m, char *buf, size_t size);
