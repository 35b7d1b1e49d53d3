/* SPDX-License-Identifier: GPL-2.0-or-later */
/* brakes.h: the table of brakes the manager owns (brakes.c, docs/design.md, "Brakes"): the PSI
 * triggers, the stall guard, the refault guard, each an implementation of brake.h. The manager
 * opens them, lets them arm each cycle and hands them the jobs they ended; the actuation path
 * asks the table between two chunks (actuator_set_check()). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "mglrud/core/brake.h"

/* Creates the table with every brake, none loaded or armed. Returns 0 or -ENOMEM. */
int brakes_new(struct brakes **ret);

/* Keeps env (a copy), makes the actuation path ask the table between chunks, and lets each brake
 * load what it needs (at start and each reload, once the stream protection is settled). Here and
 * below a NULL t (no table: the start failed) is fine. */
void brakes_open(struct brakes *t, const struct brake_env *env);

/* Keeps env and lets each brake arm or disarm for the n managed cgroups (end of each cycle). */
void brakes_cycle(struct brakes *t, const struct brake_env *env, struct cgroup *const *cgroups,
                  size_t n, uint64_t now_usec);

/* The writer thread's question before every command and chunk (an actuator_check_fn): returns
 * true when a brake ends decision job j; the job's result says which (result.brake). */
bool brakes_check_job(struct actuator_job *j, void *userdata);

/* On the loop, for every finished job of managed cgroup cg: when a brake ended it, the stop goes
 * its way (brake_stop()). */
void brakes_job_done(struct brakes *t, struct cgroup *cg, const struct actuator_job *j,
                     uint64_t now_usec);

/* Returns the brake named name ("pressure-trigger", "stall-guard", "refault-guard"), or NULL
 * (also for a NULL t). Like strchr(), what a const table gives may be changed by its owner. */
struct brake *brakes_find(const struct brakes *t, const char *name);

/* Returns whether the brake named name has its source loaded and its setting on: jobs get its
 * limit then (cycle_input.stall_guard, .refault_guard). */
bool brakes_watching(const struct brakes *t, const char *name);

/* Returns the value of daemon-wide counter c (source BRAKE in counters.h): a brake's stops or its
 * status flag; 0 for a counter no brake keeps. */
uint64_t brakes_counter(const struct brakes *t, enum daemon_counter c);

/* Returns the stall guard's BPF counters once loaded (for the snapshots), or NULL. */
const struct reclaim_stall *brakes_reclaim_stall(const struct brakes *t);

/* Returns whether the refault guard reads stream protection's BPF map: it then stays loaded until
 * brakes_free() (the writer reads it without a lock). */
bool brakes_holds_streams(const struct brakes *t);

/* Closes every brake (disarms the triggers, detaches the stall guard). After the writer thread
 * stopped: it reads their sources. NULL is fine. */
void brakes_free(struct brakes *t);
