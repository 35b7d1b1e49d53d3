/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lrugen.h: the multi-gen LRU histogram in /sys/kernel/debug/lru_gen and lru_gen_full, in the
 * 6.1 format (16-bit private ids, "RT "/"rep", LOYNFA) and the 7.x format (64-bit cgroup ids,
 * "RTx"/"xxx", TYFA). One read per cycle into a growing buffer, indexed by memcg id and node. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mglrud/shared/fileio.h"

#define LRUGEN_MAX_NR_GENS 4
#define LRUGEN_MAX_NR_TIERS 4

enum lrugen_type { LRUGEN_ANON = 0, LRUGEN_FILE = 1, _LRUGEN_NR_TYPES };

/* What the reader keeps of a histogram is what the controllers use, the way memstat keeps the
 * memory.stat keys they use: a node can have a record per memcg and node by the ten thousand,
 * and each is parsed again every cycle. Everything else is still checked (a malformed line
 * rejects the text) but not kept: the R/T averages printed on max_seq, the protected counts and
 * the mm-walk line. */

struct lrugen_gen {
        uint64_t seq;
        uint64_t nr_pages[_LRUGEN_NR_TYPES];    /* base pages */
        uint32_t age_ms;                        /* u32 as printed; wraps after ~49.7 days */
        bool gone[_LRUGEN_NR_TYPES];            /* "x" mark (full only): older than min_seq */
        bool has_tiers;                         /* lru_gen_full: its four tier lines were there */
};

/* lru_gen_full's "r e p" lines of a type: per tier, the pages refaulted and evicted in the
 * current eviction period. The kernel prints them on the type's min_seq generation (placeholders
 * on the others); a tier that had no "r e p" line counts 0. The controllers use the file type's
 * (tiering-plan.c: hot file tiers refaulting), so only those are kept. */
struct lrugen_tiers {
        uint64_t refaulted[LRUGEN_MAX_NR_TIERS];
        uint64_t evicted[LRUGEN_MAX_NR_TIERS];
};

/* One lruvec: one memcg on one node. */
struct lrugen_lruvec {
        uint64_t memcg_id;      /* 7.x: cgroup id (= cgroupfs inode); 6.x: private 16-bit id */
        uint32_t path_off;      /* lrugen_path(): the absolute cgroup path (may contain spaces) */
        int node;
        unsigned nr_gens;       /* 1..LRUGEN_MAX_NR_GENS, oldest first */
        /* The generation (index into gens) whose file tier 0 line was "r e p" (the oldest such),
         * whose file r/e lines file_tiers holds; -1 when none was (lru_gen, or placeholders). */
        int8_t file_tiers_gen;
        struct lrugen_gen gens[LRUGEN_MAX_NR_GENS];
        struct lrugen_tiers file_tiers;
};

enum lrugen_format {
        LRUGEN_FORMAT_UNKNOWN = 0, /* nothing told the versions apart (e.g. no tier lines) */
        LRUGEN_FORMAT_V6,          /* "RT "/"rep", LOYNFA */
        LRUGEN_FORMAT_V7,          /* "RTx"/"xxx", TYFA */
};

struct lrugen {
        struct lrugen_lruvec *lruvecs; /* sorted by (memcg_id, node), duplicates removed */
        size_t n_lruvecs;
        bool full;                     /* tier lines were present */
        enum lrugen_format format;
        char *paths;                   /* the paths, NUL-terminated (lrugen_lruvec.path_off) */
        bool no_paths;                 /* read with LRUGEN_READ_NO_PATHS */
        size_t paths_len, paths_cap;
        size_t lruvecs_cap;

        /* Malformed records: each costs its own memcg only (left out of lruvecs). */
        unsigned n_bad;                /* malformed memcg blocks or records */
        unsigned first_bad_line;       /* line of the first (1-based) */
        uint64_t *bad_ids;             /* their memcg ids, where the memcg line was readable */
        size_t *bad_path_offs;         /* ... and their paths (offsets into paths) */
        size_t n_bad_ids, bad_ids_cap;
};

/* Returns the cgroup path of v, a lruvec of l ("" when read with LRUGEN_READ_NO_PATHS). */
static inline const char *lrugen_path(const struct lrugen *l, const struct lrugen_lruvec *v) {
        return l->paths + v->path_off;
}

/* Parses a whole lru_gen or lru_gen_full text. Records with memcg id 0 (6.x zombies, or memcg
 * disabled) are dropped; a record seen twice (a racy multi-chunk read) keeps the last copy.
 * Reuses ret's storage when called again (paths from an earlier parse become invalid).
 * Strict per memcg, because a misread histogram drives eviction: every line must end in '\n';
 * a memcg line is followed by a node line, every node has 1..4 consecutive generations, in
 * lru_gen_full every generation has exactly 4 tier lines (0..3) and either every or no
 * generation of a lruvec has an mm line; R/T tiers and the uppercase mm line sit on max_seq
 * only; 6.1 and 7.x placeholders are not mixed; numbers fit (age_ms in u32). A memcg whose
 * block breaks a rule is left out (all its nodes), counted in n_bad with the line of the first
 * such block, and its id listed (lrugen_memcg_bad()); the others are kept. Returns 0, -EINVAL
 * when the text is empty or no record at all is usable (n_bad says why), or -ENOMEM. */
int lrugen_parse(const char *buf, size_t len, struct lrugen *ret);

/* How much of lru_gen lrugen_read() holds at a time. */
#define LRUGEN_READ_CHUNK (64 * 1024)

enum lrugen_read_flags {
        /* The ids are cgroup ids (7.x): a cgroup is found by its id, so the paths are not kept
         * (every lrugen_path() is ""): the pool holds a NUL per memcg instead of its path (37
         * bytes on average in the 10,000-cgroup fixture). The text is checked all the same, so
         * the parse costs the same (bench-lrugen: 16,200 instructions a record either way). */
        LRUGEN_READ_NO_PATHS = 1u << 0,
};

/* Reads the open lru_gen(_full) fd from offset 0 and parses it into ret, LRUGEN_READ_CHUNK
 * bytes at a time through buf (kept by the caller and reused across cycles; it grows only for
 * a line longer than that), as enum lrugen_read_flags say. buf->len is set to the bytes read.
 * Returns 0, a negative errno from the read (ret is then left empty), or what lrugen_parse
 * returns. */
int lrugen_read(int fd, struct read_buf *buf, unsigned flags, struct lrugen *ret);

/* Frees everything lrugen_parse allocated. */
void lrugen_done(struct lrugen *l);

/* Returns the number of lruvecs (nodes) of memcg_id and points *ret_first at the first. */
size_t lrugen_find_memcg(const struct lrugen *l, uint64_t memcg_id,
                         const struct lrugen_lruvec **ret_first);

/* Returns true when the record of memcg_id, or of the memcg at path (6.x ids are looked up by
 * path; NULL: by id only; ignored when l was read without paths), was malformed in the last
 * parse: it has no histogram this read, which is not the same as having none. */
bool lrugen_memcg_bad(const struct lrugen *l, uint64_t memcg_id, const char *path);

/* Returns the first lruvec whose path equals path (6.x id lookups), or NULL (always when l was
 * read without paths). */
const struct lrugen_lruvec *lrugen_find_path(const struct lrugen *l, const char *path);
