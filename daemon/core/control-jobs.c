/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A cgroup's jobs (control-jobs.h): handing a decision to the actuation path, measuring and
 * reporting what a finished job did (control_job_done(), drops of stream protection included),
 * and the stops of its reclaim by a brake (control_cgroup_note_stop()). */
#include <errno.h>
#include <stdio.h>

#include "control-jobs.h"
#include "mglrud/core/decision-text.h"
#include "mglrud/core/pressure-trigger.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/parse-util.h"
#include "mglrud/shared/time.h"

/* The token of the last job submitted: each job's is the next, unique for the daemon's life,
 * so that a job of a state gone (the cgroup left and came back with the same id) is never
 * taken for the one a fresh state waits for. */
static uint64_t next_token;

/* The memory.stat counters a job's effect is measured against (control_job_done()), in the
 * job: anon, file and pgsteal_proactive of the reading its decision was taken on. */
enum { BASE_ANON, BASE_FILE, BASE_STEAL };

static void baseline_take(const struct memstat *m, struct actuator_tag *t) {
        static const enum memstat_key keys[] = {
                [BASE_ANON] = MEMSTAT_ANON,
                [BASE_FILE] = MEMSTAT_FILE,
                [BASE_STEAL] = MEMSTAT_PGSTEAL_PROACTIVE,
        };
        t->has_baseline = 0;
        for (unsigned k = 0; k < ELEMENTSOF(keys); k++)
                if (memstat_get(m, keys[k], &t->baseline[k]))
                        t->has_baseline |= (uint8_t) (1u << k);
}

/* Returns baseline k of the job, 0 when it was absent. */
static uint64_t baseline(const struct actuator_tag *t, unsigned k) {
        return t->has_baseline & (1u << k) ? t->baseline[k] : 0;
}

void control_note_reclaim_denied(struct cgroup *cg, struct control_state *s) {
        if (s->reclaim_denied_logged)
                return;
        s->reclaim_denied_logged = true;
        log_notice("%s: memory.reclaim is not writable (the cgroup is owned by uid %u, delegated): "
                   "its memory.reclaim decisions are advice only; lru_gen eviction is not "
                   "affected. Give the daemon CAP_DAC_OVERRIDE to manage it fully.",
                   cg->name, (unsigned) cg->files.owner);
}

void control_report_advice(const struct report_sink *report, const struct cgroup *cg,
                           const struct decision_summary *d) {
        bool would_act = d->n_reclaims > 0 ||
                         (d->reason == DECISION_EVICT_COLD || d->reason == DECISION_EVICT_STREAM);
        if (report && report->advice)
                report->advice(report->userdata, cg->name,
                               cg->section ? cg->section->name : "Defaults",
                               d, would_act);
}

int control_job_submit(const struct cycle_input *in, struct actuator *act, struct cgroup *cg,
                       struct control_state *s, const struct cgroup_reading *cur,
                       const struct decision *d, enum act_mode mode) {
        if (mode == ACT_WRITE && log_get_max_level() >= LOG_DEBUG) {
                char line[1024];
                if (decision_format(d, mode, line, sizeof line) >= 0)
                        log_debug("%s: decision: %s", cg->name, line);
        }
        struct control_acts *a = control_acts_get(s);
        if (!a)
                return -ENOMEM;
        struct actuator_job *j = actuator_job_new(cg->id, cg->name, cg->files.dirfd,
                                                  in->lrugen_write_fd, in->caps->page_size, mode,
                                                  d);
        if (!j)
                return -ENOMEM;
        struct actuator_tag *tag = actuator_job_tag(j);
        tag->token = ++next_token;
        baseline_take(&cur->stat, tag);
        s->in_flight = true;
        a->in_flight_token = tag->token;
        s->in_flight_stopped = false;
        s->in_flight_reclaims = mode == ACT_WRITE &&
                                d->planned_bytes[LRUGEN_ANON] + d->planned_bytes[LRUGEN_FILE] > 0;
        /* The guard allows as much reclaim time since the job began as the pressure trigger
         * allows within its window (docs/design.md, "Stall guard"). */
        struct actuator_limits limits = {};
        if (in->stall_guard && s->in_flight_reclaims)
                limits.stall_limit_ns = policy_trigger_stall_usec(cg->policy->pressure_target,
                                                                  in->interval_usec,
                                                                  PRESSURE_TRIGGER_WINDOW_USEC) *
                                        UINT64_C(1000);
        if (in->refault_guard && s->in_flight_reclaims)
                limits.refault_share = control_refault_guard_share(d);
        actuator_job_set_limits(j, &limits);
        a->refault_guard_jobs += limits.refault_share > 0;
        if (s->in_flight_reclaims)
                a->last_reclaim_usec = cur->now_usec;
        int r = actuator_submit(act, j);
        if (r == -ESHUTDOWN)
                s->in_flight = false;
        return r == -ESHUTDOWN ? 0 : r;
}

