/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A cgroup's user.mglrud.* xattrs at discovery (cgroup-attributes.c), on a directory of this
 * test's own: taken where CgroupAttributes= trusts the owner, a policy name only for a
 * [Policy:NAME] that exists, keys bounded by the configuration; refused and clamped keys said
 * once per cgroup while they stay the same, again when they change or after a walk in which
 * the cgroup had nothing to say; nothing read with CgroupAttributes=no. */
#include "files-fixture.h"

#include <sys/xattr.h>

#include "mglrud/core/cgroup-attributes.h"

static const char conf[] = "[Defaults]\nMaxStep=64M\n"
                           "[Policy:batch]\nMode=active\nMaxStep=32M\n";

struct attrs {
        char dir[64];
        int dirfd;
        struct config c;
        struct attribute_notes notes;
        struct cgroup_match m;
        struct cgroup_annotation a;
};

static void attrs_init(struct attrs *t, const char *daemon) {
        *t = (struct attrs) { .dir = "/tmp/mglrud-test-attrs.XXXXXX",
                              .m = { .path = "/work.slice/x" } };
        assert_non_null(mkdtemp(t->dir));
        assert_int_equal(chmod(t->dir, 0755), 0);
        t->dirfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(t->dirfd >= 0);
        config_init(&t->c);
        char text[512];
        snprintf(text, sizeof text, "[Daemon]\n%s\n%s", daemon, conf);
        assert_int_equal(config_load_string(text, "t.conf", &t->c), 0);
        log_lines_start();
}

static void attrs_done(struct attrs *t) {
        log_lines_stop();
        attribute_notes_done(&t->notes);
        config_done(&t->c);
        close(t->dirfd);
        assert_int_equal(rm_tree(t->dir), 0);
}

static void set(struct attrs *t, const char *key, const char *value) {
        char name[128];
        snprintf(name, sizeof name, "user.mglrud.%s", key);
        assert_int_equal(fsetxattr(t->dirfd, name, value, strlen(value), 0), 0);
}

/* One walk that reads t's cgroup (id 7) as the daemon running as uid self. */
static void walk(struct attrs *t, unsigned self) {
        cgroup_attributes_read(&t->notes, &t->c, self, t->dirfd, 7, &t->m, &t->a);
        attribute_notes_walk_done(&t->notes);
}

static bool has_key(const struct cgroup_annotation *a, enum policy_key k) {
        return a->set_mask & (1u << k);
}

static void test_trusted_taken(void **state) {
        struct attrs t;
        attrs_init(&t, "CgroupAttributes=root-owned");
        set(&t, "policy", "batch");
        set(&t, "MaxStep", "16M");
        walk(&t, getuid()); /* the daemon's own uid is trusted like root */
        assert_string_equal(t.a.policy_name, "batch");
        assert_true(has_key(&t.a, POLICY_KEY_MAX_STEP));
        assert_int_equal(t.a.overrides.max_step_bytes, 16 << 20);
        assert_int_equal(log_lines.n, 0);
        attrs_done(&t);
}

/* A key above what the configuration gives is clamped to it, and said once. */
static void test_clamped_said_once(void **state) {
        struct attrs t;
        attrs_init(&t, "CgroupAttributes=root-owned");
        set(&t, "MaxStep", "1T");
        walk(&t, getuid());
        assert_int_equal(t.a.overrides.max_step_bytes, 64 << 20);
        assert_int_equal(log_lines.n, 1);
        assert_int_equal(log_lines_with("/work.slice/x: the xattr user.mglrud.MaxStep=1T"), 1);
        walk(&t, getuid());
        walk(&t, getuid());
        assert_int_equal(log_lines.n, 1);
        assert_int_equal(t.a.overrides.max_step_bytes, 64 << 20); /* still clamped */

        set(&t, "MaxStep", "2T"); /* another message: said */
        walk(&t, getuid());
        assert_int_equal(log_lines.n, 2);
        assert_int_equal(log_lines_with("MaxStep=2T"), 1);

        set(&t, "MaxStep", "8M"); /* nothing to say for a walk... */
        walk(&t, getuid());
        assert_int_equal(log_lines.n, 2);
        set(&t, "MaxStep", "2T"); /* ...so the same message is new again */
        walk(&t, getuid());
        assert_int_equal(log_lines.n, 3);
        attrs_done(&t);
}

