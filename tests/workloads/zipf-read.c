/* zipf-read: random 4 KiB preads over a file with a Zipf popularity (like fio's
 * random_distribution=zipf:THETA), the "everything is hot" page cache of benchmark S5. Page ranks
 * are shuffled over the file so the hot pages are spread out, as fio does.
 *
 *   zipf-read --file PATH [--theta 0.9] [--duration S] [--report S] [--seed N]
 *
 * Prints "event=ready" once the tables are built, "event=report t=... reads=N rate=R" every
 * --report seconds (R: reads/s in that window) and "event=done reads=N rate=R" at the end. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wl-common.h"
#include "zipf.h"

/* xorshift64*: fast and good enough to draw ranks. */
static uint64_t rng_state = 88172645463325252ULL;
static uint64_t xorshift_next(void) {
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}


int main(int argc, char **argv) {
	static const struct option opts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "theta", required_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'd' },
		{ "report", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{},
	};
	const char *path = NULL;
	double theta = 0.9, duration = 60, report = 5;
	int c;

	while ((c = getopt_long(argc, argv, "f:t:d:r:s:", opts, NULL)) >= 0)
		switch (c) {
		case 'f': path = optarg; break;
		case 't': theta = wl_parse_double("--theta", optarg); break;
		case 'd': duration = wl_parse_double("--duration", optarg); break;
		case 'r': report = wl_parse_double("--report", optarg); break;
		case 's': rng_state = wl_parse_u64("--seed", optarg) | 1; break;
		default: wl_die(0, "usage: zipf-read --file PATH [--theta 0.9] [--duration S] [--report S] [--seed N]");
		}
	if (!path)
		wl_die(0, "--file is required");
	wl_install_signals();

	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		wl_die(errno, "%s", path);
	uint64_t n = (uint64_t) st.st_size / 4096;
	if (n < 2)
		wl_die(0, "%s: too small", path);

	/* The popularity of each rank (zipf.h); perm: rank -> page. */
	struct zipf z;
	int zr = zipf_init(&z, n, theta);
	if (zr < 0)
		wl_die(-zr, "zipf table of %llu pages, theta %.2f", (unsigned long long) n, theta);
	uint64_t *perm = malloc(n * sizeof *perm);
	if (!perm)
		wl_die(ENOMEM, "tables");
	for (uint64_t k = 0; k < n; k++)
		perm[k] = k;
	for (uint64_t k = n - 1; k > 0; k--) {
		uint64_t j = xorshift_next() % (k + 1), t = perm[k];
		perm[k] = perm[j];
		perm[j] = t;
	}
	wl_event_begin("ready", 0);
	printf(" pages=%llu theta=%.2f\n", (unsigned long long) n, theta);
	fflush(stdout);

	char buf[4096];
	double t0 = wl_now(), last = t0;
	uint64_t reads = 0, window = 0;
	while (!wl_stop) {
		for (int i = 0; i < 256; i++) {
			double u = (double) (xorshift_next() >> 11) / 9007199254740992.0;
			uint64_t page = perm[zipf_rank(&z, u)];
			if (pread(fd, buf, sizeof buf, (off_t) (page * 4096)) < 0)
				wl_die(errno, "pread");
		}
		reads += 256;
		window += 256;
		double now = wl_now();
		if (now - last >= report) {
			wl_event_begin("report", now - t0);
			printf(" reads=%llu rate=%.0f\n", (unsigned long long) reads, window / (now - last));
			fflush(stdout);
			last = now;
			window = 0;
		}
		if (now - t0 >= duration)
			break;
	}
	double t = wl_now() - t0;
	wl_event_begin("done", t);
	printf(" reads=%llu rate=%.0f\n", (unsigned long long) reads, reads / t);
	fflush(stdout);
	zipf_free(&z);
	free(perm);
	close(fd);
	return 0;
}
