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

#include "lrugen-helpers.h"

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
        assert_string_equal(lrugen_path(&l, v), "/");
        assert_g4(v);
        for (unsigned g = 0; g < v->nr_gens; g++) {
                assert_false(v->gens[g].has_tiers);
                assert_false(v->gens[g].gone[LRUGEN_ANON] || v->gens[g].gone[LRUGEN_FILE]);
        }
        assert_int_equal(v->file_tiers_gen, -1);
        assert_ptr_equal(&l.lruvecs[0], v);

        v = find(&l, 4242, 0);
        assert_string_equal(lrugen_path(&l, v), "/system.slice");
        assert_g3(v);
        v = find(&l, UINT64_C(4294967297), 0);
        assert_string_equal(lrugen_path(&l, v), "/system.slice/my app.service");
        assert_g2(v);
        v = find(&l, UINT64_MAX, 0);
        assert_string_equal(lrugen_path(&l, v), "/user.slice/ trailing space ");
        assert_g3(v);

        assert_null(lookup(&l, 1, 1));
        assert_null(lookup(&l, 2, 0));
        assert_ptr_equal(lrugen_find_path(&l, "/system.slice/my app.service"), lookup(&l, UINT64_C(4294967297), 0));
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
        assert_string_equal(lrugen_path(&l, find(&l, 1, 1)), "/");
        assert_int_equal(lrugen_find_memcg(&l, 77, &first), 2);
        assert_ptr_equal(first, find(&l, 77, 0));
        assert_int_equal(first[1].node, 1);
        assert_string_equal(lrugen_path(&l, &first[1]), "/a b/c  d");
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
        assert_string_equal(lrugen_path(&l, v), "/new"); /* the later copy wins */
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
        assert_null(lookup(&l, 0, 0));
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

        /* gen 101 (index 0): file is at min_seq (rep), anon has nothing (xxx); gen 102: anon
         * min_seq. The r/e counts of those generations are kept, p and the R/T averages of
         * max_seq and the TYFA line are checked, not kept. */
        assert_int_equal(v->file_tiers_gen, 0);
        for (int tier = 0; tier < LRUGEN_MAX_NR_TIERS; tier++) {
                assert_int_equal(v->file_tiers.refaulted[tier], 200 + 10 * tier);
                assert_int_equal(v->file_tiers.evicted[tier], 201 + 10 * tier);
        }

        /* A young lruvec: seq 0..3, min_seq anon 0, file 1. */
        v = find(&l, UINT64_C(4294967297), 0);
        assert_string_equal(lrugen_path(&l, v), "/system.slice/my app.service");
        assert_int_equal(v->nr_gens, 4);
        assert_gen(&v->gens[0], 0, 90000, 10, 0);
        assert_false(v->gens[0].gone[LRUGEN_ANON]);
        assert_true(v->gens[0].gone[LRUGEN_FILE]);
        assert_int_equal(v->gens[v->nr_gens - 1].seq, 3);
}

static void test_v7_full_variants(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        load("lrugen-7.x/lru_gen_full.no-mm", &l);
        check_invariants(&l);
        assert_true(l.full);
        assert_int_equal(l.format, LRUGEN_FORMAT_V7);
        assert_int_equal(find(&l, 1, 0)->file_tiers_gen, 0);
        assert_g4(find(&l, 1, 0));

        /* CONFIG_LRU_GEN_STATS: rep on every older generation, lowercase mm lines (not kept). */
        load("lrugen-7.x/lru_gen_full.stats", &l);
        check_invariants(&l);
        const struct lrugen_lruvec *v = find(&l, 1, 0);
        /* r/e on gens 0..2: the oldest is the type's min_seq, the one kept. */
        assert_int_equal(v->file_tiers_gen, 0);
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
        assert_string_equal(lrugen_path(&l, find(&l, 1, 0)), "/");
        assert_g3(find(&l, 12, 0));
        assert_string_equal(lrugen_path(&l, find(&l, 65535, 0)), "/system.slice/my app.service");
        assert_null(lookup(&l, 0, 0));
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
        assert_int_equal(v->file_tiers_gen, 1);
        assert_int_equal(v->file_tiers.refaulted[2], 220);
        assert_int_equal(v->file_tiers.evicted[3], 231);

        assert_int_equal(lrugen_find_memcg(&l, 3, NULL), 2);
        assert_string_equal(lrugen_path(&l, find(&l, 3, 1)), "/with space");
        assert_null(lrugen_find_path(&l, "/dying"));
}

