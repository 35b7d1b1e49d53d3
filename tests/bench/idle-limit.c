/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idle-limit: the physical limit of proactive reclaim for a set of processes: how many of their
 * resident bytes are not referenced for T seconds, measured with no controller running (issue 24,
 * part 1; tests/bench/RESULTS.md, "The physical limit").
 *
 *   idle-limit (--pid PID | --cgroup DIR) [--at S,S,...] [--proc-root DIR]
 *
 * The set is PID and its descendants, or every process in DIR/cgroup.procs and in the
 * cgroup.procs of every cgroup below DIR. It writes "1" to /proc/PID/clear_refs of each (which
 * clears the accessed bits of their pages), then at each offset of --at (seconds after the clear,
 * default 20,60,120,300) reads /proc/PID/smaps_rollup (Rss, Referenced, Anonymous) and
 * /proc/PID/smaps (the same per VMA, to split anon from file) of each process cleared at the
 * start that is still alive, and prints
 *   event=idle at_s=T elapsed_s=… pids=N exited=N appeared=N appeared_rss_kib=… rss_kib=…
 *     referenced_kib=… idle_kib=… anonymous_kib=… anon_rss_kib=… anon_referenced_kib=…
 *     anon_idle_kib=… file_rss_kib=… file_referenced_kib=… file_idle_kib=… mixed_rss_kib=…
 *     mixed_referenced_kib=… mixed_idle_kib=…
 * (idle = rss - referenced: resident and untouched since the clear), then a table of the same.
 * rss/referenced/idle/anonymous are smaps_rollup's; anon/file/mixed are smaps' by VMA kind
 * (smaps-parse.h). Processes that exit are counted in exited= and left out; processes that
 * appear in the set after the clear are counted in appeared= (their pages were all touched
 * after it) and left out of the sums. Notes go to stderr.
 * Exit status: 0; 1 when no process of the set is left to measure (the offsets measured so far
 * are printed) or a file does not parse; 2 on usage errors. */
#include "smaps-parse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MAX_OFFSETS 16

/* A process of the set: its pid and start time (field 22 of /proc/PID/stat), so that a pid
 * reused by another process is not taken for the one cleared. */
struct proc {
	pid_t pid;
	unsigned long long start;
};

struct proc_set {
	struct proc *v;
	size_t n, cap;
};

/* What one offset measured, summed over the processes cleared at the start. */
struct idle_sample {
	double at_s, elapsed_s;
	unsigned pids, exited, appeared;
	uint64_t appeared_rss;
	struct smaps_rollup rollup;
	struct smaps_split split;
};

static const char *proc_root = "/proc";

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "idle-limit: out of memory\n");
		exit(1);
	}
	return p;
}

/* Reads the whole file into *buf (grown as needed, NUL-terminated). Returns its length or
 * -errno. */
static ssize_t read_all(const char *path, char **buf, size_t *cap)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t k;

		if (*cap - len < 4096) {
			*cap = *cap ? *cap * 2 : 65536;
			*buf = xrealloc(*buf, *cap);
		}
		k = read(fd, *buf + len, *cap - len - 1);
		if (k < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

/* Reads the parent pid and start time of pid. Returns 0, or -errno (-ENOENT: it is gone). */
static int read_stat(pid_t pid, pid_t *ret_ppid, unsigned long long *ret_start)
{
	static char *buf;
	static size_t cap;
	char path[256];
	const char *p;
	ssize_t n;
	int ppid;

	snprintf(path, sizeof path, "%s/%d/stat", proc_root, (int)pid);
	n = read_all(path, &buf, &cap);
	if (n < 0)
		return (int)n;
	/* The command name may hold spaces and parentheses: the fields start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
			 &ppid, ret_start) != 2) {
		fprintf(stderr, "idle-limit: %s:1: no ppid and start time after the command name\n", path);
		return -EBADMSG;
	}
	*ret_ppid = ppid;
	return 0;
}

static void set_add(struct proc_set *s, pid_t pid, unsigned long long start)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid)
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n++] = (struct proc){ pid, start };
}

/* Returns whether the set holds this process (same pid, same start time). */
static bool set_has(const struct proc_set *s, const struct proc *p)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == p->pid && s->v[i].start == p->start)
			return true;
	return false;
}

