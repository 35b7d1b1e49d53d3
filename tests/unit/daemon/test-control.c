/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The writer thread and the completions: a completion that is not the one the cgroup's state
 * waits for is dropped; actuator_set_dry_run() stops the writes of jobs already queued. */
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

#include "mglrud/actuator.h"
#include "mglrud/control.h"
#include "mglrud/fileio.h"
#include "mglrud/manager.h"

static struct decision reclaim_decision(uint64_t bytes) {
        struct decision d = { .n_reclaims = 1 };
        d.reclaims[0].bytes = bytes;
        d.reclaims[0].swappiness = -1;
        return d;
}

/* A cgroup is dropped while its job runs, and managed again (same id, fresh state) before the
 * job completes: the old completion must not be counted as the new state's action. */
static void test_stale_completion_ignored(void **state) {
        (void) state;
        struct cgroup *cg = calloc(1, sizeof *cg);
        assert_non_null(cg);
        cg->id = 42;
        cg->path = strdup("/a");
        cg->dirfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(cg->dirfd >= 0);
        for (int i = 0; i < _CGROUP_FILE_MAX; i++)
                cg->fds[i] = -1;
        struct cgroup *list[1] = { cg };
        struct manager m = { .cgroups = list, .n_cgroups = 1, .lrugen_write_fd = -1 };
        assert_int_equal(control_cgroup_set_paused(cg, false), 0); /* a fresh state */

        struct decision d = reclaim_decision(4096);
        struct actuator_job *j = actuator_job_new(cg->id, cg->path, cg->dirfd, -1, true, &d);
        assert_non_null(j);
        actuator_run_job(j, NULL);
        assert_int_equal(j->asked_bytes, 4096);
        j->token = 12345; /* submitted for the previous incarnation's state */
        control_job_done(j, &m);

        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(cg, &snap), 0);
        assert_int_equal(snap.actions, 0);
        assert_int_equal(snap.errors, 0);

        control_cgroup_free(cg);
        cgroup_free(cg);
}

struct done_ctx {
        unsigned n;
        struct actuator_job *last;
};

static void on_job_done(struct actuator_job *j, void *userdata) {
        struct done_ctx *c = userdata;
        c->n++;
        actuator_job_free(c->last);
        c->last = j;
}

/* Runs one job with dry_run=false through the writer thread against dir/memory.reclaim (a
 * plain file here); returns what the file holds afterwards. */
static char *run_one(int dirfd, bool force_dry_run) {
        sd_event *e = NULL;
        struct actuator *a = NULL;
        struct done_ctx c = {};
        assert_int_equal(sd_event_new(&e), 0);
        assert_int_equal(actuator_new(e, on_job_done, &c, &a), 0);
        actuator_set_dry_run(a, force_dry_run);

        struct decision d = reclaim_decision(8192);
        struct actuator_job *j = actuator_job_new(1, "/t", dirfd, -1, false, &d);
        assert_non_null(j);
        assert_int_equal(actuator_submit(a, j), 0);
        for (int i = 0; i < 100 && c.n == 0; i++)
                assert_true(sd_event_run(e, 100000) >= 0);
        assert_int_equal(c.n, 1);
        assert_int_equal(c.last->failed, 0);
        assert_int_equal(c.last->asked_bytes, 8192);
        actuator_job_free(c.last);
        actuator_free(a);
        sd_event_unref(e);

        struct read_buf b = {};
        assert_int_equal(read_full_file_at(dirfd, "memory.reclaim", &b), 0);
        char *text = strdup(b.data);
        read_buf_free(&b);
        return text;
}

static void test_actuator_dry_run_switch(void **state) {
        (void) state;
        char dir[] = "/tmp/mglrud-test-control.XXXXXX";
        assert_non_null(mkdtemp(dir));
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dirfd >= 0);
        int fd = openat(dirfd, "memory.reclaim", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        close(fd);

        /* A reload to DryRun=yes: the job decided before it writes nothing. */
        char *text = run_one(dirfd, true);
        assert_string_equal(text, "");
        free(text);

        /* Otherwise the job writes (the control for the check above). */
        text = run_one(dirfd, false);
        assert_string_equal(text, "8192");
        free(text);

        assert_int_equal(unlinkat(dirfd, "memory.reclaim", 0), 0);
        close(dirfd);
        assert_int_equal(rmdir(dir), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_stale_completion_ignored),
                cmocka_unit_test(test_actuator_dry_run_switch),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