static void test_boundaries(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        assert_int_equal(parse_str("memcg 1 /\n node     0\n 1 4294967295 18446744073709551615 0 \n", &l), 0);
        const struct lrugen_lruvec *v = find(&l, 1, 0);
        assert_int_equal(v->gens[0].age_ms, UINT32_MAX);
        assert_true(v->gens[0].nr_pages[LRUGEN_ANON] == UINT64_MAX);

        /* Fields wider than %10lu shift columns; tokens still line up. */
        assert_int_equal(parse_str("memcg 1 /\n node 2147483647\n 12345678901 1 22345678901x 3\n", &l), 0);
        v = find(&l, 1, INT32_MAX);
        assert_int_equal(v->gens[0].seq, UINT64_C(12345678901));
        assert_true(v->gens[0].gone[LRUGEN_ANON]);

        /* A path that is one character, a path full of odd bytes. */
        assert_int_equal(parse_str("memcg 7 /a\tb\x01\xff\n node 0\n 1 2 3 4\n", &l), 0);
        assert_string_equal(lrugen_path(&l, find(&l, 7, 0)), "/a\tb\x01\xff");
}

static void test_reuse(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};

        for (int i = 0; i < 3; i++) {
                load("lrugen-7.x/lru_gen", &l);
                assert_int_equal(l.n_lruvecs, 4);
                load("lrugen-6.1/lru_gen_full", &l);
                assert_int_equal(l.n_lruvecs, 3);
                assert_string_equal(lrugen_path(&l, find(&l, 3, 0)), "/with space");
                /* A failed parse leaves it empty, not half-filled or stale. */
                assert_int_equal(parse_str("memcg 1 /\n node     0\n", &l), -EINVAL);
                assert_int_equal(l.n_lruvecs, 0);
                assert_false(l.full);
                assert_int_equal(l.format, LRUGEN_FORMAT_UNKNOWN);
                assert_null(lookup(&l, 1, 0));
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
                assert_int_equal(lrugen_read(fd, &buf, 0, &l), 0);
                assert_int_equal(l.n_lruvecs, 2);
                assert_g4(find(&l, 1, 0));
        }
        close(fd);
        assert_int_equal(lrugen_read(fd, &buf, 0, &l), -EBADF);
        assert_int_equal(l.n_lruvecs, 0);
}

/* Appends one lru_gen_full record of memcg id at path (one node, four generations, r/e/p on the
 * oldest, R/T and TYFA on max_seq, like the 7.x kernel prints) to t. */
