/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics_format() on synthetic snapshots: the exact text, label escaping; the dump where it
 * shares their input (the dump's own exact text: test-dump.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mglrud/interfaces/dump.h"
#include "mglrud/shared/macro.h"
#include "mglrud/interfaces/metrics.h"

#include "snapshots.h"

static char *format(snapshot_format_t fmt, const struct control_snapshot *s, size_t n) {
        char *text = NULL;
        size_t len;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        assert_int_equal(fmt(f, &stats, s, n), 0);
        assert_int_equal(fclose(f), 0);
        return text;
}

static void test_metrics_exact(void **state) {
        struct control_snapshot s[2];
        make_snapshots(s);
        _cleanup_free_ char *text = format(metrics_format, s, 2);
        static const char expected[] =
                "# HELP mglrud_reclaimed_bytes_total Bytes reclaimed by mglrud, measured from memory.stat.\n"
                "# TYPE mglrud_reclaimed_bytes_total counter\n"
                "mglrud_reclaimed_bytes_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\",type=\"anon\"} 1048576\n"
                "mglrud_reclaimed_bytes_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\",type=\"file\"} 3\n"
                "mglrud_reclaimed_bytes_total{cgroup=\"/b\",type=\"anon\"} 0\n"
                "mglrud_reclaimed_bytes_total{cgroup=\"/b\",type=\"file\"} 0\n"
                "# HELP mglrud_cold_bytes Bytes idle for at least the cold age threshold.\n"
                "# TYPE mglrud_cold_bytes gauge\n"
                "mglrud_cold_bytes{cgroup=\"/a\\\\b \\\"c\\\"\\nd\",type=\"anon\"} 4096\n"
                "mglrud_cold_bytes{cgroup=\"/a\\\\b \\\"c\\\"\\nd\",type=\"file\"} 8192\n"
                "# HELP mglrud_cold_age_threshold_seconds The adaptive cold age threshold T.\n"
                "# TYPE mglrud_cold_age_threshold_seconds gauge\n"
                "mglrud_cold_age_threshold_seconds{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 2.5\n"
                "mglrud_cold_age_threshold_seconds{cgroup=\"/b\"} 60\n"
                "# HELP mglrud_pressure_some_ratio Share of the last cycle some task of the cgroup stalled on memory.\n"
                "# TYPE mglrud_pressure_some_ratio gauge\n"
                "mglrud_pressure_some_ratio{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 0.25\n"
                "# HELP mglrud_memory_needed_bytes Memory the cgroup needs to run unthrottled: what it touched within MinColdAge plus HighHeadroom= (a lower bound while the idle horizon is short).\n"
                "# TYPE mglrud_memory_needed_bytes gauge\n"
                "mglrud_memory_needed_bytes{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 209715200\n"
                "# HELP mglrud_memory_limit_bytes memory.high, or memory.max where memory.high is max (read where HighHeadroom= is on).\n"
                "# TYPE mglrud_memory_limit_bytes gauge\n"
                "mglrud_memory_limit_bytes{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 268435456\n"
                "# HELP mglrud_actions_total Cycles in which mglrud wrote.\n"
                "# TYPE mglrud_actions_total counter\n"
                "mglrud_actions_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 5\n"
                "mglrud_actions_total{cgroup=\"/b\"} 0\n"
                "# HELP mglrud_errors_total Failed writes.\n"
                "# TYPE mglrud_errors_total counter\n"
                "mglrud_errors_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 1\n"
                "mglrud_errors_total{cgroup=\"/b\"} 0\n"
                "# HELP mglrud_stream_files_total One-shot stream files whose pages mglrud dropped (or would drop).\n"
                "# TYPE mglrud_stream_files_total counter\n"
                "mglrud_stream_files_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 2\n"
                "mglrud_stream_files_total{cgroup=\"/b\"} 0\n"
                "# HELP mglrud_stream_dropped_bytes_total Bytes of one-shot streams asked to drop (clean pages only are dropped).\n"
                "# TYPE mglrud_stream_dropped_bytes_total counter\n"
                "mglrud_stream_dropped_bytes_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 440401920\n"
                "mglrud_stream_dropped_bytes_total{cgroup=\"/b\"} 0\n"
                "# HELP mglrud_refaults_own_pages_total File pages read back into the page cache after reclaim evicted them, as mglrud counts them (BPF; RefaultCheck=).\n"
                "# TYPE mglrud_refaults_own_pages_total counter\n"
                "mglrud_refaults_own_pages_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 4096\n"
                "mglrud_refaults_own_pages_total{cgroup=\"/b\"} 0\n"
                "# HELP mglrud_refault_undercount 1 when the kernel's refault counts of the cgroup were found short: the controllers take the larger of them and mglrud's own count.\n"
                "# TYPE mglrud_refault_undercount gauge\n"
                "mglrud_refault_undercount{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 1\n"
                "mglrud_refault_undercount{cgroup=\"/b\"} 0\n"
                "# HELP mglrud_pressure_stops_total Times a PSI trigger stopped mglrud's reclaim in the cgroup.\n"
                "# TYPE mglrud_pressure_stops_total counter\n"
                "mglrud_pressure_stops_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 3\n"
                "mglrud_pressure_stops_total{cgroup=\"/b\"} 0\n"
                "# HELP mglrud_reclaim_stall_seconds_total Time the cgroup's tasks spent in direct and memcg reclaim (BPF; mglrud's own writes not counted).\n"
                "# TYPE mglrud_reclaim_stall_seconds_total counter\n"
                "mglrud_reclaim_stall_seconds_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 1.25\n"
                "# HELP mglrud_stall_guard_stops_total Jobs the stall guard ended because the cgroup's tasks stalled in reclaim.\n"
                "# TYPE mglrud_stall_guard_stops_total counter\n"
                "mglrud_stall_guard_stops_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 2\n"
                "mglrud_stall_guard_stops_total{cgroup=\"/b\"} 0\n"
                "# HELP mglrud_refault_guard_stops_total Jobs the refault guard ended because the file pages they evicted were read again while they ran.\n"
                "# TYPE mglrud_refault_guard_stops_total counter\n"
                "mglrud_refault_guard_stops_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 1\n"
                "mglrud_refault_guard_stops_total{cgroup=\"/b\"} 0\n"
                "# HELP mglrud_refault_guard_jobs_total Jobs the refault guard watched.\n"
                "# TYPE mglrud_refault_guard_jobs_total counter\n"
                "mglrud_refault_guard_jobs_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 4\n"
                "mglrud_refault_guard_jobs_total{cgroup=\"/b\"} 0\n"
                "# HELP mglrud_working_set_over_limit_total Decisions over the HighHeadroom= line with too little idle for MinColdAge to get back to it: the working set exceeds the limit.\n"
                "# TYPE mglrud_working_set_over_limit_total counter\n"
                "mglrud_working_set_over_limit_total{cgroup=\"/a\\\\b \\\"c\\\"\\nd\"} 3\n"
                "mglrud_working_set_over_limit_total{cgroup=\"/b\"} 0\n"
                "# HELP mglrud_host_idle_bytes Bytes of every memcg by known idle time: bucket le holds the bytes not known to be idle longer than le seconds (a generation is idle at least as long as the next younger one exists; the youngest 0).\n"
                "# TYPE mglrud_host_idle_bytes histogram\n"
                "# HELP mglrud_host_idle_horizon_seconds The longest idle time the host's generations tell: nothing is known past it.\n"
                "# TYPE mglrud_host_idle_horizon_seconds gauge\n"
                "# HELP mglrud_idle_bytes Bytes of the cgroup by known idle time: bucket le holds the bytes not known to be idle longer than le seconds; _count - bucket is idle at least le.\n"
                "# TYPE mglrud_idle_bytes histogram\n"
                "# HELP mglrud_idle_horizon_seconds The longest idle time the cgroup's generations tell: nothing is known past it.\n"
                "# TYPE mglrud_idle_horizon_seconds gauge\n"
                "# HELP mglrud_idle_last_aged_seconds Time since the cgroup's generations were last aged (the information's age).\n"
                "# TYPE mglrud_idle_last_aged_seconds gauge\n"
                "# HELP mglrud_idle_reaccess_ratio_per_minute Share of the bytes idle at least ge seconds (in generations eviction could take) used again per minute, over the last minutes (from 30 s of readings on).\n"
                "# TYPE mglrud_idle_reaccess_ratio_per_minute gauge\n"
                "# HELP mglrud_forecast_free_bytes What evicting the generations idle at least the threshold (T, MinColdAge, MaxColdAge) would free now; absent while not known.\n"
                "# TYPE mglrud_forecast_free_bytes gauge\n"
                "# HELP mglrud_cycles_total Control cycles run.\n"
                "# TYPE mglrud_cycles_total counter\n"
                "mglrud_cycles_total 42\n"
                "# HELP mglrud_cgroups_managed Cgroups under management.\n"
                "# TYPE mglrud_cgroups_managed gauge\n"
                "mglrud_cgroups_managed 2\n"
                "# HELP mglrud_cycle_duration_seconds Duration of the last cycle.\n"
                "# TYPE mglrud_cycle_duration_seconds gauge\n"
                "mglrud_cycle_duration_seconds 0.0015\n"
                "# HELP mglrud_write_in_progress_seconds How long the kernel write in progress has run (0: none).\n"
                "# TYPE mglrud_write_in_progress_seconds gauge\n"
                "mglrud_write_in_progress_seconds 2.5\n"
                "# HELP mglrud_writes_total Writes to kernel files (lru_gen, memory.reclaim chunks, stream drops).\n"
                "# TYPE mglrud_writes_total counter\n"
                "mglrud_writes_total 12\n"
                "# HELP mglrud_write_failures_total Writes the kernel refused (a removed cgroup is not counted).\n"
                "# TYPE mglrud_write_failures_total counter\n"
                "mglrud_write_failures_total 1\n"
                "# HELP mglrud_write_asked_bytes_total Bytes the writes asked to evict, reclaim or drop.\n"
                "# TYPE mglrud_write_asked_bytes_total counter\n"
                "mglrud_write_asked_bytes_total 50331648\n";
        assert_string_equal(text, expected);
}

static void test_metrics_empty(void **state) {
        _cleanup_free_ char *text = format(metrics_format, NULL, 0);
        assert_non_null(strstr(text, "# TYPE mglrud_cold_bytes gauge\n# HELP"));
        assert_non_null(strstr(text, "\nmglrud_cgroups_managed 2\n"));
        assert_null(strstr(text, "{"));
}

/* With the fast path on: the latency histogram (cumulative buckets, the last one +Inf = the
 * count) and the crossing counts, in the metrics and the dump. */
static void test_stream_fast_path(void **state) {
        struct daemon_stats d = stats;
        d.streams = (struct streams_stats) {
                .counting = true,
                .tracked = 4,
                .map_files = 1234,
                .fast_path = true,
                .watched = 3,
                .fast_runs = 9,
                .crossings = 40,
                .lost = 2,
                .latency_count = 6,
                .latency_sum_usec = 1200000,
                .latency_max_usec = 700000,
                .latency_buckets = { [1] = 1, [3] = 2, [4] = 2 }, /* and one above 250 ms */
        };
        char *text = NULL;
        size_t len;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        assert_int_equal(metrics_format(f, &d, NULL, 0), 0);
        assert_int_equal(fclose(f), 0);
        assert_non_null(strstr(text,
                "# TYPE mglrud_stream_drop_latency_seconds histogram\n"
                "mglrud_stream_drop_latency_seconds_bucket{le=\"0.01\"} 0\n"
                "mglrud_stream_drop_latency_seconds_bucket{le=\"0.025\"} 1\n"
                "mglrud_stream_drop_latency_seconds_bucket{le=\"0.05\"} 1\n"
                "mglrud_stream_drop_latency_seconds_bucket{le=\"0.1\"} 3\n"
                "mglrud_stream_drop_latency_seconds_bucket{le=\"0.25\"} 5\n"
                "mglrud_stream_drop_latency_seconds_bucket{le=\"0.5\"} 5\n"
                "mglrud_stream_drop_latency_seconds_bucket{le=\"1\"} 5\n"
                "mglrud_stream_drop_latency_seconds_bucket{le=\"2.5\"} 5\n"
                "mglrud_stream_drop_latency_seconds_bucket{le=\"5\"} 5\n"
                "mglrud_stream_drop_latency_seconds_bucket{le=\"10\"} 5\n"
                "mglrud_stream_drop_latency_seconds_bucket{le=\"+Inf\"} 6\n"
                "mglrud_stream_drop_latency_seconds_sum 1.2\n"
                "mglrud_stream_drop_latency_seconds_count 6\n"));
        assert_non_null(strstr(text, "\nmglrud_stream_crossings_total 40\n"));
        assert_non_null(strstr(text, "\nmglrud_stream_crossings_lost_total 2\n"));
        assert_non_null(strstr(text, "\nmglrud_stream_map_files 1234\n"));
        assert_non_null(strstr(text, "\nmglrud_stream_counted_cgroup_ids 4\n"));
        free(text);

        f = open_memstream(&text, &len);
        assert_non_null(f);
        assert_int_equal(dump_format(f, &d, NULL, 0), 0);
        assert_int_equal(fclose(f), 0);
        assert_non_null(strstr(text, "        Stream map: 1234 files, insertions counted in 4 "
                                     "cgroup ids\n"));
        assert_non_null(strstr(text, "        Stream fast path: 3 cgroup ids watched, 9 runs, 40 "
                                     "crossings (2 lost), 6 drops 200ms after the threshold on "
                                     "average, at most 700ms\n"));
        free(text);
}

/* The idle-age families on a profile of generations idle ≥ 38, 10, 2 s and the youngest:
 * histogram buckets on the ladder only (not the oldest generation's own row), the horizon, the
 * re-access rate once a minute is covered, forecasts only where known. */
static void test_metrics_idle(void **state) {
        struct control_snapshot s[2];
        struct lrugen_lruvec v = {
                .memcg_id = 5,
                .nr_gens = 4,
                .gens = {
                        { .seq = 1, .age_ms = 60000, .nr_pages = { 100, 0 } },
                        { .seq = 2, .age_ms = 38000, .nr_pages = { 0, 0 } },
                        { .seq = 3, .age_ms = 10000, .nr_pages = { 20, 3 } },
                        { .seq = 4, .age_ms = 2000, .nr_pages = { 5, 1 } },
                },
        };
        struct host_idle host = { .has_profile = true };
        struct daemon_stats d = stats;

        make_snapshots(s);
        /* What the cgroup kept of its last reading, at time 0. */
        _cleanup_free_ struct control_idle_state *x = calloc(1, control_idle_state_size(1));
        assert_non_null(x);
        x->has_profile = true;
        x->n_gens = 1;
        assert_int_equal(idle_gens_take(&v, NULL, 0, 4096, &x->gens[0]), 0);
        s[1].idle_state = x;
        assert_int_equal(idle_profile_compute(&v, 1, NULL, 0, 4096, idle_ladder_default_usec,
                                              IDLE_LADDER_DEFAULT_N, &host.profile), 0);
        d.host_idle = &host;
        x->forecasts[CONTROL_FORECAST_T] = (struct idle_forecast) {
                .threshold_usec = 10000000, .bytes = { 409600, 0 } };
        x->forecasts[CONTROL_FORECAST_MIN] = (struct idle_forecast) {
                .threshold_usec = 5000000, .bytes = { 409600, 0 }, .flags = IDLE_ROW_PARTIAL };
        x->forecasts[CONTROL_FORECAST_MAX] = (struct idle_forecast) {
                .threshold_usec = 120000000, .flags = IDLE_ROW_UNKNOWN };
        assert_int_equal(idle_risk_init(&x->risk, idle_ladder_default_usec, 2), 0);
        x->risk.exposed[0][LRUGEN_ANON] = 1000;
        x->risk.promoted[0][LRUGEN_ANON] = 5; /* 5 of 1000 byte-seconds: 0.3 per minute */
        x->risk.window_usec = 120e6;

        char *text = NULL;
        size_t len;
        FILE *f = open_memstream(&text, &len);
        assert_int_equal(metrics_format(f, &d, s, 2), 0);
        assert_int_equal(fclose(f), 0);
        static const char *const want[] = {
                "\nmglrud_idle_bytes_bucket{cgroup=\"/b\",type=\"anon\",le=\"10\"} 102400\n"
                "mglrud_idle_bytes_bucket{cgroup=\"/b\",type=\"anon\",le=\"30\"} 102400\n"
                "mglrud_idle_bytes_bucket{cgroup=\"/b\",type=\"anon\",le=\"60\"} 512000\n",
                "\nmglrud_idle_bytes_bucket{cgroup=\"/b\",type=\"anon\",le=\"+Inf\"} 512000\n"
                "mglrud_idle_bytes_sum{cgroup=\"/b\",type=\"anon\"} 15728640\n"
                "mglrud_idle_bytes_count{cgroup=\"/b\",type=\"anon\"} 512000\n",
                "\nmglrud_idle_bytes_bucket{cgroup=\"/b\",type=\"file\",le=\"10\"} 16384\n",
                "\nmglrud_idle_horizon_seconds{cgroup=\"/b\"} 38\n",
                "\nmglrud_idle_last_aged_seconds{cgroup=\"/b\"} 2\n",
                "\nmglrud_idle_reaccess_ratio_per_minute{cgroup=\"/b\",ge=\"10\"} 0.3\n# HELP",
                "\nmglrud_forecast_free_bytes{cgroup=\"/b\",type=\"anon\",threshold=\"T\"} 409600\n"
                "mglrud_forecast_free_bytes{cgroup=\"/b\",type=\"file\",threshold=\"T\"} 0\n"
                "mglrud_forecast_free_bytes{cgroup=\"/b\",type=\"anon\",threshold=\"MinColdAge\"} "
                "409600\n",
                "\nmglrud_host_idle_bytes_bucket{type=\"anon\",le=\"3600\"} 512000\n",
                "\nmglrud_host_idle_horizon_seconds 38\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                if (!strstr(text, want[i]))
                        fail_msg("missing:\n%s\nin:\n%s", want[i], text);
        /* Not the oldest generation's own row, not a forecast that is not known. */
        assert_null(strstr(text, "le=\"38\""));
        assert_null(strstr(text, "threshold=\"MaxColdAge\""));
        assert_null(strstr(text, "mglrud_idle_bytes_bucket{cgroup=\"/a"));
        /* Less than 30 s of readings: no rate yet. */
        x->risk.window_usec = 20e6;
        free(text);
        f = open_memstream(&text, &len);
        assert_int_equal(metrics_format(f, &d, s, 2), 0);
        assert_int_equal(fclose(f), 0);
        assert_null(strstr(text, "mglrud_idle_reaccess_ratio_per_minute{"));
        free(text);
}

/* A Kubernetes container and a pod: runtime and QoS class become labels, ids do not; the dump
 * shows the short id, the pod and the annotated keys. */
static void test_containers(void **state) {
        const struct control_snapshot s[2] = {
                {
                        .path = "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-"
                                "pod4b6a1c3e_9f2d_4e8a_b7c5_1d2e3f4a5b6c.slice/cri-containerd-"
                                "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
                                ".scope",
                        .id = 9,
                        .section = "Policy:batch",
                        .mode = "active",
                        .reason = "none",
                        .runtime = "containerd",
                        .container_id = "0123456789abcdef0123456789abcdef0123456789abcdef"
                                        "0123456789abcdef",
                        .pod_uid = "4b6a1c3e-9f2d-4e8a-b7c5-1d2e3f4a5b6c",
                        .qos_class = "BestEffort",
                        .annotated_policy = "batch",
                        .annotations = { "MinColdAge=5s" },
                        .n_annotations = 1,
                },
                {
                        .path = "/kubepods/pod4b6a1c3e-9f2d-4e8a-b7c5-1d2e3f4a5b6c",
                        .id = 10,
                        .section = "Pod:guaranteed",
                        .mode = "advise",
                        .reason = "none",
                        .pod_uid = "4b6a1c3e-9f2d-4e8a-b7c5-1d2e3f4a5b6c",
                        .qos_class = "Guaranteed",
                },
        };
        _cleanup_free_ char *text = format(metrics_format, s, 2);
        assert_non_null(strstr(text, "\nmglrud_actions_total{cgroup=\"/kubepods.slice/"));
        assert_non_null(strstr(text, ".scope\",runtime=\"containerd\",qos_class=\"BestEffort\"} 0\n"));
        assert_non_null(strstr(text, "\nmglrud_reclaimed_bytes_total{cgroup=\"/kubepods/pod4b6a1c3e-"
                                     "9f2d-4e8a-b7c5-1d2e3f4a5b6c\",qos_class=\"Guaranteed\","
                                     "type=\"anon\"} 0\n"));
        assert_null(strstr(text, "container_id"));
        assert_null(strstr(text, "pod_uid"));

        _cleanup_free_ char *dump = format(dump_format, s, 2);
        assert_non_null(strstr(dump, "        Id: 9\n        Container: containerd 0123456789ab\n"
                                     "        Pod: 4b6a1c3e-9f2d-4e8a-b7c5-1d2e3f4a5b6c (BestEffort)\n"
                                     "        Section: [Policy:batch]\n        Mode: active\n"
                                     "        Override: MinColdAge=5s (annotation)\n"));
        assert_non_null(strstr(dump, "        Id: 10\n        Pod: 4b6a1c3e-9f2d-4e8a-b7c5-"
                                     "1d2e3f4a5b6c (Guaranteed)\n        Section: [Pod:guaranteed]\n"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_metrics_exact),
                cmocka_unit_test(test_metrics_empty),
                cmocka_unit_test(test_stream_fast_path),
                cmocka_unit_test(test_metrics_idle),
                cmocka_unit_test(test_containers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
