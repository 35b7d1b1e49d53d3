/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/interfaces/metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mglrud/interfaces/counter-info.h"
#include "mglrud/shared/fileio.h"
#include "mglrud/shared/idle-table.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglrud/shared/time.h"

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

/* Writes "name{cgroup="…"[,runtime="…"][,qos_class="…"][,type="…"]} " (the value follows).
 * A container's runtime and a pod's QoS class are labels: they take a handful of values, so
 * they add no series (one per cgroup already) and let a query sum by them. Container ids and
 * pod uids are not: they are in the cgroup label already, and as labels of their own they
 * would make every container start a new set of series names to join on. */
static void put_cgroup_labels(FILE *f, const struct control_snapshot *s) {
        fputs("cgroup=\"", f);
        put_label(f, s->path);
        fputc('"', f);
        if (s->runtime)
                fprintf(f, ",runtime=\"%s\"", s->runtime);
        if (s->qos_class)
                fprintf(f, ",qos_class=\"%s\"", s->qos_class);
}

static void put_series(FILE *f, const char *name, const struct control_snapshot *s,
                       const char *type) {
        fprintf(f, "%s{", name);
        put_cgroup_labels(f, s);
        if (type)
                fprintf(f, ",type=\"%s\"", type);
        fputs("} ", f);
}

/* One family of per-type byte values, found at offset in each snapshot; only_estimates skips
 * snapshots without lru_gen estimates. */
/* Writes a gauge family of one uint64_t byte figure of the snapshots, at offset in struct
 * control_snapshot: a series for each cgroup where it is not 0 (0: not known). */
static void put_bytes_gauge(FILE *f, const char *name, const char *help,
                            const struct control_snapshot *snaps, size_t n, size_t offset) {
        put_header(f, name, "gauge", help);
        for (size_t i = 0; i < n; i++) {
                uint64_t v;
                memcpy(&v, (const char *) &snaps[i] + offset, sizeof v);
                if (v == 0)
                        continue;
                put_series(f, name, &snaps[i], NULL);
                fprintf(f, "%llu\n", (unsigned long long) v);
        }
}

static void put_typed(FILE *f, const char *name, const char *type, const char *help,
                      const struct control_snapshot *snaps, size_t n, size_t offset,
                      bool only_estimates) {
        put_header(f, name, type, help);
        for (size_t i = 0; i < n; i++) {
                if (only_estimates && !snaps[i].has_estimates)
                        continue;
                const uint64_t *v = (const uint64_t *) ((const char *) &snaps[i] + offset);
                for (int t = 0; t < _LRUGEN_NR_TYPES; t++) {
                        put_series(f, name, &snaps[i], type_names[t]);
                        fprintf(f, "%llu\n", (unsigned long long) v[t]);
                }
        }
}

/* Returns true when t is a rung of the ladder (not a profile's own oldest-generation row):
 * histogram buckets stay the same from one scrape to the next. */
static bool ladder_rung(uint64_t t) {
        for (size_t k = 0; k < IDLE_LADDER_DEFAULT_N; k++)
                if (idle_ladder_default_usec[k] == t)
                        return true;
        return false;
}

/* Writes name{[cgroup="…",runtime,qos_class,]type="…"[,extra]} (the value follows): the
 * labels of put_series() for a cgroup (s), none for the host (s NULL). */
static void put_idle_series(FILE *f, const char *name, const struct control_snapshot *s,
                            const char *type, const char *extra) {
        const char *sep = "";
        fprintf(f, "%s{", name);
        if (s) {
                put_cgroup_labels(f, s);
                sep = ",";
        }
        if (type) {
                fprintf(f, "%stype=\"%s\"", sep, type);
                sep = ",";
        }
        if (extra)
                fprintf(f, "%s%s", sep, extra);
        fputs("} ", f);
}

/* One idle-age histogram: per type, bucket le holds the bytes not known to be idle longer
 * than le seconds, _count every byte in the generations, _sum the byte-seconds of known idle
 * time. Bytes idle at least t: _count − bucket{le=t}. */
