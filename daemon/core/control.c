/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One managed cgroup's cycle (control.h): sample, decide (policy/), act through the actuation
 * path, in named steps; the state it keeps is control-state.c's, the jobs control-jobs.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "control-decide.h"
#include "control-jobs.h"
#include "mglrud/core/decision-text.h"
#include "mglrud/shared/log.h"

/* Keeps of the reading rd (own its own refault count) what the next cycle's policy reads from
 * a previous sample. */
static void prev_take(const struct cgroup_reading *rd, const struct own_refaults *own,
                      struct prev_reading *ret) {
        *ret = (struct prev_reading) {
                .now_usec = rd->now_usec,
                .psi_some_us = rd->psi.some.total_us,
                .psi_full_us = rd->psi.full.total_us,
                .own_refault_file = own->pages,
                .has_psi = rd->has_psi,
                .has_psi_full = rd->psi.has_full,
                .has_own_refault_file = own->valid,
        };
        for (unsigned i = 0; i < POLICY_PREV_MEMSTAT_KEYS; i++)
                if (memstat_get(&rd->stat, policy_prev_memstat_keys[i], &ret->stat[i]))
                        ret->stat_present |= UINT32_C(1) << i;
}

/* Makes room for n lruvecs in the scratch. Returns 0 or -ENOMEM. */
static int scratch_reserve(struct control_scratch *x, size_t n) {
        if (n <= x->cap)
                return 0;
        size_t cap = MAX(x->cap * 2, n);
        struct lrugen_lruvec *v = reallocarray(x->lruvecs, cap, sizeof *v);
        if (!v)
                return -ENOMEM;
        x->lruvecs = v;
        x->cap = cap;
        return 0;
}

ssize_t control_collect_lruvecs(const struct lrugen *l, const struct cgroup *cg,
                                struct control_scratch *x,
                                const struct lrugen_lruvec **ret_lruvecs) {
        const struct lrugen_lruvec *first;
        size_t n, total;

        *ret_lruvecs = NULL;
        if (!l)
                return 0;
        n = lrugen_find_memcg(l, cg->id, &first);
        if (n == 0 && (first = lrugen_find_path(l, cg->path)))
                n = lrugen_find_memcg(l, first->memcg_id, &first);
        total = n;
        for (size_t i = 0; i < cg->n_covered; i++)
                total += lrugen_find_memcg(l, cg->covered_ids[i], NULL);
        if (total == n) {
                *ret_lruvecs = n > 0 ? first : NULL;
                return (ssize_t) n;
        }
        if (scratch_reserve(x, total) < 0)
                return -ENOMEM;
        if (n > 0)
                memcpy(x->lruvecs, first, n * sizeof *first);
        for (size_t i = 0; i < cg->n_covered; i++) {
                const struct lrugen_lruvec *c;
                size_t k = lrugen_find_memcg(l, cg->covered_ids[i], &c);
                if (k > 0)
                        memcpy(x->lruvecs + n, c, k * sizeof *c);
                n += k;
        }
        *ret_lruvecs = x->lruvecs;
        return (ssize_t) n;
}

static void fill_sample(const struct cgroup_reading *rd, const struct lrugen_lruvec *lruvecs,
                        size_t n_lruvecs, bool has_lrugen, struct cgroup_sample *ret) {
        *ret = (struct cgroup_sample) {
                .now_usec = rd->now_usec,
                .psi = rd->psi,
                .has_psi = rd->has_psi,
                .stat = rd->stat,
                .limits = rd->limits,
                .lruvecs = lruvecs,
                .n_lruvecs = n_lruvecs,
                .has_lrugen = has_lrugen,
        };
}

/* A previous sample: what prev_reading kept, the rest zero or absent (the policy does not read
 * it). */
