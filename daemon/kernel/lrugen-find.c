/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lrugen-find.c: looking a memcg up in a parsed histogram, by id, by path, or among the bad. */
#include "mglrud/kernel/lrugen.h"

#include <string.h>

/* Returns the index of the first lruvec not below (memcg_id, node). */
static size_t lower_bound(const struct lrugen *l, uint64_t memcg_id, int node) {
        size_t lo = 0, hi = l->n_lruvecs;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                const struct lrugen_lruvec *v = &l->lruvecs[mid];
                if (v->memcg_id < memcg_id || (v->memcg_id == memcg_id && v->node < node))
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

size_t lrugen_find_memcg(const struct lrugen *l, uint64_t memcg_id,
                         const struct lrugen_lruvec **ret_first) {
        size_t i = lower_bound(l, memcg_id, INT32_MIN), n = 0;

        while (i + n < l->n_lruvecs && l->lruvecs[i + n].memcg_id == memcg_id)
                n++;
        if (n > 0 && ret_first)
                *ret_first = &l->lruvecs[i];
        return n;
}

const struct lrugen_lruvec *lrugen_find_path(const struct lrugen *l, const char *path) {
        if (l->no_paths)
                return NULL;
        for (size_t i = 0; i < l->n_lruvecs; i++)
                if (strcmp(lrugen_path(l, &l->lruvecs[i]), path) == 0)
                        return &l->lruvecs[i];
        return NULL;
}

bool lrugen_memcg_bad(const struct lrugen *l, uint64_t memcg_id, const char *path) {
        for (size_t i = 0; i < l->n_bad_ids; i++)
                if (l->bad_ids[i] == memcg_id ||
                    (path && !l->no_paths && strcmp(l->paths + l->bad_path_offs[i], path) == 0))
                        return true;
        return false;
}
