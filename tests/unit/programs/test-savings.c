/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The savings summary of `mglructl advise` (mglructl-savings.c) on IdleProfile() entries built
 * by hand: only Mode=advise cgroups with lru_gen count, what MinColdAge and T free (or "?"
 * while not known), the total, and the drop-in offered for the one that would free the most,
 * with a section that selects exactly that cgroup and a file name of plain characters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mglructl-savings.h"
#include "mglrud/shared/macro.h"

#define MIB (1024U * 1024U)

/* An IdleProfile() entry of a cgroup with lru_gen, in mode, whose MinColdAge (2 min) and T
 * (6 min) forecasts free min_mib and t_mib (negative: not known yet). */
static struct ctl_idle entry(const char *path, const char *mode, int min_mib, int t_mib) {
        struct ctl_idle x = { .path = path };
        struct field *f = x.fields;
        size_t n = 0;
        f[n++] = (struct field) { .key = "Kind", .type = 's', .s = "cgroup" };
        f[n++] = (struct field) { .key = "HasReading", .type = 'b', .t = 1 };
        f[n++] = (struct field) { .key = "HasLruGen", .type = 'b', .t = 1 };
        f[n++] = (struct field) { .key = "HorizonUSec", .type = 't', .t = 150 * 1000000ULL };
        f[n++] = (struct field) { .key = "Mode", .type = 's', .s = mode };
        f[n++] = (struct field) { .key = "ColdAgeUSec", .type = 't', .t = 360 * 1000000ULL };
        f[n++] = (struct field) { .key = "ForecastMinColdAgeUSec", .type = 't', .t = 120000000 };
        f[n++] = (struct field) { .key = "ForecastMinColdAgeAnonBytes", .type = 't',
                                  .t = min_mib >= 0 ? (uint64_t) min_mib * MIB : 0 };
        f[n++] = (struct field) { .key = "ForecastMinColdAgeFileBytes", .type = 't', .t = 0 };
        f[n++] = (struct field) { .key = "ForecastMinColdAgeFlags", .type = 't',
                                  .t = min_mib >= 0 ? 0 : IDLE_TABLE_UNKNOWN };
        f[n++] = (struct field) { .key = "ForecastTUSec", .type = 't', .t = 360000000 };
        f[n++] = (struct field) { .key = "ForecastTAnonBytes", .type = 't',
                                  .t = t_mib >= 0 ? (uint64_t) t_mib * MIB / 2 : 0 };
        f[n++] = (struct field) { .key = "ForecastTFileBytes", .type = 't',
                                  .t = t_mib >= 0 ? (uint64_t) t_mib * MIB / 2 : 0 };
        f[n++] = (struct field) { .key = "ForecastTFlags", .type = 't',
                                  .t = t_mib >= 0 ? 0 : IDLE_TABLE_UNKNOWN };
        x.n_fields = n;
        return x;
}

/* Prints the summary of v into a string (free it). */
static char *summary(const struct ctl_idle *v, size_t n, bool dry_run) {
        struct ctl_saving s[8];
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        size_t k = ctl_savings_collect(v, n, s);
        assert_int_equal(ctl_savings_print(f, s, k, dry_run, "/etc/mglrud/mglrud.conf.d"), 0);
        fclose(f);
        return buf;
}

static void test_collect(void **state) {
        struct ctl_idle v[] = {
                entry("", "advise", 5, 5), /* the host's entry */
                entry("/web.slice", "active", 100, 90),
                entry("/system.slice", "advise", 40, -1),
                entry("/batch.slice", "advise", 300, 200),
        };
        v[0].path = "";
        struct ctl_idle nolru = entry("/old.slice", "advise", 10, 10);
        nolru.fields[2].t = 0; /* HasLruGen false */
        struct ctl_saving s[8];
        assert_int_equal(ctl_savings_collect(v, ELEMENTSOF(v), s), 2);
        assert_string_equal(s[0].path, "/system.slice");
        assert_true(s[0].min.known);
        assert_int_equal(s[0].min.bytes, 40 * MIB);
        assert_false(s[0].t.known);
        assert_int_equal(ctl_saving_bytes(&s[0]), 40 * MIB);
        assert_string_equal(s[1].path, "/batch.slice");
        assert_int_equal(s[1].t.bytes, 200 * MIB); /* anon and file together */
        assert_int_equal(ctl_saving_bytes(&s[1]), 200 * MIB);
        assert_int_equal(ctl_savings_best(s, 2), 1);
        assert_int_equal(ctl_savings_collect(&nolru, 1, s), 0);
}