static void fill_prev_sample(const struct prev_reading *pr, struct cgroup_sample *ret) {
        *ret = (struct cgroup_sample) {
                .now_usec = pr->now_usec,
                .psi.some.total_us = pr->psi_some_us,
                .psi.full.total_us = pr->psi_full_us,
                .psi.has_full = pr->has_psi_full,
                .has_psi = pr->has_psi,
                .own_refault_file = pr->own_refault_file,
                .has_own_refault_file = pr->has_own_refault_file,
        };
        for (unsigned i = 0; i < POLICY_PREV_MEMSTAT_KEYS; i++)
                if (pr->stat_present & (UINT32_C(1) << i)) {
                        ret->stat.value[policy_prev_memstat_keys[i]] = pr->stat[i];
                        ret->stat.present |= UINT32_C(1) << policy_prev_memstat_keys[i];
                }
}

int control_decide_for_cycle(const struct control_decide_input *x, struct policy_state *ret_state,
                             struct decision *ret) {
        const struct cycle_input *in = x->in;
        struct kernel_caps caps = *in->caps;
        /* Advice shows what lru_gen would do even where we did not open it. */
        caps.lrugen_write = caps.lrugen_write ||
                            (x->policy->mode == POLICY_MODE_ADVISE && in->lrugen_readable);

        struct cgroup_sample sp, sc;
        fill_sample(x->cur, x->lruvecs, x->n_lruvecs, in->lrugen && x->n_lruvecs > 0, &sc);
        sc.own_refault_file = x->own->pages;
        sc.has_own_refault_file = x->own->valid;
        sc.refault_file_undercount = x->refault_undercount;
        if (x->prev)
                fill_prev_sample(x->prev, &sp);
        const struct policy_input pin = {
                .policy = x->policy, .caps = &caps, .prev = x->prev ? &sp : NULL, .cur = &sc,
                .host_prev = in->host_prev, .host_cur = in->host_cur,
                .host_limits = in->host_limits,
        };
        return policy_decide(&pin, x->state, ret_state, ret);
}

/* Checks the kernel's refault counts of cg over its previous sample -> cur (refault-trust.h),
 * so that this cycle's decision already takes the larger count once they are found short. */
static void check_refaults(const struct cycle_input *in, struct cgroup *cg,
                           struct control_state *s, const struct cgroup_reading *cur,
                           const struct own_refaults *own) {
        if (!in->refault_check || !s->has_prev || cur->now_usec <= s->prev.now_usec)
                return;
        struct cgroup_sample prev;
        fill_prev_sample(&s->prev, &prev);
        const struct own_refaults own_prev = { .pages = s->prev.own_refault_file,
                                               .valid = s->prev.has_own_refault_file };
        refault_trust_update(&s->refault, cg->name, &prev.stat, &cur->stat, &own_prev, own,
                             cur->now_usec - s->prev.now_usec, in->caps->page_size);
}

/* Updates cg's idle-age profile from this cycle's reading (docs/design.md, "Idle-age
 * profile"): p is the policy decided with, t the decision's T, ps the policy state after it.
 * Once a profile was asked for (in->idle_profile), and from the first cycle on in a cgroup
 * configured with Mode=advise (advice is what it is for, and its re-access rates need the
 * cycles before anyone asks), gives the idle-age state the room for this reading's lruvecs at
 * the end of cg's state, which may move. Returns 0 or -ENOMEM (the profile then shows
 * nothing). */
