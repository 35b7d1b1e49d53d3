/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/interfaces/idle-report.h"

#include <errno.h>
#include <stdlib.h>

#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

/* The table's flags are the policy's: one formatter reads both ends. */
_Static_assert((unsigned) IDLE_TABLE_PARTIAL == (unsigned) IDLE_ROW_PARTIAL &&
               (unsigned) IDLE_TABLE_UNKNOWN == (unsigned) IDLE_ROW_UNKNOWN &&
               (unsigned) IDLE_TABLE_HORIZON == (unsigned) IDLE_ROW_HORIZON &&
               (unsigned) IDLE_TABLE_NO_SWAP == (unsigned) IDLE_ROW_NO_SWAP &&
               (unsigned) IDLE_TABLE_FLOOR == (unsigned) IDLE_ROW_FLOOR,
               "idle-table.h flags follow idle-profile.h");
_Static_assert(LRUGEN_ANON == 0 && LRUGEN_FILE == 1, "idle-table.h: index 0 anon, 1 file");
_Static_assert(IDLE_TABLE_ROWS_MAX >= IDLE_ROWS_MAX, "idle-table.h holds every profile row");
_Static_assert(IDLE_TABLE_FORECASTS == _CONTROL_FORECAST_MAX, "one forecast per threshold");

static void copy_profile(const struct idle_profile *p, struct idle_table *t) {
        t->has_lrugen = true;
        t->n_lruvecs = p->n_lruvecs;
        t->horizon_usec = p->horizon_usec;
        t->aged_min_usec = p->aged_min_usec;
        t->aged_max_usec = p->aged_max_usec;
        for (int k = 0; k < 2; k++) {
                t->total[k] = p->total_bytes[k];
                t->hot[k] = p->hot_bytes[k];
        }
        t->n_rows = p->n_rows;
        for (size_t i = 0; i < p->n_rows; i++)
                t->rows[i] = (struct idle_table_row) {
                        .idle_usec = p->rows[i].idle_usec,
                        .bytes = { p->rows[i].bytes[0], p->rows[i].bytes[1] },
                        .flags = p->rows[i].flags,
                        .reaccess = -1,
                };
}

void idle_table_from_host(const struct host_idle *h, struct idle_table *t) {
        *t = (struct idle_table) { .title = "host", .lru_lists_source = "/proc/meminfo" };
        if (h->has_profile)
                copy_profile(&h->profile, t);
        t->has_lru_lists = h->has_lists;
        for (int k = 0; k < 2; k++) {
                t->active[k] = h->active[k];
                t->inactive[k] = h->inactive[k];
        }
}

/* Returns the combined re-access share per minute of the profile row at idle_usec, or a
 * negative value when not measured (or not a rung). */
static double idle_row_reaccess(const struct control_idle *x, uint64_t idle_usec) {
        int k = idle_risk_rung(&x->risk, idle_usec);
        return k < 0 ? -1 : idle_risk_share_per_min(&x->risk, (size_t) k, IDLE_RISK_ALL);
}

void idle_table_from_snapshot(const struct control_snapshot *s, struct idle_table *t,
                              char *policy_buf, size_t size) {
        struct control_idle idle;
        const struct control_idle *x = &idle;
        char a[16], b[16], c[16];

        control_snapshot_idle(s, &idle);
        *t = (struct idle_table) { .title = s->path, .lru_lists_source = "memory.stat" };
        snprintf(policy_buf, size, "%s, T=%s, MinColdAge=%s, MaxColdAge=%s", s->mode,
                 format_duration(a, sizeof a, s->cold_age_usec),
                 format_duration(b, sizeof b, s->min_cold_age_usec),
                 format_duration(c, sizeof c, s->max_cold_age_usec));
        t->policy = policy_buf;
        t->unread = x->read_usec == 0;
        t->has_lru_lists = x->has_lists;
        for (int k = 0; k < 2; k++) {
                t->active[k] = x->active[k];
                t->inactive[k] = x->inactive[k];
        }
        if (!x->has_profile)
                return;
        copy_profile(&x->profile, t);
        if (x->risk.window_usec >= (double) IDLE_TABLE_REACCESS_MIN_USEC) {
                t->reaccess_usec = (uint64_t) x->risk.window_usec;
                for (size_t i = 0; i < t->n_rows; i++)
                        t->rows[i].reaccess = idle_row_reaccess(x, t->rows[i].idle_usec);
        } else
                t->reaccess_pending_usec = (uint64_t) x->risk.window_usec;
        t->n_forecasts = _CONTROL_FORECAST_MAX;
        for (int i = 0; i < _CONTROL_FORECAST_MAX; i++)
                t->forecasts[i] = (struct idle_table_forecast) {
                        .name = control_forecast_to_string(i),
                        .threshold_usec = x->forecasts[i].threshold_usec,
                        .bytes = { x->forecasts[i].bytes[0], x->forecasts[i].bytes[1] },
                        .flags = x->forecasts[i].flags,
                };
}

int idle_report_print(FILE *f, const struct manager *m) {
        _cleanup_free_ struct control_snapshot *snaps = NULL;
        struct daemon_stats d;
        struct idle_table t;
        char policy[256];
        size_t n;
        int r = manager_snapshots(m, &d, &snaps, &n);
        if (r < 0)
                return r;
        idle_table_from_host(manager_host_idle(m), &t);
        r = idle_table_print(f, &t);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                idle_table_from_snapshot(&snaps[i], &t, policy, sizeof policy);
                r = idle_table_print(f, &t);
        }
        return r;
}
