/* anon-tiers: three anonymous sets of different hotness.
 *
 *   cold  touched once at start (filled), then never again; with --cold-growth it starts empty
 *         and is filled at that rate after "ready" (a cold set growing into a limit)
 *   warm  one write per page every --warm-interval seconds (a "pass"; its latency is timed)
 *   hot   written continuously by the main loop, one word per page, round robin
 *
 * Prints "event=ready" once all sets are filled, "event=report" every --report seconds and
 * "event=final" at the end (after --duration seconds, or on SIGTERM/SIGINT). Each report has
 * the hot-loop rate (touches/s), the warm-pass latency (last and max since the previous
 * report, ms) and per tier the pages present in RAM and swapped out, from /proc/self/pagemap.
 *
 * Every --tlb-flush seconds the loop write-protects and unprotects a 1 MiB scratch area, which
 * flushes this CPU's TLB. Under QEMU's TCG the software TLB is resized only when it is
 * flushed: without flushes it stays at 256 entries and every hot touch misses, and the hot
 * rate then swings 20x with whatever else happens to flush it (measured: 3 M touches/s for a
 * minute, then 66 M/s, in one run with no daemon). With the periodic flush the rate measures
 * the workload's memory accesses; on real hardware the flush costs microseconds. */
#include "wl-common.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: anon-tiers [options]\n"
		"  -c, --cold MIB           cold set size (default 64)\n"
		"  -w, --warm MIB           warm set size (default 32)\n"
		"  -H, --hot MIB            hot set size (default 16)\n"
		"  -W, --warm-interval S    seconds between warm passes (default 10)\n"
		"  -d, --duration S         run time in seconds, 0 = until SIGTERM (default 60)\n"
		"  -r, --report S           report interval in seconds (default 5)\n"
		"  -s, --seed N             content seed (default 1)\n"
		"  -f, --tlb-flush S        flush the TLB every S seconds (default 1, 0 = never)\n"
		"  -g, --cold-growth MIB/S  start the cold set empty and fill it at this rate (default 0:\n"
		"                           filled before ready)\n"
		"  -h, --help\n");
}

struct tier {
	const char *name;
	char *p;
	size_t size;
};

