/* mixed: anon and file memory for swappiness sweeps.
 *
 * Allocates --anon MiB of anonymous memory and touches it once, reads --file-mib MiB of
 * --file once (the whole file by default), prints "event=ready", then holds everything for
 * --duration seconds (0 = until SIGTERM) and prints "event=final". With --report S it also
 * prints "event=report" every S seconds. Reports give the anon pages present/swapped (from
 * /proc/self/pagemap) and the file pages resident (mincore on a mapping of the file). */
#include "wl-common.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mixed [options]\n"
		"  -a, --anon MIB       anonymous memory touched once (default 64)\n"
		"  -f, --file PATH      file read once (optional)\n"
		"  -F, --file-mib MIB   read only the first MIB MiB of it (default: all)\n"
		"  -d, --duration S     hold time after ready, 0 = until SIGTERM (default 60)\n"
		"  -r, --report S       report interval, 0 = only ready/final (default 0)\n"
		"  -h, --help\n");
}

static void report(const char *ev, double t, int pm, void *anon, size_t asize, void *fmap,
		   size_t fsize)
{
	struct wl_residency r = { 0 };
	int64_t res = 0;
	int e;

	if (asize && (e = wl_pagemap(pm, anon, asize, &r)) < 0)
		wl_die(-e, "read /proc/self/pagemap");
	if (fsize && (res = wl_mincore(fmap, fsize)) < 0)
		wl_die((int)-res, "mincore");
	wl_event_begin(ev, t);
	printf(" anon_kib=%llu anon_present_kib=%llu anon_swapped_kib=%llu file_kib=%llu file_resident_kib=%lld\n",
	       (unsigned long long)asize / 1024, (unsigned long long)r.present * 4,
	       (unsigned long long)r.swapped * 4, (unsigned long long)fsize / 1024,
	       (long long)res * 4);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "anon", required_argument, NULL, 'a' },
		{ "file", required_argument, NULL, 'f' },
		{ "file-mib", required_argument, NULL, 'F' },
		{ "duration", required_argument, NULL, 'd' },
		{ "report", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t anon_mib = 64, file_mib = 0;
	const char *path = NULL;
	double duration = 60, report_iv = 0;
	void *fmap = NULL;
	size_t fsize = 0;
	int c, pm;

	while ((c = getopt_long(argc, argv, "a:f:F:d:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a': anon_mib = wl_parse_u64("--anon", optarg); break;
		case 'f': path = optarg; break;
		case 'F': file_mib = wl_parse_u64("--file-mib", optarg); break;
		case 'd': duration = wl_parse_double("--duration", optarg); break;
		case 'r': report_iv = wl_parse_double("--report", optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	wl_install_signals();
	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pm < 0)
		wl_die(errno, "open /proc/self/pagemap");

	size_t asize = anon_mib << 20;
	void *anon = wl_map_anon(asize);
	if (asize)
		wl_fill(anon, asize, 7);

	if (path) {
		struct stat st;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		size_t bufsz = 1 << 20;
		char *buf = malloc(bufsz);

		if (fd < 0)
			wl_die(errno, "open %s", path);
		if (!buf)
			wl_die(ENOMEM, "malloc");
		if (fstat(fd, &st) < 0)
			wl_die(errno, "fstat %s", path);
		fsize = (size_t)st.st_size;
		if (file_mib && (file_mib << 20) < fsize)
			fsize = file_mib << 20;
		for (size_t off = 0; off < fsize;) {
			size_t want = fsize - off < bufsz ? fsize - off : bufsz;
			ssize_t n = pread(fd, buf, want, (off_t)off);
			if (n < 0)
				wl_die(errno, "read %s", path);
			if (n == 0)
				break;
			off += (size_t)n;
		}
		free(buf);
		if (fsize) {
			fmap = mmap(NULL, fsize, PROT_READ, MAP_SHARED, fd, 0);
			if (fmap == MAP_FAILED)
				wl_die(errno, "mmap %s", path);
		}
		close(fd);
	}

	double t0 = wl_now();
	printf("event=ready pid=%d anon_mib=%llu file_mib=%.1f\n", (int)getpid(),
	       (unsigned long long)anon_mib, (double)fsize / 1048576.0);
	double next = report_iv > 0 ? t0 + report_iv : 0;
	while (!wl_stop && (duration <= 0 || wl_now() - t0 < duration)) {
		usleep(50000);
		if (next > 0 && wl_now() >= next) {
			report("report", wl_now() - t0, pm, anon, asize, fmap, fsize);
			next += report_iv;
		}
	}
	report("final", wl_now() - t0, pm, anon, asize, fmap, fsize);
	return 0;
}