static int idle_update(struct cgroup *cg, const struct cycle_input *in,
                       const struct cgroup_reading *cur, const struct lrugen_lruvec *lruvecs,
                       size_t n_lruvecs, const struct policy *p, const struct policy_state *ps,
                       uint64_t t) {
        struct control_state *s = cg->userdata;
        struct cgroup_sample sc;

        fill_sample(cur, lruvecs, n_lruvecs, in->lrugen && n_lruvecs > 0, &sc);
        if (!in->idle_profile && cg->policy->mode != POLICY_MODE_ADVISE) {
                /* No one asked for a profile yet and the cgroup is not configured to advise:
                 * nothing, neither the LRU lists nor the idle-age state, which would cost
                 * every cgroup about 600 bytes and the cycle its forecasts for a profile no one
                 * reads. A cgroup that left Mode=advise drops what it kept: its re-access sums
                 * would compare generations of a reading long gone. */
                if (s->idle_size) {
                        struct control_state *shrunk =
                                realloc(s, control_idle_offset(s->policy_size));
                        if (shrunk)
                                cg->userdata = s = shrunk;
                        s->idle_size = 0;
                }
                return 0;
        }
        if (!s->idle_size) {
                struct control_state *grown =
                        realloc(s, control_idle_offset(s->policy_size) + CONTROL_LISTS_SIZE);
                if (!grown)
                        return -ENOMEM;
                cg->userdata = s = grown;
                s->idle_size = CONTROL_LISTS_SIZE;
        }
        if (!control_idle_begin(control_state_lists(s), control_state_idle(s), in, &sc))
                return 0;
        size_t size = CONTROL_LISTS_SIZE + control_idle_state_size(n_lruvecs);
        if (size != s->idle_size) {
                struct control_state *grown =
                        realloc(s, control_idle_offset(s->policy_size) + size);
                if (!grown) {
                        if (control_state_idle(s))
                                control_state_idle(s)->has_profile = false;
                        return -ENOMEM;
                }
                cg->userdata = s = grown;
                bool fresh = s->idle_size <= CONTROL_LISTS_SIZE;
                s->idle_size = (uint32_t) size;
                if (fresh)
                        control_idle_init(control_state_idle(s));
        }
        control_idle_keep(control_state_idle(s), in, &sc, p, ps, t);
        return 0;
}

/* Says that a read of cg failed (r < 0, err: which file and line) once per kind of failure,
 * the file and the errno: a malformed file stays malformed, and a warning every cycle would
 * drown the log. Says once that it reads again (r >= 0), so the next failure is heard of. */
static void note_read_error(struct cgroup *cg, int r, const struct cgroup_read_error *err) {
        if (r >= 0) {
                if (cg->read_error_file)
                        log_notice("%s: %s reads again.", cg->name,
                                   cgroup_file_name(cg->read_error_file - 1));
                cg->read_error_file = 0;
                return;
        }
        uint8_t file = (uint8_t) (err->file + 1), e = (uint8_t) MIN(-r, 255);
        int level = cg->read_error_file == file && cg->read_error_errno == e ? LOG_DEBUG
                                                                              : LOG_WARNING;
        cg->read_error_file = file;
        cg->read_error_errno = e;
        if (err->line > 0)
                log_full_errno(level, r, "%s: cannot read %s, line %u: %m", cg->name,
                               cgroup_file_name(err->file), err->line);
        else
                log_full_errno(level, r, "%s: cannot read %s: %m", cg->name,
                               cgroup_file_name(err->file));
}

/* One cgroup's cycle as it goes (control_cgroup_cycle()): what each step reads and leaves for
 * the next. */
struct cycle_step {
        struct cgroup *cg;
        const struct cycle_input *in;
        struct actuator *act;
        struct control_state *s;       /* cg->userdata, which moves when the state is resized */
        struct policy_state ps;        /* the cycle's working copy of the policy state */
        const struct control_reading *rd; /* what the cycle decides on */
        struct act_facts facts;        /* what the mode of the cycle is decided from */
        struct policy p;               /* the policy decided with */
        struct decision d;
};

/* Keeps this cycle's reading as the previous sample of the next. */
static void step_keep_prev(struct cycle_step *x) {
        prev_take(&x->rd->cur, &x->rd->own, &x->s->prev);
        x->s->has_prev = true;
}

/* Gets cg's state and its policy state's working copy (on the stack, stored back at its size),
 * which its first cycle initialises. Returns 0 or -ENOMEM. */
static int step_load(struct cycle_step *x) {
        x->s = control_state_get(x->cg);
        if (!x->s)
                return -ENOMEM;
        if (x->s->policy_size) {
                control_policy_load(x->s, &x->ps);
                return 0;
        }
        policy_state_init(&x->ps, x->cg->policy, x->in->now_usec);
        x->s = control_policy_store(x->cg, &x->ps);
        return x->s ? 0 : -ENOMEM;
}

