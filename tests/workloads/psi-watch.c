/* psi-watch: tells when the tasks of a cgroup first stalled on memory, as precisely as a
 * poller can. Reads CGROUP/memory.pressure every --poll microseconds until the "some" total
 * grows by at least --min microseconds over its value at start (printed first as
 *   event=start mono_us=<CLOCK_MONOTONIC of the first read> stall_us=<the total then>),
 * then prints
 *   event=stall mono_us=<CLOCK_MONOTONIC of the read that saw it> stall_us=<growth>
 *         pgsteal_proactive=<memory.stat's, at that moment>
 * then, when the growth reaches --threshold microseconds (the daemon's trigger threshold),
 *   event=threshold mono_us=<...> stall_us=<growth>
 * and keeps reading until --duration seconds have passed (or SIGTERM), printing at the end
 *   event=final stall_us=<growth since start> pgsteal_proactive=<...>
 * Scenarios compare mono_us with what the daemon reports (mglructl dump: times on
 * CLOCK_MONOTONIC) to measure how long reclaim went on after the first stall.
 * With --stat KEY it watches memory.stat's KEY instead of the "some" total (the same events,
 * stall_us then being KEY's growth): e.g. workingset_refault_file, when the first evicted page
 * is read again. */
#include "wl-common.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: psi-watch [options] CGROUP-DIR\n"
		"  -p, --poll US       microseconds between reads (default 2000)\n"
		"  -m, --min US        stall growth that counts (default 1)\n"
		"  -t, --threshold US  stall growth to note as well (default 10000)\n"
		"  -d, --duration S    seconds to watch (default 60)\n"
		"  -s, --stat KEY      watch memory.stat KEY instead of memory.pressure\n"
		"  -h, --help\n");
}

/* Reads an open file from offset 0 into buf (NUL-terminated). Returns 0 or -errno. */
static int read_at0(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static uint64_t some_total(int fd)
{
	char buf[512];
	const char *p;
	if (read_at0(fd, buf, sizeof buf) < 0 || !(p = strstr(buf, "total=")))
		wl_die(0, "memory.pressure: no some total");
	return strtoull(p + 6, NULL, 10);
}

/* Returns memory.stat's value of key (0 when absent). */
static uint64_t stat_value(int fd, const char *key)
{
	char buf[8192], pat[80];
	const char *p;
	snprintf(pat, sizeof pat, "\n%s ", key);
	if (read_at0(fd, buf, sizeof buf) < 0)
		return 0;
	if (strncmp(buf, pat + 1, strlen(pat + 1)) == 0)
		p = buf - 1;
	else if (!(p = strstr(buf, pat)))
		return 0;
	return strtoull(p + strlen(pat), NULL, 10);
}

static uint64_t pgsteal_proactive(int fd)
{
	return stat_value(fd, "pgsteal_proactive");
}

static const char *arg_stat;

/* The watched total: memory.pressure's "some" total, or memory.stat's arg_stat. */
static uint64_t watched(int pfd, int sfd)
{
	return arg_stat ? stat_value(sfd, arg_stat) : some_total(pfd);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "poll", required_argument, NULL, 'p' },
		{ "min", required_argument, NULL, 'm' },
		{ "threshold", required_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'd' },
		{ "stat", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t poll_us = 2000, min_us = 1, threshold_us = 10000, duration = 60;
	int c;

	while ((c = getopt_long(argc, argv, "p:m:t:d:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': poll_us = wl_parse_u64("--poll", optarg); break;
		case 'm': min_us = wl_parse_u64("--min", optarg); break;
		case 't': threshold_us = wl_parse_u64("--threshold", optarg); break;
		case 'd': duration = wl_parse_u64("--duration", optarg); break;
		case 's': arg_stat = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	wl_install_signals();
	int dfd = open(argv[optind], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		wl_die(errno, "%s", argv[optind]);
	int pfd = openat(dfd, "memory.pressure", O_RDONLY | O_CLOEXEC);
	int sfd = openat(dfd, "memory.stat", O_RDONLY | O_CLOEXEC);
	if (pfd < 0 || sfd < 0)
		wl_die(errno, "%s/memory.pressure or memory.stat", argv[optind]);

	uint64_t start_ns = wl_now_ns(), t0 = watched(pfd, sfd);
	uint64_t end_ns = start_ns + duration * 1000000000ull;
	bool seen = false, crossed = false;
	printf("event=start mono_us=%llu stall_us=%llu\n", (unsigned long long) (start_ns / 1000),
	       (unsigned long long) t0);
	fflush(stdout);
	while (!wl_stop && wl_now_ns() < end_ns) {
		uint64_t now_ns = wl_now_ns(), t = watched(pfd, sfd);
		if (!seen && t - t0 >= min_us) {
			seen = true;
			printf("event=stall mono_us=%llu stall_us=%llu pgsteal_proactive=%llu\n",
			       (unsigned long long) (now_ns / 1000), (unsigned long long) (t - t0),
			       (unsigned long long) pgsteal_proactive(sfd));
			fflush(stdout);
		}
		if (seen && !crossed && t - t0 >= threshold_us) {
			crossed = true;
			printf("event=threshold mono_us=%llu stall_us=%llu\n",
			       (unsigned long long) (now_ns / 1000), (unsigned long long) (t - t0));
			fflush(stdout);
		}
		usleep((useconds_t) poll_us);
	}
	printf("event=final stall_us=%llu pgsteal_proactive=%llu\n",
	       (unsigned long long) (watched(pfd, sfd) - t0),
	       (unsigned long long) pgsteal_proactive(sfd));
	return 0;
}
