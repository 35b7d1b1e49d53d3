/* Helpers shared by the workload programs (tests/workloads): clocks, output, residency
 * probes, latency histograms. Workloads print one event per line as space-separated
 * key=value pairs, starting with "event=...", so guest scenarios can parse them with grep/sed. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern volatile sig_atomic_t wl_stop;

/* Installs SIGTERM/SIGINT handlers that set wl_stop. */
void wl_install_signals(void);

/* Monotonic time in seconds / nanoseconds. */
double wl_now(void);
uint64_t wl_now_ns(void);

/* Parses a non-negative integer or dies with a usage message naming opt. */
uint64_t wl_parse_u64(const char *opt, const char *s);
double wl_parse_double(const char *opt, const char *s);

/* Dies with a message (and errno text when errnum != 0), exit code 2. */
void wl_die(int errnum, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* Maps size bytes of private anonymous memory, without THP. Dies on failure. */
void *wl_map_anon(size_t size);

/* Fills [p, p+size) page by page with data that zram compresses about 3:1 (never zero pages,
 * which zram would store as same-filled). seed varies the content. */
void wl_fill(void *p, size_t size, uint64_t seed);

struct wl_residency {
	uint64_t pages;    /* pages in the range */
	uint64_t present;  /* present in RAM */
	uint64_t swapped;  /* swapped out (zram, zswap-backed swap or disk) */
};

/* Reads /proc/self/pagemap for [p, p+size). Returns 0 or a negative errno. */
int wl_pagemap(int pagemap_fd, const void *p, size_t size, struct wl_residency *ret);

/* mincore() over a mapping of a file. Returns the resident page count or a negative errno. */
int64_t wl_mincore(const void *p, size_t size);

/* Latency histogram: 64 log2 buckets of ns, each split in WL_HIST_SUB linear sub-buckets (a
 * quantile is within 1/64 = 1.6% of the true value: S2 compares medians to 5%). */
#define WL_HIST_SUB_BITS 6
#define WL_HIST_SUB (1u << WL_HIST_SUB_BITS)
struct wl_hist {
	uint64_t count;
	uint64_t max_ns;
	uint64_t sum_ns;
	uint64_t b[64 * WL_HIST_SUB];
};
void wl_hist_add(struct wl_hist *h, uint64_t ns);
void wl_hist_merge(struct wl_hist *dst, const struct wl_hist *src);
/* Upper bound of the bucket holding quantile q (0..1), in ns; 0 for an empty histogram. */
uint64_t wl_hist_quantile(const struct wl_hist *h, double q);

/* Prints the event line prefix "event=NAME t=SECONDS" (no newline). */
void wl_event_begin(const char *name, double t);
