/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config-keys.c: the configuration's keys: names, built-in defaults, value parsers and the
 * lifetime of struct config. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "config-internal.h"
#include "mglrud/policy/headroom.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"


static const char *const daemon_key_names[_DAEMON_KEY_MAX] = {
        [DAEMON_KEY_INTERVAL] = "Interval",
        [DAEMON_KEY_DRY_RUN] = "DryRun",
        [DAEMON_KEY_CGROUP_ROOT] = "CgroupRoot",
        [DAEMON_KEY_DEBUGFS_ROOT] = "DebugfsRoot",
        [DAEMON_KEY_PROC_ROOT] = "ProcRoot",
        [DAEMON_KEY_LOG_LEVEL] = "LogLevel",
        [DAEMON_KEY_HOST_PRESSURE_LIMIT] = "HostPressureLimit",
        [DAEMON_KEY_HOST_MIN_AVAILABLE] = "HostMinAvailable",
        [DAEMON_KEY_STREAM_FAST_PATH] = "StreamFastPath",
        [DAEMON_KEY_REFAULT_CHECK] = "RefaultCheck",
        [DAEMON_KEY_PRESSURE_TRIGGERS] = "PressureTriggers",
        [DAEMON_KEY_STALL_GUARD] = "StallGuard",
        [DAEMON_KEY_REFAULT_GUARD] = "RefaultGuard",
        [DAEMON_KEY_CGROUP_ATTRIBUTES] = "CgroupAttributes",
};

static const char *const cgroup_attributes_names[_CGROUP_ATTRIBUTES_MAX] = {
        [CGROUP_ATTRIBUTES_ROOT_OWNED] = "root-owned",
        [CGROUP_ATTRIBUTES_DELEGATED] = "delegated",
        [CGROUP_ATTRIBUTES_NO] = "no",
};


/* config_init must not fail, so the default roots are static strings, never freed. */
static char default_debugfs_root[] = CONFIG_DEFAULT_DEBUGFS_ROOT;
static char default_proc_root[] = CONFIG_DEFAULT_PROC_ROOT;



const char *daemon_key_to_string(enum daemon_key k) {
        return k >= 0 && k < _DAEMON_KEY_MAX ? daemon_key_names[k] : NULL;
}

const char *cgroup_attributes_to_string(enum cgroup_attributes a) {
        return a >= 0 && a < _CGROUP_ATTRIBUTES_MAX ? cgroup_attributes_names[a] : NULL;
}

/* Returns the enum cgroup_attributes named s, or -EINVAL. */
static int cgroup_attributes_from_string(const char *s) {
        for (int i = 0; i < _CGROUP_ATTRIBUTES_MAX; i++)
                if (strcmp(cgroup_attributes_names[i], s) == 0)
                        return i;
        return -EINVAL;
}





void policy_init_defaults(struct policy *ret) {
        *ret = (struct policy) {
                .mode = POLICY_MODE_ACTIVE,
                .min_cold_age_usec = 2 * 60 * USEC_PER_SEC,
                .max_cold_age_usec = 20 * 60 * USEC_PER_SEC,
                .pressure_target = 0.001,
                .refault_target = 0.002,
                .swappiness = SWAPPINESS_AUTO,
                .floor_bytes = 0,
                .max_step_bytes = UINT64_C(64) << 20,
                .reclaim_ratio = 0.0005,
                .stream_protection = STREAM_PROTECTION_YES,
        };
}

void config_init(struct config *c) {
        *c = (struct config) {
                .interval_usec = CONFIG_DEFAULT_INTERVAL_USEC,
                .dry_run = false,
                .cgroup_root = NULL,
                .debugfs_root = default_debugfs_root,
                .proc_root = default_proc_root,
                .log_level = LOG_INFO,
                .host_full_limit = CONFIG_DEFAULT_HOST_PRESSURE_LIMIT,
                .host_min_available = CONFIG_DEFAULT_HOST_MIN_AVAILABLE,
                .stream_fast_path = true,
                .refault_check = true,
                .pressure_triggers = true,
                .stall_guard = true,
                .refault_guard = true,
                .cgroup_attributes = CGROUP_ATTRIBUTES_ROOT_OWNED,
        };
        policy_init_defaults(&c->defaults);
}

static void free_root(char *p) {
        if (p != default_debugfs_root && p != default_proc_root)
                free(p);
}

void config_done(struct config *c) {
        free(c->cgroup_root);
        free_root(c->debugfs_root);
        free_root(c->proc_root);
        free(c->defaults_file);
        for (size_t i = 0; i < c->n_sections; i++) {
                free(c->sections[i].name);
                free(c->sections[i].file);
        }
        free(c->sections);
        config_init(c);
}

void config_move(struct config *dst, struct config *src) {
        if (dst == src)
                return;
        config_done(dst);
        *dst = *src;
        config_init(src);
}

