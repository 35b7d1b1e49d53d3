/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lrugen-sort.c: puts the parsed records in (memcg id, node) order, in place, for the lookups. */
#include <stdlib.h>

#include "mglrud/shared/macro.h"

#include "lrugen-internal.h"

struct slot {
        uint64_t memcg_id;
        int32_t node;
        uint32_t idx;
};

static int slot_cmp(const void *a, const void *b) {
        const struct slot *x = a, *y = b;

        if (x->memcg_id != y->memcg_id)
                return x->memcg_id < y->memcg_id ? -1 : 1;
        if (x->node != y->node)
                return x->node < y->node ? -1 : 1;
        return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sorts the records by (memcg id, node) in place, keeping the last copy of each and dropping id
 * 0. The kernel lists memcgs in tree order, which is id order only when every cgroup was created
 * after those before it in the tree: the common case costs a comparison per record. Returns 0 or
 * -ENOMEM. */
int lrugen_publish(struct parser *ps) {
        struct lrugen *l = ps->out;
        size_t n = 0, m = 0, nr = ps->n_recs;

        l->full = ps->full == 1;
        l->format = ps->format;
        if (ps->sorted) {
                l->n_lruvecs = nr;
                return 0;
        }
        /* The slots, then each record's destination: for this parse only. */
        if (nr > UINT32_MAX)
                return -ENOMEM;
        _cleanup_free_ struct slot *slots = malloc(nr * (sizeof(struct slot) + sizeof(uint32_t)));
        if (!slots)
                return -ENOMEM;
        uint32_t *dest = (uint32_t *) (slots + nr);

        for (size_t i = 0; i < nr; i++)
                if (l->lruvecs[i].memcg_id != 0)
                        slots[n++] = (struct slot) { l->lruvecs[i].memcg_id, l->lruvecs[i].node,
                                                     (uint32_t) i };
        if (n > 0)
                qsort(slots, n, sizeof(*slots), slot_cmp);

        /* Where each record goes: the kept ones (the last copy of a lruvec) to their sorted
         * place, the others after them, to be cut off. */
        for (size_t i = 0; i < nr; i++)
                dest[i] = UINT32_MAX;
        for (size_t i = 0; i < n; i++) {
                if (i + 1 < n && slots[i + 1].memcg_id == slots[i].memcg_id &&
                    slots[i + 1].node == slots[i].node)
                        continue; /* a later copy of the same lruvec wins */
                dest[slots[i].idx] = (uint32_t) m++;
        }
        size_t k = m;
        for (size_t i = 0; i < nr; i++)
                if (dest[i] == UINT32_MAX)
                        dest[i] = (uint32_t) k++;
        /* Apply the permutation in place, one cycle at a time: each swap puts one record where
         * it belongs (records already in place do not move). */
        for (size_t i = 0; i < nr; i++)
                while (dest[i] != i) {
                        size_t j = dest[i];
                        struct lrugen_lruvec t = l->lruvecs[j];
                        l->lruvecs[j] = l->lruvecs[i];
                        l->lruvecs[i] = t;
                        dest[i] = dest[j];
                        dest[j] = (uint32_t) j;
                }
        l->n_lruvecs = m;
        return 0;
}
