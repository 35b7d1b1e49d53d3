/* file-hot-stream: a hot file read at random while a cold stream is read once.
 *
 * The main thread does random --read-size preads over the hot file (or its first --hot-size
 * MiB) after reading it once sequentially (unless --no-prefill) and times each one: without
 * pause by default, at most --hot-rate reads/s, and/or in bursts of --hot-burst reads every
 * --hot-period seconds (a cache that is hot but not touched every millisecond). A second thread
 * reads the stream once, front to back: one large file (--stream FILE) or every regular file of
 * a directory in name order (--stream DIR, "many small files"); --stream may be repeated to read
 * several paths in sequence, and --stream-max caps the total. --stream-cmd runs a command as the
 * stream instead (a real "grep -r" over a tree), in the same cgroup; its bytes are what it read
 * from the disk (getrusage's blocks in). --no-stream is the baseline.
 *
 * Events: "ready" after the prefill, "stream_done" when the stream has been read, "report"
 * every --report seconds (latency percentiles of the window, in microseconds) and "final"
 * (percentiles over the whole run). Each report has the hot file's residency from mincore()
 * on a mapping of it. */
#include "wl-common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: file-hot-stream --hot FILE [--stream FILE|DIR | --no-stream] [options]\n"
		"  -f, --hot FILE          hot file, read at random\n"
		"  -s, --stream PATH       file, or directory of files, read once sequentially;\n"
		"                          repeat to read several paths in sequence\n"
		"  -M, --stream-max MIB    stop the stream after MIB MiB, 0 = no cap (default 0)\n"
		"  -C, --stream-cmd CMD    run CMD with /bin/sh -c as the stream (no --stream-rate)\n"
		"  -n, --no-stream         baseline: no stream\n"
		"  -D, --stream-delay S    start the stream S seconds after ready (default 2)\n"
		"  -R, --stream-rate MIBS  cap the stream at MIBS MiB/s, 0 = no cap (default 0)\n"
		"  -b, --read-size BYTES   hot read size (default 4096)\n"
		"  -S, --hot-size MIB      read only the first MIB MiB of the hot file (default: all)\n"
		"  -Q, --hot-rate N        at most N hot reads per second, 0 = no cap (default 0)\n"
		"  -T, --hot-period S      hot reads in bursts every S seconds, 0 = continuous (default 0)\n"
		"  -B, --hot-burst N       reads per burst with --hot-period (default 1024)\n"
		"  -d, --duration S        run time after ready, 0 = until SIGTERM (default 30)\n"
		"  -r, --report S          report interval (default 5)\n"
		"  -P, --no-prefill        do not read the hot file once before starting\n"
		"  -h, --help\n");
}

#define MAX_STREAMS 16
static const char *stream_paths[MAX_STREAMS];
static int nstreams;
static double stream_rate;
static unsigned long long stream_max;
static double stream_t0, stream_t1;
static atomic_ullong stream_bytes;
static atomic_int stream_done;
static atomic_ullong stream_files;
static const char *stream_cmd;
static int stream_cmd_status = -1;

/* Runs stream_cmd to its end (stopped on SIGTERM of ours): the stream is what it read. */
static void stream_command(void)
{
	pid_t pid = fork();
	struct rusage ru;
	int status;

	if (pid < 0)
		wl_die(errno, "fork");
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			close(null);
		}
		execl("/bin/sh", "sh", "-c", stream_cmd, (char *)NULL);
		_exit(127);
	}
	for (;;) {
		pid_t r = wait4(pid, &status, WNOHANG, &ru);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			wl_die(errno, "wait4");
		if (wl_stop)
			kill(pid, SIGTERM);
		usleep(10000);
	}
	stream_cmd_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	atomic_store(&stream_bytes, (unsigned long long)ru.ru_inblock * 512);
}