static void report_tier(int fd, const struct tier *t)
{
	struct wl_residency r = { 0 };
	int e;

	if (!t->size) {
		printf(" %s_kib=0 %s_present_kib=0 %s_swapped_kib=0", t->name, t->name, t->name);
		return;
	}
	e = wl_pagemap(fd, t->p, t->size, &r);
	if (e < 0)
		wl_die(-e, "read /proc/self/pagemap");
	printf(" %s_kib=%llu %s_present_kib=%llu %s_swapped_kib=%llu", t->name,
	       (unsigned long long)(r.pages * 4), t->name, (unsigned long long)(r.present * 4),
	       t->name, (unsigned long long)(r.swapped * 4));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cold", required_argument, NULL, 'c' },
		{ "warm", required_argument, NULL, 'w' },
		{ "hot", required_argument, NULL, 'H' },
		{ "warm-interval", required_argument, NULL, 'W' },
		{ "duration", required_argument, NULL, 'd' },
		{ "report", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "tlb-flush", required_argument, NULL, 'f' },
		{ "cold-growth", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t cold = 64, warm = 32, hot = 16, seed = 1;
	double warm_iv = 10, duration = 60, report_iv = 5, flush_iv = 1, growth = 0;
	long psz = sysconf(_SC_PAGESIZE);
	struct tier tiers[3];
	int c, fd;

	while ((c = getopt_long(argc, argv, "c:w:H:W:d:r:s:f:g:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': cold = wl_parse_u64("--cold", optarg); break;
		case 'w': warm = wl_parse_u64("--warm", optarg); break;
		case 'H': hot = wl_parse_u64("--hot", optarg); break;
		case 'W': warm_iv = wl_parse_double("--warm-interval", optarg); break;
		case 'd': duration = wl_parse_double("--duration", optarg); break;
		case 'r': report_iv = wl_parse_double("--report", optarg); break;
		case 's': seed = wl_parse_u64("--seed", optarg); break;
		case 'f': flush_iv = wl_parse_double("--tlb-flush", optarg); break;
		case 'g': growth = wl_parse_double("--cold-growth", optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || report_iv <= 0) {
		usage(stderr);
		return 2;
	}
	wl_install_signals();
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die(errno, "open /proc/self/pagemap");

	tiers[0] = (struct tier){ "cold", wl_map_anon(cold << 20), cold << 20 };
	tiers[1] = (struct tier){ "warm", wl_map_anon(warm << 20), warm << 20 };
	tiers[2] = (struct tier){ "hot", wl_map_anon(hot << 20), hot << 20 };
	for (int i = growth > 0 ? 1 : 0; i < 3; i++)
		wl_fill(tiers[i].p, tiers[i].size, seed * 3 + (uint64_t)i);
	size_t cold_filled = growth > 0 ? 0 : tiers[0].size;
	/* More than the kernel's single-page flush ceiling (33 pages): a full flush. */
	const size_t scratch_size = 1 << 20;
	char *scratch = wl_map_anon(scratch_size);
	wl_fill(scratch, scratch_size, seed);

	double t0 = wl_now();
	printf("event=ready pid=%d cold_mib=%llu warm_mib=%llu hot_mib=%llu warm_interval=%g duration=%g cold_growth=%g\n",
	       (int)getpid(), (unsigned long long)cold, (unsigned long long)warm,
	       (unsigned long long)hot, warm_iv, duration, growth);

	size_t hot_pages = tiers[2].size / (size_t)psz, warm_pages = tiers[1].size / (size_t)psz;
	size_t hi = 0;
	uint64_t touches = 0, total_touches = 0, warm_passes = 0;
	double next_warm = t0 + warm_iv, next_report = t0 + report_iv, last_report = t0;
	double next_flush = t0;
	double warm_last_ms = 0, warm_max_ms = 0, warm_max_all_ms = 0;
	bool final = false;

	while (!final) {
		double now;

		/* Hot loop: a batch of writes, then look at the clock. */
		if (hot_pages) {
			for (int k = 0; k < 4096; k++) {
				(*(volatile uint64_t *)(tiers[2].p + hi * (size_t)psz + 8))++;
				if (++hi == hot_pages)
					hi = 0;
			}
			touches += 4096;
		} else {
			usleep(10000);
		}
		now = wl_now();
		if (wl_stop || (duration > 0 && now - t0 >= duration))
			final = true;

		if (cold_filled < tiers[0].size) {
			/* At most 1 MiB per turn, so that the hot loop keeps going. */
			size_t want = (size_t)((now - t0) * growth * 1048576.0) / (size_t)psz * (size_t)psz;
			if (want > tiers[0].size)
				want = tiers[0].size;
			if (want > cold_filled + (1u << 20))
				want = cold_filled + (1u << 20);
			if (want > cold_filled) {
				wl_fill(tiers[0].p + cold_filled, want - cold_filled, seed * 3);
				cold_filled = want;
			}
		}

		if (flush_iv > 0 && now >= next_flush) {
			if (mprotect(scratch, scratch_size, PROT_READ) < 0 ||
			    mprotect(scratch, scratch_size, PROT_READ | PROT_WRITE) < 0)
				wl_die(errno, "mprotect");
			next_flush = now + flush_iv;
		}

		if (warm_pages && now >= next_warm && !final) {
			uint64_t a = wl_now_ns();
			for (size_t i = 0; i < warm_pages; i++)
				(*(volatile uint64_t *)(tiers[1].p + i * (size_t)psz + 16))++;
			warm_last_ms = (double)(wl_now_ns() - a) / 1e6;
			if (warm_last_ms > warm_max_ms)
				warm_max_ms = warm_last_ms;
			if (warm_last_ms > warm_max_all_ms)
				warm_max_all_ms = warm_last_ms;
			warm_passes++;
			now = wl_now();
			next_warm = now + warm_iv;
		}

		if (now >= next_report || final) {
			double dt = now - last_report;
			total_touches += touches;
			wl_event_begin(final ? "final" : "report", now - t0);
			printf(" hot_touches_per_s=%.0f warm_passes=%llu warm_pass_ms=%.2f warm_pass_max_ms=%.2f",
			       dt > 0 ? (double)touches / dt : 0.0, (unsigned long long)warm_passes,
			       warm_last_ms, final ? warm_max_all_ms : warm_max_ms);
			if (final)
				printf(" hot_touches_total=%llu", (unsigned long long)total_touches);
			printf(" cold_filled_kib=%llu", (unsigned long long)(cold_filled >> 10));
			for (int i = 0; i < 3; i++)
				report_tier(fd, &tiers[i]);
			putchar('\n');
			touches = 0;
			warm_max_ms = 0;
			last_report = now;
			next_report = now + report_iv;
		}
	}
	return 0;
}
