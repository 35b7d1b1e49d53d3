/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/control.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mglrud/config/config.h"
#include "mglrud/core/decision-text.h"
#include "mglrud/core/refault-trust.h"
#include "mglrud/core/pressure-trigger.h"
#include "mglrud/policy/act-mode.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglrud/shared/time.h"

/* Runtime overrides (Set()): the keys in mask, with their values. Lost on restart only. */
struct control_overrides {
        struct policy policy;
        uint32_t mask;                 /* (1u << enum policy_key) */
};

/* A previous sample keeps only the memory.stat keys the policy and the refault trust check read
 * from it (policy_prev_memstat_keys): 10 of memory.stat's 30, 80 bytes a cgroup fewer than
 * keeping every event counter. */
_Static_assert(POLICY_PREV_MEMSTAT_KEYS <= 32, "prev_reading.stat_present has one bit per key");

/* The previous sample, as much of it as the policy reads from a previous sample (guard.c): the
 * time, those memory.stat keys, the PSI totals and the own refault count; the averages, the
 * amounts and the limits are read from the current sample only. */
struct prev_reading {
        uint64_t now_usec;
        uint64_t stat[POLICY_PREV_MEMSTAT_KEYS];
        uint64_t psi_some_us, psi_full_us;
        uint64_t own_refault_file;     /* refault-trust.h (has_own_refault_file) */
        uint32_t stat_present;         /* bit i: policy_prev_memstat_keys[i] was in memory.stat */
        bool has_psi, has_psi_full;
        bool has_own_refault_file;
};

/* What a cgroup's jobs leave: the token of the one in flight, what they did, what stopped them
 * (the counters.h counters from ACTS). Allocated with the cgroup's first job (acts_get()), not
 * with its state: in dry-run, in advice without lru_gen writes and on a cgroup that never had
 * anything cold, it would be sizeof(struct control_acts) bytes of zeros per cgroup (144: 1.4 MB
 * at 10,000). */
#define ACTS_FIELD_ACTS(type, field) type field;
#define ACTS_FIELD_REFAULT(type, field)
#define ACTS_FIELD_STALL(type, field)
#define ACTS_FIELD_(field, type, source, ...) ACTS_FIELD_##source(type, field)
struct control_acts {
        uint64_t reclaimed_bytes[_LRUGEN_NR_TYPES];
        uint64_t in_flight_token;      /* the in-flight job's token (unique for the daemon's life) */
        uint64_t last_reclaim_usec;    /* a job that evicts or reclaims was submitted then */
        CONTROL_COUNTERS(ACTS_FIELD_)
};

/* What a cgroup's controller keeps between cycles. A node can run thousands of cgroups, so
 * only state lives here (docs/design.md, "Memory"): the previous sample as far as the policy
 * reads it, the last decision as its summary (its commands went to the actuation path), the
 * policy state as the bytes it uses (policy_state_size(): only as many lruvec slots as it has,
 * at the end of this allocation), and after it, once a profile was asked for
 * (cycle_input.idle_profile), what the idle-age profile keeps (control-idle.h: the LRU lists
 * and the generations of the last reading, not the lruvecs); the decision and the lruvecs live
 * in the cycle's scratch. */
struct control_state {
        struct prev_reading prev;
        struct decision_summary last;
        struct control_overrides *overrides; /* NULL without runtime overrides */
        struct refault_trust refault;  /* are the kernel's refault counts to be trusted? */
        struct control_acts *acts;     /* NULL until its first job (acts_get()) */
        uint32_t policy_size;          /* bytes in policy; 0 before the first cycle */
        uint32_t idle_size;            /* bytes of the profile's part after it (lists_of(),
                                        * idle_of()): 0 until a profile was asked for */
        bool has_prev;
        bool has_last;                 /* last holds a decision */
        bool paused;                   /* Pause(): sample, but do not decide or act */
        bool skipped;                  /* the last cycle was skipped because of a pause */
        bool reclaim_denied_logged;    /* note_reclaim_denied() said it */
        bool over_limit_logged;        /* "working set exceeds the limit" was said */
        bool in_flight;                /* a job with this cgroup's writes is queued or running */
        bool in_flight_reclaims;       /* ... and it evicts or reclaims (not ageing only) */
        bool in_flight_stopped;        /* ... and a pressure trigger stopped it: its chunk in
                                        * flight still ends as the last write */
        unsigned char policy[];        /* the first policy_size bytes of a struct policy_state,
                                        * then the idle-age state at idle_offset() */
};

