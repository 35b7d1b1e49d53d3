/* SPDX-License-Identifier: GPL-2.0-or-later */
/* counters.h: every counter mglrud shows, listed once. A per-cgroup counter is one line of
 * CONTROL_COUNTERS, a daemon-wide one one line of DAEMON_COUNTERS; from these lists come the
 * fields of the controller's record (control-state.h) and of the snapshot (control.h), the
 * copy between them and struct daemon_stats (manager.h); the interfaces layer makes a
 * descriptor of each (interfaces/counter-info.h) from which come the metrics with their help
 * text (metrics.c), the dump lines (dump.c) and the D-Bus fields of GetCgroup and GetStatus
 * (bus.c, so `mglructl --json`). docs/design.md, "Counters". */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a value is, for its formatting: a count (metrics "%llu", D-Bus "t"), a flag (0/1, D-Bus
 * "b"), a time in nanoseconds or microseconds (metrics in seconds, D-Bus "t" as it is). */
enum counter_unit {
        COUNTER_COUNT,
        COUNTER_FLAG,
        COUNTER_NSEC,
        COUNTER_USEC,
};

/* When a per-cgroup value is there: always, or only with the BPF stall guard loaded (the
 * metric family when the daemon has it, the series, bus field and dump line when the cgroup's
 * snapshot has its reading: has_reclaim_stall). */
enum counter_when {
        COUNTER_ALWAYS,
        COUNTER_STALL_GUARD,
};

/* Per-cgroup counters, in the order of the metrics, the dump and the bus fields:
 *   X(field, type, source, unit, when, metric, metric_type, help, bus_key, dump_label)
 * field:      the member of struct control_snapshot (and, from ACTS, of the record).
 * source:     ACTS, kept in the cgroup's job record (control-state.h) and copied from it;
 *             REFAULT, from the refault trust check (refault-trust.h); STALL, from the BPF
 *             stall guard (manager_cgroup_snapshot()). Only ACTS fields are declared and copied
 *             here.
 * metric:     the Prometheus family, NULL for none (points in time and figures that only
 *             explain another: a stop's time, the limit it passed).
 * dump_label: a line "Label: value" of its own, NULL when the value is shown in the line
 *             dump.c writes for the counter before it (the guards' stops, with their time).
 * Adding a counter the job record keeps: one line here, and the line that counts it. */