static void test_print(void **state) {
        struct ctl_idle v[] = {
                entry("/system.slice", "advise", 40, -1),
                entry("/batch.slice", "advise", 300, 200),
        };
        _cleanup_free_ char *out = summary(v, ELEMENTSOF(v), false);
        assert_non_null(strstr(out, "only advises on 2 cgroups (Mode=advise)"));
        assert_non_null(strstr(out, "  /system.slice                            40M (2min)"));
        assert_non_null(strstr(out, "? (6min)"));
        assert_non_null(strstr(out, "in all, known so far"));
        assert_non_null(strstr(out, "340M"));
        struct ctl_idle no_t[] = {
                entry("/system.slice", "advise", 40, -1),
                entry("/batch.slice", "advise", 300, -1),
        };
        _cleanup_free_ char *sum = summary(no_t, ELEMENTSOF(no_t), false);
        assert_non_null(strstr(sum, "  in all, known so far                     340M                   ?\n"));
        assert_non_null(strstr(out, "/etc/mglrud/mglrud.conf.d/50-batch.slice.conf\n"));
        assert_non_null(strstr(out, "\n  [/batch.slice]\n  Mode=active\n"));
        assert_null(strstr(out, "DryRun"));
        _cleanup_free_ char *dry = summary(v, ELEMENTSOF(v), true);
        assert_non_null(strstr(dry, "set DryRun=no in [Daemon]"));

        struct ctl_idle none[] = { entry("/system.slice", "advise", -1, -1) };
        _cleanup_free_ char *unknown = summary(none, 1, false);
        assert_non_null(strstr(unknown, "Nothing to free is known yet."));
        assert_null(strstr(unknown, "Mode=active\n"));
        _cleanup_free_ char *empty = summary(none, 0, false);
        assert_string_equal(empty, "");
}

static void test_dropin(void **state) {
        char name[256], section[512];
        assert_int_equal(ctl_savings_dropin("/system.slice/docker-0a1b.scope", name, sizeof name,
                                            section, sizeof section), 0);
        assert_string_equal(name, "50-system.slice-docker-0a1b.scope.conf");
        assert_string_equal(section, "[/system.slice/docker-0a1b.scope]");
        /* Glob characters select only themselves; a space is kept in the section, not in the
         * file name. */
        assert_int_equal(ctl_savings_dropin("/work load.slice/a*b?[c", name, sizeof name, section,
                                            sizeof section), 0);
        assert_string_equal(section, "[/work load.slice/a\\*b\\?\\[c]");
        assert_string_equal(name, "50-work_load.slice-a_b__c.conf");
        /* A name the daemon had to escape cannot be selected by what it shows. */
        assert_int_equal(ctl_savings_dropin("/bad\\x0a.slice", name, sizeof name, section,
                                            sizeof section), -EINVAL);
        assert_int_equal(ctl_savings_dropin("/x]y", name, sizeof name, section, sizeof section),
                         -EINVAL);
        assert_int_equal(ctl_savings_dropin("/", name, sizeof name, section, sizeof section),
                         -EINVAL);
        assert_int_equal(ctl_savings_dropin("/abcdef", name, 8, section, sizeof section), -EINVAL);
        /* The best cgroup is one a section can name. */
        struct ctl_idle v[] = {
                entry("/odd\\x1b.slice", "advise", 900, 900),
                entry("/batch.slice", "advise", 30, 20),
        };
        _cleanup_free_ char *out = summary(v, ELEMENTSOF(v), false);
        assert_non_null(strstr(out, "[/batch.slice]"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_collect),
                cmocka_unit_test(test_print),
                cmocka_unit_test(test_dropin),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