/* Fills s with root and its descendants, found from the ppid of every process in /proc. Returns
 * 0, or -ESRCH when root is gone. */
static int collect_tree(pid_t root, struct proc_set *s)
{
	struct { pid_t pid, ppid; unsigned long long start; } *all = NULL;
	size_t n = 0, cap = 0;
	unsigned long long root_start;
	pid_t ppid;
	struct dirent *de;
	DIR *d;

	s->n = 0;
	if (read_stat(root, &ppid, &root_start) < 0)
		return -ESRCH;
	set_add(s, root, root_start);
	d = opendir(proc_root);
	if (!d) {
		fprintf(stderr, "idle-limit: %s: %s\n", proc_root, strerror(errno));
		exit(1);
	}
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		unsigned long long start;

		if (*end || pid <= 0 || read_stat((pid_t)pid, &ppid, &start) < 0)
			continue; /* not a process, or it exited since readdir */
		if (n == cap) {
			cap = cap ? cap * 2 : 512;
			all = xrealloc(all, cap * sizeof *all);
		}
		all[n].pid = (pid_t)pid, all[n].ppid = ppid, all[n].start = start;
		n++;
	}
	closedir(d);
	/* Breadth first: s grows while it is walked, each member's children are appended. */
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < n; j++)
			if (all[j].ppid == s->v[i].pid)
				set_add(s, all[j].pid, all[j].start);
	free(all);
	return 0;
}

/* Adds the processes of cgroup dir and of every cgroup below it to s. A cgroup removed while it
 * is walked is skipped. */
static void collect_cgroup_dir(const char *dir, struct proc_set *s)
{
	static char *buf;
	static size_t cap;
	char path[4096];
	struct dirent *de;
	ssize_t n;
	DIR *d;

	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	n = read_all(path, &buf, &cap);
	if (n >= 0) {
		for (char *p = buf, *end; *p; p = end) {
			long pid = strtol(p, &end, 10);
			unsigned long long start;
			pid_t ppid;

			if (end == p)
				break;
			if (pid > 0 && read_stat((pid_t)pid, &ppid, &start) == 0)
				set_add(s, (pid_t)pid, start);
		}
	}
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		collect_cgroup_dir(path, s);
	}
	closedir(d);
}

/* Fills s with the set as it is now. Returns 0, or -ESRCH when the set is gone (the root pid
 * exited, or the cgroup was removed). */
static int collect(pid_t root, const char *cgroup, struct proc_set *s)
{
	if (!cgroup)
		return collect_tree(root, s);
	s->n = 0;
	if (access(cgroup, F_OK) < 0)
		return -ESRCH;
	collect_cgroup_dir(cgroup, s);
	return 0;
}

/* Writes "1" to pid's clear_refs: the accessed bits of all its pages are cleared. Returns 0 or
 * -errno (-ENOENT/-ESRCH: it exited). */
static int clear_refs(pid_t pid)
{
	char path[256];
	int fd, r = 0;

	snprintf(path, sizeof path, "%s/%d/clear_refs", proc_root, (int)pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "1", 1) != 1)
		r = -errno;
	close(fd);
	return r;
}

/* Reads pid's smaps_rollup and smaps into the sums. Returns 0, -ESRCH when it exited (or has no
 * mm any more), or -EBADMSG after printing the parse error. */
static int measure_pid(pid_t pid, struct smaps_rollup *rollup, struct smaps_split *split)
{
	static char *buf;
	static size_t cap;
	struct smaps_error err;
	struct smaps_rollup r;
	struct smaps_split s;
	char path[256];
	ssize_t n;
	int e;

	snprintf(path, sizeof path, "%s/%d/smaps_rollup", proc_root, (int)pid);
	n = read_all(path, &buf, &cap);
	if (n < 0)
		return -ESRCH;
	e = smaps_rollup_parse(buf, (size_t)n, path, &r, &err);
	if (e == -ENODATA)
		return -ESRCH;
	if (e < 0)
		goto bad;
	snprintf(path, sizeof path, "%s/%d/smaps", proc_root, (int)pid);
	n = read_all(path, &buf, &cap);
	if (n <= 0)
		return -ESRCH;
	e = smaps_split_parse(buf, (size_t)n, path, &s, &err);
	if (e < 0)
		goto bad;
	rollup->rss += r.rss, rollup->referenced += r.referenced, rollup->anonymous += r.anonymous;
	split->anon_rss += s.anon_rss, split->anon_referenced += s.anon_referenced;
	split->file_rss += s.file_rss, split->file_referenced += s.file_referenced;
	split->mixed_rss += s.mixed_rss, split->mixed_referenced += s.mixed_referenced;
	split->vmas += s.vmas;
	return 0;
bad:
	fprintf(stderr, "idle-limit: %s\n", err.msg);
	return -EBADMSG;
}