/* Writes ", N ms after the threshold" (how long after the file crossed a stream threshold the
 * drop finished: the fast path's latency) into buf, or "" when the crossing is not known. */
static const char *format_drop_latency(char *buf, size_t size, const struct actuator_job *j,
                                       uint64_t crossed_usec) {
        uint64_t finished = actuator_job_result_const(j)->finished_usec;
        if (!crossed_usec || finished < crossed_usec)
                return "";
        snprintf(buf, size, ", %llu ms after the threshold",
                 (unsigned long long) ((finished - crossed_usec) / USEC_PER_MSEC));
        return buf;
}

/* Counts (into a) and logs a finished drop job of cg (stream protection). */
static void drop_done(struct cgroup *cg, struct control_acts *a, const struct actuator_job *j) {
        uint64_t small_bytes = 0, small_first_crossed = 0;
        unsigned small_files = 0;
        const char *small_last = NULL;
        const char *verb = act_mode_allows(actuator_job_mode(j), ACT_WRITE_DROP) ? "dropped" :
                           "would drop";
        char b1[32], b2[32], b3[32], lat[64];

        for (size_t i = 0; i < actuator_job_n_drops(j); i++) {
                const struct actuator_drop *d = actuator_job_drop(j, i);
                if (d->error < 0)
                        continue;
                a->stream_dropped_bytes += d->length;
                if (d->whole_file)
                        a->stream_files++;
                if (d->small_file) {
                        small_files++;
                        small_bytes += d->length;
                        small_last = d->path;
                        /* the summary gives the longest latency: the earliest crossing */
                        if (d->crossed_usec &&
                            (!small_first_crossed || d->crossed_usec < small_first_crossed))
                                small_first_crossed = d->crossed_usec;
                        log_debug("%s: %s %s of %s, small file read once.", cg->name, verb,
                                  format_bytes(b1, sizeof b1, d->length), d->path);
                        continue;
                }
                log_info("%s: %s %s of %s, read once (%s of %s read)%s.", cg->name, verb,
                         format_bytes(b1, sizeof b1, d->length), d->path,
                         format_bytes(b2, sizeof b2, d->read_bytes),
                         format_bytes(b3, sizeof b3, d->size_bytes),
                         format_drop_latency(lat, sizeof lat, j, d->crossed_usec));
        }
        if (small_files > 0)
                log_info("%s: %s %s of %u small files read once (the last %s)%s.", cg->name, verb,
                         format_bytes(b1, sizeof b1, small_bytes), small_files, small_last,
                         format_drop_latency(lat, sizeof lat, j, small_first_crossed));
}

/* Returns the bytes of anon and file memory the job of tag took from the cgroup, into
 * ret_got[], as its reading after (at its end) shows against the job's baseline: proactive
 * steals are ours (or another proactive agent's); the anon/file deltas say which type they
 * came from. */
static void measure_reclaimed(const struct actuator_tag *tag, const struct memstat *after,
                              uint64_t page_size, uint64_t ret_got[static _LRUGEN_NR_TYPES]) {
        uint64_t a0 = baseline(tag, BASE_ANON), f0 = baseline(tag, BASE_FILE);
        uint64_t a1 = 0, f1 = 0, s1 = 0, s0 = baseline(tag, BASE_STEAL);
        memstat_get(after, MEMSTAT_ANON, &a1);
        memstat_get(after, MEMSTAT_FILE, &f1);
        uint64_t got_anon = a0 > a1 ? a0 - a1 : 0;
        uint64_t got_file = f0 > f1 ? f0 - f1 : 0;
        /* memstat_delta(): 0 when absent from either reading or gone backwards. */
        bool has_s1 = memstat_get(after, MEMSTAT_PGSTEAL_PROACTIVE, &s1);
        uint64_t steal = (tag->has_baseline & (1u << BASE_STEAL)) && has_s1 && s1 >= s0 ?
                         s1 - s0 : 0;
        if (steal == 0) {
                got_anon = got_file = 0; /* the workload freed it, not us */
        } else if (steal * page_size < got_anon + got_file) {
                /* The workload freed memory meanwhile: count only what was stolen. */
                double k = (double) (steal * page_size) / (double) (got_anon + got_file);
                got_anon = (uint64_t) (got_anon * k);
                got_file = (uint64_t) (got_file * k);
        }
        ret_got[LRUGEN_ANON] = got_anon;
        ret_got[LRUGEN_FILE] = got_file;
}

