/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsers of /proc/PID/smaps_rollup and /proc/PID/smaps for idle-limit (tests/bench): they take a
 * buffer, so the unit test feeds them captured text (tests/fixtures/smaps/). */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* What went wrong, as "FILE:LINE: what" (FILE is the name the caller passed). */
struct smaps_error {
	char msg[256];
};

/* smaps_rollup's three sums, in bytes. */
struct smaps_rollup {
	uint64_t rss;
	uint64_t referenced;
	uint64_t anonymous;
};

/* smaps summed per kind of VMA, in bytes. A VMA whose resident pages are all anonymous
 * (Anonymous == Rss) counts as anon, one with no anonymous page as file (page cache and shmem:
 * smaps does not tell them apart by page), one with both (a private file mapping with
 * copy-on-write pages) as mixed: its Referenced cannot be split. */
struct smaps_split {
	uint64_t anon_rss, anon_referenced;
	uint64_t file_rss, file_referenced;
	uint64_t mixed_rss, mixed_referenced;
	unsigned vmas;
};

/* Parses smaps_rollup text. Returns 0, or -EBADMSG with ret_error set when a line is malformed or
 * Rss:/Referenced:/Anonymous: is missing; an empty buffer (a kernel thread, or a process that
 * exited: no mm) is -ENODATA. */
int smaps_rollup_parse(const char *buf, size_t len, const char *name, struct smaps_rollup *ret,
		       struct smaps_error *ret_error);

/* Parses smaps text, VMA by VMA. Returns 0 (an empty buffer is 0 VMAs), or -EBADMSG with
 * ret_error set when a line is neither a VMA header nor "Key: value", a value is not a number,
 * a field comes before the first header or a VMA lacks Rss:, Referenced: or Anonymous:. */
int smaps_split_parse(const char *buf, size_t len, const char *name, struct smaps_split *ret,
		      struct smaps_error *ret_error);
