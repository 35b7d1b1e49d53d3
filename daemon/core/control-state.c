/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The controller state's allocation (control-state.h): one block per cgroup with its policy
 * state and idle-age state at its end, a job record and runtime overrides beside it; the
 * accessors the bus, dumps and metrics read. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "control-state.h"

void control_cgroup_free(struct cgroup *cg) {
        struct control_state *s = cg ? cg->userdata : NULL;
        if (!s)
                return;
        free(s->overrides);
        free(s->acts);
        free(s);
        cg->userdata = NULL;
}

struct control_acts *control_acts_get(struct control_state *s) {
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
        return (s->policy_size || s->idle_size ? control_idle_offset(s->policy_size) + s->idle_size
                                               : sizeof *s) +
               (s->acts ? sizeof *s->acts : 0) + (s->overrides ? sizeof *s->overrides : 0);
}

struct control_state *control_state_get(struct cgroup *cg) {
        if (!cg->userdata)
                cg->userdata = calloc(1, sizeof(struct control_state));
        return cg->userdata;
}

struct control_state *control_policy_store(struct cgroup *cg, const struct policy_state *ps) {
        struct control_state *s = cg->userdata;
        size_t size = policy_state_size(ps);
        if (size != s->policy_size) {
                /* The idle-age state follows the policy's bytes: moved down before a shrink,
                 * up after a growth, and back when the allocation fails. */
                size_t from = control_idle_offset(s->policy_size), to = control_idle_offset(size);
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
