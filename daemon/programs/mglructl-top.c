/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mglructl top: a live view of mglrud's cgroups over the bus (GetStatus, ListCgroups,
 * GetCgroup), redrawn in place on the terminal's alternate screen with plain ANSI escapes and
 * termios raw input (no curses). Keys: c, r, p, n sort; i switches to the idle-age view (the
 * ladder of IdleProfile() per cgroup and for the host) and back; q quits. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "mglrud/interfaces/bus-protocol.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglructl.h"
#include "mglructl-top.h"

static volatile sig_atomic_t got_quit, got_winch;

static void on_signal(int sig) {
        if (sig == SIGWINCH)
                got_winch = 1;
        else
                got_quit = 1;
}

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

static const char *sort_name(char key) {
        switch (key) {
        case 'r':
                return "reclaimed";
        case 'p':
                return "psi";
        case 'n':
                return "name";
        default:
                return "cold";
        }
}

static char sort_key = 'c';

static int cmp_u64_desc(uint64_t a, uint64_t b) {
        return a < b ? 1 : a > b ? -1 : 0;
}

static int row_cmp(const void *x, const void *y) {
        const struct top_row *a = x, *b = y;
        int r = 0;
        switch (sort_key) {
        case 'c':
                r = cmp_u64_desc(a->cold[ANON] + a->cold[FILE_], b->cold[ANON] + b->cold[FILE_]);
                break;
        case 'r':
                r = cmp_u64_desc(a->reclaimed[ANON] + a->reclaimed[FILE_],
                                 b->reclaimed[ANON] + b->reclaimed[FILE_]);
                break;
        case 'p':
                r = a->psi < b->psi ? 1 : a->psi > b->psi ? -1 : 0;
                break;
        }
        return r ?: strcmp(a->path, b->path);
}

static void top_sort(struct top *t) {
        sort_key = t->sort;
        if (t->n > 0)
                qsort(t->rows, t->n, sizeof t->rows[0], row_cmp);
}

static void row_fill(struct top_row *row, const struct field *f, size_t n) {
        const struct field *mode = ctl_field_get(f, n, "Mode"), *psi = ctl_field_get(f, n, "PressureSome");
        snprintf(row->mode, sizeof row->mode, "%s", mode ? mode->s : "?");
        row->cold_age_usec = ctl_field_u64(f, n, "ColdAgeUSec");
        row->has_cold = ctl_field_get(f, n, "ColdAnonBytes");
        row->cold[ANON] = ctl_field_u64(f, n, "ColdAnonBytes");
        row->cold[FILE_] = ctl_field_u64(f, n, "ColdFileBytes");
        row->has_psi = psi && psi->type == 'd';
        row->psi = row->has_psi ? psi->d : 0;
        row->reclaimed[ANON] = ctl_field_u64(f, n, "ReclaimedAnonBytes");
        row->reclaimed[FILE_] = ctl_field_u64(f, n, "ReclaimedFileBytes");
        row->paused = ctl_field_u64(f, n, "Paused");
        ctl_container_label(f, n, row->container, sizeof row->container);
        snprintf(row->qos, sizeof row->qos, "%s", ctl_qos_label(f, n));
}

/* Copies path into buf with every 64-hex-digit container id cut to its first 12 digits (the
 * short id), so a container's row shows where it is, not 64 digits. */
static void shorten_ids(const char *path, char *buf, size_t size) {
        size_t o = 0;
        for (const char *p = path; *p && o + 1 < size;) {
                size_t run = strspn(p, "0123456789abcdef");
                if (run == 64) {
                        size_t k = MIN((size_t) 12, size - 1 - o);
                        memcpy(buf + o, p, k);
                        o += k;
                        p += run;
                } else if (run > 0) {
                        size_t k = MIN(run, size - 1 - o);
                        memcpy(buf + o, p, k);
                        o += k;
                        p += run;
                } else
                        buf[o++] = *p++;
        }
        buf[o] = '\0';
}

