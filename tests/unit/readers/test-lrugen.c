/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"
#include "mglrud/lrugen.h"
#include "mglrud/macro.h"

/* Parses from an exact-size heap copy so ASan sees any read past len. */
static int parse_exact(const char *s, size_t len, struct lrugen *l) {
        _cleanup_free_ char *copy = fixture_dup_exact(s, len);
        assert_non_null(copy);
        return lrugen_parse(copy, len, l);
}

static int parse_str(const char *s, struct lrugen *l) {
        return parse_exact(s, strlen(s), l);
}

static void load(const char *rel, struct lrugen *l) {
        _cleanup_(read_buf_free) struct read_buf b = {};
        assert_int_equal(fixture_read(rel, &b), 0);
        int r = parse_exact(b.data, b.len, l);
        if (r != 0)
                fail_msg("%s: %d", rel, r);
}

/* Checks what every successful parse promises. */
static void check_invariants(const struct lrugen *l) {
        for (size_t i = 0; i < l->n_lruvecs; i++) {
                const struct lrugen_lruvec *v = &l->lruvecs[i];
                assert_true(v->memcg_id != 0);
                assert_non_null(v->path);
                assert_true(v->path[0] == '/');
                assert_true(v->path >= l->paths && v->path < l->paths + l->paths_len);
                assert_in_range(v->nr_gens, 1, LRUGEN_MAX_NR_GENS);
                assert_true(v->nr_mm_stats == 0 || v->nr_mm_stats == 4 || v->nr_mm_stats == 6);
                for (unsigned g = 1; g < v->nr_gens; g++)
                        assert_true(v->gens[g].seq == v->gens[g - 1].seq + 1);
                if (i > 0) {
                        const struct lrugen_lruvec *p = &l->lruvecs[i - 1];
                        assert_true(p->memcg_id < v->memcg_id ||
                                    (p->memcg_id == v->memcg_id && p->node < v->node));
                }
        }
}

static const struct lrugen_lruvec *find(const struct lrugen *l, uint64_t id, int node) {
        const struct lrugen_lruvec *v = lrugen_find(l, id, node);
        if (!v)
                fail_msg("memcg %ju node %d not found", (uintmax_t) id, node);
        return v;
}

static void assert_gen(const struct lrugen_gen *g, uint64_t seq, uint32_t age, uint64_t anon,
                       uint64_t file) {
        assert_int_equal(g->seq, seq);
        assert_int_equal(g->age_ms, age);
        assert_int_equal(g->nr_pages[LRUGEN_ANON], anon);
        assert_int_equal(g->nr_pages[LRUGEN_FILE], file);
}

/* The G4/G3/G2 histograms of render-lrugen.py. */
static void assert_g4(const struct lrugen_lruvec *v) {
        assert_int_equal(v->nr_gens, 4);
        assert_gen(&v->gens[0], 101, 61234, 1024, 20480);
        assert_gen(&v->gens[1], 102, 31000, 512, 4096);
        assert_gen(&v->gens[2], 103, 1200, 2048, 1024);
        assert_gen(&v->gens[3], 104, 35, 100, 50);
}

static void assert_g3(const struct lrugen_lruvec *v) {
        assert_int_equal(v->nr_gens, 3);
        assert_gen(&v->gens[0], 7, 40000, 300, 0);
        assert_gen(&v->gens[1], 8, 9000, 200, 10);
        assert_gen(&v->gens[2], 9, 12, 50, 60);
}

static void assert_g2(const struct lrugen_lruvec *v) {
        assert_int_equal(v->nr_gens, 2);
        assert_gen(&v->gens[0], 3, 5000, 0, 0);
        assert_gen(&v->gens[1], 4, 4, 7, 8);
}

