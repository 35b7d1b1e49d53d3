/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench-lrugen: the cost of one lru_gen(_full) memcg-node record in mglrud's reader.
 *
 *   bench-lrugen FILE [REPEATS [paths]]
 *
 * Opens FILE once and, REPEATS times (default 20), reads and parses it with lrugen_read() the way
 * the daemon does each cycle on 7.x (pread from offset 0 on the kept fd, no paths kept; "paths":
 * keeping them, as on 6.x). Prints per repeat the CPU time
 * (CLOCK_PROCESS_CPUTIME_ID) and the records parsed, then the median in ns per record. Run it
 * under valgrind --tool=callgrind for instructions per record. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mglrud/kernel/lrugen.h"

static uint64_t cpu_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (uint64_t) ts.tv_sec * 1000000000 + (uint64_t) ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
        if (argc < 2 || (argc > 3 && strcmp(argv[3], "paths") != 0)) {
                fprintf(stderr, "usage: bench-lrugen FILE [REPEATS [paths]]\n");
                return 2;
        }
        int repeats = argc > 2 ? atoi(argv[2]) : 20;
        /* Without paths, as the daemon reads once it knows the ids are cgroup ids (7.x). */
        unsigned flags = argc > 3 ? 0 : LRUGEN_READ_NO_PATHS;
        int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
        if (fd < 0 || repeats < 1) {
                perror(argv[1]);
                return 2;
        }
        struct read_buf buf = {};
        struct lrugen l = {};
        double *per = calloc((size_t) repeats, sizeof *per);
        size_t records = 0;
        for (int i = 0; i < repeats; i++) {
                uint64_t t0 = cpu_ns();
                int r = lrugen_read(fd, &buf, flags, &l);
                uint64_t dt = cpu_ns() - t0;
                if (r < 0) {
                        fprintf(stderr, "bench-lrugen: %s: %s\n", argv[1], strerror(-r));
                        return 1;
                }
                records = l.n_lruvecs;
                per[i] = records ? (double) dt / (double) records : 0;
                printf("repeat=%d cpu_us=%.1f records=%zu ns_per_record=%.1f\n", i + 1,
                       (double) dt / 1000.0, records, per[i]);
        }
        qsort(per, (size_t) repeats, sizeof *per, cmp_double);
        printf("summary records=%zu median_ns_per_record=%.1f\n", records, per[repeats / 2]);
        lrugen_done(&l);
        read_buf_free(&buf);
        free(per);
        close(fd);
        return 0;
}
