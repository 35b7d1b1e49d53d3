/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/shared/idle-table.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

const char *idle_table_bytes(char *buf, size_t size, uint64_t bytes, unsigned flags) {
        char b[32];

        if (flags & IDLE_TABLE_UNKNOWN)
                snprintf(buf, size, "?");
        else
                snprintf(buf, size, "%s%s", flags & IDLE_TABLE_PARTIAL ? "≥" : "",
                         format_bytes(b, sizeof b, bytes));
        return buf;
}

/* "≥" is three bytes in UTF-8 but one column: pad by what the eye sees. */
static int columns(const char *s) {
        int cols = 0;
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                cols += (*p & 0xc0) != 0x80;
        return cols;
}

static void put_right(FILE *f, const char *s, int width) {
        int cols = columns(s);
        fprintf(f, "%*s%s", width > cols ? width - cols : 0, "", s);
}

static void put_left(FILE *f, const char *s, int width) {
        int cols = columns(s);
        fprintf(f, "%s%*s", s, width > cols ? width - cols : 0, "");
}

static void print_lists(FILE *f, const struct idle_table *t) {
        char a[16], b[16], c[16], d[16];

        fprintf(f, "  no lru_gen histogram (no debugfs, lockdown, or a kernel without MGLRU): how "
                   "long memory has been idle cannot be estimated, so there is no idle-age "
                   "profile and no savings forecast.\n");
        if (!t->has_lru_lists) {
                fprintf(f, "  The LRU lists are not available either.\n");
                return;
        }
        fprintf(f, "  What %s tells: inactive anon %s file %s, active anon %s file %s: the "
                   "inactive lists hold pages the kernel has not seen used lately, with no age "
                   "attached; how much of them a threshold would free is not known.\n",
                t->lru_lists_source ? t->lru_lists_source : "the kernel",
                format_bytes(a, sizeof a, t->inactive[0]),
                format_bytes(b, sizeof b, t->inactive[1]),
                format_bytes(c, sizeof c, t->active[0]), format_bytes(d, sizeof d, t->active[1]));
}

static void print_heading(FILE *f, const struct idle_table *t) {
        char h[16], a1[16], a2[16];

        if (t->policy)
                fprintf(f, "%s [%s]\n", t->title, t->policy);
        else
                fprintf(f, "%s\n", t->title);
        if (!t->has_lrugen)
                return;
        fprintf(f, "  lru_gen, %zu lruvec%s: ", t->n_lruvecs, t->n_lruvecs == 1 ? "" : "s");
        if (t->n_lruvecs == 0) {
                fprintf(f, "no pages\n");
                return;
        }
        if (t->horizon_usec == 0)
                fprintf(f, "no generation older than the youngest holds pages: no idle time "
                           "known yet");
        else
                fprintf(f, "the oldest generation is idle ≥ %s",
                        format_duration(h, sizeof h, t->horizon_usec));
        format_duration(a1, sizeof a1, t->aged_min_usec);
        format_duration(a2, sizeof a2, t->aged_max_usec);
        if (t->aged_min_usec == t->aged_max_usec || strcmp(a1, a2) == 0)
                fprintf(f, "; last aged %s ago\n", a1);
        else
                fprintf(f, "; last aged %s to %s ago\n", a1, a2);
}

static void print_forecasts(FILE *f, const struct idle_table *t) {
        if (t->n_forecasts == 0)
                return;
        fprintf(f, "  would free now:");
        for (size_t i = 0; i < t->n_forecasts; i++) {
                const struct idle_table_forecast *x = &t->forecasts[i];
                char th[16], s[32], a[32], b[32];

                format_duration(th, sizeof th, x->threshold_usec);
                fprintf(f, "%s %s=%s ", i ? ";" : "", x->name, th);
                if (x->flags & IDLE_TABLE_UNKNOWN) {
                        fprintf(f, "not known yet");
                        continue;
                }
                fprintf(f, "%s (anon %s, file %s)",
                        idle_table_bytes(s, sizeof s, x->bytes[0] + x->bytes[1], x->flags),
                        format_bytes(a, sizeof a, x->bytes[0]),
                        format_bytes(b, sizeof b, x->bytes[1]));
                if (x->flags & IDLE_TABLE_NO_SWAP)
                        fprintf(f, " anon limited by swap");
                if (x->flags & IDLE_TABLE_FLOOR)
                        fprintf(f, " cut to the floor");
        }
        fprintf(f, "\n");
}

