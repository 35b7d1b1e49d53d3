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

#define GEN7 "       101      61234       1024       20480 \n"
#define REC7 "memcg 1 /\n node     0\n" GEN7
#define TIER7(t) "                     " #t "        100r        101e        102p          0x          0x          0x\n"

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
                /* a fifth tier line: the kernel has MAX_NR_TIERS = 4 */
                REC7 TIER7(0) TIER7(1) TIER7(2) TIER7(3) TIER7(4),
        };
        _cleanup_(lrugen_done) struct lrugen l = {};

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                /* Start from a populated result: nothing of it may survive. */
                load("lrugen-7.x/lru_gen", &l);
                int r = parse_str(bad[i], &l);
                if (r != -EINVAL)
                        fail_msg("case %zu gave %d: \"%s\"", i, r, bad[i]);
                /* Only a record of another, well-formed memcg may be kept (case 10: memcg 1 has
                 * no node, memcg 2 is fine). */
                for (size_t k = 0; k < l.n_lruvecs; k++)
                        if (lrugen_memcg_bad(&l, l.lruvecs[k].memcg_id, NULL) || l.lruvecs[k].memcg_id == 1)
                                fail_msg("case %zu kept the bad memcg: \"%s\"", i, bad[i]);
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

/* A malformed record costs only its own memcg: the records before and after it are kept, the
 * bad one is counted with its line and its id listed, and a cut last line drops only the last
 * memcg. */
static void test_bad_record_isolated(void **state) {
        _cleanup_(lrugen_done) struct lrugen l = {};
        static const char text[] =
                "memcg 1 /\n node     0\n" GEN7                                 /* lines 1-3 */
                "memcg 2 /a\n node     0\n       101      61234       1024y      20480 \n" /* 4-6 */
                " node     1\n" GEN7                                              /* 7-8 */
                "memcg 3 /b\n node     0\n" GEN7;                                /* 9-11 */

        assert_int_equal(lrugen_parse(text, strlen(text), &l), 0);
        check_invariants(&l);
        assert_int_equal(l.n_lruvecs, 2);
        assert_non_null(lookup(&l, 1, 0));
        assert_non_null(lookup(&l, 3, 0));
        assert_null(lookup(&l, 2, 0));
        assert_null(lookup(&l, 2, 1)); /* the memcg's other node goes with it */
        assert_int_equal(l.n_bad, 1);
        assert_int_equal(l.first_bad_line, 6);
        assert_true(lrugen_memcg_bad(&l, 2, NULL));
        assert_false(lrugen_memcg_bad(&l, 1, NULL));
        assert_false(lrugen_memcg_bad(&l, 3, NULL));

        /* A cut last line: only memcg 3 goes. */
        assert_int_equal(lrugen_parse(text, strlen(text) - 3, &l), 0);
        assert_int_equal(l.n_lruvecs, 1);
        assert_non_null(lookup(&l, 1, 0));
        assert_int_equal(l.n_bad, 2);
        assert_true(lrugen_memcg_bad(&l, 3, NULL));

        /* A memcg line that cannot be read: its block goes, without an id. */
        static const char bad_memcg[] = "memcg x /a\n node     0\n" GEN7 "memcg 3 /b\n node     0\n" GEN7;
        assert_int_equal(lrugen_parse(bad_memcg, strlen(bad_memcg), &l), 0);
        assert_int_equal(l.n_lruvecs, 1);
        assert_int_equal(l.n_bad, 1);
        assert_int_equal(l.first_bad_line, 1);
        assert_int_equal(l.n_bad_ids, 0);

        /* Nothing usable: -EINVAL, with the count and line kept for the message. */
        assert_int_equal(lrugen_parse("garbage\n", 8, &l), -EINVAL);
        assert_int_equal(l.n_lruvecs, 0);
        assert_int_equal(l.n_bad, 1);
        assert_int_equal(l.first_bad_line, 1);
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
                assert_string_equal(lrugen_path(l, v), sp + 1);
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
        assert_string_equal(lrugen_path(&l, find(&l, 1, 0)), "/");
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
                /* Debian: always 4 gens; file r/e lines on its min_seq, never on max_seq. */
                assert_int_equal(v->nr_gens, LRUGEN_MAX_NR_GENS);
                assert_true(v->file_tiers_gen >= 0 && v->file_tiers_gen < (int) v->nr_gens - 1);
        }
        /* "b" had page cache reclaimed (memory.reclaim 50M): its file tiers show evictions. */
        const struct lrugen_lruvec *b = lrugen_find_path(&l, "/work load.slice/b");
        assert_non_null(b);
        uint64_t evicted = 0;
        for (int tier = 0; tier < LRUGEN_MAX_NR_TIERS; tier++)
                evicted += b->file_tiers.evicted[tier];
        assert_true(evicted > 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_bad_record_isolated),
                cmocka_unit_test(test_mutations_full),
                cmocka_unit_test(test_mixed_formats),
                cmocka_unit_test(test_corruption),
                cmocka_unit_test(test_kernel_73),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
