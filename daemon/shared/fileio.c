/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/shared/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mglrud/shared/macro.h"

int open_under_root(const char *root, const char *rel, int flags) {
        _cleanup_free_ char *p = NULL;
        if (asprintf(&p, "%s/%s", root, rel) < 0)
                return -ENOMEM;
        int fd = open(p, flags | O_CLOEXEC);
        return fd < 0 ? negative_errno() : fd;
}

void read_buf_free(struct read_buf *b) {
        if (!b)
                return;
        free(b->data);
        *b = (struct read_buf) {};
}

int read_buf_reserve(struct read_buf *b, size_t want) {
        if (b->cap >= want)
                return 0;
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < want) {
                if (cap > SIZE_MAX / 2)
                        return -ENOMEM;
                cap *= 2;
        }
        char *n = realloc(b->data, cap);
        if (!n)
                return -ENOMEM;
        b->data = n;
        b->cap = cap;
        return 0;
}

int read_full_fd(int fd, struct read_buf *b) {
        size_t off = 0;
        int r;

        r = read_buf_reserve(b, 4096);
        if (r < 0)
                return r;

        for (;;) {
                /* Keep one byte for the terminating NUL and always ask for a large chunk:
                 * seq_file based files (lru_gen) re-walk their state on every refill. */
                if (b->cap - off < 2048) {
                        r = read_buf_reserve(b, b->cap * 2);
                        if (r < 0)
                                return r;
                }
                ssize_t n = pread(fd, b->data + off, b->cap - off - 1, (off_t) off);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                off += (size_t) n;
        }
        b->len = off;
        b->data[off] = '\0';
        return 0;
}

int read_fd_into(int fd, char *buf, size_t size, size_t *ret_len) {
        ssize_t n;

        if (size < 2)
                return -EINVAL;
        /* One read: a second one only to see the end would double the syscalls of a cycle (nine
         * files per managed cgroup). */
        do
                n = pread(fd, buf, size - 1, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return negative_errno();
        if ((size_t) n == size - 1)
                return -EFBIG; /* full: there may be more; the caller reads it whole */
        buf[n] = '\0';
        *ret_len = (size_t) n;
        return 0;
}

int read_full_file_at(int dirfd, const char *path, struct read_buf *b) {
        _cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        return read_full_fd(fd, b);
}

int write_string_fd(int fd, const char *s) {
        size_t len = strlen(s);
        ssize_t n;

        do
                n = pwrite(fd, s, len, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0) {
                /* Some kernfs/debugfs files are not seekable for pwrite: fall back. */
                if (errno != ESPIPE)
                        return negative_errno();
                do
                        n = write(fd, s, len);
                while (n < 0 && errno == EINTR);
                if (n < 0)
                        return negative_errno();
        }
        return (size_t) n == len ? 0 : -EIO;
}

int write_string_file_at(int dirfd, const char *path, const char *s) {
        _cleanup_close_ int fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        return write_string_fd(fd, s);
}

bool errno_is_vanished(int err) {
        if (err < 0)
                err = -err;
        return err == ENOENT || err == ENODEV || err == ESTALE;
}

int write_file_atomic(const char *path, const char *text, mode_t mode) {
        _cleanup_free_ char *tmp = NULL;
        const char *slash = strrchr(path, '/');
        int dlen = slash ? (int) (slash - path + 1) : 0;
        int r;

        if (asprintf(&tmp, "%.*s.%s.XXXXXX", dlen, path, slash ? slash + 1 : path) < 0)
                return -ENOMEM;
        /* mkostemp creates with O_EXCL: an existing name (a planted symlink) is never used. */
        _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        size_t len = strlen(text);
        for (size_t off = 0; off < len;) {
                ssize_t n = write(fd, text + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        r = n < 0 ? negative_errno() : -EIO;
                        goto fail;
                }
                off += (size_t) n;
        }
        if (fchmod(fd, mode) < 0 || rename(tmp, path) < 0) {
                r = negative_errno();
                goto fail;
        }
        return 0;
fail:
        (void) unlink(tmp);
        return r;
}
