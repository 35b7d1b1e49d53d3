/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lrugen.c: one parse of the histogram, by memcg block (a malformed block costs itself, not the
 * read), the chunked read of the file and the storage one read leaves for the next. */
#include "mglrud/kernel/lrugen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

#include "lrugen-internal.h"

/* Notes that the memcg (if known) of a malformed record has no histogram this read. Returns 0
 * or -ENOMEM. */
static int note_bad_id(struct lrugen *l, uint64_t id, size_t path_off) {
        for (size_t i = 0; i < l->n_bad_ids; i++)
                if (l->bad_ids[i] == id)
                        return 0;
        if (l->n_bad_ids == l->bad_ids_cap) {
                size_t cap = MAX(l->bad_ids_cap * 2, (size_t) 8);
                uint64_t *n = reallocarray(l->bad_ids, cap, sizeof *n);
                if (n)
                        l->bad_ids = n;
                size_t *o = reallocarray(l->bad_path_offs, cap, sizeof *o);
                if (o)
                        l->bad_path_offs = o;
                if (!n || !o)
                        return -ENOMEM;
                l->bad_ids_cap = cap;
        }
        l->bad_path_offs[l->n_bad_ids] = path_off;
        l->bad_ids[l->n_bad_ids++] = id;
        return 0;
}

/* The current memcg's block is malformed at line: drops its records (the last ones) and skips
 * to the next memcg line. Returns 0 or -ENOMEM. */
static int bad_block(struct parser *ps, unsigned line) {
        struct lrugen *l = ps->out;
        if (l->n_bad++ == 0)
                l->first_bad_line = line;
        ps->n_recs = ps->block_first;
        int r = ps->have_memcg ? note_bad_id(l, ps->memcg_id, ps->memcg_path_off) : 0;
        ps->have_memcg = ps->want_node = ps->rec_open = false;
        ps->cur_tiers = 0;
        ps->skipping = true;
        return r;
}

/* Ends the current memcg's block at a memcg line or at the end; a block that is not complete is
 * dropped. Returns 0 or -ENOMEM. */
static int end_block(struct parser *ps) {
        if (ps->skipping || !ps->have_memcg)
                return 0;
        return lrugen_finish_rec(ps) < 0 ? bad_block(ps, ps->lineno) : 0;
}

/* One line: a memcg line ends the block before it and starts one; a line the block cannot have
 * costs the block. Returns 0 or -ENOMEM. */
static int parse_line(struct parser *ps, const char *s, size_t len) {
        bool memcg = len >= 5 && memcmp(s, "memcg", 5) == 0;
        int r;

        ps->lineno++;
        if (memcg) {
                if ((r = end_block(ps)) < 0)
                        return r;
                ps->skipping = false;
                ps->block_first = ps->n_recs;
        } else if (ps->skipping)
                return 0;
        r = memcg ? lrugen_parse_memcg_line(ps, s, len) : lrugen_parse_other_line(ps, s, len);
        if (r == -ENOMEM)
                return r;
        return r < 0 ? bad_block(ps, ps->lineno) : 0;
}

/* Returns the records a histogram of n is given room for after its parse: n and a sixteenth
 * (churn moves the count a little from one read to the next; the next parse then fits without
 * a realloc), at least 64. */
static size_t lruvecs_room(size_t n) {
        return MAX(n + n / 16, (size_t) 64);
}

/* Gives back what the parse left unused: the records grow by doubling while the parse does not
 * know their number, which would keep up to half of the array (216 bytes a record) empty every
 * cycle, and the high-water mark of every cgroup (and dying memcg) the node ever listed. Records
 * are cut to lruvecs_room() once they have more than an eighth to spare; the paths to twice what
 * is in use once that is under a quarter of them. */
static void lrugen_shrink(struct lrugen *l) {
        if (l->lruvecs_cap > lruvecs_room(l->n_lruvecs) + l->n_lruvecs / 16) {
                /* A copy, not realloc(): an allocator may shrink a block in place and keep its
                 * tail (valgrind's does, so massif would count it), and this happens only when
                 * the number of records fell or after the doubling, not every cycle. */
                size_t cap = lruvecs_room(l->n_lruvecs);
                struct lrugen_lruvec *v = reallocarray(NULL, cap, sizeof *v);
                if (v) {
                        memcpy(v, l->lruvecs, l->n_lruvecs * sizeof *v);
                        free(l->lruvecs);
                        l->lruvecs = v;
                        l->lruvecs_cap = cap;
                }
        }
        if (l->paths_cap > 4096 && l->paths_len < l->paths_cap / 4) {
                size_t cap = MAX(l->paths_len * 2, (size_t) 4096);
                char *p = realloc(l->paths, cap);
                if (p) {
                        l->paths = p;
                        l->paths_cap = cap;
                }
        }
}

