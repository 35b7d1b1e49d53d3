/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The table of brakes (brakes.h, docs/design.md, "Brakes"): every brake of brake.h, opened,
 * cycled and closed in table order, asked in that order between two chunks of a job, and the one
 * path of their stops into control. */
#include "mglrud/core/brakes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mglrud/shared/macro.h"

/* The brakes, in the order they are opened and asked: a new brake is one file defining its
 * struct brake_ops brake_<name> and one line here. */
#define BRAKES(X) \
        X(psi)    \
        X(stall)  \
        X(refault)

#define BRAKE_DECLARE_(name) extern const struct brake_ops brake_##name;
BRAKES(BRAKE_DECLARE_)
#undef BRAKE_DECLARE_

#define BRAKE_ENTRY_(name) &brake_##name,
static const struct brake_ops *const brake_table[] = { BRAKES(BRAKE_ENTRY_) };
#undef BRAKE_ENTRY_

#define N_BRAKES ELEMENTSOF(brake_table)
_Static_assert(N_BRAKES <= ACTUATOR_BRAKES_MAX, "a job keeps a reading for each brake");

struct brakes {
        struct brake brakes[N_BRAKES];
        struct brake_env env;           /* the last brakes_open() or brakes_cycle()'s */
        bool attached;                  /* the actuation path asks brakes_check_job() */
};

int brakes_new(struct brakes **ret) {
        struct brakes *t = calloc(1, sizeof *t);
        if (!t)
                return -ENOMEM;
        for (size_t i = 0; i < N_BRAKES; i++)
                t->brakes[i] = (struct brake) { .ops = brake_table[i], .env = &t->env, .index = i };
        *ret = t;
        return 0;
}

void brakes_open(struct brakes *t, const struct brake_env *env) {
        if (!t)
                return;
        t->env = *env;
        if (!t->attached && env->actuator) {
                actuator_set_check(env->actuator, &(struct actuator_check) {
                        .check = brakes_check_job, .userdata = t });
                t->attached = true;
        }
        for (size_t i = 0; i < N_BRAKES; i++)
                t->brakes[i].ops->open(&t->brakes[i]);
}

void brakes_cycle(struct brakes *t, const struct brake_env *env, struct cgroup *const *cgroups,
                  size_t n, uint64_t now_usec) {
        if (!t)
                return;
        t->env = *env;
        for (size_t i = 0; i < N_BRAKES; i++)
                if (t->brakes[i].ops->cycle)
                        t->brakes[i].ops->cycle(&t->brakes[i], cgroups, n, now_usec);
}

bool brakes_check_job(struct actuator_job *j, void *userdata) {
        struct brakes *t = userdata;
        if (actuator_job_kind(j) != ACTUATOR_JOB_DECISION)
                return false; /* drops relieve pressure: no brake holds them */
        for (size_t i = 0; i < N_BRAKES; i++) {
                struct brake *b = &t->brakes[i];
                if (!b->ops->check_job || !b->source.read)
                        continue;
                if (b->ops->check_job(b, j, actuator_job_brake_reading(j, i))) {
                        actuator_job_result(j)->brake = i + 1;
                        return true;
                }
        }
        return false;
}

void brakes_job_done(struct brakes *t, struct cgroup *cg, const struct actuator_job *j,
                     uint64_t now_usec) {
        unsigned i = actuator_job_result_const(j)->brake;
        if (!t || !cg || i == 0 || i > N_BRAKES)
                return;
        struct brake *b = &t->brakes[i - 1];
        struct control_stop stop = {};
        char why[192];
        b->ops->job_stop(b, j, actuator_job_brake_reading_const(j, i - 1), &stop, why, sizeof why);
        stop.now_usec = now_usec;
        stop.n_stopped = 1; /* the job it ended */
        brake_stop(b, cg, why, stop);
}

/* Returns the index of the brake named name, or N_BRAKES. */
static size_t find_index(const struct brakes *t, const char *name) {
        size_t i = 0;
        while (t && i < N_BRAKES && strcmp(t->brakes[i].ops->name, name) != 0)
                i++;
        return t ? i : N_BRAKES;
}

struct brake *brakes_find(const struct brakes *t, const char *name) {
        size_t i = find_index(t, name);
        return i < N_BRAKES ? (struct brake *) &t->brakes[i] : NULL;
}

bool brakes_watching(const struct brakes *t, const char *name) {
        size_t i = find_index(t, name);
        return i < N_BRAKES && t->brakes[i].source.read && t->brakes[i].enabled;
}

const struct reclaim_stall *brakes_reclaim_stall(const struct brakes *t) {
        return brake_stall_counters(brakes_find(t, "stall-guard"));
}

bool brakes_holds_streams(const struct brakes *t) {
        const struct brake *b = brakes_find(t, "refault-guard");
        return b && b->source.read;
}

uint64_t brakes_counter(const struct brakes *t, enum daemon_counter c) {
        uint64_t v = 0;
        for (size_t i = 0; t && i < N_BRAKES; i++) {
                const struct brake *b = &t->brakes[i];
                if (b->ops->stops_counter == c)
                        v += b->stops;
                if (b->ops->status_counter == c && b->ops->status && b->ops->status(b))
                        v = 1;
        }
        return v;
}

void brakes_free(struct brakes *t) {
        if (!t)
                return;
        for (size_t i = N_BRAKES; i-- > 0;)
                if (t->brakes[i].ops->close)
                        t->brakes[i].ops->close(&t->brakes[i]);
        free(t);
}
