/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the configuration: values and units, every kind of bad line with its exact
 * message, and the dump. */

#include "config-helpers.h"


/* ---- tests ---- */

static void test_builtin_defaults(void **state) {
        struct config c;
        config_init(&c);
        assert_int_equal(c.interval_usec, 10 * USEC_PER_SEC);
        assert_false(c.dry_run);
        assert_null(c.cgroup_root);
        assert_string_equal(c.debugfs_root, "/sys/kernel/debug");
        assert_string_equal(c.proc_root, "/proc");
        assert_int_equal(c.log_level, LOG_INFO);
        assert_ratio_equal(c.host_full_limit, 0.05);
        assert_int_equal(c.host_min_available, 256 * MiB);
        assert_true(c.stream_fast_path);
        assert_true(c.refault_check);
        assert_int_equal(c.defaults.mode, POLICY_MODE_ACTIVE);
        assert_int_equal(c.defaults.min_cold_age_usec, 2 * USEC_PER_MIN);
        assert_int_equal(c.defaults.max_cold_age_usec, 20 * USEC_PER_MIN);
        assert_ratio_equal(c.defaults.pressure_target, 0.001);
        assert_ratio_equal(c.defaults.refault_target, 0.002);
        assert_int_equal(c.defaults.swappiness, SWAPPINESS_AUTO);
        assert_int_equal(c.defaults.floor_bytes, 0);
        assert_int_equal(c.defaults.max_step_bytes, 64 * MiB);
        assert_ratio_equal(c.defaults.reclaim_ratio, 0.0005);
        assert_ratio_equal(c.defaults.high_headroom, 0.0); /* off */
        assert_int_equal(c.n_sections, 0);
        config_done(&c);
}

static void test_good_file(void **state) {
        static const char text[] =
                "\xef\xbb\xbf# a full file\r\n"
                "[Daemon]\r\n"
                "Interval=30s\n"
                "DryRun=yes\n"
                "CgroupRoot=/sys/fs/cgroup\n"
                "DebugfsRoot=/tmp/debug\n"
                "ProcRoot=/tmp/proc\n"
                "LogLevel=debug\n"
                "HostPressureLimit=10%\n"
                "HostMinAvailable=1G\n"
                "StreamFastPath=no\n"
                "RefaultCheck=no\n"
                "RefaultGuard=no\n"
                "\n"
                "  [Defaults]   ; indented header with a comment\n"
                "  Mode = advise ; indented key, spaces around '='\n"
                "MinColdAge=1min 30s\n"
                "MaxColdAge=1h\n"
                "PressureTarget=0.5%\n"
                "RefaultTarget=1%\n"
                "Swappiness=max\n"
                "Floor=512M\n"
                "MaxStep=1.5G\n"
                "ReclaimRatio=0.1%\n"
                "[/batch.slice/*]\n"
                "Swappiness=0\n"
                "Mode=pressure\n"
                "[/system.slice/docker-[0-9a-f]*.scope]\n"
                "Swappiness=auto\n";
        struct config c;

        config_init(&c);
        assert_int_equal(config_load_string(text, "good.conf", &c), 0);
        assert_int_equal(cap.n, 0);

        assert_int_equal(c.interval_usec, 30 * USEC_PER_SEC);
        assert_true(c.dry_run);
        assert_string_equal(c.cgroup_root, "/sys/fs/cgroup");
        assert_string_equal(c.debugfs_root, "/tmp/debug");
        assert_string_equal(c.proc_root, "/tmp/proc");
        assert_int_equal(c.log_level, LOG_DEBUG);
        assert_ratio_equal(c.host_full_limit, 0.1);
        assert_int_equal(c.host_min_available, 1024 * MiB);
        assert_false(c.stream_fast_path);
        assert_false(c.refault_guard);
        assert_true(c.stall_guard); /* not set: the built-in default */
        assert_false(c.refault_check);

        assert_int_equal(c.defaults.mode, POLICY_MODE_ADVISE);
        assert_int_equal(c.defaults.min_cold_age_usec, 90 * USEC_PER_SEC);
        assert_int_equal(c.defaults.max_cold_age_usec, 60 * USEC_PER_MIN);
        assert_ratio_equal(c.defaults.pressure_target, 0.005);
        assert_ratio_equal(c.defaults.refault_target, 0.01);
        assert_int_equal(c.defaults.swappiness, SWAPPINESS_ANON_ONLY);
        assert_int_equal(c.defaults.floor_bytes, 512 * MiB);
        assert_int_equal(c.defaults.max_step_bytes, 1536 * MiB);
        assert_ratio_equal(c.defaults.reclaim_ratio, 0.001);

        assert_int_equal(c.n_sections, 2);
        assert_string_equal(c.sections[0].name, "/batch.slice/*");
        assert_string_equal(c.sections[0].file, "good.conf");
        assert_int_equal(c.sections[0].line, 25);
        assert_int_equal(c.sections[0].set_mask,
                         (1u << POLICY_KEY_SWAPPINESS) | (1u << POLICY_KEY_MODE));
        assert_string_equal(c.sections[1].name, "/system.slice/docker-[0-9a-f]*.scope");

        struct policy p;
        const struct policy_section *s = policy_for_path(&c, "/batch.slice/job1.scope", &p);
        assert_ptr_equal(s, &c.sections[0]);
        assert_int_equal(p.swappiness, 0);
        assert_int_equal(p.mode, POLICY_MODE_PRESSURE);
        assert_int_equal(p.max_step_bytes, 1536 * MiB); /* inherited from [Defaults] */

        s = policy_for_path(&c, "/system.slice/docker-3f2a.scope", &p);
        assert_ptr_equal(s, &c.sections[1]);
        assert_int_equal(p.swappiness, SWAPPINESS_AUTO);
        assert_null(policy_for_path(&c, "/system.slice/docker-zz.scope", &p));
        config_done(&c);
}

