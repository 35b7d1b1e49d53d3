/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/interfaces/journal.h"

#include <stdlib.h>
#include <string.h>

#include "mglrud/core/decision-text.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/parse-util.h"

static void print_line(FILE *f, const char *cgroup, const char *section,
                       const struct decision_summary *d) {
        char line[1024];
        if (decision_summary_format(d, line, sizeof line) < 0)
                snprintf(line, sizeof line, "%s", decision_reason_to_string(d->reason));
        fprintf(f, "%s [%s]: %s\n", cgroup, section, line);
}

static void report_advice(void *userdata, const char *cgroup, const char *section,
                          const struct decision_summary *d, bool would_act) {
        FILE *out = userdata;
        if (out) {
                print_line(out, cgroup, section, d);
                return;
        }
        int level = would_act ? LOG_INFO : LOG_DEBUG;
        /* Most cycles of most cgroups only age or find nothing: a debug line nobody sees is not
         * worth formatting, thousands of times per cycle. */
        if (level > log_get_max_level())
                return;
        char line[1024], f_cg[512], f_reason[64];
        if (decision_summary_format(d, line, sizeof line) < 0)
                snprintf(line, sizeof line, "%s", decision_reason_to_string(d->reason));
        snprintf(f_cg, sizeof f_cg, "MGLRUD_CGROUP=%s", cgroup);
        snprintf(f_reason, sizeof f_reason, "MGLRUD_REASON=%s", decision_reason_to_string(d->reason));
        const char *fields[] = { f_cg, "MGLRUD_ACTION=advise", f_reason, NULL };
        log_struct_internal(level, 0, fields, "%s: %s", cgroup, line);
}

static void report_action(void *userdata, const struct action_report *r) {
        FILE *out = userdata;
        char f_cg[512], f_act[64], f_bytes[64], f_got[64], f_reason[64];
        char a[32], ga[32], gf[32];
        uint64_t got = r->got_bytes[LRUGEN_ANON] + r->got_bytes[LRUGEN_FILE];

        snprintf(f_cg, sizeof f_cg, "MGLRUD_CGROUP=%s", r->cgroup);
        snprintf(f_act, sizeof f_act, "MGLRUD_ACTION=%s", r->action);
        snprintf(f_bytes, sizeof f_bytes, "MGLRUD_BYTES=%llu", (unsigned long long) r->asked_bytes);
        snprintf(f_got, sizeof f_got, "MGLRUD_BYTES_GOT=%llu", (unsigned long long) got);
        snprintf(f_reason, sizeof f_reason, "MGLRUD_REASON=%s", r->reason);
        const char *fields[] = { f_cg, f_act, f_bytes, f_got, f_reason, NULL };
        log_struct_internal(r->error ? LOG_WARNING : LOG_INFO, r->error, fields,
                            "%s: %s asked %s, got anon %s file %s (%s)%s%s", r->cgroup, r->action,
                            format_bytes(a, sizeof a, r->asked_bytes),
                            format_bytes(ga, sizeof ga, r->got_bytes[LRUGEN_ANON]),
                            format_bytes(gf, sizeof gf, r->got_bytes[LRUGEN_FILE]), r->reason,
                            r->error ? ": " : "", r->error ? strerror(abs(r->error)) : "");
        if (out && r->decision)
                print_line(out, r->cgroup, r->section, r->decision);
}

struct report_sink journal_report_sink(FILE *advice_out) {
        return (struct report_sink) {
                .action = report_action,
                .advice = report_advice,
                .userdata = advice_out,
        };
}
