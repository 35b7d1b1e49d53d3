/* SPDX-License-Identifier: GPL-2.0-or-later */
/* act_mode_decide(): the mode of a cgroup's decision and of its drops for every combination of
 * --dry-run, Mode=, StreamProtection=, lru_gen writability, a denied memory.reclaim and what the
 * decision holds; act_mode_allows(): what each mode writes. The facts are built by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mglrud/policy/act-mode.h"
#include "mglrud/shared/macro.h"

/* What a decision holds: nothing, ageing only, evictions with ageing (lru_gen), memory.reclaim
 * only (the fallback or Mode=pressure), memory.reclaim with ageing. */
struct held {
        unsigned n_age, n_reclaims;
};
static const struct held helds[] = { { 0, 0 }, { 1, 0 }, { 3, 0 }, { 0, 1 }, { 2, 2 } };

static const enum policy_mode modes[] = { POLICY_MODE_ACTIVE, POLICY_MODE_ADVISE,
                                          POLICY_MODE_PRESSURE, POLICY_MODE_OFF };

/* The expected mode, spelled out case by case (not the implementation's shape). */
static enum act_mode expected(bool dry_run, enum policy_mode mode, bool lrugen_write,
                              bool denied, struct held h) {
        if (dry_run)
                return ACT_REPORT;              /* nothing at all is written */
        if (mode == POLICY_MODE_OFF)
                return ACT_REPORT;              /* not managed */
        bool advised = mode == POLICY_MODE_ADVISE || (denied && h.n_reclaims > 0);
        if (!advised)
                return ACT_WRITE;
        if (h.n_age > 0 && lrugen_write)
                return ACT_AGE_ONLY;            /* advice ages */
        return ACT_REPORT;
}

static void test_decision_every_combination(void **state) {
        unsigned n = 0;
        for (int dry = 0; dry <= 1; dry++)
                for (size_t m = 0; m < ELEMENTSOF(modes); m++)
                        for (int lw = 0; lw <= 1; lw++)
                                for (int denied = 0; denied <= 1; denied++)
                                        for (size_t k = 0; k < ELEMENTSOF(helds); k++) {
                                                struct act_facts f = {
                                                        .subject = ACT_SUBJECT_DECISION,
                                                        .dry_run = dry,
                                                        .mode = modes[m],
                                                        .lrugen_write = lw,
                                                        .reclaim_denied = denied,
                                                        .n_age = helds[k].n_age,
                                                        .n_reclaims = helds[k].n_reclaims,
                                                };
                                                enum act_mode want = expected(dry, modes[m], lw,
                                                                              denied, helds[k]);
                                                assert_int_equal(act_mode_decide(&f), want);
                                                n++;
                                        }
        assert_int_equal(n, 2 * 4 * 2 * 2 * 5);
}

/* A few rows by name, as the operator meets them. */
static void test_decision_named_cases(void **state) {
        struct act_facts f = { .subject = ACT_SUBJECT_DECISION, .mode = POLICY_MODE_ADVISE,
                               .lrugen_write = true, .n_age = 2 };
        assert_int_equal(act_mode_decide(&f), ACT_AGE_ONLY);   /* Mode=advise ages */
        f.dry_run = true;
        assert_int_equal(act_mode_decide(&f), ACT_REPORT);     /* --dry-run does not */
        f.dry_run = false;
        f.lrugen_write = false;
        assert_int_equal(act_mode_decide(&f), ACT_REPORT);     /* lockdown: cannot age */

        f = (struct act_facts) { .subject = ACT_SUBJECT_DECISION, .mode = POLICY_MODE_PRESSURE,
                                 .reclaim_denied = true, .n_reclaims = 1 };
        assert_int_equal(act_mode_decide(&f), ACT_REPORT);     /* delegated: advice */
        f.n_reclaims = 0;
        f.n_age = 1;
        f.lrugen_write = true;
        assert_int_equal(act_mode_decide(&f), ACT_WRITE);      /* no memory.reclaim in it */
}

static void test_drops(void **state) {
        static const enum stream_protection sps[] = { STREAM_PROTECTION_YES,
                                                      STREAM_PROTECTION_NO,
                                                      STREAM_PROTECTION_ADVISE };
        for (int dry = 0; dry <= 1; dry++)
                for (size_t m = 0; m < ELEMENTSOF(modes); m++)
                        for (size_t k = 0; k < ELEMENTSOF(sps); k++) {
                                struct act_facts f = { .subject = ACT_SUBJECT_DROPS,
                                                       .dry_run = dry, .mode = modes[m],
                                                       .stream_protection = sps[k],
                                                       /* not read for drops: */
                                                       .lrugen_write = true, .n_age = 1 };
                                bool writes = !dry && sps[k] == STREAM_PROTECTION_YES &&
                                              (modes[m] == POLICY_MODE_ACTIVE ||
                                               modes[m] == POLICY_MODE_PRESSURE);
                                assert_int_equal(act_mode_decide(&f),
                                                 writes ? ACT_WRITE : ACT_REPORT);
                        }
}

static void test_wants_advice(void **state) {
        for (int dry = 0; dry <= 1; dry++)
                for (size_t m = 0; m < ELEMENTSOF(modes); m++) {
                        struct act_facts f = { .dry_run = dry, .mode = modes[m] };
                        assert_int_equal(act_wants_advice(&f),
                                         dry || modes[m] == POLICY_MODE_ADVISE);
                }
}

static void test_allows(void **state) {
        static const enum act_write kinds[] = { ACT_WRITE_AGE, ACT_WRITE_EVICT,
                                                ACT_WRITE_RECLAIM, ACT_WRITE_DROP };
        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                assert_true(act_mode_allows(ACT_WRITE, kinds[k]));
                assert_int_equal(act_mode_allows(ACT_AGE_ONLY, kinds[k]),
                                 kinds[k] == ACT_WRITE_AGE);
                assert_false(act_mode_allows(ACT_REPORT, kinds[k]));
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_decision_every_combination),
                cmocka_unit_test(test_decision_named_cases),
                cmocka_unit_test(test_drops),
                cmocka_unit_test(test_wants_advice),
                cmocka_unit_test(test_allows),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