static void test_units(void **state) {
        static const struct {
                const char *line;
                enum policy_key key;
                uint64_t u;
                double d;
        } cases[] = {
                { "MinColdAge=500ms", POLICY_KEY_MIN_COLD_AGE, 0, 0 }, /* below range: error */
                { "MinColdAge=5", POLICY_KEY_MIN_COLD_AGE, 5 * USEC_PER_SEC, 0 },
                { "MinColdAge=2min 30s", POLICY_KEY_MIN_COLD_AGE, 150 * USEC_PER_SEC, 0 },
                { "MaxColdAge=1d", POLICY_KEY_MAX_COLD_AGE, 1440 * USEC_PER_MIN, 0 },
                { "Floor=4096", POLICY_KEY_FLOOR, 4096, 0 },
                { "Floor=0B", POLICY_KEY_FLOOR, 0, 0 }, /* as config_dump prints it */
                { "Floor=512K", POLICY_KEY_FLOOR, 512 * 1024, 0 },
                { "Floor=2T", POLICY_KEY_FLOOR, UINT64_C(2) << 40, 0 },
                { "MaxStep=1.5G", POLICY_KEY_MAX_STEP, 1536 * MiB, 0 },
                { "PressureTarget=0.25", POLICY_KEY_PRESSURE_TARGET, 0, 0.25 }, /* a bare ratio */
                { "PressureTarget=2.5%", POLICY_KEY_PRESSURE_TARGET, 0, 0.025 },
                { "RefaultTarget=100%", POLICY_KEY_REFAULT_TARGET, 0, 1.0 },
                { "Swappiness=200", POLICY_KEY_SWAPPINESS, 200, 0 },
                { "Swappiness=0", POLICY_KEY_SWAPPINESS, 0, 0 },
        };

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                char text[128];
                struct config c;
                struct policy p;

                snprintf(text, sizeof text, "[/x]\n%s\nMaxColdAge=1d\n", cases[i].line);
                if (cases[i].key == POLICY_KEY_MAX_COLD_AGE)
                        snprintf(text, sizeof text, "[/x]\n%s\n", cases[i].line);
                config_init(&c);
                capture_reset();
                int r = config_load_string(text, "u.conf", &c);
                if (i == 0) {
                        assert_int_equal(r, -EINVAL);
                        config_done(&c);
                        continue;
                }
                assert_int_equal(r, 0);
                assert_non_null(policy_for_path(&c, "/x", &p));
                switch (cases[i].key) {
                case POLICY_KEY_MIN_COLD_AGE: assert_int_equal(p.min_cold_age_usec, cases[i].u); break;
                case POLICY_KEY_MAX_COLD_AGE: assert_int_equal(p.max_cold_age_usec, cases[i].u); break;
                case POLICY_KEY_FLOOR: assert_int_equal(p.floor_bytes, cases[i].u); break;
                case POLICY_KEY_MAX_STEP: assert_int_equal(p.max_step_bytes, cases[i].u); break;
                case POLICY_KEY_PRESSURE_TARGET: assert_ratio_equal(p.pressure_target, cases[i].d); break;
                case POLICY_KEY_REFAULT_TARGET: assert_ratio_equal(p.refault_target, cases[i].d); break;
                case POLICY_KEY_SWAPPINESS: assert_int_equal(p.swappiness, (int) cases[i].u); break;
                default: fail();
                }
                config_done(&c);
        }
}

