/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fixture.h: helpers shared by the reader tests. */
#pragma once

#include <stddef.h>

#include "mglrud/shared/fileio.h"

/* Reads $MGLRUD_FIXTURES/rel whole into b. Returns 0 or a negative errno. */
int fixture_read(const char *rel, struct read_buf *b);

/* Returns true when $MGLRUD_FIXTURES/rel exists (for fixtures other work still fills in). */
int fixture_exists(const char *rel);

/* Returns a memfd holding text[0..len), with its offset moved to the end so that only a
 * pread-from-0 reader sees the data. Returns the fd or a negative errno. */
int fixture_memfd(const char *text, size_t len);

/* Returns a malloc'd copy of s[0..len) with no terminating NUL (so ASan catches a parser that
 * reads past len), or NULL. */
char *fixture_dup_exact(const char *s, size_t len);

/* cmocka 1.1 only compares floats; this compares doubles (include cmocka.h first). */
#define assert_double_near(a, b, eps)                                                          \
        do {                                                                                   \
                double _a_ = (a), _b_ = (b);                                                   \
                if (!(_a_ - _b_ <= (eps) && _b_ - _a_ <= (eps)))                               \
                        fail_msg("%s = %.17g, expected %.17g", #a, _a_, _b_);                  \
        } while (0)
