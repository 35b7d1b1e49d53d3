/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lrugen-lines.c: the grammar of lru_gen and lru_gen_full, one line at a time: which line may
 * follow which, what its tokens may be and what of it is kept. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

#include "lrugen-internal.h"

/* The kernel prints (mm/vmscan.c, lru_gen_seq_show):
 *   "memcg %5hu %s\n" (6.x) or "memcg %llu %s\n" (7.x)    once per memcg, on the first node
 *   " node %5d\n"                                          once per memcg and node
 *   " %10lu %10u" + 2 x " %10lu%c" + "\n"                   per generation, %c is 'x' or ' '
 * and with lru_gen_full after each generation line
 *   "            %10d" + 6 x " %10lu%c" + "\n"             per tier, 4 tiers
 *   22 spaces + 4 or 6 x " %10lu%c" + "\n"                 mm walk stats, only with mm_state
 * Numbers wider than their field shift the columns, so lines are split on runs of spaces and
 * told apart by their token count and suffix letters, never by column positions. */

#define LRUGEN_MAX_TOKENS 7

struct token {
        uint64_t value;
        char suffix; /* letter stuck to the number, or 0 (a blank suffix looks the same) */
};

enum tier_kind {
        TIER_NONE = 0, /* "xxx" or all-blank: no data for this generation */
        TIER_REP,      /* r e p: refaulted, evicted, protected (current period) */
        TIER_RT,       /* R T: averaged refaulted, averaged total (max_seq only) */
};

/* Returns the index of the first byte at or after p that is not a space. The fields are padded
 * to ten columns, so most of a line is spaces: they are skipped eight at a time. */
static size_t skip_spaces(const char *s, size_t p, size_t len) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        while (p + 8 <= len) {
                uint64_t w;
                memcpy(&w, s + p, sizeof w);
                w ^= UINT64_C(0x2020202020202020);
                if (w)
                        return p + (size_t) (__builtin_ctzll(w) >> 3); /* the first non-space */
                p += 8;
        }
#endif
        while (p < len && s[p] == ' ')
                p++;
        return p;
}

/* Splits a line (without its newline) on runs of spaces into numbers with an optional
 * one-letter suffix. Returns the token count, or -EINVAL for anything else (other bytes,
 * overflow, more than LRUGEN_MAX_TOKENS tokens). */
static int tokenize(const char *s, size_t len, struct token *toks) {
        size_t p = 0;
        int n = 0;

        for (;;) {
                p = skip_spaces(s, p, len);
                if (p == len)
                        return n;
                if (n == LRUGEN_MAX_TOKENS)
                        return -EINVAL;
                size_t start = p;
                uint64_t v = 0;
                unsigned d;
                /* Digits are summed as they are read; past 19 of them parse_u64_n() decides
                 * (it is the one that knows about overflow). */
                while (p < len && (d = (unsigned) (unsigned char) s[p] - '0') <= 9) {
                        v = v * 10 + d;
                        p++;
                }
                if (p == start || (p - start >= 20 && parse_u64_n(s + start, p - start, &v) < 0))
                        return -EINVAL;
                toks[n].value = v;
                toks[n].suffix = 0;
                if (p < len && s[p] != ' ') {
                        char c = s[p++];
                        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                                return -EINVAL;
                        toks[n].suffix = c;
                        if (p < len && s[p] != ' ')
                                return -EINVAL;
                }
                n++;
        }
}

/* Records which kernel generation printed the file. Returns 0, or -EINVAL when a line says
 * otherwise than an earlier one (one read comes from one kernel). */
static int note_format(struct parser *ps, enum lrugen_format f) {
        if (ps->format != LRUGEN_FORMAT_UNKNOWN && ps->format != f)
                return -EINVAL;
        ps->format = f;
        return 0;
}

static struct lrugen_lruvec *current_rec(struct parser *ps) {
        return ps->rec_open ? &ps->out->lruvecs[ps->n_recs - 1] : NULL;
}

static int check_rec(const struct lrugen_lruvec *v, const struct parsed *p);

/* Checks that the current generation got all its tier lines, and learns from the first
 * generation whether this is lru_gen or lru_gen_full. Returns 0 or -EINVAL. */
