/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mglructl report: the idle-age curves of the host and of the cgroups with the most idle memory
 * (IdleProfile()) drawn as an SVG picture, or an HTML page holding the picture and the tables,
 * to paste into a ticket. x: idle time, logarithmic; y: bytes idle for at least that long. A
 * curve ends at its oldest generation (a hollow circle): nothing is known past it, and the
 * picture draws nothing there rather than a guess. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglructl.h"

#define REPORT_CURVES 6 /* the host and the five cgroups with the most idle memory */

/* Geometry (pixels). The plot area's rectangle carries id="plot" for the tests. */
enum { W = 1000, H = 540, PX = 90, PY = 84, PW = 560, PH = 370 };

static const char *const colours[REPORT_CURVES] = {
        "#333333", "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
};

/* Nice x ticks (usec) and their labels. */
static const struct {
        uint64_t usec;
        const char *label;
} xticks[] = {
        { 1000000ULL, "1s" },        { 5000000ULL, "5s" },       { 10000000ULL, "10s" },
        { 30000000ULL, "30s" },
        { 60000000ULL, "1min" },     { 120000000ULL, "2min" },   { 300000000ULL, "5min" },
        { 600000000ULL, "10min" },   { 1800000000ULL, "30min" }, { 3600000000ULL, "1h" },
        { 21600000000ULL, "6h" },    { 86400000000ULL, "1d" },   { 604800000000ULL, "1w" },
        { 4320000000000ULL, "50d" },
};

struct curve {
        const struct ctl_idle *x;
        const char *name;
        const char *colour;
        uint64_t peak;    /* the most bytes of any known row: the sort key */
        uint64_t horizon;
        bool plotted;     /* has lru_gen and at least one known row */
};

static void xml(FILE *f, const char *s) {
        for (; *s; s++)
                switch (*s) {
                case '&':
                        fputs("&amp;", f);
                        break;
                case '<':
                        fputs("&lt;", f);
                        break;
                case '>':
                        fputs("&gt;", f);
                        break;
                case '"':
                        fputs("&quot;", f);
                        break;
                default:
                        fputc(*s, f);
                }
}

static uint64_t row_bytes(const struct idle_table_row *r) {
        return r->bytes[0] + r->bytes[1];
}

static int cmp_peak(const void *a, const void *b) {
        const struct curve *x = a, *y = b;
        return x->peak < y->peak ? 1 : x->peak > y->peak ? -1 : strcmp(x->name, y->name);
}

/* Picks the host and the cgroups with the most idle memory, at most REPORT_CURVES in all.
 * Returns the number of curves. */
static size_t pick_curves(const struct ctl_idle *v, size_t n, struct curve *ret) {
        struct curve *all = calloc(MAX(n, (size_t) 1), sizeof *all);
        size_t m = 0, k = 0;
        if (!all)
                return 0;
        for (size_t i = 0; i < n; i++) {
                struct curve *c = &all[m++];
                *c = (struct curve) { .x = &v[i], .name = v[i].path[0] ? v[i].path : "host" };
                c->horizon = ctl_field_u64(v[i].fields, v[i].n_fields, "HorizonUSec");
                for (size_t j = 0; j < v[i].n_rows; j++)
                        if (!(v[i].rows[j].flags & IDLE_TABLE_UNKNOWN)) {
                                c->peak = MAX(c->peak, row_bytes(&v[i].rows[j]));
                                c->plotted = ctl_field_u64(v[i].fields, v[i].n_fields, "HasLruGen");
                        }
        }
        /* The host first, whatever it holds; then the cgroups by idle memory. */
        for (size_t i = 0; i < m; i++)
                if (!all[i].x->path[0] && k < REPORT_CURVES)
                        ret[k++] = all[i];
        struct curve *cg = all;
        size_t ncg = 0;
        for (size_t i = 0; i < m; i++)
                if (all[i].x->path[0])
                        cg[ncg++] = all[i];
        qsort(cg, ncg, sizeof *cg, cmp_peak);
        for (size_t i = 0; i < ncg && k < REPORT_CURVES; i++)
                ret[k++] = cg[i];
        for (size_t i = 0; i < k; i++)
                ret[i].colour = colours[i];
        free(all);
        return k;
}

static double x_of(uint64_t usec, double lmin, double lmax) {
        double l = log10((double) MAX(usec, (uint64_t) 1));
        return PX + (l - lmin) / (lmax - lmin) * PW;
}

static double y_of(uint64_t bytes, uint64_t ymax) {
        return PY + PH - (double) bytes / (double) ymax * PH;
}

/* A round upper bound for the y axis: four steps of 1, 1.5, 2, 2.5 or 5 times a power of ten
 * MiB (KiB below 4 MiB), so the tick labels read 50M, 100M, ... */