static void test_v7_nonfull(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        load("lrugen-7.x/lru_gen", &l);
        check_invariants(&l);
        assert_int_equal(l.n_lruvecs, 4);
        assert_false(l.full);
        assert_int_equal(l.format, LRUGEN_FORMAT_UNKNOWN);

        const struct lrugen_lruvec *v = find(&l, 1, 0);
        assert_string_equal(v->path, "/");
        assert_g4(v);
        for (unsigned g = 0; g < v->nr_gens; g++) {
                assert_false(v->gens[g].has_tiers);
                assert_false(v->gens[g].gone[LRUGEN_ANON] || v->gens[g].gone[LRUGEN_FILE]);
        }
        assert_int_equal(v->nr_mm_stats, 0);
        assert_ptr_equal(&l.lruvecs[0], v);

        v = find(&l, 4242, 0);
        assert_string_equal(v->path, "/system.slice");
        assert_g3(v);
        v = find(&l, UINT64_C(4294967297), 0);
        assert_string_equal(v->path, "/system.slice/my app.service");
        assert_g2(v);
        v = find(&l, UINT64_MAX, 0);
        assert_string_equal(v->path, "/user.slice/ trailing space ");
        assert_g3(v);

        assert_null(lrugen_find(&l, 1, 1));
        assert_null(lrugen_find(&l, 2, 0));
        assert_ptr_equal(lrugen_find_path(&l, "/system.slice/my app.service"), lrugen_find(&l, UINT64_C(4294967297), 0));
        assert_null(lrugen_find_path(&l, "/system.slice/my"));
}

static void test_v7_two_nodes(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};
        const struct lrugen_lruvec *first = NULL;

        load("lrugen-7.x/lru_gen.two-nodes", &l);
        check_invariants(&l);
        assert_int_equal(l.n_lruvecs, 4);
        assert_g4(find(&l, 1, 0));
        assert_g2(find(&l, 1, 1));
        assert_string_equal(find(&l, 1, 1)->path, "/");
        assert_int_equal(lrugen_find_memcg(&l, 77, &first), 2);
        assert_ptr_equal(first, find(&l, 77, 0));
        assert_int_equal(first[1].node, 1);
        assert_string_equal(first[1].path, "/a b/c  d");
        assert_g3(&first[1]);
        first = NULL;
        assert_int_equal(lrugen_find_memcg(&l, 78, &first), 0);
        assert_null(first);
        assert_int_equal(lrugen_find_memcg(&l, 0, NULL), 0);
}

static void test_duplicates(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        load("lrugen-7.x/lru_gen.duplicates", &l);
        check_invariants(&l);
        assert_int_equal(l.n_lruvecs, 3);
        const struct lrugen_lruvec *v = find(&l, 77, 0);
        assert_string_equal(v->path, "/new"); /* the later copy wins */
        assert_int_equal(v->nr_gens, 2);
        assert_gen(&v->gens[0], 8, 9500, 1, 2);
        assert_gen(&v->gens[1], 9, 13, 3, 4);
        assert_g2(find(&l, 90, 0));
        assert_null(lrugen_find_path(&l, "/old"));

        load("lrugen-6.1/lru_gen.duplicates", &l);
        check_invariants(&l);
        assert_int_equal(l.n_lruvecs, 2);
        assert_g3(find(&l, 1, 0));
        assert_g2(find(&l, 5, 0));
}

static void test_memcg_disabled(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        load("lrugen-7.x/lru_gen.memcg-disabled", &l);
        assert_int_equal(l.n_lruvecs, 0);
        load("lrugen-6.1/lru_gen.memcg-disabled", &l);
        assert_int_equal(l.n_lruvecs, 0);
        assert_null(lrugen_find(&l, 0, 0));
}

