/* SPDX-License-Identifier: GPL-2.0-or-later */
/* act-mode.h: act or not, decided once (docs/design.md, "Act or not"). One mode per cgroup and
 * cycle, for its decision and for its stream drops: control.c and stream-protection.c call
 * act_mode_decide() where they decide, the job carries the mode (actuator.h), and the write
 * helpers (actuate.h) write only what act_mode_allows() says the job's mode allows. Nothing
 * else in the daemon decides whether to write. Pure: no I/O. */
#pragma once

#include <stdbool.h>

#include "mglrud/policy/policy.h"

/* What is decided on. */
enum act_subject {
        ACT_SUBJECT_DECISION,   /* a decision's lru_gen commands and memory.reclaim writes */
        ACT_SUBJECT_DROPS,      /* stream protection's drops of one-shot files */
};

/* Everything the mode depends on. A paused cgroup (Pause()) has no mode: it is sampled, not
 * decided on, and its files are not classified (control.c, stream-protection.c). */
struct act_facts {
        enum act_subject subject;
        bool dry_run;                   /* --dry-run, DryRun=: nothing at all is written */
        enum policy_mode mode;          /* the cgroup's Mode= */
        enum stream_protection stream_protection; /* its StreamProtection= (drops) */
        bool lrugen_write;              /* lru_gen is open for writing (decisions) */
        bool reclaim_denied;            /* its memory.reclaim is not writable (decisions) */
        /* The policy's decision (decisions): */
        unsigned n_age;                 /* lru_gen ageing commands */
        unsigned n_reclaims;            /* memory.reclaim writes */
};

/* Returns whether the policy is asked for advice rather than for writes: what Mode=advise
 * would do (--dry-run turns every managed cgroup's decision into that advice), with the lru_gen
 * work shown even where lru_gen cannot be written. Only dry_run and mode are read. */
bool act_wants_advice(const struct act_facts *f);

/* Returns the mode of f's subject: ACT_REPORT under dry-run, for Mode=off, for the drops of a
 * cgroup with Mode=advise or StreamProtection=advise (or no), and for a decision advised
 * (Mode=advise, or memory.reclaim writes where memory.reclaim is denied) that has no ageing to
 * write; ACT_AGE_ONLY for an advised decision that ages while lru_gen is writable; ACT_WRITE
 * otherwise (a decision without writes included: there is nothing to write). */
enum act_mode act_mode_decide(const struct act_facts *f);

/* A kind of kernel write. */
enum act_write {
        ACT_WRITE_AGE,          /* lru_gen '+' */
        ACT_WRITE_EVICT,        /* lru_gen '-' */
        ACT_WRITE_RECLAIM,      /* memory.reclaim */
        ACT_WRITE_DROP,         /* POSIX_FADV_DONTNEED */
};

/* Returns whether a job in mode m writes writes of kind w. */
bool act_mode_allows(enum act_mode m, enum act_write w);