static void test_bad_lines(void **state) {
        static const struct {
                const char *text;
                const char *message;
        } cases[] = {
                { "[Daemon]\nInterval=0.5s\n",
                  "t.conf:2: [Daemon] Interval=0.5s: must be between 1s and 1h" },
                { "[Daemon]\nInterval=2h\n", "t.conf:2: [Daemon] Interval=2h: must be between 1s and 1h" },
                { "[Daemon]\nInterval=10 parsecs\n",
                  "t.conf:2: [Daemon] Interval=10 parsecs: invalid duration" },
                { "[Daemon]\nInterval=5s # no inline '#' comments\n",
                  "t.conf:2: [Daemon] Interval=5s # no inline '#' comments: invalid duration" },
                { "[Daemon]\nDryRun=maybe\n", "t.conf:2: [Daemon] DryRun=maybe: invalid boolean" },
                { "[Daemon]\nCgroupRoot=sys/fs/cgroup\n",
                  "t.conf:2: [Daemon] CgroupRoot=sys/fs/cgroup: not an absolute path" },
                { "[Daemon]\nLogLevel=crit\n",
                  "t.conf:2: [Daemon] LogLevel=crit: expected err, warning, notice, info or debug" },
                { "[Daemon]\nHostPressureLimit=150%\n",
                  "t.conf:2: [Daemon] HostPressureLimit=150%: invalid percentage (0%..100%)" },
                { "[Daemon]\nHostMinAvailable=12Q\n",
                  "t.conf:2: [Daemon] HostMinAvailable=12Q: invalid size" },
                { "[Daemon]\nRefaultCheck=sometimes\n",
                  "t.conf:2: [Daemon] RefaultCheck=sometimes: invalid boolean" },
                { "[Daemon]\nRefaultGuard=maybe\n",
                  "t.conf:2: [Daemon] RefaultGuard=maybe: invalid boolean" },
                { "# comment\n\n[/batch.slice/*]\nMaxStep=12Q\n",
                  "t.conf:4: [/batch.slice/*] MaxStep=12Q: invalid size" },
                { "[/x]\nMaxStep=1K\n",
                  "t.conf:2: [/x] MaxStep=1K: must be at least 4K (use Mode= to stop reclaim)" },
                { "[Defaults]\nMode=fast\n",
                  "t.conf:2: [Defaults] Mode=fast: expected active, advise, pressure or off" },
                { "[Defaults]\nMinColdAge=0\n",
                  "t.conf:2: [Defaults] MinColdAge=0: must be between 1s and 1d" },
                { "[Defaults]\nMaxColdAge=2d\n",
                  "t.conf:2: [Defaults] MaxColdAge=2d: must be between 1s and 1d" },
                { "[Defaults]\nSwappiness=201\n",
                  "t.conf:2: [Defaults] Swappiness=201: expected 0..200, max or auto" },
                { "[Defaults]\nSwappiness=-1\n",
                  "t.conf:2: [Defaults] Swappiness=-1: expected 0..200, max or auto" },
                { "[Defaults]\nPressureTarget=-1%\n",
                  "t.conf:2: [Defaults] PressureTarget=-1%: invalid percentage (0%..100%)" },
                { "[Defaults]\nReclaimRatio=0%\n",
                  "t.conf:2: [Defaults] ReclaimRatio=0%: must be above 0 (use Mode= to stop reclaim)" },
                { "[Defaults]\nFloor=lots\n", "t.conf:2: [Defaults] Floor=lots: invalid size" },
                { "[Defaults]\n\nHighHeadroom=60%\n",
                  "t.conf:3: [Defaults] HighHeadroom=60%: must be at most 50% of the limit (0% for off)" },
                { "[/a.slice]\nHighHeadroom=ten\n",
                  "t.conf:2: [/a.slice] HighHeadroom=ten: invalid percentage (0% for off, up to 50%)" },
                { "[Daemon]\nMode=off\n",
                  "t.conf:2: [Daemon] Mode=off: policy key not allowed in [Daemon] (use [Defaults])" },
                { "[/x]\nInterval=5s\n",
                  "t.conf:2: [/x] Interval=5s: [Daemon] key not allowed in a policy section" },
                { "[Defaults]\nDryRun=yes\n",
                  "t.conf:2: [Defaults] DryRun=yes: [Daemon] key not allowed in a policy section" },
                { "[Daemon]\nthis is not valid\n",
                  "t.conf:2: [Daemon] expected Key=Value or [Section]" },
                { "[Daemon]\nInterval: 5s\n",
                  "t.conf:2: [Daemon] expected Key=Value or [Section]" },
                { "[Daemon]\n= 5s\n", "t.conf:2: [Daemon] invalid key name" },
                { "[Daemon]\nA:b=5s\n", "t.conf:2: [Daemon] invalid key name" },
                { "\n\n[Daemon\n", "t.conf:3: invalid section header" },
                { "[Daemon] junk\n", "t.conf:1: invalid section header" },
                { "[]\n", "t.conf:1: invalid section header" },
                { "[/a//b]\n",
                  "t.conf:1: [/a//b] invalid cgroup path glob (needs \"/a/b\" form: no empty, "
                  "\".\" or \"..\" component, no trailing '/')" },
                { "[/a/]\n",
                  "t.conf:1: [/a/] invalid cgroup path glob (needs \"/a/b\" form: no empty, "
                  "\".\" or \"..\" component, no trailing '/')" },
                { "[/a/../b]\n",
                  "t.conf:1: [/a/../b] invalid cgroup path glob (needs \"/a/b\" form: no empty, "
                  "\".\" or \"..\" component, no trailing '/')" },
                { "[Defaults]\nMinColdAge=30min\n",
                  "t.conf:1: [Defaults] MinColdAge=30min: greater than MaxColdAge=20min" },
                { "[Defaults]\n[/a]\nMaxColdAge=1min\n",
                  "t.conf:2: [/a] MinColdAge=2min: greater than MaxColdAge=1min (the other one "
                  "from [Defaults])" },
                { "[/a]\nMinColdAge=10min\nMaxColdAge=5min\n",
                  "t.conf:1: [/a] MinColdAge=10min: greater than MaxColdAge=5min" },
        };
        static const char good[] = "[Daemon]\nInterval=42s\n[Defaults]\nMode=advise\n[/keep]\nFloor=1M\n";

        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct config c, orig;

                config_init(&c);
                config_init(&orig);
                assert_int_equal(config_load_string(good, "good.conf", &c), 0);
                assert_int_equal(config_load_string(good, "good.conf", &orig), 0);
                capture_reset();

                assert_int_equal(config_load_string(cases[i].text, "t.conf", &c), -EINVAL);
                if (cap.n != 1 || strcmp(cap.msg[0], cases[i].message) != 0)
                        print_error("case %zu: got %zu messages, first '%s'\n", i, cap.n,
                                    cap.n ? cap.msg[0] : "");
                assert_int_equal(cap.n, 1);
                assert_int_equal(cap.level[0], LOG_ERR);
                assert_string_equal(cap.msg[0], cases[i].message);

                /* the caller's config is untouched */
                assert_config_equal(&c, &orig);
                assert_string_equal(c.sections[0].file, "good.conf");
                config_done(&c);
                config_done(&orig);
        }
}

