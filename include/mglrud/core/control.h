/* SPDX-License-Identifier: GPL-2.0-or-later */
/* control.h: one managed cgroup's control cycle: sample, decide (policy/), act through the
 * actuation path (actuator.h), measure the effect from stat deltas, report. It takes the cycle's
 * explicit input (cycle.h) and the actuation handle, never the manager. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mglrud/core/actuator.h"
#include "mglrud/core/cycle.h"
#include "mglrud/core/cgroup.h"
#include "mglrud/core/control-idle.h"
#include "mglrud/core/counters.h"
#include "mglrud/core/policy-pool.h"
#include "mglrud/core/refault-trust.h"
#include "mglrud/kernel/lrugen.h"

/* A read-only copy of one managed cgroup's controller state, for the bus, dumps and metrics.
 * The strings point into the cgroup and static tables: valid until the next cycle or rescan. */
struct control_snapshot {
        const char *path;
        uint64_t id;
        const char *section;       /* the most specific matching section's name, "Defaults"
                                    * when only annotated keys manage it */
        const char *runtime;       /* container runtime ("docker"), NULL when unknown */
        const char *container_id;  /* full container id, NULL when not a container */
        const char *pod_uid;       /* Kubernetes pod uid with dashes, NULL when unknown */
        const char *qos_class;     /* "BestEffort", ..., NULL when unknown */
        const char *annotated_policy; /* the [Policy:NAME] its annotation chose, NULL if none */
        char annotations[_POLICY_KEY_MAX][64]; /* annotated keys, "MinColdAge=5min" */
        size_t n_annotations;
        const char *mode;          /* configured Mode= */
        uint64_t cold_age_usec;    /* T */
        const char *reason;        /* last decision's reason, "paused", or "none" before any */
        char line[1024];           /* decision_format() of the last decision, "" before any */
        bool has_estimates;        /* the cold/cooling/warm bytes come from lru_gen */
        uint64_t cold_bytes[_LRUGEN_NR_TYPES];
        uint64_t cooling_bytes[_LRUGEN_NR_TYPES];
        uint64_t warm_bytes[_LRUGEN_NR_TYPES];
        bool has_psi_some;
        double psi_some;           /* cgroup PSI some share over the last cycle (0..1) */
        /* The sizing (headroom.h) and the limit beside it (0: not known): what the cgroup needs
         * to run unthrottled, within MinColdAge and within T, with HighHeadroom= added. */
        uint64_t need_bytes, need_t_bytes, limit_bytes;
        bool need_horizon_short;     /* the idle horizon is short of MinColdAge */
        uint64_t reclaimed_bytes[_LRUGEN_NR_TYPES]; /* measured, cumulative */
        /* Whether the kernel's refault counts were found short, by which sign ("own-count",
         * "shadow-nodes"; NULL while trusted): refault_undercount, refault-trust.h. */
        const char *refault_undercount_sign;
        bool paused;               /* paused for this cgroup (not counting a daemon-wide pause) */
        bool has_reclaim_stall;    /* the stall guard is loaded: reclaim_stall_ns is read */
        /* The counters (counters.h): actions, errors, stream drops, refault counts, the
         * pressure triggers' and the guards' stops, the reclaim stall. */
#define COUNTER_FIELD_(field, type, ...) type field;
        CONTROL_COUNTERS(COUNTER_FIELD_)
#undef COUNTER_FIELD_
        char overrides[_POLICY_KEY_MAX][64]; /* runtime overrides, "MaxStep=32M", in key order */
        size_t n_overrides;
        uint64_t min_cold_age_usec, max_cold_age_usec; /* the effective policy's bounds */
        struct control_idle_lists idle_lists; /* memory.stat's LRU lists, last reading */
        const struct control_idle_state *idle_state; /* the profile's state, NULL without
                                    * lru_gen: control_snapshot_idle() */
};

/* Fills *ret with the idle-age profile of a snapshot's cgroup, as of its last cycle. */
static inline void control_snapshot_idle(const struct control_snapshot *s,
                                         struct control_idle *ret) {
        control_idle_get(&s->idle_lists, s->idle_state, ret);
}

/* Working memory that one cycle reuses for every cgroup: the lruvecs of a cgroup and of the
 * descendants its work covers, when the histogram does not hold them side by side. The manager
 * owns one (cycle_input.scratch); without one each cgroup allocates its own. */
struct control_scratch {
        struct lrugen_lruvec *lruvecs;
        size_t cap;
};

/* Frees the scratch's memory. */
void control_scratch_done(struct control_scratch *x);

/* What one cgroup's cycle decides on: its memory files at in->now_usec (memory.stat, PSI, the
 * limits) and the daemon's own refault count of it. The lru_gen record is the cycle's
 * (cycle_input.lrugen), for every cgroup. control_cgroup_read() builds it from the files; a test
 * builds it by hand. */
struct control_reading {
        struct cgroup_reading cur;
        struct own_refaults own;        /* refault-trust.h: invalid unless RefaultCheck= reads it */
};

/* Reads cg's files and its own refault count (in->own_refaults, when in->refault_check) into
 * *ret. A failed read is said once per kind. Returns 1 with *ret read; 0 when there is nothing
 * to decide on (cg vanished: cg->vanished is set, or a read failed); or -ENOMEM. */
int control_cgroup_read(struct cgroup *cg, const struct cycle_input *in,
                        struct control_reading *ret);

/* Runs decide -> act -> report for cg on the reading rd with this cycle's input, handing writes
 * to act (the cycle without its reads of cg's files). Returns 0 or -ENOMEM. */
