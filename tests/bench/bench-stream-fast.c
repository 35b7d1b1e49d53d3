/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench-stream-fast: the CPU cost of stream protection's fast path (core/stream-fast.c) and of a
 * cycle's classification, on the daemon side alone (counters fed as tests feed them, no BPF):
 *
 *   bench-stream-fast [--files N] [--runs N] [--dir DIR]
 *
 * The table is filled with N files (default 16,384, the map's size) of one managed cgroup, the
 * worst case: a run classifies every file of the cgroups it touches. Then it times, in CPU time
 * of the process (CLOCK_PROCESS_CPUTIME_ID) averaged over --runs runs:
 *   cycle       a cycle over the full table (classification; without BPF no map walk);
 *   idle        a fast-path run with nothing reported (the daemon is not even woken then);
 *   big         a run with one big file crossing (its next 4 MiB): update, classify, one drop;
 *   small       a run with 128 small files newly read whole (merged into the table, dropped).
 * The drops go through an inline actuation path: the files are opened (a scratch file under
 * --dir, default the current directory) and POSIX_FADV_DONTNEED runs on it. Prints one line per
 * case: "case=… files=… us_per_run=… ms_per_s_at_10_runs=…". */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

#include "daemon/core/bpf/page-cache-inserts.h"
#include "mglrud/core/control.h"
#include "mglrud/core/stream-protection.h"
#include "mglrud/shared/time.h"

#define MiB (UINT64_C(1) << 20)
#define PAGE UINT64_C(4096)

static char dir[PATH_MAX], scratch[PATH_MAX + 32];

static void die(const char *what) {
        fprintf(stderr, "bench-stream-fast: %s: %s\n", what, strerror(errno));
        exit(1);
}

static uint64_t cpu_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int open_scratch(const struct streams_key *key, uint32_t generation, char *path,
                        size_t size, void *userdata) {
        snprintf(path, size, "%s", scratch);
        int fd = open(scratch, O_RDONLY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

static void on_done(struct actuator_job *j, void *userdata) {
        struct cgroup *cg = userdata;
        control_job_done(cg, j, NULL);
}

static void write_text(const char *name, const char *text) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "%s/cg/%s", dir, name);
        FILE *f = fopen(p, "we");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
                die(p);
}

/* A small file read whole (64 KiB) or a big one (1 GiB) read sequentially to read_to. */
static struct streams_val val(uint64_t read_to, uint64_t size, uint64_t at_usec) {
        return (struct streams_val) { .pages = read_to / PAGE, .seq_pages = read_to / PAGE,
                                      .next_index = read_to / PAGE, .max_index = read_to / PAGE,
                                      .i_size = size, .last_ns = at_usec * 1000 };
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
                { "files", required_argument, NULL, 'n' },
                { "runs", required_argument, NULL, 'r' },
                { "dir", required_argument, NULL, 'd' },
                {},
        };
        size_t n_files = STREAMS_MAP_ENTRIES;
        unsigned runs = 200;
        const char *base = ".";
        int c;
        while ((c = getopt_long(argc, argv, "n:r:d:", opts, NULL)) != -1)
                switch (c) {
                case 'n': n_files = strtoul(optarg, NULL, 10); break;
                case 'r': runs = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'd': base = optarg; break;
                default: return 2;
                }
        if (n_files < 2 || n_files > STREAMS_MAP_ENTRIES || runs == 0)
                return 2;

        /* The cgroup: memory.max 1G, 900M used; the big file is 4G, the small ones 64K. */
        snprintf(dir, sizeof dir, "%s/bench-stream-fast.XXXXXX", base);
        if (!mkdtemp(dir))
                die(dir);
        char p[PATH_MAX + 8];
        snprintf(p, sizeof p, "%s/cg", dir);
        if (mkdir(p, 0755) < 0)
                die(p);
        write_text("memory.stat", "anon 0\nfile 943718400\n");
        write_text("memory.current", "943718400\n");
        write_text("memory.max", "1073741824\n");
        snprintf(scratch, sizeof scratch, "%s/scratch", dir);
        int fd = open(scratch, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0 || ftruncate(fd, 1 << 20) < 0)
                die(scratch);
        close(fd);
        struct stat st;
        if (stat(p, &st) < 0)
                die(p);
        struct cgroup *cg;
        if (cgroup_new(dir, "/cg", st.st_ino, CGROUP_KEEP_ALL, &cg) < 0)
                die("cgroup_new");
        static struct policy policy; /* the daemon's would be the manager's pooled copy */
        policy_init_defaults(&policy);
        cg->policy = &policy;
        struct cgroup *list[1] = { cg };

        struct streams *s;
        if (streams_new("/proc", &s) < 0)
                die("streams_new");
        streams_set_file_opener(s, open_scratch, NULL);
        struct actuator *act;
        if (actuator_new(NULL, on_done, cg, &act) < 0)
                die("actuator_new");
        struct kernel_caps caps = { .page_size = PAGE };
        struct report_sink report = {};
        struct cycle_input in = { .caps = &caps, .lrugen_write_fd = -1, .report = &report };

        /* The table: the big file (key 1) at 64M and n - 1 other files of the cgroup, read at
         * random (not streams: classified, never dropped). */
        struct streams_key *keys = calloc(n_files, sizeof *keys);
        struct streams_val *vals = calloc(n_files, sizeof *vals);
        if (!keys || !vals)
                die("calloc");
        uint64_t t = 1000 * USEC_PER_SEC;
        for (size_t i = 0; i < n_files; i++) {
                keys[i] = (struct streams_key) { .cgroup_id = cg->id, .ino = i + 1, .dev = 8 << 20 };
                vals[i] = i == 0 ? val(64 * MiB, 4096 * MiB, t)
                                 : (struct streams_val) { .pages = 64, .seq_pages = 8,
                                                          .next_index = 900, .max_index = 1000,
                                                          .i_size = 4 * MiB, .last_ns = t * 1000 };
        }
        if (streams_feed(s, keys, vals, n_files) < 0)
                die("streams_feed");
        in.now_usec = t;
        if (streams_cycle(s, &in, list, 1, act) < 0)
                die("streams_cycle");

        /* cycle: the same table again (as each cycle re-reads the map). */
        uint64_t ns = 0;
        for (unsigned r = 0; r < runs; r++) {
                t += USEC_PER_SEC;
                in.now_usec = t;
                if (streams_feed(s, keys, vals, n_files) < 0)
                        die("streams_feed");
                uint64_t a = cpu_ns();
                (void) streams_cycle(s, &in, list, 1, act);
                ns += cpu_ns() - a;
        }
        printf("case=cycle files=%zu us_per_run=%.1f (feed not counted)\n", n_files,
               (double) ns / runs / 1000);

        /* idle, big, small: fast-path runs 100 ms apart; each second a new budget. */
        const char *cases[] = { "idle", "big", "small" };
        uint64_t big_at = 64 * MiB, next_ino = n_files + 1;
        for (size_t k = 0; k < 3; k++) {
                ns = 0;
                for (unsigned r = 0; r < runs; r++) {
                        t += USEC_PER_SEC / 10;
                        in.now_usec = t;
                        if (k == 1) {
                                big_at += 4 * MiB;
                                struct streams_val v = val(big_at, 4096 * MiB, t - 1000);
                                (void) streams_feed_events(s, &keys[0], &v, 1);
                        } else if (k == 2) {
                                /* new files each run: the next cycle would forget them, here
                                 * the table grows to its bound and stays there */
                                for (unsigned i = 0; i < 128; i++, next_ino++) {
                                        struct streams_key key = { .cgroup_id = cg->id,
                                                                   .ino = next_ino, .dev = 8 << 20 };
                                        struct streams_val v = val(64 * 1024, 64 * 1024, t - 1000);
                                        (void) streams_feed_events(s, &key, &v, 1);
                                }
                        }
                        uint64_t a = cpu_ns();
                        if (streams_fast(s, &in, list, 1, act) < 0)
                                die("streams_fast");
                        ns += cpu_ns() - a;
                        if (k == 2 && r % 20 == 19) {
                                /* a cycle every 2 s brings the table back to the map */
                                in.now_usec = t;
                                (void) streams_feed(s, keys, vals, n_files);
                                (void) streams_cycle(s, &in, list, 1, act);
                        }
                }
                printf("case=%s files=%zu us_per_run=%.1f ms_per_s_at_10_runs=%.2f\n", cases[k],
                       n_files, (double) ns / runs / 1000, (double) ns / runs * 10 / 1e6);
        }
        struct streams_stats sst = streams_get_stats(s);
        printf("fast_runs=%llu crossings=%llu drops_with_latency=%llu\n",
               (unsigned long long) sst.fast_runs, (unsigned long long) sst.crossings,
               (unsigned long long) sst.latency_count);

        actuator_free(act);
        streams_free(s);
        control_cgroup_free(cg);
        cgroup_free(cg);
        free(keys);
        free(vals);
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        return system(cmd) == 0 ? 0 : 1;
}
