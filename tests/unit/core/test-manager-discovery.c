/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Discovery through the manager (core/manager-discovery.c, core/manager.c): a fixture cgroup
 * tree in a temporary directory, manager_start() and manager_cycle() as --once runs them (no
 * event loop, dry-run), cgroups created and removed between cycles. Which cgroups are managed
 * follows the sections (Mode=off and no section: not managed), a new one is found by the next
 * cycle (inotify) or by the periodic rescan, a removed one is released, a renamed one keeps its
 * id, an unmanaged child is covered by its managed parent. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "files-fixture.h"
#include "manager-tree-fixture.h"
#include "mglrud/core/manager.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/time.h"

/* The periodic rescan's interval is 60 s (manager-discovery.c): a cycle this much later walks
 * the tree whatever inotify said. */
#define PAST_RESCAN_USEC (61 * USEC_PER_SEC)

struct tree {
        struct manager_tree p;      /* the temporary directory: cgroup/, proc/, mglrud.conf */
        struct manager m;
        uint64_t now;
        struct rlimit nofile;       /* the descriptor limit at setup, restored at teardown */
};

/* Makes the cgroup directory rel: with the memory files of a small idle cgroup, or none (no
 * memory controller) when files is false. */
static void make_cgroup(struct tree *t, const char *rel, bool files) {
        manager_tree_cgroup(&t->p, rel, files ? "max\n" : NULL);
}

static void remove_cgroup(struct tree *t, const char *rel) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s%s", t->p.cgroup_root, rel);
        assert_int_equal(rm_tree(p), 0); /* a cgroup's files first, as rmdir needs */
}

static void rename_cgroup(struct tree *t, const char *from, const char *to) {
        char a[PATH_MAX], b[PATH_MAX];
        snprintf(a, sizeof a, "%s%s", t->p.cgroup_root, from);
        snprintf(b, sizeof b, "%s%s", t->p.cgroup_root, to);
        assert_int_equal(rename(a, b), 0);
}

/* Returns the cgroup id (the directory's inode) of rel. */
static uint64_t cgroup_id_of(const struct tree *t, const char *rel) {
        char p[PATH_MAX];
        struct stat st;
        snprintf(p, sizeof p, "%s%s", t->p.cgroup_root, rel);
        assert_int_equal(stat(p, &st), 0);
        return st.st_ino;
}

static void no_action(void *userdata, const struct action_report *r) {
        fail_msg("dry-run acted on %s", r->cgroup);
}

static void no_advice(void *userdata, const char *cgroup, const char *section,
                      const struct decision_summary *d, bool would_act) {
}

/* No BPF: stream protection and the own refault count stay off (they are not discovery). */
static const char config_text[] =
        "[Daemon]\n"
        "RefaultCheck=no\n"
        "\n"
        "[Defaults]\n"
        "StreamProtection=no\n"
        "MinColdAge=10s\n"
        "MaxColdAge=10s\n"
        "\n"
        "[/apps/*]\n"
        "Mode=advise\n"
        "\n"
        "[/apps/off]\n"
        "Mode=off\n";

/* Lays out the tree (/apps/a, /apps/b, /apps/off, /apps/nomem without memory files, /other
 * without a section) and starts a dry-run manager on it without an event loop. */
static int tree_setup(void **state) {
        struct tree *t = calloc(1, sizeof *t);
        assert_non_null(t);
        manager_tree_init(&t->p, "/tmp/mglrud-test-discovery.XXXXXX", config_text);
        make_cgroup(t, "/apps", false);
        make_cgroup(t, "/apps/a", true);
        make_cgroup(t, "/apps/b", true);
        make_cgroup(t, "/apps/off", true);
        make_cgroup(t, "/apps/nomem", false);
        make_cgroup(t, "/other", true);

        const struct manager_overrides o = {
                .cgroup_root = t->p.cgroup_root,
                .debugfs_root = t->p.debugfs_root,
                .proc_root = t->p.proc_root,
                .dry_run = true,
        };
        assert_int_equal(getrlimit(RLIMIT_NOFILE, &t->nofile), 0);
        manager_init(&t->m, &o, t->p.conf, t->p.dropins);
        manager_set_report(&t->m, (struct report_sink) { .action = no_action,
                                                   .advice = no_advice });
        assert_int_equal(manager_start(&t->m, NULL), 0);
        /* What manager_start() read set the level; the test's output stays short. */
        log_set_max_level(LOG_WARNING);
        t->now = now_monotonic_usec();
        *state = t;
        return 0;
}

static int tree_teardown(void **state) {
        struct tree *t = *state;
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &t->nofile), 0);
        manager_done(&t->m);
        assert_int_equal(rm_tree(t->p.dir), 0);
        free(t);
        return 0;
}

/* Runs one cycle after_usec after the last one. */
static void cycle(struct tree *t, uint64_t after_usec) {
        t->now += after_usec;
        assert_int_equal(manager_cycle(&t->m, t->now), 0);
}

static const struct cgroup *managed(const struct tree *t, const char *path) {
        return manager_find_path(&t->m, path);
}

