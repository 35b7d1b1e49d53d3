/* SPDX-License-Identifier: GPL-2.0-or-later */
/* control-state.h: what the pieces of per-cgroup control share (core-private): the state's
 * memory layout and its policy state, kept by control-state.c. The cycle (control.c,
 * control-decide.h), the jobs (control-jobs.c, control-jobs.h), the snapshot
 * (control-snapshot.c) and the runtime overrides and Advise() (control-overrides.c) all work on
 * it; this header includes nothing of theirs, so the pieces point one way. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "mglrud/core/control.h"
#include "mglrud/core/refault-trust.h"
#include "mglrud/shared/macro.h"

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
 * (the counters.h counters from ACTS). Allocated with the cgroup's first job
 * (control_acts_get()), not with its state: in dry-run, in advice without lru_gen writes and on
 * a cgroup that never had anything cold, it would be sizeof(struct control_acts) bytes of zeros
 * per cgroup (144: 1.4 MB at 10,000). */
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
        struct control_acts *acts;     /* NULL until its first job (control_acts_get()) */
        uint32_t policy_size;          /* bytes in policy; 0 before the first cycle */
        uint32_t idle_size;            /* bytes of the profile's part after it
                                        * (control_state_lists(), control_state_idle()): 0
                                        * until a profile was asked for */
        bool has_prev;
        bool has_last;                 /* last holds a decision */
        bool paused;                   /* Pause(): sample, but do not decide or act */
        bool skipped;                  /* the last cycle was skipped because of a pause */
        bool reclaim_denied_logged;    /* control_note_reclaim_denied() said it */
        bool over_limit_logged;        /* "working set exceeds the limit" was said */
        bool in_flight;                /* a job with this cgroup's writes is queued or running */
        bool in_flight_reclaims;       /* ... and it evicts or reclaims (not ageing only) */
        bool in_flight_stopped;        /* ... and a pressure trigger stopped it: its chunk in
                                        * flight still ends as the last write */
        unsigned char policy[];        /* the first policy_size bytes of a struct policy_state,
                                        * then the idle-age state at
                                        * control_idle_offset() */
};

/* Returns where the profile's part of a state with policy_size bytes of policy starts (from
 * the state's start), which is also the allocation's size without it: after the policy and the
 * struct, aligned for its 64-bit fields. */
static inline size_t control_idle_offset(size_t policy_size) {
        size_t end = MAX(sizeof(struct control_state),
                         offsetof(struct control_state, policy) + policy_size);
        return (end + 7) & ~(size_t) 7;
}

/* The profile's part of a state, at control_idle_offset(): memory.stat's LRU lists of the
 * last reading (struct control_idle_lists), then, once a cycle had a histogram, the idle-age
 * state; nothing before a profile was asked for (cycle_input.idle_profile): only the profiles
 * read them. */
#define CONTROL_LISTS_SIZE sizeof(struct control_idle_lists)
_Static_assert(CONTROL_LISTS_SIZE % 8 == 0, "the idle-age state after the lists stays aligned");

/* Returns s's LRU lists, or NULL before a profile was asked for. */
static inline struct control_idle_lists *control_state_lists(const struct control_state *s) {
        if (!s->idle_size)
                return NULL;
        return (struct control_idle_lists *) ((char *) s +
                                              control_idle_offset(s->policy_size));
}

/* Returns s's idle-age state, or NULL before its first cycle with a histogram once a profile
 * was asked for. */
static inline struct control_idle_state *control_state_idle(const struct control_state *s) {
        if (s->idle_size <= CONTROL_LISTS_SIZE)
                return NULL;
        return (struct control_idle_state *) ((char *) s +
                                              control_idle_offset(s->policy_size) +
                                              CONTROL_LISTS_SIZE);
}

/* control-state.c: the state's allocation and its policy state. */

/* Returns cg's state, allocating it on first use, or NULL on OOM. */
struct control_state *control_state_get(struct cgroup *cg);

/* Returns s's job record, allocating it (zeroed) on first use, or NULL on OOM. */
struct control_acts *control_acts_get(struct control_state *s);

/* Copies the stored policy state into *ret, a whole struct: the cycle's working copy. Only
 * its first policy_state_size() bytes are set, which is all the policy reads. */
static inline void control_policy_load(const struct control_state *s, struct policy_state *ret) {
        memcpy(ret, s->policy, s->policy_size);
}

/* Stores *ps as its policy_state_size() bytes at the end of cg's state, which moves when that
 * size changes. Returns the state, or NULL on OOM (the old state stays). */
struct control_state *control_policy_store(struct cgroup *cg, const struct policy_state *ps);
