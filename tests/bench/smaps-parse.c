/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smaps and smaps_rollup text (proc(5)): a VMA header "START-END PERMS OFFSET DEV INODE [PATH]"
 * followed by "Key:   value kB" lines (a few fields have other values: "THPeligible:  0",
 * "VmFlags: rd wr mr"). smaps_rollup is one header ("[rollup]") and the sums. Only Rss:,
 * Referenced: and Anonymous: are read; the other fields are checked for the "Key:" shape only,
 * so that fields a later kernel adds are no error. */
#include "smaps-parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

enum field { FIELD_RSS, FIELD_REFERENCED, FIELD_ANONYMOUS, N_FIELDS };
static const char *const field_names[N_FIELDS] = { "Rss", "Referenced", "Anonymous" };

/* One VMA's (or the rollup's) three values and which of them were seen. */
struct fields {
	uint64_t value[N_FIELDS];
	bool seen[N_FIELDS];
};

/* A cursor over the buffer's lines, counting them from 1 for the error messages. */
struct lines {
	const char *p, *end, *name;
	unsigned number;
};

/* Sets *ret_line and *ret_len to the next line without its newline. Returns false at the end. */
static bool next_line(struct lines *l, const char **ret_line, size_t *ret_len)
{
	const char *nl;

	if (l->p >= l->end)
		return false;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	*ret_line = l->p;
	*ret_len = (size_t)((nl ? nl : l->end) - l->p);
	l->p = nl ? nl + 1 : l->end;
	l->number++;
	return true;
}

/* Formats "NAME:LINE: what" into e. Returns -EBADMSG, for `return bad_line(...)`. */
__attribute__((format(printf, 3, 4)))
static int bad_line(const struct lines *l, struct smaps_error *e, const char *fmt, ...)
{
	int n = snprintf(e->msg, sizeof e->msg, "%s:%u: ", l->name, l->number);
	va_list ap;

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < sizeof e->msg)
		vsnprintf(e->msg + n, sizeof e->msg - (size_t)n, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* Returns the number of hex digits at the start of s (at most n). */
static size_t hex_run(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && isxdigit((unsigned char)s[i]))
		i++;
	return i;
}

/* Returns whether the line is a VMA header: "START-END " with hex addresses. */
static bool is_vma_header(const char *s, size_t n)
{
	size_t a = hex_run(s, n), b;

	if (a == 0 || a >= n || s[a] != '-')
		return false;
	b = hex_run(s + a + 1, n - a - 1);
	return b > 0 && a + 1 + b < n && s[a + 1 + b] == ' ';
}

