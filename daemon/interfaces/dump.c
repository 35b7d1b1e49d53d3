/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/interfaces/dump.h"

#include <errno.h>

#include "config.h"
#include "mglrud/interfaces/counter-info.h"
#include "mglrud/kernel/container.h"
#include "mglrud/shared/parse-util.h"

static void put_pair(FILE *f, const char *label, const uint64_t v[_LRUGEN_NR_TYPES]) {
        char a[32], b[32];
        fprintf(f, "        %s: anon %s file %s\n", label,
                format_bytes(a, sizeof a, v[LRUGEN_ANON]), format_bytes(b, sizeof b, v[LRUGEN_FILE]));
}

/* The dump lines that show several counters (the table's next ones with no label of their
 * own), each only when there is something to show. */
static void put_streams(FILE *f, const struct control_snapshot *s) {
        char b[32];
        if (s->stream_files > 0)
                fprintf(f, "        Streams dropped: %llu files, %s\n",
                        (unsigned long long) s->stream_files,
                        format_bytes(b, sizeof b, s->stream_dropped_bytes));
}

static void put_refaults(FILE *f, const struct control_snapshot *s) {
        if (s->refault_undercount || s->own_refault_pages > 0)
                fprintf(f, "        File refaults: kernel %llu, mglrud %llu pages%s%s%s\n",
                        (unsigned long long) s->kernel_refault_pages,
                        (unsigned long long) s->own_refault_pages,
                        s->refault_undercount ? "; kernel undercounts (" : "",
                        s->refault_undercount ? s->refault_undercount_sign : "",
                        s->refault_undercount ? "): the larger is used" : "");
}

/* Times on CLOCK_MONOTONIC, in seconds: comparable with the kernel's and the journal's
 * monotonic stamps (how fast a trigger stopped reclaim). */
static void put_last_write(FILE *f, const struct control_snapshot *s) {
        if (s->last_write_usec > 0)
                fprintf(f, "        Last reclaim write: ended at %.3fs (monotonic)\n",
                        (double) s->last_write_usec / 1e6);
}

static void put_pressure_stops(FILE *f, const struct control_snapshot *s) {
        if (s->pressure_stops > 0)
                fprintf(f, "        Pressure stops: %u (%u write job%s stopped), first at "
                        "%.3fs, last at %.3fs (monotonic)\n", s->pressure_stops,
                        s->stopped_jobs, s->stopped_jobs == 1 ? "" : "s",
                        (double) s->first_stop_usec / 1e6, (double) s->last_stop_usec / 1e6);
}

static void put_reclaim_stall(FILE *f, const struct control_snapshot *s) {
        if (s->has_reclaim_stall)
                fprintf(f, "        Reclaim stall: %.3fs in %llu reclaim%s (BPF, all "
                        "tasks but mglrud's)\n", (double) s->reclaim_stall_ns / 1e9,
                        (unsigned long long) s->reclaim_stall_count,
                        s->reclaim_stall_count == 1 ? "" : "s");
}

static void put_stall_guard(FILE *f, const struct control_snapshot *s) {
        if (s->guard_stops > 0)
                fprintf(f, "        Stall guard stops: %u, the last at %.3fs (monotonic) "
                        "after %.3fs of reclaim stall during the job\n", s->guard_stops,
                        (double) s->guard_last_stop_usec / 1e6,
                        (double) s->guard_last_stall_ns / 1e9);
}

static void put_refault_guard(FILE *f, const struct control_snapshot *s) {
        if (s->refault_guard_stops > 0)
                fprintf(f, "        Refault guard stops: %u, the last at %.3fs (monotonic) "
                        "after %llu pages read again during the job (limit %llu)\n",
                        s->refault_guard_stops, (double) s->refault_guard_last_stop_usec / 1e6,
                        (unsigned long long) s->refault_guard_last_pages,
                        (unsigned long long) s->refault_guard_last_limit);
}

typedef void (*dump_line_fn)(FILE *f, const struct control_snapshot *s);
static const dump_line_fn dump_lines[_CONTROL_COUNTER_MAX] = {
        [CONTROL_COUNTER_stream_files] = put_streams,
        [CONTROL_COUNTER_kernel_refault_pages] = put_refaults,
        [CONTROL_COUNTER_last_write_usec] = put_last_write,
        [CONTROL_COUNTER_pressure_stops] = put_pressure_stops,
        [CONTROL_COUNTER_reclaim_stall_ns] = put_reclaim_stall,
        [CONTROL_COUNTER_guard_stops] = put_stall_guard,
        [CONTROL_COUNTER_refault_guard_stops] = put_refault_guard,
};

/* The counters in table order (counters.h): a line "Label: value" for one with a label, the
 * line above for one that starts a group. */
static void put_counters(FILE *f, const struct control_snapshot *s) {
        for (size_t c = 0; c < _CONTROL_COUNTER_MAX; c++) {
                const struct counter_info *info = &control_counter_info[c];
                if (dump_lines[c])
                        dump_lines[c](f, s);
                else if (info->dump_label &&
                         (info->when != COUNTER_STALL_GUARD || s->has_reclaim_stall))
                        fprintf(f, "        %s: %llu\n", info->dump_label,
                                (unsigned long long) counter_value(info, s));
        }
}

