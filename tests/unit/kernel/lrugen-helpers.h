/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by test-lrugen.c and test-lrugen-malformed.c. */
#pragma once

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "mglrud/kernel/lrugen.h"
#include "mglrud/shared/macro.h"

/* Parses from an exact-size heap copy so ASan sees any read past len. Strict: a text with any
 * malformed record gives -EINVAL here (lrugen_parse() keeps the other records; the tests of that
 * call it directly). */
static inline int parse_exact(const char *s, size_t len, struct lrugen *l) {
        _cleanup_free_ char *copy = fixture_dup_exact(s, len);
        assert_non_null(copy);
        int r = lrugen_parse(copy, len, l);
        return r == 0 && l->n_bad > 0 ? -EINVAL : r;
}

static inline int parse_str(const char *s, struct lrugen *l) {
        return parse_exact(s, strlen(s), l);
}

static inline void load(const char *rel, struct lrugen *l) {
        _cleanup_(read_buf_free) struct read_buf b = {};
        assert_int_equal(fixture_read(rel, &b), 0);
        int r = parse_exact(b.data, b.len, l);
        if (r != 0)
                fail_msg("%s: %d", rel, r);
}

/* Checks what every successful parse promises. */
static inline void check_invariants(const struct lrugen *l) {
        for (size_t i = 0; i < l->n_lruvecs; i++) {
                const struct lrugen_lruvec *v = &l->lruvecs[i];
                assert_true(v->memcg_id != 0);
                assert_true(v->path_off < l->paths_len);
                assert_true(lrugen_path(l, v)[0] == '/');
                assert_in_range(v->nr_gens, 1, LRUGEN_MAX_NR_GENS);
                assert_true(v->file_tiers_gen >= -1 && v->file_tiers_gen < (int) v->nr_gens);
                assert_true(v->file_tiers_gen < 0 || v->gens[v->file_tiers_gen].has_tiers);
                for (unsigned g = 1; g < v->nr_gens; g++)
                        assert_true(v->gens[g].seq == v->gens[g - 1].seq + 1);
                if (i > 0) {
                        const struct lrugen_lruvec *p = &l->lruvecs[i - 1];
                        assert_true(p->memcg_id < v->memcg_id ||
                                    (p->memcg_id == v->memcg_id && p->node < v->node));
                }
        }
}

/* Returns the lruvec of memcg id on node, or NULL (through the daemon's lookup by memcg). */
static inline const struct lrugen_lruvec *lookup(const struct lrugen *l, uint64_t id, int node) {
        const struct lrugen_lruvec *first = NULL;
        size_t n = lrugen_find_memcg(l, id, &first);
        for (size_t i = 0; i < n; i++)
                if (first[i].node == node)
                        return &first[i];
        return NULL;
}

static inline const struct lrugen_lruvec *find(const struct lrugen *l, uint64_t id, int node) {
        const struct lrugen_lruvec *v = lookup(l, id, node);
        if (!v)
                fail_msg("memcg %ju node %d not found", (uintmax_t) id, node);
        return v;
}