/* The first cycle manages what a section with a mode other than off matches, with that
 * section, by the directory's inode; nothing without a section or without memory files. */
static void test_first_cycle_follows_sections(void **state) {
        struct tree *t = *state;
        cycle(t, 0);

        assert_int_equal(manager_n_cgroups(&t->m), 2);
        const struct cgroup *a = managed(t, "/apps/a"), *b = managed(t, "/apps/b");
        assert_non_null(a);
        assert_non_null(b);
        assert_string_equal(a->section->name, "/apps/*");
        assert_int_equal(a->policy->mode, POLICY_MODE_ADVISE);
        assert_int_equal(a->id, cgroup_id_of(t, "/apps/a"));
        assert_null(managed(t, "/apps/off"));   /* Mode=off */
        assert_null(managed(t, "/apps/nomem")); /* no memory controller */
        assert_null(managed(t, "/other"));      /* no section */
        assert_null(managed(t, "/apps"));       /* the glob is one level below it */

        /* Sorted by id, as the completions' lookup needs. */
        size_t n;
        struct cgroup *const *cgs = manager_cgroups(&t->m, &n);
        assert_int_equal(n, 2);
        assert_true(cgs[0]->id < cgs[1]->id);
}

/* A cgroup created between two cycles is managed by the next one (inotify, well before the
 * periodic rescan), and a removed one is released. */
static void test_mkdir_and_rmdir_between_cycles(void **state) {
        struct tree *t = *state;
        cycle(t, 0);
        const struct cgroup *a = managed(t, "/apps/a");

        make_cgroup(t, "/apps/c", true);
        remove_cgroup(t, "/apps/b");
        cycle(t, USEC_PER_SEC);

        assert_int_equal(manager_n_cgroups(&t->m), 2);
        assert_ptr_equal(managed(t, "/apps/a"), a); /* kept, with its state */
        assert_non_null(managed(t, "/apps/c"));
        assert_int_equal(managed(t, "/apps/c")->id, cgroup_id_of(t, "/apps/c"));
        assert_null(managed(t, "/apps/b"));
}

/* Empties the inotify queue: what was written before is unseen by the next cycle. */
static void drain_inotify(struct tree *t) {
        char buf[4096] __attribute__((aligned(8)));
        while (read(t->m.discovery.inotify_fd, buf, sizeof buf) > 0)
                ;
}

/* memory.min and memory.swap.max are kept between reads: a write that inotify sees makes every
 * cgroup read them again, a write to another file does not, and without inotify they are read
 * every cycle. */
static void test_written_limit_is_read_again(void **state) {
        struct tree *t = *state;
        cycle(t, 0);
        struct cgroup *a = manager_find_path(&t->m, "/apps/a");
        struct cgroup *b = manager_find_path(&t->m, "/apps/b");
        assert_true(a->files.limits_known);
        assert_int_equal(a->files.min, 0);

        /* A write inotify did not tell, then one to another file: still the kept value. */
        char adir[PATH_MAX], bdir[PATH_MAX];
        snprintf(adir, sizeof adir, "%s/apps/a", t->p.cgroup_root);
        snprintf(bdir, sizeof bdir, "%s/apps/b", t->p.cgroup_root);
        tree_write_file(adir, "memory.min", "1048576\n");
        drain_inotify(t);
        tree_write_file(bdir, "memory.reclaim", "1M");
        cycle(t, USEC_PER_SEC);
        assert_int_equal(a->files.min, 0);

        /* A write to b's memory.swap.max: every cgroup reads its limits again. */
        tree_write_file(bdir, "memory.swap.max", "1073741824\n");
        cycle(t, USEC_PER_SEC);
        assert_int_equal(a->files.min, 1048576);
        assert_int_equal(b->files.swap_max, UINT64_C(1073741824));

        /* Without inotify, every cycle reads them. */
        close(t->m.discovery.inotify_fd);
        t->m.discovery.inotify_fd = -1;
        tree_write_file(adir, "memory.min", "2097152\n");
        cycle(t, USEC_PER_SEC);
        assert_int_equal(a->files.min, 2097152);
}

/* Under a descriptor limit that does not fit every cgroup's files, the first cgroups by id keep
 * the larger mask with what is left over, the others the smaller one; a rescan moves the
 * larger one with the order. Limit 36: 18 for the cgroups (the other half the reserve), the hot
 * three of the three that match (12: /apps/nomem counts until its open fails), and the 6 left
 * give the first all seven (4 more). With one gone, all seven fit for both that match. */