static void test_v7_full(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        load("lrugen-7.x/lru_gen_full", &l);
        check_invariants(&l);
        assert_true(l.full);
        assert_int_equal(l.format, LRUGEN_FORMAT_V7);
        assert_int_equal(l.n_lruvecs, 2);

        /* min_seq: anon 102, file 101 */
        const struct lrugen_lruvec *v = find(&l, 1, 0);
        assert_g4(v);
        assert_true(v->gens[0].gone[LRUGEN_ANON]);
        assert_false(v->gens[0].gone[LRUGEN_FILE]);
        for (unsigned g = 1; g < 4; g++)
                assert_false(v->gens[g].gone[LRUGEN_ANON] || v->gens[g].gone[LRUGEN_FILE]);
        for (unsigned g = 0; g < 4; g++)
                assert_true(v->gens[g].has_tiers);

        /* gen 101: file is at min_seq (rep), anon has nothing (xxx) */
        const struct lrugen_tier *t = &v->gens[0].tiers[2];
        assert_int_equal(t->kind[LRUGEN_ANON], LRUGEN_TIER_NONE);
        assert_int_equal(t->kind[LRUGEN_FILE], LRUGEN_TIER_REP);
        assert_int_equal(t->val[LRUGEN_FILE][0], 220);
        assert_int_equal(t->val[LRUGEN_FILE][1], 221);
        assert_int_equal(t->val[LRUGEN_FILE][2], 222);
        /* gen 102: anon min_seq */
        t = &v->gens[1].tiers[3];
        assert_int_equal(t->kind[LRUGEN_ANON], LRUGEN_TIER_REP);
        assert_int_equal(t->val[LRUGEN_ANON][2], 132);
        assert_int_equal(t->kind[LRUGEN_FILE], LRUGEN_TIER_NONE);
        assert_int_equal(v->gens[2].tiers[0].kind[LRUGEN_ANON], LRUGEN_TIER_NONE);
        /* max_seq: R T x */
        t = &v->gens[3].tiers[1];
        assert_int_equal(t->kind[LRUGEN_ANON], LRUGEN_TIER_RT);
        assert_int_equal(t->kind[LRUGEN_FILE], LRUGEN_TIER_RT);
        assert_int_equal(t->val[LRUGEN_ANON][0], 110);
        assert_int_equal(t->val[LRUGEN_ANON][1], 111);
        assert_int_equal(t->val[LRUGEN_ANON][2], 0);
        assert_int_equal(t->val[LRUGEN_FILE][1], 211);

        assert_int_equal(v->nr_mm_stats, 4);
        assert_int_equal(v->mm_stats[0], 123456);
        assert_int_equal(v->mm_stats[1], 2345);
        assert_int_equal(v->mm_stats[2], 800);
        assert_int_equal(v->mm_stats[3], 120);

        /* A young lruvec: seq 0..3, min_seq anon 0, file 1. */
        v = find(&l, UINT64_C(4294967297), 0);
        assert_string_equal(v->path, "/system.slice/my app.service");
        assert_int_equal(v->nr_gens, 4);
        assert_gen(&v->gens[0], 0, 90000, 10, 0);
        assert_false(v->gens[0].gone[LRUGEN_ANON]);
        assert_true(v->gens[0].gone[LRUGEN_FILE]);
        assert_int_equal(lrugen_max_seq(v), 3);
}

static void test_v7_full_variants(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        load("lrugen-7.x/lru_gen_full.no-mm", &l);
        check_invariants(&l);
        assert_true(l.full);
        assert_int_equal(l.format, LRUGEN_FORMAT_V7);
        assert_int_equal(find(&l, 1, 0)->nr_mm_stats, 0);
        assert_g4(find(&l, 1, 0));

        /* CONFIG_LRU_GEN_STATS: rep on every older generation, lowercase mm lines (not kept). */
        load("lrugen-7.x/lru_gen_full.stats", &l);
        check_invariants(&l);
        const struct lrugen_lruvec *v = find(&l, 1, 0);
        assert_int_equal(v->nr_mm_stats, 0);
        for (unsigned g = 0; g < 3; g++)
                for (int tier = 0; tier < LRUGEN_MAX_NR_TIERS; tier++)
                        assert_int_equal(v->gens[g].tiers[tier].kind[LRUGEN_FILE], LRUGEN_TIER_REP);
        assert_int_equal(v->gens[3].tiers[0].kind[LRUGEN_FILE], LRUGEN_TIER_RT);
        assert_true(v->gens[0].gone[LRUGEN_FILE] && v->gens[1].gone[LRUGEN_FILE]);
        assert_false(v->gens[2].gone[LRUGEN_FILE]);
}

static void test_v61(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        load("lrugen-6.1/lru_gen", &l);
        check_invariants(&l);
        assert_false(l.full);
        assert_int_equal(l.n_lruvecs, 3); /* the id-0 zombie is dropped */
        assert_g4(find(&l, 1, 0));
        assert_string_equal(find(&l, 1, 0)->path, "/");
        assert_g3(find(&l, 12, 0));
        assert_string_equal(find(&l, 65535, 0)->path, "/system.slice/my app.service");
        assert_null(lrugen_find(&l, 0, 0));
        assert_null(lrugen_find_path(&l, "/system.slice/gone.service"));
}

