/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cycle-meter: runs mglrud (or anything that reports "cycle N took T" in sd_notify STATUS=) and
 * measures each of its control cycles from outside, the same way on the host and in the VM.
 *
 *   cycle-meter [--cycles N] [--skip K] [--timeout S] [--out FILE] [--rss-every S]
 *               [--each-cycle SHELL-COMMAND] -- CMD ARGS...
 *
 * It binds a notification socket, starts CMD with NOTIFY_SOCKET pointing at it and, each time a
 * STATUS= with "cycle N took T" arrives (sent right after cycle N ended), samples the process:
 * its CPU time (the sum of the run times in /proc/PID/task/TID/schedstat over its threads, in
 * ns: clock ticks are too coarse for a cycle of a millisecond), VmRSS, VmHWM and RssAnon (the
 * RSS less the pages of mapped files, shared libraries mostly). The CPU of cycle N is the
 * difference between two such samples: everything the process ran between the two
 * notifications, i.e. the cycle and the idle event loop around it. After N cycles it sends
 * SIGTERM and prints one line per cycle ("cycle=N cpu_us=… wall_us=… rss_kib=… hwm_kib=…
 * anon_kib=…"), "exit status=N" (128 + signal when killed by one) and a summary: medians over
 * the cycles after the first K (the first cycles discover the tree and open its files), the last
 * RSS and the peak. With --rss-every S it also prints "rss t=… rss_kib=… hwm_kib=… anon_kib=…"
 * every S seconds (an RSS curve); --cycles 0 runs until CMD exits or the timeout ends it (not an
 * error then). --each-cycle runs a shell command after each cycle (the daemon sleeps then: a test
 * can change a fixture tree between two cycles without racing them); it gets the cycle number in
 * $CYCLE.
 * Exit status: 0, 1 when CMD died before N cycles or the timeout hit, 2 on usage errors. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct sample {
        uint64_t cycle;
        uint64_t cpu_ns;   /* cumulative */
        uint64_t wall_us;  /* the cycle's own duration, from STATUS */
        uint64_t rss_kib, hwm_kib, anon_kib; /* VmRSS, VmHWM, RssAnon (RSS less file pages) */
};

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* Returns the run time of every thread of pid in ns (0 when gone). */
static uint64_t cpu_ns_of(pid_t pid) {
        char path[64];
        uint64_t sum = 0;
        snprintf(path, sizeof path, "/proc/%d/task", (int) pid);
        DIR *d = opendir(path);
        if (!d)
                return 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                char p[384];
                snprintf(p, sizeof p, "%s/%s/schedstat", path, de->d_name);
                FILE *f = fopen(p, "re");
                unsigned long long run = 0;
                if (f) {
                        if (fscanf(f, "%llu", &run) == 1)
                                sum += run;
                        fclose(f);
                }
        }
        closedir(d);
        return sum;
}

/* Reads VmRSS and VmHWM of pid in KiB. */
static void rss_of(pid_t pid, uint64_t *rss, uint64_t *hwm, uint64_t *anon) {
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/%d/status", (int) pid);
        FILE *f = fopen(path, "re");
        *rss = *hwm = *anon = 0;
        if (!f)
                return;
        while (fgets(line, sizeof line, f)) {
                unsigned long long v;
                if (sscanf(line, "VmRSS: %llu", &v) == 1)
                        *rss = v;
                else if (sscanf(line, "VmHWM: %llu", &v) == 1)
                        *hwm = v;
                else if (sscanf(line, "RssAnon: %llu", &v) == 1)
                        *anon = v;
        }
        fclose(f);
}

/* Parses "1.5s", "8.1ms", "850us", "2min", "0" into µs; returns false otherwise. */
static bool parse_duration_us(const char *s, uint64_t *ret) {
        char *end;
        double v = strtod(s, &end);
        if (end == s)
                return false;
        double mult = strncmp(end, "us", 2) == 0 ? 1 : strncmp(end, "ms", 2) == 0 ? 1e3 :
                      strncmp(end, "min", 3) == 0 ? 60e6 : *end == 's' ? 1e6 :
                      (*end == 0 || *end == '\n' || *end == ' ') && v == 0 ? 0 : -1;
        if (mult < 0)
                return false;
        *ret = (uint64_t) (v * mult + 0.5);
        return true;
}

