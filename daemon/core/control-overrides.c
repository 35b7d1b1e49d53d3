/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the bus may ask of one cgroup's control beside the cycle: runtime overrides of its
 * policy keys (Set()), which survive rescans and reloads, and its advice now (Advise()), which
 * changes nothing. */
#include <errno.h>
#include <stdlib.h>

#include "control-decide.h"
#include "mglrud/config/config.h"
#include "mglrud/core/decision-text.h"

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
        ssize_t n = control_collect_lruvecs(in->lrugen, cg, &local, &lruvecs);
        if (n < 0)
                return (int) n;
        struct policy p = *cg->policy;
        p.mode = POLICY_MODE_ADVISE;
        if (s && s->policy_size)
                control_policy_load(s, &state);
        else
                policy_state_init(&state, &p, now_usec);
        const struct own_refaults none = {};
        r = control_decide_for_cycle(&(struct control_decide_input) {
                .in = in,
                .policy = &p,
                .state = &state,
                .prev = s && s->has_prev ? &s->prev : NULL,
                .cur = &cur,
                .own = &none,
                .refault_undercount = s && s->refault.undercount,
                .lruvecs = lruvecs,
                .n_lruvecs = (size_t) n,
        }, &state, &d);
        if (r >= 0 && decision_format(&d, ACT_REPORT, buf, size) < 0)
                r = -EINVAL;
        control_scratch_done(&local);
        return r;
}