/* Two cgroups in one walk: each is remembered on its own. */
static void test_notes_per_cgroup(void **state) {
        struct attrs t;
        attrs_init(&t, "CgroupAttributes=root-owned");
        set(&t, "MaxStep", "1T");
        for (int i = 0; i < 2; i++) {
                for (uint64_t id = 40; id > 0; id -= 4) /* not in order: the notes are sorted */
                        cgroup_attributes_read(&t.notes, &t.c, getuid(), t.dirfd, id, &t.m, &t.a);
                attribute_notes_walk_done(&t.notes);
        }
        assert_int_equal(log_lines.n, 10);
        attrs_done(&t);
}

/* A policy name without its section is refused; the other keys still count. */
static void test_unknown_policy_refused(void **state) {
        struct attrs t;
        attrs_init(&t, "CgroupAttributes=root-owned");
        set(&t, "policy", "nosuch");
        set(&t, "MaxStep", "16M");
        walk(&t, getuid());
        assert_string_equal(t.a.policy_name, "");
        assert_true(has_key(&t.a, POLICY_KEY_MAX_STEP));
        assert_int_equal(log_lines_with("ignoring the xattr user.mglrud.policy=nosuch: no such "
                                        "[Policy:] section"), 1);
        attrs_done(&t);
}

/* A directory whose owner is not trusted, or that its group may write: nothing counts, every
 * key is said, with the reason. */
static void test_untrusted_refused(void **state) {
        struct attrs t;
        attrs_init(&t, "CgroupAttributes=root-owned");
        set(&t, "policy", "batch");
        set(&t, "MaxStep", "16M");
        if (getuid() != 0) {
                walk(&t, getuid() + 1); /* owned by another uid than the daemon's */
                assert_false(cgroup_annotation_present(&t.a));
                assert_int_equal(log_lines_with("ignoring the xattr"), 2);
                assert_int_equal(log_lines_with("owned by uid"), 2);
        }
        assert_int_equal(fchmod(t.dirfd, 0775), 0);
        log_lines.n = 0;
        walk(&t, getuid());
        assert_false(cgroup_annotation_present(&t.a));
        assert_int_equal(log_lines_with("ignoring the xattr user.mglrud."), 2);
        attrs_done(&t);
}

/* CgroupAttributes=delegated trusts the group-writable directory; =no reads nothing. */
static void test_delegated_and_no(void **state) {
        struct attrs t;
        attrs_init(&t, "CgroupAttributes=delegated");
        set(&t, "MaxStep", "16M");
        assert_int_equal(fchmod(t.dirfd, 0775), 0);
        walk(&t, getuid() + 1);
        assert_true(has_key(&t.a, POLICY_KEY_MAX_STEP));
        assert_int_equal(log_lines.n, 0);
        attrs_done(&t);

        attrs_init(&t, "CgroupAttributes=no");
        set(&t, "MaxStep", "1T");
        walk(&t, getuid());
        assert_false(cgroup_annotation_present(&t.a));
        assert_int_equal(log_lines.n, 0); /* not even read: nothing said */
        attrs_done(&t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_trusted_taken),
                cmocka_unit_test(test_clamped_said_once),
                cmocka_unit_test(test_notes_per_cgroup),
                cmocka_unit_test(test_unknown_policy_refused),
                cmocka_unit_test(test_untrusted_refused),
                cmocka_unit_test(test_delegated_and_no),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