int control_cgroup_step(struct cgroup *cg, const struct cycle_input *in,
                        const struct control_reading *rd, struct actuator *act);

/* Runs sample -> decide -> act -> report for cg with this cycle's input, handing writes to act:
 * control_cgroup_read(), then control_cgroup_step() on what it read. Returns 0 (also when cg
 * vanished: cg->vanished is set), or -ENOMEM. */
int control_cgroup_cycle(struct cgroup *cg, const struct cycle_input *in, struct actuator *act);

/* Returns the bytes mglrud reclaimed from cg so far (measured, not requested). */
uint64_t control_cgroup_reclaimed_bytes(const struct cgroup *cg);

/* Returns the bytes cg's controller state holds (docs/design.md, "Memory"): the state with its
 * policy state and idle-age state, its job record once it had a job, its runtime overrides. 0
 * before its first cycle. */
size_t control_cgroup_state_bytes(const struct cgroup *cg);

/* Fills *ret with cg's current state (zeros and reason "none" before the first cycle).
 * Returns 0, or -EINVAL on NULL arguments. */
int control_cgroup_snapshot(const struct cgroup *cg, struct control_snapshot *ret);

/* Pauses (no decisions, no writes; samples are still taken) or resumes cg. Returns 0 or
 * -ENOMEM. */
int control_cgroup_set_paused(struct cgroup *cg, bool paused);

/* Returns true when cg itself is paused (a daemon-wide pause is the caller's to check). */
bool control_cgroup_paused(const struct cgroup *cg);

/* Applies cg's runtime overrides over *p, the policy a rescan found for cg in the
 * configuration (so they survive rescans and reloads). */
void control_cgroup_apply_overrides(const struct cgroup *cg, struct policy *p);

/* Sets the runtime override of policy key k for cg to value, parsed with the configuration's
 * own parser, or removes it when value is "" or NULL; cg->policy becomes pool's copy of base
 * (the configured policy, config_policy_for()) with the overrides applied. Returns 0, -ENOMEM,
 * or -EINVAL with a static reason in *ret_reason (the parser's, or a MinColdAge/MaxColdAge
 * conflict); nothing changes on error. */
int control_cgroup_set_override(struct cgroup *cg, struct policy_pool *pool,
                                const struct policy *base, enum policy_key k, const char *value,
                                const char **ret_reason);

/* Computes cg's advisory decision now, without side effects: reads cg, decides on its previous
 * sample and a copy of its policy state with Mode=advise, and formats the decision into buf
 * (decision_format()). Nothing is written and the controller state is not changed. Returns 0,
 * -ENOENT when cg vanished, or another negative errno. */
int control_cgroup_advise(struct cgroup *cg, const struct cycle_input *in, char *buf, size_t size);

/* Measures and reports a finished job of cg on the event loop's thread; cg is NULL when the
 * cgroup is no longer managed. A decision job that is not the one cg's state waits for (its
 * token differs) is dropped unmeasured. Drop jobs are counted into cg's stream figures and
 * logged. Takes ownership of the job. */
void control_job_done(struct cgroup *cg, struct actuator_job *j, const struct report_sink *report);

/* Frees the controller state attached to cg->userdata. */
void control_cgroup_free(struct cgroup *cg);

/* Returns the HighHeadroom= line (bytes of memory.current) cg's last decision drew, 0 when it drew
 * none (headroom off, no limit, no decision yet). */
uint64_t control_cgroup_headroom_line(const struct cgroup *cg);

/* Returns true while cg's reclaim is running or queued, or was submitted within grace_usec of
 * now_usec: the time its pressure trigger must be armed (pressure-trigger.h). */
bool control_cgroup_reclaiming(const struct cgroup *cg, uint64_t now_usec, uint64_t grace_usec);

/* What stopped a cgroup's reclaim (control_cgroup_note_stop()). */
enum control_stop_reason {
        CONTROL_STOP_PRESSURE,          /* its PSI trigger (or the host's) fired */
        CONTROL_STOP_RECLAIM_STALL,     /* the BPF stall guard ended a job between two chunks */
        CONTROL_STOP_REFAULT_BURST,     /* the refault guard ended a job between two chunks */
};

/* One stop of a cgroup's reclaim, whichever brake made it. */
struct control_stop {
        enum control_stop_reason reason;
        uint64_t now_usec;
        unsigned n_stopped;             /* write jobs cancelled or cut short */
        uint64_t stall_ns;              /* RECLAIM_STALL: the reclaim time (ns since the job
                                         * began) the guard saw */
        uint64_t refault_pages;         /* REFAULT_BURST: pages that came back during the job */
        uint64_t refault_limit_pages;   /* REFAULT_BURST: the limit they passed */
};

/* Records that cg's reclaim was stopped (actuator_stop_cgroup(), or a guard's own job): counts
 * the stop by its reason, keeps what the guard saw for the dump, and raises T so that the next
 * decision reclaims nothing (policy_note_stall()). Returns the new T (0 before the first
 * decision, and with Mode=pressure, which has no T). */
uint64_t control_cgroup_note_stop(struct cgroup *cg, const struct control_stop *stop);

/* The refault guard's limit for a job of decision d (docs/design.md, "Stall guard"): the share
 * of the pages the job asks to reclaim that may come back while it runs before it is stopped.
 * Returns 0 (no refault guard) when d reclaims no file pages. */
double control_refault_guard_share(const struct decision *d);