static int strdup_keep(const char *s, char *keep, char **ret) {
        if (!s || s == keep) {
                *ret = (char *) s;
                return 0;
        }
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

int config_copy(const struct config *src, struct config *ret) {
        struct config c = *src;

        /* Null out every pointer first so config_done() is safe on a partial copy. */
        c.cgroup_root = c.defaults_file = NULL;
        c.debugfs_root = default_debugfs_root;
        c.proc_root = default_proc_root;
        c.sections = NULL;
        c.n_sections = c.sections_cap = 0;

        if (strdup_keep(src->cgroup_root, NULL, &c.cgroup_root) < 0 ||
            strdup_keep(src->debugfs_root, default_debugfs_root, &c.debugfs_root) < 0 ||
            strdup_keep(src->proc_root, default_proc_root, &c.proc_root) < 0 ||
            strdup_keep(src->defaults_file, NULL, &c.defaults_file) < 0)
                goto oom;
        if (src->n_sections > 0) {
                c.sections = calloc(src->n_sections, sizeof *c.sections);
                if (!c.sections)
                        goto oom;
                c.sections_cap = src->n_sections;
                for (size_t i = 0; i < src->n_sections; i++) {
                        struct policy_section *s = &c.sections[i];
                        *s = src->sections[i];
                        s->name = strdup(src->sections[i].name);
                        s->file = src->sections[i].file ? strdup(src->sections[i].file) : NULL;
                        c.n_sections++;
                        if (!s->name || (src->sections[i].file && !s->file))
                                goto oom;
                }
        }
        *ret = c;
        return 0;
oom:
        config_done(&c);
        return -ENOMEM;
}

/* Sets the reason a value was rejected. Returns -EINVAL. */
static int fail(const char **ret_reason, const char *reason) {
        *ret_reason = reason;
        return -EINVAL;
}

static int assign_root(char **field, char *keep, const char *value) {
        char *n = NULL;

        if (*value) {
                n = strdup(value);
                if (!n)
                        return -ENOMEM;
        }
        if (*field != keep)
                free(*field);
        *field = n ?: keep;
        return 0;
}

/* Returns the field of [Daemon] boolean key k in c, or NULL when k is not a boolean. */
static bool *daemon_bool_field(struct config *c, enum daemon_key k) {
        switch (k) {
        case DAEMON_KEY_DRY_RUN: return &c->dry_run;
        case DAEMON_KEY_STREAM_FAST_PATH: return &c->stream_fast_path;
        case DAEMON_KEY_REFAULT_CHECK: return &c->refault_check;
        case DAEMON_KEY_PRESSURE_TRIGGERS: return &c->pressure_triggers;
        case DAEMON_KEY_STALL_GUARD: return &c->stall_guard;
        case DAEMON_KEY_REFAULT_GUARD: return &c->refault_guard;
        default: return NULL;
        }
}

/* Sets [Daemon] key k of c back to its built-in default (an empty assignment, as in systemd
 * units; the roots have their own: assign_root()). */
static void daemon_key_reset(struct config *c, enum daemon_key k) {
        struct config def;
        config_init(&def);
        bool *b = daemon_bool_field(c, k);
        if (b)
                *b = *daemon_bool_field(&def, k);
        else if (k == DAEMON_KEY_INTERVAL)
                c->interval_usec = def.interval_usec;
        else if (k == DAEMON_KEY_LOG_LEVEL)
                c->log_level = def.log_level;
        else if (k == DAEMON_KEY_HOST_PRESSURE_LIMIT)
                c->host_full_limit = def.host_full_limit;
        else if (k == DAEMON_KEY_HOST_MIN_AVAILABLE)
                c->host_min_available = def.host_min_available;
        else if (k == DAEMON_KEY_CGROUP_ATTRIBUTES)
                c->cgroup_attributes = def.cgroup_attributes;
        c->daemon_set_mask &= ~(1u << k);
}

/* CgroupRoot=, DebugfsRoot=, ProcRoot=: an absolute path, or empty for the default. Returns 0,
 * -ENOMEM, or -EINVAL with the reason. */
static int parse_daemon_root(struct config *c, enum daemon_key k, const char *value,
                             const char **ret_reason) {
        if (*value && value[0] != '/')
                return fail(ret_reason, "not an absolute path");
        int r = k == DAEMON_KEY_CGROUP_ROOT  ? assign_root(&c->cgroup_root, NULL, value) :
                k == DAEMON_KEY_DEBUGFS_ROOT ? assign_root(&c->debugfs_root,
                                                           default_debugfs_root, value) :
                                               assign_root(&c->proc_root, default_proc_root, value);
        if (r < 0)
                return r;
        if (*value)
                c->daemon_set_mask |= 1u << k;
        else
                c->daemon_set_mask &= ~(1u << k);
        return 0;
}

int config_parse_daemon_key(struct config *c, enum daemon_key k, const char *value,
                            const char **ret_reason) {
        bool *b = daemon_bool_field(c, k);
        uint64_t u;
        double d;
        int r;

        if (k == DAEMON_KEY_CGROUP_ROOT || k == DAEMON_KEY_DEBUGFS_ROOT ||
            k == DAEMON_KEY_PROC_ROOT)
                return parse_daemon_root(c, k, value, ret_reason);
        if (!*value) {
                daemon_key_reset(c, k);
                return 0;
        }
        if (b) {
                r = parse_boolean(value);
                if (r < 0)
                        return fail(ret_reason, "invalid boolean");
                *b = r;
        } else if (k == DAEMON_KEY_INTERVAL) {
                if (parse_duration(value, &u) < 0)
                        return fail(ret_reason, "invalid duration");
                if (u < CONFIG_MIN_INTERVAL_USEC || u > CONFIG_MAX_INTERVAL_USEC)
                        return fail(ret_reason, "must be between 1s and 1h");
                c->interval_usec = u;
        } else if (k == DAEMON_KEY_LOG_LEVEL) {
                r = log_level_from_string(value);
                if (r < LOG_ERR || r > LOG_DEBUG)
                        return fail(ret_reason, "expected err, warning, notice, info or debug");
                c->log_level = r;
        } else if (k == DAEMON_KEY_HOST_PRESSURE_LIMIT) {
                if (parse_percent(value, &d) < 0)
                        return fail(ret_reason, "invalid percentage (0%..100%)");
                c->host_full_limit = d;
        } else if (k == DAEMON_KEY_HOST_MIN_AVAILABLE) {
                if (parse_size(value, &u) < 0)
                        return fail(ret_reason, "invalid size");
                c->host_min_available = u;
        } else if (k == DAEMON_KEY_CGROUP_ATTRIBUTES) {
                r = cgroup_attributes_from_string(value);
                if (r < 0)
                        return fail(ret_reason, "expected root-owned, delegated or no");
                c->cgroup_attributes = r;
        } else
                return 0; /* _DAEMON_KEY_MAX */
        c->daemon_set_mask |= 1u << k;
        return 0;
}

int config_parse_policy_key(struct policy *p, enum policy_key k, const char *value,
                            const char **ret_reason) {
        uint64_t u;
        double d;
        int r;

        switch (k) {
        case POLICY_KEY_MODE:
                r = policy_mode_from_string(value);
                if (r < 0)
                        return fail(ret_reason, "expected active, advise, pressure or off");
                p->mode = r;
                break;
        case POLICY_KEY_MIN_COLD_AGE:
        case POLICY_KEY_MAX_COLD_AGE:
                if (parse_duration(value, &u) < 0)
                        return fail(ret_reason, "invalid duration");
                if (u < CONFIG_MIN_COLD_AGE_USEC || u > CONFIG_MAX_COLD_AGE_USEC)
                        return fail(ret_reason, "must be between 1s and 1d");
                if (k == POLICY_KEY_MIN_COLD_AGE)
                        p->min_cold_age_usec = u;
                else
                        p->max_cold_age_usec = u;
                break;
        case POLICY_KEY_PRESSURE_TARGET:
        case POLICY_KEY_REFAULT_TARGET:
        case POLICY_KEY_RECLAIM_RATIO:
                if (parse_percent(value, &d) < 0)
                        return fail(ret_reason, "invalid percentage (0%..100%)");
                if (k == POLICY_KEY_RECLAIM_RATIO && d <= 0)
                        return fail(ret_reason,
                                    "must be above 0 (use Mode= to stop reclaim)");
                *(k == POLICY_KEY_PRESSURE_TARGET  ? &p->pressure_target :
                  k == POLICY_KEY_REFAULT_TARGET ? &p->refault_target :
                                                   &p->reclaim_ratio) = d;
                break;
        case POLICY_KEY_SWAPPINESS:
                if (strcmp(value, "auto") == 0)
                        p->swappiness = SWAPPINESS_AUTO;
                else if (strcmp(value, "max") == 0)
                        p->swappiness = SWAPPINESS_ANON_ONLY;
                else if (parse_u64(value, &u) < 0 || u > 200)
                        return fail(ret_reason, "expected 0..200, max or auto");
                else
                        p->swappiness = (int) u;
                break;
        case POLICY_KEY_FLOOR:
        case POLICY_KEY_MAX_STEP:
                if (parse_size(value, &u) < 0)
                        return fail(ret_reason, "invalid size");
                if (k == POLICY_KEY_MAX_STEP && u < CONFIG_MIN_MAX_STEP_BYTES)
                        return fail(ret_reason,
                                    "must be at least 4K (use Mode= to stop reclaim)");
                *(k == POLICY_KEY_FLOOR ? &p->floor_bytes : &p->max_step_bytes) = u;
                break;
        case POLICY_KEY_HIGH_HEADROOM:
                if (parse_percent(value, &d) < 0)
                        return fail(ret_reason, "invalid percentage (0% for off, up to 50%)");
                if (d > HEADROOM_MAX)
                        return fail(ret_reason, "must be at most 50% of the limit (0% for off)");
                p->high_headroom = d;
                break;
        case POLICY_KEY_STREAM_PROTECTION:
                if (strcmp(value, "advise") == 0)
                        p->stream_protection = STREAM_PROTECTION_ADVISE;
                else if ((r = parse_boolean(value)) < 0)
                        return fail(ret_reason, "expected yes, no or advise");
                else
                        p->stream_protection = r ? STREAM_PROTECTION_YES : STREAM_PROTECTION_NO;
                break;
        case _POLICY_KEY_MAX:
                break;
        }
        return 0;
}
