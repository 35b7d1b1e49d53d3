/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/kernel/psi.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

/* Expects s[*pos..len) to start with "<key>=" and a value ended by ' ', '\n' or the end.
 * Returns the value's length and sets *ret_value to its start, or -EINVAL. */
static int psi_field(const char *s, size_t len, size_t *pos, const char *key, const char **ret_value) {
        size_t klen = strlen(key), p = *pos;

        if (len - p < klen + 1 || memcmp(s + p, key, klen) != 0 || s[p + klen] != '=')
                return -EINVAL;
        p += klen + 1;
        size_t start = p;
        while (p < len && s[p] != ' ')
                p++;
        *ret_value = s + start;
        *pos = p;
        return (int) MIN(p - start, (size_t) INT32_MAX);
}

/* Parses the part after "some"/"full": " avg10=A avg60=B avg300=C total=T" covering all of
 * s[0..len). Returns 0 or -EINVAL. */
static int psi_parse_fields(const char *s, size_t len, struct psi_line *ret) {
        static const char *const avg_keys[] = { "avg10", "avg60", "avg300" };
        struct psi_line l = {};
        double *avgs[] = { &l.avg10, &l.avg60, &l.avg300 };
        const char *v;
        size_t pos = 0;
        int n;

        for (size_t i = 0; i < ELEMENTSOF(avg_keys); i++) {
                if (pos >= len || s[pos++] != ' ')
                        return -EINVAL;
                n = psi_field(s, len, &pos, avg_keys[i], &v);
                if (n < 0 || parse_decimal_n(v, (size_t) n, avgs[i]) < 0)
                        return -EINVAL;
                /* Shares of time are percentages: anything above is not a pressure file. */
                if (*avgs[i] > 100.0)
                        return -EINVAL;
        }
        if (pos >= len || s[pos++] != ' ')
                return -EINVAL;
        n = psi_field(s, len, &pos, "total", &v);
        if (n < 0 || parse_u64_n(v, (size_t) n, &l.total_us) < 0)
                return -EINVAL;
        if (pos != len)
                return -EINVAL;
        *ret = l;
        return 0;
}

int psi_parse(const char *buf, size_t len, struct psi *ret, unsigned *ret_bad_line) {
        unsigned lineno = 0;
        struct psi p = {};
        bool has_some = false;
        size_t pos = 0;

        if (!buf)
                return parse_bad_line(ret_bad_line, 0);
        const char *line;
        size_t llen;
        int more;
        while ((more = next_line(buf, len, &pos, &line, &llen)) > 0) {
                lineno++;
                struct psi_line *dst;
                bool *seen;
                if (llen >= 4 && memcmp(line, "some", 4) == 0) {
                        dst = &p.some;
                        seen = &has_some;
                } else if (llen >= 4 && memcmp(line, "full", 4) == 0) {
                        dst = &p.full;
                        seen = &p.has_full;
                } else
                        return parse_bad_line(ret_bad_line, lineno);
                /* Two "some" lines are not a pressure file we understand. */
                if (*seen)
                        return parse_bad_line(ret_bad_line, lineno);
                if (psi_parse_fields(line + 4, llen - 4, dst) < 0)
                        return parse_bad_line(ret_bad_line, lineno);
                *seen = true;
        }
        if (more < 0) /* a last line without its newline: cut */
                return parse_bad_line(ret_bad_line, lineno + 1);
        if (!has_some)
                return parse_bad_line(ret_bad_line, 0);
        *ret = p;
        return 0;
}

int psi_read(int fd, struct psi *ret, unsigned *ret_bad_line) {
        return READ_AND_PARSE(fd, psi_parse, ret, ret_bad_line);
}

int psi_trigger_format(char *buf, size_t size, bool full, uint64_t stall_usec,
                       uint64_t window_usec) {
        if (window_usec < PSI_TRIGGER_MIN_WINDOW_USEC ||
            window_usec > PSI_TRIGGER_MAX_WINDOW_USEC || stall_usec == 0 ||
            stall_usec >= window_usec)
                return -EINVAL;
        int n = snprintf(buf, size, "%s %" PRIu64 " %" PRIu64, full ? "full" : "some",
                         stall_usec, window_usec);
        return n < 0 || (size_t) n >= size ? -EINVAL : n;
}

int psi_trigger_open(int dirfd, const char *name, bool full, uint64_t stall_usec,
                     uint64_t window_usec) {
        char text[64];
        int n = psi_trigger_format(text, sizeof text, full, stall_usec, window_usec);
        if (n < 0)
                return n;
        _cleanup_close_ int fd = openat(dirfd, name, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        /* Only the kernel's own files take triggers: the write would change a copy (a test tree,
         * a file bind-mounted over the real one) and not register anything. */
        struct statfs sfs;
        if (fstatfs(fd, &sfs) < 0)
                return negative_errno();
        if (sfs.f_type != CGROUP2_SUPER_MAGIC && sfs.f_type != PROC_SUPER_MAGIC)
                return -EOPNOTSUPP;
        /* The kernel parses the text up to its NUL; one write registers one trigger. */
        if (write(fd, text, (size_t) n + 1) < 0)
                return negative_errno();
        return TAKE_FD(fd);
}
