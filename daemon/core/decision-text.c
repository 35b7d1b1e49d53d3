/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decision-text.c: one human line per decision (dry-run advice, journal, mglructl). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mglrud/core/decision-text.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

struct line {
        char buf[1024];
        size_t len;
};

_printf_(2, 3) static void line_add(struct line *l, const char *fmt, ...) {
        va_list ap;
        int n;

        if (l->len >= sizeof(l->buf) - 1)
                return;
        va_start(ap, fmt);
        n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
        va_end(ap);
        if (n > 0)
                l->len = MIN(l->len + (size_t) n, sizeof(l->buf) - 1);
}

static const char *B(char *b, uint64_t bytes) {
        return format_bytes(b, 16, bytes);
}

static const char *swappiness_token(char *b, int swappiness) {
        if (swappiness == SWAPPINESS_ANON_ONLY)
                return "max";
        snprintf(b, 16, "%d", swappiness);
        return b;
}

static const struct {
        uint32_t flag;
        const char *name;
} flag_names[] = {
        { DECISION_FLAG_FIRST_SAMPLE, "first sample" },
        { DECISION_FLAG_COUNTER_RESET, "counters reset" },
        { DECISION_FLAG_CLOCK_JUMP, "clock jump" },
        { DECISION_FLAG_NO_PSI, "no psi" },
        { DECISION_FLAG_REFAULTS, "refaults above target" },
        { DECISION_FLAG_OWN_REFAULTS, "file refaults from mglrud's own count" },
        { DECISION_FLAG_T_RAISED, "T raised" },
        { DECISION_FLAG_T_LOWERED, "T lowered" },
        { DECISION_FLAG_NO_SWAP, "cold anon but no swap" },
        { DECISION_FLAG_MIXED_ANON, "no swappiness=max: anon as a mixed write" },
        { DECISION_FLAG_FILE_PROTECTED, "hot file tiers refaulting: file kept" },
        { DECISION_FLAG_TRUNCATED, "too many lruvecs: truncated" },
        { DECISION_FLAG_HEADROOM, "over the headroom line" },
        { DECISION_FLAG_OVER_LIMIT, "working set exceeds the limit" },
        { DECISION_FLAG_FUTILE, "last eviction found its cold pages in use" },
};

static void add_plan(struct line *l, const struct decision_summary *d) {
        char a[16], f[16], t[16], sw[16];
        uint64_t anon = d->planned_bytes[LRUGEN_ANON], file = d->planned_bytes[LRUGEN_FILE];

        if (d->n_cmds > 0 && anon + file > 0) {
                line_add(l, "; %s %s (", d->act != ACT_WRITE ? "would evict" : "evicting", B(t, anon + file));
                if (anon > 0)
                        line_add(l, "anon %s via lru_gen %s%s", B(a, anon),
                                 swappiness_token(sw, d->anon_swappiness), file > 0 ? ", " : "");
                if (file > 0)
                        line_add(l, "file %s via lru_gen 0", B(f, file));
                line_add(l, ")");
        } else if (d->n_reclaims > 0) {
                line_add(l, "; %s %s (", d->act != ACT_WRITE ? "would reclaim" : "reclaiming",
                         B(t, anon + file));
                for (size_t i = 0; i < d->n_reclaims; i++) {
                        const struct reclaim_req *q = &d->reclaims[i];

                        if (i > 0)
                                line_add(l, ", ");
                        if (q->swappiness == 0 || (q->swappiness < 0 && anon == 0))
                                line_add(l, "file %s", B(f, q->bytes));
                        else if (q->swappiness == SWAPPINESS_ANON_ONLY)
                                line_add(l, "anon %s", B(a, q->bytes));
                        else
                                line_add(l, "anon %s + file %s", B(a, anon), B(f, file));
                        line_add(l, " via memory.reclaim");
                        if (q->swappiness >= 0)
                                line_add(l, " %s", swappiness_token(sw, q->swappiness));
                }
                line_add(l, ")");
        }
        if (d->n_age > 0)
                line_add(l, "; %s %u lruvec%s", d->act != ACT_WRITE ? "would age" : "ageing", d->n_age,
                         d->n_age == 1 ? "" : "s");
}

