/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.h: mglrud.conf and its drop-ins. [Daemon] holds daemon keys, [Defaults] the policy
 * keys, and every section whose name starts with "/" is a cgroup path glob whose cgroups are
 * managed with the keys of all matching sections applied over [Defaults], least specific first
 * (so the most specific section wins per key).
 *
 * Globs are matched with fnmatch(FNM_PATHNAME): '*', '?' and '[...]' never cross a '/', so
 * "/system.slice/<star>" matches the direct children of system.slice only. Specificity: more path
 * components first, then fewer wildcards ('*', '?', one per '[...]'), then more literal
 * characters, then the section that appeared later (first appearance across all files). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mglrud/policy/policy.h"

struct policy_section {
        char *glob;          /* e.g. "/batch.slice/<star>" */
        char *file;          /* where it was (last) defined */
        unsigned line;
        struct policy policy;
        uint32_t set_mask;   /* (1u << enum policy_key) for every key the section set */
        /* specificity, computed from glob (see the top of this file) */
        unsigned n_components;
        unsigned n_wildcards;
        unsigned n_literals;
};

/* One bit per [Daemon] key, to know which ones a file set (for config_dump). */
enum daemon_key {
        DAEMON_KEY_INTERVAL,
        DAEMON_KEY_DRY_RUN,
        DAEMON_KEY_CGROUP_ROOT,
        DAEMON_KEY_DEBUGFS_ROOT,
        DAEMON_KEY_PROC_ROOT,
        DAEMON_KEY_LOG_LEVEL,
        DAEMON_KEY_HOST_PRESSURE_LIMIT,
        DAEMON_KEY_HOST_MIN_AVAILABLE,
        _DAEMON_KEY_MAX,
};

/* Built-in defaults and ranges (etc/mglrud.conf documents the same numbers; a unit test keeps
 * them in sync). */
#define CONFIG_DEFAULT_INTERVAL_USEC (10 * UINT64_C(1000000))
#define CONFIG_MIN_INTERVAL_USEC (1 * UINT64_C(1000000))
#define CONFIG_MAX_INTERVAL_USEC (3600 * UINT64_C(1000000))
#define CONFIG_DEFAULT_DEBUGFS_ROOT "/sys/kernel/debug"
#define CONFIG_DEFAULT_PROC_ROOT "/proc"
#define CONFIG_DEFAULT_HOST_PRESSURE_LIMIT 0.05
#define CONFIG_DEFAULT_HOST_MIN_AVAILABLE (UINT64_C(256) << 20)
#define CONFIG_MIN_COLD_AGE_USEC (1 * UINT64_C(1000000)) /* range of both cold ages */
#define CONFIG_MAX_COLD_AGE_USEC (86400 * UINT64_C(1000000))
#define CONFIG_MIN_MAX_STEP_BYTES UINT64_C(4096)

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

        uint32_t daemon_set_mask;    /* (1u << enum daemon_key) for every key a file set */

        struct policy defaults;      /* [Defaults] over the built-in defaults */
        uint32_t defaults_set_mask;  /* (1u << enum policy_key) for every key [Defaults] set */
        char *defaults_file;         /* where [Defaults] was last seen (NULL: never) */
        unsigned defaults_line;
        struct policy_section *sections; /* in order of first appearance */
        size_t n_sections;
};

/* Fills c with the built-in defaults (no sections). Allocates nothing: the default root paths
 * point to static strings, so this cannot fail. */
void config_init(struct config *c);
/* Frees c's allocations and resets it to the built-in defaults. */
void config_done(struct config *c);
/* Frees dst and moves src into it; src is left holding the built-in defaults (SIGHUP reload:
 * load into a temporary, then move it over the live config). */
void config_move(struct config *dst, struct config *src);
/* Deep-copies src into ret (ret is treated as uninitialized and written only on success).
 * Returns 0 or -ENOMEM. */
int config_copy(const struct config *src, struct config *ret);

