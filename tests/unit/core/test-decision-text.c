/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decision_format(): the advice line (and the line of a decision written, ACT_WRITE). */
#include <errno.h>

#include "mglrud/core/decision-text.h"
#include "policy-test.h"

/* cold: anon 200M + 12M, file 32M + 8M; cooling (idle 130 s of T = 240 s): anon 10M, file 5M */
static void cold_lruvec(struct lrugen_lruvec *v) {
        lruvec_fill(v, 42, 0, 10, 4, (uint32_t[]) { 900, 600, 300, 130 },
                    (uint64_t[]) { PAGES(200 * MiB), PAGES(12 * MiB), PAGES(10 * MiB), 256 },
                    (uint64_t[]) { PAGES(32 * MiB), PAGES(8 * MiB), PAGES(5 * MiB), 256 });
}

static void test_advice_line(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;
        char buf[1024];
        int n;

        p.mode = POLICY_MODE_ADVISE;
        p.swappiness = 150; /* 75% anon */
        p.max_step_bytes = 64 * MiB;
        cold_lruvec(&v);
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;
        prev.has_psi = false;
        state_init_running(&s, &p, &prev);
        d = run(&p, &caps, &s, NULL, &prev);
        assert_true(decision_format(&d, ACT_REPORT, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "cold anon 212M file 40M (idle ≥ 4min), cooling anon 10M file 5M; "
                                 "psi some n/a; T=4min: warmup [first sample, no psi]");

        prev.has_psi = true;
        cur = sample_next(&prev, 10 * SEC);
        d = run(&p, &caps, &s, &prev, &cur);
        n = decision_format(&d, ACT_REPORT, buf, sizeof(buf));
        assert_string_equal(buf, "cold anon 212M file 40M (idle ≥ 4min), cooling anon 10M file 5M; "
                                 "psi some 0.00%; T=4min; would evict 64M (anon 48M via lru_gen "
                                 "max, file 16M via lru_gen 0); would age 1 lruvec: "
                                 "cold-generations");
        /* Advice ages even with a cold backlog over MaxStep: it never drains one, and deferring
         * the ageing would make recently used pages look cold (active mode defers it). */
        assert_int_equal(n, (int) strlen(buf));

        /* snprintf semantics: truncated, still the full length */
        assert_int_equal(decision_format(&d, ACT_REPORT, buf, 10), n);
        assert_string_equal(buf, "cold anon");
        assert_int_equal(decision_format(&d, ACT_REPORT, NULL, 0), n);

        decision_format(&d, ACT_WRITE, buf, sizeof(buf)); /* the same decision, written */
        assert_non_null(strstr(buf, "; evicting 64M (anon 48M via lru_gen max, file 16M via "
                                    "lru_gen 0); ageing 1 lruvec: cold-generations"));

        /* pressure: T raised, nothing planned */
        prev = cur;
        cur = sample_next(&prev, 10 * SEC);
        cur.psi.some.total_us = prev.psi.some.total_us + 250000; /* 2.5% */
        d = run(&p, &caps, &s, &prev, &cur);
        decision_format(&d, ACT_REPORT, buf, sizeof(buf));
        assert_string_equal(buf, "cold anon 200M file 32M (idle ≥ 6min), cooling anon 12M file 8M; "
                                 "psi some 2.50%; T=6min: pressure [T raised]");
}

/* T past the oldest generation: the line says what the generations tell, not "cold anon 0"
 * (the capture: ~147 MiB idle for 38 s, T = 2.6 min). */
/* The sizing beside the limit, where the limits are read (HighHeadroom=), and the headroom
 * flags. */
static void test_sizing_clause(void **unused) {
        struct decision_summary d = {
                .reason = DECISION_EVICT_COLD,
                .has_estimates = true,
                .cold_age_usec = 60 * SEC,
                .idle_horizon_usec = 600 * SEC,
                .need_bytes = 200 * MiB,
                .limit_bytes = 256 * MiB,
                .flags = DECISION_FLAG_HEADROOM | DECISION_FLAG_OVER_LIMIT,
                .act = ACT_REPORT,
        };
        char buf[512];

        assert_true(decision_summary_format(&d, buf, sizeof buf) > 0);
        assert_non_null(strstr(buf, "; T=1min; needs ~200M to run unthrottled, limit 256M: "
                                    "cold-generations [over the headroom line, working set "
                                    "exceeds the limit]"));
        d.need_horizon_short = true;
        assert_true(decision_summary_format(&d, buf, sizeof buf) > 0);
        assert_non_null(strstr(buf, "needs ~200M (nothing known idle for MinColdAge yet: all of it) to run "
                                    "unthrottled, limit 256M"));
        /* No limit read: no sizing clause. */
        d.limit_bytes = 0;
        assert_true(decision_summary_format(&d, buf, sizeof buf) > 0);
        assert_null(strstr(buf, "needs ~"));
}

static void test_t_past_horizon(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC);
        struct decision d;
        char buf[1024];

        p.mode = POLICY_MODE_ADVISE;
        p.min_cold_age_usec = p.max_cold_age_usec = 156 * SEC;
        lruvec_fill(&v, 42, 0, 10, 4, (uint32_t[]) { 60, 38, 10, 2 },
                    (uint64_t[]) { PAGES(147 * MiB), 0, 2000, 100 }, (uint64_t[]) { 0, 0, 0, 0 });
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;
        state_init_running(&s, &p, &prev);
        d = run(&p, &caps, &s, NULL, &prev);
        decision_format(&d, ACT_REPORT, buf, sizeof(buf));
        assert_string_equal(buf, "cold anon ? file ? (idle ≥ 2.6min not known yet: the oldest "
                                 "generation is idle ≥ 38s, anon 147M file 0), cooling anon 0 file "
                                 "0; psi some n/a; T=2.6min: warmup [first sample]");
        /* Nothing older than the youngest generation: nothing known at all. */
        lruvec_fill(&v, 42, 0, 10, 2, (uint32_t[]) { 60, 2 }, (uint64_t[]) { 0, 100 },
                    (uint64_t[]) { 0, 0 });
        d = run(&p, &caps, &s, NULL, &prev);
        decision_format(&d, ACT_REPORT, buf, sizeof(buf));
        assert_non_null(strstr(buf, "cold anon ? file ? (idle ≥ 2.6min not known yet: no "
                                    "generation older than the youngest holds pages)"));
}

