#include "wl-common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t wl_stop;

static void on_signal(int sig)
{
	(void)sig;
	wl_stop = 1;
}

void wl_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* Output usually goes to a file or pipe that a scenario tails: flush every line. */
	setvbuf(stdout, NULL, _IOLBF, 0);
}

uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double wl_now(void)
{
	return (double)wl_now_ns() / 1e9;
}

void wl_die(int errnum, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
	exit(2);
}

uint64_t wl_parse_u64(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		wl_die(0, "invalid value for %s: '%s' (want a non-negative integer)", opt, s);
	return v;
}

double wl_parse_double(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0)
		wl_die(0, "invalid value for %s: '%s' (want a non-negative number)", opt, s);
	return v;
}

void *wl_map_anon(size_t size)
{
	void *p;

	if (size == 0)
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		wl_die(errno, "mmap %zu bytes", size);
	/* Keep 4 KiB pages: per-page ageing and reclaim are what the tests look at. */
	(void)madvise(p, size, MADV_NOHUGEPAGE);
	return p;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

void wl_fill(void *p, size_t size, uint64_t seed)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;

	for (size_t off = 0; off + (size_t)psz <= size; off += (size_t)psz) {
		uint64_t *w = (uint64_t *)((char *)p + off);
		size_t n = (size_t)psz / 8;
		/* A random quarter, the rest a repeated word: compressible but not same-filled. */
		for (size_t i = 0; i < n / 4; i++)
			w[i] = xorshift(&s);
		for (size_t i = n / 4; i < n; i++)
			w[i] = off;
	}
}

int wl_pagemap(int fd, const void *p, size_t size, struct wl_residency *ret)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t first = (uintptr_t)p / (uint64_t)psz;
	uint64_t n = size / (uint64_t)psz;
	uint64_t buf[4096];
	struct wl_residency r = { .pages = n };

	for (uint64_t i = 0; i < n;) {
		uint64_t chunk = n - i < 4096 ? n - i : 4096;
		ssize_t got = pread(fd, buf, chunk * 8, (off_t)((first + i) * 8));
		if (got < 0)
			return -errno;
		if (got == 0 || got % 8)
			return -EIO;
		for (ssize_t k = 0; k < got / 8; k++) {
			if (buf[k] & (1ull << 63))
				r.present++;
			if (buf[k] & (1ull << 62))
				r.swapped++;
		}
		i += (uint64_t)got / 8;
	}
	*ret = r;
	return 0;
}

int64_t wl_mincore(const void *p, size_t size)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t n = (size + (size_t)psz - 1) / (size_t)psz;
	unsigned char *vec;
	int64_t resident = 0;

	if (size == 0)
		return 0;
	vec = malloc(n);
	if (!vec)
		return -ENOMEM;
	if (mincore((void *)p, size, vec) < 0) {
		int e = errno;
		free(vec);
		return -e;
	}
	for (size_t i = 0; i < n; i++)
		resident += vec[i] & 1;
	free(vec);
	return resident;
}

static unsigned hist_index(uint64_t ns)
{
	unsigned lg, sub;

	if (ns < WL_HIST_SUB)
		return (unsigned)ns;
	lg = 63 - (unsigned)__builtin_clzll(ns);
	sub = (unsigned)((ns >> (lg - WL_HIST_SUB_BITS)) & (WL_HIST_SUB - 1));
	return lg * WL_HIST_SUB + sub;
}

static uint64_t hist_upper(unsigned idx)
{
	unsigned lg = idx / WL_HIST_SUB, sub = idx % WL_HIST_SUB;

	if (lg < WL_HIST_SUB_BITS)
		return idx;
	return (((uint64_t)WL_HIST_SUB + sub + 1) << (lg - WL_HIST_SUB_BITS)) - 1;
}

void wl_hist_add(struct wl_hist *h, uint64_t ns)
{
	h->b[hist_index(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

void wl_hist_merge(struct wl_hist *dst, const struct wl_hist *src)
{
	for (size_t i = 0; i < 64 * WL_HIST_SUB; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

uint64_t wl_hist_quantile(const struct wl_hist *h, double q)
{
	uint64_t want, seen = 0;

	if (!h->count)
		return 0;
	want = (uint64_t)(q * (double)h->count);
	if (want >= h->count)
		want = h->count - 1;
	for (unsigned i = 0; i < 64 * WL_HIST_SUB; i++) {
		seen += h->b[i];
		if (seen > want) {
			uint64_t u = hist_upper(i);
			return u < h->max_ns ? u : h->max_ns;
		}
	}
	return h->max_ns;
}

void wl_event_begin(const char *name, double t)
{
	printf("event=%s t=%.1f", name, t);
}