static void stream_fd(int fd, char *buf, size_t bufsz, double t_start)
{
	for (;;) {
		ssize_t n = read(fd, buf, bufsz);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			wl_die(errno, "read stream");
		}
		if (n == 0 || wl_stop)
			break;
		unsigned long long done = atomic_fetch_add(&stream_bytes, (unsigned long long)n) +
					  (unsigned long long)n;
		if (stream_max && done >= stream_max)
			break;
		if (stream_rate > 0) {
			double due = t_start + (double)done / (stream_rate * 1048576.0);
			double now = wl_now();
			if (due > now)
				usleep((useconds_t)((due - now) * 1e6));
		}
	}
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool stream_full(void)
{
	return wl_stop || (stream_max && atomic_load(&stream_bytes) >= stream_max);
}

static void stream_one(const char *stream_path, char *buf, size_t bufsz, double t_start)
{
	struct stat st;

	if (stat(stream_path, &st) < 0)
		wl_die(errno, "stat %s", stream_path);
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(stream_path);
		struct dirent *de;
		char **names = NULL;
		size_t n = 0, cap = 0;

		if (!d)
			wl_die(errno, "opendir %s", stream_path);
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				names = realloc(names, cap * sizeof(*names));
				if (!names)
					wl_die(ENOMEM, "realloc");
			}
			names[n++] = strdup(de->d_name);
		}
		closedir(d);
		qsort(names, n, sizeof(*names), name_cmp);
		for (size_t i = 0; i < n; i++) {
			if (stream_full()) {
				free(names[i]);
				continue;
			}
			int fd = openat(AT_FDCWD, stream_path, O_RDONLY | O_DIRECTORY);
			int ffd;
			if (fd < 0)
				wl_die(errno, "open %s", stream_path);
			ffd = openat(fd, names[i], O_RDONLY | O_CLOEXEC);
			close(fd);
			if (ffd < 0)
				wl_die(errno, "open %s/%s", stream_path, names[i]);
			if (fstat(ffd, &st) == 0 && S_ISREG(st.st_mode)) {
				stream_fd(ffd, buf, bufsz, t_start);
				atomic_fetch_add(&stream_files, 1);
			}
			close(ffd);
			free(names[i]);
		}
		free(names);
	} else {
		int fd = open(stream_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			wl_die(errno, "open %s", stream_path);
		stream_fd(fd, buf, bufsz, t_start);
		atomic_fetch_add(&stream_files, 1);
		close(fd);
	}
}

