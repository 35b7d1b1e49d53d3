/* SPDX-License-Identifier: GPL-2.0-or-later */
/* actuator-internal.h: the job's layout, shared by the three parts of the actuation path
 * (actuator-job.c: the job and its accessors, actuator-run.c: running it, actuator.c: the queue
 * and the writer thread). Private to them: everyone else reads a job through actuator.h. */
#pragma once

#include "mglrud/core/actuator.h"

struct actuator_job {
        /* input */
        enum actuator_job_kind kind;
        uint64_t cgroup_id;
        char *path;             /* for log lines (the cgroup may be renamed or gone meanwhile) */
        int dirfd;              /* the cgroup directory, owned by the job, or -1 (drops) */
        int lrugen_fd;          /* /sys/kernel/debug/lru_gen for writing, owned by the job, or -1 */
        uint64_t page_size;
        enum act_mode mode;     /* what the job may write (act_mode_allows()); lowered to
                                 * ACT_REPORT by actuator_report_only(); atomic */
        struct decision_summary decision;   /* ACTUATOR_JOB_DECISION: what was decided, with its
                                             * memory.reclaim writes; its lru_gen commands are
                                             * cmds (a job holds only those it has) */
        struct actuator_drop *drops;        /* ACTUATOR_JOB_DROP */
        size_t n_drops;
        uint64_t write_started_usec; /* the write in progress began then (0: none); atomic */
        struct actuator_tag tag;            /* the submitter's */
        const struct actuator_check *check; /* set by actuator_submit(); NULL: none */
        struct actuator_limits limits;      /* actuator_job_set_limits() */

        /* results, and the state of a running job */
        struct actuator_result result;
        bool stop;              /* actuator_stop_cgroup(), actuator_cancel(): end after the chunk in
                                 * flight; atomic */
        struct actuator_brake_reading brakes[ACTUATOR_BRAKES_MAX]; /* the brakes' readings */

        struct actuator_job *next;

        size_t n_cmds;
        struct lrugen_cmd cmds[];           /* the decision's lru_gen commands, in order */
};

/* Returns the number of kernel writes a job issues (chunks included), for the counts. */
uint64_t actuator_job_writes(const struct actuator_job *j);
