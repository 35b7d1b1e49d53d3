/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The between-cycle headroom watch (core/manager-headroom.c) on a real event loop: its timer
 * is armed only while a cgroup has a headroom line to watch. A timer that woke up once an
 * interval with nothing to watch was a wakeup of the daemon between its cycles, on whatever
 * CPU the workload runs (docs/design.md, "What the daemon costs"). A fixture tree with one
 * cgroup in Mode=active with HighHeadroom=, no lru_gen (so no decision draws a line: the test
 * draws one in the cgroup's controller state), no BPF. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <systemd/sd-event.h>

#include "control-state.h"
#include "manager-tree-fixture.h"
#include "manager-headroom.h"
#include "mglrud/core/manager.h"
#include "mglrud/policy/headroom.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/time.h"

struct tree {
        struct manager_tree p;
        sd_event *event;
        struct manager m;
};

/* No BPF (stream protection, the guards and the refault check off), no PSI triggers. */
static const char config_text[] =
        "[Daemon]\n"
        "RefaultCheck=no\n"
        "StallGuard=no\n"
        "RefaultGuard=no\n"
        "PressureTriggers=no\n"
        "\n"
        "[Defaults]\n"
        "StreamProtection=no\n"
        "\n"
        "[/app]\n"
        "Mode=active\n"
        "HighHeadroom=10%\n"
        "MinColdAge=10s\n"
        "MaxColdAge=10s\n";

static int tree_setup(void **state) {
        struct tree *t = calloc(1, sizeof *t);
        assert_non_null(t);
        manager_tree_init(&t->p, "/tmp/mglrud-test-headroom.XXXXXX", config_text);
        manager_tree_cgroup(&t->p, "/app", "1073741824\n");

        const struct manager_overrides o = {
                .cgroup_root = t->p.cgroup_root,
                .debugfs_root = t->p.debugfs_root,
                .proc_root = t->p.proc_root,
        };
        assert_int_equal(sd_event_new(&t->event), 0);
        manager_init(&t->m, &o, t->p.conf, t->p.dropins);
        assert_int_equal(manager_start(&t->m, t->event), 0);
        log_set_max_level(LOG_WARNING);
        *state = t;
        return 0;
}

static int tree_teardown(void **state) {
        struct tree *t = *state;
        manager_done(&t->m);
        sd_event_unref(t->event);
        assert_int_equal(rm_tree(t->p.dir), 0);
        free(t);
        return 0;
}

/* Returns the headroom timer's enabled state (SD_EVENT_OFF, _ON or _ONESHOT). */
static int timer_enabled(const struct tree *t) {
        int enabled = -1;
        assert_non_null(t->m.headroom_timer);
        assert_true(sd_event_source_get_enabled(t->m.headroom_timer, &enabled) >= 0);
        return enabled;
}

/* Draws (line > 0) or erases (0) /app's headroom line in its controller state. */
static void set_line(struct tree *t, uint64_t line) {
        struct cgroup *cg = manager_find_path(&t->m, "/app");
        assert_non_null(cg);
        struct control_state *s = cg->userdata;
        assert_non_null(s);
        s->has_last = true;
        s->last.headroom_line = line;
}

/* Runs the event loop for up to twice the watch period (the timer's turn, if armed). */
static void run_loop_a_while(struct tree *t) {
        uint64_t end = now_monotonic_usec() + 2 * HEADROOM_WATCH_USEC;
        for (uint64_t now; (now = now_monotonic_usec()) < end;)
                assert_true(sd_event_run(t->event, end - now) >= 0);
}

/* After a cycle that drew no line, nothing is watched: the timer is off, and the loop does
 * not wake up for it. */
static void test_off_without_a_line(void **state) {
        struct tree *t = *state;
        assert_int_equal(manager_cycle(&t->m, now_monotonic_usec()), 0);
        assert_non_null(manager_find_path(&t->m, "/app"));
        assert_int_equal(timer_enabled(t), SD_EVENT_OFF);
        run_loop_a_while(t);
        assert_int_equal(timer_enabled(t), SD_EVENT_OFF);
}

/* A line drawn: the end of a cycle turns the watch on; the timer keeps looking while the line
 * stays, and turns itself off once no cgroup has one. */
static void test_on_while_a_line_is_drawn(void **state) {
        struct tree *t = *state;
        assert_int_equal(manager_cycle(&t->m, now_monotonic_usec()), 0);
        /* memory.current (2 MiB) stays below the line: watched, never decided on. */
        set_line(t, UINT64_C(1) << 40);
        manager_headroom_cycle_done(&t->m, now_monotonic_usec());
        assert_int_equal(timer_enabled(t), SD_EVENT_ON);
        run_loop_a_while(t);
        assert_int_equal(timer_enabled(t), SD_EVENT_ON);
        set_line(t, 0);
        run_loop_a_while(t);
        assert_int_equal(timer_enabled(t), SD_EVENT_OFF);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_off_without_a_line, tree_setup, tree_teardown),
                cmocka_unit_test_setup_teardown(test_on_while_a_line_is_drawn, tree_setup,
                                                tree_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
