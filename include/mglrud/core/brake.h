/* SPDX-License-Identifier: GPL-2.0-or-later */
/* brake.h: what one brake implements (docs/design.md, "Brakes"). A brake stops mglrud's reclaim
 * in a cgroup when reclaiming there hurts: the PSI triggers (brake-psi.c) from the event loop,
 * the stall and refault guards (brake-stall.c, brake-refault.c) between two chunks of a running
 * job. Each is one struct brake_ops in the table of brakes.c; every stop of any of them goes
 * through brake_stop() (brake.c), the one path into control_cgroup_note_stop(). A brake uses
 * brake.c only, never the table: the table knows its brakes, the brakes do not know it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "mglrud/config/config.h"
#include "mglrud/core/actuator.h"
#include "mglrud/core/cgroup.h"
#include "mglrud/core/control.h"
#include "mglrud/core/counters.h"

struct reclaim_stall;
struct streams;

/* What the brakes see of the daemon, given by their owner (the manager) at every brakes_open()
 * and brakes_cycle(), and kept until the next: a PSI trigger fires between two cycles. */
struct brake_env {
        sd_event *event;                /* NULL (--once): no brake acts */
        const struct config *config;
        const char *proc_root;
        uint64_t interval_usec;
        bool dry_run;
        struct actuator *actuator;
        struct streams *streams;        /* stream protection's BPF program; NULL: not loaded */
        /* Returns the managed cgroups as they are now (sorted by id) and their number. */
        struct cgroup *const *(*cgroups)(void *owner, size_t *ret_n);
        void *owner;
};

/* A per-cgroup cumulative reading a guard watches (the BPF stall guard's reclaim time, stream
 * protection's own refault count): reads cgroup_id's into *ret. Called from the writer thread
 * between two chunks. Returns 0 or a negative errno (the check is skipped then). */
typedef int (*brake_read_fn)(uint64_t cgroup_id, uint64_t *ret, void *userdata);

struct brake_source {
        brake_read_fn read;             /* NULL: the guard is not loaded */
        void *userdata;
};

struct brakes;

/* One brake in the table: the part every brake has, and its own state. */
struct brake {
        const struct brake_ops *ops;
        const struct brake_env *env;    /* the daemon as the table's owner gave it last
                                         * (brakes_open(), brakes_cycle()) */
        unsigned index;                 /* its place in the table: the job's reading it keeps
                                         * (actuator_job_brake_reading()) */
        struct brake_source source;     /* what check_job reads; set once by open() (or a test),
                                         * then read by the writer thread without a lock */
        bool enabled;                   /* its setting is on (StallGuard=, ...): set by open() */
        uint64_t stops;                 /* the stops it made (ops->stops_counter) */
        void *state;                    /* the implementation's own, freed by close() */
};

struct brake_ops {
        const char *name;
        /* The daemon-wide counters (counters.h, source BRAKE) of its stops and of its status
         * flag; _DAEMON_COUNTER_MAX: none. */
        enum daemon_counter stops_counter, status_counter;
        /* On the loop, at start and at each reload: loads what it needs (once), says once when it
         * cannot. */
        void (*open)(struct brake *b);
        /* On the loop, at the end of each cycle: arms or disarms for the managed cgroups. May be
         * NULL. */
        void (*cycle)(struct brake *b, struct cgroup *const *cgroups, size_t n, uint64_t now_usec);
        /* On the writer thread, before every command and chunk of a decision job, when its
         * source is loaded: returns true to end the job. Keeps its reading of the job in
         * *reading. May be NULL. */
        bool (*check_job)(struct brake *b, struct actuator_job *j,
                          struct actuator_brake_reading *reading);
        /* On the loop, for a job check_job ended: fills in the stop (reason and what it saw;
         * brakes_job_done() sets the time and the jobs) and the reason for the log line, "why". */
        void (*job_stop)(struct brake *b, const struct actuator_job *j,
                         const struct actuator_brake_reading *reading, struct control_stop *ret,
                         char *why, size_t size);
        /* Returns its status flag (status_counter). May be NULL. */
        bool (*status)(const struct brake *b);
        /* Releases everything (disarms, detaches). May be NULL. */
        void (*close)(struct brake *b);
};

/* Stops cg's reclaim for brake b (the one path of every stop): cancels its queued write jobs and
 * cuts its running one short (actuator_stop_cgroup()), records the stop (stop->n_stopped counts
 * the jobs b already ended) with control_cgroup_note_stop(), logs "why" and counts it. Returns
 * how many of its write jobs were cancelled or cut short. */
unsigned brake_stop(struct brake *b, struct cgroup *cg, const char *why,
                    struct control_stop stop);

/* Returns the stall guard's BPF counters once loaded, or NULL (also for a NULL b): what the
 * table (brakes_reclaim_stall()) asks of brake-stall.c. */
const struct reclaim_stall *brake_stall_counters(const struct brake *b);
