/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mc-reply.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/types.h>

/* Larger than any item memcached stores (1 MiB by default, -I at most 1 GiB), small enough for
 * the int this parser returns. */
#define MAX_VALUE (1LL << 30)

/* Returns the length of the line at buf (without its "\r\n"), or -1 when no "\r\n" ends it
 * within len bytes. */
static ssize_t line_len(const char *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++)
		if (buf[i] == '\r' && buf[i + 1] == '\n')
			return (ssize_t) i;
	return -1;
}

/* Returns whether the line line[0..n) is word, or starts with word and a space when prefix. */
static bool line_is(const char *line, size_t n, const char *word, bool prefix)
{
	size_t w = strlen(word);

	if (prefix)
		return n > w && memcmp(line, word, w) == 0 && line[w] == ' ';
	return n == w && memcmp(line, word, w) == 0;
}

/* Parses a decimal field of line[*pos..n) after one space; returns it, or -1 when malformed. */
static long long field(const char *line, size_t n, size_t *pos)
{
	long long v = 0;
	size_t i = *pos;

	if (i >= n || line[i] != ' ')
		return -1;
	i++;
	if (i >= n || line[i] < '0' || line[i] > '9')
		return -1;
	for (; i < n && line[i] >= '0' && line[i] <= '9'; i++) {
		if (v > (1LL << 40))
			return -1;
		v = v * 10 + (line[i] - '0');
	}
	*pos = i;
	return v;
}

/* Parses "VALUE <key> <flags> <bytes>" (line[0..n), n > 6); returns <bytes> or -1. */
static long long value_header(const char *line, size_t n)
{
	size_t i = 6;
	long long flags, bytes;

	while (i < n && line[i] != ' ')
		i++;
	if (i == 6)
		return -1;
	flags = field(line, n, &i);
	bytes = field(line, n, &i);
	/* A trailing " <cas>" appears for gets only; mc-zipf sends get. */
	if (flags < 0 || bytes < 0 || i != n || bytes > MAX_VALUE)
		return -1;
	return bytes;
}

/* Returns whether a prefix of the line in buf[0..len) (no "\r\n" seen yet) can still become
 * one of the reply lines. */
static bool may_become_reply(const char *buf, size_t len)
{
	static const char *const words[] = { "STORED\r", "NOT_STORED\r", "END\r", "ERROR\r",
					     "VALUE ", "CLIENT_ERROR ", "SERVER_ERROR " };

	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		size_t w = strlen(words[i]);

		if (memcmp(buf, words[i], len < w ? len : w) == 0)
			return true;
	}
	return false;
}

int mc_reply_parse(const char *buf, size_t len, struct mc_reply *ret)
{
	ssize_t n = line_len(buf, len);
	long long bytes;
	size_t data, end;

	if (n < 0)
		return len == 0 || may_become_reply(buf, len) ? 0 : -EBADMSG;
	*ret = (struct mc_reply) { 0 };
	if (line_is(buf, n, "STORED", false))
		ret->kind = MC_STORED;
	else if (line_is(buf, n, "NOT_STORED", false))
		ret->kind = MC_NOT_STORED;
	else if (line_is(buf, n, "END", false))
		ret->kind = MC_MISS;
	else if (line_is(buf, n, "ERROR", false) || line_is(buf, n, "CLIENT_ERROR", true) ||
		 line_is(buf, n, "SERVER_ERROR", true))
		ret->kind = MC_ERROR;
	else if (line_is(buf, n, "VALUE", true)) {
		bytes = value_header(buf, n);
		if (bytes < 0)
			return -EBADMSG;
		data = (size_t) n + 2;
		end = data + (size_t) bytes;
		/* The data, its "\r\n" and "END\r\n". */
		if (len < end + 2)
			return 0;
		if (buf[end] != '\r' || buf[end + 1] != '\n')
			return -EBADMSG;
		end += 2;
		if (len - end < 5)
			return memcmp(buf + end, "END\r\n", len - end) == 0 ? 0 : -EBADMSG;
		if (memcmp(buf + end, "END\r\n", 5) != 0)
			return -EBADMSG;
		ret->kind = MC_HIT;
		ret->value_len = (size_t) bytes;
		return (int) (end + 5);
	} else
		return -EBADMSG;
	return (int) n + 2;
}
