/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snapshots.h: the hand-built daemon stats and two snapshots test-metrics and test-dump format. */
#pragma once

#include "mglrud/core/manager.h"

static const struct daemon_stats stats = {
        .cycles = 42,
        .n_cgroups = 2,
        .cycle_usec = 1500,
        .write_age_usec = 2500000,
        .interval_usec = 5000000,
        .actuation = { .jobs = 7, .writes = 12, .failed = 1, .asked_bytes = 50331648 },
        .stall_guard = true,
        .stall_guard_stops = 2,
        .refault_guard = true,
        .refault_guard_stops = 1,
};

/* Two cgroups: one with every figure and a path needing escapes, one without estimates/PSI. */
static void make_snapshots(struct control_snapshot s[2]) {
        s[0] = (struct control_snapshot) {
                .path = "/a\\b \"c\"\nd",
                .id = 7,
                .section = "/a*",
                .mode = "active",
                .cold_age_usec = 2500000,
                .reason = "cold-generations",
                .has_estimates = true,
                .cold_bytes = { 4096, 8192 },
                .cooling_bytes = { 1048576, 0 },
                .warm_bytes = { 0, 2097152 },
                .has_psi_some = true,
                .psi_some = 0.25,
                .reclaimed_bytes = { 1048576, 3 },
                .actions = 5,
                .errors = 1,
                .stream_files = 2,
                .stream_dropped_bytes = 440401920,
                .kernel_refault_pages = 12,
                .own_refault_pages = 4096,
                .refault_undercount = true,
                .refault_undercount_sign = "own-count",
                .last_write_usec = 34567890,
                .pressure_stops = 3,
                .stopped_jobs = 1,
                .first_stop_usec = 1000000,
                .last_stop_usec = 2500000,
                .has_reclaim_stall = true,
                .reclaim_stall_ns = 1250000001,
                .reclaim_stall_count = 9,
                .guard_stops = 2,
                .guard_last_stall_ns = 612000000,
                .guard_last_stop_usec = 12345678,
                .refault_guard_stops = 1,
                .refault_guard_jobs = 4,
                .refault_guard_last_pages = 700,
                .refault_guard_last_limit = 512,
                .over_limit_decisions = 3,
                .need_bytes = 209715200,
                .limit_bytes = 268435456,
                .refault_guard_last_stop_usec = 23456789,
        };
        s[1] = (struct control_snapshot) {
                .path = "/b",
                .id = 8,
                .section = "/b",
                .mode = "advise",
                .cold_age_usec = 60000000,
                .reason = "none",
                .paused = true,
        };
}