/* Parses "N kB" (leading blanks allowed) into bytes. Returns false when it is not that. */
static bool parse_kib(const char *s, size_t n, uint64_t *ret_bytes)
{
	size_t i = 0;
	uint64_t v = 0;

	while (i < n && s[i] == ' ')
		i++;
	if (i == n || !isdigit((unsigned char)s[i]))
		return false;
	for (; i < n && isdigit((unsigned char)s[i]); i++) {
		if (v > (UINT64_MAX / 1024 - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (n - i != 3 || memcmp(s + i, " kB", 3) != 0)
		return false;
	*ret_bytes = v * 1024;
	return true;
}

/* Reads one "Key: value" line into f when Key is one of ours. Returns 0 or -EBADMSG (e set). */
static int parse_field_line(const struct lines *l, const char *s, size_t n, struct fields *f,
			    struct smaps_error *e)
{
	size_t k = 0;

	while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '_'))
		k++;
	if (k == 0 || k == n || s[k] != ':')
		return bad_line(l, e, "neither a VMA header nor \"Key: value\": \"%.*s\"",
				(int)(n > 60 ? 60 : n), s);
	for (int i = 0; i < N_FIELDS; i++) {
		if (strlen(field_names[i]) != k || memcmp(s, field_names[i], k) != 0)
			continue;
		if (f->seen[i])
			return bad_line(l, e, "%s: twice in one VMA", field_names[i]);
		if (!parse_kib(s + k + 1, n - k - 1, &f->value[i]))
			return bad_line(l, e, "%s: not \"N kB\": \"%.*s\"", field_names[i],
					(int)(n - k - 1 > 40 ? 40 : n - k - 1), s + k + 1);
		f->seen[i] = true;
	}
	return 0;
}

/* Returns 0 when f has all three fields, else -EBADMSG naming the first one missing in the VMA
 * that ended at l's current line. */
static int check_complete(const struct lines *l, const struct fields *f, unsigned header_line,
			  struct smaps_error *e)
{
	for (int i = 0; i < N_FIELDS; i++)
		if (!f->seen[i]) {
			struct lines at = *l;

			at.number = header_line;
			return bad_line(&at, e, "the VMA of this line has no %s: field",
					field_names[i]);
		}
	return 0;
}

/* Adds one complete VMA to the split by its kind (see smaps-parse.h). */
static void split_add(struct smaps_split *s, const struct fields *f)
{
	uint64_t rss = f->value[FIELD_RSS], ref = f->value[FIELD_REFERENCED];
	uint64_t anon = f->value[FIELD_ANONYMOUS];

	s->vmas++;
	if (rss == 0)
		return;
	if (anon >= rss) {
		s->anon_rss += rss;
		s->anon_referenced += ref;
	} else if (anon == 0) {
		s->file_rss += rss;
		s->file_referenced += ref;
	} else {
		s->mixed_rss += rss;
		s->mixed_referenced += ref;
	}
}

/* Ends the VMA whose header was at header_line: checks it and adds it to split (when not NULL).
 * Returns 0 or -EBADMSG (e set). */
static int end_vma(const struct lines *l, const struct fields *f, unsigned header_line,
		   struct smaps_split *split, struct smaps_error *e)
{
	int r = check_complete(l, f, header_line, e);

	if (r == 0 && split)
		split_add(split, f);
	return r;
}

/* Walks the buffer VMA by VMA and calls add (when not NULL) for each complete one; the last
 * VMA's fields are left in *ret_last. Returns 0, or -EBADMSG with e set. */
static int walk_vmas(const char *buf, size_t len, const char *name, struct smaps_split *split,
		     struct fields *ret_last, unsigned *ret_vmas, struct smaps_error *e)
{
	struct lines l = { .p = buf, .end = buf + len, .name = name };
	struct fields cur = { 0 };
	unsigned header_line = 0, vmas = 0;
	const char *s;
	size_t n;
	int r;

	while (next_line(&l, &s, &n)) {
		if (is_vma_header(s, n)) {
			if (vmas > 0 && (r = end_vma(&l, &cur, header_line, split, e)) < 0)
				return r;
			cur = (struct fields){ 0 };
			header_line = l.number;
			vmas++;
			continue;
		}
		if (vmas == 0)
			return bad_line(&l, e, "a field before the first VMA header");
		r = parse_field_line(&l, s, n, &cur, e);
		if (r < 0)
			return r;
	}
	if (vmas > 0 && (r = end_vma(&l, &cur, header_line, split, e)) < 0)
		return r;
	*ret_last = cur;
	*ret_vmas = vmas;
	return 0;
}

int smaps_rollup_parse(const char *buf, size_t len, const char *name, struct smaps_rollup *ret,
		       struct smaps_error *ret_error)
{
	struct fields f;
	unsigned vmas;
	int r;

	if (len == 0)
		return -ENODATA;
	r = walk_vmas(buf, len, name, NULL, &f, &vmas, ret_error);
	if (r < 0)
		return r;
	if (vmas != 1) {
		struct lines at = { .name = name, .number = 1 };

		return bad_line(&at, ret_error, "%u headers, a rollup has one", vmas);
	}
	*ret = (struct smaps_rollup){
		.rss = f.value[FIELD_RSS],
		.referenced = f.value[FIELD_REFERENCED],
		.anonymous = f.value[FIELD_ANONYMOUS],
	};
	return 0;
}

int smaps_split_parse(const char *buf, size_t len, const char *name, struct smaps_split *ret,
		      struct smaps_error *ret_error)
{
	struct smaps_split s = { 0 };
	struct fields last;
	unsigned vmas;
	int r;

	r = walk_vmas(buf, len, name, &s, &last, &vmas, ret_error);
	if (r < 0)
		return r;
	*ret = s;
	return 0;
}