static void put_idle_histogram(FILE *f, const char *name, const struct control_snapshot *cgroup,
                               const struct idle_profile *p) {
        char bucket[128], sum[128], count[128], le[48];
        snprintf(bucket, sizeof bucket, "%s_bucket", name);
        snprintf(sum, sizeof sum, "%s_sum", name);
        snprintf(count, sizeof count, "%s_count", name);
        for (int t = 0; t < _LRUGEN_NR_TYPES; t++) {
                for (size_t i = 0; i < p->n_rows; i++) {
                        if (!ladder_rung(p->rows[i].idle_usec))
                                continue;
                        snprintf(le, sizeof le, "le=\"%.9g\"",
                                 (double) p->rows[i].idle_usec / (double) USEC_PER_SEC);
                        put_idle_series(f, bucket, cgroup, type_names[t], le);
                        fprintf(f, "%llu\n", (unsigned long long) p->rows[i].known_le_bytes[t]);
                }
                put_idle_series(f, bucket, cgroup, type_names[t], "le=\"+Inf\"");
                fprintf(f, "%llu\n", (unsigned long long) p->total_bytes[t]);
                put_idle_series(f, sum, cgroup, type_names[t], NULL);
                fprintf(f, "%.9g\n", p->known_idle_byte_seconds[t]);
                put_idle_series(f, count, cgroup, type_names[t], NULL);
                fprintf(f, "%llu\n", (unsigned long long) p->total_bytes[t]);
        }
}

/* Fills *x with the idle-age profile of s's cgroup; returns whether it has one. */
static bool snapshot_profile(const struct control_snapshot *s, struct control_idle *x) {
        if (!s->idle_state)
                return false;
        control_snapshot_idle(s, x);
        return x->has_profile;
}

/* The host's idle-age histogram and horizon. */
static void put_host_idle(FILE *f, const struct host_idle *h) {
        put_header(f, "mglrud_host_idle_bytes", "histogram",
                   "Bytes of every memcg by known idle time: bucket le holds the bytes not known "
                   "to be idle longer than le seconds (a generation is idle at least as long as "
                   "the next younger one exists; the youngest 0).");
        if (h && h->has_profile)
                put_idle_histogram(f, "mglrud_host_idle_bytes", NULL, &h->profile);
        put_header(f, "mglrud_host_idle_horizon_seconds", "gauge",
                   "The longest idle time the host's generations tell: nothing is known past it.");
        if (h && h->has_profile)
                fprintf(f, "mglrud_host_idle_horizon_seconds %.9g\n",
                        (double) h->profile.horizon_usec / (double) USEC_PER_SEC);
}

/* The cgroups' idle-age histograms, horizons and the age of their information. */
static void put_cgroups_idle(FILE *f, const struct control_snapshot *snaps, size_t n) {
        /* Each family computes the profiles again (control_snapshot_idle()): they are not
         * kept, and one at a time is all the memory this takes. */
        struct control_idle x;
        put_header(f, "mglrud_idle_bytes", "histogram",
                   "Bytes of the cgroup by known idle time: bucket le holds the bytes not known "
                   "to be idle longer than le seconds; _count - bucket is idle at least le.");
        for (size_t i = 0; i < n; i++)
                if (snapshot_profile(&snaps[i], &x))
                        put_idle_histogram(f, "mglrud_idle_bytes", &snaps[i], &x.profile);
        put_header(f, "mglrud_idle_horizon_seconds", "gauge",
                   "The longest idle time the cgroup's generations tell: nothing is known past "
                   "it.");
        for (size_t i = 0; i < n; i++)
                if (snapshot_profile(&snaps[i], &x)) {
                        put_series(f, "mglrud_idle_horizon_seconds", &snaps[i], NULL);
                        fprintf(f, "%.9g\n",
                                (double) x.profile.horizon_usec / (double) USEC_PER_SEC);
                }
        put_header(f, "mglrud_idle_last_aged_seconds", "gauge",
                   "Time since the cgroup's generations were last aged (the information's age).");
        for (size_t i = 0; i < n; i++)
                if (snapshot_profile(&snaps[i], &x) && x.profile.n_lruvecs > 0) {
                        put_series(f, "mglrud_idle_last_aged_seconds", &snaps[i], NULL);
                        fprintf(f, "%.9g\n",
                                (double) x.profile.aged_min_usec / (double) USEC_PER_SEC);
                }
}

