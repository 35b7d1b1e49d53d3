/* SPDX-License-Identifier: GPL-2.0-or-later */
/* token-bucket.h: a rate with bursts. Tokens come at rate_per_sec, up to burst; what an action
 * takes is gone until they come again. The unit is the caller's: to count in fractions of a
 * thing, scale both (millionths of a file: rate and burst times 10^6). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct token_bucket {
        uint64_t rate_per_sec;  /* tokens added a second */
        uint64_t burst;         /* at most this many held; both at most 10^12 */
        uint64_t tokens;        /* held now (after the last refill) */
        uint64_t refill_usec;   /* the last refill (0: never: full at the first) */
};

/* Adds the tokens of the time since the last refill (CLOCK_MONOTONIC, µs), up to b->burst. The
 * first refill, and one with the clock gone back, fills the bucket. */
void token_bucket_refill(struct token_bucket *b, uint64_t now_usec);

/* Takes n tokens if b holds so many. Returns whether it took them. */
bool token_bucket_take(struct token_bucket *b, uint64_t n);