int control_cgroup_read(struct cgroup *cg, const struct cycle_input *in,
                        struct control_reading *ret) {
        struct control_state *s = control_state_get(cg);
        if (!s)
                return -ENOMEM;
        struct cgroup_read_error err;
        int r = cgroup_read(cg, in->now_usec, &ret->cur, &err);
        if (r == -ENOENT)
                return 0;
        note_read_error(cg, r, &err);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        refault_trust_read(in, cg, &s->refault, &ret->own);
        return 1;
}

/* Returns true when this cycle decides nothing for cg: it is paused (the reading is kept), its
 * previous writes still run, its lru_gen record is malformed, or the writer is behind. */
static bool step_skips(struct cycle_step *x) {
        struct control_state *s = x->s;
        const char *name = x->cg->name;
        s->skipped = s->paused || x->in->paused_all;
        if (s->skipped) {
                /* Keep sampling, so rates are right again the cycle after Resume(). */
                step_keep_prev(x);
                return true;
        }
        if (s->in_flight) {
                /* The previous decision's writes are still running (the kernel can take
                 * seconds per eviction): decide again once their effect can be measured. The
                 * previous sample stays, so the next rates cover the whole interval. */
                log_debug("%s: previous writes still running, skipping this cycle.", name);
                return true;
        }
        if (x->in->lrugen && lrugen_memcg_bad(x->in->lrugen, x->cg->id, x->cg->path)) {
                /* Its record was malformed this read: no decision on a partial picture (the
                 * fallback would act blind). The previous sample stays. */
                log_debug("%s: malformed lru_gen record, skipping this cycle.", name);
                return true;
        }
        if (actuator_pending(x->act) >= ACTUATOR_MAX_QUEUED) {
                /* The writer is behind: decide again next cycle, over the whole interval. */
                log_debug("%s: %u writes queued, skipping this cycle.", name,
                          actuator_pending(x->act));
                return true;
        }
        return false;
}

/* Sets the facts the cycle's mode is decided from (act-mode.h), and the policy decided with:
 * advice is what Mode=advise would do, and --dry-run asks every managed cgroup's policy for it. */
static void step_facts(struct cycle_step *x) {
        x->facts = (struct act_facts) {
                .subject = ACT_SUBJECT_DECISION,
                .dry_run = x->in->dry_run,
                .mode = x->cg->policy->mode,
                .lrugen_write = x->in->caps->lrugen_write,
                .reclaim_denied = x->cg->files.reclaim_denied,
        };
        x->p = *x->cg->policy;
        if (act_wants_advice(&x->facts) && x->p.mode != POLICY_MODE_OFF)
                x->p.mode = POLICY_MODE_ADVISE;
}

/* Decides on the reading: the policy state is stored back and the idle-age profile updated.
 * Returns 1 with x->d decided; 0 when the policy rejected the sample (which is kept as the
 * previous one); or -ENOMEM. */
static int step_decide(struct cycle_step *x) {
        struct cgroup *cg = x->cg;
        const struct cycle_input *in = x->in;
        struct control_scratch local = {};
        const struct lrugen_lruvec *lruvecs;
        ssize_t n = control_collect_lruvecs(in->lrugen, cg, in->scratch ?: &local, &lruvecs);
        if (n < 0)
                return (int) n;
        check_refaults(in, cg, x->s, &x->rd->cur, &x->rd->own);
        step_facts(x);
        int r = control_decide_for_cycle(&(struct control_decide_input) {
                .in = in,
                .policy = &x->p,
                .state = &x->ps,
                .prev = x->s->has_prev ? &x->s->prev : NULL,
                .cur = &x->rd->cur,
                .own = &x->rd->own,
                .refault_undercount = x->s->refault.undercount,
                .lruvecs = lruvecs,
                .n_lruvecs = (size_t) n,
        }, &x->ps, &x->d);
        if (r < 0) {
                control_scratch_done(&local);
                log_warning_errno(r, "%s: policy rejected the sample: %m", cg->name);
                step_keep_prev(x);
                return 0;
        }
        x->s = control_policy_store(cg, &x->ps);
        /* Before the scratch goes: the lruvecs may be in it. */
        r = x->s ? idle_update(cg, in, &x->rd->cur, lruvecs, (size_t) n, &x->p, &x->ps,
                               x->d.cold_age_usec) : -ENOMEM;
        control_scratch_done(&local);
        if (r < 0)
                return r;
        x->s = cg->userdata; /* idle_update() may have moved it */
        return 1;
}

