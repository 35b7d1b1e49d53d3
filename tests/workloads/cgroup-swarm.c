/* cgroup-swarm: many cgroups, each with one small process, held or coming and going.
 *
 *   cgroup-swarm --root DIR --count N [--alloc-kib K] hold
 *   cgroup-swarm --root DIR --count N [--alloc-kib K] [--life-ms MIN:MAX] [--log FILE] churn SECONDS
 *
 * DIR is a cgroup (created, with +memory for its children). Each child cgroup DIR/cNNNNNN gets one
 * process that moves itself into it, allocates K KiB (default 256) of anonymous memory, writes
 * every page, and then
 *   hold:  sleeps until SIGTERM; prints "event=ready cgroups=N" once all are in place;
 *   churn: exits after a random life in [MIN, MAX] ms (default 1000:10000); each exit's cgroup
 *          is removed and a new one (a new name, so a new cgroup id) takes its place, N at a time,
 *          for SECONDS; every second "event=churn t=… live=… created=… removed=…".
 * SIGTERM (or the end of churn) kills the processes, removes every cgroup and DIR, and prints
 * "event=done created=… removed=… rmdir_failed=…". --log FILE gets one line per removal,
 * "rm t=MONOTONIC_S id=INODE path=…", to check what a daemon did after a cgroup was gone.
 * Exit status 0, 1 when a cgroup could not be created or removed, 2 on usage errors. */
#include "wl-common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct slot {
        pid_t pid;              /* 0: empty */
        unsigned long name;     /* cNNNNNN */
        unsigned long long id;  /* the cgroup's inode */
};

static const char *root;
static unsigned long alloc_kib = 256, life_min = 1000, life_max = 10000;
static unsigned long next_name, created, removed, rmdir_failed;
static FILE *rmlog;

static void cg_path(char *buf, size_t size, unsigned long name) {
        snprintf(buf, size, "%s/c%06lu", root, name);
}

/* The child: joins its cgroup, allocates and writes its memory, then lives life_ms (0: until
 * killed). */
static void child(const char *cg, unsigned long life_ms) {
        char p[4200];
        snprintf(p, sizeof p, "%s/cgroup.procs", cg);
        int fd = open(p, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || dprintf(fd, "%d\n", (int) getpid()) < 0)
                _exit(3);
        close(fd);
        size_t size = alloc_kib * 1024;
        void *m = size ? wl_map_anon(size) : NULL;
        if (m)
                wl_fill(m, size, (uint64_t) getpid());
        if (life_ms == 0)
                for (;;)
                        pause();
        struct timespec ts = { (time_t) (life_ms / 1000), (long) (life_ms % 1000) * 1000000 };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
        _exit(0);
}

/* Creates a new cgroup in slot s and starts its process. Returns 0 or -1. */
static int start(struct slot *s, bool hold) {
        char cg[4096];
        struct stat st;
        s->name = next_name++;
        cg_path(cg, sizeof cg, s->name);
        if (mkdir(cg, 0755) < 0 || stat(cg, &st) < 0) {
                fprintf(stderr, "cgroup-swarm: mkdir %s: %s\n", cg, strerror(errno));
                return -1;
        }
        s->id = (unsigned long long) st.st_ino;
        unsigned long life = hold ? 0 : life_min + (unsigned long) rand() % (life_max - life_min + 1);
        pid_t pid = fork();
        if (pid < 0) {
                rmdir(cg);
                return -1;
        }
        if (pid == 0)
                child(cg, life);
        s->pid = pid;
        created++;
        return 0;
}

/* Removes the cgroup of slot s once its process is gone. */
static void finish(struct slot *s) {
        char cg[4096];
        cg_path(cg, sizeof cg, s->name);
        /* rmdir can race the exiting task's uncharge for a moment: retry briefly. */
        int r = -1;
        for (int i = 0; i < 50 && (r = rmdir(cg)) < 0 && errno == EBUSY; i++)
                usleep(10000);
        if (r < 0) {
                fprintf(stderr, "cgroup-swarm: rmdir %s: %s\n", cg, strerror(errno));
                rmdir_failed++;
        } else {
                removed++;
                if (rmlog)
                        fprintf(rmlog, "rm t=%.3f id=%llu path=%s\n", wl_now(), s->id, cg);
        }
        s->pid = 0;
}