/* GetCgroup without printing: a cgroup that vanished since ListCgroups is skipped (returns 0). */
static int fetch_cgroup(struct top *t, const char *path, struct top_row *row) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        struct field f[MAX_FIELDS];
        int r = sd_bus_call_method(t->bus, NULL, BUS_OBJECT_PATH, BUS_INTERFACE, "GetCgroup",
                                   &error, &reply, "s", path);
        if (r < 0) {
                bool gone = sd_bus_error_has_name(&error, BUS_ERROR_NO_SUCH_CGROUP);
                sd_bus_error_free(&error);
                return gone ? 0 : r;
        }
        int n = ctl_read_fields(reply, f, MAX_FIELDS);
        if (n < 0)
                return n;
        *row = (struct top_row) {};
        snprintf(row->path, sizeof row->path, "%s", path);
        shorten_ids(path, row->shown, sizeof row->shown);
        row_fill(row, f, n);
        return 1;
}

static int fetch_status(struct top *t) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        struct field f[MAX_FIELDS];
        char a[32], b[32], c[32];
        int r = ctl_call(t->bus, "GetStatus", "", NULL, &reply);
        if (r > 0)
                return r;
        int n = ctl_read_fields(reply, f, MAX_FIELDS);
        if (n < 0) {
                fprintf(stderr, "Cannot parse the GetStatus reply: %s\n", strerror(-n));
                return EXIT_DAEMON;
        }
        const struct field *v = ctl_field_get(f, n, "Version"), *s = ctl_field_get(f, n, "Status");
        snprintf(t->status, sizeof t->status, "mglrud %s: %s", v ? v->s : "?", s ? s->s : "?");
        snprintf(t->info, sizeof t->info,
                 "Interval %s (last cycle %s), %" PRIu64 " cycles, dry run: %s, paused: %s, "
                 "refresh %s",
                 format_duration(a, sizeof a, ctl_field_u64(f, n, "IntervalUSec")),
                 format_duration(b, sizeof b, ctl_field_u64(f, n, "LastCycleUSec")),
                 ctl_field_u64(f, n, "Cycles"), ctl_field_u64(f, n, "DryRun") ? "yes" : "no",
                 ctl_field_u64(f, n, "PausedAll") ? "all" : "no",
                 format_duration(c, sizeof c, t->interval_usec));
        return 0;
}

/* Refreshes the header and every row, and the rates against the previous refresh. Returns 0 or
 * an exit code. */
static int top_fetch(struct top *t) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *list = NULL;
        int r = fetch_status(t);
        if (r > 0)
                return r;
        if (t->idle_view)
                return top_fetch_idle(t);
        if ((r = ctl_call(t->bus, "ListCgroups", "", NULL, &list)) > 0)
                return r;

        struct top_row *swap = t->prev;
        size_t swap_alloc = t->alloc_prev;
        t->prev = t->rows, t->n_prev = t->n, t->alloc_prev = t->alloc;
        t->rows = swap, t->n = 0, t->alloc = swap_alloc;
        uint64_t now = now_usec(), last = t->fetched_usec;
        t->fetched_usec = now;

        if ((r = sd_bus_message_enter_container(list, 'a', "(stss)")) < 0)
                goto fail;
        for (;;) {
                const char *path, *mode, *reason;
                uint64_t id;
                if ((r = sd_bus_message_read(list, "(stss)", &path, &id, &mode, &reason)) < 0)
                        goto fail;
                if (r == 0)
                        break;
                if (t->n == t->alloc) {
                        size_t k = MAX(t->alloc * 2, (size_t) 16);
                        struct top_row *p = reallocarray(t->rows, k, sizeof *p);
                        if (!p) {
                                fprintf(stderr, "Out of memory.\n");
                                return EXIT_DAEMON;
                        }
                        t->rows = p, t->alloc = k;
                }
                struct top_row *row = &t->rows[t->n];
                if ((r = fetch_cgroup(t, path, row)) < 0)
                        goto fail;
                if (r == 0)
                        continue;
                row->rate[ANON] = row->rate[FILE_] = -1;
                for (size_t i = 0; last > 0 && now > last && i < t->n_prev; i++) {
                        if (strcmp(t->prev[i].path, row->path) != 0)
                                continue;
                        for (int k = 0; k < NR_TYPES; k++)
                                if (row->reclaimed[k] >= t->prev[i].reclaimed[k])
                                        row->rate[k] = (double) (row->reclaimed[k] -
                                                                 t->prev[i].reclaimed[k]) *
                                                       USEC_PER_SEC / (double) (now - last);
                        break;
                }
                t->n++;
        }
        top_sort(t);
        return 0;
