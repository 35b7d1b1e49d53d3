/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How far a cgroup's user.mglrud.* xattrs count (man/mglrud.8, SECURITY): CgroupAttributes=
 * against the directory's owner and mode, the keys an annotation may not set, the bounds the
 * configuration puts on the others, and an exact path's Mode=off that nothing changes. */

#include "config-helpers.h"

#define OWNER_UID 1000u
#define SELF_UID 4242u

static void test_trusted_owner(void **state) {
        char why[160] = "";
        struct config c;

        config_init(&c);
        assert_int_equal(c.cgroup_attributes, CGROUP_ATTRIBUTES_ROOT_OWNED);
        /* root-owned: root or the daemon's own uid, and nobody else may write the directory */
        assert_true(config_attributes_trusted(CGROUP_ATTRIBUTES_ROOT_OWNED, 0, 0755, 0, why, sizeof why));
        assert_true(config_attributes_trusted(CGROUP_ATTRIBUTES_ROOT_OWNED, SELF_UID, 0755, SELF_UID,
                                              why, sizeof why));
        assert_false(config_attributes_trusted(CGROUP_ATTRIBUTES_ROOT_OWNED, OWNER_UID, 0755, 0, why,
                                               sizeof why));
        assert_string_equal(why, "the directory is owned by uid 1000 (CgroupAttributes=root-owned)");
        assert_false(config_attributes_trusted(CGROUP_ATTRIBUTES_ROOT_OWNED, 0, 0775, 0, why, sizeof why));
        assert_string_equal(why, "the directory is writable by its group (mode 0775, "
                                 "CgroupAttributes=root-owned)");
        assert_false(config_attributes_trusted(CGROUP_ATTRIBUTES_ROOT_OWNED, 0, 0757, 0, why, sizeof why));
        assert_string_equal(why, "the directory is writable by everyone (mode 0757, "
                                 "CgroupAttributes=root-owned)");
        /* delegated: anyone's; no: nobody's, not even root's */
        assert_true(config_attributes_trusted(CGROUP_ATTRIBUTES_DELEGATED, OWNER_UID, 0775, 0, why,
                                              sizeof why));
        assert_false(config_attributes_trusted(CGROUP_ATTRIBUTES_NO, 0, 0755, 0, why, sizeof why));
        assert_string_equal(why, "CgroupAttributes=no");

        /* the key parses, dumps and refuses what it does not know */
        assert_int_equal(config_load_string("[Daemon]\nCgroupAttributes=delegated\n", "d.conf", &c), 0);
        assert_int_equal(c.cgroup_attributes, CGROUP_ATTRIBUTES_DELEGATED);
        assert_true(c.daemon_set_mask & (1u << DAEMON_KEY_CGROUP_ATTRIBUTES));
        assert_int_equal(config_load_string("[Daemon]\nCgroupAttributes=no\n", "d.conf", &c), 0);
        assert_int_equal(c.cgroup_attributes, CGROUP_ATTRIBUTES_NO);
        assert_int_equal(config_load_string("[Daemon]\nCgroupAttributes=yes\n", "d.conf", &c), -EINVAL);
        assert_int_equal(cap.n, 1);
        assert_string_equal(cap.msg[0], "d.conf:2: [Daemon] CgroupAttributes=yes: expected "
                                        "root-owned, delegated or no");
        assert_int_equal(c.cgroup_attributes, CGROUP_ATTRIBUTES_NO); /* unchanged */
        config_done(&c);
}

/* What config_annotation_bound passed to its callback, one "Key=value: reason" per entry. */
static char notes[8][256];
static size_t n_notes;

static void note(const char *key, const char *value, const char *reason, void *userdata) {
        assert_string_equal(userdata, "cookie");
        if (n_notes < 8)
                snprintf(notes[n_notes++], sizeof notes[0], "%s=%s: %s", key, value, reason);
}

/* Empties a (no name, no key) over the built-in defaults. */
static void reset(struct cgroup_annotation *a) {
        *a = (struct cgroup_annotation) {};
        policy_init_defaults(&a->overrides);
}

static void annotate(struct cgroup_annotation *a, const char *key, const char *value) {
        const char *reason = NULL;
        if (config_annotation_add(a, key, value, &reason) < 0)
                fail_msg("%s=%s refused: %s", key, value, reason);
}