static void add_record(struct read_buf *t, uint64_t id, const char *path) {
        char line[256];
        size_t need = t->len + strlen(path) + 4096;
        if (t->cap < need) {
                t->cap = need * 2;
                t->data = realloc(t->data, t->cap);
                assert_non_null(t->data);
        }
        t->len += (size_t) sprintf(t->data + t->len, "memcg %ju %s\n node     0\n", (uintmax_t) id, path);
        for (unsigned g = 0; g < 4; g++) {
                t->len += (size_t) sprintf(t->data + t->len, " %10u %10u %10ju  %10ju \n", 100 + g,
                                           40000 - 10000 * g, (uintmax_t) (id * 10 + g), (uintmax_t) g);
                for (unsigned tier = 0; tier < 4; tier++) {
                        if (g == 0)
                                sprintf(line, "%10ur %10ue %10up %10ur %10ue %10up", tier, tier + 1,
                                        tier + 2, tier + 10, (unsigned) (id % 1000), tier + 12);
                        else if (g == 3)
                                sprintf(line, "%10uR %10uT %10ux %10uR %10uT %10ux", 1u, 2u, 0u, 3u, 4u, 0u);
                        else
                                sprintf(line, "%10ux %10ux %10ux %10ux %10ux %10ux", 0u, 0u, 0u, 0u, 0u, 0u);
                        t->len += (size_t) sprintf(t->data + t->len, "            %10u %s\n", tier, line);
                }
                t->len += (size_t) sprintf(t->data + t->len, g == 3 ? "%22s %10uT %10uY %10uF %10uA\n" :
                                                              "%22s %10ux %10ux %10ux %10ux\n",
                                           "", 1u, 2u, 3u, 4u);
        }
}

static void assert_lruvec_equal(const struct lrugen *la, const struct lrugen_lruvec *a,
                                const struct lrugen *lb, const struct lrugen_lruvec *b) {
        assert_int_equal(a->memcg_id, b->memcg_id);
        assert_int_equal(a->node, b->node);
        /* Read without paths, b's are all "". */
        assert_string_equal(lb->no_paths ? "" : lrugen_path(la, a), lrugen_path(lb, b));
        assert_int_equal(a->nr_gens, b->nr_gens);
        for (unsigned g = 0; g < a->nr_gens; g++) {
                assert_int_equal(a->gens[g].seq, b->gens[g].seq);
                assert_int_equal(a->gens[g].age_ms, b->gens[g].age_ms);
                assert_memory_equal(a->gens[g].nr_pages, b->gens[g].nr_pages, sizeof a->gens[g].nr_pages);
                assert_memory_equal(a->gens[g].gone, b->gens[g].gone, sizeof a->gens[g].gone);
                assert_int_equal(a->gens[g].has_tiers, b->gens[g].has_tiers);
        }
        assert_int_equal(a->file_tiers_gen, b->file_tiers_gen);
        assert_memory_equal(&a->file_tiers, &b->file_tiers, sizeof a->file_tiers);
}

/* lrugen_read() parses LRUGEN_READ_CHUNK bytes at a time: lines cut by a chunk boundary, a line
 * longer than a chunk (a path of 70,000 bytes), records in descending id order (sorted in place)
 * and a duplicate far from its first copy give what lrugen_parse() gives on the whole text; with
 * LRUGEN_READ_NO_PATHS the same without the paths, which are still checked. */