static void test_line_too_long(void **state) {
        char text[512];
        struct config c;

        snprintf(text, sizeof text, "[Daemon]\n# fine\nCgroupRoot=/%0300d\n", 0);
        config_init(&c);
        assert_int_equal(config_load_string(text, "t.conf", &c), -EINVAL);
        assert_int_equal(cap.n, 1);
        assert_string_equal(cap.msg[0], "t.conf:3: [Daemon] line too long (at most 199 characters)");
        config_done(&c);
}

static void test_warnings(void **state) {
        static const char text[] =
                "Interval=5s\n"           /* 1: outside any section */
                "[Daemon]\n"
                "Frobnicate=1\n"          /* 3 */
                "interval=5s\n"           /* 4: case hint */
                "[Defaults]\n"
                "mode=off\n"              /* 6 */
                "[Bogus]\n"               /* 7: warned once, keys ignored */
                "A=1\n"
                "Mode=whatever\n"
                "[/x]\n"
                "Colour=blue\n";          /* 11 */
        static const char *const expected[] = {
                "w.conf:1: Interval=5s: assignment outside of any section, ignoring",
                "w.conf:3: [Daemon] Frobnicate=1: unknown key, ignoring",
                "w.conf:4: [Daemon] interval=5s: unknown key, ignoring (did you mean Interval=?)",
                "w.conf:6: [Defaults] mode=off: unknown key, ignoring (did you mean Mode=?)",
                "w.conf:7: [Bogus] unknown section, ignoring its keys",
                "w.conf:11: [/x] Colour=blue: unknown key, ignoring",
        };
        struct config c;

        config_init(&c);
        assert_int_equal(config_load_string(text, "w.conf", &c), 0);
        assert_int_equal(cap.n, sizeof expected / sizeof expected[0]);
        for (size_t i = 0; i < cap.n; i++) {
                assert_int_equal(cap.level[i], LOG_WARNING);
                assert_string_equal(cap.msg[i], expected[i]);
        }
        assert_int_equal(c.interval_usec, 10 * USEC_PER_SEC);
        assert_int_equal(c.defaults.mode, POLICY_MODE_ACTIVE);
        assert_int_equal(c.n_sections, 1); /* an empty section still manages its cgroups */
        config_done(&c);
}

