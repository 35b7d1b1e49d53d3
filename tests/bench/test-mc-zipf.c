/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mc-zipf's Zipf sampler (zipf.c) and memcached reply parser (mc-reply.c). Every reply buffer is
 * an exact-size heap copy without a NUL, so ASan sees a read past its end, and every proper
 * prefix of a complete reply must ask for more, not fail or succeed. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mc-reply.h"
#include "zipf.h"

/* Returns the exact-size heap copy of s[0..n). */
static char *dup_exact(const char *s, size_t n)
{
	char *p = malloc(n ? n : 1);

	assert_non_null(p);
	memcpy(p, s, n);
	return p;
}

/* Parses s[0..n) as an exact-size buffer; returns mc_reply_parse's result. */
static int parse_n(const char *s, size_t n, struct mc_reply *ret)
{
	char *buf = dup_exact(s, n);
	int r = mc_reply_parse(buf, n, ret);

	free(buf);
	return r;
}

/* Checks that s (a whole reply, then maybe the start of the next) parses to kind, taking
 * `used` bytes, and that each of its proper prefixes below `used` asks for more. */
static void check_reply(const char *s, int used, enum mc_reply_kind kind, size_t value_len)
{
	struct mc_reply rep;

	for (int n = 0; n < used; n++) {
		int r = parse_n(s, (size_t) n, &rep);

		if (r != 0)
			fail_msg("prefix of %d bytes of \"%s\": %d, not 0", n, s, r);
	}
	assert_int_equal(parse_n(s, strlen(s), &rep), used);
	assert_int_equal(rep.kind, kind);
	assert_int_equal(rep.value_len, value_len);
}

static void test_reply_simple(void **state)
{
	(void) state;
	check_reply("STORED\r\n", 8, MC_STORED, 0);
	check_reply("NOT_STORED\r\n", 12, MC_NOT_STORED, 0);
	check_reply("END\r\n", 5, MC_MISS, 0);
	check_reply("ERROR\r\n", 7, MC_ERROR, 0);
	check_reply("SERVER_ERROR out of memory storing object\r\n", 43, MC_ERROR, 0);
	check_reply("CLIENT_ERROR bad data chunk\r\n", 29, MC_ERROR, 0);
	/* A second reply behind the first is left alone. */
	check_reply("STORED\r\nSTORED\r\n", 8, MC_STORED, 0);
}

static void test_reply_value(void **state)
{
	(void) state;
	check_reply("VALUE k12 0 5\r\nhello\r\nEND\r\n", 27, MC_HIT, 5);
	/* Data holding "\r\nEND\r\n" itself: the length, not a search, ends it. */
	check_reply("VALUE k1 7 7\r\n\r\nEND\r\n\r\nEND\r\nSTORED\r\n", 28, MC_HIT, 7);
	check_reply("VALUE k 0 0\r\n\r\nEND\r\n", 20, MC_HIT, 0);
}

static void test_reply_malformed(void **state)
{
	static const char *const bad[] = {
		"STOREDX\r\n", "HELLO\r\n", "VALUE\r\n", "VALUE k1\r\n", "VALUE k1 0\r\n",
		"VALUE k1 0 x\r\n", "VALUE k1 0 5 9\r\n", "VALUE  0 5\r\n", "VALUE k1 -1 5\r\n",
		"VALUE k1 0 5\r\nhelloXX", "VALUE k1 0 5\r\nhello\r\nSTORED\r\n",
		"VALUE k1 0 5\r\nhello\r\nEX", "VALUE k1 0 99999999999\r\n", "X", "ENDX", "\r\n",
	};
	struct mc_reply rep;

	(void) state;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		int r = parse_n(bad[i], strlen(bad[i]), &rep);

		if (r != -EBADMSG)
			fail_msg("\"%s\": %d, not -EBADMSG", bad[i], r);
	}
}

static void test_zipf_bounds(void **state)
{
	struct zipf z;

	(void) state;
	assert_int_equal(zipf_init(&z, 0, 0.99), -EINVAL);
	assert_int_equal(zipf_init(&z, 10, -1), -EINVAL);
	assert_int_equal(zipf_init(&z, 10, NAN), -EINVAL);
	assert_int_equal(zipf_init(&z, 1000, 0.99), 0);
	assert_int_equal(zipf_rank(&z, 0.0), 0);
	assert_int_equal(zipf_rank(&z, nextafter(1.0, 0.0)), 999);
	/* Rank 0's interval is [0, cdf[0]): its upper end belongs to rank 1. */
	assert_int_equal(zipf_rank(&z, nextafter(z.cdf[0], 0.0)), 0);
	assert_int_equal(zipf_rank(&z, z.cdf[0]), 1);
	assert_int_equal(zipf_rank(&z, z.cdf[499]), 500);
	for (uint64_t k = 1; k < 1000; k++)
		assert_true(z.cdf[k] > z.cdf[k - 1]);
	zipf_free(&z);
	zipf_free(&z);
	assert_int_equal(zipf_init(&z, 1, 0.99), 0);
	assert_int_equal(zipf_rank(&z, 0.5), 0);
	zipf_free(&z);
}

/* The sampled frequencies against the law: P(k) = (k+1)^-s / H(N,s). */
static void check_frequencies(uint64_t n, double s)
{
	enum { SAMPLES = 2000000 };
	uint64_t *count = calloc(n, sizeof *count), rng = 7;
	double h = 0;
	struct zipf z;

	assert_non_null(count);
	assert_int_equal(zipf_init(&z, n, s), 0);
	for (uint64_t k = 0; k < n; k++)
		h += pow((double) (k + 1), -s);
	for (int i = 0; i < SAMPLES; i++)
		count[zipf_rank(&z, rng_unit(&rng))]++;
	/* The ranks with at least 2,000 expected draws, within 5 standard deviations. */
	for (uint64_t k = 0; k < n; k++) {
		double p = pow((double) (k + 1), -s) / h, want = p * SAMPLES;
		double sd = sqrt(want * (1 - p));

		if (want < 2000)
			continue;
		if (fabs((double) count[k] - want) > 5 * sd)
			fail_msg("N=%llu s=%.2f rank %llu: %llu draws, want %.0f +- %.0f",
				 (unsigned long long) n, s, (unsigned long long) k,
				 (unsigned long long) count[k], want, 5 * sd);
	}
	free(count);
	zipf_free(&z);
}

static void test_zipf_frequencies(void **state)
{
	(void) state;
	check_frequencies(100000, 0.99);
	check_frequencies(50, 0.0);
	check_frequencies(1000, 1.5);
}

static void test_rng(void **state)
{
	uint64_t a = 24, b = 24, sum = 0;
	double lo = 1, hi = 0;

	(void) state;
	for (int i = 0; i < 100000; i++) {
		double u = rng_unit(&a);

		assert_true(u >= 0 && u < 1);
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
		sum += rng_next(&b) >> 63;
	}
	assert_true(lo < 0.001 && hi > 0.999);
	/* The top bit is set about half the time. */
	assert_true(sum > 49000 && sum < 51000);
	a = 24;
	b = 24;
	assert_int_equal(rng_next(&a), rng_next(&b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reply_simple),
		cmocka_unit_test(test_reply_value),
		cmocka_unit_test(test_reply_malformed),
		cmocka_unit_test(test_zipf_bounds),
		cmocka_unit_test(test_zipf_frequencies),
		cmocka_unit_test(test_rng),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
