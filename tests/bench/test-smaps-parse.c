/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The smaps/smaps_rollup parsers of idle-limit on text captured from a host
 * ($SMAPS_FIXTURES = tests/fixtures/smaps/, README there) and on broken text. Every buffer is an
 * exact-size heap copy without a NUL, so ASan sees a read past its end. */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "smaps-parse.h"

#define KIB(n) ((uint64_t)(n) * 1024)

/* Returns a malloc'd exact-size copy of $SMAPS_FIXTURES/rel, its length in *ret_len. */
static char *load(const char *rel, size_t *ret_len)
{
	const char *dir = getenv("SMAPS_FIXTURES");
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	assert_non_null(dir);
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*ret_len = (size_t)n;
	return buf;
}

static char *dup_exact(const char *s, size_t *ret_len)
{
	size_t n = strlen(s);
	char *p = malloc(n ? n : 1);

	assert_non_null(p);
	memcpy(p, s, n);
	*ret_len = n;
	return p;
}

/* Parses the fixture rel as smaps and compares every sum with want (kB figures). */
static void check_split(const char *rel, struct smaps_split want)
{
	struct smaps_split s;
	struct smaps_error e;
	size_t n;
	char *buf = load(rel, &n);

	assert_int_equal(smaps_split_parse(buf, n, rel, &s, &e), 0);
	assert_int_equal(s.vmas, want.vmas);
	assert_int_equal(s.anon_rss, KIB(want.anon_rss));
	assert_int_equal(s.anon_referenced, KIB(want.anon_referenced));
	assert_int_equal(s.file_rss, KIB(want.file_rss));
	assert_int_equal(s.file_referenced, KIB(want.file_referenced));
	assert_int_equal(s.mixed_rss, KIB(want.mixed_rss));
	assert_int_equal(s.mixed_referenced, KIB(want.mixed_referenced));
	free(buf);
}

/* Parses the fixture rel as smaps_rollup and compares it with want (kB figures). */
static void check_rollup(const char *rel, struct smaps_rollup want)
{
	struct smaps_rollup r;
	struct smaps_error e;
	size_t n;
	char *buf = load(rel, &n);

	assert_int_equal(smaps_rollup_parse(buf, n, rel, &r, &e), 0);
	assert_int_equal(r.rss, KIB(want.rss));
	assert_int_equal(r.referenced, KIB(want.referenced));
	assert_int_equal(r.anonymous, KIB(want.anonymous));
	free(buf);
}

/* anon-tiers --cold 48 --warm 0 --hot 16, 3 s after clear_refs: 48 MiB cold + 1 MiB of TLB-flush
 * scratch idle, the 16 MiB hot set referenced. Sums checked against awk over the same files;
 * read right after the rollup with nothing changed in between, the kinds add up to its Rss
 * (66660 + 1528 = 68188 kB). */
static void test_anon_tiers(void **state)
{
	(void)state;
	check_rollup("anon-tiers-3s.smaps_rollup",
		     (struct smaps_rollup){ .rss = 68188, .referenced = 17924, .anonymous = 66660 });
	check_split("anon-tiers-3s.smaps",
		    (struct smaps_split){ .vmas = 25, .anon_rss = 66660, .anon_referenced = 16404,
					  .file_rss = 1528, .file_referenced = 1520 });
}

/* A Python process with a 64 KiB file mapped MAP_PRIVATE and two of its pages written: that VMA
 * is the mixed one (Rss 64 kB, Anonymous 8 kB); the interpreter's arenas are anon, its libraries
 * file and anon (.data/.bss). */
static void test_python_mixed(void **state)
{
	(void)state;
	check_split("python-mixed.smaps",
		    (struct smaps_split){ .vmas = 112, .anon_rss = 6816, .anon_referenced = 628,
					  .file_rss = 6692, .file_referenced = 6656,
					  .mixed_rss = 160, .mixed_referenced = 24 });
	check_rollup("python-mixed.smaps_rollup",
		     (struct smaps_rollup){ .rss = 13832, .referenced = 7684, .anonymous = 7072 });
}

