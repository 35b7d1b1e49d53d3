/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/shared/token-bucket.h"

#include "mglrud/shared/macro.h"
#include "mglrud/shared/time.h"

void token_bucket_refill(struct token_bucket *b, uint64_t now_usec) {
        if (!b->refill_usec || now_usec < b->refill_usec)
                b->tokens = b->burst;
        else if (b->rate_per_sec > 0) {
                /* Capped first, at a whole second more than an empty bucket takes to fill, so
                 * that the product stays below 2^64: (burst + rate) x 10^6 with both <= 10^12. */
                uint64_t fill_usec = (b->burst / b->rate_per_sec + 1) * USEC_PER_SEC;
                uint64_t dt = MIN(now_usec - b->refill_usec, fill_usec);
                b->tokens = MIN(b->tokens + dt * b->rate_per_sec / USEC_PER_SEC, b->burst);
        }
        b->refill_usec = now_usec;
}

bool token_bucket_take(struct token_bucket *b, uint64_t n) {
        if (b->tokens < n)
                return false;
        b->tokens -= n;
        return true;
}
