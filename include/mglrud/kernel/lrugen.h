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
#define LRUGEN_MAX_MM_STATS 6

enum lrugen_type { LRUGEN_ANON = 0, LRUGEN_FILE = 1, _LRUGEN_NR_TYPES };

enum lrugen_tier_kind {
        LRUGEN_TIER_NONE = 0, /* "xxx" or all-blank: no data for this generation */
        LRUGEN_TIER_REP,      /* r e p: refaulted, evicted, protected (current period) */
        LRUGEN_TIER_RT,       /* R T: averaged refaulted, averaged total (max_seq only) */
};

struct lrugen_tier {
        enum lrugen_tier_kind kind[_LRUGEN_NR_TYPES];
        uint64_t val[_LRUGEN_NR_TYPES][3];
};

struct lrugen_gen {
        uint64_t seq;
        uint32_t age_ms;                        /* u32 as printed; wraps after ~49.7 days */
        uint64_t nr_pages[_LRUGEN_NR_TYPES];    /* base pages */
        bool gone[_LRUGEN_NR_TYPES];            /* "x" mark (full only): older than min_seq */
        bool has_tiers;                         /* lru_gen_full */
        struct lrugen_tier tiers[LRUGEN_MAX_NR_TIERS];
};

/* One lruvec: one memcg on one node. */
struct lrugen_lruvec {
        uint64_t memcg_id;      /* 7.x: cgroup id (= cgroupfs inode); 6.x: private 16-bit id */
        int node;
        const char *path;       /* absolute cgroup path, may contain spaces; owned by lrugen */
        unsigned nr_gens;       /* 1..LRUGEN_MAX_NR_GENS, oldest first */
        struct lrugen_gen gens[LRUGEN_MAX_NR_GENS];
        unsigned nr_mm_stats;   /* 0 (absent), 4 (TYFA) or 6 (LOYNFA): the uppercase line of
                                 * max_seq, cumulative since the lruvec was created. Kernels with
                                 * CONFIG_LRU_GEN_STATS print lowercase per-generation lines
                                 * instead; those are checked but not kept (0 here). */
        uint64_t mm_stats[LRUGEN_MAX_MM_STATS];
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
        char *paths;                   /* storage behind lrugen_lruvec.path */
        size_t paths_len, paths_cap;
        size_t lruvecs_cap;

        /* Malformed records: each costs its own memcg only (left out of lruvecs). */
        unsigned n_bad;                /* malformed memcg blocks or records */
        unsigned first_bad_line;       /* line of the first (1-based) */
        uint64_t *bad_ids;             /* their memcg ids, where the memcg line was readable */
        size_t *bad_path_offs;         /* ... and their paths (offsets into paths) */
        size_t n_bad_ids, bad_ids_cap;
};

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

/* Reads the open lru_gen(_full) fd whole from offset 0 into buf (kept by the caller and
 * reused across cycles: the file can be megabytes) and parses it into ret. Returns 0, a
 * negative errno from the read (ret is then left empty), or what lrugen_parse returns. */
int lrugen_read(int fd, struct read_buf *buf, struct lrugen *ret);

/* Frees everything lrugen_parse allocated. */
void lrugen_done(struct lrugen *l);

/* Returns the number of lruvecs (nodes) of memcg_id and points *ret_first at the first. */
size_t lrugen_find_memcg(const struct lrugen *l, uint64_t memcg_id,
                         const struct lrugen_lruvec **ret_first);

/* Returns true when the record of memcg_id, or of the memcg at path (6.x ids are looked up by
 * path; NULL: by id only), was malformed in the last parse: it has no histogram this read,
 * which is not the same as having none. */
bool lrugen_memcg_bad(const struct lrugen *l, uint64_t memcg_id, const char *path);

/* Returns the first lruvec whose path equals path (6.x id lookups), or NULL. */
const struct lrugen_lruvec *lrugen_find_path(const struct lrugen *l, const char *path);
