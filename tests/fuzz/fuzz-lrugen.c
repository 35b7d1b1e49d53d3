/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "mglrud/kernel/lrugen.h"

static void check(const struct lrugen *l) {
        for (size_t i = 0; i < l->n_lruvecs; i++) {
                const struct lrugen_lruvec *v = &l->lruvecs[i];
                fuzz_check(v->memcg_id != 0);
                fuzz_check(v->path_off < l->paths_len);
                const char *path = lrugen_path(l, v);
                fuzz_check(memchr(path, '\0', l->paths_len - v->path_off));
                fuzz_check(path[0] == '/');
                fuzz_check(v->nr_gens >= 1 && v->nr_gens <= LRUGEN_MAX_NR_GENS);
                fuzz_check(v->node >= 0);
                fuzz_check(v->file_tiers_gen >= -1 && v->file_tiers_gen < (int) v->nr_gens &&
                           (v->file_tiers_gen < 0 || l->full));
                for (unsigned g = 0; g < v->nr_gens; g++) {
                        fuzz_check(v->gens[g].has_tiers == l->full);
                        if (g > 0)
                                fuzz_check(v->gens[g].seq == v->gens[g - 1].seq + 1);
                }
                if (i > 0) {
                        const struct lrugen_lruvec *p = &l->lruvecs[i - 1];
                        fuzz_check(p->memcg_id < v->memcg_id ||
                                   (p->memcg_id == v->memcg_id && p->node < v->node));
                }
                const struct lrugen_lruvec *first = NULL;
                size_t n = lrugen_find_memcg(l, v->memcg_id, &first);
                fuzz_check(n >= 1 && first <= v && v < first + n);
                fuzz_check(lrugen_find_path(l, path) != NULL);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct lrugen l = {};
        int r;

        r = lrugen_parse((const char *) data, size, &l);
        fuzz_check(r == 0 || r == -EINVAL);
        if (r < 0)
                fuzz_check(l.n_lruvecs == 0 && !l.full);
        else {
                /* A cut last line costs its record, which is then counted as bad. */
                fuzz_check(size > 0 && (data[size - 1] == '\n' || l.n_bad > 0));
                fuzz_check(l.n_lruvecs > 0 || l.n_bad == 0); /* else it is -EINVAL */
                check(&l);
                /* Parsing again into the same storage gives the same answer. */
                size_t n = l.n_lruvecs;
                r = lrugen_parse((const char *) data, size, &l);
                fuzz_check(r == 0 && l.n_lruvecs == n);
                check(&l);
        }
        lrugen_done(&l);
        return 0;
}
