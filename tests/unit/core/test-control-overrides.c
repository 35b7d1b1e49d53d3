/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the bus asks of one cgroup's control beside the cycle (control-overrides.c) and what it
 * reads back (control-snapshot.c): runtime overrides change only their key of the configured
 * policy, are refused with a reason (nothing changed) for a bad value or a MinColdAge above
 * MaxColdAge, are removed by an empty value, and survive a rescan's new policy; Advise()
 * formats the decision now and changes nothing: no write, no job, the same snapshot. */
#include "core-fixture.h"

#include "mglrud/core/policy-pool.h"

#define HALF_AND_HALF "anon 536870912\nfile 536870912\npgsteal_proactive 0\n"
#define MIB (UINT64_C(1) << 20)
#define MINUTE (60 * UINT64_C(1000000))

struct over {
        struct core_fixture f;
        struct policy_pool *pool;
        struct policy base;            /* the configured policy */
        const char *reason;
};

static void over_init(struct over *o) {
        core_fixture_init(&o->f, POLICY_MODE_PRESSURE, HALF_AND_HALF);
        assert_int_equal(policy_pool_new(&o->pool), 0);
        o->base = *o->f.cg->policy;
        o->reason = NULL;
}

static void over_done(struct over *o) {
        core_fixture_done(&o->f);
        policy_pool_free(o->pool);
}

/* Returns whether a and b are the same policy, key for key (the pool keeps one copy of each). */
static bool same_policy(struct over *o, const struct policy *a, const struct policy *b) {
        const struct policy *x = policy_pool_intern(o->pool, a);
        assert_non_null(x);
        return x == policy_pool_intern(o->pool, b);
}

static int set(struct over *o, enum policy_key k, const char *value) {
        o->reason = NULL;
        return control_cgroup_set_override(o->f.cg, o->pool, &o->base, k, value, &o->reason);
}

static struct control_snapshot snapshot(struct over *o) {
        struct control_snapshot s;
        assert_int_equal(control_cgroup_snapshot(o->f.cg, &s), 0);
        return s;
}

static void test_override_one_key(void **state) {
        struct over o;
        over_init(&o);
        assert_int_equal(set(&o, POLICY_KEY_MAX_STEP, "32M"), 0);
        const struct policy *p = o.f.cg->policy;
        assert_int_equal(p->max_step_bytes, 32 * MIB);
        struct policy expect = o.base;
        expect.max_step_bytes = 32 * MIB;
        assert_ptr_equal(policy_pool_intern(o.pool, &expect), p); /* only that key, pooled */
        struct control_snapshot s = snapshot(&o);
        assert_int_equal(s.n_overrides, 1);
        assert_string_equal(s.overrides[0], "MaxStep=32M");

        assert_int_equal(set(&o, POLICY_KEY_MIN_COLD_AGE, "3min"), 0);
        s = snapshot(&o);
        assert_int_equal(s.n_overrides, 2);
        assert_string_equal(s.overrides[0], "MinColdAge=3min"); /* in key order */
        assert_string_equal(s.overrides[1], "MaxStep=32M");
        assert_int_equal(s.min_cold_age_usec, 3 * MINUTE);
        assert_int_equal(o.f.cg->policy->max_step_bytes, 32 * MIB); /* the first one stays */

        assert_int_equal(set(&o, POLICY_KEY_MAX_STEP, ""), 0); /* removed */
        assert_int_equal(o.f.cg->policy->max_step_bytes, o.base.max_step_bytes);
        assert_int_equal(o.f.cg->policy->min_cold_age_usec, 3 * MINUTE);
        assert_int_equal(snapshot(&o).n_overrides, 1);
        assert_int_equal(set(&o, POLICY_KEY_MIN_COLD_AGE, NULL), 0);
        assert_true(same_policy(&o, o.f.cg->policy, &o.base));
        assert_int_equal(snapshot(&o).n_overrides, 0);
        over_done(&o);
}

/* Refused: nothing changes, and the reason is said. */
static void test_override_refused(void **state) {
        struct over o;
        over_init(&o);
        assert_int_equal(set(&o, POLICY_KEY_MAX_STEP, "32M"), 0);
        const struct policy *before = o.f.cg->policy;
        assert_int_equal(set(&o, POLICY_KEY_MAX_STEP, "lots"), -EINVAL);
        assert_non_null(o.reason);
        assert_int_equal(set(&o, _POLICY_KEY_MAX, "1"), -EINVAL);
        assert_string_equal(o.reason, "unknown policy key");
        char above[32];
        snprintf(above, sizeof above, "%llus",
                 (unsigned long long) (o.base.max_cold_age_usec / 1000000 + 60));
        assert_int_equal(set(&o, POLICY_KEY_MIN_COLD_AGE, above), -EINVAL);
        assert_string_equal(o.reason, "MinColdAge= would be greater than MaxColdAge=");
        assert_ptr_equal(o.f.cg->policy, before);
        struct control_snapshot s = snapshot(&o);
        assert_int_equal(s.n_overrides, 1);
        assert_string_equal(s.overrides[0], "MaxStep=32M");
        over_done(&o);
}