static void test_read_chunks(void **state) {
        _cleanup_(read_buf_free) struct read_buf text = {}, buf = {};
        _cleanup_(lrugen_done) struct lrugen whole = {}, chunked = {}, bare = {};
        char path[64];
        _cleanup_free_ char *long_path = malloc(70001);

        assert_non_null(long_path);
        memset(long_path, 'a', 70000);
        long_path[0] = '/';
        long_path[70000] = 0;
        for (uint64_t id = 400; id >= 1; id--) {
                snprintf(path, sizeof path, "/c%ju", (uintmax_t) id);
                add_record(&text, id, id == 200 ? long_path : path);
        }
        add_record(&text, 350, "/c350 again"); /* the later copy wins */
        assert_true(text.len > 8 * LRUGEN_READ_CHUNK);

        assert_int_equal(parse_exact(text.data, text.len, &whole), 0);
        check_invariants(&whole);
        assert_int_equal(whole.n_lruvecs, 400);
        assert_string_equal(lrugen_path(&whole, find(&whole, 350, 0)), "/c350 again");
        assert_non_null(lrugen_find_path(&whole, long_path));
        assert_int_equal(find(&whole, 7, 0)->file_tiers.evicted[2], 7);

        int fd = fixture_memfd(text.data, text.len);
        assert_true(fd >= 0);
        assert_int_equal(lrugen_read(fd, &buf, 0, &chunked), 0);
        assert_int_equal(buf.len, text.len);
        assert_true(buf.cap < text.len); /* never held whole */
        assert_int_equal(chunked.n_lruvecs, whole.n_lruvecs);
        for (size_t i = 0; i < whole.n_lruvecs; i++)
                assert_lruvec_equal(&whole, &whole.lruvecs[i], &chunked, &chunked.lruvecs[i]);

        assert_int_equal(lrugen_read(fd, &buf, LRUGEN_READ_NO_PATHS, &bare), 0);
        assert_true(bare.no_paths);
        assert_int_equal(bare.n_lruvecs, whole.n_lruvecs);
        for (size_t i = 0; i < whole.n_lruvecs; i++)
                assert_lruvec_equal(&whole, &whole.lruvecs[i], &bare, &bare.lruvecs[i]);
        assert_true(bare.paths_len <= 401); /* a NUL per memcg line: none of the 70,000 bytes */
        assert_null(lrugen_find_path(&bare, "/c7"));
        /* With paths again. */
        assert_int_equal(lrugen_read(fd, &buf, 0, &bare), 0);
        assert_false(bare.no_paths);
        assert_non_null(lrugen_find_path(&bare, "/c7"));
        close(fd);

        /* The records' array ends close to their number, not at the doubling's 512, and the
         * next read of the same histogram fits in it as it is. */
        assert_true(chunked.lruvecs_cap >= 400 && chunked.lruvecs_cap <= 400 + 400 / 16);
        assert_true(bare.lruvecs_cap >= 400 && bare.lruvecs_cap <= 400 + 400 / 16);
        size_t cap = bare.lruvecs_cap;
        fd = fixture_memfd(text.data, text.len);
        assert_true(fd >= 0);
        assert_int_equal(lrugen_read(fd, &buf, LRUGEN_READ_NO_PATHS, &bare), 0);
        close(fd);
        assert_int_equal(bare.n_lruvecs, 400);
        assert_int_equal(bare.lruvecs_cap, cap);

        /* A small histogram after the big one: the arrays give back what it needed. */
        assert_true(chunked.paths_cap > 70000);
        assert_int_equal(parse_str("memcg 1 /\n node 0\n 1 2 3 4\n", &chunked), 0);
        assert_int_equal(chunked.n_lruvecs, 1);
        assert_true(chunked.lruvecs_cap <= 64 && chunked.paths_cap <= 4096);

        /* Cut in the middle of a line: the last line has no '\n'. Only the last block goes
         * (the second copy of 350); its memcg is marked, the others are all there. */
        fd = fixture_memfd(text.data, text.len - 1);
        assert_true(fd >= 0);
        assert_int_equal(lrugen_read(fd, &buf, 0, &chunked), 0);
        close(fd);
        assert_int_equal(chunked.n_bad, 1);
        assert_true(lrugen_memcg_bad(&chunked, 350, NULL));
        assert_false(lrugen_memcg_bad(&chunked, 349, NULL));
        assert_int_equal(chunked.n_lruvecs, 400);
        assert_string_equal(lrugen_path(&chunked, find(&chunked, 350, 0)), "/c350");

        /* A relative path is rejected without paths too. */
        static const char relative[] = "memcg 5 c5\n node 0\n 1 2 3 4\n";
        fd = fixture_memfd(relative, sizeof relative - 1);
        assert_true(fd >= 0);
        assert_int_equal(lrugen_read(fd, &buf, LRUGEN_READ_NO_PATHS, &bare), -EINVAL);
        assert_int_equal(bare.n_lruvecs, 0);
        close(fd);
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
                cmocka_unit_test(test_boundaries),
                cmocka_unit_test(test_reuse),
                cmocka_unit_test(test_read),
                cmocka_unit_test(test_read_chunks),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