static uint64_t nice_ceiling(uint64_t v) {
        static const double mult[] = { 1, 1.5, 2, 2.5, 5, 10 };
        uint64_t unit = v >= (4ULL << 20) ? 1ULL << 20 : 1ULL << 10;
        double raw = MAX((double) v / (double) unit / 4.0, 1.0);
        double p = pow(10.0, floor(log10(raw))), step = 10 * p;
        for (size_t i = 0; i < ELEMENTSOF(mult); i++)
                if (raw <= mult[i] * p) {
                        step = mult[i] * p;
                        break;
                }
        return (uint64_t) (step * 4.0) * unit;
}

static void svg_axes(FILE *f, uint64_t xmin, uint64_t xmax, uint64_t ymax) {
        double lmin = log10((double) xmin), lmax = log10((double) xmax);
        char b[32];
        fprintf(f, "<rect id=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                   "fill=\"#ffffff\" stroke=\"#999999\"/>\n", PX, PY, PW, PH);
        for (size_t i = 0; i < ELEMENTSOF(xticks); i++) {
                if (xticks[i].usec < xmin || xticks[i].usec > xmax)
                        continue;
                double x = x_of(xticks[i].usec, lmin, lmax);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                           "stroke=\"#e4e4e4\"/>\n", x, PY, x, PY + PH);
                fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x,
                        PY + PH + 18, xticks[i].label);
        }
        for (int k = 0; k <= 4; k++) {
                uint64_t v = ymax / 4 * (uint64_t) k;
                double y = y_of(v, ymax);
                fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                           "stroke=\"#e4e4e4\"/>\n", PX, y, PX + PW, y);
                fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PX - 6,
                        y + 4, format_bytes(b, sizeof b, v));
        }
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">idle for at least (log scale)"
                   "</text>\n", PX + PW / 2, PY + PH + 40);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 %d %d)\">"
                   "bytes (anon + file)</text>\n", PX - 62, PY + PH / 2, PX - 62, PY + PH / 2);
}

static void svg_curve(FILE *f, const struct curve *c, double lmin, double lmax, uint64_t ymax) {
        const struct ctl_idle *x = c->x;
        fprintf(f, "<g class=\"curve\" data-name=\"");
        xml(f, c->name);
        fprintf(f, "\" data-colour=\"%s\" stroke=\"%s\" fill=\"%s\">\n", c->colour, c->colour,
                c->colour);
        fprintf(f, "<polyline fill=\"none\" stroke-width=\"3\" points=\"");
        for (size_t j = 0; j < x->n_rows; j++)
                if (!(x->rows[j].flags & IDLE_TABLE_UNKNOWN))
                        fprintf(f, "%.1f,%.1f ", x_of(x->rows[j].idle_usec, lmin, lmax),
                                y_of(row_bytes(&x->rows[j]), ymax));
        fprintf(f, "\"/>\n");
        for (size_t j = 0; j < x->n_rows; j++) {
                const struct idle_table_row *r = &x->rows[j];
                if (r->flags & IDLE_TABLE_UNKNOWN)
                        continue;
                /* Filled: known; hollow: a lower bound, or the oldest generation (nothing is
                 * known past it). */
                bool hollow = r->flags & (IDLE_TABLE_PARTIAL | IDLE_TABLE_HORIZON);
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" stroke-width=\"2\"%s/>\n",
                        x_of(r->idle_usec, lmin, lmax), y_of(row_bytes(r), ymax),
                        r->flags & IDLE_TABLE_HORIZON ? 6 : 4,
                        hollow ? " fill=\"#ffffff\"" : "");
        }
        fprintf(f, "</g>\n");
}

static void svg_legend(FILE *f, const struct curve *c, size_t n) {
        int y = PY + 10;
        char h[32], p[32], b[32];
        for (size_t i = 0; i < n; i++, y += 38) {
                fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"18\" height=\"10\" fill=\"%s\"/>\n",
                        PX + PW + 20, y, c[i].colour);
                fprintf(f, "<text x=\"%d\" y=\"%d\">", PX + PW + 44, y + 10);
                xml(f, c[i].name);
                fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" class=\"small\">", PX + PW + 44,
                        y + 26);
                if (!c[i].plotted)
                        fprintf(f, "no idle time known (no lru_gen, or all in the youngest "
                                   "generation)");
                else
                        fprintf(f, "%s idle ≥ %s; nothing known past %s",
                                format_bytes(p, sizeof p, c[i].peak),
                                format_duration(h, sizeof h, c[i].x->rows[0].idle_usec),
                                format_duration(b, sizeof b, c[i].horizon));
                fprintf(f, "</text>\n");
        }
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"small\">filled: bytes idle at least that "
                   "long</text>\n", PX + PW + 20, y + 6);
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"small\">hollow: a lower bound, or the oldest "
                   "generation</text>\n", PX + PW + 20, y + 22);
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"small\">past it: not known yet</text>\n",
                PX + PW + 20, y + 38);
}