/* Returns the policy a rescan finds configured for o's cgroup (the defaults with MaxStep=8M and
 * the cold-age bounds min and max, in minutes) with its overrides applied. */
static struct policy rescanned(struct over *o, uint64_t min, uint64_t max) {
        struct policy p;
        policy_init_defaults(&p);
        p.max_step_bytes = 8 * MIB;
        p.min_cold_age_usec = min * MINUTE;
        p.max_cold_age_usec = max * MINUTE;
        control_cgroup_apply_overrides(o->f.cg, &p);
        return p;
}

/* A rescan found a new configured policy: the overrides go over it; when the configuration's
 * MaxColdAge is now below an overridden MinColdAge, the overridden bound wins. */
static void test_overrides_survive_rescan(void **state) {
        struct over o;
        over_init(&o);
        assert_int_equal(set(&o, POLICY_KEY_MIN_COLD_AGE, "10min"), 0);
        struct policy p = rescanned(&o, 1, 5);
        assert_int_equal(p.max_step_bytes, 8 * MIB);
        assert_int_equal(p.min_cold_age_usec, 10 * MINUTE);
        assert_int_equal(p.max_cold_age_usec, 10 * MINUTE);

        /* An overridden MaxColdAge below the configuration's MinColdAge: MinColdAge follows. */
        assert_int_equal(set(&o, POLICY_KEY_MIN_COLD_AGE, ""), 0);
        assert_int_equal(set(&o, POLICY_KEY_MAX_COLD_AGE, "4min"), 0);
        p = rescanned(&o, 6, 60);
        assert_int_equal(p.max_cold_age_usec, 4 * MINUTE);
        assert_int_equal(p.min_cold_age_usec, 4 * MINUTE);
        over_done(&o);
}

/* A cgroup without overrides keeps the policy a rescan found. */
static void test_no_overrides_no_change(void **state) {
        struct over o;
        over_init(&o);
        struct policy p = o.base, before = o.base;
        p.max_cold_age_usec = before.max_cold_age_usec = 1; /* below MinColdAge: not ours */
        control_cgroup_apply_overrides(o.f.cg, &p);
        assert_true(same_policy(&o, &p, &before));
        over_done(&o);
}

/* Advise() after the first cycle: a decision is formatted, nothing is written, no job is
 * submitted, and the state is as it was: the next cycle decides as without it. */
static void test_advise_changes_nothing(void **state) {
        struct over o;
        char buf[1024], stat[64];
        over_init(&o);
        assert_int_equal(control_cgroup_cycle(o.f.cg, &o.f.in, o.f.act), 0);
        struct control_snapshot before = snapshot(&o);
        o.f.in.now_usec += 2000000;
        assert_int_equal(control_cgroup_advise(o.f.cg, &o.f.in, buf, sizeof buf), 0);
        assert_non_null(strstr(buf, "would reclaim 524K (file 524K via memory.reclaim 0): tmo-step"));
        assert_null(captured);
        int fd = openat(o.f.dirfd, "memory.reclaim", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(read(fd, stat, sizeof stat), 0);
        close(fd);
        struct control_snapshot after = snapshot(&o);
        assert_string_equal(after.reason, before.reason);
        assert_string_equal(after.line, before.line);
        assert_int_equal(after.cold_age_usec, before.cold_age_usec);
        /* The cycle at the same time decides and submits its first job, as without Advise(). */
        assert_int_equal(control_cgroup_cycle(o.f.cg, &o.f.in, o.f.act), 0);
        assert_non_null(captured);
        control_job_done(o.f.cg, captured, &o.f.report);
        captured = NULL;
        over_done(&o);
}

/* Advise() asks what Mode=advise would do, whatever the cgroup's Mode=: a cgroup with Mode=off
 * is told what it would reclaim. */
static void test_advise_whatever_the_mode(void **state) {
        struct over o;
        char buf[1024];
        over_init(&o);
        test_policy_of(o.f.cg)->mode = POLICY_MODE_OFF;
        assert_int_equal(control_cgroup_cycle(o.f.cg, &o.f.in, o.f.act), 0);
        o.f.in.now_usec += 2000000;
        assert_int_equal(control_cgroup_advise(o.f.cg, &o.f.in, buf, sizeof buf), 0);
        assert_non_null(strstr(buf, "would reclaim 524K"));
        assert_null(captured);
        over_done(&o);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_override_one_key),
                cmocka_unit_test(test_override_refused),
                cmocka_unit_test(test_overrides_survive_rescan),
                cmocka_unit_test(test_no_overrides_no_change),
                cmocka_unit_test(test_advise_changes_nothing),
                cmocka_unit_test(test_advise_whatever_the_mode),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
