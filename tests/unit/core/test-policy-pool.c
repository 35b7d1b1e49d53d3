/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pool of effective policies: one copy per distinct policy, stable while the table grows,
 * retired pools freed with the pool that retired them (ASan checks the frees). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "mglrud/config/config.h"
#include "mglrud/core/policy-pool.h"

static struct policy policy_with(uint64_t max_step) {
        struct policy p;
        policy_init_defaults(&p);
        p.max_step_bytes = max_step;
        return p;
}

/* Equal policies (every field) share one copy, which is not the caller's. */
static void test_equal_share(void **unused) {
        struct policy_pool *pool;
        assert_int_equal(policy_pool_new(&pool), 0);
        struct policy a = policy_with(1 << 20), b = a;
        const struct policy *pa = policy_pool_intern(pool, &a), *pb = policy_pool_intern(pool, &b);
        assert_non_null(pa);
        assert_ptr_equal(pa, pb);
        assert_ptr_not_equal(pa, &a);
        assert_int_equal(pa->max_step_bytes, 1 << 20);
        assert_int_equal(policy_pool_count(pool), 1);
        policy_pool_free(pool);
}

/* A policy differing in any one key is another copy; 0.0 and -0.0 (equal) are one. */
static void test_each_field_counts(void **unused) {
        struct policy_pool *pool;
        assert_int_equal(policy_pool_new(&pool), 0);
        struct policy base;
        policy_init_defaults(&base);
        const struct policy *pbase = policy_pool_intern(pool, &base);
        struct policy v[11];
        for (int i = 0; i < 11; i++)
                v[i] = base;
        v[0].mode = POLICY_MODE_ADVISE;
        v[1].min_cold_age_usec++;
        v[2].max_cold_age_usec++;
        v[3].pressure_target += 0.001;
        v[4].refault_target += 0.001;
        v[5].swappiness = v[5].swappiness == 7 ? 8 : 7;
        v[6].floor_bytes++;
        v[7].max_step_bytes++;
        v[8].reclaim_ratio += 0.001;
        v[9].stream_protection = base.stream_protection == STREAM_PROTECTION_NO
                                         ? STREAM_PROTECTION_YES : STREAM_PROTECTION_NO;
        v[10].high_headroom += 0.01;
        for (int i = 0; i < 11; i++) {
                const struct policy *pv = policy_pool_intern(pool, &v[i]);
                assert_non_null(pv);
                assert_ptr_not_equal(pv, pbase);
        }
        assert_int_equal(policy_pool_count(pool), 12);

        struct policy zero = base, negative_zero = base;
        zero.refault_target = 0.0;
        negative_zero.refault_target = -0.0;
        assert_ptr_equal(policy_pool_intern(pool, &zero), policy_pool_intern(pool, &negative_zero));
        policy_pool_free(pool);
}

/* Thousands of distinct policies (one annotation per container): every copy stays where it
 * was returned while the table grows, and each is found again. */
static void test_growth_keeps_copies(void **unused) {
        enum { N = 3000 };
        static const struct policy *first[N];
        struct policy_pool *pool;
        assert_int_equal(policy_pool_new(&pool), 0);
        for (int i = 0; i < N; i++) {
                struct policy p = policy_with((uint64_t) i);
                assert_non_null(first[i] = policy_pool_intern(pool, &p));
        }
        assert_int_equal(policy_pool_count(pool), N);
        for (int i = 0; i < N; i++) {
                struct policy p = policy_with((uint64_t) i);
                assert_ptr_equal(policy_pool_intern(pool, &p), first[i]);
                assert_int_equal(first[i]->max_step_bytes, i);
        }
        assert_int_equal(policy_pool_count(pool), N);
        policy_pool_free(pool);
}

/* A rescan that stopped half-way retires the old pool into the new one: its copies stay valid
 * until the new pool goes, and both go then. */
static void test_retire(void **unused) {
        struct policy_pool *old, *mid, *cur;
        assert_int_equal(policy_pool_new(&old), 0);
        assert_int_equal(policy_pool_new(&mid), 0);
        assert_int_equal(policy_pool_new(&cur), 0);
        struct policy a = policy_with(1), b = policy_with(2), c = policy_with(3);
        const struct policy *pa = policy_pool_intern(old, &a);
        assert_non_null(policy_pool_intern(mid, &b));
        assert_non_null(policy_pool_intern(cur, &c));
        policy_pool_retire(mid, old);
        policy_pool_retire(cur, mid);
        policy_pool_retire(cur, NULL);
        assert_int_equal(pa->max_step_bytes, 1);
        assert_int_equal(policy_pool_count(cur), 1);
        policy_pool_free(cur);
        policy_pool_free(NULL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_equal_share),
                cmocka_unit_test(test_each_field_counts),
                cmocka_unit_test(test_growth_keeps_copies),
                cmocka_unit_test(test_retire),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
