/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The PSI triggers as a brake (brake-psi.c), arming per cgroup on a tree of plain files: a
 * trigger is tried on memory.pressure of a cgroup mglrud reclaims in, and only there; not in
 * dry-run, with PressureTriggers=no or without an event loop. A plain file is not the kernel's
 * (psi_trigger_open() writes nothing to a copy): that is a kernel that takes no trigger, said
 * once, after which no trigger is tried. */
#include "core-fixture.h"

#include <systemd/sd-event.h>

#include "mglrud/core/brakes.h"

#define HALF_AND_HALF "anon 536870912\nfile 536870912\npgsteal_proactive 0\n"

struct psi_run {
        struct core_fixture f;
        struct config c;
        sd_event *e;
        struct brakes *t;
        struct brake_env env;
};

static struct cgroup *const *the_cgroup(void *owner, size_t *ret_n) {
        struct psi_run *r = owner;
        *ret_n = 1;
        return &r->f.cg;
}

/* Sets r up: the fixture's cgroup with an idle memory.pressure and, when reclaiming, its first
 * job in flight; PressureTriggers=yes, an event loop, the brakes opened. */
static void psi_run_init(struct psi_run *r, bool reclaiming) {
        core_fixture_init(&r->f, POLICY_MODE_PRESSURE, HALF_AND_HALF);
        /* The cgroup again, now that it has a memory.pressure: its files are found at creation. */
        copy_fixture(r->f.dirfd, "memory.pressure", "psi/idle");
        struct stat st;
        assert_int_equal(fstat(r->f.dirfd, &st), 0);
        cgroup_free(r->f.cg);
        assert_int_equal(cgroup_new(r->f.dir, "/cg", st.st_ino, CGROUP_KEEP_ALL, &r->f.cg), 0);
        test_give_policy(r->f.cg)->mode = POLICY_MODE_PRESSURE;
        if (reclaiming)
                core_fixture_first_job(&r->f);
        else
                assert_int_equal(control_cgroup_cycle(r->f.cg, &r->f.in, r->f.act), 0);
        config_init(&r->c);
        r->c.pressure_triggers = true;
        assert_int_equal(sd_event_new(&r->e), 0);
        assert_int_equal(brakes_new(&r->t), 0);
        r->env = (struct brake_env) { .event = r->e, .config = &r->c, .proc_root = r->f.dir,
                                      .interval_usec = r->f.in.interval_usec,
                                      .actuator = r->f.act, .cgroups = the_cgroup, .owner = r };
        brakes_open(r->t, &r->env);
        log_lines_start();
}

static void psi_run_done(struct psi_run *r) {
        log_lines_stop();
        brakes_free(r->t);
        sd_event_unref(r->e);
        config_done(&r->c);
        if (captured)
                control_job_done(r->f.cg, captured, &r->f.report);
        captured = NULL;
        core_fixture_done(&r->f);
}

/* Runs the brakes' end of cycle; returns what memory.pressure holds then, emptied first (a
 * trigger is written at its start). */
static const char *cycle(struct psi_run *r, char *buf, size_t size) {
        write_at(r->f.dirfd, "memory.pressure", "");
        brakes_cycle(r->t, &r->env, &r->f.cg, 1, r->f.in.now_usec);
        int fd = openat(r->f.dirfd, "memory.pressure", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        ssize_t n = read(fd, buf, size - 1);
        close(fd);
        assert_true(n >= 0);
        buf[n] = 0;
        return buf;
}

/* A cgroup mglrud reclaims in is tried a trigger on its memory.pressure; not the kernel's file,
 * it takes none and nothing is written there: said once, and the next cycle tries none. */
static void test_armed_where_reclaiming(void **state) {
        struct psi_run r;
        char buf[128];
        psi_run_init(&r, true);
        assert_string_equal(cycle(&r, buf, sizeof buf), "");
        assert_int_equal(log_lines_with("Cannot register a PSI trigger on /cg"), 1);
        assert_string_equal(cycle(&r, buf, sizeof buf), "");
        assert_int_equal(log_lines_with("Cannot register a PSI trigger"), 1);
        assert_null(r.f.cg->trigger);
        psi_run_done(&r);
}

/* No job in flight, nothing reclaimed lately: no trigger. */
static void test_not_reclaiming(void **state) {
        struct psi_run r;
        char buf[128];
        psi_run_init(&r, false);
        assert_string_equal(cycle(&r, buf, sizeof buf), "");
        assert_int_equal(log_lines.n, 0);
        psi_run_done(&r);
}

/* Dry-run, PressureTriggers=no, --once (no event loop): nothing is written. */
static void test_off(void **state) {
        struct psi_run r;
        char buf[128];
        for (int i = 0; i < 3; i++) {
                psi_run_init(&r, true);
                if (i == 0)
                        r.env.dry_run = true;
                else if (i == 1)
                        r.c.pressure_triggers = false;
                else
                        r.env.event = NULL;
                assert_string_equal(cycle(&r, buf, sizeof buf), "");
                assert_int_equal(log_lines.n, 0);
                psi_run_done(&r);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_armed_where_reclaiming),
                cmocka_unit_test(test_not_reclaiming),
                cmocka_unit_test(test_off),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