static void test_v61_full(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        load("lrugen-6.1/lru_gen_full", &l);
        check_invariants(&l);
        assert_true(l.full);
        assert_int_equal(l.format, LRUGEN_FORMAT_V6);
        assert_int_equal(l.n_lruvecs, 3);

        /* min_seq anon 101, file 102 */
        const struct lrugen_lruvec *v = find(&l, 1, 0);
        assert_g4(v);
        assert_false(v->gens[0].gone[LRUGEN_ANON]);
        assert_true(v->gens[0].gone[LRUGEN_FILE]);
        assert_int_equal(v->gens[0].tiers[0].kind[LRUGEN_ANON], LRUGEN_TIER_REP);
        assert_int_equal(v->gens[0].tiers[0].val[LRUGEN_ANON][2], 0); /* 6.1: protected[tier - 1] */
        assert_int_equal(v->gens[0].tiers[1].val[LRUGEN_ANON][2], 112);
        assert_int_equal(v->gens[0].tiers[0].kind[LRUGEN_FILE], LRUGEN_TIER_NONE);
        assert_int_equal(v->gens[1].tiers[2].kind[LRUGEN_FILE], LRUGEN_TIER_REP);
        assert_int_equal(v->gens[3].tiers[3].kind[LRUGEN_ANON], LRUGEN_TIER_RT);
        assert_int_equal(v->gens[3].tiers[3].val[LRUGEN_ANON][0], 130);
        assert_int_equal(v->gens[3].tiers[3].val[LRUGEN_ANON][1], 131);
        assert_int_equal(v->nr_mm_stats, 6);
        const uint64_t loynfa[] = { 123456, 100000, 2345, 900, 800, 120 };
        for (int i = 0; i < 6; i++)
                assert_int_equal(v->mm_stats[i], loynfa[i]);

        assert_int_equal(lrugen_find_memcg(&l, 3, NULL), 2);
        assert_string_equal(find(&l, 3, 1)->path, "/with space");
        assert_null(lrugen_find_path(&l, "/dying"));
}

static void test_helpers(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        load("lrugen-7.x/lru_gen_full", &l);
        const struct lrugen_lruvec *v = find(&l, 1, 0);
        assert_int_equal(lrugen_max_seq(v), 104);
        /* ages 61234 31000 1200 35; anon of 101 is gone (x) */
        assert_int_equal(lrugen_pages_older_than(v, LRUGEN_ANON, 0), 512 + 2048 + 100);
        assert_int_equal(lrugen_pages_older_than(v, LRUGEN_FILE, 0), 20480 + 4096 + 1024 + 50);
        assert_int_equal(lrugen_pages_older_than(v, LRUGEN_FILE, 31000), 20480 + 4096);
        assert_int_equal(lrugen_pages_older_than(v, LRUGEN_FILE, 31001), 20480);
        assert_int_equal(lrugen_pages_older_than(v, LRUGEN_ANON, 31001), 0);
        assert_int_equal(lrugen_pages_older_than(v, LRUGEN_FILE, UINT32_MAX), 0);
        assert_int_equal(lrugen_pages_older_than(v, _LRUGEN_NR_TYPES, 0), 0);
}

static void test_boundaries(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        assert_int_equal(parse_str("memcg 1 /\n node     0\n 1 4294967295 18446744073709551615 0 \n", &l), 0);
        const struct lrugen_lruvec *v = find(&l, 1, 0);
        assert_int_equal(v->gens[0].age_ms, UINT32_MAX);
        assert_true(v->gens[0].nr_pages[LRUGEN_ANON] == UINT64_MAX);
        assert_int_equal(lrugen_pages_older_than(v, LRUGEN_ANON, 0), UINT64_MAX);

        /* Fields wider than %10lu shift columns; tokens still line up. */
        assert_int_equal(parse_str("memcg 1 /\n node 2147483647\n 12345678901 1 22345678901x 3\n", &l), 0);
        v = find(&l, 1, INT32_MAX);
        assert_int_equal(v->gens[0].seq, UINT64_C(12345678901));
        assert_true(v->gens[0].gone[LRUGEN_ANON]);

        /* A path that is one character, a path full of odd bytes. */
        assert_int_equal(parse_str("memcg 7 /a\tb\x01\xff\n node 0\n 1 2 3 4\n", &l), 0);
        assert_string_equal(find(&l, 7, 0)->path, "/a\tb\x01\xff");
}

