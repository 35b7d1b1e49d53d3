/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sections by container kind and annotated policy: [Container:RUNTIME], [Pod:QOS],
 * [Policy:NAME], their names and errors, how they rank against path globs (config.h), and a
 * container's annotation (the user.mglrud.* xattrs) checked with the config parser. */

#include "config-helpers.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "4b6a1c3e-9f2d-4e8a-b7c5-1d2e3f4a5b6c"
#define DOCKER_PATH "/system.slice/docker-" ID ".scope"
#define BE_POD "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" \
               "4b6a1c3e_9f2d_4e8a_b7c5_1d2e3f4a5b6c.slice"

/* The effective policy of path, identified as container_identify() reads it, with an
 * optional annotation. */
static const struct policy_section *policy_for(const struct config *c, const char *path,
                                               const struct cgroup_annotation *a,
                                               struct policy *ret) {
        struct container_identity ci;
        assert_int_equal(container_identify(path, &ci), 0);
        const struct cgroup_match m = { .path = path, .container = &ci, .annotation = a };
        return config_policy_for(c, &m, ret);
}

static void annotate(struct cgroup_annotation *a, const char *key, const char *value) {
        const char *reason = NULL;
        if (config_annotation_add(a, key, value, &reason) < 0)
                fail_msg("%s=%s refused: %s", key, value, reason);
}

static void test_kind_sections(void **state) {
        static const char text[] =
                "[Container:docker]\nMaxStep=8M\n"
                "[Container:*]\nMaxStep=16M\nSwappiness=10\n"
                "[Pod:BestEffort]\nMinColdAge=30s\n"
                "[Pod:*]\nMode=advise\n"
                "[Pod:guaranteed]\nMode=advise\n"
                "[Container:CRI-O]\nFloor=1M\n"
                "[Policy:batch]\nMaxStep=1G\n";
        struct config c;
        struct policy p;
        const struct policy_section *s;

        config_init(&c);
        assert_int_equal(config_load_string(text, "k.conf", &c), 0);
        assert_int_equal(c.n_sections, 7);
        /* names are canonical: runtime and QoS class in lower case */
        assert_string_equal(c.sections[2].name, "Pod:besteffort");
        assert_string_equal(c.sections[5].name, "Container:crio");
        assert_int_equal(c.sections[0].match, SECTION_MATCH_CONTAINER);
        assert_int_equal(c.sections[0].selector, CONTAINER_RUNTIME_DOCKER);
        assert_int_equal(c.sections[1].selector, SECTION_SELECTOR_ANY);
        assert_int_equal(c.sections[6].match, SECTION_MATCH_POLICY);

        s = policy_for(&c, DOCKER_PATH, NULL, &p);
        assert_non_null(s);
        assert_string_equal(s->name, "Container:docker");
        assert_int_equal(p.max_step_bytes, 8 * MiB);  /* Container:docker over Container:* */
        assert_int_equal(p.swappiness, 10);           /* from Container:* */
        assert_int_equal(p.mode, POLICY_MODE_ACTIVE);

        s = policy_for(&c, "/machine.slice/libpod-" ID ".scope", NULL, &p);
        assert_string_equal(s->name, "Container:*");
        s = policy_for(&c, BE_POD "/crio-" ID ".scope", NULL, &p);
        assert_string_equal(s->name, "Container:crio");
        assert_int_equal(p.floor_bytes, 1 * MiB);
        assert_int_equal(p.max_step_bytes, 16 * MiB);

        /* a pod is no container: Pod sections only */
        s = policy_for(&c, BE_POD, NULL, &p);
        assert_string_equal(s->name, "Pod:besteffort");
        assert_int_equal(p.min_cold_age_usec, 30 * USEC_PER_SEC);
        assert_int_equal(p.mode, POLICY_MODE_ADVISE);
        s = policy_for(&c, "/kubepods/burstable/pod" UID, NULL, &p);
        assert_string_equal(s->name, "Pod:*");

        /* conmon and the runtime's own units match nothing */
        assert_null(policy_for(&c, "/machine.slice/libpod-conmon-" ID ".scope", NULL, &p));
        assert_null(policy_for(&c, "/system.slice/docker.service", NULL, &p));
        assert_false(config_manages(NULL, &p));

        /* [Policy:NAME] only through an annotation */
        assert_non_null(config_find_policy(&c, "batch"));
        assert_null(config_find_policy(&c, "batch2"));
        struct cgroup_annotation a = {};
        policy_init_defaults(&a.overrides);
        annotate(&a, "policy", "batch");
        s = policy_for(&c, "/batch.slice/job.service", &a, &p);
        assert_non_null(s);
        assert_string_equal(s->name, "Policy:batch");
        assert_int_equal(p.max_step_bytes, UINT64_C(1) << 30);
        config_done(&c);
}

