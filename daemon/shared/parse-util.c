/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/shared/parse-util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mglrud/shared/macro.h"

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

static size_t count_digits(const char *s, size_t len) {
        size_t i = 0;
        while (i < len && is_digit(s[i]))
                i++;
        return i;
}

int parse_u64_n(const char *s, size_t len, uint64_t *ret) {
        uint64_t v = 0;
        bool overflow = false;

        if (!s || len == 0)
                return -EINVAL;
        /* One pass, no division: the kernel files the daemon parses every cycle are mostly
         * numbers. Overflow is only possible from the 20th digit on, and every byte must still
         * be a digit (a non-digit is -EINVAL, even after an overflow). */
        for (size_t i = 0; i < len; i++) {
                unsigned d = (unsigned) (unsigned char) s[i] - '0';
                if (d > 9)
                        return -EINVAL;
                if (i < 19)
                        v = v * 10 + d;
                else
                        overflow = overflow || __builtin_mul_overflow(v, 10, &v) ||
                                   __builtin_add_overflow(v, d, &v);
        }
        if (overflow)
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_u64(const char *s, uint64_t *ret) {
        if (!s)
                return -EINVAL;
        return parse_u64_n(s, strlen(s), ret);
}

/* A non-negative decimal split into its digits, so callers can scale it exactly (sizes and
 * durations) or convert it to a double (ratios) without going through the locale-dependent
 * strtod. */
struct decimal {
        const char *int_part, *frac_part;
        size_t int_len, frac_len;
};

/* Splits s[0..len) as digits ["." digits]. Returns the number of bytes consumed (> 0), or
 * -EINVAL when s does not start with a decimal. */
static int decimal_scan(const char *s, size_t len, struct decimal *ret) {
        struct decimal d = { .int_part = s };

        d.int_len = count_digits(s, len);
        if (d.int_len == 0)
                return -EINVAL;
        size_t n = d.int_len;
        if (n < len && s[n] == '.') {
                d.frac_part = s + n + 1;
                d.frac_len = count_digits(d.frac_part, len - n - 1);
                if (d.frac_len == 0) /* "1." is a typo, not a number */
                        return -EINVAL;
                n += 1 + d.frac_len;
        }
        if (n > INT32_MAX)
                return -EINVAL;
        *ret = d;
        return (int) n;
}

static double decimal_to_double(const struct decimal *d) {
        uint64_t m = 0;
        int exp10 = 0;

        /* All digits into one integer mantissa, then one multiplication or division by a power
         * of ten: "5.6" is 56 / 10, the double nearest to 5.6 (adding 5 + 0.6 is not). Digits
         * past 19 are not significant for a double and only move the exponent. */
        for (size_t i = 0; i < d->int_len; i++) {
                if (m <= (UINT64_MAX - 9) / 10)
                        m = m * 10 + (uint64_t) (d->int_part[i] - '0');
                else if (exp10 < 400)
                        exp10++;
        }
        for (size_t i = 0; i < d->frac_len; i++)
                if (m <= (UINT64_MAX - 9) / 10) {
                        m = m * 10 + (uint64_t) (d->frac_part[i] - '0');
                        exp10--;
                }
        if (exp10 >= 0)
                return (double) m * pow(10, exp10);
        return (double) m / pow(10, -exp10);
}

/* Returns d * mult rounded down, or -ERANGE when it does not fit in 64 bits. */
static int decimal_scale(const struct decimal *d, uint64_t mult, uint64_t *ret) {
        unsigned __int128 whole = 0, frac = 0, denom = 1;

        for (size_t i = 0; i < d->int_len; i++) {
                whole = whole * 10 + (unsigned) (d->int_part[i] - '0');
                if (whole > UINT64_MAX)
                        return -ERANGE;
        }
        whole *= mult;
        /* 18 fractional digits are more than any unit (at most 2^60 or 1e9 us/s) can use. */
        for (size_t i = 0; i < d->frac_len && i < 18; i++) {
                frac = frac * 10 + (unsigned) (d->frac_part[i] - '0');
                denom *= 10;
        }
        whole += frac * mult / denom;
        if (whole > UINT64_MAX)
                return -ERANGE;
        *ret = (uint64_t) whole;
        return 0;
}

int parse_decimal_n(const char *s, size_t len, double *ret) {
        struct decimal d;
        int n;

        if (!s)
                return -EINVAL;
        n = decimal_scan(s, len, &d);
        if (n < 0 || (size_t) n != len)
                return -EINVAL;
        *ret = decimal_to_double(&d);
        return 0;
}

struct unit {
        const char *name;
        uint64_t mult;
};

/* Returns the multiplier of the unit spelled exactly s[0..len), or 0 if unknown. */
static uint64_t unit_lookup(const struct unit *units, size_t n_units, const char *s, size_t len) {
        for (size_t i = 0; i < n_units; i++)
                if (strlen(units[i].name) == len && memcmp(units[i].name, s, len) == 0)
                        return units[i].mult;
        return 0;
}

int parse_size(const char *s, uint64_t *ret_bytes) {
        static const struct unit units[] = {
                { "", 1 },
                { "B", 1 },
                { "K", UINT64_C(1) << 10 }, { "KB", UINT64_C(1) << 10 }, { "KiB", UINT64_C(1) << 10 },
                { "M", UINT64_C(1) << 20 }, { "MB", UINT64_C(1) << 20 }, { "MiB", UINT64_C(1) << 20 },
                { "G", UINT64_C(1) << 30 }, { "GB", UINT64_C(1) << 30 }, { "GiB", UINT64_C(1) << 30 },
                { "T", UINT64_C(1) << 40 }, { "TB", UINT64_C(1) << 40 }, { "TiB", UINT64_C(1) << 40 },
                { "P", UINT64_C(1) << 50 }, { "PB", UINT64_C(1) << 50 }, { "PiB", UINT64_C(1) << 50 },
                { "E", UINT64_C(1) << 60 }, { "EB", UINT64_C(1) << 60 }, { "EiB", UINT64_C(1) << 60 },
        };
        struct decimal d;
        uint64_t mult, v;
        int n, r;

        if (!s)
                return -EINVAL;
        size_t len = strlen(s);
        n = decimal_scan(s, len, &d);
        if (n < 0)
                return -EINVAL;
        mult = unit_lookup(units, ELEMENTSOF(units), s + n, len - (size_t) n);
        if (mult == 0)
                return -EINVAL;
        /* "1.5" bytes is a mistake, "1.5G" is not. */
        if (mult == 1 && d.frac_len > 0)
                return -EINVAL;
        r = decimal_scale(&d, mult, &v);
        if (r < 0)
                return r;
        *ret_bytes = v;
        return 0;
}

static const struct unit duration_units[] = {
        { "us", 1 },
        { "usec", 1 },
        { "ms", USEC_PER_MSEC },
        { "msec", USEC_PER_MSEC },
        { "s", USEC_PER_SEC },
        { "sec", USEC_PER_SEC },
        { "second", USEC_PER_SEC },
        { "seconds", USEC_PER_SEC },
        { "m", 60 * USEC_PER_SEC },
        { "min", 60 * USEC_PER_SEC },
        { "minute", 60 * USEC_PER_SEC },
        { "minutes", 60 * USEC_PER_SEC },
        { "h", 3600 * USEC_PER_SEC },
        { "hr", 3600 * USEC_PER_SEC },
        { "hour", 3600 * USEC_PER_SEC },
        { "hours", 3600 * USEC_PER_SEC },
        { "d", 86400 * USEC_PER_SEC },
        { "day", 86400 * USEC_PER_SEC },
        { "days", 86400 * USEC_PER_SEC },
        { "w", 7 * 86400 * USEC_PER_SEC },
        { "week", 7 * 86400 * USEC_PER_SEC },
        { "weeks", 7 * 86400 * USEC_PER_SEC },
};

static bool is_alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int parse_duration(const char *s, uint64_t *ret_usec) {
        uint64_t total = 0;
        unsigned n_parts = 0;
        bool bare = false;

        if (!s)
                return -EINVAL;
        size_t len = strlen(s), i = 0;
        for (;;) {
                while (i < len && s[i] == ' ')
                        i++;
                if (i == len)
                        break;

                struct decimal d;
                int n = decimal_scan(s + i, len - i, &d);
                if (n < 0)
                        return -EINVAL;
                i += (size_t) n;
                while (i < len && s[i] == ' ') /* "1 min" */
                        i++;
                size_t u = i;
                while (i < len && is_alpha(s[i]))
                        i++;

                uint64_t mult, v;
                if (i == u) {
                        /* A bare number means seconds, but only on its own: "1min 30" is
                         * more likely a typo than 1 min 30 s. */
                        mult = USEC_PER_SEC;
                        bare = true;
                } else {
                        mult = unit_lookup(duration_units, ELEMENTSOF(duration_units), s + u, i - u);
                        if (mult == 0)
                                return -EINVAL;
                }
                int r = decimal_scale(&d, mult, &v);
                if (r < 0)
                        return r;
                if (v > UINT64_MAX - total)
                        return -ERANGE;
                total += v;
                n_parts++;
        }
        if (n_parts == 0 || (bare && n_parts > 1))
                return -EINVAL;
        *ret_usec = total;
        return 0;
}

int parse_percent(const char *s, double *ret_ratio) {
        double v;
        int r;

        if (!s)
                return -EINVAL;
        size_t len = strlen(s);
        bool percent = len > 0 && s[len - 1] == '%';
        r = parse_decimal_n(s, len - percent, &v);
        if (r < 0)
                return r;
        const char *dot = memchr(s, '.', len);
        if (dot && (size_t) (s + len - percent - dot - 1) > PERCENT_MAX_DECIMALS)
                return -EINVAL;
        if (percent)
                v /= 100;
        if (v > 1)
                return -EINVAL;
        *ret_ratio = v;
        return 0;
}

int parse_boolean(const char *s) {
        static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
        static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcasecmp(s, yes[i]) == 0)
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (strcasecmp(s, no[i]) == 0)
                        return 0;
        return -EINVAL;
}

