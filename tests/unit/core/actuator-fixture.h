/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the actuation path's tests share (test-act-mode.c, test-actuator.c, test-actuator-run.c):
 * a cgroup directory whose memory.reclaim is a FIFO with a reader and an lru_gen that is the
 * write end of a pipe, so every write is seen in order; an actuator, inline or with an event
 * loop and its writer thread, whose finished jobs are kept in order. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <systemd/sd-event.h>

#include "mglrud/core/actuator.h"

#define PAGE 4096u
#define SINK_MAX_DONE 8

struct sink {
        char dir[64];
        int dirfd;
        int lrugen[2];          /* pipe: [0] read by the test, [1] the job's lru_gen fd */
        int reclaim_rd;         /* the reader of the memory.reclaim FIFO */
        sd_event *e;            /* NULL: the actuator runs jobs inline */
        struct actuator *a;
        struct actuator_job *done[SINK_MAX_DONE]; /* the finished jobs, in order */
        unsigned n_done;
};

static inline void sink_on_done(struct actuator_job *j, void *userdata) {
        struct sink *s = userdata;
        assert_true(s->n_done < SINK_MAX_DONE);
        s->done[s->n_done++] = j;
}

/* Sets s up in a new directory; with threaded, the actuator has an event loop and a writer
 * thread, else it runs jobs inline. */
static inline void sink_init_with(struct sink *s, bool threaded) {
        *s = (struct sink) {};
        snprintf(s->dir, sizeof s->dir, "/tmp/mglrud-test-actuator.XXXXXX");
        assert_non_null(mkdtemp(s->dir));
        s->dirfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(s->dirfd >= 0);
        assert_int_equal(mkfifoat(s->dirfd, "memory.reclaim", 0600), 0);
        s->reclaim_rd = openat(s->dirfd, "memory.reclaim", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        assert_true(s->reclaim_rd >= 0);
        assert_int_equal(pipe2(s->lrugen, O_NONBLOCK | O_CLOEXEC), 0);
        if (threaded)
                assert_int_equal(sd_event_new(&s->e), 0);
        assert_int_equal(actuator_new(s->e, sink_on_done, s, &s->a), 0);
}

static inline void sink_init(struct sink *s) {
        sink_init_with(s, false);
}

/* Returns what was written to fd so far ("" when nothing), in buf. */
static inline const char *drain(int fd, char *buf, size_t size) {
        ssize_t n = read(fd, buf, size - 1);
        assert_true(n >= 0 || errno == EAGAIN);
        buf[n > 0 ? n : 0] = 0;
        return buf;
}

/* Runs s's event loop until n jobs in all were handed to done (at most 10 s). */
static inline void sink_wait_done(struct sink *s, unsigned n) {
        for (int i = 0; i < 1000 && s->n_done < n; i++)
                assert_true(sd_event_run(s->e, 10000) >= 0);
        assert_int_equal(s->n_done, n);
}

static inline void sink_done(struct sink *s) {
        actuator_free(s->a);
        for (unsigned i = 0; i < s->n_done; i++)
                actuator_job_free(s->done[i]);
        sd_event_unref(s->e);
        close(s->lrugen[0]);
        close(s->lrugen[1]);
        close(s->reclaim_rd);
        assert_int_equal(unlinkat(s->dirfd, "memory.reclaim", 0), 0);
        close(s->dirfd);
        assert_int_equal(rmdir(s->dir), 0);
}

/* Returns a decision of one eviction of nr_pages pages of memcg id ("- id 0 6 0 nr_pages") and,
 * when reclaim_bytes, one memory.reclaim write of that many bytes. */
static inline struct decision eviction_of(uint64_t memcg_id, uint64_t nr_pages,
                                          uint64_t reclaim_bytes) {
        struct decision d = { .n_cmds = 1, .n_reclaims = reclaim_bytes ? 1 : 0 };
        d.cmds[0] = (struct lrugen_cmd) { .op = '-', .memcg_id = memcg_id, .node = 0, .seq = 6,
                                          .swappiness = 0, .nr_pages = nr_pages,
                                          .type = LRUGEN_FILE };
        d.reclaims[0] = (struct reclaim_req) { .bytes = reclaim_bytes, .swappiness = -1 };
        return d;
}

/* Returns a new decision job of cgroup id in mode for d, writing to s's files. */
static inline struct actuator_job *sink_job(struct sink *s, uint64_t id, enum act_mode mode,
                                            const struct decision *d) {
        struct actuator_job *j = actuator_job_new(id, "/t", s->dirfd, s->lrugen[1], PAGE, mode, d);
        assert_non_null(j);
        return j;
}
