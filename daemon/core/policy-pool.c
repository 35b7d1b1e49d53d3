/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/policy-pool.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An open-addressing table of pointers to the copies (each its own allocation, so that they
 * stay put when the table grows); at most half full. */
struct policy_pool {
        struct policy **slots;
        size_t n_slots;          /* a power of two, or 0 */
        size_t n;
        struct policy_pool *retired;
};

/* policies_equal() and policy_hash() compare every field: a field added to struct policy
 * must be added to both (the size and the key count change with it). */
_Static_assert(sizeof(struct policy) == 88 && _POLICY_KEY_MAX == 11,
               "struct policy changed: update policies_equal() and policy_hash()");

static bool policies_equal(const struct policy *a, const struct policy *b) {
        return a->mode == b->mode && a->min_cold_age_usec == b->min_cold_age_usec &&
               a->max_cold_age_usec == b->max_cold_age_usec &&
               a->pressure_target == b->pressure_target &&
               a->refault_target == b->refault_target && a->swappiness == b->swappiness &&
               a->floor_bytes == b->floor_bytes && a->max_step_bytes == b->max_step_bytes &&
               a->reclaim_ratio == b->reclaim_ratio &&
               a->stream_protection == b->stream_protection &&
               a->high_headroom == b->high_headroom;
}

static uint64_t mix(uint64_t h, uint64_t v) {
        h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
        return h * 0xff51afd7ed558ccdu;
}

/* Returns the bits of d, with 0.0 and -0.0 (equal, so one policy) hashed alike. */
static uint64_t double_bits(double d) {
        uint64_t u;
        if (d == 0)
                return 0;
        memcpy(&u, &d, sizeof u);
        return u;
}

static uint64_t policy_hash(const struct policy *p) {
        uint64_t h = 0;
        h = mix(h, (uint64_t) p->mode);
        h = mix(h, p->min_cold_age_usec);
        h = mix(h, p->max_cold_age_usec);
        h = mix(h, double_bits(p->pressure_target));
        h = mix(h, double_bits(p->refault_target));
        h = mix(h, (uint64_t) (int64_t) p->swappiness);
        h = mix(h, p->floor_bytes);
        h = mix(h, p->max_step_bytes);
        h = mix(h, double_bits(p->reclaim_ratio));
        h = mix(h, (uint64_t) p->stream_protection);
        h = mix(h, double_bits(p->high_headroom));
        return h ^ (h >> 29);
}

int policy_pool_new(struct policy_pool **ret) {
        struct policy_pool *pool = calloc(1, sizeof *pool);
        if (!pool)
                return -ENOMEM;
        *ret = pool;
        return 0;
}

void policy_pool_retire(struct policy_pool *pool, struct policy_pool *older) {
        struct policy_pool **tail = &pool->retired;
        while (*tail)
                tail = &(*tail)->retired;
        *tail = older;
}

void policy_pool_free(struct policy_pool *pool) {
        while (pool) {
                struct policy_pool *older = pool->retired;
                for (size_t i = 0; i < pool->n_slots; i++)
                        free(pool->slots[i]);
                free(pool->slots);
                free(pool);
                pool = older;
        }
}

/* Returns the slot of the table slots (n_slots > 0) where p is or would go. */
static size_t find_slot(struct policy **slots, size_t n_slots, const struct policy *p) {
        size_t mask = n_slots - 1, i = (size_t) policy_hash(p) & mask;
        while (slots[i] && !policies_equal(slots[i], p))
                i = (i + 1) & mask;
        return i;
}

/* Doubles the table (16 slots at first). Returns 0 or -ENOMEM (the pool unchanged). */
static int grow(struct policy_pool *pool) {
        size_t n_slots = pool->n_slots ? pool->n_slots * 2 : 16;
        struct policy **slots = calloc(n_slots, sizeof *slots);
        if (!slots)
                return -ENOMEM;
        for (size_t i = 0; i < pool->n_slots; i++)
                if (pool->slots[i])
                        slots[find_slot(slots, n_slots, pool->slots[i])] = pool->slots[i];
        free(pool->slots);
        pool->slots = slots;
        pool->n_slots = n_slots;
        return 0;
}

const struct policy *policy_pool_intern(struct policy_pool *pool, const struct policy *p) {
        if (pool->n_slots) {
                size_t i = find_slot(pool->slots, pool->n_slots, p);
                if (pool->slots[i])
                        return pool->slots[i];
        }
        if ((pool->n + 1) * 2 > pool->n_slots && grow(pool) < 0)
                return NULL;
        struct policy *copy = malloc(sizeof *copy);
        if (!copy)
                return NULL;
        *copy = *p;
        pool->slots[find_slot(pool->slots, pool->n_slots, p)] = copy;
        pool->n++;
        return copy;
}

size_t policy_pool_count(const struct policy_pool *pool) {
        return pool->n;
}
