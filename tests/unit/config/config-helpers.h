/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Log capture and comparison helpers shared by test-config.c and test-config-files.c. */
#pragma once

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
// cmocka must come after the headers above
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "mglrud/config/config.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/parse-util.h"

/* The effective policy of a cgroup that is no container and carries no annotation. */
static inline const struct policy_section *policy_for_path(const struct config *c,
                                                           const char *path, struct policy *ret) {
        const struct cgroup_match m = { .path = path };
        return config_policy_for(c, &m, ret);
}

#define USEC_PER_MIN (60 * USEC_PER_SEC)
#define MiB (UINT64_C(1) << 20)

/* ---- log capture ---- */

#define MAX_CAPTURED 32
static struct {
        int level[MAX_CAPTURED];
        char *msg[MAX_CAPTURED];
        size_t n;
} cap;

static inline void capture_reset(void) {
        for (size_t i = 0; i < cap.n; i++)
                free(cap.msg[i]);
        cap.n = 0;
}

static inline void capture(int level, const char *msg, void *userdata) {
        if (cap.n < MAX_CAPTURED) {
                cap.level[cap.n] = level;
                cap.msg[cap.n] = strdup(msg);
                cap.n++;
        }
}

static inline size_t count_level(int level) {
        size_t n = 0;
        for (size_t i = 0; i < cap.n; i++)
                n += cap.level[i] == level;
        return n;
}

static inline int setup(void **state) {
        log_set_max_level(LOG_DEBUG);
        log_set_capture(capture, NULL);
        capture_reset();
        return 0;
}

static inline int teardown(void **state) {
        capture_reset();
        log_set_capture(NULL, NULL);
        return 0;
}

/* ---- helpers ---- */

/* Ratios reach us through different arithmetic ("0.05%" parsed vs 0.0005 written in C, or a
 * dump printed with 6 digits): equal up to rounding is what matters. */
#define assert_ratio_equal(a, b) assert_true(fabs((a) - (b)) <= 1e-12 * fabs(b) + 1e-15)

static inline void assert_policy_equal(const struct policy *a, const struct policy *b) {
        assert_int_equal(a->mode, b->mode);
        assert_int_equal(a->min_cold_age_usec, b->min_cold_age_usec);
        assert_int_equal(a->max_cold_age_usec, b->max_cold_age_usec);
        assert_ratio_equal(a->pressure_target, b->pressure_target);
        assert_ratio_equal(a->refault_target, b->refault_target);
        assert_int_equal(a->swappiness, b->swappiness);
        assert_int_equal(a->floor_bytes, b->floor_bytes);
        assert_int_equal(a->max_step_bytes, b->max_step_bytes);
        assert_ratio_equal(a->reclaim_ratio, b->reclaim_ratio);
        assert_int_equal(a->stream_protection, b->stream_protection);
        assert_ratio_equal(a->high_headroom, b->high_headroom);
}

static inline void assert_daemon_equal(const struct config *a, const struct config *b) {
        assert_int_equal(a->interval_usec, b->interval_usec);
        assert_int_equal(a->dry_run, b->dry_run);
        assert_true((a->cgroup_root == NULL) == (b->cgroup_root == NULL));
        if (a->cgroup_root)
                assert_string_equal(a->cgroup_root, b->cgroup_root);
        assert_string_equal(a->debugfs_root, b->debugfs_root);
        assert_string_equal(a->proc_root, b->proc_root);
        assert_int_equal(a->log_level, b->log_level);
        assert_ratio_equal(a->host_full_limit, b->host_full_limit);
        assert_int_equal(a->host_min_available, b->host_min_available);
        assert_int_equal(a->stream_fast_path, b->stream_fast_path);
        assert_int_equal(a->refault_check, b->refault_check);
        assert_int_equal(a->pressure_triggers, b->pressure_triggers);
        assert_int_equal(a->stall_guard, b->stall_guard);
        assert_int_equal(a->refault_guard, b->refault_guard);
}

/* [Defaults] with section i applied (what config_dump prints for it). */
static inline void section_effective(const struct config *c, size_t i, struct policy *ret) {
        *ret = c->defaults;
        for (unsigned k = 0; k < _POLICY_KEY_MAX; k++)
                if (c->sections[i].set_mask & (1u << k))
                        policy_copy_key(ret, &c->sections[i].policy, k);
}

/* Effective policies of every section and of the defaults must match. */
static inline void assert_config_equal(const struct config *a, const struct config *b) {
        assert_daemon_equal(a, b);
        assert_policy_equal(&a->defaults, &b->defaults);
        assert_int_equal(a->n_sections, b->n_sections);
        for (size_t i = 0; i < a->n_sections; i++) {
                struct policy pa, pb;
                assert_string_equal(a->sections[i].name, b->sections[i].name);
                section_effective(a, i, &pa);
                section_effective(b, i, &pb);
                assert_policy_equal(&pa, &pb);
        }
}

/* Returns what config_dump() (--check-config) prints for c; free() it. */
static inline char *config_dump_string(const struct config *c) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        assert_non_null(f);
        config_dump(c, f);
        assert_int_equal(fclose(f), 0);
        return buf;
}

/* Asserts that a dump of c parses back, without a message, to the same settings as c. */
static inline void assert_dump_reloads(const struct config *c, const char *dump) {
        struct config back;

        config_init(&back);
        assert_int_equal(config_load_string(dump, "dump", &back), 0);
        assert_int_equal(cap.n, 0);
        assert_config_equal(c, &back);
        config_done(&back);
}