/* Finds "cycle N took T" in a notification. */
static bool parse_status(const char *msg, uint64_t *cycle, uint64_t *wall_us) {
        const char *st = strstr(msg, "STATUS=");
        if (!st)
                return false;
        const char *c = strstr(st, "cycle ");
        unsigned long long n;
        char took[32];
        if (!c || sscanf(c, "cycle %llu took %31s", &n, took) != 2)
                return false;
        *cycle = n;
        return parse_duration_us(took, wall_us);
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

static void usage(void) {
        fprintf(stderr, "usage: cycle-meter [--cycles N] [--skip K] [--timeout S] [--out FILE] "
                        "[--rss-every S] [--each-cycle SHELL-COMMAND] -- CMD ARGS...\n");
        exit(2);
}

int main(int argc, char **argv) {
        uint64_t want = 10, skip = 2, timeout_s = 600, rss_every_s = 0;
        const char *out_path = NULL, *each = NULL;
        int i;

        for (i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--") == 0) {
                        i++;
                        break;
                }
                if (i + 1 >= argc)
                        usage();
                if (strcmp(argv[i], "--cycles") == 0)
                        want = strtoull(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--skip") == 0)
                        skip = strtoull(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--timeout") == 0)
                        timeout_s = strtoull(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--rss-every") == 0)
                        rss_every_s = strtoull(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--out") == 0)
                        out_path = argv[++i];
                else if (strcmp(argv[i], "--each-cycle") == 0)
                        each = argv[++i];
                else
                        usage();
        }
        if (i >= argc)
                usage();
        FILE *out = out_path ? fopen(out_path, "we") : stdout;
        if (!out) {
                perror(out_path);
                return 2;
        }

        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char name[64];
        snprintf(name, sizeof name, "cycle-meter-%d", (int) getpid());
        /* An abstract address ("@name" in NOTIFY_SOCKET): nothing to clean up. */
        memcpy(sa.sun_path + 1, name, strlen(name));
        socklen_t salen = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
        if (fd < 0 || bind(fd, (struct sockaddr *) &sa, salen) < 0) {
                perror("cycle-meter: notification socket");
                return 2;
        }
        char env[80];
        snprintf(env, sizeof env, "@%s", name);

        pid_t pid = fork();
        if (pid < 0) {
                perror("fork");
                return 2;
        }
        if (pid == 0) {
                setenv("NOTIFY_SOCKET", env, 1);
                execvp(argv[i], argv + i);
                fprintf(stderr, "cycle-meter: %s: %s\n", argv[i], strerror(errno));
                _exit(127);
        }

        size_t cap = 64, n = 0;
        struct sample *s = calloc(cap, sizeof *s);
        uint64_t start = now_ms(), deadline = start + timeout_s * 1000, next_rss = start;
        bool exited = false, timed_out = false;
        int status = 0;

        while (want == 0 || n < want + 1) {
                uint64_t now = now_ms();
                if (now >= deadline) {
                        timed_out = true;
                        break;
                }
                if (rss_every_s && now >= next_rss) {
                        uint64_t rss, hwm, anon;
                        rss_of(pid, &rss, &hwm, &anon);
                        fprintf(out, "rss t=%.1f rss_kib=%" PRIu64 " hwm_kib=%" PRIu64
                                     " anon_kib=%" PRIu64 "\n",
                                (double) (now - start) / 1000.0, rss, hwm, anon);
                        fflush(out);
                        next_rss += rss_every_s * 1000;
                }
                if (waitpid(pid, &status, WNOHANG) == pid) {
                        exited = true;
                        break;
                }
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (poll(&p, 1, 100) <= 0)
                        continue;
                char msg[4096];
                ssize_t len = recv(fd, msg, sizeof msg - 1, 0);
                if (len <= 0)
                        continue;
                msg[len] = 0;
                struct sample x = {};
                if (!parse_status(msg, &x.cycle, &x.wall_us))
                        continue;
                x.cpu_ns = cpu_ns_of(pid);
                rss_of(pid, &x.rss_kib, &x.hwm_kib, &x.anon_kib);
                if (n == cap) {
                        cap *= 2;
                        s = realloc(s, cap * sizeof *s);
                }
                s[n++] = x;
                if (each) {
                        char c[32];
                        snprintf(c, sizeof c, "%" PRIu64, x.cycle);
                        setenv("CYCLE", c, 1);
                        int st = system(each);
                        if (st != 0)
                                fprintf(stderr, "cycle-meter: --each-cycle exited with %d\n", st);
                }
        }
        if (!exited) {
                kill(pid, SIGTERM);
                waitpid(pid, &status, 0);
        }

        uint64_t *cpu = calloc(n + 1, sizeof *cpu), *wall = calloc(n + 1, sizeof *wall);
        size_t m = 0;
        for (size_t k = 1; k < n; k++) {
                uint64_t dcpu = s[k].cpu_ns - s[k - 1].cpu_ns;
                fprintf(out, "cycle=%" PRIu64 " cpu_us=%.1f wall_us=%" PRIu64 " rss_kib=%" PRIu64
                             " hwm_kib=%" PRIu64 " anon_kib=%" PRIu64 "\n", s[k].cycle,
                        (double) dcpu / 1000.0, s[k].wall_us, s[k].rss_kib, s[k].hwm_kib,
                        s[k].anon_kib);
                if (s[k].cycle > skip) {
                        cpu[m] = dcpu;
                        wall[m] = s[k].wall_us;
                        m++;
                }
        }
        fprintf(out, "exit status=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) :
                                          WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1);
        if (n > 0)
                fprintf(out, "summary cycles=%zu median_cpu_us=%.1f median_wall_us=%" PRIu64
                             " rss_kib=%" PRIu64 " hwm_kib=%" PRIu64 " anon_kib=%" PRIu64 "\n",
                        m, (double) median(cpu, m) / 1000.0, median(wall, m), s[n - 1].rss_kib,
                        s[n - 1].hwm_kib, s[n - 1].anon_kib);
        if (want != 0 && (exited || timed_out))
                fprintf(stderr, "cycle-meter: %s after %zu cycles (status %d)\n",
                        timed_out ? "timeout" : "command exited", n, status);
        if (out != stdout)
                fclose(out);
        free(cpu);
        free(wall);
        free(s);
        return want != 0 && (exited || timed_out) ? 1 : 0;
}
