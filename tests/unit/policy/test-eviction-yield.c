/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What an eviction at T got, against what it asked: under a quarter means the generations
 * counted idle were in use, and T rises as after refaults (tiering.c: last_eviction_futile). */
#include "guard-fixture.h"

/* Pages the first decision of the fixture asks for: generations 10 and 11 (idle 600 s and
 * 300 s >= T = 240 s), anon and file. */
#define ASKED (50000 + 20000 + 10000 + 5000)

/* The next cycle after the kernel took `took` pages of what was asked. */
static void step_took(struct fixture *f, uint64_t took) {
        f->prev = f->cur;
        f->cur = sample_next(&f->prev, 10 * SEC);
        sample_add_reclaimed(&f->cur, 0, took);
}

static struct decision first_eviction(struct fixture *f) {
        struct decision d = run(&f->p, &f->caps, &f->s, &f->prev, &f->cur);

        assert_int_equal(d.reason, DECISION_EVICT_COLD);
        assert_int_equal(PAGES(d.planned_bytes[LRUGEN_ANON] + d.planned_bytes[LRUGEN_FILE]),
                         ASKED);
        assert_int_equal(f->s.last_cold_evict_pages, ASKED);
        return d;
}

/* Under a quarter taken: T rises ×1.5 and becomes the floor, flagged; at a quarter it stays. */
static void test_futile_eviction_raises_t(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f);
        first_eviction(&f);
        step_took(&f, ASKED / 4 - 1);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_true(d.flags & DECISION_FLAG_FUTILE);
        assert_true(d.flags & DECISION_FLAG_T_RAISED);
        assert_false(d.flags & DECISION_FLAG_REFAULTS); /* not a refault: said apart */
        assert_int_equal(f.s.cold_age_usec, 360 * SEC);
        assert_int_equal(f.s.t_floor_usec, 360 * SEC);

        setup(&f);
        first_eviction(&f);
        step_took(&f, ASKED / 4);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_false(d.flags & (DECISION_FLAG_FUTILE | DECISION_FLAG_T_RAISED));
        assert_int_equal(f.s.cold_age_usec, 240 * SEC);
}

/* Futile writes in a row raise T as a refault burst does: once, then held for two cycles. */
static void test_futile_raises_are_held(void **unused) {
        struct fixture f;
        struct decision d;
        int raises = 0;

        setup(&f);
        first_eviction(&f);
        for (int i = 0; i < 3; i++) {
                step_took(&f, 0);
                d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
                raises += !!(d.flags & DECISION_FLAG_T_RAISED);
        }
        assert_int_equal(raises, 1);
        assert_int_equal(f.s.cold_age_usec, 360 * SEC);
}

/* Decides the fixture's first cycle with these generations, asserts that it leaves `asked`
 * pages to judge, and that the next cycle, in which the kernel took nothing, finds it futile
 * exactly when `judged`. */
static void assert_judged(struct fixture *f, const uint64_t anon[4], const uint64_t file[4],
                          uint64_t asked, bool judged) {
        struct decision d;

        lruvec_fill(&f->v, 42, 0, 10, 4, cold_ages, anon, file);
        d = run(&f->p, &f->caps, &f->s, &f->prev, &f->cur);
        assert_int_equal(f->s.last_cold_evict_pages, asked);
        step_took(f, 0);
        d = run(&f->p, &f->caps, &f->s, &f->prev, &f->cur);
        assert_int_equal(!!(d.flags & DECISION_FLAG_FUTILE), judged);
        assert_int_equal(!!(d.flags & DECISION_FLAG_T_RAISED), judged);
}

/* Not judged: advice (nothing is written), evictions under POLICY_REFAULT_MIN_PAGES (200 anon
 * + 55 file pages asked) and a decision that evicted nothing. */
static void test_unjudged_evictions(void **unused) {
        static const uint64_t few[4] = { 100, 100, 50, 50 }, few_file[4] = { 50, 5, 0, 0 },
                              none[4] = { 0, 0, 0, 0 };
        struct fixture f;

        setup(&f);
        f.p.mode = POLICY_MODE_ADVISE;
        assert_judged(&f, cold_anon, cold_file, 0, false);
        setup(&f);
        assert_judged(&f, few, few_file, 255, false);
        setup(&f);
        assert_judged(&f, none, none, 0, false);
        /* The same fixture at 256 pages is judged: the cases above are not vacuous. */
        setup(&f);
        assert_judged(&f, few, (const uint64_t[4]) { 50, 6, 0, 0 }, 256, true);
}

/* A write that failed (policy_note_error()) is not judged by what it took. */
static void test_failed_write_not_judged(void **unused) {
        struct fixture f;
        struct decision d;

        setup(&f);
        first_eviction(&f);
        policy_note_error(&f.s, f.cur.now_usec);
        step_took(&f, 0);
        d = run(&f.p, &f.caps, &f.s, &f.prev, &f.cur);
        assert_int_equal(d.reason, DECISION_NONE_BACKOFF);
        assert_false(d.flags & (DECISION_FLAG_FUTILE | DECISION_FLAG_T_RAISED));
        assert_int_equal(f.s.cold_age_usec, 240 * SEC);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_futile_eviction_raises_t),
                cmocka_unit_test(test_futile_raises_are_held),
                cmocka_unit_test(test_unjudged_evictions),
                cmocka_unit_test(test_failed_write_not_judged),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