/* The cgroups' re-access rates per rung of the ladder, once 30 s of readings cover them. */
static void put_reaccess(FILE *f, const struct control_snapshot *snaps, size_t n) {
        char extra[64];
        put_header(f, "mglrud_idle_reaccess_ratio_per_minute", "gauge",
                   "Share of the bytes idle at least ge seconds (in generations eviction could "
                   "take) used again per minute, over the last minutes (from 30 s of readings "
                   "on).");
        for (size_t i = 0; i < n; i++) {
                const struct control_idle_state *st = snaps[i].idle_state;
                if (!st || !st->has_profile ||
                    st->risk.window_usec < (double) IDLE_TABLE_REACCESS_MIN_USEC)
                        continue;
                for (size_t k = 0; k < st->risk.n; k++) {
                        double share = idle_risk_share_per_min(&st->risk, k, IDLE_RISK_ALL);
                        if (share < 0)
                                continue;
                        snprintf(extra, sizeof extra, "ge=\"%.9g\"",
                                 (double) st->risk.ladder_usec[k] / (double) USEC_PER_SEC);
                        put_idle_series(f, "mglrud_idle_reaccess_ratio_per_minute", &snaps[i],
                                        NULL, extra);
                        fprintf(f, "%.9g\n", share);
                }
        }
}

/* What the thresholds would free now, per cgroup and type, where it is known. */
static void put_forecasts(FILE *f, const struct control_snapshot *snaps, size_t n) {
        char extra[64];
        put_header(f, "mglrud_forecast_free_bytes", "gauge",
                   "What evicting the generations idle at least the threshold (T, MinColdAge, "
                   "MaxColdAge) would free now; absent while not known.");
        for (size_t i = 0; i < n; i++) {
                const struct control_idle_state *st = snaps[i].idle_state;
                for (int k = 0; st && st->has_profile && k < _CONTROL_FORECAST_MAX; k++) {
                        if (st->forecasts[k].flags & IDLE_ROW_UNKNOWN)
                                continue;
                        snprintf(extra, sizeof extra, "threshold=\"%s\"",
                                 control_forecast_to_string(k));
                        for (int t = 0; t < _LRUGEN_NR_TYPES; t++) {
                                put_idle_series(f, "mglrud_forecast_free_bytes", &snaps[i],
                                                type_names[t], extra);
                                fprintf(f, "%llu\n",
                                        (unsigned long long) st->forecasts[k].bytes[t]);
                        }
                }
        }
}

/* The idle-age profiles (docs/design.md, "Idle-age profile"): histograms, how far back the
 * generations reach, the re-access rate per rung, what the thresholds would free. */
static void put_idle(FILE *f, const struct daemon_stats *d, const struct control_snapshot *snaps,
                     size_t n) {
        put_host_idle(f, d->host_idle);
        put_cgroups_idle(f, snaps, n);
        put_reaccess(f, snaps, n);
        put_forecasts(f, snaps, n);
}

/* Writes the value of counter c in the record at base, a metric's value: a time in seconds. */
static void put_value(FILE *f, const struct counter_info *c, const void *base) {
        uint64_t v = counter_value(c, base);
        if (c->unit == COUNTER_NSEC)
                fprintf(f, "%.9g\n", (double) v / 1e9);
        else if (c->unit == COUNTER_USEC)
                fprintf(f, "%.9g\n", (double) v / (double) USEC_PER_SEC);
        else
                fprintf(f, "%llu\n", (unsigned long long) v);
}

/* One family per counter of the per-cgroup table that has a metric (counters.h). */
static void put_counters(FILE *f, const struct daemon_stats *d,
                         const struct control_snapshot *snaps, size_t n) {
        for (size_t c = 0; c < _CONTROL_COUNTER_MAX; c++) {
                const struct counter_info *info = &control_counter_info[c];
                bool stall = info->when == COUNTER_STALL_GUARD;
                if (!info->metric || (stall && !d->stall_guard))
                        continue;
                put_header(f, info->metric, info->metric_type, info->help);
                for (size_t i = 0; i < n; i++) {
                        if (stall && !snaps[i].has_reclaim_stall)
                                continue;
                        put_series(f, info->metric, &snaps[i], NULL);
                        put_value(f, info, &snaps[i]);
                }
        }
}

