/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/kernel/swaps.h"

#include <errno.h>
#include <string.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

#define SWAPS_MIN_FIELDS 5

static bool is_blank(char c) {
        return c == ' ' || c == '\t';
}

/* Splits line[0..len) at blanks into at most max fields. Returns the number of fields. */
static size_t split_fields(const char *line, size_t len, const char **f, size_t *flen, size_t max) {
        size_t n = 0, p = 0;

        while (p < len && n < max) {
                while (p < len && is_blank(line[p]))
                        p++;
                if (p == len)
                        break;
                f[n] = line + p;
                while (p < len && !is_blank(line[p]))
                        p++;
                flen[n] = (size_t) (line + p - f[n]);
                n++;
        }
        return n;
}

/* Returns true for a "/dev/zram<digits>" path. */
static bool is_zram_path(const char *s, size_t len) {
        static const char prefix[] = "/dev/zram";
        size_t plen = sizeof(prefix) - 1;

        if (len <= plen || memcmp(s, prefix, plen) != 0)
                return false;
        for (size_t i = plen; i < len; i++)
                if (s[i] < '0' || s[i] > '9')
                        return false;
        return true;
}

/* Returns true when s[0..len) is an optionally negative decimal integer. */
static bool is_integer(const char *s, size_t len) {
        size_t i = len > 0 && s[0] == '-' ? 1 : 0;

        if (i == len)
                return false;
        for (; i < len; i++)
                if (s[i] < '0' || s[i] > '9')
                        return false;
        return true;
}

int swaps_parse(const char *buf, size_t len, struct swaps_summary *ret, unsigned *ret_bad_line) {
        unsigned lineno = 0;
        struct swaps_summary s = {};
        const char *line;
        size_t pos = 0, llen;
        bool header = false;
        int more;

        if (!buf)
                return parse_bad_line(ret_bad_line, 0);
        while ((more = next_line(buf, len, &pos, &line, &llen)) > 0) {
                lineno++;
                const char *f[SWAPS_MIN_FIELDS];
                size_t flen[SWAPS_MIN_FIELDS];
                uint64_t size, used;

                if (!header) {
                        if (llen < 8 || memcmp(line, "Filename", 8) != 0)
                                return parse_bad_line(ret_bad_line, lineno);
                        header = true;
                        continue;
                }
                if (split_fields(line, llen, f, flen, SWAPS_MIN_FIELDS) < SWAPS_MIN_FIELDS)
                        return parse_bad_line(ret_bad_line, lineno);
                if (parse_u64_n(f[2], flen[2], &size) < 0 || parse_u64_n(f[3], flen[3], &used) < 0 ||
                    !is_integer(f[4], flen[4]) || used > size)
                        return parse_bad_line(ret_bad_line, lineno);
                if (s.size_kib + size < s.size_kib)
                        return parse_bad_line(ret_bad_line, lineno);
                s.n_devices++;
                if (is_zram_path(f[0], flen[0]))
                        s.n_zram++;
                s.size_kib += size;
                s.used_kib += used;
        }
        if (more < 0) /* a last line without its newline: cut */
                return parse_bad_line(ret_bad_line, lineno + 1);
        if (!header)
                return parse_bad_line(ret_bad_line, 0);
        *ret = s;
        return 0;
}

int swaps_read(int fd, struct swaps_summary *ret, unsigned *ret_bad_line) {
        /* Printed a swap area at a time: read to the end, not once (READ_AND_PARSE). */
        _cleanup_(read_buf_free) struct read_buf b = {};
        int r = read_full_fd(fd, &b);
        return r < 0 ? r : swaps_parse(b.data, b.len, ret, ret_bad_line);
}