#define CONTROL_COUNTERS(X)                                                                    \
        X(actions, uint32_t, ACTS, COUNTER_COUNT, COUNTER_ALWAYS, "mglrud_actions_total",      \
          "counter", "Cycles in which mglrud wrote.", "Actions", "Actions")                    \
        X(errors, uint32_t, ACTS, COUNTER_COUNT, COUNTER_ALWAYS, "mglrud_errors_total",        \
          "counter", "Failed writes.", "Errors", "Errors")                                     \
        X(stream_files, uint32_t, ACTS, COUNTER_COUNT, COUNTER_ALWAYS,                         \
          "mglrud_stream_files_total", "counter",                                              \
          "One-shot stream files whose pages mglrud dropped (or would drop).", "StreamFiles",  \
          NULL)                                                                                \
        X(stream_dropped_bytes, uint64_t, ACTS, COUNTER_COUNT, COUNTER_ALWAYS,                 \
          "mglrud_stream_dropped_bytes_total", "counter",                                      \
          "Bytes of one-shot streams asked to drop (clean pages only are dropped).",           \
          "StreamDroppedBytes", NULL)                                                          \
        X(kernel_refault_pages, uint64_t, REFAULT, COUNTER_COUNT, COUNTER_ALWAYS, NULL, NULL,  \
          NULL, "KernelRefaultPages", NULL)                                                    \
        X(own_refault_pages, uint64_t, REFAULT, COUNTER_COUNT, COUNTER_ALWAYS,                 \
          "mglrud_refaults_own_pages_total", "counter",                                        \
          "File pages read back into the page cache after reclaim evicted them, as mglrud "    \
          "counts them (BPF; RefaultCheck=).", "OwnRefaultPages", NULL)                        \
        X(refault_undercount, bool, REFAULT, COUNTER_FLAG, COUNTER_ALWAYS,                     \
          "mglrud_refault_undercount", "gauge",                                                \
          "1 when the kernel's refault counts of the cgroup were found short: the "            \
          "controllers take the larger of them and mglrud's own count.", "RefaultUndercount",  \
          NULL)                                                                                \
        X(last_write_usec, uint64_t, ACTS, COUNTER_USEC, COUNTER_ALWAYS, NULL, NULL, NULL,     \
          "LastWriteUSec", NULL)                                                               \
        X(pressure_stops, uint32_t, ACTS, COUNTER_COUNT, COUNTER_ALWAYS,                       \
          "mglrud_pressure_stops_total", "counter",                                            \
          "Times a PSI trigger stopped mglrud's reclaim in the cgroup.", "PressureStops",      \
          NULL)                                                                                \
        X(stopped_jobs, uint32_t, ACTS, COUNTER_COUNT, COUNTER_ALWAYS, NULL, NULL, NULL,       \
          "PressureStoppedJobs", NULL)                                                         \
        X(first_stop_usec, uint64_t, ACTS, COUNTER_USEC, COUNTER_ALWAYS, NULL, NULL, NULL,     \
          "PressureFirstStopUSec", NULL)                                                       \
        X(last_stop_usec, uint64_t, ACTS, COUNTER_USEC, COUNTER_ALWAYS, NULL, NULL, NULL,      \
          "PressureLastStopUSec", NULL)                                                        \
        X(reclaim_stall_ns, uint64_t, STALL, COUNTER_NSEC, COUNTER_STALL_GUARD,                \
          "mglrud_reclaim_stall_seconds_total", "counter",                                     \
          "Time the cgroup's tasks spent in direct and memcg reclaim (BPF; mglrud's own "      \
          "writes not counted).", "ReclaimStallNSec", NULL)                                    \
        X(reclaim_stall_count, uint64_t, STALL, COUNTER_COUNT, COUNTER_STALL_GUARD, NULL,      \
          NULL, NULL, "ReclaimStallCount", NULL)                                               \
        X(guard_stops, uint32_t, ACTS, COUNTER_COUNT, COUNTER_ALWAYS,                          \
          "mglrud_stall_guard_stops_total", "counter",                                         \
          "Jobs the stall guard ended because the cgroup's tasks stalled in reclaim.",         \
          "StallGuardStops", NULL)                                                             \
        X(guard_last_stop_usec, uint64_t, ACTS, COUNTER_USEC, COUNTER_ALWAYS, NULL, NULL,      \
          NULL, "StallGuardLastStopUSec", NULL)                                                \
        X(guard_last_stall_ns, uint64_t, ACTS, COUNTER_NSEC, COUNTER_ALWAYS, NULL, NULL, NULL, \
          "StallGuardLastStallNSec", NULL)                                                     \
        X(refault_guard_stops, uint32_t, ACTS, COUNTER_COUNT, COUNTER_ALWAYS,                  \
          "mglrud_refault_guard_stops_total", "counter",                                       \
          "Jobs the refault guard ended because the file pages they evicted were read again "  \
          "while they ran.", "RefaultGuardStops", NULL)                                        \
        X(refault_guard_jobs, uint32_t, ACTS, COUNTER_COUNT, COUNTER_ALWAYS,                   \
          "mglrud_refault_guard_jobs_total", "counter", "Jobs the refault guard watched.",     \
          "RefaultGuardJobs", "Refault guard jobs")                                            \
        X(refault_guard_last_stop_usec, uint64_t, ACTS, COUNTER_USEC, COUNTER_ALWAYS, NULL,    \
          NULL, NULL, "RefaultGuardLastStopUSec", NULL)                                        \
        X(refault_guard_last_pages, uint64_t, ACTS, COUNTER_COUNT, COUNTER_ALWAYS, NULL, NULL, \
          NULL, "RefaultGuardLastPages", NULL)                                                 \
        X(refault_guard_last_limit, uint64_t, ACTS, COUNTER_COUNT, COUNTER_ALWAYS, NULL, NULL, \
          NULL, "RefaultGuardLastLimitPages", NULL)                                            \
        X(over_limit_decisions, uint32_t, ACTS, COUNTER_COUNT, COUNTER_ALWAYS,                 \
          "mglrud_working_set_over_limit_total", "counter",                                    \
          "Decisions over the HighHeadroom= line with too little idle for MinColdAge to get "  \
          "back to it: the working set exceeds the limit.", "WorkingSetOverLimit",             \
          "Working set over limit")