static void test_reuse(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        for (int i = 0; i < 3; i++) {
                load("lrugen-7.x/lru_gen", &l);
                assert_int_equal(l.n_lruvecs, 4);
                load("lrugen-6.1/lru_gen_full", &l);
                assert_int_equal(l.n_lruvecs, 3);
                assert_string_equal(find(&l, 3, 0)->path, "/with space");
                /* A failed parse leaves it empty, not half-filled or stale. */
                assert_int_equal(parse_str("memcg 1 /\n node     0\n", &l), -EINVAL);
                assert_int_equal(l.n_lruvecs, 0);
                assert_false(l.full);
                assert_int_equal(l.format, LRUGEN_FORMAT_UNKNOWN);
                assert_null(lrugen_find(&l, 1, 0));
        }
        lrugen_done(&l);
        lrugen_done(&l);
        lrugen_done(NULL);
}

static void test_read(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};
        _cleanup_(read_buf_free) struct read_buf text = {}, buf = {};

        assert_int_equal(fixture_read("lrugen-7.x/lru_gen_full", &text), 0);
        int fd = fixture_memfd(text.data, text.len);
        assert_true(fd >= 0);
        for (int i = 0; i < 2; i++) {
                assert_int_equal(lrugen_read(fd, &buf, &l), 0);
                assert_int_equal(l.n_lruvecs, 2);
                assert_g4(find(&l, 1, 0));
        }
        close(fd);
        assert_int_equal(lrugen_read(fd, &buf, &l), -EBADF);
        assert_int_equal(l.n_lruvecs, 0);
}

#define GEN7 "       101      61234       1024       20480 \n"
#define REC7 "memcg 1 /\n node     0\n" GEN7

static void test_malformed(void **state) {
        static const char *const bad[] = {
                "",
                "\n",
                "garbage\n",
                "memcg 1 /\n",                                       /* no node */
                "memcg 1 /\n node     0\n",                          /* no generation */
                " node     0\n" GEN7,                                /* node before memcg */
                GEN7,
                "memcg 1 /\n node     0\n       101      61234       1024       20480 ", /* cut */
                "memcg 1 /\n node     0\n       101      61234       1024",
                "memcg 1 /\n memcg 2 /\n node     0\n" GEN7,
                "memcg 1 /\nmemcg 2 /\n node     0\n" GEN7,
                "memcg 1 /\n" GEN7,
                /* memcg lines */
                "memcg1 /\n node     0\n" GEN7,
                "memcg  /\n node     0\n" GEN7,
                "memcg 1/\n node     0\n" GEN7,
                "memcg 1\n node     0\n" GEN7,
                "memcg 1 \n node     0\n" GEN7,                      /* live memcg without path */
                "memcg 1 relative\n node     0\n" GEN7,
                "memcg -1 /\n node     0\n" GEN7,
                "memcg 1x /\n node     0\n" GEN7,
                "memcg 18446744073709551616 /\n node     0\n" GEN7,
                "Memcg 1 /\n node     0\n" GEN7,
                /* node lines */
                "memcg 1 /\n node\n" GEN7,
                "memcg 1 /\n node x\n" GEN7,
                "memcg 1 /\n node     0x\n" GEN7,
                "memcg 1 /\n node     0 1\n" GEN7,
                "memcg 1 /\n node -1\n" GEN7,
                "memcg 1 /\n node 2147483648\n" GEN7,
                "memcg 1 /\n nodes 0\n" GEN7,
                "memcg 1 /\n node     0\n node     1\n" GEN7,
                /* generation lines */
                REC7 "       102      61234       1024 \n",
                REC7 "       102      61234       1024       20480     7 \n",
                REC7 "       102 4294967296       1024       20480 \n",
                REC7 "       102      61234 18446744073709551616 20480 \n",
                REC7 "18446744073709551616 1 2 3\n",
                REC7 "       102      61234       1024y      20480 \n",
                REC7 "       102      61234       1024xx     20480 \n",
                REC7 "       102      61234x      1024       20480 \n",
                REC7 "       102x     61234       1024       20480 \n",
                REC7 "       103      61234       1024       20480 \n",  /* gap */
                REC7 "       101      61234       1024       20480 \n",  /* repeated */
                REC7 "       100      61234       1024       20480 \n",  /* backwards */
                REC7 " 102 1 1 1 \n 103 1 1 1 \n 104 1 1 1 \n 105 1 1 1 \n", /* 5 gens */
                REC7 "       102     -61234       1024       20480 \n",
                REC7 "       102      61234       1024       20480\t\n",
                REC7 "       102      61234       1024       20480 \r\n",
                REC7 "       102      61234       1.24       20480 \n",
                REC7 "\n",
                REC7 "x\n",
                /* tier and mm lines out of place */
                REC7 "                     0          0R          0T          0x          0R          0T          0x\n",
                "memcg 1 /\n node     0\n                     0          0R          0T          0x          0R          0T          0x\n",
                REC7 "                          1T 2Y 3F 4A\n",
                REC7 " 1 2 3 4 5 6\n",
                REC7 " 1 2 3 4 5 6 7 8\n",
        };
        _cleanup_(lrugen_done) struct lrugen l = {};

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                /* Start from a populated result: a failure must leave it empty. */
                load("lrugen-7.x/lru_gen", &l);
                int r = parse_str(bad[i], &l);
                if (r != -EINVAL)
                        fail_msg("case %zu gave %d: \"%s\"", i, r, bad[i]);
                assert_int_equal(l.n_lruvecs, 0);
        }
        /* Embedded NULs, which strlen() above could not express. */
        static const char nul_gen[] = "memcg 1 /\n node     0\n       101      61234       1024       20480\0\n";
        static const char nul_path[] = "memcg 1 /a\0b\n node     0\n 1 2 3 4\n";
        assert_int_equal(parse_exact(nul_gen, sizeof(nul_gen) - 1, &l), -EINVAL);
        assert_int_equal(parse_exact(nul_path, sizeof(nul_path) - 1, &l), -EINVAL);
        assert_int_equal(lrugen_parse(NULL, 0, &l), -EINVAL);
}

