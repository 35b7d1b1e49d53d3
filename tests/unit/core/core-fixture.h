/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the core's tests share: a tree in a mkdtemp() directory with one managed cgroup "cg" made
 * of plain files, its policy, an inline actuator whose jobs are captured instead of run, the
 * cycle input, and a teardown that removes the tree without a shell. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "mglrud/core/actuator.h"
#include "mglrud/core/cgroup.h"
#include "mglrud/core/control.h"
#include "mglrud/kernel/memcg.h"
#include "mglrud/kernel/memstat.h"
#include "files-fixture.h"
#include "test-policy.h"

/* The job the inline actuator of a fixture completed last, held back (capture_job()): it stays
 * "in flight" for its cgroup until the test hands it to control_job_done() or frees it. */
static struct actuator_job *captured;

/* The inline actuator's completion: keeps the job in captured, which must be free. */
static inline void capture_job(struct actuator_job *j, void *userdata) {
        (void) userdata;
        assert_null(captured);
        captured = j;
}

struct core_fixture {
        char dir[64];                  /* the tree: a mkdtemp() directory */
        int dirfd;                     /* the cgroup's directory, dir/cg */
        struct cgroup *cg;             /* "/cg", with a policy of its own (test_policy_of()) */
        struct actuator *act;          /* inline: its jobs go to captured */
        struct kernel_caps caps;       /* 4 KiB pages, memory.reclaim takes swappiness */
        struct report_sink report;     /* reports nothing */
        struct cycle_input in;         /* at 1 s, Interval=10s, lru_gen not open */
};

/* Sets f up: in a new directory under /tmp, a cgroup "cg" whose memory.stat holds stat, with
 * 1 GiB in memory.current and an empty memory.reclaim; its policy the defaults with mode; an
 * inline actuator; a cycle input at 1 s of a 10 s interval with no guard or check set;
 * nothing captured. */
static inline void core_fixture_init(struct core_fixture *f, enum policy_mode mode,
                                     const char *stat) {
        *f = (struct core_fixture) {
                .dir = "/tmp/mglrud-test-core.XXXXXX",
                .caps = { .page_size = 4096, .reclaim_swappiness = true },
        };
        f->in = (struct cycle_input) { .now_usec = 1000000, .interval_usec = 10000000,
                                       .caps = &f->caps, .lrugen_write_fd = -1,
                                       .report = &f->report };
        assert_non_null(mkdtemp(f->dir));
        int root = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(root >= 0);
        assert_int_equal(mkdirat(root, "cg", 0755), 0);
        f->dirfd = openat(root, "cg", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(root);
        assert_true(f->dirfd >= 0);
        write_at(f->dirfd, "memory.stat", stat);
        write_at(f->dirfd, "memory.current", "1073741824\n");
        write_at(f->dirfd, "memory.reclaim", "");
        struct stat st;
        assert_int_equal(fstat(f->dirfd, &st), 0);
        assert_int_equal(cgroup_new(f->dir, "/cg", st.st_ino, CGROUP_KEEP_ALL, &f->cg), 0);
        test_give_policy(f->cg)->mode = mode;
        assert_int_equal(actuator_new(NULL, capture_job, NULL, &f->act), 0);
        captured = NULL; /* a job an earlier test left there is its own to free */
}

/* Returns the reading of a cgroup at now_usec whose memory.stat holds stat and memory.current
 * current_bytes, with no memory.pressure, memory.min or swap files and no own refault count:
 * what control_cgroup_read() reads from such files (the cycle input's defaults), built without
 * them for control_cgroup_step(). */
static inline struct control_reading core_reading(uint64_t now_usec, const char *stat,
                                                  uint64_t current_bytes) {
        struct control_reading rd = {
                .cur = { .now_usec = now_usec,
                         .limits = { .current = current_bytes, .swap_max = MEMCG_VALUE_MAX } },
        };
        assert_int_equal(memstat_parse(stat, strlen(stat), &rd.cur.stat, NULL), 0);
        return rd;
}

/* Runs the cgroup's first two cycles, 2 s apart, advancing f->in: the first only samples, the
 * second submits its first job (captured) and gives it its job record. */
static inline void core_fixture_first_job(struct core_fixture *f) {
        assert_int_equal(control_cgroup_cycle(f->cg, &f->in, f->act), 0);
        assert_null(captured);
        f->in.now_usec += 2000000;
        assert_int_equal(control_cgroup_cycle(f->cg, &f->in, f->act), 0);
        assert_non_null(captured);
}

/* Frees what core_fixture_init() made and removes its tree. A job still in captured is the
 * test's. */
static inline void core_fixture_done(struct core_fixture *f) {
        actuator_free(f->act);
        control_cgroup_free(f->cg);
        cgroup_free(f->cg);
        close(f->dirfd);
        assert_int_equal(rm_tree(f->dir), 0);
        assert_int_equal(access(f->dir, F_OK), -1); /* gone */
}