/* Writes the picture of curves c[0..n) to f. */
static void svg_write(FILE *f, const struct curve *c, size_t n, const char *when) {
        uint64_t hmax = 0, ymax = 0, hmin = UINT64_MAX;
        for (size_t i = 0; i < n; i++) {
                if (!c[i].plotted)
                        continue;
                hmax = MAX(hmax, c[i].horizon);
                ymax = MAX(ymax, c[i].peak);
                for (size_t j = 0; j < c[i].x->n_rows; j++)
                        if (!(c[i].x->rows[j].flags & IDLE_TABLE_UNKNOWN))
                                hmin = MIN(hmin, c[i].x->rows[j].idle_usec);
        }
        /* From a round time at most half the shortest known row (the first point off the left
         * edge) to one past the longest horizon. */
        uint64_t xmin = 1000000ULL, xmax = 60000000ULL;
        for (size_t i = 0; hmin != UINT64_MAX && i < ELEMENTSOF(xticks); i++)
                if (xticks[i].usec <= hmin / 2)
                        xmin = xticks[i].usec;
        if (hmin != UINT64_MAX && hmin / 2 < xmin)
                xmin = MAX(hmin / 2, (uint64_t) 1000);
        for (size_t i = 0; i < ELEMENTSOF(xticks); i++)
                if (xticks[i].usec >= hmax * 5 / 4) {
                        xmax = MAX(xticks[i].usec, xmax);
                        break;
                }
        ymax = nice_ceiling(ymax * 21 / 20);
        double lmin = log10((double) xmin), lmax = log10((double) xmax);

        fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"13\">\n",
                W, H, W, H);
        fprintf(f, "<style>.small { font-size: 11px; fill: #555555; }</style>\n");
        fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", W, H);
        fprintf(f, "<text x=\"%d\" y=\"28\" font-size=\"17\">Idle-age profile: bytes idle for at "
                   "least t</text>\n", PX);
        fprintf(f, "<text x=\"%d\" y=\"48\" class=\"small\">mglrud, ", PX);
        xml(f, when);
        fprintf(f, "</text>\n<text x=\"%d\" y=\"64\" class=\"small\">from the multi-gen LRU's "
                   "generations: a generation is idle at least as long as the next younger one "
                   "exists; the youngest's idle time is not known</text>\n", PX);
        svg_axes(f, xmin, xmax, ymax);
        for (size_t i = 0; i < n; i++)
                if (c[i].plotted)
                        svg_curve(f, &c[i], lmin, lmax, ymax);
        svg_legend(f, c, n);
        fprintf(f, "</svg>\n");
}

static void html_write(FILE *f, const struct curve *c, size_t n, const struct ctl_idle *v,
                       size_t nv, const char *when) {
        fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                   "<title>mglrud idle-age profile</title></head>\n<body style=\"margin:0\">\n");
        svg_write(f, c, n, when);
        fprintf(f, "<pre style=\"font-size:12px\">");
        for (size_t i = 0; i < nv; i++) {
                struct idle_table t;
                char *text = NULL;
                size_t len;
                FILE *m = open_memstream(&text, &len);
                if (!m)
                        continue;
                ctl_idle_table(&v[i], &t);
                (void) idle_table_print(m, &t);
                if (fclose(m) == 0) {
                        xml(f, text);
                        fputc('\n', f);
                }
                free(text);
        }
        fprintf(f, "</pre>\n</body></html>\n");
}

int ctl_report_run(sd_bus *bus, const char *svg_path, const char *html_path) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ struct ctl_idle *v = NULL;
        struct curve c[REPORT_CURVES];
        size_t nv = 0;
        char when[128], host[64] = "";
        int r = ctl_idle_fetch(bus, &reply, &v, &nv);
        if (r > 0)
                return r;
        size_t n = pick_curves(v, nv, c);
        time_t now = time(NULL);
        struct tm tm;
        (void) gethostname(host, sizeof host - 1);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %Z", localtime_r(&now, &tm));
        snprintf(when + strlen(when), sizeof when - strlen(when), " on %s", host);

        const char *paths[2] = { svg_path, html_path };
        for (int k = 0; k < 2; k++) {
                _cleanup_free_ char *text = NULL;
                size_t len;
                if (!paths[k])
                        continue;
                FILE *f = open_memstream(&text, &len);
                if (!f) {
                        fprintf(stderr, "Cannot write %s: %s\n", paths[k], strerror(ENOMEM));
                        return EXIT_DAEMON;
                }
                if (k == 0)
                        svg_write(f, c, n, when);
                else
                        html_write(f, c, n, v, nv, when);
                /* A new file renamed over the path: root running this into /tmp must not
                 * write through a symlink someone planted there. */
                r = fclose(f) != 0 ? -ENOMEM : write_file_atomic(paths[k], text, 0644);
                if (r < 0) {
                        fprintf(stderr, "Cannot write %s: %s\n", paths[k], strerror(-r));
                        return EXIT_DAEMON;
                }
        }
        return 0;
}
