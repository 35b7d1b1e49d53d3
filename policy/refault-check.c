/* SPDX-License-Identifier: GPL-2.0-or-later */
/* refault-check.c: signs that the kernel's refault counts are short (refault-check.h). */
#include "mglrud/policy/refault-check.h"

#include <stddef.h>

enum refault_check_verdict refault_check_add(struct refault_check_window *w,
                                             const struct refault_check_sample *c,
                                             uint64_t page_size) {
        uint64_t min_pages = page_size > 0 ? REFAULT_CHECK_MIN_BYTES / page_size : 0;

        if (min_pages == 0)
                min_pages = 1;
        /* A long healthy history must not hide a counter that broke since: the window starts
         * over rather than growing without end. */
        if (w->usec + c->dt_usec > REFAULT_CHECK_WINDOW_USEC)
                *w = (struct refault_check_window) {};
        w->usec += c->dt_usec;
        w->kernel_refault_file += c->kernel_refault_file;
        w->nodereclaim += c->nodereclaim;
        w->evicted += c->evicted;
        if (c->has_own)
                w->own_refault_file += c->own_refault_file;

        /* (Window sums are far below 2^62 pages: the products cannot overflow.) */
        if (w->own_refault_file >= min_pages &&
            w->own_refault_file >= w->kernel_refault_file * REFAULT_CHECK_OWN_RATIO)
                return REFAULT_CHECK_OWN_COUNT;
        if (w->nodereclaim >= min_pages && w->nodereclaim * REFAULT_CHECK_NODE_DIV >= w->evicted)
                return REFAULT_CHECK_SHADOW_NODES;
        return REFAULT_CHECK_TRUSTED;
}

const char *refault_check_verdict_to_string(enum refault_check_verdict v) {
        static const char *const names[_REFAULT_CHECK_VERDICT_MAX] = {
                [REFAULT_CHECK_TRUSTED] = "trusted",
                [REFAULT_CHECK_OWN_COUNT] = "own-count",
                [REFAULT_CHECK_SHADOW_NODES] = "shadow-nodes",
        };
        return (unsigned) v < _REFAULT_CHECK_VERDICT_MAX ? names[v] : NULL;
}