static void test_rank_against_globs(void **state) {
        static const char text[] =
                "[/system.slice/*]\nMaxStep=1M\nFloor=1M\nSwappiness=1\nRefaultTarget=1%\n"
                "[Container:*]\nMaxStep=2M\nFloor=2M\nSwappiness=2\n"
                "[Container:docker]\nMaxStep=3M\nFloor=3M\n"
                "[" DOCKER_PATH "]\nMaxStep=4M\n"
                "[Policy:web]\nMode=advise\nMinColdAge=10min\n"
                "[/system.slice/docker-0123*.scope]\nPressureTarget=5%\n";
        struct config c;
        struct policy p;

        config_init(&c);
        assert_int_equal(config_load_string(text, "r.conf", &c), 0);
        const struct policy_section *s = policy_for(&c, DOCKER_PATH, NULL, &p);
        assert_string_equal(s->name, DOCKER_PATH);           /* exact path: rank 4 */
        assert_int_equal(p.max_step_bytes, 4 * MiB);
        assert_int_equal(p.floor_bytes, 3 * MiB);            /* Container:docker, rank 3 */
        assert_int_equal(p.swappiness, 2);                   /* Container:*, rank 2 */
        assert_ratio_equal(p.refault_target, 0.01);          /* the wildcard glob, rank 1 */
        assert_ratio_equal(p.pressure_target, 0.05);         /* nobody else sets it */

        /* the annotation's policy and keys rank above everything */
        struct cgroup_annotation a = {};
        policy_init_defaults(&a.overrides);
        annotate(&a, "policy", "web");
        annotate(&a, "MaxStep", "5M");
        s = policy_for(&c, DOCKER_PATH, &a, &p);
        assert_string_equal(s->name, "Policy:web");
        assert_int_equal(p.mode, POLICY_MODE_ADVISE);
        assert_int_equal(p.max_step_bytes, 5 * MiB);
        assert_int_equal(p.floor_bytes, 3 * MiB);
        /* MinColdAge=10min from the policy over MaxColdAge=20min: fine; an annotated
         * MaxColdAge below it wins and the minimum follows */
        annotate(&a, "MaxColdAge", "2min");
        s = policy_for(&c, DOCKER_PATH, &a, &p);
        assert_int_equal(p.max_cold_age_usec, 2 * USEC_PER_MIN);
        assert_int_equal(p.min_cold_age_usec, 2 * USEC_PER_MIN);

        /* a Docker container under the cgroupfs driver: no glob, the kind sections still */
        s = policy_for(&c, "/docker/" ID, NULL, &p);
        assert_string_equal(s->name, "Container:docker");
        assert_int_equal(p.max_step_bytes, 3 * MiB);
        config_done(&c);
}

static void test_annotation_only(void **state) {
        struct config c;
        struct policy p;
        struct cgroup_annotation a = {};

        config_init(&c);
        assert_int_equal(config_load_string("[Defaults]\nMaxStep=32M\n", "a.conf", &c), 0);
        policy_init_defaults(&a.overrides);
        /* annotated keys alone never manage a container no section names (man/mglrud.8,
         * SECURITY), though they still apply over [Defaults] */
        assert_null(policy_for(&c, DOCKER_PATH, &a, &p));
        assert_false(config_manages(NULL, &p));
        annotate(&a, "MinColdAge", "5s");
        assert_null(policy_for(&c, DOCKER_PATH, &a, &p));
        assert_false(config_manages(NULL, &p));
        assert_int_equal(p.min_cold_age_usec, 5 * USEC_PER_SEC);
        assert_int_equal(p.max_step_bytes, 32 * MiB);
        /* a section does */
        const struct policy_section any = { .name = (char *) "Container:*" };
        assert_true(config_manages(&any, &p));
        annotate(&a, "Mode", "off");
        (void) policy_for(&c, DOCKER_PATH, &a, &p);
        assert_false(config_manages(&any, &p));
        config_done(&c);
}