/* Prints v/unit with three significant digits at most: one decimal below 10 when the tenth is
 * not zero ("1.5G"), whole numbers from 10 on ("212M"). Rounds down, so the text never claims
 * more than there is ("1.9G" for 2047M). */
static void format_scaled(char *buf, size_t size, uint64_t v, uint64_t unit, const char *suffix) {
        uint64_t whole = v / unit;
        uint64_t tenth = (uint64_t) ((unsigned __int128) (v % unit) * 10 / unit);

        if (whole < 10 && tenth > 0)
                snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "%s", whole, tenth, suffix);
        else
                snprintf(buf, size, "%" PRIu64 "%s", whole, suffix);
}

/* Formats v with the largest of units (largest first) that fits, "0" for zero, or as v
 * followed by base_suffix below the smallest. Returns buf. */
static const char *format_units(char *buf, size_t size, uint64_t v, const struct unit *units,
                                size_t n_units, const char *base_suffix) {
        if (!buf || size == 0)
                return buf;
        if (v == 0) {
                snprintf(buf, size, "0");
                return buf;
        }
        for (size_t i = 0; i < n_units; i++)
                if (v >= units[i].mult) {
                        format_scaled(buf, size, v, units[i].mult, units[i].name);
                        return buf;
                }
        snprintf(buf, size, "%" PRIu64 "%s", v, base_suffix);
        return buf;
}