static int finish_gen(struct parser *ps) {
        struct lrugen_lruvec *rec = current_rec(ps);
        if (!rec || rec->nr_gens == 0)
                return 0;
        if (ps->cur_tiers != 0 && ps->cur_tiers != LRUGEN_MAX_NR_TIERS)
                return -EINVAL;
        int full = ps->cur_tiers == LRUGEN_MAX_NR_TIERS;
        if (ps->full >= 0 && ps->full != full)
                return -EINVAL;
        ps->full = full;
        return 0;
}

/* Checks a finished lruvec: at least one generation, and mm lines on all or none (the kernel
 * prints them for every generation of a lruvec that has an mm_state). Returns 0 or -EINVAL. */
int lrugen_finish_rec(struct parser *ps) {
        int r = finish_gen(ps);
        if (r < 0)
                return r;
        if (ps->want_node)
                return -EINVAL; /* a memcg line is always followed by its first node */
        struct lrugen_lruvec *rec = current_rec(ps);
        if (!rec)
                return 0;
        if (rec->nr_gens == 0)
                return -EINVAL;
        if (ps->cur.n_mm_lines != 0 && ps->cur.n_mm_lines != rec->nr_gens)
                return -EINVAL;
        r = check_rec(rec, &ps->cur);
        if (r < 0)
                return r;
        ps->rec_open = false;
        return 0;
}

/* Appends s[0..len) and a NUL to the path pool. Returns the offset, or -ENOMEM (also past
 * 4 GiB of paths: offsets are 32 bits). */
static ssize_t pool_add(struct lrugen *l, const char *s, size_t len) {
        if (l->paths_len + len + 1 > UINT32_MAX)
                return -ENOMEM;
        if (l->paths_cap - l->paths_len < len + 1) {
                size_t cap = MAX(l->paths_cap * 2, l->paths_len + len + 1);
                cap = MAX(cap, (size_t) 4096);
                char *n = realloc(l->paths, cap);
                if (!n)
                        return -ENOMEM;
                l->paths = n;
                l->paths_cap = cap;
        }
        size_t off = l->paths_len;
        memcpy(l->paths + off, s, len);
        l->paths[off + len] = '\0';
        l->paths_len += len + 1;
        return (ssize_t) off;
}

/* "memcg <id> <path>": the id may be padded (%5hu), the path is the rest of the line after
 * the one space that follows the id and may itself contain spaces. */
int lrugen_parse_memcg_line(struct parser *ps, const char *s, size_t len) {
        size_t p = 5; /* "memcg" */
        uint64_t id;
        int r;

        r = lrugen_finish_rec(ps);
        if (r < 0)
                return r;
        if (p >= len || s[p] != ' ')
                return -EINVAL;
        while (p < len && s[p] == ' ')
                p++;
        size_t start = p;
        while (p < len && s[p] >= '0' && s[p] <= '9')
                p++;
        if (parse_u64_n(s + start, p - start, &id) < 0)
                return -EINVAL;
        if (p >= len || s[p] != ' ')
                return -EINVAL;
        p++;
        const char *path = s + p;
        size_t plen = len - p;
        if (memchr(path, '\0', plen))
                return -EINVAL;
        /* Id 0 (6.x zombies, memcg disabled) is dropped later; everything else is a live
         * cgroup, whose path is absolute. */
        if (id != 0 && (plen == 0 || path[0] != '/'))
                return -EINVAL;
        ssize_t off = pool_add(ps->out, path, ps->no_paths ? 0 : plen);
        if (off < 0)
                return (int) off;

        ps->have_memcg = true;
        ps->want_node = true;
        ps->memcg_id = id;
        ps->memcg_path_off = (size_t) off;
        return 0;
}

