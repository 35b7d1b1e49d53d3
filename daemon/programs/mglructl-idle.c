/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mglructl-idle.c: the daemon's idle-age profiles (IdleProfile(), bus-protocol.h) on mglructl's
 * side: fetched into plain entries, turned back into the shared text tables (idle-table.h, the
 * formatter mglrud --once uses too) and into JSON. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mglrud/interfaces/bus-protocol.h"
#include "mglrud/shared/macro.h"
#include "mglructl.h"

static const char *const forecast_names[IDLE_TABLE_FORECASTS] = { "T", "MinColdAge",
                                                                   "MaxColdAge" };

/* Reads one (sa{sv}a(tttud)) entry into *x. Returns > 0, 0 at the end of the array, or -errno. */
static int read_entry(sd_bus_message *reply, struct ctl_idle *x) {
        int r = sd_bus_message_enter_container(reply, 'r', "sa{sv}a(tttud)");
        if (r <= 0)
                return r;
        *x = (struct ctl_idle) {};
        if ((r = sd_bus_message_read(reply, "s", &x->path)) < 0)
                return r;
        r = ctl_read_fields(reply, x->fields, MAX_FIELDS);
        if (r < 0)
                return r;
        x->n_fields = (size_t) r;
        if ((r = sd_bus_message_enter_container(reply, 'a', "(tttud)")) < 0)
                return r;
        for (;;) {
                uint64_t t, a, f;
                uint32_t flags;
                double re;
                r = sd_bus_message_read(reply, "(tttud)", &t, &a, &f, &flags, &re);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                if (x->n_rows == IDLE_TABLE_ROWS_MAX)
                        return -E2BIG;
                x->rows[x->n_rows++] = (struct idle_table_row) {
                        .idle_usec = t, .bytes = { a, f }, .flags = flags, .reaccess = re,
                };
        }
        if ((r = sd_bus_message_exit_container(reply)) < 0 ||
            (r = sd_bus_message_exit_container(reply)) < 0)
                return r;
        return 1;
}

int ctl_idle_fetch(sd_bus *bus, sd_bus_message **ret_reply, struct ctl_idle **ret, size_t *ret_n) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        struct ctl_idle *v = NULL;
        size_t n = 0, alloc = 0;
        int r = ctl_call(bus, "IdleProfile", "", NULL, &reply);
        if (r > 0)
                return r;
        if ((r = sd_bus_message_enter_container(reply, 'a', "(sa{sv}a(tttud))")) < 0)
                goto fail;
        for (;;) {
                if (n == alloc) {
                        alloc = MAX(alloc * 2, (size_t) 8);
                        struct ctl_idle *p = reallocarray(v, alloc, sizeof *v);
                        if (!p) {
                                r = -ENOMEM;
                                goto fail;
                        }
                        v = p;
                }
                r = read_entry(reply, &v[n]);
                if (r < 0)
                        goto fail;
                if (r == 0)
                        break;
                n++;
        }
        *ret_reply = TAKE_PTR(reply);
        *ret = v;
        *ret_n = n;
        return 0;
fail:
        free(v);
        fprintf(stderr, "Cannot parse the IdleProfile reply: %s\n", strerror(-r));
        return EXIT_DAEMON;
}

static uint64_t u64(const struct ctl_idle *x, const char *key) {
        return ctl_field_u64(x->fields, x->n_fields, key);
}

static const char *str(const struct ctl_idle *x, const char *key) {
        const struct field *f = ctl_field_get(x->fields, x->n_fields, key);
        return f && f->type == 's' ? f->s : NULL;
}

void ctl_idle_table(const struct ctl_idle *x, struct idle_table *t) {
        *t = (struct idle_table) {
                .title = x->path[0] ? x->path : "host",
                /* Daemons before HasReading: read. */
                .unread = ctl_field_get(x->fields, x->n_fields, "HasReading") &&
                          !u64(x, "HasReading"),
                .policy = str(x, "Policy"),
                .has_lrugen = u64(x, "HasLruGen"),
                .n_lruvecs = u64(x, "Lruvecs"),
                .horizon_usec = u64(x, "HorizonUSec"),
                .aged_min_usec = u64(x, "AgedMinUSec"),
                .aged_max_usec = u64(x, "AgedMaxUSec"),
                .total = { u64(x, "TotalAnonBytes"), u64(x, "TotalFileBytes") },
                .hot = { u64(x, "HotAnonBytes"), u64(x, "HotFileBytes") },
                .reaccess_usec = u64(x, "ReaccessUSec"),
                .reaccess_pending_usec = u64(x, "ReaccessPendingUSec"),
                .has_lru_lists = u64(x, "HasLruLists"),
                .active = { u64(x, "ActiveAnonBytes"), u64(x, "ActiveFileBytes") },
                .inactive = { u64(x, "InactiveAnonBytes"), u64(x, "InactiveFileBytes") },
                .lru_lists_source = x->path[0] ? "memory.stat" : "/proc/meminfo",
                .n_rows = x->n_rows,
        };
        memcpy(t->rows, x->rows, x->n_rows * sizeof x->rows[0]);
        for (size_t i = 0; i < IDLE_TABLE_FORECASTS; i++) {
                char k[64];
                snprintf(k, sizeof k, "Forecast%sUSec", forecast_names[i]);
                if (!ctl_field_get(x->fields, x->n_fields, k))
                        continue;
                struct idle_table_forecast *f = &t->forecasts[t->n_forecasts++];
                f->name = forecast_names[i];
                f->threshold_usec = u64(x, k);
                snprintf(k, sizeof k, "Forecast%sAnonBytes", forecast_names[i]);
                f->bytes[0] = u64(x, k);
                snprintf(k, sizeof k, "Forecast%sFileBytes", forecast_names[i]);
                f->bytes[1] = u64(x, k);
                snprintf(k, sizeof k, "Forecast%sFlags", forecast_names[i]);
                f->flags = (unsigned) u64(x, k);
        }
}

static void json_bytes(const char *key, uint64_t v, bool known) {
        printf(",\"%s\":", key);
        if (known)
                printf("%" PRIu64, v);
        else
                fputs("null", stdout);
}

void ctl_idle_json(const struct ctl_idle *x) {
        fputs("{\"Path\":", stdout);
        ctl_json_string(x->path);
        fputs(",\"Fields\":", stdout);
        ctl_json_fields(x->fields, x->n_fields);
        fputs(",\"Ladder\":[", stdout);
        for (size_t i = 0; i < x->n_rows; i++) {
                const struct idle_table_row *r = &x->rows[i];
                bool known = !(r->flags & IDLE_TABLE_UNKNOWN);
                printf("%s{\"IdleUSec\":%" PRIu64, i ? "," : "", r->idle_usec);
                json_bytes("AnonBytes", r->bytes[0], known);
                json_bytes("FileBytes", r->bytes[1], known);
                printf(",\"Known\":%s,\"AtLeast\":%s,\"Oldest\":%s,\"ReaccessPerMinute\":",
                       known ? "true" : "false",
                       r->flags & IDLE_TABLE_PARTIAL ? "true" : "false",
                       r->flags & IDLE_TABLE_HORIZON ? "true" : "false");
                if (r->reaccess >= 0)
                        printf("%.6g}", r->reaccess);
                else
                        fputs("null}", stdout);
        }
        fputs("]}", stdout);
}
