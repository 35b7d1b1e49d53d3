/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guard-fixture.h: one cold cgroup, decided cycle after cycle, for the tests of what the cycles
 * teach the controller (T adaptation, guards: test-guard.c, test-eviction-yield.c). */
#pragma once

#include "policy-test.h"

static const uint32_t cold_ages[4] = { 900, 600, 300, 100 };
static const uint64_t cold_anon[4] = { 50000, 20000, 1000, 500 };
static const uint64_t cold_file[4] = { 10000, 5000, 1000, 500 };

struct fixture {
        struct policy p;
        struct kernel_caps caps;
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev, cur;
};

/* A cold cgroup after its warmup cycle: cur is 10 s after prev and would evict. */
static inline void setup(struct fixture *f) {
        struct decision d;

        f->p = test_policy();
        f->caps = caps_all();
        lruvec_fill(&f->v, 42, 0, 10, 4, cold_ages, cold_anon, cold_file);
        f->prev = sample_make(1000 * SEC);
        f->prev.lruvecs = &f->v;
        f->prev.n_lruvecs = 1;
        state_init_running(&f->s, &f->p, &f->prev);
        d = run(&f->p, &f->caps, &f->s, NULL, &f->prev);
        assert_int_equal(d.reason, DECISION_NONE_WARMUP);
        f->cur = sample_next(&f->prev, 10 * SEC);
}

/* The next cycle, 10 s later, after the kernel took everything the last decision asked. */
static inline void step(struct fixture *f) {
        f->prev = f->cur;
        f->cur = sample_next(&f->prev, 10 * SEC);
        sample_took_asked(&f->cur, &f->s);
}
