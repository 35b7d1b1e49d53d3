/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config-dump.c: the effective configuration in config-file syntax (mglrud --check-config).
 * Annotations are inline ';' comments so that the output parses back to the same settings. */
#include <syslog.h>

#include "config-internal.h"
#include "mglrud/shared/parse-util.h"

static const char *log_level_name(int level) {
        switch (level) {
        case LOG_ERR: return "err";
        case LOG_WARNING: return "warning";
        case LOG_NOTICE: return "notice";
        case LOG_INFO: return "info";
        case LOG_DEBUG: return "debug";
        default: return "info";
        }
}

const char *policy_key_format(char *buf, size_t size, const struct policy *p, enum policy_key k) {
        switch (k) {
        case POLICY_KEY_MODE:
                snprintf(buf, size, "%s", policy_mode_to_string(p->mode) ?: "?");
                return buf;
        case POLICY_KEY_MIN_COLD_AGE:
                return format_duration_exact(buf, size, p->min_cold_age_usec);
        case POLICY_KEY_MAX_COLD_AGE:
                return format_duration_exact(buf, size, p->max_cold_age_usec);
        case POLICY_KEY_PRESSURE_TARGET:
                return format_percent_exact(buf, size, p->pressure_target);
        case POLICY_KEY_REFAULT_TARGET:
                return format_percent_exact(buf, size, p->refault_target);
        case POLICY_KEY_SWAPPINESS:
                if (p->swappiness == SWAPPINESS_AUTO)
                        snprintf(buf, size, "auto");
                else if (p->swappiness == SWAPPINESS_ANON_ONLY)
                        snprintf(buf, size, "max");
                else
                        snprintf(buf, size, "%d", p->swappiness);
                return buf;
        case POLICY_KEY_FLOOR:
                return format_bytes_exact(buf, size, p->floor_bytes);
        case POLICY_KEY_MAX_STEP:
                return format_bytes_exact(buf, size, p->max_step_bytes);
        case POLICY_KEY_RECLAIM_RATIO:
                return format_percent_exact(buf, size, p->reclaim_ratio);
        case POLICY_KEY_STREAM_PROTECTION:
                snprintf(buf, size, "%s", stream_protection_to_string(p->stream_protection) ?: "?");
                return buf;
        case POLICY_KEY_HIGH_HEADROOM:
                return format_percent_exact(buf, size, p->high_headroom);
        case _POLICY_KEY_MAX:
                break;
        }
        snprintf(buf, size, "?");
        return buf;
}

static void dump_daemon_key(const struct config *c, FILE *f, enum daemon_key k, const char *value,
                            const char *note) {
        bool set = c->daemon_set_mask & (1u << k);
        fprintf(f, "%s=%s%s%s\n", daemon_key_to_string(k), value,
                set ? "" : " ; built-in default", !set && note ? note : "");
}

static void dump_policy(const struct config *c, FILE *f, const struct policy *p, uint32_t mask,
                        bool is_defaults) {
        char buf[64];

        for (unsigned k = 0; k < _POLICY_KEY_MAX; k++) {
                const char *note = "";
                if (!(mask & (1u << k)))
                        note = !is_defaults && (c->defaults_set_mask & (1u << k))
                                       ? " ; from [Defaults]"
                                       : " ; built-in default";
                fprintf(f, "%s=%s%s\n", policy_key_to_string(k),
                        policy_key_format(buf, sizeof buf, p, k), note);
        }
}

void config_dump(const struct config *c, FILE *f) {
        char buf[64];

        fputs("[Daemon]\n", f);
        dump_daemon_key(c, f, DAEMON_KEY_INTERVAL,
                        format_duration_exact(buf, sizeof buf, c->interval_usec), NULL);
        dump_daemon_key(c, f, DAEMON_KEY_DRY_RUN, c->dry_run ? "yes" : "no", NULL);
        dump_daemon_key(c, f, DAEMON_KEY_CGROUP_ROOT, c->cgroup_root ?: "",
                        " (empty: the cgroup2 mount point)");
        dump_daemon_key(c, f, DAEMON_KEY_DEBUGFS_ROOT, c->debugfs_root, NULL);
        dump_daemon_key(c, f, DAEMON_KEY_PROC_ROOT, c->proc_root, NULL);
        dump_daemon_key(c, f, DAEMON_KEY_LOG_LEVEL, log_level_name(c->log_level), NULL);
        dump_daemon_key(c, f, DAEMON_KEY_HOST_PRESSURE_LIMIT,
                        format_percent_exact(buf, sizeof buf, c->host_full_limit), NULL);
        dump_daemon_key(c, f, DAEMON_KEY_HOST_MIN_AVAILABLE,
                        format_bytes_exact(buf, sizeof buf, c->host_min_available), NULL);
        dump_daemon_key(c, f, DAEMON_KEY_STREAM_FAST_PATH, c->stream_fast_path ? "yes" : "no",
                        NULL);
        dump_daemon_key(c, f, DAEMON_KEY_REFAULT_CHECK, c->refault_check ? "yes" : "no", NULL);
        dump_daemon_key(c, f, DAEMON_KEY_PRESSURE_TRIGGERS, c->pressure_triggers ? "yes" : "no",
                        NULL);
        dump_daemon_key(c, f, DAEMON_KEY_STALL_GUARD, c->stall_guard ? "yes" : "no", NULL);
        dump_daemon_key(c, f, DAEMON_KEY_REFAULT_GUARD, c->refault_guard ? "yes" : "no", NULL);
        dump_daemon_key(c, f, DAEMON_KEY_CGROUP_ATTRIBUTES,
                        cgroup_attributes_to_string(c->cgroup_attributes), NULL);

        /* Locations go on a comment line of their own: appended to a long glob they could
         * push the header past the line length limit and the dump would not parse back. */
        fputc('\n', f);
        if (c->defaults_file)
                fprintf(f, "# %s:%u\n", c->defaults_file, c->defaults_line);
        fputs("[Defaults]\n", f);
        dump_policy(c, f, &c->defaults, c->defaults_set_mask, true);

        for (size_t i = 0; i < c->n_sections; i++) {
                const struct policy_section *s = &c->sections[i];
                struct policy p = c->defaults;

                policy_copy_keys(&p, &s->policy, s->set_mask);
                fprintf(f, "\n# %s:%u\n[%s]\n", s->file ?: "?", s->line, s->name);
                dump_policy(c, f, &p, s->set_mask, false);
        }
}
