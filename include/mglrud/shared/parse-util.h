/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse-util.h: strict number and unit parsers shared by kernel readers and the config. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mglrud/shared/time.h"


/* Parses a decimal unsigned 64-bit integer covering all of s[0..len). Rejects signs, empty
 * input, trailing garbage and overflow. Returns 0, -EINVAL or -ERANGE. */
int parse_u64_n(const char *s, size_t len, uint64_t *ret);
/* Same for a NUL-terminated string. */
int parse_u64(const char *s, uint64_t *ret);

/* Parses a non-negative decimal "12.34" covering s[0..len) into a double. Returns 0 or -EINVAL. */
int parse_decimal_n(const char *s, size_t len, double *ret);

/* Parses a size: "4096", "512K", "512M", "1.5G", "2T" (binary multiples, optional trailing
 * "B"/"iB"). Returns 0, -EINVAL or -ERANGE. */
int parse_size(const char *s, uint64_t *ret_bytes);

/* Parses a duration: "500ms", "5s", "2min", "1h", "1min 30s"; a bare number is seconds.
 * Returns 0, -EINVAL or -ERANGE. */
int parse_duration(const char *s, uint64_t *ret_usec);

/* Decimal places parse_percent accepts: more than any ratio of the policy can use, and few
 * enough that format_percent_exact writes every accepted ratio back in a short string. */
#define PERCENT_MAX_DECIMALS 12

/* Parses a ratio: "0.1%" -> 0.001, "0.25" -> 0.25, with at most PERCENT_MAX_DECIMALS decimal
 * places. Returns 0 or -EINVAL (negative, >100%, or more decimals). */
int parse_percent(const char *s, double *ret_ratio);

/* Parses yes/no/true/false/on/off/1/0. Returns 0/1, or -EINVAL. */
int parse_boolean(const char *s);

/* Takes the next line of buf[*pos..len): points *ret_line at it (without its '\n'), sets
 * *ret_len and advances *pos past the newline. The kernel ends every line of its text files
 * with '\n', so a last line without one means the read was cut short, maybe in the middle of a
 * number. Returns 1 for a line, 0 at the end of buf, -EINVAL for a cut line. */
int next_line(const char *buf, size_t len, size_t *pos, const char **ret_line, size_t *ret_len);

/* Formats bytes for people: "0", "512B", "12K", "1.5G", "212M" (three significant digits at
 * most, rounded down). Returns buf. */
const char *format_bytes(char *buf, size_t size, uint64_t bytes);
/* Formats a duration (usec) for people: "0", "250ms", "1.5s", "2min", "1d". Returns buf. */
const char *format_duration(char *buf, size_t size, uint64_t usec);
/* Formats bytes or a duration exactly, in the largest unit that divides it ("2047M", "90500ms"),
 * for configuration text that must parse back to the same value. Returns buf. */
const char *format_bytes_exact(char *buf, size_t size, uint64_t bytes);
const char *format_duration_exact(char *buf, size_t size, uint64_t usec);
/* Formats a ratio from parse_percent as a percentage that parses back to it ("0.1%", "25%",
 * "0.000000000001%"): at most 17 characters. Returns buf. */
const char *format_percent_exact(char *buf, size_t size, double ratio);

/* For the line-based parsers: notes line (1-based; 0 for the file as a whole, e.g. a missing
 * key) in *ret_bad_line when ret_bad_line is not NULL. Returns -EINVAL. */
static inline int parse_bad_line(unsigned *ret_bad_line, unsigned line) {
        if (ret_bad_line)
                *ret_bad_line = line;
        return -EINVAL;
}
