/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One-shot stream classification (policy/stream-classify.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mglrud/policy/stream-classify.h"

#define MiB (1ULL << 20)
#define PAGE UINT64_C(4096)
#define PAGES(bytes) ((bytes) / PAGE)
#define MARGIN_PAGES PAGES(STREAM_MARGIN_BYTES)
#define MIN_PAGES PAGES(STREAM_MIN_BYTES)

/* memory.max 100 MiB, full. */
static const struct stream_cgroup cg100 = { .page_size = PAGE, .limit_bytes = 100 * MiB,
                                            .current_bytes = 99 * MiB };

/* A file read front to back up to page n of size_pages, new_pages of it since the last cycle. */
static struct stream_file seq_file(uint64_t size_pages, uint64_t n, uint64_t new_pages) {
        return (struct stream_file) { .pages = n, .seq_pages = n, .next_index = n, .max_index = n,
                                      .size_pages = size_pages, .new_pages = new_pages };
}

static enum stream_verdict classify(const struct stream_file *f, const struct stream_cgroup *cg,
                                    struct stream_action *a) {
        assert_int_equal(stream_classify(f, cg, a), 0);
        return a->verdict;
}

static void test_big_stream_drops_behind_reader(void **unused) {
        struct stream_action a;
        struct stream_file f = seq_file(PAGES(384 * MiB), PAGES(40 * MiB), PAGES(20 * MiB));
        assert_int_equal(classify(&f, &cg100, &a), STREAM_ONE_SHOT);
        assert_int_equal(a.drop_start, 0);
        assert_int_equal(a.drop_end, PAGES(40 * MiB) - MARGIN_PAGES);
        /* What was dropped is not asked again. */
        f.dropped_to = a.drop_end;
        f.pages = f.seq_pages = f.next_index = f.max_index = PAGES(60 * MiB);
        assert_int_equal(classify(&f, &cg100, &a), STREAM_ONE_SHOT);
        assert_int_equal(a.drop_start, PAGES(40 * MiB) - MARGIN_PAGES);
        assert_int_equal(a.drop_end, PAGES(60 * MiB) - MARGIN_PAGES);
        /* A stream that stopped: nothing more. */
        f.new_pages = 0;
        assert_int_equal(classify(&f, &cg100, &a), STREAM_NOT_ACTIVE);
        assert_int_equal(a.drop_end, 0);
}

static void test_too_early_is_unsure(void **unused) {
        struct stream_action a;
        struct stream_file f = seq_file(PAGES(384 * MiB), MIN_PAGES - 1, 100);
        assert_int_equal(classify(&f, &cg100, &a), STREAM_UNSURE);
        f = (struct stream_file) {};
        assert_int_equal(classify(&f, &cg100, &a), STREAM_UNSURE);
        assert_int_equal(stream_classify(NULL, &cg100, &a), -EINVAL);
}

static void test_reread_is_not_a_stream(void **unused) {
        struct stream_action a;
        /* 128 MiB read in a loop: the second pass starts again at 0. */
        struct stream_file f = seq_file(PAGES(384 * MiB), PAGES(200 * MiB), PAGES(10 * MiB));
        f.back_pages = PAGES(72 * MiB);
        f.seq_pages = f.pages;
        assert_int_equal(classify(&f, &cg100, &a), STREAM_NOT_REREAD);
        assert_int_equal(a.drop_end, 0);
        /* A few raced pages are tolerated. */
        f.back_pages = 8;
        assert_int_equal(classify(&f, &cg100, &a), STREAM_ONE_SHOT);
}

static void test_working_file_is_not_a_stream(void **unused) {
        struct stream_action a;
        /* The 56 MiB hot file prefilled sequentially: fits, however full the cgroup is. */
        struct stream_file f = seq_file(PAGES(56 * MiB), PAGES(56 * MiB), PAGES(56 * MiB));
        assert_int_equal(classify(&f, &cg100, &a), STREAM_NOT_SMALL);
        /* 128 MiB re-read in a loop, during its first pass: less than twice memory.max. */
        f = seq_file(PAGES(128 * MiB), PAGES(100 * MiB), PAGES(30 * MiB));
        assert_int_equal(classify(&f, &cg100, &a), STREAM_NOT_SMALL);
        /* Read at random. */
        f = seq_file(PAGES(384 * MiB), 4096, 100);
        f.seq_pages = 1000;
        assert_int_equal(classify(&f, &cg100, &a), STREAM_NOT_RANDOM);
}

static void test_unlimited(void **unused) {
        struct stream_action a;
        struct stream_cgroup cg = { .page_size = PAGE, .limit_bytes = UINT64_MAX,
                                    .current_bytes = 20 * MiB };
        struct stream_file f = seq_file(PAGES(48 * MiB), PAGES(30 * MiB), 10);
        /* Twice memory.current, but under the floor for unlimited cgroups. */
        assert_int_equal(classify(&f, &cg, &a), STREAM_NOT_SMALL);
        f = seq_file(PAGES(1024 * MiB), PAGES(30 * MiB), 10);
        assert_int_equal(classify(&f, &cg, &a), STREAM_ONE_SHOT);
        /* Small files: never without a limit. */
        f = seq_file(64, 64, 64);
        cg.small_inflow_bytes = 100 * MiB;
        assert_int_equal(classify(&f, &cg, &a), STREAM_NOT_SMALL);
}

static void test_small_files(void **unused) {
        struct stream_action a;
        struct stream_cgroup cg = cg100;
        struct stream_file f = seq_file(64, 64, 64); /* 256 KiB, read completely this cycle */
        assert_int_equal(stream_small_inflow(&f, PAGE), 256 * 1024);
        /* Not enough of them this cycle. */
        cg.small_inflow_bytes = 4 * MiB;
        assert_int_equal(classify(&f, &cg, &a), STREAM_NOT_SMALL);
        cg.small_inflow_bytes = 32 * MiB;
        assert_int_equal(classify(&f, &cg, &a), STREAM_SMALL_FILES);
        assert_int_equal(a.drop_start, 0);
        assert_int_equal(a.drop_end, 64);
        /* Most of the cgroup free: nothing is pushed out, leave it. */
        cg.current_bytes = 40 * MiB;
        assert_int_equal(classify(&f, &cg, &a), STREAM_NOT_SMALL);
        /* Half full: the stream reaches the limit within a few cycles, drop from now on. */
        cg.current_bytes = 50 * MiB;
        assert_int_equal(classify(&f, &cg, &a), STREAM_SMALL_FILES);
        cg.current_bytes = 99 * MiB;
        /* Half read, or read before this cycle: not counted, not dropped. */
        struct stream_file half = seq_file(64, 32, 32);
        assert_int_equal(stream_small_inflow(&half, PAGE), 0);
        assert_int_equal(classify(&half, &cg, &a), STREAM_NOT_SMALL);
        f.new_pages = 0;
        assert_int_equal(stream_small_inflow(&f, PAGE), 0);
        assert_int_equal(classify(&f, &cg, &a), STREAM_NOT_SMALL);
        /* Re-read once already. */
        f = seq_file(64, 128, 64);
        f.back_pages = 64;
        assert_int_equal(classify(&f, &cg, &a), STREAM_NOT_REREAD);
}

static void test_names(void **unused) {
        assert_string_equal(stream_verdict_to_string(STREAM_ONE_SHOT), "read once");
        assert_string_equal(stream_verdict_to_string(STREAM_NOT_REREAD), "re-read");
        assert_null(stream_verdict_to_string(_STREAM_VERDICT_MAX));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_big_stream_drops_behind_reader),
                cmocka_unit_test(test_too_early_is_unsure),
                cmocka_unit_test(test_reread_is_not_a_stream),
                cmocka_unit_test(test_working_file_is_not_a_stream),
                cmocka_unit_test(test_unlimited),
                cmocka_unit_test(test_small_files),
                cmocka_unit_test(test_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
