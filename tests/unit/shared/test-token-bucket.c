/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The token bucket: full at first, refilled at its rate up to its burst, what is taken gone,
 * no overflow across a long gap; with stream protection's two buckets (files in millionths,
 * bytes) the numbers it has always had. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mglrud/shared/time.h"
#include "mglrud/shared/token-bucket.h"

static void test_refill_and_take(void **state) {
        struct token_bucket b = { .rate_per_sec = 100, .burst = 50 };

        token_bucket_refill(&b, 1000);
        assert_int_equal(b.tokens, 50); /* full at the first refill */
        assert_false(token_bucket_take(&b, 51));
        assert_int_equal(b.tokens, 50); /* nothing taken */
        assert_true(token_bucket_take(&b, 50));
        assert_int_equal(b.tokens, 0);
        assert_false(token_bucket_take(&b, 1));

        token_bucket_refill(&b, 1000 + 100 * 1000); /* 100 ms: 10 tokens */
        assert_int_equal(b.tokens, 10);
        token_bucket_refill(&b, 1000 + 105 * 1000); /* 5 ms more: half a token, rounded down */
        assert_int_equal(b.tokens, 10);
        token_bucket_refill(&b, 1000 + 10 * USEC_PER_SEC);
        assert_int_equal(b.tokens, 50); /* never above the burst */
        assert_true(token_bucket_take(&b, 20));
        token_bucket_refill(&b, 500); /* the clock went back: full */
        assert_int_equal(b.tokens, 50);
        assert_int_equal(b.refill_usec, 500);
}

/* Stream protection's bounds: 1,024 files a second in millionths of a file, 1 GiB of bytes a
 * second, each a second's worth of burst. */
static void test_stream_budget(void **state) {
        struct token_bucket files = { .rate_per_sec = 1024 * USEC_PER_SEC,
                                      .burst = 1024 * USEC_PER_SEC };
        struct token_bucket bytes = { .rate_per_sec = UINT64_C(1) << 30,
                                      .burst = UINT64_C(1) << 30 };
        uint64_t t = 5 * USEC_PER_SEC;

        token_bucket_refill(&files, t);
        token_bucket_refill(&bytes, t);
        assert_true(token_bucket_take(&files, files.tokens));
        assert_true(token_bucket_take(&bytes, bytes.tokens));
        token_bucket_refill(&files, t + 1000);
        token_bucket_refill(&bytes, t + 1000);
        assert_int_equal(files.tokens, 1024 * 1000);                   /* 1.024 files */
        assert_int_equal(bytes.tokens, (UINT64_C(1) << 30) / 1000);     /* a millisecond's */
}

/* A gap of hours at the largest rate and burst allowed (10^12) fills the bucket instead of
 * wrapping around (13 h x 10^12 a second wraps to 0.61 x 10^12 tokens uncapped). */
static void test_long_gap(void **state) {
        const uint64_t big = UINT64_C(1000000000000);
        struct token_bucket b = { .rate_per_sec = big, .burst = big };

        token_bucket_refill(&b, 1);
        assert_true(token_bucket_take(&b, big));
        token_bucket_refill(&b, 1 + 13 * 3600 * USEC_PER_SEC);
        assert_int_equal(b.tokens, big);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_refill_and_take),
                cmocka_unit_test(test_stream_budget),
                cmocka_unit_test(test_long_gap),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