int idle_table_print(FILE *f, const struct idle_table *t) {
        char a[32], b[32], c[32], d[32];
        bool risk = t->reaccess_usec > 0;

        print_heading(f, t);
        if (t->unread) {
                fprintf(f, "  not read yet: every cycle so far skipped it (paused, writes still "
                           "running, or a malformed lru_gen record).\n");
                return ferror(f) ? -EIO : 0;
        }
        if (!t->has_lrugen) {
                print_lists(f, t);
                return ferror(f) ? -EIO : 0;
        }
        fputs("  ", f);
        put_left(f, "IDLE ≥", 14);
        put_right(f, "ANON", 8);
        put_right(f, "FILE", 8);
        put_right(f, "TOTAL", 9);
        if (risk)
                put_right(f, "RE-ACCESS/min", 15);
        fputc('\n', f);
        for (size_t i = 0; i < t->n_rows; i++) {
                const struct idle_table_row *r = &t->rows[i];
                char label[80];

                /* The rungs past every oldest generation: one line, not a column of "?". */
                if (r->flags & IDLE_TABLE_UNKNOWN) {
                        size_t j = i;
                        while (j + 1 < t->n_rows && (t->rows[j + 1].flags & IDLE_TABLE_UNKNOWN))
                                j++;
                        format_duration(a, sizeof a, r->idle_usec);
                        if (j > i)
                                snprintf(label, sizeof label, "%s..%s", a,
                                         format_duration(b, sizeof b, t->rows[j].idle_usec));
                        else
                                snprintf(label, sizeof label, "%s", a);
                        fputs("  ", f);
                        put_left(f, label, 14);
                        fprintf(f, "   not known yet: older than the oldest generation\n");
                        i = j;
                        continue;
                }

                snprintf(label, sizeof label, "%s%s", format_duration(d, sizeof d, r->idle_usec),
                         r->flags & IDLE_TABLE_HORIZON ? " oldest" : "");
                fputs("  ", f);
                put_left(f, label, 14);
                put_right(f, idle_table_bytes(a, sizeof a, r->bytes[0], r->flags), 8);
                put_right(f, idle_table_bytes(b, sizeof b, r->bytes[1], r->flags), 8);
                put_right(f, idle_table_bytes(c, sizeof c, r->bytes[0] + r->bytes[1], r->flags), 9);
                if (risk) {
                        if (r->reaccess >= 0)
                                snprintf(d, sizeof d, "%.1f%%", r->reaccess * 100);
                        else
                                snprintf(d, sizeof d, "-");
                        put_right(f, d, 15);
                }
                fputc('\n', f);
        }
        fprintf(f, "  in all anon %s file %s, of which the two youngest generations (not evicted) "
                   "anon %s file %s\n",
                format_bytes(a, sizeof a, t->total[0]), format_bytes(b, sizeof b, t->total[1]),
                format_bytes(c, sizeof c, t->hot[0]), format_bytes(d, sizeof d, t->hot[1]));
        print_forecasts(f, t);
        if (risk)
                fprintf(f, "  re-access: share of the bytes idle at least that long (in the "
                           "generations eviction could take) used again per minute, over the last "
                           "%s\n",
                        format_duration(a, sizeof a, t->reaccess_usec));
        else if (t->reaccess_pending_usec > 0)
                /* Not how many seconds so far: --once's figure would vary with the load. */
                fprintf(f, "  re-access: not measured yet (shown from %s of readings on)\n",
                        format_duration(b, sizeof b, IDLE_TABLE_REACCESS_MIN_USEC));
        return ferror(f) ? -EIO : 0;
}