static void test_empty_assignment_resets(void **state) {
        static const char text[] = "[Daemon]\nInterval=5s\nInterval=\nDebugfsRoot=/d\nDebugfsRoot=\n"
                                   "[Defaults]\nMode=off\n[/x]\nFloor=1M\nFloor=\nMode=advise\n"
                                   "[Defaults]\nMode=\n";
        struct config c;
        struct policy p;

        config_init(&c);
        assert_int_equal(config_load_string(text, "e.conf", &c), 0);
        assert_int_equal(cap.n, 0);
        assert_int_equal(c.interval_usec, 10 * USEC_PER_SEC);
        assert_string_equal(c.debugfs_root, "/sys/kernel/debug");
        assert_int_equal(c.daemon_set_mask, 0);
        assert_int_equal(c.defaults.mode, POLICY_MODE_ACTIVE);
        assert_int_equal(c.defaults_set_mask, 0);
        assert_int_equal(c.sections[0].set_mask, 1u << POLICY_KEY_MODE);
        assert_non_null(policy_for_path(&c, "/x", &p));
        assert_int_equal(p.floor_bytes, 0);
        assert_int_equal(p.mode, POLICY_MODE_ADVISE);
        config_done(&c);
}

static void test_dump_roundtrip(void **state) {
        static const char text[] = "[Daemon]\nInterval=1min\nDryRun=yes\nHostMinAvailable=1G\n"
                                   "StreamFastPath=no\n"
                                   "RefaultCheck=no\n"
                                   "[Defaults]\nMode=advise\nFloor=16M\n"
                                   "[/batch.slice/*]\nSwappiness=max\nPressureTarget=1%\n"
                                   "[/system.slice/docker-[0-9a-f]*.scope]\nMinColdAge=5min\n"
                                   /* ratios need all their digits (found by fuzz-policy-key) */
                                   "RefaultTarget=0.123456789%\nReclaimRatio=0.00001%\n"
                                   "HighHeadroom=12.5%\n";
        struct config c;
        char *buf;

        config_init(&c);
        assert_int_equal(config_load_string(text, "d.conf", &c), 0);
        buf = config_dump_string(&c);

        assert_non_null(strstr(buf, "[Daemon]\nInterval=1min\nDryRun=yes\n"));
        assert_non_null(strstr(buf, "LogLevel=info ; built-in default\n"));
        assert_non_null(strstr(buf, "StallGuard=yes ; built-in default\n"
                                    "RefaultGuard=yes ; built-in default\n"));
        assert_non_null(strstr(buf, "HostMinAvailable=1G\nStreamFastPath=no\nRefaultCheck=no\n"));
        assert_non_null(strstr(buf, "\n# d.conf:7\n[Defaults]\nMode=advise\n"));
        assert_non_null(strstr(buf, "Swappiness=auto ; built-in default\n"));
        assert_non_null(strstr(buf, "\n# d.conf:10\n[/batch.slice/*]\nMode=advise ; from [Defaults]\n"));
        assert_non_null(strstr(buf, "Swappiness=max\nFloor=16M ; from [Defaults]\n"));
        assert_non_null(strstr(buf, "PressureTarget=1%\n"));
        assert_non_null(strstr(buf, "RefaultTarget=0.123456789%\n"));
        assert_non_null(strstr(buf, "ReclaimRatio=0.00001%\n"));
        assert_non_null(strstr(buf, "HighHeadroom=12.5%\n"));
        assert_non_null(strstr(buf, "HighHeadroom=0% ; built-in default\n"));

        /* the dump is a valid configuration with the same effective settings */
        assert_dump_reloads(&c, buf);
        free(buf);
        config_done(&c);
}