/* Parses text as smaps (split) or rollup and expects -EBADMSG with exactly msg. */
static void expect_parse_error(bool rollup, const char *text, const char *msg)
{
	struct smaps_rollup r;
	struct smaps_split s;
	struct smaps_error e = { "" };
	size_t n;
	char *buf = dup_exact(text, &n);
	int ret = rollup ? smaps_rollup_parse(buf, n, "F", &r, &e) :
			   smaps_split_parse(buf, n, "F", &s, &e);

	if (ret != -EBADMSG || strcmp(e.msg, msg) != 0)
		fail_msg("ret %d, \"%s\"; expected -EBADMSG, \"%s\"", ret, e.msg, msg);
	free(buf);
}

#define HDR "7f00-7f10 rw-p 00000000 00:00 0 \n"
#define OK3 "Rss: 8 kB\nReferenced: 4 kB\nAnonymous: 8 kB\n"

static void test_errors(void **state)
{
	(void)state;
	expect_parse_error(false, "Rss: 4 kB\n", "F:1: a field before the first VMA header");
	expect_parse_error(false, HDR "Rss: 4 kB\nReferenced: four kB\n",
		     "F:3: Referenced: not \"N kB\": \" four kB\"");
	expect_parse_error(false, HDR "Rss: 4 MB\n", "F:2: Rss: not \"N kB\": \" 4 MB\"");
	expect_parse_error(false, HDR "Rss: 4 kB \n", "F:2: Rss: not \"N kB\": \" 4 kB \"");
	expect_parse_error(false, HDR OK3 "garbage\n", "F:5: neither a VMA header nor \"Key: value\": \"garbage\"");
	expect_parse_error(false, HDR OK3 HDR "Rss: 4 kB\nAnonymous: 0 kB\n",
		     "F:5: the VMA of this line has no Referenced: field");
	expect_parse_error(false, HDR OK3 HDR OK3 HDR "Rss: 4 kB\nReferenced: 0 kB\n",
		     "F:9: the VMA of this line has no Anonymous: field");
	expect_parse_error(false, HDR OK3 "Rss: 8 kB\n", "F:5: Rss: twice in one VMA");
	expect_parse_error(false, HDR "Rss: 99999999999999999999 kB\nReferenced: 0 kB\nAnonymous: 0 kB\n",
		     "F:2: Rss: not \"N kB\": \" 99999999999999999999 kB\"");
	expect_parse_error(true, HDR OK3 HDR OK3, "F:1: 2 headers, a rollup has one");
}

static void test_edges(void **state)
{
	struct smaps_rollup r;
	struct smaps_split s;
	struct smaps_error e;
	size_t n;
	char *buf;

	(void)state;
	/* No mm (a kernel thread, an exited process): the rollup is empty. */
	assert_int_equal(smaps_rollup_parse("", 0, "F", &r, &e), -ENODATA);
	assert_int_equal(smaps_split_parse("", 0, "F", &s, &e), 0);
	assert_int_equal(s.vmas, 0);
	/* No newline at the end, unknown and non-kB fields, a header with a path with spaces. */
	buf = dup_exact("7f00-7f10 r--p 00000000 fe:00 12 /a b (deleted)\nRss: 8 kB\nNewField: 3 pages\n"
			"THPeligible:    0\nReferenced: 4 kB\nVmFlags: rd mr \nAnonymous: 0 kB", &n);
	assert_int_equal(smaps_split_parse(buf, n, "F", &s, &e), 0);
	assert_int_equal(s.vmas, 1);
	assert_int_equal(s.file_rss, KIB(8));
	assert_int_equal(s.file_referenced, KIB(4));
	assert_int_equal(s.anon_rss + s.mixed_rss, 0);
	free(buf);
	/* A VMA with nothing resident counts as a VMA and in no kind. */
	buf = dup_exact(HDR "Rss: 0 kB\nReferenced: 0 kB\nAnonymous: 0 kB\n" HDR OK3, &n);
	assert_int_equal(smaps_split_parse(buf, n, "F", &s, &e), 0);
	assert_int_equal(s.vmas, 2);
	assert_int_equal(s.anon_rss, KIB(8));
	assert_int_equal(s.anon_referenced, KIB(4));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anon_tiers),
		cmocka_unit_test(test_python_mixed),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
