/* SPDX-License-Identifier: GPL-2.0-or-later */
/* actuator.h: runs a decision's kernel writes off the event loop. A 16 MiB eviction to zram
 * took 10-27 s on the emulated test machines (and can take seconds on a loaded server); while
 * it runs the loop must keep serving the bus, signals and the watchdog, and other cgroups must
 * keep being sampled. One worker thread executes jobs in order; each finished job comes back to
 * the event loop (through an eventfd) for measuring and reporting. Writes are split into chunks
 * so that shutdown never waits for more than one chunk. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "mglrud/policy.h"

/* Largest single write: 1024 pages (4 MiB). */
#define ACTUATOR_CHUNK_PAGES 1024u

struct actuator_job {
        /* input */
        uint64_t cgroup_id;
        char *path;             /* for log lines (the cgroup may be renamed or gone meanwhile) */
        int dirfd;              /* the cgroup directory, owned by the job */
        int lrugen_fd;          /* /sys/kernel/debug/lru_gen for writing, owned by the job, or -1 */
        bool dry_run;
        const bool *force_dry_run; /* set by actuator_submit(): a reload switched to dry-run */
        bool advise_ageing;     /* Mode=advise: only the ageing commands, nothing to report */
        struct decision decision;
        uint64_t submitted_usec;
        uint64_t token;         /* the submitter's tag: matches the completion to its owner */

        /* results */
        unsigned failed;        /* writes that failed (a vanished cgroup is not a failure) */
        int last_error;
        uint64_t asked_bytes;   /* what the eviction/reclaim writes asked for */
        bool vanished;          /* memory.reclaim said the cgroup is gone */
        bool cancelled;         /* stopped early by shutdown */
        uint64_t finished_usec;

        struct actuator_job *next;
};

/* Returns a new job for cgroup id with dup()s of dirfd and lrugen_fd (-1 allowed), or NULL
 * on OOM or when the descriptors cannot be duplicated. */
struct actuator_job *actuator_job_new(uint64_t cgroup_id, const char *path, int dirfd,
                                      int lrugen_fd, bool dry_run, const struct decision *d);

/* Frees a job and closes its descriptors. NULL is fine. */
void actuator_job_free(struct actuator_job *j);

/* Runs every write of the job in order, in chunks of at most ACTUATOR_CHUNK_PAGES, checking
 * *cancel between chunks (NULL: never cancelled). Fills in the results. Blocking. */
void actuator_run_job(struct actuator_job *j, const bool *cancel);

/* Called on the event loop's thread for every finished job; it takes ownership of the job. */
typedef void (*actuator_done_fn)(struct actuator_job *j, void *userdata);

struct actuator;

/* Starts the worker thread and watches its completions on e. Returns 0 or a negative errno. */
int actuator_new(sd_event *e, actuator_done_fn done, void *userdata, struct actuator **ret);

/* Queues a job (ownership passes to the actuator). Returns 0, or -ESHUTDOWN once stopping. */
int actuator_submit(struct actuator *a, struct actuator_job *j);

/* Makes every queued job, and the rest of the running one, dry-run (or not: jobs submitted
 * with dry_run keep it). For a reload that turns DryRun= on: nothing is written after it. */
void actuator_set_dry_run(struct actuator *a, bool dry_run);

/* Returns the number of jobs queued or running. */
unsigned actuator_pending(struct actuator *a);

/* Stops the worker after its current chunk, drops queued jobs without calling done, and frees
 * everything. NULL is fine. */
void actuator_free(struct actuator *a);
