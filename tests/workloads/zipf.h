/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A Zipf sampler for the workloads and benchmark clients (zipf-read, mc-zipf): rank k of N (0-based) is drawn with
 * probability (k+1)^-s / H(N,s), by binary search in the cumulative table built once. The random
 * numbers come from a seeded splitmix64, so a run is reproducible. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct zipf {
	uint64_t n;
	double s;
	/* cdf[k] = P(rank <= k); cdf[n - 1] == 1. */
	double *cdf;
};

/* Builds the table for ranks 0..n-1 with exponent s (s >= 0; 0 is uniform). Returns 0, -EINVAL
 * when n is 0 or s is negative or not finite, -ENOMEM. */
int zipf_init(struct zipf *z, uint64_t n, double s);

/* Frees the table; z may be zeroed or already freed. */
void zipf_free(struct zipf *z);

/* Returns the rank (0..n-1) whose cumulative interval holds u, a uniform number in [0, 1):
 * the smallest k with u < cdf[k]. */
uint64_t zipf_rank(const struct zipf *z, double u);

/* Returns the next 64 random bits of the splitmix64 sequence in *state and advances it. */
uint64_t rng_next(uint64_t *state);

/* Returns a uniform number in [0, 1) from the top 53 bits of rng_next(state). */
double rng_unit(uint64_t *state);
