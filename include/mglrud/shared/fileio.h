/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.h: the project's only file I/O helpers. Readers keep their files open and pread from
 * offset 0 each cycle; writers go through write_string_fd so tests and dry-run see one path. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A growable buffer for whole-file reads (lru_gen can be megabytes). */
struct read_buf {
        char *data;
        size_t len;     /* bytes valid, data[len] is always '\0' */
        size_t cap;
};

void read_buf_free(struct read_buf *b);

/* Grows b to hold at least want bytes (powers of two from 4 KiB). Returns 0 or -ENOMEM. */
int read_buf_reserve(struct read_buf *b, size_t want);

/* Reads the whole file behind fd from offset 0 into b (growing it as needed) with pread, so the
 * fd can be kept open across cycles. Returns 0, or a negative errno (-ENOENT/-ENODEV when the
 * cgroup behind it vanished). */
int read_full_fd(int fd, struct read_buf *b);

/* Reads a file the kernel prints in one go (a cgroup attribute, a pressure file,
 * /proc/meminfo: one seq_file record) into buf with one pread from offset 0: such a read returns
 * the whole text when it fits, as systemd's read_virtual_file() relies on. size bytes: at most
 * size - 1 of data, then a NUL. Sets *ret_len. Returns 0, -EFBIG when the buffer filled up (there
 * may be more: read it with read_full_fd()), or a negative errno. Not for files printed record by
 * record (lru_gen, /proc/swaps): a read of those may stop at any record. */
int read_fd_into(int fd, char *buf, size_t size, size_t *ret_len);

/* Opens path (relative to dirfd when not AT_FDCWD) read-only and reads it whole.
 * Returns 0, or a negative errno. */
int read_full_file_at(int dirfd, const char *path, struct read_buf *b);

/* Opens root/rel with flags (O_CLOEXEC added): a kernel file under an injectable root (the
 * proc and debugfs roots). Returns the new fd, or a negative errno. */
int open_under_root(const char *root, const char *rel, int flags);

/* Writes s to fd at offset 0 in a single write() (kernel interfaces parse one write per
 * command). Returns 0, or a negative errno; a short write is -EIO. */
int write_string_fd(int fd, const char *s);

/* Opens path relative to dirfd for writing and writes s in one write(). Returns 0 or -errno. */
int write_string_file_at(int dirfd, const char *path, const char *s);

/* Replaces path with text atomically: writes a new file with a random name (O_EXCL) in path's
 * directory, gives it mode, and renames it over path. A symlink planted at any name in that
 * directory is neither followed nor written through; a failure leaves path as it was and no
 * temporary file behind. Returns 0 or a negative errno. */
int write_file_atomic(const char *path, const char *text, mode_t mode);

/* Returns true if errno value err (positive or negative) means "the cgroup went away". */
bool errno_is_vanished(int err);

/* What READ_AND_PARSE reads on the stack: every per-cgroup file (memory.stat is ~2 KiB) and
 * /proc/meminfo fit; a bigger file goes to the heap. */
#define READ_SMALL_MAX 8192

/* Reads a file the kernel prints in one go (read_fd_into()) from offset 0 and hands it to
 * parse(buf, len, ret, ...): the one shape of the per-cycle readers' *_read() (the extra
 * arguments, e.g. where to put the line of a parse error, go to parse). They run for every
 * managed cgroup every cycle: one pread into a stack buffer, and only a file that fills it is
 * read again, whole, on the heap. Evaluates to 0 or a negative errno. */
#define READ_AND_PARSE(fd, parse, ret, ...)                                     \
        ({                                                                      \
                char _s_[READ_SMALL_MAX];                                       \
                size_t _n_ = 0;                                                 \
                int _r_ = read_fd_into((fd), _s_, sizeof _s_, &_n_);            \
                if (_r_ >= 0)                                                   \
                        _r_ = parse(_s_, _n_, (ret) __VA_OPT__(,) __VA_ARGS__); \
                else if (_r_ == -EFBIG) {                                       \
                        struct read_buf _b_ = {};                               \
                        _r_ = read_full_fd((fd), &_b_);                         \
                        if (_r_ >= 0)                                           \
                                _r_ = parse(_b_.data, _b_.len, (ret)            \
                                            __VA_OPT__(,) __VA_ARGS__);         \
                        read_buf_free(&_b_);                                    \
                }                                                               \
                _r_;                                                            \
        })