/* Does with the decision what the cycle's mode says, decided here once (act-mode.h): records it
 * as the last decision, then hands its writes, or with advice its ageing, to the actuation path,
 * or reports it. Returns 0 or -ENOMEM. */
static int step_act(struct cycle_step *x) {
        struct control_state *s = x->s;
        const struct decision *d = &x->d;
        int r;

        x->facts.n_age = d->n_age;
        x->facts.n_reclaims = (unsigned) d->n_reclaims;
        enum act_mode mode = act_mode_decide(&x->facts);
        if (x->facts.reclaim_denied && d->n_reclaims > 0 && !act_wants_advice(&x->facts))
                /* A subtree delegated to a user: its memory.reclaim is the user's. */
                control_note_reclaim_denied(x->cg, s);
        decision_summarize(d, &s->last);
        s->last.act = (uint8_t) mode;
        s->has_last = true;
        if (d->flags & DECISION_FLAG_OVER_LIMIT) {
                struct control_acts *a = control_acts_get(s);
                if (a)
                        a->over_limit_decisions++;
                if (!s->over_limit_logged)
                        decision_log_over_limit(x->cg->name, d);
                s->over_limit_logged = true;
        }

        if (mode == ACT_AGE_ONLY) {
                /* Advice that ages (Mode=advise): the ageing job, and the advice reported. */
                r = control_job_submit(x->in, x->act, x->cg, s, &x->rd->cur, d, mode);
                if (r < 0)
                        return r;
        }
        if (mode != ACT_WRITE || (d->n_cmds == 0 && d->n_reclaims == 0))
                /* In active mode a decision without writes is reported too (the journal sink
                 * logs it at debug), so --log-level=debug shows why nothing was reclaimed. */
                control_report_advice(x->in->report, x->cg, &s->last);
        else if ((r = control_job_submit(x->in, x->act, x->cg, s, &x->rd->cur, d, mode)) < 0)
                return r; /* it logs the decision at debug level */
        step_keep_prev(x);
        return 0;
}

/* The cycle past the reading: skip, decide, act. Returns 0 or -ENOMEM. */
static int step_run(struct cycle_step *x) {
        int r;

        if (step_skips(x))
                return 0;
        if ((r = step_decide(x)) <= 0)
                return r;
        return step_act(x);
}

/* Not zeroed as a whole: the policy state and the decision are 13 KiB, and clearing them for
 * every cgroup every cycle was a fifth of the cycle's instructions at 10,000 cgroups. Each step
 * writes what it leaves before the next reads it: step_load() the policy state's used bytes
 * (all the policy reads), the reading is given, step_facts() the facts and the policy, and
 * policy_decide() the decision (decision_clear()). */
static void step_init(struct cycle_step *x, struct cgroup *cg, const struct cycle_input *in,
                      const struct control_reading *rd, struct actuator *act) {
        x->cg = cg;
        x->in = in;
        x->act = act;
        x->s = NULL;
        x->rd = rd;
}

int control_cgroup_step(struct cgroup *cg, const struct cycle_input *in,
                        const struct control_reading *rd, struct actuator *act) {
        struct cycle_step x;
        int r;

        step_init(&x, cg, in, rd, act);
        r = step_load(&x);
        return r < 0 ? r : step_run(&x);
}

int control_cgroup_cycle(struct cgroup *cg, const struct cycle_input *in, struct actuator *act) {
        struct cycle_step x;
        struct control_reading rd;
        int r;

        step_init(&x, cg, in, NULL, act);
        /* The state first: a cgroup's first cycle starts its policy state even when the read
         * fails. */
        if ((r = step_load(&x)) < 0)
                return r;
        if ((r = control_cgroup_read(cg, in, &rd)) <= 0)
                return r;
        x.rd = &rd;
        return step_run(&x);
}
