/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memstat.h: the memory.stat keys the policy uses. Absent keys are reported absent, not 0. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum memstat_key {
        MEMSTAT_ANON,
        MEMSTAT_FILE,
        MEMSTAT_SHMEM,
        MEMSTAT_FILE_MAPPED,
        MEMSTAT_FILE_DIRTY,
        MEMSTAT_ZSWAP,
        MEMSTAT_ZSWAPPED,
        MEMSTAT_INACTIVE_ANON,  /* the LRU lists: all a kernel without MGLRU tells about use */
        MEMSTAT_ACTIVE_ANON,
        MEMSTAT_INACTIVE_FILE,
        MEMSTAT_ACTIVE_FILE,
        /* Amounts above, which go up and down; cumulative event counters from here on. */
        MEMSTAT_WORKINGSET_REFAULT_ANON,
        MEMSTAT_WORKINGSET_REFAULT_FILE,
        MEMSTAT_WORKINGSET_ACTIVATE_ANON,
        MEMSTAT_WORKINGSET_ACTIVATE_FILE,
        MEMSTAT_WORKINGSET_RESTORE_ANON,
        MEMSTAT_WORKINGSET_RESTORE_FILE,
        MEMSTAT_WORKINGSET_NODERECLAIM,
        MEMSTAT_PGSCAN,
        MEMSTAT_PGSCAN_KSWAPD,
        MEMSTAT_PGSCAN_DIRECT,
        MEMSTAT_PGSCAN_PROACTIVE,
        MEMSTAT_PGSTEAL,
        MEMSTAT_PGSTEAL_KSWAPD,
        MEMSTAT_PGSTEAL_DIRECT,
        MEMSTAT_PGSTEAL_PROACTIVE,
        MEMSTAT_PSWPIN,
        MEMSTAT_PSWPOUT,
        MEMSTAT_ZSWPIN,
        MEMSTAT_ZSWPOUT,
        _MEMSTAT_KEY_MAX,
};

struct memstat {
        uint64_t value[_MEMSTAT_KEY_MAX];
        uint32_t present; /* bit (1u << key) set when the key was in the file */
};

/* Returns the memory.stat key name of k ("workingset_refault_anon"), or NULL. */
const char *memstat_key_to_string(enum memstat_key k);

/* Parses memory.stat text: "key value\n" lines; unknown keys are ignored (but their lines
 * must still be well formed), a key seen twice keeps its last value. Returns 0, or -EINVAL on
 * a malformed line (no value, garbage, overflow, no final newline) or empty input, with the
 * line (1-based, 0 for the whole file) in *ret_bad_line when it is not NULL. */
int memstat_parse(const char *buf, size_t len, struct memstat *ret, unsigned *ret_bad_line);

/* Reads and parses an open memory.stat from offset 0. Returns 0 or a negative errno. */
int memstat_read(int fd, struct memstat *ret, unsigned *ret_bad_line);

/* The accessors below are inline: the policy uses them on samples without linking the reader. */

/* Returns true when key k was in the file. */
static inline bool memstat_has(const struct memstat *s, enum memstat_key k) {
        return (unsigned) k < _MEMSTAT_KEY_MAX && (s->present & (UINT32_C(1) << k));
}

/* Returns true and sets *ret_value (if not NULL) when key k was present. */
static inline bool memstat_get(const struct memstat *s, enum memstat_key k, uint64_t *ret_value) {
        if (!memstat_has(s, k))
                return false;
        if (ret_value)
                *ret_value = s->value[k];
        return true;
}

/* Returns cur - prev for counter k, or 0 when either is absent or it went backwards. */
static inline uint64_t memstat_delta(const struct memstat *prev, const struct memstat *cur,
                                     enum memstat_key k) {
        if (!memstat_has(prev, k) || !memstat_has(cur, k) || cur->value[k] < prev->value[k])
                return 0;
        return cur->value[k] - prev->value[k];
}