fail:
        fprintf(stderr, "Cannot read the cgroups from mglrud: %s\n", strerror(-r));
        return EXIT_DAEMON;
}

/* "[####      ]" of width w (0: empty string) for v out of max. */
static const char *bar(char *buf, size_t w, uint64_t v, uint64_t max) {
        if (w < 3) {
                buf[0] = 0;
                return buf;
        }
        size_t inner = w - 2, fill = max ? (size_t) ((double) v * inner / max + 0.5) : 0;
        if (v > 0 && fill == 0)
                fill = 1;
        buf[0] = '[';
        for (size_t i = 0; i < inner; i++)
                buf[1 + i] = i < fill ? '#' : ' ';
        buf[w - 1] = ']';
        buf[w] = 0;
        return buf;
}

static const char *rate(char *buf, size_t size, double r) {
        char b[32];
        if (r < 0)
                return "-";
        snprintf(buf, size, "%s/s", format_bytes(b, sizeof b, (uint64_t) (r + 0.5)));
        return buf;
}

/* Writes row r: its path in pw columns, container and QoS when cw (else none), the cold bars
 * in bw columns each (0: none) scaled to maxcold. */
static void render_row(const struct top *t, const struct top_row *r, size_t pw, size_t cw,
                       size_t bw, uint64_t maxcold) {
        char line[1024], path[512], tt[32], ba[64], bf[64], ca[32], cf[32], psi[32], ra[32],
                rf[32], qa[32], qf[32], cc[96] = "";
        size_t len = strlen(r->shown);

        if (len > pw && pw > 3)
                snprintf(path, sizeof path, "...%s", top_tail_of(r->shown, len, pw - 3));
        else
                snprintf(path, sizeof path, "%s", r->shown);
        if (cw)
                snprintf(cc, sizeof cc, "%-23s %-10s ", r->container, r->qos);
        if (r->has_psi)
                snprintf(psi, sizeof psi, "%.2f%%", r->psi * 100);
        else
                snprintf(psi, sizeof psi, "-");
        snprintf(line, sizeof line, "%-*s %s%-7s %5s %s%s%6s %s%s%6s %6s %6s %9s %6s %9s",
                 (int) pw, path, cc, r->paused ? "paused" : r->mode,
                 format_duration(tt, sizeof tt, r->cold_age_usec),
                 bar(ba, bw, r->cold[ANON], maxcold), bw ? " " : "",
                 r->has_cold ? format_bytes(ca, sizeof ca, r->cold[ANON]) : "-",
                 bar(bf, bw, r->cold[FILE_], maxcold), bw ? " " : "",
                 r->has_cold ? format_bytes(cf, sizeof cf, r->cold[FILE_]) : "-", psi,
                 format_bytes(ra, sizeof ra, r->reclaimed[ANON]),
                 rate(qa, sizeof qa, r->rate[ANON]),
                 format_bytes(rf, sizeof rf, r->reclaimed[FILE_]),
                 rate(qf, sizeof qf, r->rate[FILE_]));
        top_emit(t, line, false);
}

