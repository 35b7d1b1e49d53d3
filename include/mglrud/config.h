/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.h: mglrud.conf and its drop-ins. [Daemon] holds daemon keys, [Defaults] the policy
 * keys, and every section whose name starts with "/" is a cgroup path glob whose cgroups are
 * managed with the keys of all matching sections applied over [Defaults], least specific first
 * (so the most specific section wins per key). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum policy_mode {
        POLICY_MODE_ACTIVE,   /* drive lru_gen ageing/eviction (memory.reclaim without lru_gen) */
        POLICY_MODE_ADVISE,   /* compute and report, never write */
        POLICY_MODE_PRESSURE, /* memory.reclaim with the TMO law only */
        POLICY_MODE_OFF,      /* not managed */
        _POLICY_MODE_MAX,
};

#define SWAPPINESS_ANON_ONLY 201 /* "max" */
#define SWAPPINESS_AUTO (-1)

struct policy {
        enum policy_mode mode;
        uint64_t min_cold_age_usec;  /* MinColdAge= lower bound of the cold threshold T */
        uint64_t max_cold_age_usec;  /* MaxColdAge= upper bound of T */
        double pressure_target;      /* PressureTarget= PSI some share that stops reclaim */
        double refault_target;       /* RefaultTarget= refaults per minute / working set */
        int swappiness;              /* Swappiness= 0..200, SWAPPINESS_ANON_ONLY, SWAPPINESS_AUTO */
        uint64_t floor_bytes;        /* Floor= never reclaim below this */
        uint64_t max_step_bytes;     /* MaxStep= at most this much per cycle */
        double reclaim_ratio;        /* ReclaimRatio= TMO step: share of memory.current per cycle */
};

/* One bit per policy key, to know which keys a section set. */
enum policy_key {
        POLICY_KEY_MODE,
        POLICY_KEY_MIN_COLD_AGE,
        POLICY_KEY_MAX_COLD_AGE,
        POLICY_KEY_PRESSURE_TARGET,
        POLICY_KEY_REFAULT_TARGET,
        POLICY_KEY_SWAPPINESS,
        POLICY_KEY_FLOOR,
        POLICY_KEY_MAX_STEP,
        POLICY_KEY_RECLAIM_RATIO,
        _POLICY_KEY_MAX,
};

struct policy_section {
        char *glob;          /* "/batch.slice/*" */
        char *file;          /* where it was (last) defined */
        unsigned line;
        struct policy policy;
        uint32_t set_mask;   /* (1u << enum policy_key) for every key the section set */
};

struct config {
        /* [Daemon] */
        uint64_t interval_usec;      /* Interval= */
        bool dry_run;                /* DryRun= */
        char *cgroup_root;           /* CgroupRoot= (default: cgroup2 mount found by libcgroup) */
        char *debugfs_root;          /* DebugfsRoot= (default /sys/kernel/debug) */
        char *proc_root;             /* ProcRoot= (default /proc) */
        int log_level;               /* LogLevel= syslog level */
        double host_full_limit;      /* HostPressureLimit= host PSI full share that pauses all */
        uint64_t host_min_available; /* HostMinAvailable= MemAvailable floor that pauses all */

        struct policy defaults;      /* [Defaults] over the built-in defaults */
        struct policy_section *sections; /* in order of first appearance */
        size_t n_sections;
};

/* Fills c with the built-in defaults (no sections). */
void config_init(struct config *c);
/* Frees c's allocations and resets it to the built-in defaults. */
void config_done(struct config *c);

/* Loads main_path (missing is fine: built-in defaults) and then dropin_dir/\*.conf in name order
 * (missing dir is fine). Unknown keys and sections are warned about. On error logs "file:line:
 * key=value: reason" and returns -EINVAL (or -errno for I/O), leaving ret untouched; returns 0
 * on success. */
int config_load(const char *main_path, const char *dropin_dir, struct config *ret);

/* Parses one file's text as if read from filename (for tests). Same contract as config_load. */
int config_load_string(const char *text, const char *filename, struct config *c);

/* Computes the effective policy of a cgroup path ("/system.slice/foo.service"): [Defaults] with
 * all matching sections applied, least specific first. Returns the most specific matching
 * section, or NULL when none matches (the cgroup is not managed; *ret is then the defaults). */
const struct policy_section *config_policy_for(const struct config *c, const char *cgroup_path,
                                               struct policy *ret);

/* Returns "active" etc., or NULL. */
const char *policy_mode_to_string(enum policy_mode m);
/* Returns the enum, or -EINVAL. */
int policy_mode_from_string(const char *s);

/* Prints the effective daemon settings and every section's effective policy in config-file
 * syntax to f (mglrud --check-config). */
void config_dump(const struct config *c, FILE *f);
