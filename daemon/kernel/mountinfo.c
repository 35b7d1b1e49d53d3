/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/kernel/mountinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"

/* Parses a decimal unsigned int at line[*p..len) up to the byte stop (or the end when stop is
 * 0) and moves *p past that byte. Returns 0, or -EINVAL for no digits, another byte or
 * overflow. */
static int take_uint(const char *line, size_t len, size_t *p, char stop, unsigned *ret) {
        unsigned long long v = 0;
        size_t start = *p;

        while (*p < len && line[*p] >= '0' && line[*p] <= '9') {
                v = v * 10 + (unsigned) (line[*p] - '0');
                if (v > 0xffffffffULL)
                        return -EINVAL;
                (*p)++;
        }
        if (*p == start || (stop && (*p == len || line[*p] != stop)))
                return -EINVAL;
        if (stop)
                (*p)++;
        *ret = (unsigned) v;
        return 0;
}

/* Moves *p past a field, up to the next space or the end of the line. Returns 0 and where the
 * field starts and its length, or -EINVAL for an empty field. */
static int take_field(const char *line, size_t len, size_t *p, size_t *ret_start,
                      size_t *ret_len) {
        size_t start = *p;
        while (*p < len && line[*p] != ' ')
                (*p)++;
        if (*p == start)
                return -EINVAL;
        *ret_start = start;
        *ret_len = *p - start;
        return 0;
}

/* Decodes the octal escapes (\040 for a space) of s[0..len) into out (size bytes). Returns 0,
 * or -EINVAL when it does not fit or holds a NUL. */
static int unescape_octal(const char *s, size_t len, char *out, size_t size) {
        size_t w = 0;
        for (size_t i = 0; i < len; i++) {
                char c = s[i];
                if (c == '\\' && len - i > 3 && s[i + 1] >= '0' && s[i + 1] <= '3' &&
                    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
                        c = (char) ((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
                                    (s[i + 3] - '0'));
                        i += 3;
                }
                if (c == 0 || w + 1 >= size)
                        return -EINVAL;
                out[w++] = c;
        }
        out[w] = 0;
        return 0;
}

/* Parses one line without its '\n'. Returns 0 and *ret, or -EINVAL. */
static int parse_line(const char *line, size_t len, struct mountinfo_line *ret) {
        struct mountinfo_line l;
        unsigned id, parent;
        size_t p = 0, start, n;

        if (take_uint(line, len, &p, ' ', &id) < 0 || take_uint(line, len, &p, ' ', &parent) < 0 ||
            take_uint(line, len, &p, ':', &l.major) < 0 ||
            take_uint(line, len, &p, ' ', &l.minor) < 0)
                return -EINVAL;
        if (take_field(line, len, &p, &start, &n) < 0 || p == len) /* the root */
                return -EINVAL;
        p++;
        if (take_field(line, len, &p, &start, &n) < 0 ||
            unescape_octal(line + start, n, l.mount_point, sizeof l.mount_point) < 0)
                return -EINVAL;
        *ret = l;
        return 0;
}

int mountinfo_next(const char *buf, size_t len, size_t *pos, struct mountinfo_line *ret) {
        if (*pos >= len)
                return 0;
        const char *line = buf + *pos, *nl = memchr(line, '\n', len - *pos);
        size_t n = nl ? (size_t) (nl - line) : len - *pos;
        *pos += n + (nl ? 1 : 0);
        return parse_line(line, n, ret) < 0 ? -EINVAL : 1;
}

int mountinfo_open_dev(const char *proc_root, dev_t dev, char *what, size_t what_size) {
        _cleanup_(read_buf_free) struct read_buf b = {};
        struct mountinfo_line l;
        char path[512];
        int r;

        snprintf(what, what_size, "%u:%u", major(dev), minor(dev));
        snprintf(path, sizeof path, "%s/self/mountinfo", proc_root);
        r = read_full_file_at(AT_FDCWD, path, &b);
        if (r < 0)
                return r;
        for (size_t pos = 0; (r = mountinfo_next(b.data, b.len, &pos, &l)) != 0;) {
                if (r < 0 || makedev(l.major, l.minor) != dev)
                        continue; /* a line that does not parse is not the one we look for */
                snprintf(what, what_size, "%s", l.mount_point);
                int fd = open(l.mount_point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd >= 0)
                        return fd;
        }
        return -ENOENT;
}