static void top_render(const struct top *t) {
        /* MODE T COLD-ANON COLD-FILE PSI RECL-A RATE-A RECL-F RATE-F, with two bars of bw. */
        enum { FIXED = 8 + 6 + 6 + 6 + 7 + 7 + 10 + 7 + 10 + 9 };
        size_t pw = 20, bw = 0, maxlen = 0, cw = 0;
        uint64_t maxcold = 0;
        char line[1024], hdr[64], chdr[64] = "";

        for (size_t i = 0; i < t->n; i++) {
                maxlen = MAX(maxlen, strlen(t->rows[i].shown));
                /* The CONTAINER and QOS columns only when some row is a container or pod. */
                if (strcmp(t->rows[i].container, "-") != 0)
                        cw = 23 + 1 + 10 + 1;
                maxcold = MAX(maxcold, MAX(t->rows[i].cold[ANON], t->rows[i].cold[FILE_]));
        }
        if (t->tty) {
                bw = t->cols >= FIXED + cw + 24 + 30 ? 12 : t->cols >= FIXED + cw + 24 + 20 ? 8 : 0;
                pw = t->cols > FIXED + cw + 2 * bw + 20 ? t->cols - FIXED - cw - 2 * bw : 20;
        } else {
                bw = 12;
                pw = MAX(maxlen, (size_t) 6);
        }
        pw = MIN(pw, sizeof line / 2);

        if (t->tty)
                fputs("\033[H", stdout);
        top_emit(t, t->status, false);
        if (t->idle_view) {
                snprintf(line, sizeof line, "%s; view: idle age (bytes idle at least that long)%s",
                         t->info, t->tty ? " (i: cgroups, q quits)" : "");
                top_emit(t, line, false);
                top_emit(t, "", false);
                top_render_idle(t);
                if (t->tty)
                        fputs("\033[J", stdout);
                fflush(stdout);
                return;
        }
        snprintf(line, sizeof line, "%s; sort: %s%s", t->info, sort_name(t->sort),
                 t->tty ? " (keys c r p n i, q quits)" : "");
        top_emit(t, line, false);
        top_emit(t, "", false);
        snprintf(hdr, sizeof hdr, "%*s", (int) bw, "");
        if (cw)
                snprintf(chdr, sizeof chdr, "%-23s %-10s ", "CONTAINER", "QOS");
        snprintf(line, sizeof line, "%-*s %s%-7s %5s %s%s%6s %s%s%6s %6s %6s %9s %6s %9s",
                 (int) pw, "CGROUP", chdr, "MODE", "T", hdr, bw ? " " : "", "COLD-A", hdr,
                 bw ? " " : "", "COLD-F", "PSI", "RECL-A", "RATE-A", "RECL-F", "RATE-F");
        top_emit(t, line, t->tty);

        size_t max_rows = t->tty ? (t->lines > 5 ? t->lines - 5 : 0) : t->n;
        for (size_t i = 0; i < t->n && i < max_rows; i++)
                render_row(t, &t->rows[i], pw, cw, bw, maxcold);
        if (t->n == 0)
                top_emit(t, "(no managed cgroups)", false);
        if (t->tty)
                fputs("\033[J", stdout);
        fflush(stdout);
}

static void top_size(struct top *t) {
        struct winsize ws = {};
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || ws.ws_col == 0 || ws.ws_row == 0)
                ws = (struct winsize) { .ws_col = 80, .ws_row = 24 };
        t->cols = MIN(ws.ws_col, (unsigned short) 1000);
        t->lines = ws.ws_row;
}

