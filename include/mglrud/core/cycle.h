/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cycle.h: what the manager hands the pieces below it (per-cgroup control, stream protection)
 * each cycle, and where they report. They get these explicit inputs and an actuation handle
 * (actuator.h), never the manager itself (docs/design.md, "Layers"). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "mglrud/kernel/lrugen.h"
#include "mglrud/policy/policy.h"

struct control_scratch;

/* One finished action, measured: what the writes asked for, what memory.stat says left. */
struct action_report {
        const char *cgroup;
        const char *action;            /* "evict", "reclaim" */
        uint64_t asked_bytes;
        uint64_t got_bytes[_LRUGEN_NR_TYPES];
        const char *reason;            /* decision_reason_to_string() */
        int error;                     /* the last failed write's negative errno, or 0 */
        const char *section;           /* the cgroup's section glob, "-" if none */
        const struct decision_summary *decision; /* what was decided */
};

/* Where actions and advice go: the journal records of the daemon, or stdout for --once
 * (interfaces/journal.h implements both). */
struct report_sink {
        /* An action finished (reported once its effect was measured). */
        void (*action)(void *userdata, const struct action_report *r);
        /* A decision that is only reported: advice (dry-run, Mode=advise), or an active
         * decision that writes nothing (would_act false). */
        void (*advice)(void *userdata, const char *cgroup, const char *section,
                       const struct decision_summary *d, bool would_act);
        void *userdata;
};

/* The per-cycle input. The pointers stay valid for the cycle. */
struct cycle_input {
        uint64_t now_usec;
        const struct host_sample *host_prev;  /* NULL on the first cycle */
        const struct host_sample *host_cur;
        const struct host_limits *host_limits;
        const struct lrugen *lrugen;          /* this cycle's histogram; NULL when unreadable */
        const struct kernel_caps *caps;       /* as probed (lrugen_write: we can age and evict) */
        bool lrugen_readable;                 /* advice shows lru_gen work even where we cannot
                                               * write (lockdown) */
        int lrugen_write_fd;                  /* lru_gen opened for writing, or -1 */
        bool dry_run;                         /* --dry-run/DryRun=: nothing at all is written */
        bool paused_all;                      /* Pause(""): sample every cgroup, act on none */
        const struct report_sink *report;
        struct control_scratch *scratch;      /* the cycle's working memory (control.h), or NULL */
        /* RefaultCheck=: check the kernel's refault counts (refault-trust.h). */
        bool refault_check;
        /* The daemon's own refault count: sets *ret_pages to the file pages of cgroup id
         * re-inserted into the page cache after reclaim evicted them (cumulative; 0 when none
         * were seen) and returns 0, or a negative errno. NULL without one (no BPF). */
        int (*own_refaults)(void *userdata, uint64_t cgroup_id, uint64_t *ret_pages);
        void *own_refaults_userdata;
        uint64_t interval_usec;               /* Interval= (the stall guard's threshold) */
        bool stall_guard;                     /* the BPF stall guard is loaded: reclaim jobs get
                                               * a stall limit (docs/design.md, "Stall guard") */
        /* Keep each cgroup's idle-age state (control-idle.h): on once a profile was asked for
         * (manager_want_idle_profile()); until then no cgroup pays for it (docs/design.md,
         * "Idle-age profile"). */
        bool idle_profile;
        bool refault_guard;                   /* the refault guard's source is set: jobs that
                                               * reclaim file pages get a refault limit (ibid.) */
};
