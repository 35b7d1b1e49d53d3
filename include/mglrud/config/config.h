/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.h: mglrud.conf and its drop-ins. [Daemon] holds daemon keys, [Defaults] the policy
 * keys, and the other sections select cgroups and set policy keys for them:
 *
 *   [/path/glob]        cgroups whose path matches the glob
 *   [Container:RUNTIME] containers of a runtime (docker, podman, containerd, crio) or of any
 *                       ("*"), recognized by their cgroup path (kernel/container.h)
 *   [Pod:QOS]           Kubernetes pods of a QoS class (guaranteed, burstable, besteffort) or of
 *                       any ("*")
 *   [Policy:NAME]       matches no cgroup by itself: a container started with the annotation
 *                       io.mglrud.policy=NAME gets it (mglrud-oci-hook records the name on the
 *                       container's cgroup as the xattr user.mglrud.policy)
 *
 * A cgroup is managed when a section matches it (annotated keys alone never make it managed);
 * the keys of all matching sections apply over [Defaults], least specific first, so the most
 * specific section wins per key. From least to most specific:
 *
 *   1. path globs with a wildcard (among them: fewer wildcards, then more literal characters,
 *      then the later section; all globs that match one path have as many components)
 *   2. [Container:*], [Pod:*]
 *   3. [Container:RUNTIME], [Pod:QOS]
 *   4. path globs without a wildcard (one cgroup's exact path)
 *   5. [Policy:NAME] named by the container's annotation
 *   6. the container's annotated keys (io.mglrud.KEY=VALUE, xattrs user.mglrud.KEY), bounded
 *      by 1-5 (config_annotation_bound): they may only make the policy more careful
 *   (7. runtime overrides, mglructl set, applied by the core over all of this)
 *
 * Two exceptions to "the most specific wins", because 5 and 6 come from whoever could write
 * the cgroup's xattrs (man/mglrud.8, SECURITY): a path glob without a wildcard (4) that sets
 * Mode=off is final, 5 and 6 cannot change it; and an annotation counts only on a cgroup
 * directory [Daemon] CgroupAttributes= trusts (config_attributes_trusted).
 *
 * Globs are matched with fnmatch(FNM_PATHNAME): '*', '?' and '[...]' never cross a '/', so
 * "/system.slice/<star>" matches the direct children of system.slice only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mglrud/kernel/cgroup-xattr.h"
#include "mglrud/kernel/container.h"
#include "mglrud/policy/policy.h"

/* What a section selects cgroups by. */
enum section_match {
        SECTION_MATCH_PATH,      /* [/path/glob] */
        SECTION_MATCH_CONTAINER, /* [Container:RUNTIME] */
        SECTION_MATCH_POD,       /* [Pod:QOS] */
        SECTION_MATCH_POLICY,    /* [Policy:NAME] */
};

#define SECTION_SELECTOR_ANY (-1)
#define POLICY_NAME_MAX 64

struct policy_section {
        char *name;          /* as in the header: "/batch.slice/<star>", "Container:docker",
                              * "Pod:besteffort" (runtime and QoS in lower case), "Policy:batch" */
        enum section_match match;
        int selector;        /* CONTAINER: enum container_runtime, POD: enum qos_class, or
                              * SECTION_SELECTOR_ANY for "*"; unused otherwise */
        char *file;          /* where it was (last) defined */
        unsigned line;
        struct policy policy;
        uint32_t set_mask;   /* (1u << enum policy_key) for every key the section set */
        /* specificity of a path glob, computed from name (see the top of this file) */
        unsigned n_components;
        unsigned n_wildcards;
        unsigned n_literals;
};

/* A container's annotation as recorded on its cgroup (user.mglrud.* xattrs), checked. */
struct cgroup_annotation {
        char policy_name[POLICY_NAME_MAX + 1]; /* user.mglrud.policy, "" when absent */
        struct policy overrides;               /* user.mglrud.KEY values ... */
        uint32_t set_mask;                     /* ... for these keys (1u << enum policy_key) */
};

/* What sections match a cgroup by. */
struct cgroup_match {
        const char *path;                           /* "/system.slice/docker-<id>.scope" */
        const struct container_identity *container; /* NULL: not a container */
        const struct cgroup_annotation *annotation; /* NULL: none */
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
        DAEMON_KEY_STREAM_FAST_PATH,
        DAEMON_KEY_REFAULT_CHECK,
        DAEMON_KEY_PRESSURE_TRIGGERS,
        DAEMON_KEY_STALL_GUARD,
        DAEMON_KEY_REFAULT_GUARD,
        DAEMON_KEY_CGROUP_ATTRIBUTES,
        _DAEMON_KEY_MAX,
};

/* [Daemon] CgroupAttributes=: on which cgroup directories the user.mglrud.* xattrs count. */
enum cgroup_attributes {
        CGROUP_ATTRIBUTES_ROOT_OWNED, /* owned by root (or the daemon's own uid), no group or
                                       * other write bit: what a rootful runtime's hook wrote */
        CGROUP_ATTRIBUTES_DELEGATED,  /* also directories other users own (delegated subtrees,
                                       * rootless containers) */
        CGROUP_ATTRIBUTES_NO,         /* never */
        _CGROUP_ATTRIBUTES_MAX,
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
        bool stream_fast_path;       /* StreamFastPath= drop streams as they cross, between cycles */
        bool refault_check;          /* RefaultCheck= check the kernel's refault counts against
                                      * mglrud's own (docs/design.md) */
        bool pressure_triggers;      /* PressureTriggers= stop reclaim within a second of stalls */
        bool stall_guard;            /* StallGuard= end a job between chunks on reclaim stalls (BPF) */
        bool refault_guard;          /* RefaultGuard= end a job between chunks when the file pages
                                      * it evicts come back (BPF, the own refault count) */
        enum cgroup_attributes cgroup_attributes; /* CgroupAttributes= */

        uint32_t daemon_set_mask;    /* (1u << enum daemon_key) for every key a file set */

        struct policy defaults;      /* [Defaults] over the built-in defaults */
        uint32_t defaults_set_mask;  /* (1u << enum policy_key) for every key [Defaults] set */
        char *defaults_file;         /* where [Defaults] was last seen (NULL: never) */
        unsigned defaults_line;
        struct policy_section *sections; /* in order of first appearance */
        size_t n_sections, sections_cap;
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

/* Loads main_path (it must exist; an empty file gives the built-in defaults) and then
 * dropin_dir/\*.conf in name order (a missing dir is fine). Unknown keys and sections are
 * warned about. A file, the drop-in dir, a symlink to either or a directory holding one that
 * someone but root (or the running uid) could have written is refused (-EPERM, see
 * config_path_trusted). On error logs "file:line: key=value: reason"
 * (never the text of a line that is not Key=Value) and returns -EINVAL (or -errno), leaving ret
 * untouched, and the first error's text in *ret_error (malloc'ed) when ret_error is not NULL;
 * returns 0 on success. ret must be initialized (config_init or an earlier load): on success its
 * old contents are freed and replaced. Checks that MinColdAge <= MaxColdAge for [Defaults] and
 * for each section over [Defaults], after all files are read. */
int config_load(const char *main_path, const char *dropin_dir, struct config *ret,
                char **ret_error);

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

/* Computes the effective policy of the cgroup m describes: [Defaults], then every matching
 * section in increasing specificity (see the top of this file), then the annotation's keys
 * (taken as they are: config_annotation_bound bounds them first). An exact-path section's
 * Mode=off stays, whatever [Policy:NAME] or the annotation say. The root "/" matches only a
 * "[/]" section. When two sources combine into MinColdAge > MaxColdAge, the bound from the
 * more specific one is kept and the other is set equal to it. Returns the most specific
 * matching section, or NULL when none matches (*ret is then the defaults with the
 * annotation's keys). */
const struct policy_section *config_policy_for(const struct config *c, const struct cgroup_match *m,
                                               struct policy *ret);

/* Returns true when a cgroup with this effective policy and matching section (or NULL) is
 * managed: a section matched (a [Policy:NAME] the annotation names counts, annotated keys
 * alone do not) and Mode is not off. */
bool config_manages(const struct policy_section *s, const struct policy *p);

/* Returns the [Policy:NAME] section called name, or NULL. */
const struct policy_section *config_find_policy(const struct config *c, const char *name);

/* Called for every annotation entry that is refused or changed, with the reason (valid
 * during the call). */
typedef void (*annotation_refused_fn)(const char *key, const char *value, const char *reason,
                                      void *userdata);

/* Returns true when an annotation may set policy key k at all. Every key but Swappiness: it
 * moves reclaim between the swap device the host shares and the file cache, with no side
 * that is the careful one (a container can name a [Policy:NAME] that sets it). */
bool config_annotation_key_allowed(enum policy_key k);

/* Checks one annotation entry, key "policy" or a policy key name ("MinColdAge"), value as
 * written, and adds it to a: the policy name's syntax (policy_name_valid), or that the key is
 * allowed (config_annotation_key_allowed) and the value with config_parse_policy_key. Returns
 * 0, or -EINVAL with a static reason in *ret_reason (a is then unchanged). */
int config_annotation_add(struct cgroup_annotation *a, const char *key, const char *value,
                          const char **ret_reason);

/* Reads a cgroup's recorded annotation: each xattr through config_annotation_add (the hook
 * checked them already, but anything with write access to the cgroup may set xattrs), then
 * MinColdAge <= MaxColdAge when both are set. Refused entries are left out and passed to
 * refused (may be NULL). Returns the number refused; *ret is always written. */
int config_annotation_from_xattrs(const struct cgroup_xattrs *x, struct cgroup_annotation *ret,
                                  annotation_refused_fn refused, void *userdata);

/* Bounds the annotation a of the cgroup m describes (m->annotation is not read) by what the
 * configuration gives it without a's keys (its [Policy:NAME] counts: the administrator wrote
 * it): Mode may only go down (to off, to advise from another mode), StreamProtection too
 * (no < advise < yes); MinColdAge, MaxColdAge and Floor are raised to that value, MaxStep,
 * PressureTarget, RefaultTarget, ReclaimRatio and HighHeadroom lowered to it; a Mode=off exact-path section
 * drops every key. Each change is passed to note (may be NULL) with the value as recorded and
 * a reason naming the value used. Returns the number of keys changed or dropped. */
int config_annotation_bound(const struct config *c, const struct cgroup_match *m,
                            struct cgroup_annotation *a, annotation_refused_fn note,
                            void *userdata);

/* Returns true when CgroupAttributes=mode lets the user.mglrud.* xattrs of a cgroup directory
 * owned by owner_uid with permission bits dir_mode count, for a daemon running as self_uid
 * (root is trusted, and so is the daemon's own uid: a per-user instance, a test). root-owned:
 * a trusted owner and no group or other write bit (those could set xattrs too); delegated:
 * any directory; no: none. Otherwise writes a one-line reason ("owned by uid 1000,
 * CgroupAttributes=root-owned") to reason (size bytes). */
bool config_attributes_trusted(enum cgroup_attributes mode, unsigned owner_uid, unsigned dir_mode,
                               unsigned self_uid, char *reason, size_t size);
/* What a path of the configuration is, for config_path_trusted. */
enum config_path_kind {
        CONFIG_PATH_FILE,       /* a file read (what a symlink points to) */
        CONFIG_PATH_DROPIN_DIR, /* the drop-in directory: whoever may write it adds files */
        CONFIG_PATH_PARENT,     /* the directory holding a file or the drop-in directory */
        CONFIG_PATH_SYMLINK,    /* a symlink (its mode means nothing) */
};

/* Returns true when a path of this kind, owner and permission bits could have been written by
 * root or by self_uid only (the daemon's own uid: a per-user instance, tests on fixture
 * files): owned by one of them and, but for a symlink, writable by neither group nor others;
 * a sticky parent directory may be (others cannot rename or remove what they do not own, as
 * in /tmp). Otherwise writes a one-line reason to reason (size bytes): "owned by uid 1000,
 * not root (chown root)", "writable by everyone (mode 0666; chmod go-w)". */
bool config_path_trusted(enum config_path_kind kind, unsigned owner_uid, unsigned mode,
                         unsigned self_uid, char *reason, size_t size);

/* Returns "root-owned", "delegated", "no", or NULL. */
const char *cgroup_attributes_to_string(enum cgroup_attributes a);

/* Returns true when a carries anything (a policy name or a key). */
static inline bool cgroup_annotation_present(const struct cgroup_annotation *a) {
        return a && (a->policy_name[0] || a->set_mask);
}

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
/* Parses a section header name that selects cgroups ("/a/<star>", "Container:docker",
 * "Pod:BestEffort", "Policy:batch") into s->match, s->selector and the canonical s->name
 * (malloc'ed). Returns 0, -ENOMEM, or -EINVAL with a static reason in *ret_reason; -ENOENT
 * when name is none of these forms (an unknown section). */
int policy_section_parse_name(struct policy_section *s, const char *name,
                              const char **ret_reason);
/* Fills s->n_components, n_wildcards and n_literals from a path glob's s->name. */
void policy_section_compute_specificity(struct policy_section *s);
/* Compares the specificity of two sections of the same config (both point into c->sections:
 * the final tie-break is their position, the later one winning). Returns <0 when a is less
 * specific than b, >0 when more, 0 only when a == b. */
int policy_section_specificity_cmp(const struct policy_section *a, const struct policy_section *b);
