/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/policy/act-mode.h"

#include <stddef.h>

bool act_wants_advice(const struct act_facts *f) {
        return f->dry_run || f->mode == POLICY_MODE_ADVISE;
}

enum act_mode act_mode_decide(const struct act_facts *f) {
        if (f->dry_run || f->mode == POLICY_MODE_OFF)
                return ACT_REPORT;
        if (f->subject == ACT_SUBJECT_DROPS)
                return f->mode == POLICY_MODE_ADVISE ||
                       f->stream_protection != STREAM_PROTECTION_YES ? ACT_REPORT : ACT_WRITE;
        /* A delegated cgroup's memory.reclaim is its user's: a decision that writes it is
         * advice. lru_gen goes through debugfs and is not affected, but the decision is one
         * plan: its evictions are advice too. */
        if (act_wants_advice(f) || (f->reclaim_denied && f->n_reclaims > 0))
                /* Advice still ages: ageing moves no page out of memory, and without it the
                 * generations say nothing about idle time. Where lru_gen is read-only
                 * (lockdown) the ageing shown cannot be done: writing it would fail every
                 * cycle. */
                return f->n_age > 0 && f->lrugen_write ? ACT_AGE_ONLY : ACT_REPORT;
        return ACT_WRITE;
}

bool act_mode_allows(enum act_mode m, enum act_write w) {
        switch (m) {
        case ACT_WRITE:
                return true;
        case ACT_AGE_ONLY:
                return w == ACT_WRITE_AGE;
        default:
                return false;
        }
}