/* Splits text into lines (each with its '\n'). */
static size_t split_lines(const struct read_buf *b, const char **lines, size_t *lens, size_t max) {
        size_t n = 0;
        for (size_t p = 0; p < b->len && n < max;) {
                const char *nl = memchr(b->data + p, '\n', b->len - p);
                size_t l = nl ? (size_t) (nl - b->data) - p + 1 : b->len - p;
                lines[n] = b->data + p;
                lens[n++] = l;
                p += l;
        }
        return n;
}

/* Builds the text of lines with line `skip` dropped (skip < n) and line `twice` doubled. */
static size_t join(char *out, const char **lines, const size_t *lens, size_t n, size_t skip,
                   size_t twice, size_t swap) {
        size_t len = 0;
        for (size_t i = 0; i < n; i++) {
                size_t src = i;
                if (swap < n - 1 && i == swap)
                        src = swap + 1;
                else if (swap < n - 1 && i == swap + 1)
                        src = swap;
                if (src == skip)
                        continue;
                for (int k = 0; k < (src == twice ? 2 : 1); k++) {
                        memcpy(out + len, lines[src], lens[src]);
                        len += lens[src];
                }
        }
        return len;
}

/* In lru_gen_full every line is tied to its neighbours (tier numbers, seq order, mm line
 * counts): dropping, doubling or swapping any one line other than a memcg line must fail. */
static void mutate_full(const char *rel) {
        _cleanup_(read_buf_free) struct read_buf b = {};
        _cleanup_(lrugen_done) struct lrugen l = {};
        const char *lines[256];
        size_t lens[256];

        assert_int_equal(fixture_read(rel, &b), 0);
        size_t n = split_lines(&b, lines, lens, ELEMENTSOF(lines));
        assert_true(n < ELEMENTSOF(lines));
        _cleanup_free_ char *out = malloc(b.len * 2 + 1);
        assert_non_null(out);

        for (size_t i = 0; i < n; i++) {
                bool is_memcg = lens[i] >= 5 && memcmp(lines[i], "memcg", 5) == 0;
                size_t len = join(out, lines, lens, n, i, SIZE_MAX, SIZE_MAX);
                if (!is_memcg && parse_exact(out, len, &l) != -EINVAL)
                        fail_msg("%s: dropping line %zu was accepted", rel, i + 1);
                len = join(out, lines, lens, n, SIZE_MAX, i, SIZE_MAX);
                if (parse_exact(out, len, &l) != -EINVAL)
                        fail_msg("%s: doubling line %zu was accepted", rel, i + 1);
                if (i + 1 < n && (lens[i] != lens[i + 1] || memcmp(lines[i], lines[i + 1], lens[i]) != 0)) {
                        len = join(out, lines, lens, n, SIZE_MAX, SIZE_MAX, i);
                        if (parse_exact(out, len, &l) != -EINVAL)
                                fail_msg("%s: swapping lines %zu and %zu was accepted", rel, i + 1, i + 2);
                }
        }
}

