/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "zipf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int zipf_init(struct zipf *z, uint64_t n, double s)
{
	double sum = 0;

	*z = (struct zipf) { 0 };
	if (n == 0 || !isfinite(s) || s < 0)
		return -EINVAL;
	z->cdf = malloc(n * sizeof *z->cdf);
	if (!z->cdf)
		return -ENOMEM;
	for (uint64_t k = 0; k < n; k++) {
		sum += pow((double) (k + 1), -s);
		z->cdf[k] = sum;
	}
	for (uint64_t k = 0; k < n; k++)
		z->cdf[k] /= sum;
	/* Rounding may leave the last entry a hair below 1: u just below 1 must still land. */
	z->cdf[n - 1] = 1.0;
	z->n = n;
	z->s = s;
	return 0;
}

void zipf_free(struct zipf *z)
{
	free(z->cdf);
	z->cdf = NULL;
	z->n = 0;
}

uint64_t zipf_rank(const struct zipf *z, double u)
{
	uint64_t lo = 0, hi = z->n - 1;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (u < z->cdf[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

uint64_t rng_next(uint64_t *state)
{
	uint64_t x = (*state += 0x9e3779b97f4a7c15ULL);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

double rng_unit(uint64_t *state)
{
	return (double) (rng_next(state) >> 11) * 0x1.0p-53;
}
