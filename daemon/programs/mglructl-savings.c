/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglructl-savings.h"

#include <errno.h>
#include <string.h>

#include "mglrud/shared/parse-util.h"

/* Fills *ret from the forecast called name ("T", "MinColdAge") of t, if it has one. */
static void saving_at(const struct idle_table *t, const char *name, struct ctl_saving_at *ret) {
        *ret = (struct ctl_saving_at) {};
        for (size_t j = 0; j < t->n_forecasts && !t->unread; j++) {
                const struct idle_table_forecast *f = &t->forecasts[j];
                if (strcmp(f->name, name) != 0)
                        continue;
                ret->threshold_usec = f->threshold_usec;
                ret->known = !(f->flags & IDLE_TABLE_UNKNOWN);
                ret->bytes = ret->known ? f->bytes[0] + f->bytes[1] : 0;
        }
}

size_t ctl_savings_collect(const struct ctl_idle *v, size_t n, struct ctl_saving *ret) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
                const struct field *mode = ctl_field_get(v[i].fields, v[i].n_fields, "Mode");
                if (!v[i].path[0] || !mode || mode->type != 's' || strcmp(mode->s, "advise") != 0)
                        continue;
                struct idle_table t;
                ctl_idle_table(&v[i], &t);
                if (!t.has_lrugen)
                        continue; /* its table says what cannot be estimated without lru_gen */
                struct ctl_saving *s = &ret[k++];
                *s = (struct ctl_saving) {
                        .path = v[i].path,
                        .horizon_usec = t.unread ? 0 : t.horizon_usec,
                };
                saving_at(&t, "MinColdAge", &s->min);
                saving_at(&t, "T", &s->t);
        }
        return k;
}

uint64_t ctl_saving_bytes(const struct ctl_saving *s) {
        return s->t.known ? s->t.bytes : s->min.known ? s->min.bytes : 0;
}

int ctl_savings_dropin(const char *path, char *name, size_t name_size, char *section,
                       size_t section_size) {
        size_t ni = 0, si = 0;
        if (path[0] != '/' || path[1] == 0 || name_size < 9 || section_size < 3)
                return -EINVAL;
        memcpy(name, "50-", 3);
        ni = 3;
        section[si++] = '[';
        for (const char *p = path; *p; p++) {
                unsigned char c = (unsigned char) *p;
                /* The daemon shows a name it had to escape with a backslash: the section
                 * could not select the directory by what is shown. */
                if (c == '\\' || c < 0x20 || c == 0x7f || c == ']')
                        return -EINVAL;
                bool glob = c == '*' || c == '?' || c == '[';
                if (si + 2 + glob >= section_size)
                        return -EINVAL;
                if (glob)
                        section[si++] = '\\';
                section[si++] = (char) c;
                if (p == path)
                        continue; /* the leading '/' is not part of the file name */
                if (ni + 6 >= name_size)
                        return -EINVAL;
                /* A file name of plain characters: the cgroup's '/' and anything a shell
                 * would want quoted become '-' and '_'. */
                name[ni++] = c == '/' ? '-' : (c >= 0x80 || strchr("._-+@:", c) ||
                                               (c >= '0' && c <= '9') ||
                                               ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
                                                      ? (char) c
                                                      : '_';
        }
        section[si++] = ']';
        section[si] = 0;
        memcpy(name + ni, ".conf", 6);
        return 0;
}

size_t ctl_savings_best(const struct ctl_saving *s, size_t n) {
        char name[256], section[512];
        size_t best = n;
        for (size_t i = 0; i < n; i++)
                if (ctl_saving_bytes(&s[i]) > 0 &&
                    (best == n || ctl_saving_bytes(&s[i]) > ctl_saving_bytes(&s[best])) &&
                    ctl_savings_dropin(s[i].path, name, sizeof name, section, sizeof section) == 0)
                        best = i;
        return best;
}

/* Writes s left-aligned in width columns, counting characters, not bytes ("≥" is three). */
static void put_column(FILE *f, const char *s, int width) {
        int n = 0;
        for (const char *p = s; *p; p++)
                n += ((unsigned char) *p & 0xc0) != 0x80;
        fprintf(f, "%s%*s", s, width > n ? width - n : 0, "");
}

/* Formats one column: "190M (2min)", or "? (6.3min)" while not known. Returns buf. */
static const char *format_at(char *buf, size_t size, const struct ctl_saving_at *a) {
        char b[32], d[32];
        snprintf(buf, size, "%s (%s)", a->known ? format_bytes(b, sizeof b, a->bytes) : "?",
                 format_duration(d, sizeof d, a->threshold_usec));
        return buf;
}

int ctl_savings_print(FILE *f, const struct ctl_saving *s, size_t n, bool dry_run,
                      const char *dropin_dir) {
        char a[64], b[64], h[32];
        uint64_t total_min = 0, total_t = 0;
        size_t best = ctl_savings_best(s, n), n_min = 0, n_t = 0;
        bool unknown = false;

        if (n == 0)
                return 0;
        fprintf(f, "\nSavings: mglrud only advises on %zu cgroup%s (Mode=advise): it ages %s "
                   "generations to learn what is idle, and evicts nothing.\n",
                n, n == 1 ? "" : "s", n == 1 ? "its" : "their");
        fputs("  ", f);
        put_column(f, "CGROUP", 41);
        put_column(f, "IDLE ≥ MinColdAge", 23);
        fputs("IDLE ≥ T\n", f);
        for (size_t i = 0; i < n; i++) {
                fputs("  ", f);
                put_column(f, s[i].path, 41);
                put_column(f, format_at(a, sizeof a, &s[i].min), 23);
                fputs(format_at(b, sizeof b, &s[i].t), f);
                if (!s[i].min.known || !s[i].t.known) {
                        unknown = true;
                        if (s[i].horizon_usec)
                                fprintf(f, "   (oldest generation idle ≥ %s)",
                                        format_duration(h, sizeof h, s[i].horizon_usec));
                        else
                                fputs("   (no generation has aged yet)", f);
                }
                fputc('\n', f);
                total_min += s[i].min.bytes;
                total_t += s[i].t.bytes;
                n_min += s[i].min.known;
                n_t += s[i].t.known;
        }
        if (n > 1) {
                fputs("  ", f);
                put_column(f, unknown ? "in all, known so far" : "in all", 41);
                /* A column of which nothing is known sums to "?", not to 0. */
                put_column(f, n_min ? format_bytes(a, sizeof a, total_min) : "?", 23);
                fprintf(f, "%s\n", n_t ? format_bytes(b, sizeof b, total_t) : "?");
        }
        fprintf(f, "Mode=active would take about what is idle ≥ T, and T moves between MinColdAge "
                   "and MaxColdAge with the refaults.%s\n",
                unknown ? " \"?\": the profile does not reach that age yet; ask again later." : "");
        if (best == n)
                fputs("Nothing to free is known yet.\n", f);
        else {
                char name[256], section[512];
                (void) ctl_savings_dropin(s[best].path, name, sizeof name, section, sizeof section);
                fprintf(f, "To act on the advice for %s, write this into %s/%s\n"
                           "and run `systemctl reload mglrud`%s:\n  %s\n  Mode=active\n",
                        s[best].path, dropin_dir, name,
                        dry_run ? " (the daemon runs with DryRun: set DryRun=no in [Daemon] "
                                  "too)" : "",
                        section);
        }
        return ferror(f) ? -EIO : 0;
}
