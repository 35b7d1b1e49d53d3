/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A managed cgroup's container identity and annotation (core/cgroup.c): kept out of line, a
 * copy only when they say something, shown by the snapshot as before; cleared when a rescan
 * finds them empty. */
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

#include "core-fixture.h"
#include "mglrud/core/cgroup.h"
#include "mglrud/core/control.h"
#include "mglrud/shared/time.h"
#include "test-policy.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define POD "5d2c4a6e-1b2f-4c3d-8e9f-0a1b2c3d4e5f"
#define POD_PATH "/kubepods.slice/kubepods-burstable.slice/" \
                 "kubepods-burstable-pod5d2c4a6e_1b2f_4c3d_8e9f_0a1b2c3d4e5f.slice"

struct fixture {
        char dir[64];
        struct cgroup *cg;
};

static void fixture_init(struct fixture *f) {
        *f = (struct fixture) { .dir = "/tmp/mglrud-test-cgroup.XXXXXX" };
        assert_non_null(mkdtemp(f->dir));
        char cgdir[sizeof f->dir + 4];
        snprintf(cgdir, sizeof cgdir, "%s/cg", f->dir);
        assert_int_equal(mkdir(cgdir, 0755), 0);
        /* memory.stat says it has a memory controller. */
        char file[sizeof cgdir + 16];
        snprintf(file, sizeof file, "%s/memory.stat", cgdir);
        FILE *m = fopen(file, "w");
        assert_non_null(m);
        fputs("anon 0\nfile 0\n", m);
        assert_int_equal(fclose(m), 0);
        struct stat st;
        assert_int_equal(stat(cgdir, &st), 0);
        assert_int_equal(cgroup_new(f->dir, "/cg", st.st_ino, 0, &f->cg), 0);
        test_give_policy(f->cg);
}

static void fixture_done(struct fixture *f) {
        cgroup_free(f->cg);
        assert_int_equal(rm_tree(f->dir), 0);
}

/* A new cgroup has neither. */
static void test_new_has_none(void **unused) {
        struct fixture f;
        fixture_init(&f);
        assert_null(f.cg->container);
        assert_null(f.cg->annotation);
        struct control_snapshot s;
        assert_int_equal(control_cgroup_snapshot(f.cg, &s), 0);
        assert_null(s.runtime);
        assert_null(s.container_id);
        assert_null(s.annotated_policy);
        assert_int_equal(s.n_annotations, 0);
        fixture_done(&f);
}

/* A container with an annotation: both copied and shown; then a rescan that finds neither
 * (kind NONE, an annotation carrying nothing) clears both, and the snapshot shows none. */
static void test_set_and_clear(void **unused) {
        struct fixture f;
        fixture_init(&f);
        struct container_identity ci;
        assert_int_equal(container_identify(POD_PATH "/cri-containerd-" ID ".scope", &ci), 0);
        assert_int_equal(ci.kind, CONTAINER_KIND_CONTAINER);
        struct cgroup_annotation a = { .set_mask = 1u << POLICY_KEY_MIN_COLD_AGE };
        strcpy(a.policy_name, "batch");
        a.overrides.min_cold_age_usec = 5 * USEC_PER_SEC;

        assert_int_equal(cgroup_set_identity(f.cg, &ci, &a), 0);
        assert_non_null(f.cg->container);
        assert_non_null(f.cg->annotation);
        assert_ptr_not_equal(f.cg->container, &ci);
        assert_memory_equal(f.cg->container, &ci, sizeof ci);
        assert_memory_equal(f.cg->annotation, &a, sizeof a);
        /* The walk's copies go away after the rescan: the cgroup's own stay. */
        memset(&ci, 0xff, sizeof ci);
        memset(&a, 0, sizeof a);
        struct control_snapshot s;
        assert_int_equal(control_cgroup_snapshot(f.cg, &s), 0);
        assert_string_equal(s.runtime, "containerd");
        assert_string_equal(s.container_id, ID);
        assert_string_equal(s.pod_uid, POD);
        assert_string_equal(s.qos_class, "Burstable");
        assert_string_equal(s.annotated_policy, "batch");
        assert_int_equal(s.n_annotations, 1);
        assert_string_equal(s.annotations[0], "MinColdAge=5s");

        /* Set again (a rescan of the same container): the same storage is reused. */
        struct container_identity *kept = f.cg->container;
        assert_int_equal(container_identify(POD_PATH, &ci), 0);
        assert_int_equal(ci.kind, CONTAINER_KIND_POD);
        assert_int_equal(cgroup_set_identity(f.cg, &ci, NULL), 0);
        assert_ptr_equal(f.cg->container, kept);
        assert_int_equal(f.cg->container->kind, CONTAINER_KIND_POD);
        assert_null(f.cg->annotation);

        assert_int_equal(container_identify("/system.slice/foo.service", &ci), 0);
        assert_int_equal(ci.kind, CONTAINER_KIND_NONE);
        struct cgroup_annotation empty = {};
        assert_int_equal(cgroup_set_identity(f.cg, &ci, &empty), 0);
        assert_null(f.cg->container);
        assert_null(f.cg->annotation);
        assert_int_equal(control_cgroup_snapshot(f.cg, &s), 0);
        assert_null(s.runtime);
        assert_null(s.container_id);
        assert_null(s.pod_uid);
        assert_null(s.annotated_policy);
        assert_int_equal(s.n_annotations, 0);
        fixture_done(&f);
}

static void put_file(const char *dir, const char *name, const char *text) {
        char file[256];
        snprintf(file, sizeof file, "%s/cg/%s", dir, name);
        FILE *m = fopen(file, "w");
        assert_non_null(m);
        fputs(text, m);
        assert_int_equal(fclose(m), 0);
}

/* memory.high and memory.max are read with the cycle's sample only where HighHeadroom= is on;
 * a bad memory.high is the read's error, named. */
static void test_read_limits_for_headroom(void **unused) {
        struct fixture f;
        fixture_init(&f);
        put_file(f.dir, "memory.current", "8192\n");
        put_file(f.dir, "memory.high", "1048576\n");
        put_file(f.dir, "memory.max", "max\n");
        /* Open again: the files a cgroup has are noted when it is opened. */
        char cgdir[sizeof f.dir + 4];
        snprintf(cgdir, sizeof cgdir, "%s/cg", f.dir);
        struct stat st;
        assert_int_equal(stat(cgdir, &st), 0);
        cgroup_free(f.cg);
        assert_int_equal(cgroup_new(f.dir, "/cg", st.st_ino, 0, &f.cg), 0);
        test_give_policy(f.cg);

        struct cgroup_reading rd;
        assert_int_equal(cgroup_read(f.cg, 1, &rd, NULL), 0);
        assert_false(rd.limits.has_high_max);

        test_policy_of(f.cg)->high_headroom = 0.1;
        assert_int_equal(cgroup_read(f.cg, 2, &rd, NULL), 0);
        assert_true(rd.limits.has_high_max);
        assert_int_equal(rd.limits.high, 1048576);
        assert_int_equal(rd.limits.max, UINT64_MAX);

        struct cgroup_read_error e = {};
        put_file(f.dir, "memory.high", "lots\n");
        assert_int_equal(cgroup_read(f.cg, 3, &rd, &e), -EINVAL);
        assert_int_equal(e.file, CGROUP_FILE_HIGH);
        assert_false(f.cg->vanished);
        fixture_done(&f);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_new_has_none),
                cmocka_unit_test(test_read_limits_for_headroom),
                cmocka_unit_test(test_set_and_clear),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
