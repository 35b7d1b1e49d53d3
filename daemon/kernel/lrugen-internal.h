/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lrugen-internal.h: the histogram parser's state, shared between lrugen.c (blocks, the read and
 * the storage), lrugen-lines.c (what each line may say) and lrugen-sort.c (the sort that
 * publishes the records). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mglrud/kernel/lrugen.h"

/* What the parser knows of the record being read (the last one), beyond what it keeps. */
struct parsed {
        unsigned n_mm_lines; /* generations that had an mm-stats line */
        char mm_kind[LRUGEN_MAX_NR_GENS]; /* per generation: 'U'pper, 'l'ower, 'n'one or 0 */
        /* per generation, tier and type: enum tier_kind */
        unsigned char tier_kind[LRUGEN_MAX_NR_GENS][LRUGEN_MAX_NR_TIERS][_LRUGEN_NR_TYPES];
};

/* Records go straight into out->lruvecs, in file order, until publish() sorts them in place:
 * no second copy of a histogram that has a record per memcg and node (thousands). A malformed
 * memcg block is cut off the end again (its records are the last ones) and skipped. */
struct parser {
        struct lrugen *out;
        size_t n_recs;
        bool sorted;           /* so far every record came after the one before it */
        struct parsed cur;     /* the last record */
        bool rec_open;         /* the last record is being read (not checked yet) */

        unsigned lineno;       /* of the line being parsed */
        size_t block_first;    /* the current memcg's first record */
        bool skipping;         /* in a malformed block: until the next memcg line */

        bool have_memcg;       /* a memcg line was seen */
        bool want_node;        /* the previous line was a memcg line */
        uint64_t memcg_id;
        size_t memcg_path_off;
        bool no_paths;         /* LRUGEN_READ_NO_PATHS: every path is "" */

        int full;              /* -1 unknown, 0 lru_gen, 1 lru_gen_full */
        unsigned cur_tiers;    /* tier lines seen after the current generation line */
        bool cur_mm;           /* the current generation had its mm line */
        enum lrugen_format format;
};

/* Checks the record being read, once it is complete (at a node or memcg line, or at the end).
 * Returns 0, or -EINVAL when it is not one the kernel prints. */
int lrugen_finish_rec(struct parser *ps);

/* A "memcg <id> <path>" line: ends the record before it and notes the memcg. Returns 0,
 * -ENOMEM, or -EINVAL for a line the kernel does not print. */
int lrugen_parse_memcg_line(struct parser *ps, const char *s, size_t len);

/* Any other line (node, generation, tier, mm walk). Returns 0, -ENOMEM, or -EINVAL for a line
 * the kernel does not print there. */
int lrugen_parse_other_line(struct parser *ps, const char *s, size_t len);

/* Sorts the parsed records by (memcg id, node) and sets the histogram's count. Returns 0 or
 * -ENOMEM. */
int lrugen_publish(struct parser *ps);
