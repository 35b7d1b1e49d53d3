/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lru_gen source (manager-probe.c) on a debugfs and cgroup tree of plain files: which file
 * is read (lru_gen_full before lru_gen) and whether lru_gen is opened for writing (never in
 * dry-run), MGLRU switched off and on at run time (said once each way), a malformed histogram
 * said once and once when it reads again, what lru_gen's ids are learnt from the first
 * histograms (cgroup ids only when three memcgs agree with their directories' inodes), and the
 * memory.reclaim capabilities probed by writes, or inferred in dry-run. */
#include "files-fixture.h"

#include "mglrud/core/lrugen-source.h"

struct tree {
        char dir[64], debugfs[96], cgroup[96];
        int debugfd, cgroupfd, mmfd;
        struct lrugen_source s;
        struct kernel_caps caps;
};

/* Sets t up: debug/ (debugfs, empty), mm/lru_gen/enabled (on), cgroup/ with a, b and c. */
static void tree_init(struct tree *t) {
        *t = (struct tree) { .dir = "/tmp/mglrud-test-probe.XXXXXX" };
        assert_non_null(mkdtemp(t->dir));
        snprintf(t->debugfs, sizeof t->debugfs, "%s/debug", t->dir);
        snprintf(t->cgroup, sizeof t->cgroup, "%s/cgroup", t->dir);
        int root = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(root >= 0);
        assert_int_equal(mkdirat(root, "debug", 0755), 0);
        assert_int_equal(mkdirat(root, "mm", 0755), 0);
        assert_int_equal(mkdirat(root, "mm/lru_gen", 0755), 0);
        assert_int_equal(mkdirat(root, "cgroup", 0755), 0);
        t->debugfd = openat(root, "debug", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        t->mmfd = openat(root, "mm/lru_gen", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        t->cgroupfd = openat(root, "cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(root);
        assert_true(t->debugfd >= 0 && t->mmfd >= 0 && t->cgroupfd >= 0);
        copy_fixture(t->mmfd, "enabled", "kernel-7.3/lru_gen-enabled");
        for (const char *n = "a\0b\0c\0"; *n; n += 2)
                assert_int_equal(mkdirat(t->cgroupfd, n, 0755), 0);
        lrugen_source_init(&t->s);
        log_lines_start();
}

static void tree_done(struct tree *t) {
        log_lines_stop();
        lrugen_source_done(&t->s);
        close(t->debugfd), close(t->mmfd), close(t->cgroupfd);
        assert_int_equal(rm_tree(t->dir), 0);
}

/* Returns the inode of cgroup/name, or fake when fake is not 0. */
static uint64_t id_of(struct tree *t, const char *name, uint64_t fake) {
        struct stat st;
        assert_int_equal(fstatat(t->cgroupfd, name, &st, 0), 0);
        return fake ? fake : st.st_ino;
}

/* Writes debug/file with a histogram of the root and memcgs a, b, c with the ids given. */
static void write_histogram(struct tree *t, const char *file, uint64_t a, uint64_t b,
                            uint64_t c) {
        char text[2048];
        size_t n = 0;
        const char *names[] = { "", "a", "b", "c" };
        uint64_t ids[] = { 1, a, b, c };
        for (unsigned i = 0; i < 4; i++)
                n += (size_t) snprintf(text + n, sizeof text - n,
                                       "memcg %llu /%s\n node     0\n"
                                       "          0      40996          0           0 \n"
                                       "          1      40996          0          36 \n"
                                       "          2      40996       6792           0 \n"
                                       "          3      40996          0           0 \n",
                                       (unsigned long long) ids[i], names[i]);
        write_at(t->debugfd, file, text);
}

/* Reads n cycles' histograms; each must be there, or not. */
static void read_cycles(struct tree *t, unsigned n, bool histogram) {
        for (unsigned i = 0; i < n; i++) {
                lrugen_source_read(&t->s, t->debugfs, t->cgroup);
                assert_true((lrugen_source_histogram(&t->s) != NULL) == histogram);
        }
}

static void test_open_files(void **state) {
        struct tree t;
        tree_init(&t);
        lrugen_source_open(&t.s, t.debugfs, false, &t.caps);
        assert_false(t.s.readable);
        assert_false(t.caps.lrugen_write);
        assert_int_equal(log_lines_with("No multi-gen LRU histogram"), 1);
        assert_int_equal(log_lines_with("lru_gen is not available"), 1);

        copy_fixture(t.debugfd, "lru_gen", "kernel-7.3/lru_gen");
        log_lines.n = 0;
        lrugen_source_open(&t.s, t.debugfs, true, &t.caps); /* dry-run: read only */
        assert_true(t.s.readable);
        assert_false(t.s.full);
        assert_false(t.caps.lrugen_write);
        assert_int_equal(t.s.write_fd, -1);
        assert_int_equal(log_lines.n, 0);

        copy_fixture(t.debugfd, "lru_gen_full", "kernel-7.3/lru_gen_full");
        lrugen_source_open(&t.s, t.debugfs, false, &t.caps);
        assert_true(t.s.readable);
        assert_true(t.s.full); /* the tier counters */
        assert_true(t.caps.lrugen_write);
        assert_true(t.s.write_fd >= 0);
        lrugen_source_read(&t.s, t.debugfs, t.cgroup);
        assert_non_null(lrugen_source_histogram(&t.s));
        assert_int_equal(log_lines.n, 0);
        tree_done(&t);
}

/* MGLRU off at run time: no histogram, said once; on again: said once, histogram back. */
static void test_switched_off(void **state) {
        struct tree t;
        tree_init(&t);
        copy_fixture(t.debugfd, "lru_gen", "kernel-7.3/lru_gen");
        lrugen_source_open(&t.s, t.debugfs, true, &t.caps);
        read_cycles(&t, 1, true);
        write_at(t.mmfd, "enabled", "0x0000\n");
        read_cycles(&t, 3, false);
        assert_true(t.s.off);
        assert_int_equal(log_lines_with("MGLRU was switched off"), 1);
        copy_fixture(t.mmfd, "enabled", "kernel-7.3/lru_gen-enabled");
        read_cycles(&t, 2, true);
        assert_int_equal(log_lines_with("MGLRU is on again"), 1);
        assert_int_equal(log_lines.n, 2);
        tree_done(&t);
}

/* A histogram that cannot be parsed: said once while it stays so, and once when it reads. */
static void test_malformed_said_once(void **state) {
        struct tree t;
        tree_init(&t);
        write_at(t.debugfd, "lru_gen", "memcg what\n");
        lrugen_source_open(&t.s, t.debugfs, true, &t.caps);
        read_cycles(&t, 3, false);
        assert_int_equal(log_lines.n, 1);
        assert_int_equal(log_lines_with("/lru_gen"), 1);
        copy_fixture(t.debugfd, "lru_gen", "kernel-7.3/lru_gen");
        read_cycles(&t, 2, true);
        assert_int_equal(log_lines_with("reads again"), 1);
        assert_int_equal(log_lines.n, 2);
        tree_done(&t);
}

/* Returns what the first histogram of lru_gen with memcgs a, b, c of these ids teaches. */
static enum lrugen_ids learn(struct tree *t, uint64_t a, uint64_t b, uint64_t c) {
        write_histogram(t, "lru_gen", a, b, c);
        lrugen_source_open(&t->s, t->debugfs, true, &t->caps);
        t->s.ids = LRUGEN_IDS_UNKNOWN;
        lrugen_source_read(&t->s, t->debugfs, t->cgroup);
        assert_non_null(lrugen_source_histogram(&t->s));
        return t->s.ids;
}

static void test_ids_learnt(void **state) {
        struct tree t;
        tree_init(&t);
        uint64_t a = id_of(&t, "a", 0), b = id_of(&t, "b", 0), c = id_of(&t, "c", 0);
        assert_int_equal(learn(&t, a, b, c), LRUGEN_IDS_CGROUP);
        /* Known: the next histograms are read without their paths. */
        lrugen_source_read(&t.s, t.debugfs, t.cgroup);
        assert_int_equal(t.s.ids, LRUGEN_IDS_CGROUP);
        assert_non_null(lrugen_source_histogram(&t.s));

        assert_int_equal(learn(&t, a, 7, c), LRUGEN_IDS_PRIVATE); /* one disagrees: 6.x */
        /* Two agree and the third is gone: not known yet. */
        assert_int_equal(unlinkat(t.cgroupfd, "c", AT_REMOVEDIR), 0);
        assert_int_equal(learn(&t, a, b, c), LRUGEN_IDS_UNKNOWN);
        tree_done(&t);
}

/* The capabilities: written probes outside dry-run (the last is "max"), inferred in dry-run
 * from the ids (64-bit ids came with "max"). */
static void test_probe_caps(void **state) {
        struct tree t;
        char buf[64];
        tree_init(&t);
        write_histogram(&t, "lru_gen", 100, 200, 70000);
        lrugen_source_open(&t.s, t.debugfs, true, &t.caps);
        lrugen_source_probe_caps(&t.s, t.debugfs, t.cgroup, true, &t.caps);
        assert_true(t.caps.page_size >= 4096);
        assert_true(t.caps.reclaim_swappiness);
        assert_true(t.caps.swappiness_max); /* an id above 65535 */
        write_histogram(&t, "lru_gen", 100, 200, 300);
        lrugen_source_probe_caps(&t.s, t.debugfs, t.cgroup, true, &t.caps);
        assert_false(t.caps.swappiness_max);

        /* Outside dry-run, without memory.reclaim: none, "max" inferred. */
        lrugen_source_probe_caps(&t.s, t.debugfs, t.cgroup, false, &t.caps);
        assert_false(t.caps.reclaim_swappiness);
        assert_false(t.caps.swappiness_max);
        write_at(t.cgroupfd, "memory.reclaim", "");
        lrugen_source_probe_caps(&t.s, t.debugfs, t.cgroup, false, &t.caps);
        assert_true(t.caps.reclaim_swappiness);
        assert_true(t.caps.swappiness_max);
        int fd = openat(t.cgroupfd, "memory.reclaim", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        assert_true(n > 0);
        buf[n] = 0;
        assert_string_equal(buf, "0 swappiness=max");
        tree_done(&t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_open_files),
                cmocka_unit_test(test_switched_off),
                cmocka_unit_test(test_malformed_said_once),
                cmocka_unit_test(test_ids_learnt),
                cmocka_unit_test(test_probe_caps),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