/* Notes the failed writes of a finished job of cg: a denied memory.reclaim once, other errors
 * counted and into the policy state (its back-off). */
static void note_job_errors(struct cgroup *cg, struct control_state *s,
                            const struct actuator_result *res, const struct decision_summary *d) {
        if (res->failed == 0)
                return;
        if (d->n_reclaims > 0 && (res->last_error == -EACCES || res->last_error == -EPERM)) {
                /* Permissions changed under us (a subtree delegated since we opened it): not an
                 * error to repeat every cycle. */
                cg->files.reclaim_denied = true;
                control_note_reclaim_denied(cg, s);
                return;
        }
        s->acts->errors += res->failed;
        if (s->policy_size) {
                struct policy_state ps;
                control_policy_load(s, &ps);
                policy_note_error(&ps, res->finished_usec);
                control_policy_store(cg, &ps); /* the same size: it stays in place */
        }
}

/* Measures what a finished write job of cg (s its state) achieved and reports it. */
static void action_done(struct cgroup *cg, struct control_state *s, const struct actuator_job *j,
                        const struct report_sink *report) {
        const struct actuator_result *res = actuator_job_result_const(j);
        const struct decision_summary *d = actuator_job_decision(j);
        uint64_t got[_LRUGEN_NR_TYPES] = {};
        struct cgroup_reading after;

        s->acts->actions++;
        if (!cg->vanished && cgroup_read(cg, res->finished_usec, &after, NULL) >= 0) {
                measure_reclaimed(actuator_job_tag_const(j), &after.stat,
                                  actuator_job_page_size(j), got);
                s->acts->reclaimed_bytes[LRUGEN_ANON] += got[LRUGEN_ANON];
                s->acts->reclaimed_bytes[LRUGEN_FILE] += got[LRUGEN_FILE];
        }
        struct action_report ar = {
                .cgroup = cg->name,
                .action = d->n_reclaims > 0 ? "reclaim" : "evict",
                .asked_bytes = res->asked_bytes,
                .got_bytes = { [LRUGEN_ANON] = got[LRUGEN_ANON], [LRUGEN_FILE] = got[LRUGEN_FILE] },
                .reason = decision_reason_to_string(d->reason),
                .error = res->last_error,
                .section = cg->section ? cg->section->name : "Defaults",
                .decision = d,
        };
        if (report && report->action)
                report->action(report->userdata, &ar);
}

void control_job_done(struct cgroup *cg, struct actuator_job *j, const struct report_sink *report) {
        struct control_state *s = cg ? cg->userdata : NULL;
        struct control_acts *acts;

        if (cg && actuator_job_kind(j) == ACTUATOR_JOB_DROP) {
                if ((s = control_state_get(cg)) && (acts = control_acts_get(s)))
                        drop_done(cg, acts, j);
                actuator_job_free(j);
                return;
        }
        const struct actuator_result *res = actuator_job_result_const(j);
        const struct decision_summary *d = actuator_job_decision(j);
        /* A job in flight has its record: control_job_submit() made it. */
        if (!s || !s->in_flight || !(acts = s->acts) ||
            acts->in_flight_token != actuator_job_tag_const(j)->token) {
                /* The cgroup went away meanwhile, or stopped being managed and came back with
                 * a fresh state (same id): this job is not the one its state waits for. */
                actuator_job_free(j);
                return;
        }
        s->in_flight = false;
        if (s->in_flight_reclaims && res->asked_bytes > 0)
                acts->last_write_usec = res->finished_usec;
        if (res->vanished)
                cg->vanished = true;
        note_job_errors(cg, s, res, d);
        bool age_only = d->act == ACT_AGE_ONLY;
        if (age_only || (res->asked_bytes == 0 && res->failed == 0)) {
                /* Ageing only: nothing leaves memory, nothing to measure or to report above
                 * debug (it happens about every T/2). */
                log_debug("%s: aged %u lruvec%s (%s)", cg->name, d->n_age,
                          d->n_age == 1 ? "" : "s",
                          decision_reason_to_string(d->reason));
                if (!age_only) /* advice was reported when it was decided */
                        control_report_advice(report, cg, d);
        } else
                action_done(cg, s, j, report);
        actuator_job_free(j);
}

