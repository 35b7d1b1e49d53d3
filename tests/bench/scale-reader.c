/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scale-reader: reads, once per cycle, the kernel files one mglrud cycle reads, and nothing
 * else: the floor the daemon's per-cycle cost is compared with (tests/bench/run-scale.sh).
 *
 *   scale-reader --mode keep|reopen|lrugen --cgroup-root R --debugfs-root D --proc-root P
 *                [--match GLOB] [--cycles N] [--skip K] [--interval-ms MS] [--chunk BYTES]
 *
 * The cgroups are those under R whose path (relative, "/a/b") matches GLOB (fnmatch with
 * FNM_PATHNAME, as mglrud.conf's sections; default "*": every cgroup), found once at start.
 * Per cycle it reads lru_gen_full (else lru_gen) whole, /proc/pressure/memory, /proc/meminfo and
 * per cgroup memory.stat, memory.pressure, memory.current/min and memory.swap.max/current (mglrud
 * reads swap.current only under a finite swap.max), into reused buffers, without parsing:
 *   keep    opens every file once and preads it from offset 0 each cycle (what mglrud does:
 *           one read for a file the kernel prints in one go, lru_gen to the end);
 *   reopen  opens, reads and closes every file by its path each cycle (how the peers read);
 *   lrugen  reads only lru_gen_full (else lru_gen), kept open, with preads of --chunk bytes
 *           (default 65536), and counts them: how many reads a pass takes with a small or a big
 *           buffer (a seq_file read returns at most one seq buffer whatever is asked).
 * Prints per cycle "cycle=N cpu_us=… wall_us=… bytes=…" (CPU: CLOCK_PROCESS_CPUTIME_ID around the
 * reads) and "summary cycles=… median_cpu_us=… median_wall_us=… files=… cgroups=… rss_kib=…
 * hwm_kib=… anon_kib=…" over the cycles after the first K. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const cgroup_files[] = {
        "memory.stat", "memory.pressure", "memory.current", "memory.min", "memory.swap.max",
        "memory.swap.current",
};
#define N_CGROUP_FILES (sizeof cgroup_files / sizeof cgroup_files[0])

struct file {
        char *path;
        int fd; /* keep mode */
};

static struct file *files;
static size_t n_files, cap_files;
static size_t n_cgroups;
static const char *match = "*";

static void die(const char *what) {
        fprintf(stderr, "scale-reader: %s: %s\n", what, strerror(errno));
        exit(1);
}

static void add_file(const char *path) {
        if (access(path, R_OK) < 0)
                return; /* absent: the root has no memory.current, swap accounting may be off */
        if (n_files == cap_files) {
                cap_files = cap_files ? cap_files * 2 : 1024;
                files = realloc(files, cap_files * sizeof *files);
                if (!files)
                        die("realloc");
        }
        files[n_files++] = (struct file) { .path = strdup(path), .fd = -1 };
}

/* Walks dir (cgroup path rel) depth first, adding the files of every matching cgroup. */
static void walk(const char *root, const char *rel) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s%s", root, strcmp(rel, "/") == 0 ? "" : rel);
        if (fnmatch(match, rel, FNM_PATHNAME) == 0) {
                char p[8192];
                snprintf(p, sizeof p, "%s/memory.stat", dir);
                if (access(p, R_OK) == 0) {
                        n_cgroups++;
                        for (size_t i = 0; i < N_CGROUP_FILES; i++) {
                                snprintf(p, sizeof p, "%s/%s", dir, cgroup_files[i]);
                                add_file(p);
                        }
                }
        }
        DIR *d = opendir(dir);
        if (!d)
                return;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.' || de->d_type != DT_DIR)
                        continue;
                char child[8192];
                snprintf(child, sizeof child, "%s/%s", strcmp(rel, "/") == 0 ? "" : rel, de->d_name);
                walk(root, child);
        }
        closedir(d);
}

static char *buf;
static size_t buf_cap = 1 << 16;
static uint64_t n_reads;

/* Reads fd whole from offset 0 (pread, so the fd can stay open), growing buf. Returns bytes. */
/* Reads fd from offset 0 (pread, so the fd can stay open), growing buf. With once, a read that
 * does not fill the buffer is the whole file (what the kernel prints in one go: a cgroup
 * attribute, a pressure file, /proc/meminfo), as mglrud reads them; else it reads to the end (a
 * file printed record by record: lru_gen). Returns the bytes read. */
static size_t read_all(int fd, bool once) {
        size_t off = 0;
        for (;;) {
                if (buf_cap - off < 4096) {
                        buf_cap *= 2;
                        buf = realloc(buf, buf_cap);
                        if (!buf)
                                die("realloc");
                }
                ssize_t n = pread(fd, buf + off, buf_cap - off, (off_t) off);
                n_reads++;
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return off;
                }
                if (n == 0)
                        return off;
                off += (size_t) n;
                if (once && off < buf_cap)
                        return off;
        }
}

/* Reads every file once. Returns the bytes read. Not inlined: callgrind --toggle-collect=read_pass
 * counts one pass per call. */