/* Daemon-wide counters (struct daemon_stats), in the order of the metrics and GetStatus:
 *   X(field, type, source, unit, metric, metric_type, help, bus_key)
 * source:     BRAKE, kept by a brake (brake.h: its stops, its status flag) and read from the
 *             manager's table of brakes (brakes_counter()); STATE, manager_daemon_stats() reads
 *             it from the manager's state.
 * The metrics (NULL: none) come after the per-cgroup ones; the dump's header is dump.c's.
 * Adding a counter a brake keeps: one line here, and its name in the brake's struct brake_ops. */
#define DAEMON_COUNTERS(X)                                                                     \
        X(cycles, uint64_t, STATE, COUNTER_COUNT, "mglrud_cycles_total", "counter",            \
          "Control cycles run.", "Cycles")                                                     \
        X(n_cgroups, uint64_t, STATE, COUNTER_COUNT, "mglrud_cgroups_managed", "gauge",        \
          "Cgroups under management.", "Cgroups")                                              \
        X(interval_usec, uint64_t, STATE, COUNTER_USEC, NULL, NULL, NULL, "IntervalUSec")      \
        X(cycle_usec, uint64_t, STATE, COUNTER_USEC, "mglrud_cycle_duration_seconds", "gauge", \
          "Duration of the last cycle.", "LastCycleUSec")                                      \
        X(dry_run, bool, STATE, COUNTER_FLAG, NULL, NULL, NULL, "DryRun")                      \
        X(paused_all, bool, STATE, COUNTER_FLAG, NULL, NULL, NULL, "PausedAll")                \
        X(pressure_stops, uint64_t, BRAKE, COUNTER_COUNT, NULL, NULL, NULL, "PressureStops")   \
        X(stall_guard, bool, BRAKE, COUNTER_FLAG, NULL, NULL, NULL, "StallGuard")              \
        X(stall_guard_stops, uint64_t, BRAKE, COUNTER_COUNT, NULL, NULL, NULL,                 \
          "StallGuardStops")                                                                   \
        X(refault_guard, bool, BRAKE, COUNTER_FLAG, NULL, NULL, NULL, "RefaultGuard")          \
        X(refault_guard_stops, uint64_t, BRAKE, COUNTER_COUNT, NULL, NULL, NULL,               \
          "RefaultGuardStops")                                                                 \
        X(write_age_usec, uint64_t, STATE, COUNTER_USEC, "mglrud_write_in_progress_seconds",   \
          "gauge", "How long the kernel write in progress has run (0: none).",                 \
          "WriteInProgressUSec")

#define COUNTER_ENUM_(field, ...) CONTROL_COUNTER_##field,
enum control_counter { CONTROL_COUNTERS(COUNTER_ENUM_) _CONTROL_COUNTER_MAX };
#undef COUNTER_ENUM_
#define COUNTER_ENUM_(field, ...) DAEMON_COUNTER_##field,
enum daemon_counter { DAEMON_COUNTERS(COUNTER_ENUM_) _DAEMON_COUNTER_MAX };
#undef COUNTER_ENUM_
