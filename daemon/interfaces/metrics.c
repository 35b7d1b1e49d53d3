/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/interfaces/metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mglrud/shared/fileio.h"
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
static void put_series(FILE *f, const char *name, const struct control_snapshot *s,
                       const char *type) {
        fprintf(f, "%s{cgroup=\"", name);
        put_label(f, s->path);
        if (s->runtime)
                fprintf(f, "\",runtime=\"%s", s->runtime);
        if (s->qos_class)
                fprintf(f, "\",qos_class=\"%s", s->qos_class);
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
                        put_series(f, name, &snaps[i], type_names[t]);
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
        put_header(f, "mglrud_actions_total", "counter", "Cycles in which mglrud wrote.");
        for (size_t i = 0; i < n; i++) {
                put_series(f, "mglrud_actions_total", &snaps[i], NULL);
                fprintf(f, "%llu\n", (unsigned long long) snaps[i].actions);
        }
        put_header(f, "mglrud_errors_total", "counter", "Failed writes.");
        for (size_t i = 0; i < n; i++) {
                put_series(f, "mglrud_errors_total", &snaps[i], NULL);
                fprintf(f, "%llu\n", (unsigned long long) snaps[i].errors);
        }
        put_header(f, "mglrud_stream_files_total", "counter",
                   "One-shot stream files whose pages mglrud dropped (or would drop).");
        for (size_t i = 0; i < n; i++) {
                put_series(f, "mglrud_stream_files_total", &snaps[i], NULL);
                fprintf(f, "%llu\n", (unsigned long long) snaps[i].stream_files);
        }
        put_header(f, "mglrud_stream_dropped_bytes_total", "counter",
                   "Bytes of one-shot streams asked to drop (clean pages only are dropped).");
        for (size_t i = 0; i < n; i++) {
                put_series(f, "mglrud_stream_dropped_bytes_total", &snaps[i], NULL);
                fprintf(f, "%llu\n", (unsigned long long) snaps[i].stream_dropped_bytes);
        }

        if (d->streams.fast_path) {
                const struct streams_stats *st = &d->streams;
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

        put_header(f, "mglrud_cycles_total", "counter", "Control cycles run.");
        fprintf(f, "mglrud_cycles_total %llu\n", (unsigned long long) d->cycles);
        put_header(f, "mglrud_cgroups_managed", "gauge", "Cgroups under management.");
        fprintf(f, "mglrud_cgroups_managed %zu\n", d->n_cgroups);
        put_header(f, "mglrud_cycle_duration_seconds", "gauge", "Duration of the last cycle.");
        fprintf(f, "mglrud_cycle_duration_seconds %.9g\n",
                (double) d->cycle_usec / (double) USEC_PER_SEC);
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
        return ferror(f) ? -EIO : 0;
}

int metrics_write_file(const struct manager *m, const char *path) {
        _cleanup_free_ char *text = NULL;
        int r = report_text(m, metrics_format, &text);
        if (r < 0)
                return r;
        return write_file_atomic(path, text, 0644);
}