static void lrugen_reset(struct lrugen *l) {
        l->n_lruvecs = 0;
        l->paths_len = 0;
        l->no_paths = false;
        l->full = false;
        l->format = LRUGEN_FORMAT_UNKNOWN;
        l->n_bad = 0;
        l->first_bad_line = 0;
        l->n_bad_ids = 0;
}

/* Parses the complete lines of buf[0..len). Returns the bytes they took (a cut last line is
 * left for the next chunk), or -ENOMEM. */
static ssize_t parse_lines(struct parser *ps, const char *buf, size_t len) {
        size_t pos = 0;

        for (;;) {
                const char *nl = memchr(buf + pos, '\n', len - pos);
                if (!nl)
                        return (ssize_t) pos;
                int r = parse_line(ps, buf + pos, (size_t) (nl - (buf + pos)));
                if (r < 0)
                        return r;
                pos = (size_t) (nl - buf) + 1;
        }
}

/* Ends a parse that took total bytes and left rest unparsed: ends the last block, sorts and
 * publishes. Returns 0 or a negative errno (ret is then left empty but for n_bad and
 * first_bad_line). */
static int parse_end(struct parser *ps, int r, size_t total, size_t rest) {
        struct lrugen *l = ps->out;
        if (r >= 0 && total == 0)
                r = -EINVAL;
        if (r >= 0) {
                /* A last line without '\n' was cut by a racy read: its block goes. */
                ps->lineno++;
                r = rest != 0 && !ps->skipping ? bad_block(ps, ps->lineno) : end_block(ps);
        }
        if (r >= 0)
                r = lrugen_publish(ps);
        /* Nothing usable at all: the whole text is bad. */
        if (r >= 0 && l->n_lruvecs == 0 && l->n_bad > 0)
                r = -EINVAL;
        if (r < 0) {
                unsigned n_bad = l->n_bad, first = l->first_bad_line;
                lrugen_reset(l);
                l->n_bad = n_bad;
                l->first_bad_line = first;
        }
        lrugen_shrink(l);
        return r;
}

int lrugen_parse(const char *buf, size_t len, struct lrugen *ret) {
        struct parser ps = { .out = ret, .full = -1, .sorted = true };

        lrugen_reset(ret);
        if (!buf)
                return -EINVAL;
        ssize_t n = parse_lines(&ps, buf, len);
        return parse_end(&ps, n < 0 ? (int) n : 0, len, n < 0 ? 0 : len - (size_t) n);
}

void lrugen_done(struct lrugen *l) {
        if (!l)
                return;
        free(l->lruvecs);
        free(l->paths);
        free(l->bad_ids);
        free(l->bad_path_offs);
        *l = (struct lrugen) {};
}

int lrugen_read(int fd, struct read_buf *buf, unsigned flags, struct lrugen *ret) {
        struct parser ps = { .out = ret, .full = -1, .sorted = true,
                             .no_paths = flags & LRUGEN_READ_NO_PATHS };
        size_t have = 0, total = 0;
        int r;

        lrugen_reset(ret);
        ret->no_paths = ps.no_paths;
        /* The file is read in chunks and parsed as it comes, so the daemon never holds the
         * whole text (about 2 KiB per memcg in lru_gen_full: 20 MiB at 10,000 cgroups). It
         * costs the kernel nothing more: a read of a seq_file returns at most one seq buffer
         * (a page, more only for a record that does not fit in one) whatever was asked, and
         * each read re-walks the memcgs up to its position either way. */
        r = read_buf_reserve(buf, LRUGEN_READ_CHUNK);
        for (;;) {
                if (r < 0)
                        break;
                if (buf->cap - have < 2)
                        /* A line longer than the buffer (a path can be PATH_MAX long). */
                        if ((r = read_buf_reserve(buf, buf->cap * 2)) < 0)
                                break;
                ssize_t n = pread(fd, buf->data + have, buf->cap - have - 1, (off_t) total);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = negative_errno();
                        break;
                }
                if (n == 0)
                        break;
                have += (size_t) n;
                total += (size_t) n;
                ssize_t used = parse_lines(&ps, buf->data, have);
                if (used < 0) {
                        r = (int) used;
                        break;
                }
                memmove(buf->data, buf->data + used, have - (size_t) used);
                have -= (size_t) used;
        }
        buf->len = total;
        return parse_end(&ps, r, total, have);
}