/* The daemon-wide header: settings, the actuation path, stream protection, the guards. */
static void dump_daemon(FILE *f, const struct daemon_stats *d) {
        char b[32];

        fprintf(f, "mglrud %s\n", MGLRUD_VERSION);
        fprintf(f, "        Dry run: %s\n", d->dry_run ? "yes" : "no");
        fprintf(f, "        Paused: %s\n", d->paused_all ? "yes" : "no");
        fprintf(f, "        Interval: %s\n", format_duration(b, sizeof b, d->interval_usec));
        fprintf(f, "        Cycles: %llu\n", (unsigned long long) d->cycles);
        fprintf(f, "        Last cycle: %s\n", format_duration(b, sizeof b, d->cycle_usec));
        fprintf(f, "        Cgroups: %llu\n", (unsigned long long) d->n_cgroups);
        fprintf(f, "        Writes: %llu (%llu failed), asked %s\n",
                (unsigned long long) d->actuation.writes, (unsigned long long) d->actuation.failed,
                format_bytes(b, sizeof b, d->actuation.asked_bytes));
        if (d->streams.counting)
                fprintf(f, "        Stream map: %zu files, insertions counted in %zu cgroup ids\n",
                        d->streams.map_files, d->streams.tracked);
        if (d->streams.fast_path) {
                const struct streams_stats *st = &d->streams;
                char m[32];
                fprintf(f, "        Stream fast path: %zu cgroup ids watched, %llu runs, %llu "
                        "crossings (%llu lost), %llu drops",
                        st->watched, (unsigned long long) st->fast_runs,
                        (unsigned long long) st->crossings, (unsigned long long) st->lost,
                        (unsigned long long) st->latency_count);
                if (st->latency_count > 0)
                        fprintf(f, " %s after the threshold on average, at most %s",
                                format_duration(b, sizeof b,
                                                st->latency_sum_usec / st->latency_count),
                                format_duration(m, sizeof m, st->latency_max_usec));
                fputc('\n', f);
        }
        if (d->stall_guard)
                fprintf(f, "        Stall guard: BPF, %llu job%s stopped\n",
                        (unsigned long long) d->stall_guard_stops,
                        d->stall_guard_stops == 1 ? "" : "s");
        else
                fprintf(f, "        Stall guard: no (PSI triggers only)\n");
        if (d->refault_guard)
                fprintf(f, "        Refault guard: BPF, %llu job%s stopped\n",
                        (unsigned long long) d->refault_guard_stops,
                        d->refault_guard_stops == 1 ? "" : "s");
        else
                fprintf(f, "        Refault guard: no\n");
}

/* One cgroup's block: "-> PATH" and its lines. */
static void dump_cgroup(FILE *f, const struct daemon_stats *d, const struct control_snapshot *s) {
        char b[32];

        fprintf(f, "-> %s\n", s->path);
        fprintf(f, "        Id: %llu\n", (unsigned long long) s->id);
        if (s->container_id) {
                char sid[CONTAINER_SHORT_ID_LEN + 1];
                fprintf(f, "        Container: %s %s\n", s->runtime ?: "(runtime unknown)",
                        container_short_id(s->container_id, sid, sizeof sid));
        }
        if (s->pod_uid)
                fprintf(f, "        Pod: %s (%s)\n", s->pod_uid,
                        s->qos_class ?: "QoS unknown");
        fprintf(f, "        Section: [%s]\n", s->section);
        fprintf(f, "        Mode: %s\n", s->mode);
        for (size_t k = 0; k < s->n_annotations; k++)
                fprintf(f, "        Override: %s (annotation)\n", s->annotations[k]);
        for (size_t k = 0; k < s->n_overrides; k++)
                fprintf(f, "        Override: %s (runtime override)\n", s->overrides[k]);
        fprintf(f, "        Paused: %s\n",
                s->paused ? "yes" : d->paused_all ? "yes (all)" : "no");
        fprintf(f, "        Cold age (T): %s\n",
                format_duration(b, sizeof b, s->cold_age_usec));
        fprintf(f, "        Last reason: %s\n", s->reason);
        if (s->line[0])
                fprintf(f, "        Last decision: %s\n", s->line);
        if (s->has_estimates) {
                put_pair(f, "Cold", s->cold_bytes);
                put_pair(f, "Cooling", s->cooling_bytes);
                put_pair(f, "Warm", s->warm_bytes);
        }
        if (s->has_psi_some)
                fprintf(f, "        Pressure some: %.2f%%\n", s->psi_some * 100.0);
        put_pair(f, "Reclaimed", s->reclaimed_bytes);
        put_counters(f, s);
}

int dump_format(FILE *f, const struct daemon_stats *d, const struct control_snapshot *snaps,
                size_t n) {
        dump_daemon(f, d);
        for (size_t i = 0; i < n; i++)
                dump_cgroup(f, d, &snaps[i]);
        return ferror(f) ? -EIO : 0;
}