static void test_descriptors_left_over_go_to_the_first(void **state) {
        struct tree *t = *state;
        struct rlimit rl = { .rlim_cur = 36, .rlim_max = t->nofile.rlim_max };
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
        cycle(t, 0);

        size_t n;
        struct cgroup *const *cgs = manager_cgroups(&t->m, &n);
        assert_int_equal(n, 2);
        assert_true(cgs[0]->files.fds[CGROUP_FILE_STAT] >= 0);
        assert_true(cgs[0]->files.fds[CGROUP_FILE_MIN] >= 0);   /* all seven */
        assert_true(cgs[1]->files.fds[CGROUP_FILE_STAT] >= 0);  /* the hot three */
        assert_true(cgs[1]->files.fds[CGROUP_FILE_CURRENT] >= 0);
        assert_int_equal(cgs[1]->files.fds[CGROUP_FILE_MIN], -1);

        /* The first goes: the one left is first now, and keeps all seven. */
        const struct cgroup *second = cgs[1];
        remove_cgroup(t, cgs[0] == managed(t, "/apps/a") ? "/apps/a" : "/apps/b");
        cycle(t, USEC_PER_SEC);
        cgs = manager_cgroups(&t->m, &n);
        assert_int_equal(n, 1);
        assert_ptr_equal(cgs[0], second);
        assert_true(cgs[0]->files.fds[CGROUP_FILE_MIN] >= 0);
}

/* The periodic rescan finds what inotify did not tell: with the queue drained (a cycle right
 * after the change is not due), a removal and a creation still show a minute later. */
static void test_periodic_rescan(void **state) {
        struct tree *t = *state;
        cycle(t, 0);
        /* Drain what inotify says about the changes, and make the next cycle not due. */
        close(t->m.discovery.inotify_fd);
        t->m.discovery.inotify_fd = -1;
        remove_cgroup(t, "/apps/a");
        make_cgroup(t, "/apps/d", true);
        cycle(t, USEC_PER_SEC);
        assert_non_null(managed(t, "/apps/a")); /* not walked yet: no inotify */
        assert_null(managed(t, "/apps/d"));

        cycle(t, PAST_RESCAN_USEC);
        assert_null(managed(t, "/apps/a"));
        assert_non_null(managed(t, "/apps/d"));
        assert_int_equal(manager_n_cgroups(&t->m), 2);
}

/* A renamed cgroup is the same cgroup (the same id and state) under its new path; one renamed
 * into Mode=off is released. */
static void test_rename(void **state) {
        struct tree *t = *state;
        cycle(t, 0);
        const struct cgroup *b = managed(t, "/apps/b");
        uint64_t id = b->id;

        rename_cgroup(t, "/apps/b", "/apps/b2");
        cycle(t, USEC_PER_SEC);
        assert_null(managed(t, "/apps/b"));
        assert_ptr_equal(managed(t, "/apps/b2"), b);
        assert_int_equal(b->id, id);

        remove_cgroup(t, "/apps/off");
        rename_cgroup(t, "/apps/b2", "/apps/off");
        cycle(t, USEC_PER_SEC);
        assert_null(managed(t, "/apps/off"));
        assert_null(managed(t, "/apps/b2"));
        assert_int_equal(manager_n_cgroups(&t->m), 1);
}

/* An unmanaged cgroup below a managed one is covered by it (its lru_gen work counts there); a
 * rescan without it covers nothing. */
static void test_unmanaged_child_is_covered(void **state) {
        struct tree *t = *state;
        make_cgroup(t, "/apps/a/child", true);
        cycle(t, 0);
        const struct cgroup *a = managed(t, "/apps/a");
        assert_non_null(a);
        assert_null(managed(t, "/apps/a/child"));
        assert_int_equal(a->n_covered, 1);
        assert_int_equal(a->covered_ids[0], cgroup_id_of(t, "/apps/a/child"));
        assert_int_equal(managed(t, "/apps/b")->n_covered, 0);

        remove_cgroup(t, "/apps/a/child");
        cycle(t, USEC_PER_SEC);
        assert_int_equal(a->n_covered, 0);
}

/* A reload with another section set manages what it says at once (the reload rescans). */
static void test_reload_changes_the_set(void **state) {
        struct tree *t = *state;
        cycle(t, 0);
        tree_write_file(t->p.dir, "mglrud.conf", "[Daemon]\nRefaultCheck=no\n[Defaults]\n"
                                          "StreamProtection=no\n[/other]\nMode=advise\n");
        assert_int_equal(manager_reload(&t->m, NULL), 0);
        assert_int_equal(manager_n_cgroups(&t->m), 1);
        assert_non_null(managed(t, "/other"));
        assert_string_equal(managed(t, "/other")->section->name, "/other");
        assert_null(managed(t, "/apps/a"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_first_cycle_follows_sections, tree_setup,
                                                tree_teardown),
                cmocka_unit_test_setup_teardown(test_mkdir_and_rmdir_between_cycles, tree_setup,
                                                tree_teardown),
                cmocka_unit_test_setup_teardown(test_periodic_rescan, tree_setup, tree_teardown),
                cmocka_unit_test_setup_teardown(test_written_limit_is_read_again, tree_setup,
                                                tree_teardown),
                cmocka_unit_test_setup_teardown(test_descriptors_left_over_go_to_the_first,
                                                tree_setup, tree_teardown),
                cmocka_unit_test_setup_teardown(test_rename, tree_setup, tree_teardown),
                cmocka_unit_test_setup_teardown(test_unmanaged_child_is_covered, tree_setup,
                                                tree_teardown),
                cmocka_unit_test_setup_teardown(test_reload_changes_the_set, tree_setup,
                                                tree_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
