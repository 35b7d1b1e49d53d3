/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mglructl-top-idle.c: top's idle-age view ('i'): IdleProfile() fetched at each refresh and
 * drawn as one line per cgroup (and the host) with the bytes idle for at least each rung of
 * the ladder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglructl.h"
#include "mglructl-top.h"

/* Refreshes the idle-age profiles. Returns 0 or an exit code. */
int top_fetch_idle(struct top *t) {
        sd_bus_message *reply = NULL;
        struct ctl_idle *idle = NULL;
        size_t n = 0;
        int r = ctl_idle_fetch(t->bus, &reply, &idle, &n);
        if (r > 0)
                return r;
        sd_bus_message_unref(t->idle_reply);
        free(t->idle);
        t->idle_reply = reply, t->idle = idle, t->n_idle = n;
        return 0;
}

/* Returns the row of x at idle time t, or NULL. */
static const struct idle_table_row *idle_row(const struct ctl_idle *x, uint64_t t) {
        for (size_t k = 0; k < x->n_rows; k++)
                if (x->rows[k].idle_usec == t)
                        return &x->rows[k];
        return NULL;
}

/* Returns true when every entry has a row at t: a rung of the ladder, not one entry's own
 * oldest-generation row (that one is the OLDEST column). */
static bool idle_column(const struct top *t, uint64_t idle_usec) {
        for (size_t i = 0; i < t->n_idle; i++)
                if (t->idle[i].n_rows > 0 && !idle_row(&t->idle[i], idle_usec))
                        return false;
        return true;
}

/* Appends " %7s" of s to line, counting "≥" (three bytes) as one column. */
static size_t put_cell(char *line, size_t size, size_t len, const char *s) {
        int extra = strncmp(s, "≥", 3) == 0 ? 2 : 0;
        if (len >= size)
                return len;
        return len + (size_t) snprintf(line + len, size - len, " %*s", 7 + extra, s);
}

/* The idle-age view: per row the bytes idle for at least each rung ("?" past the oldest
 * generation, "≥" where only part of the memory's generations reach back that far). */
void top_render_idle(const struct top *t) {
        char line[1024], cell[32], name[512];
        const struct ctl_idle *first = NULL;
        size_t pw, maxlen = 6, len;

        for (size_t i = 0; i < t->n_idle; i++) {
                maxlen = MAX(maxlen, strlen(t->idle[i].path));
                if (!first && t->idle[i].n_rows > 0)
                        first = &t->idle[i];
        }
        pw = t->tty ? (t->cols > 100 ? t->cols - 82 : 18) : maxlen;
        pw = MIN(pw, sizeof name - 1);
        /* "≥" is three bytes and one column. */
        len = (size_t) snprintf(line, sizeof line, "%-*s %7s %6s", (int) pw + 2, "IDLE ≥",
                                "OLDEST", "AGED");
        for (size_t k = 0; first && k < first->n_rows; k++)
                if (idle_column(t, first->rows[k].idle_usec))
                        len = put_cell(line, sizeof line, len,
                                       format_duration(cell, sizeof cell,
                                                       first->rows[k].idle_usec));
        top_emit(t, line, t->tty);

        size_t max_rows = t->tty ? (t->lines > 5 ? t->lines - 5 : 0) : t->n_idle;
        for (size_t i = 0; i < t->n_idle && i < max_rows; i++) {
                const struct ctl_idle *x = &t->idle[i];
                const char *p = x->path[0] ? x->path : "host";
                size_t plen = strlen(p);
                uint64_t hz = ctl_field_u64(x->fields, x->n_fields, "HorizonUSec");
                char h[32], a[32];

                if (plen > pw && pw > 3)
                        snprintf(name, sizeof name, "...%s", top_tail_of(p, plen, pw - 3));
                else
                        snprintf(name, sizeof name, "%s", p);
                if (!ctl_field_u64(x->fields, x->n_fields, "HasLruGen")) {
                        snprintf(line, sizeof line, "%-*s no lru_gen: idle times cannot be "
                                 "estimated", (int) pw, name);
                        top_emit(t, line, false);
                        continue;
                }
                len = (size_t) snprintf(line, sizeof line, "%-*s %7s %6s", (int) pw, name,
                                        hz ? format_duration(h, sizeof h, hz) : "-",
                                        format_duration(a, sizeof a,
                                                        ctl_field_u64(x->fields, x->n_fields,
                                                                      "AgedMinUSec")));
                for (size_t k = 0; first && k < first->n_rows; k++) {
                        if (!idle_column(t, first->rows[k].idle_usec))
                                continue;
                        const struct idle_table_row *r = idle_row(x, first->rows[k].idle_usec);
                        len = put_cell(line, sizeof line, len,
                                       r ? idle_table_bytes(cell, sizeof cell,
                                                            r->bytes[0] + r->bytes[1], r->flags)
                                         : "-");
                }
                top_emit(t, line, false);
        }
        if (t->n_idle == 0)
                top_emit(t, "(no idle-age profile)", false);
}