/* Measures the processes of `cleared` that are still in the set now. Returns 0, -ESRCH when none
 * is left, or -EBADMSG. */
static int sample(pid_t root, const char *cgroup, const struct proc_set *cleared,
		  struct idle_sample *out)
{
	static struct proc_set now;
	struct smaps_rollup dummy_r;
	struct smaps_split dummy_s = { 0 };

	if (collect(root, cgroup, &now) < 0)
		now.n = 0;
	for (size_t i = 0; i < now.n; i++) {
		int e;

		if (set_has(cleared, &now.v[i]))
			continue;
		/* New since the clear: all its pages were touched after it; only its size is told. */
		dummy_r = (struct smaps_rollup){ 0 };
		e = measure_pid(now.v[i].pid, &dummy_r, &dummy_s);
		if (e == -EBADMSG)
			return e;
		out->appeared++;
		out->appeared_rss += dummy_r.rss;
	}
	for (size_t i = 0; i < cleared->n; i++) {
		int e = set_has(&now, &cleared->v[i]) ?
			measure_pid(cleared->v[i].pid, &out->rollup, &out->split) : -ESRCH;

		if (e == -EBADMSG)
			return e;
		if (e < 0) {
			out->exited++;
			fprintf(stderr, "idle-limit: pid %d exited (or left the set) before %g s\n",
				(int)cleared->v[i].pid, out->at_s);
			continue;
		}
		out->pids++;
	}
	return out->pids > 0 ? 0 : -ESRCH;
}

static uint64_t kib(uint64_t bytes) { return bytes / 1024; }
static uint64_t idle_of(uint64_t rss, uint64_t ref) { return rss > ref ? rss - ref : 0; }

static void print_sample(const struct idle_sample *s)
{
	const struct smaps_rollup *r = &s->rollup;
	const struct smaps_split *p = &s->split;

	printf("event=idle at_s=%g elapsed_s=%.2f pids=%u exited=%u appeared=%u appeared_rss_kib=%" PRIu64
	       " rss_kib=%" PRIu64 " referenced_kib=%" PRIu64 " idle_kib=%" PRIu64 " anonymous_kib=%" PRIu64
	       " anon_rss_kib=%" PRIu64 " anon_referenced_kib=%" PRIu64 " anon_idle_kib=%" PRIu64
	       " file_rss_kib=%" PRIu64 " file_referenced_kib=%" PRIu64 " file_idle_kib=%" PRIu64
	       " mixed_rss_kib=%" PRIu64 " mixed_referenced_kib=%" PRIu64 " mixed_idle_kib=%" PRIu64 "\n",
	       s->at_s, s->elapsed_s, s->pids, s->exited, s->appeared, kib(s->appeared_rss),
	       kib(r->rss), kib(r->referenced), kib(idle_of(r->rss, r->referenced)), kib(r->anonymous),
	       kib(p->anon_rss), kib(p->anon_referenced), kib(idle_of(p->anon_rss, p->anon_referenced)),
	       kib(p->file_rss), kib(p->file_referenced), kib(idle_of(p->file_rss, p->file_referenced)),
	       kib(p->mixed_rss), kib(p->mixed_referenced),
	       kib(idle_of(p->mixed_rss, p->mixed_referenced)));
	fflush(stdout);
}

static double mib(uint64_t bytes) { return (double)bytes / 1048576.0; }
static double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0; }

