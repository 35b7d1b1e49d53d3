/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus_budget_victim(): which peer of the private socket goes when the unread replies of all pass
 * the budget (the unprivileged one holding the most; never root). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bus-budget.h"
#include "mglrud/shared/macro.h"

#define MIB (1024U * 1024)

static void test_fits(void **state) {
        const struct bus_budget_peer p[] = { { 1000, 8 * MIB }, { 1001, 8 * MIB }, { 0, 16 * MIB } };
        size_t victim = 99;
        assert_int_equal(bus_budget_total(p, ELEMENTSOF(p)), 32 * MIB);
        /* Exactly the budget still fits. */
        assert_int_equal(bus_budget_victim(p, ELEMENTSOF(p), 32 * MIB, &victim), -ENOENT);
        assert_int_equal(victim, 99);
        assert_int_equal(bus_budget_victim(NULL, 0, 0, &victim), -ENOENT);
}

static void test_most_goes(void **state) {
        const struct bus_budget_peer p[] = {
                { 1000, 3 * MIB }, { 1001, 7 * MIB }, { 1002, 7 * MIB + 1 }, { 0, 8 * MIB },
                { 1001, 7 * MIB },
        };
        size_t victim = 99;
        assert_int_equal(bus_budget_victim(p, ELEMENTSOF(p), 32 * MIB - 1, &victim), 0);
        assert_int_equal(victim, 2);
}

static void test_first_of_equals(void **state) {
        const struct bus_budget_peer p[] = { { 1000, 2 }, { 1001, 5 }, { 1002, 5 } };
        size_t victim = 99;
        assert_int_equal(bus_budget_victim(p, ELEMENTSOF(p), 11, &victim), 0);
        assert_int_equal(victim, 1);
}

/* Root holding more than the others is never picked: its replies always fit. */
static void test_root_kept(void **state) {
        struct bus_budget_peer p[] = { { 0, 30 * MIB }, { 1000, 1 }, { 0, 30 * MIB } };
        size_t victim = 99;
        assert_int_equal(bus_budget_victim(p, ELEMENTSOF(p), 32 * MIB, &victim), 0);
        assert_int_equal(victim, 1);
        /* With the unprivileged peer gone, root alone over the budget drops nobody. */
        p[1].held = 0;
        assert_int_equal(bus_budget_victim(p, ELEMENTSOF(p), 32 * MIB, &victim), -ENOENT);
}

/* bus-server.c's loop: dropping the biggest until the rest fits ends with the least dropped. */
static void test_drain(void **state) {
        struct bus_budget_peer p[64];
        size_t victim, dropped = 0;
        for (size_t i = 0; i < ELEMENTSOF(p); i++)
                p[i] = (struct bus_budget_peer) { .uid = 1000 + (uid_t) (i % 4),
                                                  .held = 7 * MIB + i };
        while (bus_budget_victim(p, ELEMENTSOF(p), BUS_BUDGET_BYTES, &victim) >= 0) {
                assert_true(p[victim].held > 0);
                for (size_t i = 0; i < ELEMENTSOF(p); i++)
                        assert_true(p[i].held <= p[victim].held);
                p[victim].held = 0;
                dropped++;
        }
        assert_true(bus_budget_total(p, ELEMENTSOF(p)) <= BUS_BUDGET_BYTES);
        /* 7 MiB each: 4 fit in 32 MiB, the 60 biggest go (the 4 first, the smallest, stay). */
        assert_int_equal(dropped, 60);
        for (size_t i = 0; i < 4; i++)
                assert_int_equal(p[i].held, 7 * MIB + i);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fits),
                cmocka_unit_test(test_most_goes),
                cmocka_unit_test(test_first_of_equals),
                cmocka_unit_test(test_root_kept),
                cmocka_unit_test(test_drain),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