static void test_copy_move(void **state) {
        struct config a, b, m;

        config_init(&a);
        config_init(&m);
        assert_int_equal(config_load_string("[Daemon]\nCgroupRoot=/cg\nProcRoot=/p\n[/x]\nFloor=1M\n",
                                            "t.conf", &a),
                         0);
        assert_int_equal(config_copy(&a, &b), 0);
        assert_config_equal(&a, &b);
        assert_ptr_not_equal(a.cgroup_root, b.cgroup_root);
        assert_ptr_not_equal(a.sections, b.sections);
        assert_string_equal(b.debugfs_root, "/sys/kernel/debug");

        config_move(&m, &b);
        assert_config_equal(&a, &m);
        assert_int_equal(b.n_sections, 0);
        assert_null(b.cgroup_root);
        config_done(&a);
        config_done(&b);
        config_done(&m);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_builtin_defaults, setup, teardown),
                cmocka_unit_test_setup_teardown(test_good_file, setup, teardown),
                cmocka_unit_test_setup_teardown(test_units, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bad_lines, setup, teardown),
                cmocka_unit_test_setup_teardown(test_line_too_long, setup, teardown),
                cmocka_unit_test_setup_teardown(test_warnings, setup, teardown),
                cmocka_unit_test_setup_teardown(test_empty_assignment_resets, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dump_roundtrip, setup, teardown),
                cmocka_unit_test_setup_teardown(test_copy_move, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