/* " node <nid>": starts a new lruvec of the current memcg. */
static int parse_node_line(struct parser *ps, const char *s, size_t len) {
        struct token tok[LRUGEN_MAX_TOKENS];
        int r, n;

        if (!ps->have_memcg)
                return -EINVAL;
        ps->want_node = false;
        r = lrugen_finish_rec(ps);
        if (r < 0)
                return r;
        n = tokenize(s + 5, len - 5, tok);
        if (n != 1 || tok[0].suffix || tok[0].value > INT32_MAX || len == 5 || s[5] != ' ')
                return -EINVAL;

        struct lrugen *l = ps->out;
        if (ps->n_recs == l->lruvecs_cap) {
                size_t cap = MAX(l->lruvecs_cap * 2, (size_t) 16);
                struct lrugen_lruvec *nv = reallocarray(l->lruvecs, cap, sizeof(*nv));
                if (!nv)
                        return -ENOMEM;
                l->lruvecs = nv;
                l->lruvecs_cap = cap;
        }
        struct lrugen_lruvec *v = &l->lruvecs[ps->n_recs++];
        *v = (struct lrugen_lruvec) {
                .memcg_id = ps->memcg_id,
                .path_off = (uint32_t) ps->memcg_path_off,
                .node = (int) tok[0].value,
                .file_tiers_gen = -1,
        };
        if (ps->n_recs > 1) {
                const struct lrugen_lruvec *p = v - 1;
                ps->sorted = ps->sorted && (p->memcg_id < v->memcg_id ||
                                            (p->memcg_id == v->memcg_id && p->node < v->node));
        }
        ps->sorted = ps->sorted && v->memcg_id != 0;
        ps->cur = (struct parsed) {};
        ps->rec_open = true;
        ps->cur_tiers = 0;
        ps->cur_mm = false;
        return 0;
}

/* " seq age nr_anon[x] nr_file[x]" */
static int parse_gen_line(struct parser *ps, const struct token *tok) {
        struct lrugen_lruvec *rec = current_rec(ps);
        int r;

        if (!rec)
                return -EINVAL;
        r = finish_gen(ps);
        if (r < 0)
                return r;
        if (rec->nr_gens == LRUGEN_MAX_NR_GENS)
                return -EINVAL;
        /* Generations are printed oldest first without gaps, from one snapshot of max_seq. */
        if (rec->nr_gens > 0 && tok[0].value != rec->gens[rec->nr_gens - 1].seq + 1)
                return -EINVAL;
        if (tok[1].suffix || tok[1].value > UINT32_MAX)
                return -EINVAL;

        struct lrugen_gen *g = &rec->gens[rec->nr_gens++];
        *g = (struct lrugen_gen) {
                .seq = tok[0].value,
                .age_ms = (uint32_t) tok[1].value,
        };
        for (int t = 0; t < _LRUGEN_NR_TYPES; t++) {
                if (tok[2 + t].suffix != 0 && tok[2 + t].suffix != 'x')
                        return -EINVAL;
                g->nr_pages[t] = tok[2 + t].value;
                g->gone[t] = tok[2 + t].suffix == 'x';
        }
        ps->cur_tiers = 0;
        ps->cur_mm = false;
        return 0;
}

/* Classifies the 3 suffixes of one type on a tier line. Returns the kind and notes the
 * format, or -EINVAL. 6.1 prints "RT " and "   " where 7.x prints "RTx" and "xxx"; a blank
 * suffix reaches us as 0. */
static int tier_kind(struct parser *ps, const struct token *t) {
        char a = t[0].suffix, b = t[1].suffix, c = t[2].suffix;

        if (a == 'r' && b == 'e' && c == 'p')
                return TIER_REP;
        if (a == 'R' && b == 'T' && (c == 'x' || c == 0)) {
                int r = note_format(ps, c == 'x' ? LRUGEN_FORMAT_V7 : LRUGEN_FORMAT_V6);
                return r < 0 ? r : TIER_RT;
        }
        if ((a == 'x' && b == 'x' && c == 'x') || (a == 0 && b == 0 && c == 0)) {
                int r = note_format(ps, a == 'x' ? LRUGEN_FORMAT_V7 : LRUGEN_FORMAT_V6);
                return r < 0 ? r : TIER_NONE;
        }
        return -EINVAL;
}

