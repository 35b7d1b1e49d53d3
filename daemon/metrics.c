/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mglrud/macro.h"
#include "mglrud/manager.h"
#include "mglrud/parse-util.h"

static const char *const type_names[_LRUGEN_NR_TYPES] = {
        [LRUGEN_ANON] = "anon",
        [LRUGEN_FILE] = "file",
};

/* Writes s as a label value: backslash, double quote and newline escaped. */
static void put_label(FILE *f, const char *s) {
        for (; *s; s++)
                switch (*s) {
                case '\\':
                        fputs("\\\\", f);
                        break;
                case '"':
                        fputs("\\\"", f);
                        break;
                case '\n':
                        fputs("\\n", f);
                        break;
                default:
                        fputc(*s, f);
                }
}

static void put_header(FILE *f, const char *name, const char *type, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Writes "name{cgroup="…"[,type="…"]} " (the value follows). */
static void put_series(FILE *f, const char *name, const char *cgroup, const char *type) {
        fprintf(f, "%s{cgroup=\"", name);
        put_label(f, cgroup);
        if (type)
                fprintf(f, "\",type=\"%s", type);
        fputs("\"} ", f);
}

/* One family of per-type byte values, found at offset in each snapshot; only_estimates skips
 * snapshots without lru_gen estimates. */
static void put_typed(FILE *f, const char *name, const char *type, const char *help,
                      const struct control_snapshot *snaps, size_t n, size_t offset,
                      bool only_estimates) {
        put_header(f, name, type, help);
        for (size_t i = 0; i < n; i++) {
                if (only_estimates && !snaps[i].has_estimates)
                        continue;
                const uint64_t *v = (const uint64_t *) ((const char *) &snaps[i] + offset);
                for (int t = 0; t < _LRUGEN_NR_TYPES; t++) {
                        put_series(f, name, snaps[i].path, type_names[t]);
                        fprintf(f, "%llu\n", (unsigned long long) v[t]);
                }
        }
}

int metrics_format(FILE *f, const struct daemon_stats *d, const struct control_snapshot *snaps,
                   size_t n) {
        put_typed(f, "mglrud_reclaimed_bytes_total", "counter",
                  "Bytes reclaimed by mglrud, measured from memory.stat.", snaps, n,
                  offsetof(struct control_snapshot, reclaimed_bytes), false);
        put_typed(f, "mglrud_cold_bytes", "gauge",
                  "Bytes idle for at least the cold age threshold.", snaps, n,
                  offsetof(struct control_snapshot, cold_bytes), true);

        put_header(f, "mglrud_cold_age_threshold_seconds", "gauge",
                   "The adaptive cold age threshold T.");
        for (size_t i = 0; i < n; i++) {
                put_series(f, "mglrud_cold_age_threshold_seconds", snaps[i].path, NULL);
                fprintf(f, "%.9g\n", (double) snaps[i].cold_age_usec / (double) USEC_PER_SEC);
        }
        put_header(f, "mglrud_pressure_some_ratio", "gauge",
                   "Share of the last cycle some task of the cgroup stalled on memory.");
        for (size_t i = 0; i < n; i++)
                if (snaps[i].has_psi_some) {
                        put_series(f, "mglrud_pressure_some_ratio", snaps[i].path, NULL);
                        fprintf(f, "%.9g\n", snaps[i].psi_some);
                }
        put_header(f, "mglrud_actions_total", "counter", "Cycles in which mglrud wrote.");
        for (size_t i = 0; i < n; i++) {
                put_series(f, "mglrud_actions_total", snaps[i].path, NULL);
                fprintf(f, "%llu\n", (unsigned long long) snaps[i].actions);
        }
        put_header(f, "mglrud_errors_total", "counter", "Failed writes.");
        for (size_t i = 0; i < n; i++) {
                put_series(f, "mglrud_errors_total", snaps[i].path, NULL);
                fprintf(f, "%llu\n", (unsigned long long) snaps[i].errors);
        }
        put_header(f, "mglrud_stream_files_total", "counter",
                   "One-shot stream files whose pages mglrud dropped (or would drop).");
        for (size_t i = 0; i < n; i++) {
                put_series(f, "mglrud_stream_files_total", snaps[i].path, NULL);
                fprintf(f, "%llu\n", (unsigned long long) snaps[i].stream_files);
        }
        put_header(f, "mglrud_stream_dropped_bytes_total", "counter",
                   "Bytes of one-shot streams asked to drop (clean pages only are dropped).");
        for (size_t i = 0; i < n; i++) {
                put_series(f, "mglrud_stream_dropped_bytes_total", snaps[i].path, NULL);
                fprintf(f, "%llu\n", (unsigned long long) snaps[i].stream_dropped_bytes);
        }

        put_header(f, "mglrud_cycles_total", "counter", "Control cycles run.");
        fprintf(f, "mglrud_cycles_total %llu\n", (unsigned long long) d->cycles);
        put_header(f, "mglrud_cgroups_managed", "gauge", "Cgroups under management.");
        fprintf(f, "mglrud_cgroups_managed %zu\n", d->n_cgroups);
        put_header(f, "mglrud_cycle_duration_seconds", "gauge", "Duration of the last cycle.");
        fprintf(f, "mglrud_cycle_duration_seconds %.9g\n",
                (double) d->cycle_usec / (double) USEC_PER_SEC);
        return ferror(f) ? -EIO : 0;
}

int manager_snapshots(const struct manager *m, struct daemon_stats *ret_stats,
                      struct control_snapshot **ret_snaps, size_t *ret_n) {
        struct control_snapshot *s = calloc(MAX(m->n_cgroups, (size_t) 1), sizeof *s);
        if (!s)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_cgroups; i++) {
                (void) control_cgroup_snapshot(m->cgroups[i], &s[i]);
                s[i].stream_files = m->cgroups[i]->stream_files;
                s[i].stream_dropped_bytes = m->cgroups[i]->stream_dropped_bytes;
        }
        *ret_stats = (struct daemon_stats) {
                .cycles = m->cycles,
                .n_cgroups = m->n_cgroups,
                .cycle_usec = m->last_cycle_usec,
                .interval_usec = m->interval_usec,
                .dry_run = m->dry_run,
                .paused_all = m->paused_all,
        };
        *ret_snaps = s;
        *ret_n = m->n_cgroups;
        return 0;
}

int manager_format(const struct manager *m, snapshot_format_t fmt, char **ret_text) {
        _cleanup_free_ struct control_snapshot *snaps = NULL;
        struct daemon_stats d;
        size_t n, len;
        char *text = NULL;

        int r = manager_snapshots(m, &d, &snaps, &n);
        if (r < 0)
                return r;
        FILE *f = open_memstream(&text, &len);
        if (!f)
                return -ENOMEM;
        r = fmt(f, &d, snaps, n);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0) {
                free(text);
                return r;
        }
        *ret_text = text;
        return 0;
}

int metrics_write_file(const struct manager *m, const char *path) {
        _cleanup_free_ char *text = NULL, *tmp = NULL;
        int r = manager_format(m, metrics_format, &text);
        if (r < 0)
                return r;
        if (asprintf(&tmp, "%s.tmp", path) < 0)
                return -ENOMEM;
        FILE *f = fopen(tmp, "we");
        if (!f)
                return negative_errno();
        fputs(text, f);
        if (fclose(f) != 0) {
                r = negative_errno();
                (void) unlink(tmp);
                return r;
        }
        if (rename(tmp, path) < 0) {
                r = negative_errno();
                (void) unlink(tmp);
                return r;
        }
        return 0;
}