/* Handles the pending input bytes. Returns true to redraw; sets got_quit on 'q' or EOF. */
static bool top_keys(struct top *t) {
        char buf[64];
        bool redraw = false;
        ssize_t k = read(STDIN_FILENO, buf, sizeof buf);
        if (k == 0)
                got_quit = 1;
        for (ssize_t i = 0; i < k; i++)
                switch (buf[i]) {
                case 'q':
                case 'Q':
                        got_quit = 1;
                        break;
                case 'c':
                case 'r':
                case 'p':
                case 'n':
                        t->sort = buf[i];
                        top_sort(t);
                        redraw = true;
                        break;
                case 'i':
                        t->idle_view = !t->idle_view;
                        t->refetch = true;
                        break;
                case 0x0c: /* ^L */
                        redraw = true;
                }
        return redraw;
}

/* Blocks the signals top stops or redraws on (ppoll() takes them, with *old as its mask) and
 * catches them without SA_RESTART, so that ppoll() returns. */
static void signals_block(sigset_t *old) {
        static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };
        struct sigaction sa = { .sa_handler = on_signal };
        sigset_t mask;

        sigemptyset(&mask);
        for (size_t i = 0; i < ELEMENTSOF(sigs); i++)
                sigaddset(&mask, sigs[i]);
        sigprocmask(SIG_BLOCK, &mask, old);
        for (size_t i = 0; i < ELEMENTSOF(sigs); i++)
                sigaction(sigs[i], &sa, NULL);
}

/* Puts the terminal's input in raw mode (one key at a time, no echo) from its settings saved. */
static void keys_raw(const struct termios *saved) {
        struct termios raw = *saved;
        raw.c_lflag &= ~(ICANON | ECHO | IEXTEN);
        raw.c_iflag &= ~(IXON | ICRNL);
        raw.c_cc[VMIN] = 1;
        raw.c_cc[VTIME] = 0;
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
}

int ctl_top_run(sd_bus *bus, uint64_t interval_usec, bool once, bool idle_view) {
        struct top t = { .bus = bus, .sort = 'c', .interval_usec = interval_usec,
                         .idle_view = idle_view };
        struct termios saved;
        bool keys = false, alt = false;
        sigset_t old;
        int r = 0;

        if (once) {
                r = top_fetch(&t);
                if (r == 0)
                        top_render(&t);
                goto out;
        }

        t.tty = isatty(STDOUT_FILENO);
        keys = t.tty && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
        signals_block(&old);
        if (t.tty) {
                top_size(&t);
                if (keys)
                        keys_raw(&saved);
                fputs("\033[?1049h\033[?25l\033[H\033[2J", stdout); /* alternate screen */
                alt = true;
        }

        for (uint64_t next = 0, frames = 0;;) {
                bool redraw = false;
                uint64_t now = now_usec();
                if (now >= next || t.refetch) {
                        t.refetch = false;
                        if ((r = top_fetch(&t)) > 0)
                                break;
                        next = now + interval_usec;
                        redraw = true;
                        if (!t.tty && frames++ > 0) /* batch mode: frames one after another */
                                putchar('\n');
                }
                if (got_winch) {
                        got_winch = 0;
                        if (t.tty)
                                top_size(&t);
                        redraw = true;
                }
                if (redraw)
                        top_render(&t);
                now = now_usec();
                uint64_t wait = next > now ? next - now : 0;
                struct timespec ts = { wait / USEC_PER_SEC, (wait % USEC_PER_SEC) * 1000 };
                struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
                int k = ppoll(&pfd, keys ? 1 : 0, &ts, &old);
                if (got_quit)
                        break;
                if (k > 0 && (pfd.revents & (POLLIN | POLLHUP)) && top_keys(&t) && !t.refetch)
                        top_render(&t);
                if (got_quit)
                        break;
        }
        if (alt)
                fputs("\033[?25h\033[?1049l", stdout);
        fflush(stdout);
        if (keys)
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
        sigprocmask(SIG_SETMASK, &old, NULL);
        if (r > 0 && alt)
                fprintf(stderr, "Lost mglrud (see the error above), leaving top.\n");
out:
        free(t.rows);
        free(t.prev);
        free(t.idle);
        sd_bus_message_unref(t.idle_reply);
        return r;
}