/* The effective policy of path with annotation a bounded first, as discovery does it. Returns
 * the most specific section. */
static const struct policy_section *bounded(const struct config *c, const char *path,
                                            struct cgroup_annotation *a, struct policy *ret) {
        const struct cgroup_match m = { .path = path, .annotation = a };
        n_notes = 0;
        (void) config_annotation_bound(c, &m, a, note, (void *) "cookie");
        return config_policy_for(c, &m, ret);
}

static const char conf[] =
        "[Defaults]\nMaxStep=64M\nMinColdAge=2min\nMaxColdAge=20min\n"
        "[/user.slice/*]\nMode=advise\n"
        "[/user.slice/mine]\nMode=active\nMaxStep=16M\nMinColdAge=1min\nFloor=8M\n"
        "StreamProtection=advise\n"
        "[/user.slice/off]\nMode=off\n"
        "[Policy:fast]\nMode=active\nMinColdAge=10s\nMaxStep=128M\n";

/* Loads conf into c and empties a. */
static void load(struct config *c, struct cgroup_annotation *a) {
        config_init(c);
        assert_int_equal(config_load_string(conf, "b.conf", c), 0);
        reset(a);
}

/* The attack of issue 20: Mode=active MaxStep=1T MinColdAge=1s (and Swappiness=max, which
 * config_annotation_add already refuses) on a cgroup the administrator configured. */
static void test_bounds(void **state) {
        struct config c;
        struct policy p;
        struct cgroup_annotation a = {};
        const char *reason = NULL;

        load(&c, &a);
        assert_int_equal(config_annotation_add(&a, "Swappiness", "max", &reason), -EINVAL);
        assert_string_equal(reason, "not allowed in an annotation (the configuration's sections set it)");
        annotate(&a, "Mode", "active");
        annotate(&a, "MaxStep", "1T");
        annotate(&a, "MinColdAge", "1s");
        annotate(&a, "MaxColdAge", "5s");
        annotate(&a, "StreamProtection", "yes");
        annotate(&a, "Floor", "0");
        const struct policy_section *s = bounded(&c, "/user.slice/mine", &a, &p);
        assert_string_equal(s->name, "/user.slice/mine");
        assert_int_equal(n_notes, 5); /* Mode=active equals the section's: kept */
        assert_string_equal(notes[0], "MinColdAge=1s: below the configuration's 1min for this "
                                      "cgroup: clamped to it (an annotation may only raise it)");
        assert_string_equal(notes[1], "MaxColdAge=5s: below the configuration's 20min for this "
                                      "cgroup: clamped to it (an annotation may only raise it)");
        assert_string_equal(notes[2], "Floor=0: below the configuration's 8M for this cgroup: "
                                      "clamped to it (an annotation may only raise it)");
        assert_string_equal(notes[3], "MaxStep=1T: above the configuration's 16M for this "
                                      "cgroup: clamped to it (an annotation may only lower it)");
        assert_string_equal(notes[4], "StreamProtection=yes: more than the configuration's advise "
                                      "for this cgroup: ignored (an annotation may only lower it)");
        assert_int_equal(p.mode, POLICY_MODE_ACTIVE);
        assert_int_equal(p.max_step_bytes, 16 * MiB);
        assert_int_equal(p.min_cold_age_usec, 1 * USEC_PER_MIN);
        assert_int_equal(p.max_cold_age_usec, 20 * USEC_PER_MIN);
        assert_int_equal(p.floor_bytes, 8 * MiB);
        assert_int_equal(p.stream_protection, STREAM_PROTECTION_ADVISE);

        /* Mode may not go up from advise (the glob's), but more careful values stay as they are */
        reset(&a);
        annotate(&a, "Mode", "active");
        annotate(&a, "MaxStep", "1M");
        annotate(&a, "MinColdAge", "10min");
        annotate(&a, "PressureTarget", "50%");
        (void) bounded(&c, "/user.slice/other", &a, &p);
        assert_int_equal(n_notes, 2);
        assert_string_equal(notes[0], "Mode=active: more than the configuration's advise for this "
                                      "cgroup: ignored (an annotation may only lower it)");
        assert_string_equal(notes[1], "PressureTarget=50%: above the configuration's 0.1% for this "
                                      "cgroup: clamped to it (an annotation may only lower it)");
        assert_int_equal(p.mode, POLICY_MODE_ADVISE);
        assert_int_equal(p.max_step_bytes, 1 * MiB);
        assert_int_equal(p.min_cold_age_usec, 10 * USEC_PER_MIN);
        assert_ratio_equal(p.pressure_target, 0.001);
        /* down is always allowed */
        reset(&a);
        annotate(&a, "Mode", "off");
        (void) bounded(&c, "/user.slice/mine", &a, &p);
        assert_int_equal(n_notes, 0);
        assert_int_equal(p.mode, POLICY_MODE_OFF);

        /* a [Policy:NAME] the administrator wrote sets the bounds it names */
        reset(&a);
        annotate(&a, "policy", "fast");
        annotate(&a, "MinColdAge", "5s");
        annotate(&a, "MaxStep", "100M");
        s = bounded(&c, "/user.slice/other", &a, &p);
        assert_string_equal(s->name, "Policy:fast");
        assert_int_equal(n_notes, 1);
        assert_int_equal(p.mode, POLICY_MODE_ACTIVE);
        assert_int_equal(p.min_cold_age_usec, 10 * USEC_PER_SEC);
        assert_int_equal(p.max_step_bytes, 100 * MiB);
        config_done(&c);
}