/* Returns where the profile's part of a state with policy_size bytes of policy starts (from
 * the state's start), which is also the allocation's size without it: after the policy and the
 * struct, aligned for its 64-bit fields. */
static size_t idle_offset(size_t policy_size) {
        size_t end = MAX(sizeof(struct control_state),
                         offsetof(struct control_state, policy) + policy_size);
        return (end + 7) & ~(size_t) 7;
}

/* The profile's part of a state, at idle_offset(): memory.stat's LRU lists of the last reading
 * (struct control_idle_lists), then, once a cycle had a histogram, the idle-age state; nothing
 * before a profile was asked for (cycle_input.idle_profile): only the profiles read them. */
#define LISTS_SIZE sizeof(struct control_idle_lists)
_Static_assert(LISTS_SIZE % 8 == 0, "the idle-age state after the lists stays aligned");

/* Returns s's LRU lists, or NULL before a profile was asked for. */
static struct control_idle_lists *lists_of(const struct control_state *s) {
        if (!s->idle_size)
                return NULL;
        return (struct control_idle_lists *) ((char *) s + idle_offset(s->policy_size));
}

/* Returns s's idle-age state, or NULL before its first cycle with a histogram once a profile
 * was asked for. */
static struct control_idle_state *idle_of(const struct control_state *s) {
        if (s->idle_size <= LISTS_SIZE)
                return NULL;
        return (struct control_idle_state *) ((char *) s + idle_offset(s->policy_size) +
                                              LISTS_SIZE);
}

void control_cgroup_free(struct cgroup *cg) {
        struct control_state *s = cg ? cg->userdata : NULL;
        if (!s)
                return;
        free(s->overrides);
        free(s->acts);
        free(s);
        cg->userdata = NULL;
}

/* Returns s's job record, allocating it (zeroed) on first use, or NULL on OOM. */
static struct control_acts *acts_get(struct control_state *s) {
        if (!s->acts)
                s->acts = calloc(1, sizeof *s->acts);
        return s->acts;
}

void control_scratch_done(struct control_scratch *x) {
        free(x->lruvecs);
        *x = (struct control_scratch) {};
}

uint64_t control_cgroup_reclaimed_bytes(const struct cgroup *cg) {
        const struct control_state *s = cg->userdata;
        return s && s->acts ? s->acts->reclaimed_bytes[LRUGEN_ANON] +
                                      s->acts->reclaimed_bytes[LRUGEN_FILE] : 0;
}

size_t control_cgroup_state_bytes(const struct cgroup *cg) {
        const struct control_state *s = cg->userdata;
        if (!s)
                return 0;
        return (s->policy_size || s->idle_size ? idle_offset(s->policy_size) + s->idle_size :
                                                 sizeof *s) +
               (s->acts ? sizeof *s->acts : 0) + (s->overrides ? sizeof *s->overrides : 0);
}

/* Returns cg's state, allocating it on first use, or NULL on OOM. */
static struct control_state *control_state_get(struct cgroup *cg) {
        if (!cg->userdata)
                cg->userdata = calloc(1, sizeof(struct control_state));
        return cg->userdata;
}

/* Copies the stored policy state into *ret, a whole struct: the cycle's working copy. Only
 * its first policy_state_size() bytes are set, which is all the policy reads. */
static void policy_load(const struct control_state *s, struct policy_state *ret) {
        memcpy(ret, s->policy, s->policy_size);
}

/* Stores *ps as its policy_state_size() bytes at the end of cg's state, which moves when that
 * size changes. Returns the state, or NULL on OOM (the old state stays). */
static struct control_state *policy_store(struct cgroup *cg, const struct policy_state *ps) {
        struct control_state *s = cg->userdata;
        size_t size = policy_state_size(ps);
        if (size != s->policy_size) {
                /* The idle-age state follows the policy's bytes: moved down before a shrink,
                 * up after a growth, and back when the allocation fails. */
                size_t from = idle_offset(s->policy_size), to = idle_offset(size);
                if (to < from)
                        memmove((char *) s + to, (char *) s + from, s->idle_size);
                struct control_state *t = realloc(s, to + s->idle_size);
                if (!t) {
                        if (to < from)
                                memmove((char *) s + from, (char *) s + to, s->idle_size);
                        return NULL;
                }
                s = t;
                if (to > from)
                        memmove((char *) s + to, (char *) s + from, s->idle_size);
                cg->userdata = s;
                s->policy_size = (uint32_t) size;
        }
        memcpy(s->policy, ps, size);
        return s;
}

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