static void test_mutations_full(void **state) {
        mutate_full("lrugen-7.x/lru_gen_full");
        mutate_full("lrugen-7.x/lru_gen_full.no-mm");
        mutate_full("lrugen-7.x/lru_gen_full.stats");
        mutate_full("lrugen-6.1/lru_gen_full");
}

/* Mixing 6.1 and 7.x placeholders, or misplacing R/T and uppercase mm lines, is rejected. */
static void test_mixed_formats(void **state) {
        _cleanup_(read_buf_free) struct read_buf b = {};
        _cleanup_(lrugen_done) struct lrugen l = {};
        static const struct {
                const char *from, *to;
        } edits[] = {
                { "0x          0x          0x\n", "0           0           0 \n" }, /* xxx -> blank */
                { "0x        200R", "0         200R" },                              /* RTx -> RT  */
                { "201T          0x", "201T          0 " },
                { "123456T       2345Y        800F        120A", "123456t       2345y        800f        120a" },
                { "123456T", "123456X" },
                { "        200R        201T", "        200r        201e" },           /* rep on max_seq */
                { "        100r        101e        102p", "        100R        101T          0x" },
                { "        100r        101e        102p", "        100r        101p        102e" },
        };

        assert_int_equal(fixture_read("lrugen-7.x/lru_gen_full", &b), 0);
        for (size_t i = 0; i < ELEMENTSOF(edits); i++) {
                _cleanup_free_ char *t = strdup(b.data);
                assert_non_null(t);
                char *p = strstr(t, edits[i].from);
                if (!p)
                        fail_msg("edit %zu does not apply", i);
                assert_int_equal(strlen(edits[i].from), strlen(edits[i].to));
                memcpy(p, edits[i].to, strlen(edits[i].to));
                if (parse_exact(t, strlen(t), &l) != -EINVAL)
                        fail_msg("edit %zu was accepted", i);
        }

        /* 6.1 LOYNFA uppercase on a non-max generation. */
        assert_int_equal(fixture_read("lrugen-6.1/lru_gen_full", &b), 0);
        _cleanup_free_ char *t = strdup(b.data);
        assert_non_null(t);
        char *p = strstr(t, "          0           0           0           0           0           0 \n");
        assert_non_null(p);
        memcpy(p, "          1L          2O          3Y          4N          5F          6A\n", 73);
        assert_int_equal(parse_exact(t, strlen(t), &l), -EINVAL);
}

/* Any byte of a non-memcg line turned into 'Z' (not a suffix letter), and any cut inside a
 * line, is rejected; cuts between lines never crash and keep the invariants. */
static void test_corruption(void **state) {
        static const char *const files[] = {
                "lrugen-7.x/lru_gen", "lrugen-7.x/lru_gen_full", "lrugen-7.x/lru_gen.two-nodes",
                "lrugen-6.1/lru_gen", "lrugen-6.1/lru_gen_full", "lrugen-7.x/lru_gen_full.stats",
        };
        _cleanup_(lrugen_done) struct lrugen l = {};

        for (size_t f = 0; f < ELEMENTSOF(files); f++) {
                _cleanup_(read_buf_free) struct read_buf b = {};
                assert_int_equal(fixture_read(files[f], &b), 0);
                _cleanup_free_ char *t = malloc(b.len);
                assert_non_null(t);

                bool in_memcg = false;
                for (size_t i = 0; i < b.len; i++) {
                        if (i == 0 || b.data[i - 1] == '\n')
                                in_memcg = memcmp(b.data + i, "memcg", 5) == 0;
                        int r = parse_exact(b.data, i, &l);
                        if (i > 0 && b.data[i - 1] == '\n') {
                                if (r == 0)
                                        check_invariants(&l);
                        } else if (r != -EINVAL)
                                fail_msg("%s: cut at %zu gave %d", files[f], i, r);

                        if (in_memcg && b.data[i] != '\n')
                                continue; /* paths may hold any byte */
                        memcpy(t, b.data, b.len);
                        t[i] = 'Z';
                        r = parse_exact(t, b.len, &l);
                        if (r != -EINVAL)
                                fail_msg("%s: 'Z' at %zu gave %d", files[f], i, r);
                }
        }
}

