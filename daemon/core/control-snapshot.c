/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A read-only copy of one cgroup's controller state (control_cgroup_snapshot()), for the bus,
 * dumps and metrics: who the cgroup is, what it keeps and what its jobs did. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "control-state.h"
#include "mglrud/core/decision-text.h"

/* Formats the keys of p in mask as "Key=value" lines into out, in key order. Returns how many. */
static size_t format_keys(char (*out)[64], const struct policy *p, uint32_t mask) {
        size_t n = 0;
        for (unsigned k = 0; k < _POLICY_KEY_MAX; k++)
                if (mask & (1u << k)) {
                        char v[48];
                        snprintf(out[n++], sizeof out[0], "%s=%s", policy_key_to_string(k),
                                 policy_key_format(v, sizeof v, p, k));
                }
        return n;
}

/* Fills *ret with what cg is, whatever its state: its path, section, effective policy,
 * container identity and annotations. */
static void snapshot_identity(const struct cgroup *cg, struct control_snapshot *ret) {
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
        if (!a)
                return;
        if (a->policy_name[0])
                ret->annotated_policy = a->policy_name;
        ret->n_annotations = format_keys(ret->annotations, &a->overrides, a->set_mask);
}

/* Copies the counters of cg's jobs (the counters.h counters from ACTS) into *ret. */
static void snapshot_acts(const struct control_acts *acts, struct control_snapshot *ret) {
        memcpy(ret->reclaimed_bytes, acts->reclaimed_bytes, sizeof ret->reclaimed_bytes);
#define ACTS_COPY_ACTS(field) ret->field = acts->field;
#define ACTS_COPY_REFAULT(field)
#define ACTS_COPY_STALL(field)
#define ACTS_COPY_(field, type, source, ...) ACTS_COPY_##source(field)
        CONTROL_COUNTERS(ACTS_COPY_)
}

/* Copies the summary of cg's last decision into *ret. */
static void snapshot_last(const struct decision_summary *d, struct control_snapshot *ret) {
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

uint64_t control_cgroup_headroom_line(const struct cgroup *cg) {
        const struct control_state *s = cg->userdata;
        return s && s->has_last ? s->last.headroom_line : 0;
}

int control_cgroup_snapshot(const struct cgroup *cg, struct control_snapshot *ret) {
        if (!cg || !ret)
                return -EINVAL;
        snapshot_identity(cg, ret);
        const struct control_state *s = cg->userdata;
        if (!s)
                return 0;
        if (control_state_lists(s))
                ret->idle_lists = *control_state_lists(s);
        ret->idle_state = control_state_idle(s);
        ret->paused = s->paused;
        if (s->overrides)
                ret->n_overrides = format_keys(ret->overrides, &s->overrides->policy,
                                               s->overrides->mask);
        if (s->policy_size) {
                struct policy_state ps;
                control_policy_load(s, &ps);
                ret->cold_age_usec = ps.cold_age_usec;
        }
        if (s->acts)
                snapshot_acts(s->acts, ret);
        ret->refault_undercount = s->refault.undercount;
        ret->refault_undercount_sign = s->refault.undercount ?
                refault_check_verdict_to_string(s->refault.verdict) : NULL;
        ret->own_refault_pages = s->refault.own_pages;
        ret->kernel_refault_pages = s->refault.kernel_pages;
        if (s->has_last)
                snapshot_last(&s->last, ret);
        if (s->skipped)
                ret->reason = "paused";
        return 0;
}