int control_cgroup_set_paused(struct cgroup *cg, bool paused) {
        struct control_state *s = control_state_get(cg);
        if (!s)
                return -ENOMEM;
        s->paused = paused;
        return 0;
}

bool control_cgroup_paused(const struct cgroup *cg) {
        const struct control_state *s = cg->userdata;
        return s && s->paused;
}

int control_cgroup_snapshot(const struct cgroup *cg, struct control_snapshot *ret) {
        if (!cg || !ret)
                return -EINVAL;
        const struct control_state *s = cg->userdata;
        *ret = (struct control_snapshot) {
                .path = cg->name,
                .id = cg->id,
                .section = cg->section ? cg->section->name : "Defaults",
                .mode = policy_mode_to_string(cg->policy->mode),
                .reason = "none",
                .min_cold_age_usec = cg->policy->min_cold_age_usec,
                .max_cold_age_usec = cg->policy->max_cold_age_usec,
        };
        const struct container_identity *ci = cg->container;
        const struct cgroup_annotation *a = cg->annotation;
        if (ci && ci->kind != CONTAINER_KIND_NONE) {
                ret->runtime = container_runtime_to_string(ci->runtime);
                ret->container_id = ci->kind == CONTAINER_KIND_CONTAINER ? ci->id : NULL;
                ret->pod_uid = ci->pod_uid[0] ? ci->pod_uid : NULL;
                ret->qos_class = qos_class_to_string(ci->qos);
        }
        if (a && a->policy_name[0])
                ret->annotated_policy = a->policy_name;
        for (unsigned k = 0; a && k < _POLICY_KEY_MAX; k++)
                if (a->set_mask & (1u << k)) {
                        char v[48];
                        snprintf(ret->annotations[ret->n_annotations++], sizeof ret->annotations[0],
                                 "%s=%s", policy_key_to_string(k),
                                 policy_key_format(v, sizeof v, &a->overrides, k));
                }
        if (!s)
                return 0;
        if (lists_of(s))
                ret->idle_lists = *lists_of(s);
        ret->idle_state = idle_of(s);
        ret->paused = s->paused;
        for (unsigned k = 0; k < _POLICY_KEY_MAX && s->overrides; k++)
                if (s->overrides->mask & (1u << k)) {
                        char v[48];
                        snprintf(ret->overrides[ret->n_overrides++], sizeof ret->overrides[0],
                                 "%s=%s", policy_key_to_string(k),
                                 policy_key_format(v, sizeof v, &s->overrides->policy, k));
                }
        if (s->policy_size) {
                struct policy_state ps;
                policy_load(s, &ps);
                ret->cold_age_usec = ps.cold_age_usec;
        }
        const struct control_acts *acts = s->acts;
        if (acts) {
                memcpy(ret->reclaimed_bytes, acts->reclaimed_bytes, sizeof ret->reclaimed_bytes);
#define ACTS_COPY_ACTS(field) ret->field = acts->field;
#define ACTS_COPY_REFAULT(field)
#define ACTS_COPY_STALL(field)
#define ACTS_COPY_(field, type, source, ...) ACTS_COPY_##source(field)
                CONTROL_COUNTERS(ACTS_COPY_)
        }
        ret->refault_undercount = s->refault.undercount;
        ret->refault_undercount_sign = s->refault.undercount ?
                refault_check_verdict_to_string(s->refault.verdict) : NULL;
        ret->own_refault_pages = s->refault.own_pages;
        ret->kernel_refault_pages = s->refault.kernel_pages;
        if (s->has_last) {
                const struct decision_summary *d = &s->last;
                ret->reason = decision_reason_to_string(d->reason);
                if (decision_summary_format(d, ret->line, sizeof ret->line) < 0)
                        ret->line[0] = 0;
                ret->has_estimates = d->has_estimates;
                memcpy(ret->cold_bytes, d->cold_bytes, sizeof ret->cold_bytes);
                memcpy(ret->cooling_bytes, d->cooling_bytes, sizeof ret->cooling_bytes);
                memcpy(ret->warm_bytes, d->warm_bytes, sizeof ret->warm_bytes);
                ret->has_psi_some = d->has_psi_some;
                ret->psi_some = d->psi_some;
                ret->need_bytes = d->need_bytes;
                ret->need_t_bytes = d->need_t_bytes;
                ret->limit_bytes = d->limit_bytes;
                ret->need_horizon_short = d->need_horizon_short;
        }
        if (s->skipped)
                ret->reason = "paused";
        return 0;
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

/* Finds the lruvecs of cg's memcg and of the unmanaged descendants its work covers. On 7.x the
 * lru_gen id is the cgroup id; on 6.x (private 16-bit ids) we fall back to the path. Sets
 * *ret_lruvecs to them: into the histogram itself when they are all cg's own (no copy), else
 * gathered in the scratch, which the next call reuses. Returns their number or -ENOMEM. */
static ssize_t collect_lruvecs(const struct lrugen *l, const struct cgroup *cg,
                               struct control_scratch *x, const struct lrugen_lruvec **ret_lruvecs) {
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

/* Runs policy_decide() for one cgroup reading (prev may be NULL) on the cycle's host
 * readings; own is the reading's own refault count, and undercount says the controllers take
 * the larger of it and the kernel's. Returns 0 or -errno. */
static int decide(const struct cycle_input *in, const struct policy *p,
                  const struct policy_state *state, const struct prev_reading *prev,
                  const struct cgroup_reading *cur, const struct own_refaults *own,
                  bool undercount, const struct lrugen_lruvec *lruvecs, size_t n_lruvecs,
                  struct policy_state *ret_state, struct decision *ret) {
        struct kernel_caps caps = *in->caps;
        /* Advice shows what lru_gen would do even where we did not open it. */
        caps.lrugen_write = caps.lrugen_write ||
                            (p->mode == POLICY_MODE_ADVISE && in->lrugen_readable);

        struct cgroup_sample sp, sc;
        fill_sample(cur, lruvecs, n_lruvecs, in->lrugen && n_lruvecs > 0, &sc);
        sc.own_refault_file = own->pages;
        sc.has_own_refault_file = own->valid;
        sc.refault_file_undercount = undercount;
        if (prev)
                fill_prev_sample(prev, &sp);
        return policy_decide(p, &caps, state, prev ? &sp : NULL, &sc, in->host_prev, in->host_cur,
                             in->host_limits, ret_state, ret);
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

/* Says once per cgroup that its memory.reclaim may not be written (docs/design.md, "Delegated
 * cgroups"). */
static void note_reclaim_denied(struct cgroup *cg, struct control_state *s) {
        if (s->reclaim_denied_logged)
                return;
        s->reclaim_denied_logged = true;
        log_notice("%s: memory.reclaim is not writable (the cgroup is owned by uid %u, delegated): "
                   "its memory.reclaim decisions are advice only; lru_gen eviction is not "
                   "affected. Give the daemon CAP_DAC_OVERRIDE to manage it fully.",
                   cg->name, (unsigned) cg->files.owner);
}

/* Reports a decision that is only reported (advice, or an active decision without writes). */
static void report_advice(const struct report_sink *report, const struct cgroup *cg,
                          const struct decision_summary *d) {
        bool would_act = d->n_reclaims > 0 ||
                         (d->reason == DECISION_EVICT_COLD || d->reason == DECISION_EVICT_STREAM);
        if (report && report->advice)
                report->advice(report->userdata, cg->name,
                               cg->section ? cg->section->name : "Defaults",
                               d, would_act);
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

/* Measures and reports what a finished job achieved, on the event loop's thread: proactive
 * steals are ours (or another proactive agent's); anon/file deltas say which type they came
 * from. */
void control_job_done(struct cgroup *cg, struct actuator_job *j, const struct report_sink *report) {
        struct control_state *s = cg ? cg->userdata : NULL;
        struct control_acts *acts;
        uint64_t got_anon = 0, got_file = 0;

        if (cg && actuator_job_kind(j) == ACTUATOR_JOB_DROP) {
                if ((s = control_state_get(cg)) && (acts = acts_get(s)))
                        drop_done(cg, acts, j);
                actuator_job_free(j);
                return;
        }
        const struct actuator_result *res = actuator_job_result_const(j);
        const struct actuator_tag *tag = actuator_job_tag_const(j);
        const struct decision_summary *d = actuator_job_decision(j);
        uint64_t page_size = actuator_job_page_size(j);
        /* A job in flight has its record: submit() made it. */
        if (!s || !s->in_flight || !(acts = s->acts) || acts->in_flight_token != tag->token) {
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
        if (res->failed > 0 && d->n_reclaims > 0 &&
            (res->last_error == -EACCES || res->last_error == -EPERM)) {
                /* Permissions changed under us (a subtree delegated since we opened it): not an
                 * error to repeat every cycle. */
                cg->files.reclaim_denied = true;
                note_reclaim_denied(cg, s);
        } else if (res->failed > 0) {
                acts->errors += res->failed;
                if (s->policy_size) {
                        struct policy_state ps;
                        policy_load(s, &ps);
                        policy_note_error(&ps, res->finished_usec);
                        s = policy_store(cg, &ps); /* the same size: it stays in place */
                }
        }
        bool age_only = d->act == ACT_AGE_ONLY;
        if (age_only || (res->asked_bytes == 0 && res->failed == 0)) {
                /* Ageing only: nothing leaves memory, nothing to measure or to report above
                 * debug (it happens about every T/2). */
                log_debug("%s: aged %u lruvec%s (%s)", cg->name, d->n_age,
                          d->n_age == 1 ? "" : "s",
                          decision_reason_to_string(d->reason));
                if (!age_only) /* advice was reported when it was decided */
                        report_advice(report, cg, d);
                actuator_job_free(j);
                return;
        }
        acts->actions++;

        struct cgroup_reading after;
        if (!cg->vanished && cgroup_read(cg, res->finished_usec, &after, NULL) >= 0) {
                const struct memstat *a = &after.stat;
                uint64_t a0 = baseline(tag, BASE_ANON), f0 = baseline(tag, BASE_FILE);
                uint64_t a1 = 0, f1 = 0, s1 = 0, s0 = baseline(tag, BASE_STEAL);
                memstat_get(a, MEMSTAT_ANON, &a1);
                memstat_get(a, MEMSTAT_FILE, &f1);
                got_anon = a0 > a1 ? a0 - a1 : 0;
                got_file = f0 > f1 ? f0 - f1 : 0;
                /* memstat_delta(): 0 when absent from either reading or gone backwards. */
                bool has_s1 = memstat_get(a, MEMSTAT_PGSTEAL_PROACTIVE, &s1);
                uint64_t steal = (tag->has_baseline & (1u << BASE_STEAL)) && has_s1 && s1 >= s0 ?
                                 s1 - s0 : 0;
                if (steal == 0) {
                        got_anon = got_file = 0; /* the workload freed it, not us */
                } else if (steal * page_size < got_anon + got_file) {
                        /* The workload freed memory meanwhile: count only what was stolen. */
                        double k = (double) (steal * page_size) /
                                   (double) (got_anon + got_file);
                        got_anon = (uint64_t) (got_anon * k);
                        got_file = (uint64_t) (got_file * k);
                }
                acts->reclaimed_bytes[LRUGEN_ANON] += got_anon;
                acts->reclaimed_bytes[LRUGEN_FILE] += got_file;
        }
        struct action_report ar = {
                .cgroup = cg->name,
                .action = d->n_reclaims > 0 ? "reclaim" : "evict",
                .asked_bytes = res->asked_bytes,
                .got_bytes = { [LRUGEN_ANON] = got_anon, [LRUGEN_FILE] = got_file },
                .reason = decision_reason_to_string(d->reason),
                .error = res->last_error,
                .section = cg->section ? cg->section->name : "Defaults",
                .decision = d,
        };
        if (report && report->action)
                report->action(report->userdata, &ar);
        actuator_job_free(j);
}

/* Hands the decision's writes to the actuation path in mode (ACT_WRITE or ACT_AGE_ONLY;
 * completion: control_job_done()). Returns 0, or -ENOMEM (-ESHUTDOWN while stopping is not an
 * error: nothing more is written). */
static int submit(const struct cycle_input *in, struct actuator *act, struct cgroup *cg,
                  struct control_state *s, const struct cgroup_reading *cur,
                  const struct own_refaults *own, const struct decision *d, enum act_mode mode) {
        if (mode == ACT_WRITE && log_get_max_level() >= LOG_DEBUG) {
                char line[1024];
                if (decision_format(d, mode, line, sizeof line) >= 0)
                        log_debug("%s: decision: %s", cg->name, line);
        }
        struct control_acts *a = acts_get(s);
        if (!a)
                return -ENOMEM;
        struct actuator_job *j = actuator_job_new(cg->id, cg->name, cg->files.dirfd, in->lrugen_write_fd,
                                                  in->caps->page_size, mode, d);
        if (!j)
                return -ENOMEM;
        static uint64_t next_token;
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
        if (mode == ACT_WRITE) {
                prev_take(cur, own, &s->prev);
                s->has_prev = true;
        }
        int r = actuator_submit(act, j);
        if (r == -ESHUTDOWN)
                s->in_flight = false;
        return r == -ESHUTDOWN ? 0 : r;
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
                        struct control_state *shrunk = realloc(s, idle_offset(s->policy_size));
                        if (shrunk)
                                cg->userdata = s = shrunk;
                        s->idle_size = 0;
                }
                return 0;
        }
        if (!s->idle_size) {
                struct control_state *grown = realloc(s, idle_offset(s->policy_size) + LISTS_SIZE);
                if (!grown)
                        return -ENOMEM;
                cg->userdata = s = grown;
                s->idle_size = LISTS_SIZE;
        }
        if (!control_idle_begin(lists_of(s), idle_of(s), in, &sc))
                return 0;
        size_t size = LISTS_SIZE + control_idle_state_size(n_lruvecs);
        if (size != s->idle_size) {
                struct control_state *grown = realloc(s, idle_offset(s->policy_size) + size);
                if (!grown) {
                        if (idle_of(s))
                                idle_of(s)->has_profile = false;
                        return -ENOMEM;
                }
                cg->userdata = s = grown;
                bool fresh = s->idle_size <= LISTS_SIZE;
                s->idle_size = (uint32_t) size;
                if (fresh)
                        control_idle_init(idle_of(s));
        }
        control_idle_keep(idle_of(s), in, &sc, p, ps, t);
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

int control_cgroup_cycle(struct cgroup *cg, const struct cycle_input *in, struct actuator *act) {
        uint64_t now_usec = in->now_usec;
        struct control_state *s;
        struct cgroup_reading cur;
        int r;

        s = control_state_get(cg);
        if (!s)
                return -ENOMEM;
        /* The cycle's working copy of the state: on the stack, stored back at its size. */
        struct policy_state ps;
        if (s->policy_size)
                policy_load(s, &ps);
        else {
                policy_state_init(&ps, cg->policy, now_usec);
                if (!(s = policy_store(cg, &ps)))
                        return -ENOMEM;
        }

        struct cgroup_read_error err;
        r = cgroup_read(cg, now_usec, &cur, &err);
        if (r == -ENOENT)
                return 0;
        note_read_error(cg, r, &err);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        struct own_refaults own;
        refault_trust_read(in, cg, &s->refault, &own);
        s->skipped = s->paused || in->paused_all;
        if (s->skipped) {
                /* Keep sampling, so rates are right again the cycle after Resume(). */
                prev_take(&cur, &own, &s->prev);
                s->has_prev = true;
                return 0;
        }
        if (s->in_flight) {
                /* The previous decision's writes are still running (the kernel can take
                 * seconds per eviction): decide again once their effect can be measured. The
                 * previous sample stays, so the next rates cover the whole interval. */
                log_debug("%s: previous writes still running, skipping this cycle.", cg->name);
                return 0;
        }
        if (in->lrugen && lrugen_memcg_bad(in->lrugen, cg->id, cg->path)) {
                /* Its record was malformed this read: no decision on a partial picture (the
                 * fallback would act blind). The previous sample stays. */
                log_debug("%s: malformed lru_gen record, skipping this cycle.", cg->name);
                return 0;
        }
        if (actuator_pending(act) >= ACTUATOR_MAX_QUEUED) {
                /* The writer is behind: decide again next cycle, over the whole interval. */
                log_debug("%s: %u writes queued, skipping this cycle.", cg->name,
                          actuator_pending(act));
                return 0;
        }
        struct control_scratch local = {};
        const struct lrugen_lruvec *lruvecs;
        ssize_t n = collect_lruvecs(in->lrugen, cg, in->scratch ?: &local, &lruvecs);
        if (n < 0)
                return (int) n;
        check_refaults(in, cg, s, &cur, &own);

        /* What the cycle does with the decision is decided once, below, from these facts
         * (act-mode.h). Advice is what Mode=advise would do: --dry-run asks every managed
         * cgroup's policy for it. */
        struct act_facts facts = {
                .subject = ACT_SUBJECT_DECISION,
                .dry_run = in->dry_run,
                .mode = cg->policy->mode,
                .lrugen_write = in->caps->lrugen_write,
                .reclaim_denied = cg->files.reclaim_denied,
        };
        struct policy p = *cg->policy;
        if (act_wants_advice(&facts) && p.mode != POLICY_MODE_OFF)
                p.mode = POLICY_MODE_ADVISE;

        struct decision d;
        r = decide(in, &p, &ps, s->has_prev ? &s->prev : NULL, &cur, &own,
                   s->refault.undercount, lruvecs, (size_t) n, &ps, &d);
        if (r < 0) {
                control_scratch_done(&local);
                log_warning_errno(r, "%s: policy rejected the sample: %m", cg->name);
                prev_take(&cur, &own, &s->prev);
                s->has_prev = true;
                return 0;
        }
        s = policy_store(cg, &ps);
        /* Before the scratch goes: the lruvecs may be in it. */
        r = s ? idle_update(cg, in, &cur, lruvecs, (size_t) n, &p, &ps, d.cold_age_usec) : -ENOMEM;
        control_scratch_done(&local);
        if (r < 0)
                return r;
        s = cg->userdata; /* idle_update() may have moved it */
        facts.n_age = d.n_age;
        facts.n_reclaims = (unsigned) d.n_reclaims;
        enum act_mode mode = act_mode_decide(&facts);
        if (facts.reclaim_denied && d.n_reclaims > 0 && !act_wants_advice(&facts))
                /* A subtree delegated to a user: its memory.reclaim is the user's. */
                note_reclaim_denied(cg, s);
        decision_summarize(&d, &s->last);
        s->last.act = (uint8_t) mode;
        s->has_last = true;
        if (d.flags & DECISION_FLAG_OVER_LIMIT) {
                struct control_acts *a = acts_get(s);
                if (a)
                        a->over_limit_decisions++;
                if (!s->over_limit_logged)
                        decision_log_over_limit(cg->name, &d);
                s->over_limit_logged = true;
        }

        if (mode == ACT_AGE_ONLY) {
                /* Advice that ages (Mode=advise): the ageing job, and the advice reported. */
                r = submit(in, act, cg, s, &cur, &own, &d, mode);
                if (r < 0)
                        return r;
        }
        if (mode != ACT_WRITE || (d.n_cmds == 0 && d.n_reclaims == 0)) {
                /* In active mode a decision without writes is reported too (the journal sink
                 * logs it at debug), so --log-level=debug shows why nothing was reclaimed. */
                report_advice(in->report, cg, &s->last);
                prev_take(&cur, &own, &s->prev);
                s->has_prev = true;
                return 0;
        }

        r = submit(in, act, cg, s, &cur, &own, &d, mode); /* logs the decision at debug level */
        if (r < 0)
                return r;
        prev_take(&cur, &own, &s->prev);
        s->has_prev = true;
        return 0;
}

/* Copies the overridden keys of o over *p; when that makes MinColdAge > MaxColdAge, the
 * overridden bound wins and the other follows it. */
static void apply_overrides(const struct control_overrides *o, struct policy *p) {
        policy_copy_keys(p, &o->policy, o->mask);
        if (p->min_cold_age_usec <= p->max_cold_age_usec)
                return;
        if (o->mask & (1u << POLICY_KEY_MAX_COLD_AGE))
                p->min_cold_age_usec = p->max_cold_age_usec;
        else
                p->max_cold_age_usec = p->min_cold_age_usec;
}

void control_cgroup_apply_overrides(const struct cgroup *cg, struct policy *p) {
        const struct control_state *s = cg->userdata;
        if (s && s->overrides && s->overrides->mask)
                apply_overrides(s->overrides, p);
}

int control_cgroup_set_override(struct cgroup *cg, struct policy_pool *pool,
                                const struct policy *base, enum policy_key k, const char *value,
                                const char **ret_reason) {
        struct control_state *s = control_state_get(cg);
        if (!s)
                return -ENOMEM;
        if (k < 0 || k >= _POLICY_KEY_MAX) {
                *ret_reason = "unknown policy key";
                return -EINVAL;
        }
        struct control_overrides o = s->overrides ? *s->overrides : (struct control_overrides) {};
        if (!value || !*value)
                o.mask &= ~(1u << k);
        else {
                /* Parse over the effective value, so that only key k changes. */
                struct policy v = *cg->policy;
                int r = config_parse_policy_key(&v, k, value, ret_reason);
                if (r < 0)
                        return r;
                policy_copy_key(&o.policy, &v, k);
                o.mask |= 1u << k;
        }
        struct policy p = *base;
        policy_copy_keys(&p, &o.policy, o.mask);
        if (p.min_cold_age_usec > p.max_cold_age_usec) {
                *ret_reason = "MinColdAge= would be greater than MaxColdAge=";
                return -EINVAL;
        }
        /* Zeroed, an override record overrides nothing: allocated first, it may stay when the
         * pool then fails, and nothing has changed. */
        if (!s->overrides && !(s->overrides = calloc(1, sizeof *s->overrides)))
                return -ENOMEM;
        const struct policy *shared = policy_pool_intern(pool, &p);
        if (!shared)
                return -ENOMEM;
        *s->overrides = o;
        cg->policy = shared;
        return 0;
}

int control_cgroup_advise(struct cgroup *cg, const struct cycle_input *in, char *buf, size_t size) {
        uint64_t now_usec = in->now_usec;
        const struct control_state *s = cg->userdata;
        struct control_scratch local = {};
        const struct lrugen_lruvec *lruvecs;
        struct policy_state state;
        struct cgroup_reading cur;
        struct decision d;
        int r;

        r = cgroup_read(cg, now_usec, &cur, NULL);
        if (r < 0)
                return r;
        /* Our own scratch: this runs between cycles (a bus call), the cycle's may be in use. */
        ssize_t n = collect_lruvecs(in->lrugen, cg, &local, &lruvecs);
        if (n < 0)
                return (int) n;
        struct policy p = *cg->policy;
        p.mode = POLICY_MODE_ADVISE;
        if (s && s->policy_size)
                policy_load(s, &state);
        else
                policy_state_init(&state, &p, now_usec);
        const struct own_refaults none = {};
        r = decide(in, &p, &state, s && s->has_prev ? &s->prev : NULL, &cur, &none,
                   s && s->refault.undercount, lruvecs,
                   (size_t) n, &state, &d);
        if (r >= 0 && decision_format(&d, ACT_REPORT, buf, size) < 0)
                r = -EINVAL;
        control_scratch_done(&local);
        return r;
}

uint64_t control_cgroup_headroom_line(const struct cgroup *cg) {
        const struct control_state *s = cg->userdata;
        return s && s->has_last ? s->last.headroom_line : 0;
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

void control_cgroup_note_guard_stall(struct cgroup *cg, uint64_t now_usec, uint64_t stall_ns) {
        struct control_state *s = cg->userdata;
        struct control_acts *a = s ? acts_get(s) : NULL;
        if (!a)
                return;
        a->guard_last_stall_ns = stall_ns;
        a->guard_last_stop_usec = now_usec;
}

void control_cgroup_note_refault_burst(struct cgroup *cg, uint64_t now_usec, uint64_t pages,
                                       uint64_t limit_pages) {
        struct control_state *s = cg->userdata;
        struct control_acts *a = s ? acts_get(s) : NULL;
        if (!a)
                return;
        a->refault_guard_last_pages = pages;
        a->refault_guard_last_limit = limit_pages;
        a->refault_guard_last_stop_usec = now_usec;
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

uint64_t control_cgroup_note_stall(struct cgroup *cg, uint64_t now_usec, unsigned n_stopped,
                                   enum control_stop_reason why) {
        struct control_state *s = cg->userdata;
        if (!s)
                return 0;
        /* A stop comes with a job, which has its record; without one (OOM) only the counts
         * are lost. */
        struct control_acts *a = acts_get(s);
        if (a) {
                if (why == CONTROL_STOP_RECLAIM_STALL)
                        a->guard_stops++;
                else if (why == CONTROL_STOP_REFAULT_BURST)
                        a->refault_guard_stops++;
                else
                        a->pressure_stops++;
                a->stopped_jobs += n_stopped;
                if (!a->first_stop_usec)
                        a->first_stop_usec = now_usec;
                a->last_stop_usec = now_usec;
                a->last_reclaim_usec = 0;
        }
        /* Nothing counts as reclaiming until a decision submits again (the job being stopped
         * included): the trigger is re-armed when reclaim resumes. That job's end is still the
         * last write (its chunk in flight goes on), so it stays in_flight_reclaims. */
        s->in_flight_stopped = s->in_flight;
        if (!s->policy_size)
                return 0;
        struct policy_state ps;
        policy_load(s, &ps);
        policy_note_stall(cg->policy, &ps, now_usec);
        s = policy_store(cg, &ps); /* the same size: it stays in place */
        /* T is the tiering controller's; Mode=pressure steps by PSI and has none to report. */
        return cg->policy->mode == POLICY_MODE_ACTIVE ? ps.cold_age_usec : 0;
}