/* "tier  n r e p  n r e p" (7 tokens) */
static int parse_tier_line(struct parser *ps, const struct token *tok) {
        struct lrugen_lruvec *rec = current_rec(ps);

        if (!rec || rec->nr_gens == 0 || ps->cur_mm || ps->full == 0)
                return -EINVAL;
        /* The kernel prints tiers 0..MAX_NR_TIERS-1 in order: a fifth tier line is not one. */
        if (tok[0].suffix || tok[0].value != ps->cur_tiers || ps->cur_tiers >= LRUGEN_MAX_NR_TIERS)
                return -EINVAL;

        unsigned gi = rec->nr_gens - 1, tier = ps->cur_tiers;
        for (int t = 0; t < _LRUGEN_NR_TYPES; t++) {
                const struct token *f = tok + 1 + 3 * t;
                int kind = tier_kind(ps, f);
                if (kind < 0)
                        return kind;
                ps->cur.tier_kind[gi][tier][t] = (unsigned char) kind;
                /* The file r/e lines of the oldest generation whose tier 0 is "r e p" (file's
                 * min_seq: the kernel prints them nowhere else). */
                if (t != LRUGEN_FILE || kind != TIER_REP)
                        continue;
                if (tier == 0 && rec->file_tiers_gen < 0)
                        rec->file_tiers_gen = (int8_t) gi;
                if (rec->file_tiers_gen == (int8_t) gi) {
                        rec->file_tiers.refaulted[tier] = f[0].value;
                        rec->file_tiers.evicted[tier] = f[1].value;
                }
        }
        rec->gens[gi].has_tiers = true;
        ps->cur_tiers++;
        return 0;
}

/* The mm-walk stats line: 4 fields TYFA/tyfa/xxxx (6.12+) or 6 fields LOYNFA/loynfa/blank
 * (6.1): the uppercase one is cumulative, on max_seq; the lowercase ones exist only with
 * CONFIG_LRU_GEN_STATS and describe other generations. Checked, not kept. */
static int parse_mm_line(struct parser *ps, const struct token *tok, int n) {
        const char *upper = n == 4 ? "TYFA" : "LOYNFA";
        const char *lower = n == 4 ? "tyfa" : "loynfa";
        struct lrugen_lruvec *rec = current_rec(ps);
        bool is_upper = true, is_lower = true, is_none = true;
        int r;

        if (!rec || rec->nr_gens == 0 || ps->cur_tiers != LRUGEN_MAX_NR_TIERS || ps->cur_mm)
                return -EINVAL;
        r = note_format(ps, n == 4 ? LRUGEN_FORMAT_V7 : LRUGEN_FORMAT_V6);
        if (r < 0)
                return r;
        char placeholder = n == 4 ? 'x' : 0;
        for (int i = 0; i < n; i++) {
                is_upper = is_upper && tok[i].suffix == upper[i];
                is_lower = is_lower && tok[i].suffix == lower[i];
                is_none = is_none && tok[i].suffix == placeholder;
        }
        if (!is_upper && !is_lower && !is_none)
                return -EINVAL;
        ps->cur.mm_kind[rec->nr_gens - 1] = is_upper ? 'U' : is_lower ? 'l' : 'n';
        ps->cur.n_mm_lines++;
        ps->cur_mm = true;
        return 0;
}

static int parse_numeric_line(struct parser *ps, const char *s, size_t len) {
        struct token tok[LRUGEN_MAX_TOKENS];
        int n = tokenize(s, len, tok);

        switch (n) {
        case 4:
                /* Generation lines start with two bare numbers; mm lines (6.12+) carry a
                 * letter on every field. */
                return tok[0].suffix ? parse_mm_line(ps, tok, n) : parse_gen_line(ps, tok);
        case 6:
                return parse_mm_line(ps, tok, n);
        case 7:
                return parse_tier_line(ps, tok);
        default:
                return -EINVAL;
        }
}

int lrugen_parse_other_line(struct parser *ps, const char *s, size_t len) {
        if (len >= 5 && memcmp(s, " node", 5) == 0)
                return parse_node_line(ps, s, len);
        if (ps->want_node || len == 0 || s[0] != ' ')
                return -EINVAL;
        return parse_numeric_line(ps, s, len);
}

/* lru_gen_seq_show_full prints R/T tiers and the uppercase mm line for max_seq (the last
 * generation) and only there, and the lowercase mm line never there: lines elsewhere were not
 * printed in this order by the kernel. Returns 0 or -EINVAL. */
static int check_rec(const struct lrugen_lruvec *v, const struct parsed *p) {
        for (unsigned i = 0; i < v->nr_gens; i++) {
                bool last = i + 1 == v->nr_gens;

                if (p->mm_kind[i] == (last ? 'l' : 'U'))
                        return -EINVAL;
                if (!v->gens[i].has_tiers)
                        continue;
                for (int tier = 0; tier < LRUGEN_MAX_NR_TIERS; tier++)
                        for (int t = 0; t < _LRUGEN_NR_TYPES; t++)
                                if ((p->tier_kind[i][tier][t] == TIER_RT) != last)
                                        return -EINVAL;
        }
        return 0;
}
