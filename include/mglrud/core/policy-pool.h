/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy-pool.h: one copy of each distinct effective policy, shared by the cgroups that have it.
 * A policy inline in every cgroup costs 80 bytes each (0.8 MB at 10,000 cgroups), and the
 * cgroups of a node share a handful of policies: those of their sections, with an annotation's
 * or a runtime override's keys on top now and then.
 *
 * A pool only grows: the manager interns every cgroup's policy into a new pool at each rescan
 * and frees the previous pool once every cgroup points into the new one, so policies no cgroup
 * has any longer go with it. */
#pragma once

#include <stddef.h>

#include "mglrud/policy/policy.h"

struct policy_pool;

/* Returns 0 and an empty pool in *ret, or -ENOMEM. */
int policy_pool_new(struct policy_pool **ret);

/* Makes pool keep older (may be NULL) until pool is freed: a rescan that failed half-way
 * leaves cgroups pointing into both. */
void policy_pool_retire(struct policy_pool *pool, struct policy_pool *older);

/* Frees pool, every policy it returned and the pools it retired. NULL is fine. */
void policy_pool_free(struct policy_pool *pool);

/* Returns the pool's copy of *p, added when the pool had no equal policy (every field equal),
 * or NULL on OOM. The copy stays valid, unchanged, until the pool is freed. */
const struct policy *policy_pool_intern(struct policy_pool *pool, const struct policy *p);

/* Returns the number of distinct policies in pool (not counting retired pools). */
size_t policy_pool_count(const struct policy_pool *pool);