static void *stream_main(void *arg)
{
	double delay = *(double *)arg;
	size_t bufsz = 128 << 10;
	char *buf = malloc(bufsz);

	if (!buf)
		wl_die(ENOMEM, "malloc");
	for (double end = wl_now() + delay; wl_now() < end && !wl_stop;)
		usleep(10000);
	stream_t0 = wl_now();
	if (stream_cmd)
		stream_command();
	for (int i = 0; i < nstreams && !stream_full(); i++)
		stream_one(stream_paths[i], buf, bufsz, stream_t0);
	stream_t1 = wl_now();
	free(buf);
	atomic_store(&stream_done, 1);
	return NULL;
}

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void print_lat(const char *pfx, const struct wl_hist *h)
{
	printf(" %sreads=%llu %sp50_us=%.1f %sp90_us=%.1f %sp99_us=%.1f %smax_us=%.1f %smean_us=%.1f",
	       pfx, (unsigned long long)h->count,
	       pfx, (double)wl_hist_quantile(h, 0.50) / 1e3,
	       pfx, (double)wl_hist_quantile(h, 0.90) / 1e3,
	       pfx, (double)wl_hist_quantile(h, 0.99) / 1e3,
	       pfx, (double)h->max_ns / 1e3,
	       pfx, h->count ? (double)h->sum_ns / (double)h->count / 1e3 : 0.0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hot", required_argument, NULL, 'f' },
		{ "stream", required_argument, NULL, 's' },
		{ "no-stream", no_argument, NULL, 'n' },
		{ "stream-delay", required_argument, NULL, 'D' },
		{ "stream-rate", required_argument, NULL, 'R' },
		{ "stream-max", required_argument, NULL, 'M' },
		{ "stream-cmd", required_argument, NULL, 'C' },
		{ "read-size", required_argument, NULL, 'b' },
		{ "hot-size", required_argument, NULL, 'S' },
		{ "hot-rate", required_argument, NULL, 'Q' },
		{ "hot-period", required_argument, NULL, 'T' },
		{ "hot-burst", required_argument, NULL, 'B' },
		{ "duration", required_argument, NULL, 'd' },
		{ "report", required_argument, NULL, 'r' },
		{ "no-prefill", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *hot_path = NULL;
	bool no_stream = false, prefill = true;
	int nstreams_cmd = 0;
	double delay = 2, duration = 30, report_iv = 5, hot_rate = 0, hot_period = 0;
	uint64_t rsize = 4096, hot_mib = 0, hot_burst = 1024;
	static struct wl_hist win, all;
	pthread_t th;
	struct stat st;
	int c, fd;

	while ((c = getopt_long(argc, argv, "f:s:nD:R:M:C:b:S:Q:T:B:d:r:Ph", opts, NULL)) != -1) {
		switch (c) {
		case 'f': hot_path = optarg; break;
		case 's':
			if (nstreams == MAX_STREAMS)
				wl_die(0, "at most %d --stream paths", MAX_STREAMS);
			stream_paths[nstreams++] = optarg;
			break;
		case 'n': no_stream = true; break;
		case 'D': delay = wl_parse_double("--stream-delay", optarg); break;
		case 'R': stream_rate = wl_parse_double("--stream-rate", optarg); break;
		case 'M': stream_max = wl_parse_u64("--stream-max", optarg) << 20; break;
		case 'C': stream_cmd = optarg; break;
		case 'b': rsize = wl_parse_u64("--read-size", optarg); break;
		case 'S': hot_mib = wl_parse_u64("--hot-size", optarg); break;
		case 'Q': hot_rate = wl_parse_double("--hot-rate", optarg); break;
		case 'T': hot_period = wl_parse_double("--hot-period", optarg); break;
		case 'B': hot_burst = wl_parse_u64("--hot-burst", optarg); break;
		case 'd': duration = wl_parse_double("--duration", optarg); break;
		case 'r': report_iv = wl_parse_double("--report", optarg); break;
		case 'P': prefill = false; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (stream_cmd && (nstreams || no_stream || stream_rate > 0)) {
		usage(stderr);
		return 2;
	}
	if (stream_cmd)
		nstreams_cmd = 1;
	if (optind < argc || !hot_path || (!nstreams && !nstreams_cmd && !no_stream) ||
	    (nstreams && no_stream) ||
	    rsize == 0 || report_iv <= 0 || hot_rate < 0 || hot_period < 0 ||
	    (hot_period > 0 && hot_burst == 0)) {
		usage(stderr);
		return 2;
	}
	wl_install_signals();

	fd = open(hot_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die(errno, "open %s", hot_path);
	if (fstat(fd, &st) < 0)
		wl_die(errno, "fstat %s", hot_path);
	size_t hsize = (size_t)st.st_size;
	if (hot_mib && hot_mib << 20 < hsize)
		hsize = (size_t)(hot_mib << 20);
	if (hsize < rsize)
		wl_die(0, "%s is smaller than --read-size", hot_path);
	void *map = mmap(NULL, hsize, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		wl_die(errno, "mmap %s", hot_path);
	char *buf = aligned_alloc(4096, (rsize + 4095) & ~4095ull);
	if (!buf)
		wl_die(ENOMEM, "alloc");
	if (prefill) {
		for (off_t off = 0; off < (off_t)hsize; off += (off_t)rsize)
			if (pread(fd, buf, rsize, off) < 0)
				wl_die(errno, "prefill %s", hot_path);
	}
	uint64_t hot_pages = (hsize + 4095) / 4096;
	uint64_t slots = hsize / rsize;

	double t0 = wl_now();
	int64_t res = wl_mincore(map, hsize);
	printf("event=ready pid=%d hot_kib=%llu hot_resident_kib=%lld stream=", (int)getpid(),
	       (unsigned long long)hot_pages * 4, (long long)(res < 0 ? -1 : res * 4));
	if (no_stream)
		printf("none");
	if (stream_cmd)
		printf("cmd");
	for (int i = 0; i < nstreams; i++)
		printf("%s%s", i ? "," : "", stream_paths[i]);
	printf("\n");
	if (!no_stream && pthread_create(&th, NULL, stream_main, &delay))
		wl_die(0, "pthread_create failed");

	double next_report = t0 + report_iv, next_burst = t0, next_read = t0;
	uint64_t burst_left = 0;
	bool final = false, done_printed = false;
	while (!final) {
		double now = wl_now();
		int k = 64;
		if (hot_period > 0) {
			if (burst_left == 0 && now >= next_burst) {
				burst_left = hot_burst;
				next_burst += hot_period;
				if (next_burst < now)
					next_burst = now + hot_period;
			}
			if ((uint64_t)k > burst_left)
				k = (int)burst_left;
		}
		if (hot_rate > 0 && k > 0) {
			if (now < next_read)
				k = 0;
			else {
				k = 1;
				next_read += 1.0 / hot_rate;
				if (next_read < now - 1.0)
					next_read = now; /* do not catch up after a long stall */
			}
		}
		for (int i = 0; i < k; i++) {
			off_t off = (off_t)((rnd() % slots) * rsize);
			uint64_t a = wl_now_ns();
			if (pread(fd, buf, rsize, off) < 0)
				wl_die(errno, "pread %s", hot_path);
			wl_hist_add(&win, wl_now_ns() - a);
		}
		if (hot_period > 0)
			burst_left -= (uint64_t)k;
		if (k == 0) {
			double wake = next_report;
			if (hot_period > 0 && burst_left == 0 && next_burst < wake)
				wake = next_burst;
			if (hot_rate > 0 && (hot_period <= 0 || burst_left > 0) && next_read < wake)
				wake = next_read;
			if (wake > now + 0.05)
				wake = now + 0.05;
			if (wake > now)
				usleep((useconds_t)((wake - now) * 1e6));
		}
		now = wl_now();
		if (wl_stop || (duration > 0 && now - t0 >= duration))
			final = true;
		if (!no_stream && !done_printed && atomic_load(&stream_done)) {
			wl_event_begin("stream_done", now - t0);
			double mib = (double)atomic_load(&stream_bytes) / 1048576.0;
			double secs = stream_t1 - stream_t0;
			printf(" stream_mib=%.1f stream_files=%llu stream_s=%.2f stream_mibs=%.1f", mib,
			       (unsigned long long)atomic_load(&stream_files), secs,
			       secs > 0 ? mib / secs : 0.0);
			if (stream_cmd)
				printf(" stream_cmd_status=%d", stream_cmd_status);
			printf("\n");
			done_printed = true;
		}
		if (now >= next_report || final) {
			res = wl_mincore(map, hsize);
			wl_hist_merge(&all, &win);
			wl_event_begin(final ? "final" : "report", now - t0);
			print_lat("", final ? &all : &win);
			printf(" hot_resident_kib=%lld hot_resident_pct=%.1f stream_mib=%.1f stream_done=%d\n",
			       (long long)(res < 0 ? -1 : res * 4),
			       res < 0 ? -1.0 : 100.0 * (double)res / (double)hot_pages,
			       (double)atomic_load(&stream_bytes) / 1048576.0,
			       atomic_load(&stream_done));
			memset(&win, 0, sizeof(win));
			next_report = now + report_iv;
		}
	}
	wl_stop = 1;
	if (!no_stream)
		pthread_join(th, NULL);
	return 0;
}