/* An exact path's Mode=off is final: neither [Policy:NAME] nor a key changes it. */
static void test_exact_off_final(void **state) {
        struct config c;
        struct policy p;
        struct cgroup_annotation a = {};

        load(&c, &a);
        annotate(&a, "policy", "fast");
        annotate(&a, "Mode", "active");
        annotate(&a, "MaxStep", "1M");
        const struct policy_section *s = bounded(&c, "/user.slice/off", &a, &p);
        assert_string_equal(s->name, "Policy:fast");
        assert_int_equal(p.mode, POLICY_MODE_OFF);
        assert_false(config_manages(s, &p));
        assert_int_equal(a.set_mask, 0);
        assert_int_equal(n_notes, 2);
        assert_string_equal(notes[0], "Mode=active: an exact-path section sets Mode=off for this "
                                      "cgroup: ignored");
        /* even unbounded (a runtime override's base is computed the same way) */
        annotate(&a, "Mode", "active");
        (void) config_policy_for(&c, &(const struct cgroup_match) { .path = "/user.slice/off",
                                                                    .annotation = &a }, &p);
        assert_int_equal(p.mode, POLICY_MODE_OFF);
        /* a glob's Mode=off is no exact path: [Policy:NAME] (the administrator's) wins there */
        assert_int_equal(config_load_string("[/x/*]\nMode=off\n[Policy:fast]\nMode=active\n",
                                            "g.conf", &c), 0);
        reset(&a);
        annotate(&a, "policy", "fast");
        s = bounded(&c, "/x/y", &a, &p);
        assert_int_equal(p.mode, POLICY_MODE_ACTIVE);
        assert_true(config_manages(s, &p));
        /* but a key may not raise it */
        reset(&a);
        annotate(&a, "Mode", "advise");
        s = bounded(&c, "/x/y", &a, &p);
        assert_int_equal(n_notes, 1);
        assert_int_equal(p.mode, POLICY_MODE_OFF);
        assert_false(config_manages(s, &p));
        config_done(&c);
}

/* Keys alone never make a cgroup no section selects managed. */
static void test_unselected(void **state) {
        struct config c;
        struct policy p;
        struct cgroup_annotation a = {};

        load(&c, &a);
        annotate(&a, "Mode", "active");
        annotate(&a, "MaxStep", "1M");
        const struct policy_section *s = bounded(&c, "/system.slice/x.service", &a, &p);
        assert_null(s);
        assert_false(config_manages(s, &p));
        /* a policy name with no section: not selected either */
        annotate(&a, "policy", "nosuch");
        s = bounded(&c, "/system.slice/x.service", &a, &p);
        assert_null(s);
        assert_false(config_manages(s, &p));
        config_done(&c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_trusted_owner, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
                cmocka_unit_test_setup_teardown(test_exact_off_final, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unselected, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