int decision_format(const struct decision *d, enum act_mode act, char *buf, size_t size) {
        struct decision_summary s;

        if (!d)
                return -EINVAL;
        decision_summarize(d, &s);
        s.act = (uint8_t) act;
        return decision_summary_format(&s, buf, size);
}

int decision_summary_format(const struct decision_summary *d, char *buf, size_t size) {
        struct line l = {};
        char a[16], f[16], t[16];
        const char *reason;
        bool first_flag = true;

        if (!d || (!buf && size > 0))
                return -EINVAL;
        reason = decision_reason_to_string(d->reason);
        if (!reason)
                return -EINVAL;

        if (d->reason == DECISION_NONE_MODE_OFF)
                return snprintf(buf, size, "not managed: %s", reason);

        if (d->has_estimates && d->cold_age_usec > d->idle_horizon_usec) {
                /* The generations do not reach back T: say what they do tell, not "0". */
                char h[16];
                format_duration(t, sizeof(t), d->cold_age_usec);
                if (d->idle_horizon_usec == 0)
                        line_add(&l, "cold anon ? file ? (idle ≥ %s not known yet: no generation "
                                 "older than the youngest holds pages), ", t);
                else
                        line_add(&l, "cold anon ? file ? (idle ≥ %s not known yet: the oldest "
                                 "generation is idle ≥ %s, anon %s file %s), ", t,
                                 format_duration(h, sizeof(h), d->idle_horizon_usec),
                                 B(a, d->horizon_bytes[LRUGEN_ANON]),
                                 B(f, d->horizon_bytes[LRUGEN_FILE]));
                line_add(&l, "cooling anon %s file %s; ", B(a, d->cooling_bytes[LRUGEN_ANON]),
                         B(f, d->cooling_bytes[LRUGEN_FILE]));
        } else if (d->has_estimates) {
                format_duration(t, sizeof(t), d->cold_age_usec);
                line_add(&l, "cold anon %s file %s (idle ≥ %s), ", B(a, d->cold_bytes[LRUGEN_ANON]),
                         B(f, d->cold_bytes[LRUGEN_FILE]), t);
                line_add(&l, "cooling anon %s file %s; ", B(a, d->cooling_bytes[LRUGEN_ANON]),
                         B(f, d->cooling_bytes[LRUGEN_FILE]));
        } else
                line_add(&l, "no lru_gen histogram; ");

        if (d->has_psi_some)
                line_add(&l, "psi some %.2f%%", d->psi_some * 100.0);
        else
                line_add(&l, "psi some n/a");

        format_duration(t, sizeof(t), d->cold_age_usec);
        line_add(&l, "; T=%s", t);
        if (d->file_cold_age_usec && d->file_cold_age_usec != d->cold_age_usec) {
                format_duration(t, sizeof(t), d->file_cold_age_usec);
                line_add(&l, " (file %s)", t);
        }

        add_plan(&l, d);
        if (d->limit_bytes > 0 && d->need_bytes > 0) {
                /* The sizing, where the limits are read (HighHeadroom=): headroom.h. */
                char n[16], lim[16];
                line_add(&l, "; needs ~%s%s to run unthrottled, limit %s", B(n, d->need_bytes),
                         d->need_horizon_short ? " (nothing known idle for MinColdAge yet: all of it)" : "", B(lim, d->limit_bytes));
        }
        line_add(&l, ": %s", reason);

        for (size_t i = 0; i < ELEMENTSOF(flag_names); i++) {
                if (!(d->flags & flag_names[i].flag))
                        continue;
                line_add(&l, "%s%s", first_flag ? " [" : ", ", flag_names[i].name);
                first_flag = false;
        }
        if (!first_flag)
                line_add(&l, "]");

        return snprintf(buf, size, "%s", l.buf);
}

void decision_log_over_limit(const char *name, const struct decision *d) {
        char over[16], line[16], limit[16], need[16];

        log_notice("%s: the working set exceeds the limit: %s over the headroom line %s (limit "
                   "%s), not enough idle for MinColdAge to get back to it; needs ~%s%s to run "
                   "unthrottled. The kernel's throttling acts (said once).",
                   name, B(over, d->headroom_excess), B(line, d->headroom_line),
                   B(limit, d->limit_bytes), B(need, d->need_bytes),
                   d->need_horizon_short ? " (nothing known idle for MinColdAge yet: all of it)" : "");
}