static void test_mixed_and_no_swap(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct lrugen_lruvec v;
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;
        char buf[1024];

        p.max_step_bytes = 64 * MiB;
        caps.swappiness_max = false;
        cold_lruvec(&v);
        prev.lruvecs = &v;
        prev.n_lruvecs = 1;
        state_init_running(&s, &p, &prev);
        (void) run(&p, &caps, &s, NULL, &prev);
        cur = sample_next(&prev, 10 * SEC);
        d = run(&p, &caps, &s, &prev, &cur);
        decision_format(&d, ACT_WRITE, buf, sizeof(buf));
        assert_non_null(strstr(buf, "; evicting 64M (anon 32M via lru_gen 100, file 32M via "
                                    "lru_gen 0): cold-generations [no "
                                    "swappiness=max: anon as a mixed write]"));

        caps = caps_all();
        caps.has_swap = false;
        sample_took_asked(&cur, &s);
        d = run(&p, &caps, &s, &prev, &cur);
        decision_format(&d, ACT_WRITE, buf, sizeof(buf));
        assert_non_null(strstr(buf, "; evicting 40M (file 40M via lru_gen 0)"));
        assert_non_null(strstr(buf, "[cold anon but no swap]"));
}

static void test_tmo_line(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct policy_state s;
        struct cgroup_sample prev = sample_make(1000 * SEC), cur;
        struct decision d;
        char buf[1024];

        p.mode = POLICY_MODE_ADVISE;
        p.swappiness = 0;
        prev.has_lrugen = false;
        state_init_running(&s, &p, &prev);
        (void) run(&p, &caps, &s, NULL, &prev);
        cur = sample_next(&prev, 6 * SEC);
        d = run(&p, &caps, &s, &prev, &cur);
        decision_format(&d, ACT_REPORT, buf, sizeof(buf));
        assert_string_equal(buf, "no lru_gen histogram; psi some 0.00%; T=4min; would reclaim 524K "
                                 "(file 524K via memory.reclaim 0): tmo-step");

        p.swappiness = 100;
        d = run(&p, &caps, &s, &prev, &cur);
        decision_format(&d, ACT_REPORT, buf, sizeof(buf));
        assert_string_equal(buf, "no lru_gen histogram; psi some 0.00%; T=4min; would reclaim 524K "
                                 "(file 264K via memory.reclaim 0, anon 260K via memory.reclaim "
                                 "max): tmo-step");

        caps.swappiness_max = false;
        d = run(&p, &caps, &s, &prev, &cur);
        decision_format(&d, ACT_REPORT, buf, sizeof(buf));
        assert_non_null(strstr(buf, "would reclaim 524K (anon 260K + file 264K via memory.reclaim "
                                    "100): tmo-step"));
}

static void test_mode_off_and_invalid(void **unused) {
        struct decision d = { .reason = DECISION_NONE_MODE_OFF };
        char buf[64];

        assert_int_equal(decision_format(&d, ACT_REPORT, buf, sizeof(buf)), 21);
        assert_string_equal(buf, "not managed: mode-off");
        d.reason = _DECISION_REASON_MAX;
        assert_int_equal(decision_format(&d, ACT_REPORT, buf, sizeof(buf)), -EINVAL);
        assert_int_equal(decision_format(NULL, ACT_REPORT, buf, sizeof(buf)), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sizing_clause),
                cmocka_unit_test(test_advice_line),
                cmocka_unit_test(test_t_past_horizon),
                cmocka_unit_test(test_mixed_and_no_swap),
                cmocka_unit_test(test_tmo_line),
                cmocka_unit_test(test_mode_off_and_invalid),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