static void print_table(const struct idle_sample *v, size_t n)
{
	printf("\n%6s %5s %6s %8s %10s %10s %16s %16s %16s %12s\n", "idle>=", "pids", "exited",
	       "appeared", "rss MiB", "ref MiB", "idle MiB (%rss)", "anon idle/rss", "file idle/rss",
	       "mixed idle");
	for (size_t i = 0; i < n; i++) {
		const struct smaps_rollup *r = &v[i].rollup;
		const struct smaps_split *p = &v[i].split;
		char c1[32], c2[32], c3[32];

		snprintf(c1, sizeof c1, "%.1f (%.0f%%)", mib(idle_of(r->rss, r->referenced)),
			 pct(idle_of(r->rss, r->referenced), r->rss));
		snprintf(c2, sizeof c2, "%.1f/%.1f", mib(idle_of(p->anon_rss, p->anon_referenced)), mib(p->anon_rss));
		snprintf(c3, sizeof c3, "%.1f/%.1f", mib(idle_of(p->file_rss, p->file_referenced)), mib(p->file_rss));
		printf("%5gs %5u %6u %8u %10.1f %10.1f %16s %16s %16s %12.1f\n", v[i].at_s, v[i].pids,
		       v[i].exited, v[i].appeared, mib(r->rss), mib(r->referenced), c1, c2, c3,
		       mib(idle_of(p->mixed_rss, p->mixed_referenced)));
	}
}

/* Parses "20,60,120" into offsets (seconds, increasing). Returns their number, or 0 when the
 * list is malformed. */
static size_t parse_offsets(const char *s, double *ret)
{
	size_t n = 0;

	while (*s) {
		char *end;
		double v = strtod(s, &end);

		if (end == s || v < 0 || n == MAX_OFFSETS || (n && v <= ret[n - 1]))
			return 0;
		ret[n++] = v;
		if (*end == ',')
			end++;
		else if (*end)
			return 0;
		s = end;
	}
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	double d;

	while ((d = t - now_s()) > 0) {
		struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };

		nanosleep(&ts, NULL);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: idle-limit (--pid PID | --cgroup DIR) [--at S,S,...] [--proc-root DIR]\n"
		   "  --at  seconds after clearing the accessed bits (default 20,60,120,300)\n");
}

/* Clears the accessed bits of every process in `set`, dropping those that exited meanwhile.
 * Returns how many were cleared. */
static size_t clear_all(struct proc_set *set)
{
	size_t kept = 0;

	for (size_t i = 0; i < set->n; i++) {
		int e = clear_refs(set->v[i].pid);

		if (e < 0) {
			if (e != -ENOENT && e != -ESRCH)
				fprintf(stderr, "idle-limit: %s/%d/clear_refs: %s\n", proc_root,
					(int)set->v[i].pid, strerror(-e));
			continue;
		}
		set->v[kept++] = set->v[i];
	}
	set->n = kept;
	return kept;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "at", required_argument, NULL, 'a' },
		{ "proc-root", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	double offsets[MAX_OFFSETS] = { 20, 60, 120, 300 }, t0;
	struct idle_sample samples[MAX_OFFSETS];
	size_t n_offsets = 4, n_samples = 0;
	struct proc_set cleared = { 0 };
	const char *cgroup = NULL;
	pid_t root = 0;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "p:g:a:P:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': root = (pid_t)atoi(optarg); break;
		case 'g': cgroup = optarg; break;
		case 'a': n_offsets = parse_offsets(optarg, offsets); break;
		case 'P': proc_root = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || (root > 0) == (cgroup != NULL) || n_offsets == 0) {
		usage(stderr);
		return 2;
	}
	if (collect(root, cgroup, &cleared) < 0 || clear_all(&cleared) == 0) {
		fprintf(stderr, "idle-limit: no process to measure in %s\n", cgroup ? cgroup : "the tree");
		return 1;
	}
	t0 = now_s();
	printf("event=cleared pids=%zu\n", cleared.n);
	fflush(stdout);
	for (size_t i = 0; i < n_offsets; i++) {
		struct idle_sample *s = &samples[n_samples];
		int e;

		sleep_until(t0 + offsets[i]);
		*s = (struct idle_sample){ .at_s = offsets[i] };
		e = sample(root, cgroup, &cleared, s);
		s->elapsed_s = now_s() - t0;
		if (e < 0) {
			if (e == -ESRCH)
				fprintf(stderr, "idle-limit: no process of the set is left at %g s; stopping\n",
					offsets[i]);
			rc = 1;
			break;
		}
		print_sample(s);
		n_samples++;
	}
	print_table(samples, n_samples);
	free(cleared.v);
	return rc;
}