__attribute__((noinline)) static uint64_t read_pass(bool keep, size_t chunk) {
        uint64_t bytes = 0;
        if (chunk) {
                /* lrugen mode: files[0] is lru_gen, read with fixed-size preads into buf. */
                for (off_t off = 0;;) {
                        ssize_t n = pread(files[0].fd, buf, chunk, off);
                        n_reads++;
                        if (n <= 0)
                                return bytes;
                        off += n;
                        bytes += (uint64_t) n;
                }
        }
        for (size_t i = 0; i < n_files; i++) {
                if (keep) {
                        bytes += read_all(files[i].fd, i > 0);
                        continue;
                }
                int fd = open(files[i].path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue; /* gone meanwhile */
                bytes += read_all(fd, i > 0);
                close(fd);
        }
        return bytes;
}

static uint64_t ns(clockid_t c) {
        struct timespec ts;
        clock_gettime(c, &ts);
        return (uint64_t) ts.tv_sec * 1000000000 + (uint64_t) ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n) {
        if (n == 0)
                return 0;
        qsort(v, n, sizeof *v, cmp_u64);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Returns the VmRSS (or VmHWM) line of /proc/self/status, in KiB. */
static uint64_t status_kib(const char *key) {
        FILE *f = fopen("/proc/self/status", "re");
        char line[256];
        unsigned long long v = 0;
        size_t klen = strlen(key);
        while (f && fgets(line, sizeof line, f))
                if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
                        v = strtoull(line + klen + 1, NULL, 10);
                        break;
                }
        if (f)
                fclose(f);
        return v;
}

int main(int argc, char **argv) {
        const char *mode = NULL, *cgroot = NULL, *debugfs = NULL, *proc = NULL;
        unsigned long cycles = 10, skip = 1, interval_ms = 1000, chunk = 0;

        for (int i = 1; i + 1 < argc; i += 2) {
                const char *k = argv[i], *v = argv[i + 1];
                if (strcmp(k, "--mode") == 0)
                        mode = v;
                else if (strcmp(k, "--cgroup-root") == 0)
                        cgroot = v;
                else if (strcmp(k, "--debugfs-root") == 0)
                        debugfs = v;
                else if (strcmp(k, "--proc-root") == 0)
                        proc = v;
                else if (strcmp(k, "--match") == 0)
                        match = v;
                else if (strcmp(k, "--cycles") == 0)
                        cycles = strtoul(v, NULL, 10);
                else if (strcmp(k, "--skip") == 0)
                        skip = strtoul(v, NULL, 10);
                else if (strcmp(k, "--interval-ms") == 0)
                        interval_ms = strtoul(v, NULL, 10);
                else if (strcmp(k, "--chunk") == 0)
                        chunk = strtoul(v, NULL, 10);
                else {
                        fprintf(stderr, "scale-reader: unknown option %s\n", k);
                        return 2;
                }
        }
        if (!mode || (strcmp(mode, "keep") && strcmp(mode, "reopen") && strcmp(mode, "lrugen")) ||
            !cgroot || !debugfs || !proc) {
                fprintf(stderr, "usage: scale-reader --mode keep|reopen|lrugen --cgroup-root R "
                                "--debugfs-root D --proc-root P [--match GLOB] [--cycles N] "
                                "[--skip K] [--interval-ms MS]\n");
                return 2;
        }
        bool keep = strcmp(mode, "keep") == 0;
        if (strcmp(mode, "lrugen") == 0) {
                keep = true;
                chunk = chunk ? chunk : 65536;
                buf_cap = chunk;
        } else
                chunk = 0;
        buf = malloc(buf_cap);
        if (!buf)
                die("malloc");

        char p[4096];
        snprintf(p, sizeof p, "%s/lru_gen_full", debugfs);
        if (access(p, R_OK) < 0)
                snprintf(p, sizeof p, "%s/lru_gen", debugfs);
        add_file(p);
        snprintf(p, sizeof p, "%s/pressure/memory", proc);
        add_file(p);
        snprintf(p, sizeof p, "%s/meminfo", proc);
        add_file(p);
        if (!chunk)
                walk(cgroot, "/");
        if (keep)
                for (size_t i = 0; i < n_files; i++)
                        if ((files[i].fd = open(files[i].path, O_RDONLY | O_CLOEXEC)) < 0)
                                die(files[i].path);

        uint64_t *cpu = calloc(cycles + 1, sizeof *cpu), *wall = calloc(cycles + 1, sizeof *wall);
        size_t m = 0;
        for (unsigned long c = 1; c <= cycles; c++) {
                uint64_t c0 = ns(CLOCK_PROCESS_CPUTIME_ID), w0 = ns(CLOCK_MONOTONIC);
                uint64_t r0 = n_reads;
                uint64_t bytes = read_pass(keep, chunk);
                uint64_t dc = ns(CLOCK_PROCESS_CPUTIME_ID) - c0, dw = ns(CLOCK_MONOTONIC) - w0;
                printf("cycle=%lu cpu_us=%.1f wall_us=%.1f bytes=%" PRIu64 " reads=%" PRIu64 "\n",
                       c, dc / 1000.0, dw / 1000.0, bytes, n_reads - r0);
                if (c > skip) {
                        cpu[m] = dc;
                        wall[m] = dw;
                        m++;
                }
                if (c < cycles && interval_ms > 0) {
                        struct timespec ts = { interval_ms / 1000, (long) (interval_ms % 1000) * 1000000 };
                        nanosleep(&ts, NULL);
                }
        }
        printf("summary mode=%s cycles=%zu median_cpu_us=%.1f median_wall_us=%.1f files=%zu "
               "cgroups=%zu rss_kib=%" PRIu64 " hwm_kib=%" PRIu64 " anon_kib=%" PRIu64 "\n", mode, m,
               median(cpu, m) / 1000.0, median(wall, m) / 1000.0, n_files, n_cgroups,
               status_kib("VmRSS"), status_kib("VmHWM"), status_kib("RssAnon"));
        return 0;
}