/* Real captures from the 7.3 kernel in the VM (tests/fixtures/kernel-7.3, filled by the VM
 * work; skipped while absent). Checked against the capture's own cgroup-inodes.txt, "inode
 * path" per cgroup directory: on 7.x the lru_gen id is the cgroup inode. */
static void check_against_inodes(const struct lrugen *l) {
        _cleanup_(read_buf_free) struct read_buf b = {};
        size_t n = 0;

        assert_int_equal(fixture_read("kernel-7.3/cgroup-inodes.txt", &b), 0);
        for (char *line = b.data; line && *line;) {
                char *nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                char *sp = strchr(line, ' ');
                assert_non_null(sp);
                *sp = '\0';
                uint64_t ino = strtoull(line, NULL, 10);
                const struct lrugen_lruvec *v = find(l, ino, 0);
                assert_string_equal(v->path, sp + 1);
                assert_ptr_equal(lrugen_find_path(l, sp + 1), v);
                n++;
                line = nl ? nl + 1 : NULL;
        }
        assert_true(n > 0);
        assert_int_equal(l->n_lruvecs, n); /* one node, one lruvec per cgroup */
}

static void test_kernel_73(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        if (!fixture_exists("kernel-7.3/lru_gen") || !fixture_exists("kernel-7.3/cgroup-inodes.txt"))
                skip();

        load("kernel-7.3/lru_gen", &l);
        check_invariants(&l);
        assert_false(l.full);
        check_against_inodes(&l);
        assert_string_equal(find(&l, 1, 0)->path, "/");
        /* The cgroup with a space in its name, which the capture was built around. */
        assert_non_null(lrugen_find_path(&l, "/work load.slice/a b"));

        if (!fixture_exists("kernel-7.3/lru_gen_full"))
                return;
        load("kernel-7.3/lru_gen_full", &l);
        check_invariants(&l);
        assert_true(l.full);
        assert_int_equal(l.format, LRUGEN_FORMAT_V7);
        check_against_inodes(&l);
        for (size_t i = 0; i < l.n_lruvecs; i++) {
                const struct lrugen_lruvec *v = &l.lruvecs[i];
                /* Debian: LRU_GEN_WALKS_MMU=y, LRU_GEN_STATS=n: TYFA on max_seq, always 4 gens. */
                assert_int_equal(v->nr_mm_stats, 4);
                assert_int_equal(v->nr_gens, LRUGEN_MAX_NR_GENS);
                for (int tier = 0; tier < LRUGEN_MAX_NR_TIERS; tier++)
                        assert_int_equal(v->gens[v->nr_gens - 1].tiers[tier].kind[LRUGEN_ANON], LRUGEN_TIER_RT);
        }
        /* "a b" was reclaimed with swappiness=max: anon evictions show up in its tiers. */
        const struct lrugen_lruvec *ab = lrugen_find_path(&l, "/work load.slice/a b");
        assert_non_null(ab);
        uint64_t evicted = 0;
        for (unsigned g = 0; g < ab->nr_gens; g++)
                for (int tier = 0; tier < LRUGEN_MAX_NR_TIERS; tier++)
                        if (ab->gens[g].tiers[tier].kind[LRUGEN_ANON] == LRUGEN_TIER_REP)
                                evicted += ab->gens[g].tiers[tier].val[LRUGEN_ANON][1];
        assert_true(evicted > 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_v7_nonfull),
                cmocka_unit_test(test_v7_two_nodes),
                cmocka_unit_test(test_duplicates),
                cmocka_unit_test(test_memcg_disabled),
                cmocka_unit_test(test_v7_full),
                cmocka_unit_test(test_v7_full_variants),
                cmocka_unit_test(test_v61),
                cmocka_unit_test(test_v61_full),
                cmocka_unit_test(test_helpers),
                cmocka_unit_test(test_boundaries),
                cmocka_unit_test(test_reuse),
                cmocka_unit_test(test_read),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_mutations_full),
                cmocka_unit_test(test_mixed_formats),
                cmocka_unit_test(test_corruption),
                cmocka_unit_test(test_kernel_73),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
