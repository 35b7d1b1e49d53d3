/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pressure-trigger.c on the host's /proc/pressure/memory (when PSI is on): arming, the 2 s
 * fallback without CAP_SYS_RESOURCE, keeping and replacing, and what the loop does with each
 * readiness (EPOLLPRI fires, EPOLLERR disarms without firing). The kernel firing a trigger is
 * the VM scenario's part (tests/vm/scenarios/pressure-trigger.sh). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <cmocka.h>
#include <systemd/sd-event.h>

#include "mglrud/core/pressure-trigger.h"

struct fired_ctx {
        unsigned n;
        uint64_t last_usec;
        struct pressure_trigger **disarm; /* disarm from within the callback */
};

static void on_fired(struct pressure_trigger *t, uint64_t now_usec, void *userdata) {
        struct fired_ctx *c = userdata;
        c->n++;
        c->last_usec = now_usec;
        if (c->disarm)
                pressure_trigger_disarm(c->disarm);
}

static void test_host_trigger(void **state) {
        sd_event *e = NULL;
        struct pressure_trigger *t = NULL;
        struct fired_ctx c = {};
        uint64_t window = PRESSURE_TRIGGER_WINDOW_USEC;
        const struct pressure_threshold some_10ms = { .stall_usec = 10000 },
                                        some_20ms = { .stall_usec = 20000 },
                                        full_20ms = { .full = true, .stall_usec = 20000 };

        if (access("/proc/pressure/memory", R_OK) < 0)
                skip(); /* no PSI on this kernel (psi=0, or too old) */
        assert_int_equal(sd_event_new(&e), 0);
        assert_int_equal(pressure_trigger_arm(&t, e, AT_FDCWD, "/proc/pressure/memory", &some_10ms,
                                              &window, on_fired, &c), 0);
        assert_non_null(t);
        /* 1 s with CAP_SYS_RESOURCE, else the kernel's 2 s */
        assert_true(window == PRESSURE_TRIGGER_WINDOW_USEC ||
                    window == PRESSURE_TRIGGER_UNPRIVILEGED_WINDOW_USEC);
        assert_int_equal(pressure_trigger_stall_usec(t), 10000);

        /* The same threshold again keeps the trigger; another one replaces it. */
        struct pressure_trigger *first = t;
        assert_int_equal(pressure_trigger_arm(&t, e, AT_FDCWD, "/proc/pressure/memory", &some_10ms,
                                              &window, on_fired, &c), 0);
        assert_ptr_equal(t, first);
        assert_int_equal(pressure_trigger_arm(&t, e, AT_FDCWD, "/proc/pressure/memory", &some_20ms,
                                              &window, on_fired, &c), 0);
        assert_int_equal(pressure_trigger_stall_usec(t), 20000);

        /* EPOLLPRI fires; EPOLLERR (the group went away) disarms without firing. */
        assert_int_equal(pressure_trigger_dispatch(&t, EPOLLPRI, 123), 0);
        assert_int_equal(c.n, 1);
        assert_int_equal(c.last_usec, 123);
        assert_int_equal(pressure_trigger_fired(t), 1);
        assert_int_equal(pressure_trigger_dispatch(&t, EPOLLERR | EPOLLPRI, 124), 0);
        assert_int_equal(c.n, 1);
        assert_null(t);

        /* A callback may disarm its own trigger. */
        assert_int_equal(pressure_trigger_arm(&t, e, AT_FDCWD, "/proc/pressure/memory", &full_20ms,
                                              &window, on_fired, &c), 0);
        c.disarm = &t;
        assert_int_equal(pressure_trigger_dispatch(&t, EPOLLPRI, 125), 0);
        assert_int_equal(c.n, 2);
        assert_null(t);

        /* Gone groups and thresholds the kernel cannot take leave the slot as it was. */
        assert_int_equal(pressure_trigger_arm(&t, e, AT_FDCWD, "/proc/pressure/none", &some_10ms,
                                              &window, on_fired, &c), -ENOENT);
        assert_null(t);
        pressure_trigger_disarm(&t);
        sd_event_unref(e);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_host_trigger),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
