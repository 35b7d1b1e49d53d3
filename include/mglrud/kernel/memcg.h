/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memcg.h: single-value cgroup v2 memory files (memory.current, memory.min/low/high/max,
 * memory.swap.current/max) and /proc/meminfo. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEMCG_VALUE_MAX UINT64_MAX /* what "max" parses to */

/* Parses one number or "max" (MEMCG_VALUE_MAX) followed by an optional newline. Returns 0,
 * -EINVAL on anything else, or -ERANGE when the number does not fit (or equals
 * MEMCG_VALUE_MAX, which the kernel spells "max"). */
int memcg_value_parse(const char *buf, size_t len, uint64_t *ret);

/* Reads and parses an open single-value file from offset 0. Returns 0 or a negative errno. */
int memcg_value_read(int fd, uint64_t *ret);

struct memcg_limits {
        uint64_t current, min;
        uint64_t swap_current, swap_max; /* swap_current is read (else 0) only when swap_max is
                                          * finite: it serves only to size the swap room */
        bool has_swap; /* memory.swap.* exist (swap accounting on) */
        /* memory.high and memory.max (MEMCG_VALUE_MAX: "max"), read only for the cgroups that
         * keep headroom under them (HighHeadroom=); meaningless unless has_high_max. */
        uint64_t high, max;
        bool has_high_max;
};

struct meminfo {
        uint64_t mem_total, mem_available, swap_total, swap_free; /* bytes */
        /* The LRU lists (Active(anon), Inactive(anon), Active(file), Inactive(file)): what a
         * kernel without MGLRU tells about use, with no age attached. has_lru when all four
         * were there. */
        uint64_t active_anon, inactive_anon, active_file, inactive_file;
        bool has_lru;
};

/* Parses /proc/meminfo ("Key:  N kB\n" or "Key:  N\n"; every line must be well formed and end
 * in '\n'); MemTotal, MemAvailable, SwapTotal and SwapFree are required and returned in bytes,
 * the four LRU list sizes are optional (has_lru).
 * Returns 0, or -EINVAL when one is missing, a line is malformed or a value overflows. */
int meminfo_parse(const char *buf, size_t len, struct meminfo *ret, unsigned *ret_bad_line);

/* Reads and parses an open /proc/meminfo. Returns 0 or a negative errno. */
int meminfo_read(int fd, struct meminfo *ret, unsigned *ret_bad_line);