static const struct unit byte_units[] = {
        { "E", UINT64_C(1) << 60 }, { "P", UINT64_C(1) << 50 }, { "T", UINT64_C(1) << 40 },
        { "G", UINT64_C(1) << 30 }, { "M", UINT64_C(1) << 20 }, { "K", UINT64_C(1) << 10 },
};

static const struct unit duration_format_units[] = {
        { "w", 7 * 86400 * USEC_PER_SEC }, { "d", 86400 * USEC_PER_SEC },
        { "h", 3600 * USEC_PER_SEC },      { "min", 60 * USEC_PER_SEC },
        { "s", USEC_PER_SEC },             { "ms", USEC_PER_MSEC },
};

const char *format_bytes(char *buf, size_t size, uint64_t bytes) {
        return format_units(buf, size, bytes, byte_units, ELEMENTSOF(byte_units), "B");
}

const char *format_duration(char *buf, size_t size, uint64_t usec) {
        return format_units(buf, size, usec, duration_format_units,
                            ELEMENTSOF(duration_format_units), "us");
}

/* Formats v with the largest unit that divides it exactly, so that parsing it gives v back. */
static const char *format_units_exact(char *buf, size_t size, uint64_t v,
                                      const struct unit *units, size_t n_units,
                                      const char *base_suffix) {
        for (size_t i = 0; v > 0 && i < n_units; i++)
                if (v % units[i].mult == 0) {
                        snprintf(buf, size, "%" PRIu64 "%s", v / units[i].mult, units[i].name);
                        return buf;
                }
        snprintf(buf, size, "%" PRIu64 "%s", v, base_suffix);
        return buf;
}

const char *format_bytes_exact(char *buf, size_t size, uint64_t bytes) {
        return format_units_exact(buf, size, bytes, byte_units, ELEMENTSOF(byte_units), "");
}

const char *format_duration_exact(char *buf, size_t size, uint64_t usec) {
        return format_units_exact(buf, size, usec, duration_format_units,
                                  ELEMENTSOF(duration_format_units), "us");
}

const char *format_percent_exact(char *buf, size_t size, double ratio) {
        char tmp[64];

        /* A ratio parsed from at most PERCENT_MAX_DECIMALS decimals, times 100, is within a few
         * units in the last place of the percentage it came from: far below half a unit of
         * its 12th decimal, so rounding there gives back its digits (shortest %g forms do
         * not: "%.6g" printed 0.123456789% as 0.123457% and 0.00001% as 1e-05%). */
        snprintf(tmp, sizeof tmp, "%.*f", PERCENT_MAX_DECIMALS, ratio * 100);
        size_t n = strlen(tmp);
        if (memchr(tmp, '.', n)) {
                while (n > 0 && tmp[n - 1] == '0')
                        n--;
                if (n > 0 && tmp[n - 1] == '.')
                        n--;
        }
        snprintf(buf, size, "%.*s%%", (int) n, tmp);
        return buf;
}

int next_line(const char *buf, size_t len, size_t *pos, const char **ret_line, size_t *ret_len) {
        if (*pos >= len)
                return 0;
        const char *line = buf + *pos;
        const char *nl = memchr(line, '\n', len - *pos);
        if (!nl)
                return -EINVAL;
        *ret_line = line;
        *ret_len = (size_t) (nl - line);
        *pos += *ret_len + 1;
        return 1;
}