static void test_annotation_refused(void **state) {
        struct cgroup_annotation a = {};
        const char *reason = NULL;

        policy_init_defaults(&a.overrides);
        assert_int_equal(config_annotation_add(&a, "MaxStep", "12Q", &reason), -EINVAL);
        assert_string_equal(reason, "invalid size");
        assert_int_equal(config_annotation_add(&a, "MaxStep", "1K", &reason), -EINVAL);
        assert_int_equal(config_annotation_add(&a, "maxstep", "1M", &reason), -EINVAL);
        assert_string_equal(reason, "unknown policy key");
        assert_int_equal(config_annotation_add(&a, "Interval", "1s", &reason), -EINVAL);
        assert_int_equal(config_annotation_add(&a, "Mode", "", &reason), -EINVAL);
        assert_int_equal(config_annotation_add(&a, "policy", "no spaces", &reason), -EINVAL);
        assert_int_equal(config_annotation_add(&a, "policy", "", &reason), -EINVAL);
        assert_int_equal(a.set_mask, 0);
        assert_string_equal(a.policy_name, "");

        /* from xattrs: bad entries go to the callback, good ones stay, conflicting cold ages
         * both go */
        struct cgroup_xattrs x = { .n = 5 };
        const char *kv[][2] = { { "policy", "batch" }, { "MaxStep", "64M" }, { "Floor", "lots" },
                                { "MinColdAge", "10min" }, { "MaxColdAge", "1min" } };
        for (size_t i = 0; i < 5; i++) {
                snprintf(x.items[i].name, sizeof x.items[i].name, "%s", kv[i][0]);
                snprintf(x.items[i].value, sizeof x.items[i].value, "%s", kv[i][1]);
        }
        log_set_capture(capture, NULL);
        assert_int_equal(config_annotation_from_xattrs(&x, &a, NULL, NULL), 3);
        assert_string_equal(a.policy_name, "batch");
        assert_int_equal(a.set_mask, 1u << POLICY_KEY_MAX_STEP);
        assert_int_equal(a.overrides.max_step_bytes, 64 * MiB);
}

static void test_bad_kind_sections(void **state) {
        static const struct {
                const char *text, *message;
        } cases[] = {
                { "[Container:lxc]\n", "b.conf:1: [Container:lxc] unknown container runtime "
                                       "(expected docker, podman, containerd, crio or *)" },
                { "[Pod:gold]\n", "b.conf:1: [Pod:gold] unknown pod QoS class (expected "
                                  "guaranteed, burstable, besteffort or *)" },
                { "[Policy:]\n", "b.conf:1: [Policy:] invalid policy name (1-64 of A-Z a-z 0-9 - _ .)" },
                { "[Policy:a b]\n", "b.conf:1: [Policy:a b] invalid policy name (1-64 of A-Z a-z "
                                    "0-9 - _ .)" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct config c;
                config_init(&c);
                capture_reset();
                assert_int_equal(config_load_string(cases[i].text, "b.conf", &c), -EINVAL);
                assert_int_equal(count_level(LOG_ERR), 1);
                for (size_t k = 0; k < cap.n; k++)
                        if (cap.level[k] == LOG_ERR)
                                assert_string_equal(cap.msg[k], cases[i].message);
                config_done(&c);
        }
        /* "Container" without a colon is an unknown section, as before */
        struct config c;
        config_init(&c);
        capture_reset();
        assert_int_equal(config_load_string("[Container]\nMode=off\n", "b.conf", &c), 0);
        assert_int_equal(count_level(LOG_WARNING), 1);
        assert_int_equal(c.n_sections, 0);
        config_done(&c);

        /* "[Pod:BestEffort]" and "[Pod:besteffort]" are one section, merged */
        config_init(&c);
        assert_int_equal(config_load_string("[Pod:BestEffort]\nFloor=1M\n[Pod:besteffort]\n"
                                            "MaxStep=8M\n", "m.conf", &c), 0);
        assert_int_equal(c.n_sections, 1);
        assert_int_equal(c.sections[0].set_mask,
                         (1u << POLICY_KEY_FLOOR) | (1u << POLICY_KEY_MAX_STEP));
        /* and the dump parses back to the same configuration */
        char *dump = config_dump_string(&c);
        struct config back;
        config_init(&back);
        assert_int_equal(config_load_string(dump, "dump", &back), 0);
        assert_config_equal(&c, &back);
        free(dump);
        config_done(&back);
        config_done(&c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_kind_sections, setup, teardown),
                cmocka_unit_test_setup_teardown(test_rank_against_globs, setup, teardown),
                cmocka_unit_test_setup_teardown(test_annotation_only, setup, teardown),
                cmocka_unit_test_setup_teardown(test_annotation_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bad_kind_sections, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