static void usage(void) {
        fprintf(stderr, "usage: cgroup-swarm --root DIR --count N [--alloc-kib K] "
                        "[--life-ms MIN:MAX] [--log FILE] hold|churn SECONDS\n");
        exit(2);
}

int main(int argc, char **argv) {
        unsigned long count = 0, seconds = 0;
        const char *mode = NULL, *log_path = NULL;
        int i;

        for (i = 1; i < argc; i++) {
                if (strcmp(argv[i], "hold") == 0 || strcmp(argv[i], "churn") == 0) {
                        mode = argv[i];
                        if (strcmp(mode, "churn") == 0) {
                                if (i + 1 >= argc)
                                        usage();
                                seconds = wl_parse_u64("churn", argv[++i]);
                        }
                        continue;
                }
                if (i + 1 >= argc)
                        usage();
                if (strcmp(argv[i], "--root") == 0)
                        root = argv[++i];
                else if (strcmp(argv[i], "--count") == 0)
                        count = wl_parse_u64("--count", argv[++i]);
                else if (strcmp(argv[i], "--alloc-kib") == 0)
                        alloc_kib = wl_parse_u64("--alloc-kib", argv[++i]);
                else if (strcmp(argv[i], "--log") == 0)
                        log_path = argv[++i];
                else if (strcmp(argv[i], "--life-ms") == 0) {
                        if (sscanf(argv[++i], "%lu:%lu", &life_min, &life_max) != 2 ||
                            life_min > life_max)
                                usage();
                } else
                        usage();
        }
        if (!root || !mode || count == 0)
                usage();
        bool hold = strcmp(mode, "hold") == 0;
        wl_install_signals();
        signal(SIGCHLD, SIG_DFL);
        srand((unsigned) getpid());
        if (log_path && !(rmlog = fopen(log_path, "we")))
                wl_die(errno, "%s", log_path);

        char p[4200];
        if (mkdir(root, 0755) < 0 && errno != EEXIST)
                wl_die(errno, "mkdir %s", root);
        snprintf(p, sizeof p, "%s/cgroup.subtree_control", root);
        int fd = open(p, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, "+memory", 7) != 7)
                wl_die(errno, "%s: +memory", p);
        close(fd);

        struct slot *slots = calloc(count, sizeof *slots);
        int rc = 0;
        for (unsigned long k = 0; k < count && !wl_stop; k++)
                if (start(&slots[k], hold) < 0) {
                        rc = 1;
                        break;
                }
        if (hold) {
                printf("event=ready cgroups=%lu\n", created);
                fflush(stdout);
                while (!wl_stop)
                        pause();
        } else {
                double t0 = wl_now(), next_report = t0 + 1;
                while (!wl_stop && wl_now() - t0 < (double) seconds && rc == 0) {
                        int status;
                        pid_t pid = waitpid(-1, &status, WNOHANG);
                        if (pid <= 0) {
                                usleep(5000);
                        } else {
                                for (unsigned long k = 0; k < count; k++)
                                        if (slots[k].pid == pid) {
                                                finish(&slots[k]);
                                                if (start(&slots[k], false) < 0)
                                                        rc = 1;
                                                break;
                                        }
                        }
                        if (wl_now() >= next_report) {
                                unsigned long live = 0;
                                for (unsigned long k = 0; k < count; k++)
                                        live += slots[k].pid != 0;
                                printf("event=churn t=%.0f live=%lu created=%lu removed=%lu\n",
                                       wl_now() - t0, live, created, removed);
                                fflush(stdout);
                                next_report += 1;
                        }
                }
        }
        for (unsigned long k = 0; k < count; k++)
                if (slots[k].pid)
                        kill(slots[k].pid, SIGKILL);
        for (unsigned long k = 0; k < count; k++)
                if (slots[k].pid) {
                        waitpid(slots[k].pid, NULL, 0);
                        finish(&slots[k]);
                }
        if (rmdir(root) < 0)
                fprintf(stderr, "cgroup-swarm: rmdir %s: %s\n", root, strerror(errno));
        if (rmlog)
                fclose(rmlog);
        printf("event=done created=%lu removed=%lu rmdir_failed=%lu\n", created, removed, rmdir_failed);
        free(slots);
        return rc || rmdir_failed ? 1 : 0;
}