/* Stream protection's fast path (drop latency, crossings) and its BPF map, while they run. */
static void put_streams(FILE *f, const struct streams_stats *st) {
        if (st->fast_path) {
                put_header(f, "mglrud_stream_drop_latency_seconds", "histogram",
                           "Time from a file crossing a stream threshold to the end of its drop.");
                uint64_t cum = 0;
                for (size_t b = 0; b < STREAMS_LATENCY_BUCKETS; b++) {
                        cum += st->latency_buckets[b];
                        fprintf(f, "mglrud_stream_drop_latency_seconds_bucket{le=\"%.9g\"} %llu\n",
                                (double) streams_latency_bounds_usec[b] / (double) USEC_PER_SEC,
                                (unsigned long long) cum);
                }
                fprintf(f, "mglrud_stream_drop_latency_seconds_bucket{le=\"+Inf\"} %llu\n",
                        (unsigned long long) st->latency_count);
                fprintf(f, "mglrud_stream_drop_latency_seconds_sum %.9g\n",
                        (double) st->latency_sum_usec / (double) USEC_PER_SEC);
                fprintf(f, "mglrud_stream_drop_latency_seconds_count %llu\n",
                        (unsigned long long) st->latency_count);
                put_header(f, "mglrud_stream_crossings_total", "counter",
                           "Files the BPF program reported crossing a stream threshold.");
                fprintf(f, "mglrud_stream_crossings_total %llu\n",
                        (unsigned long long) st->crossings);
                put_header(f, "mglrud_stream_crossings_lost_total", "counter",
                           "Crossings the ring buffer had no room for (the cycle still sees them).");
                fprintf(f, "mglrud_stream_crossings_lost_total %llu\n",
                        (unsigned long long) st->lost);
        }
        if (st->counting) {
                put_header(f, "mglrud_stream_map_files", "gauge",
                           "Files in the BPF map of page-cache insertions at its last read.");
                fprintf(f, "mglrud_stream_map_files %zu\n", st->map_files);
                put_header(f, "mglrud_stream_counted_cgroup_ids", "gauge",
                           "Cgroup ids whose page-cache insertions the BPF program counts.");
                fprintf(f, "mglrud_stream_counted_cgroup_ids %zu\n", st->tracked);
        }
}

/* The daemon-wide counters (counters.h) and the actuation path's writes. */
static void put_daemon(FILE *f, const struct daemon_stats *d) {
        for (size_t c = 0; c < _DAEMON_COUNTER_MAX; c++) {
                const struct counter_info *info = &daemon_counter_info[c];
                if (!info->metric)
                        continue;
                put_header(f, info->metric, info->metric_type, info->help);
                fprintf(f, "%s ", info->metric);
                put_value(f, info, d);
        }
        put_header(f, "mglrud_writes_total", "counter",
                   "Writes to kernel files (lru_gen, memory.reclaim chunks, stream drops).");
        fprintf(f, "mglrud_writes_total %llu\n", (unsigned long long) d->actuation.writes);
        put_header(f, "mglrud_write_failures_total", "counter",
                   "Writes the kernel refused (a removed cgroup is not counted).");
        fprintf(f, "mglrud_write_failures_total %llu\n", (unsigned long long) d->actuation.failed);
        put_header(f, "mglrud_write_asked_bytes_total", "counter",
                   "Bytes the writes asked to evict, reclaim or drop.");
        fprintf(f, "mglrud_write_asked_bytes_total %llu\n",
                (unsigned long long) d->actuation.asked_bytes);
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
                put_series(f, "mglrud_cold_age_threshold_seconds", &snaps[i], NULL);
                fprintf(f, "%.9g\n", (double) snaps[i].cold_age_usec / (double) USEC_PER_SEC);
        }
        put_header(f, "mglrud_pressure_some_ratio", "gauge",
                   "Share of the last cycle some task of the cgroup stalled on memory.");
        for (size_t i = 0; i < n; i++)
                if (snaps[i].has_psi_some) {
                        put_series(f, "mglrud_pressure_some_ratio", &snaps[i], NULL);
                        fprintf(f, "%.9g\n", snaps[i].psi_some);
                }
        put_bytes_gauge(f, "mglrud_memory_needed_bytes",
                        "Memory the cgroup needs to run unthrottled: what it touched within "
                        "MinColdAge plus HighHeadroom= (a lower bound while the idle horizon is "
                        "short).", snaps, n, offsetof(struct control_snapshot, need_bytes));
        put_bytes_gauge(f, "mglrud_memory_limit_bytes",
                        "memory.high, or memory.max where memory.high is max (read where "
                        "HighHeadroom= is on).", snaps, n,
                        offsetof(struct control_snapshot, limit_bytes));
        put_counters(f, d, snaps, n);

        put_streams(f, &d->streams);
        put_idle(f, d, snaps, n);
        put_daemon(f, d);
        return ferror(f) ? -EIO : 0;
}

int metrics_write_file(const struct manager *m, const char *path) {
        _cleanup_free_ char *text = NULL;
        int r = report_text(m, metrics_format, &text);
        if (r < 0)
                return r;
        return write_file_atomic(path, text, 0644);
}
