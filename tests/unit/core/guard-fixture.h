/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the guard tests share (test-stall-guard.c, test-refault-guard.c, test-brakes.c): a managed
 * cgroup made of plain files in Mode=pressure, and an inline actuator's job captured instead of
 * run. */
#pragma once

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mglrud/core/actuator.h"
#include "mglrud/core/cgroup.h"
#include "mglrud/core/control.h"
#include "test-policy.h"

static void write_at(int dirfd, const char *name, const char *text) {
        int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        close(fd);
}

static struct actuator_job *captured;

static void capture_job(struct actuator_job *j, void *userdata) {
        assert_null(captured);
        captured = j;
}

/* Makes dir (a mkdtemp() template) with a cgroup "cg" in it: memory.stat holding stat, 1 GiB
 * in memory.current, a memory.reclaim; returns it with default policy in Mode=pressure
 * (memory.reclaim, the TMO step), and in *ret_dirfd its directory (closed by the caller). */
static struct cgroup *pressure_cgroup_new(char *dir, const char *stat, int *ret_dirfd) {
        assert_non_null(mkdtemp(dir));
        char cgdir[PATH_MAX];
        snprintf(cgdir, sizeof cgdir, "%s/cg", dir);
        assert_int_equal(mkdir(cgdir, 0755), 0);
        int dirfd = open(cgdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dirfd >= 0);
        write_at(dirfd, "memory.stat", stat);
        write_at(dirfd, "memory.current", "1073741824\n");
        write_at(dirfd, "memory.reclaim", "");
        struct stat st;
        assert_int_equal(fstat(dirfd, &st), 0);

        struct cgroup *cg;
        assert_int_equal(cgroup_new(dir, "/cg", st.st_ino, CGROUP_KEEP_ALL, &cg), 0);
        test_give_policy(cg);
        test_policy_of(cg)->mode = POLICY_MODE_PRESSURE;
        *ret_dirfd = dirfd;
        return cg;
}

/* Runs cg's first two cycles, 2 s apart, from *in (advanced) through act: the first only samples,
 * the second submits the cgroup's first job (captured). */
static void cycle_to_first_job(struct cgroup *cg, struct cycle_input *in, struct actuator *act) {
        assert_int_equal(control_cgroup_cycle(cg, in, act), 0);
        assert_null(captured);
        in->now_usec += 2000000;
        assert_int_equal(control_cgroup_cycle(cg, in, act), 0);
        assert_non_null(captured);
}

/* Frees cg with its control state, closes dirfd and removes dir: what pressure_cgroup_new()
 * made. */
static void pressure_cgroup_done(struct cgroup *cg, const char *dir, int dirfd) {
        control_cgroup_free(cg);
        cgroup_free(cg);
        close(dirfd);
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}