/* Fills ret with the built-in default policy. */
void policy_init_defaults(struct policy *ret);

/* Lists, in load order, the files config_load would read: main_path if it exists, then the
 * regular files dropin_dir/\*.conf sorted by plain byte order (strcmp). Either argument may be
 * NULL. Returns 0 and a NULL-terminated array (free with config_files_free), or a negative
 * errno (a missing file or directory is not an error, unreadable ones are). */
int config_list_files(const char *main_path, const char *dropin_dir, char ***ret_files);
void config_files_free(char **files);

/* Loads main_path (missing is fine: built-in defaults) and then dropin_dir/\*.conf in name order
 * (missing dir is fine). Unknown keys and sections are warned about. On error logs "file:line:
 * key=value: reason" and returns -EINVAL (or -errno for I/O), leaving ret untouched; returns 0
 * on success. ret must be initialized (config_init or an earlier load): on success its old
 * contents are freed and replaced. Checks that MinColdAge <= MaxColdAge for [Defaults] and for
 * each section over [Defaults], after all files are read. */
int config_load(const char *main_path, const char *dropin_dir, struct config *ret);

/* One configuration file's text, for config_load_buffers. */
struct config_buffer {
        const char *filename; /* for messages and section locations */
        const char *text;     /* need not end in a NUL: a NUL inside a line is an error */
        size_t len;
};

/* Parses files[0..n) in order, as config_load parses the main file and its drop-ins (a section
 * seen again merges into the first), starting from the built-in defaults, without touching the
 * file system (tests and fuzzers). Same contract as config_load. */
int config_load_buffers(const struct config_buffer *files, size_t n, struct config *ret);

/* Parses one file's text as if read from filename (for tests), starting from the built-in
 * defaults. Same contract as config_load. */
int config_load_string(const char *text, const char *filename, struct config *c);

/* Computes the effective policy of a cgroup path ("/system.slice/foo.service"): [Defaults] with
 * all matching sections applied, least specific first. The root "/" matches only a "[/]"
 * section. When two sections combine into MinColdAge > MaxColdAge, the bound from the more
 * specific one is kept and the other is set equal to it. Returns the most specific matching
 * section, or NULL when none matches (the cgroup is not managed; *ret is then the defaults). */
const struct policy_section *config_policy_for(const struct config *c, const char *cgroup_path,
                                               struct policy *ret);

/* Parses value (non-empty) for policy key k into p, with the same checks as the config file.
 * Returns 0, or -EINVAL with a static one-line reason in *ret_reason ("invalid size"). */
int config_parse_policy_key(struct policy *p, enum policy_key k, const char *value,
                            const char **ret_reason);
/* Formats key k of p as the config file writes it ("64M", "2min", "0.1%"). Returns buf. */
const char *policy_key_format(char *buf, size_t size, const struct policy *p, enum policy_key k);
/* Returns "Interval" etc., or NULL. */
const char *daemon_key_to_string(enum daemon_key k);


/* Prints the effective daemon settings and every section's effective policy in config-file
 * syntax to f (mglrud --check-config). Each section shows [Defaults] with that section applied;
 * keys the section did not set carry "; from [Defaults]" or "; built-in default". The output
 * parses back to the same configuration. */
void config_dump(const struct config *c, FILE *f);

/* Helpers for sections (config-glob.c). */

/* Checks that glob is an absolute cgroup path glob: starts with '/', no empty, "." or ".."
 * component, no trailing '/' (except "/" itself). Returns 0 or -EINVAL. */
int cgroup_glob_validate(const char *glob);
/* Fills s->n_components, n_wildcards and n_literals from s->glob. */
void policy_section_compute_specificity(struct policy_section *s);
/* Compares the specificity of two sections of the same config (both point into c->sections:
 * the final tie-break is their position, the later one winning). Returns <0 when a is less
 * specific than b, >0 when more, 0 only when a == b. */
int policy_section_specificity_cmp(const struct policy_section *a, const struct policy_section *b);
