/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A policy for a test's cgroup. The daemon's cgroups point into the manager's pool of policies
 * (policy-pool.h), which a test built on cgroup_new() alone does not have: its cgroups point
 * into storage of the test program instead, which the test may change. */
#pragma once

#include <cmocka.h>

#include "mglrud/core/cgroup.h"
#include "mglrud/policy/policy.h"

/* Gives cg a policy of its own, set to the defaults, and returns it: a ring of 16 (no test keeps
 * more cgroups at once), so nothing to free. */
static inline struct policy *test_give_policy(struct cgroup *cg) {
        static struct policy ring[16];
        static unsigned next;
        struct policy *p = &ring[next++ % 16];
        policy_init_defaults(p);
        cg->policy = p;
        return p;
}

/* Returns cg's policy for the test to change: the storage test_give_policy() gave it (not
 * const: the pointer is const only because the daemon's are shared). */
static inline struct policy *test_policy_of(struct cgroup *cg) {
        return (struct policy *) cg->policy;
}
