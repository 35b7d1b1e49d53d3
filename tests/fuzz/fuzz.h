/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz.h: the libFuzzer entry point every fuzz-*.c defines. The same files link either with
 * libFuzzer (-Dlibfuzzer=true, clang) or with fuzz-main.c, the corpus + mutation driver that
 * `meson test --suite fuzz` runs under ASan/UBSan with any compiler. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts (so both drivers report a crash with the input) when a parser broke a promise. */
#define fuzz_check(expr)                                                                       \
        do {                                                                                   \
                if (!(expr)) {                                                                 \
                        fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__,   \
                                #expr);                                                        \
                        abort();                                                               \
                }                                                                              \
        } while (0)
