/* SPDX-License-Identifier: GPL-2.0-or-later */
/* swaps.h: /proc/swaps, to tell compressed swap (zram) from disk swap. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct swaps_summary {
        unsigned n_devices; /* active swap areas */
        unsigned n_zram;    /* of which zram block devices (/dev/zramN) */
        uint64_t size_kib, used_kib;
};

/* Parses /proc/swaps: the "Filename Type Size Used Priority" header, then one line per swap
 * area, "<path> <partition|file|...> <size KiB> <used KiB> <priority>" separated by blanks,
 * with possibly more columns after the priority (newer kernels add an Id); the path has its
 * blanks escaped by the kernel (\040), so it is one field. Every line must end in '\n'.
 * Returns 0, or -EINVAL on a missing header, a short line, a bad number or a cut last line. */
int swaps_parse(const char *buf, size_t len, struct swaps_summary *ret, unsigned *ret_bad_line);

/* Reads and parses an open /proc/swaps from offset 0. Returns 0 or a negative errno. */
int swaps_read(int fd, struct swaps_summary *ret, unsigned *ret_bad_line);

/* Returns true when swap exists and every area is zram: an anon refault is then a
 * decompression in RAM, not a disk read. */
static inline bool swaps_all_compressed(const struct swaps_summary *s) {
        return s->n_devices > 0 && s->n_zram == s->n_devices;
}