bool control_cgroup_reclaiming(const struct cgroup *cg, uint64_t now_usec, uint64_t grace_usec) {
        const struct control_state *s = cg->userdata;
        if (!s)
                return false;
        if (s->in_flight && s->in_flight_reclaims && !s->in_flight_stopped)
                return true;
        const struct control_acts *a = s->acts;
        return a && a->last_reclaim_usec > 0 && now_usec - a->last_reclaim_usec <= grace_usec;
}

/* The share of what a job evicts that may come back while it runs. The tiering controller
 * evicts pages idle for at least T (MinColdAge= and up: minutes), and RefaultTarget= tolerates
 * refaults of 0.2% of the working set a minute; a job runs for seconds, so of the pages it
 * evicts next to none should be read again before it ends. A quarter back within the job is
 * two orders of magnitude above that: the job is evicting the working set (a TMO step that
 * overshot, a T too short). Not lower, because the count lags: a page evicted by the chunk just
 * written is read again only when its reader reaches it, and pages evicted before the job (by
 * the kernel or the previous job) that come back now count too. */
#define REFAULT_GUARD_SHARE 0.25

double control_refault_guard_share(const struct decision *d) {
        uint64_t file = d->planned_bytes[LRUGEN_FILE], total = file + d->planned_bytes[LRUGEN_ANON];
        if (file == 0)
                return 0; /* nothing of the page cache is evicted: nothing to come back */
        /* The limit is on the pages asked so far, anon included: count only the file share. */
        return REFAULT_GUARD_SHARE * (double) file / (double) total;
}

/* Counts stop by its reason and keeps what its brake saw, for the dump. */
static void acts_note_stop(struct control_acts *a, const struct control_stop *stop) {
        switch (stop->reason) {
        case CONTROL_STOP_RECLAIM_STALL:
                a->guard_stops++;
                a->guard_last_stall_ns = stop->stall_ns;
                a->guard_last_stop_usec = stop->now_usec;
                break;
        case CONTROL_STOP_REFAULT_BURST:
                a->refault_guard_stops++;
                a->refault_guard_last_pages = stop->refault_pages;
                a->refault_guard_last_limit = stop->refault_limit_pages;
                a->refault_guard_last_stop_usec = stop->now_usec;
                break;
        case CONTROL_STOP_PRESSURE:
                a->pressure_stops++;
                break;
        }
        a->stopped_jobs += stop->n_stopped;
        if (!a->first_stop_usec)
                a->first_stop_usec = stop->now_usec;
        a->last_stop_usec = stop->now_usec;
        a->last_reclaim_usec = 0;
}

uint64_t control_cgroup_note_stop(struct cgroup *cg, const struct control_stop *stop) {
        struct control_state *s = cg->userdata;
        if (!s)
                return 0;
        /* A stop comes with a job, which has its record; without one (OOM) only the counts
         * are lost. */
        struct control_acts *a = control_acts_get(s);
        if (a)
                acts_note_stop(a, stop);
        /* Nothing counts as reclaiming until a decision submits again (the job being stopped
         * included): the trigger is re-armed when reclaim resumes. That job's end is still the
         * last write (its chunk in flight goes on), so it stays in_flight_reclaims. */
        s->in_flight_stopped = s->in_flight;
        if (!s->policy_size)
                return 0;
        struct policy_state ps;
        control_policy_load(s, &ps);
        policy_note_stall(cg->policy, &ps, stop->now_usec);
        control_policy_store(cg, &ps); /* the same size: it stays in place */
        /* T is the tiering controller's; Mode=pressure steps by PSI and has none to report. */
        return cg->policy->mode == POLICY_MODE_ACTIVE ? ps.cold_age_usec : 0;
}
