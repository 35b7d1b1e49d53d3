/* SPDX-License-Identifier: GPL-2.0-or-later */
/* macro.h: small systemd-style helpers (_cleanup_, ELEMENTSOF, ...) shared by every module. */
#pragma once

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _warn_unused_result_ __attribute__((warn_unused_result))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP(x, lo, hi) MIN(MAX((x), (lo)), (hi))

static inline void freep(void *p) {
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
#define _cleanup_close_ _cleanup_(closep)

/* Closes *fd if open and marks it closed (-1), for fds kept in structures. */
static inline void closep_reset(int *fd) {
        closep(fd);
        *fd = -1;
}

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Compares two uint64_t (for qsort() and bsearch()). */
static inline int u64_cmp(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/* Returns a negative errno from errno, never 0 (so callers can return it directly). */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}

/* Steals a pointer: returns it and sets the source to NULL (for _cleanup_ variables). */
#define TAKE_PTR(p)                                     \
        ({                                              \
                __typeof__(p) _p_ = (p);                \
                (p) = NULL;                             \
                _p_;                                    \
        })
#define TAKE_FD(fd)                                     \
        ({                                              \
                int _fd_ = (fd);                        \
                (fd) = -1;                              \
                _fd_;                                   \
        })
