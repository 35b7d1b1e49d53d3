/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the brake tests share (test-stall-guard.c, test-refault-guard.c, test-brakes.c): a table of
 * brakes whose guard reads a fake of its BPF map, asked by an actuator between chunks, and which
 * brake ended a job. */
#pragma once

#include "mglrud/core/actuator.h"
#include "mglrud/core/brakes.h"

/* Returns a new table whose brake name reads read(userdata), asked by a between two chunks (the
 * caller frees it after a). */
static struct brakes *brakes_with_source(struct actuator *a, const char *name, brake_read_fn read,
                                         void *userdata) {
        struct brakes *t;
        assert_int_equal(brakes_new(&t), 0);
        struct brake *b = brakes_find(t, name);
        assert_non_null(b);
        b->source = (struct brake_source) { read, userdata };
        actuator_set_check(a, &(struct actuator_check) { brakes_check_job, t });
        return t;
}

/* Returns what a job's result.brake says when brake name ended it: 1 + its index in the table. */
static unsigned brake_number(const char *name) {
        struct brakes *t;
        assert_int_equal(brakes_new(&t), 0);
        assert_non_null(brakes_find(t, name));
        unsigned n = brakes_find(t, name)->index + 1;
        brakes_free(t);
        return n;
}

/* Returns the reading brake name kept of job j. */
static const struct actuator_brake_reading *reading_of(const struct actuator_job *j,
                                                       const char *name) {
        return actuator_job_brake_reading_const(j, brake_number(name) - 1);
}
