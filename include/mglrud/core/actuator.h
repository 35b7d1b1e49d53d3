/* SPDX-License-Identifier: GPL-2.0-or-later */
/* actuator.h: the actuation path. Every write mglrud makes to the kernel (lru_gen commands,
 * memory.reclaim, the stream drop) is a job run here, through the write helpers of actuate.h.
 * Whether to write is not decided here: the job carries its mode (act-mode.h), decided once by
 * its submitter, and the path issues only the writes that mode allows; the results of every job (bytes asked, failures) are counted here
 * and handed back to the event loop for measuring and reporting.
 *
 * With an event loop, one worker thread runs the jobs in order: a 16 MiB eviction to zram took
 * 10-27 s on the emulated test machines (and can take seconds on a loaded server), and while it
 * runs the loop must keep serving the bus, signals and the watchdog, and other cgroups must
 * keep being sampled. Writes are split into chunks so that shutdown never waits for more than
 * one chunk. Without an event loop (mglrud --once) jobs run inline at submission. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "mglrud/policy/act-mode.h"
#include "mglrud/policy/policy.h"

/* Largest single write: 1024 pages (4 MiB with 4 KiB pages). */
#define ACTUATOR_CHUNK_PAGES 1024u
/* Decisions are not queued beyond this many jobs (the cgroup waits for the next cycle): a long
 * queue only delays what it holds, and each job holds two descriptors. */
#define ACTUATOR_MAX_QUEUED 32u
/* How long stopping waits for the chunk being written before it gives up on the thread. */
#define ACTUATOR_STOP_TIMEOUT_USEC (10 * UINT64_C(1000000))

struct actuator_job;

/* The actuation path's question before every command and chunk of a job, from the writer thread
 * (the brakes' table, brakes.h): returns true to end the job. */
typedef bool (*actuator_check_fn)(struct actuator_job *j, void *userdata);

struct actuator_check {
        actuator_check_fn check;        /* NULL: no brake */
        void *userdata;
};

/* What one brake (brakes.h) keeps of a job between its checks: the job's cgroup's cumulative
 * reading at the job's first check, and at the last check how far it grew since then and how far
 * it may grow. */
struct actuator_brake_reading {
        bool has_base;
        uint64_t base;
        uint64_t seen;
        uint64_t limit;
};

/* Brakes that check jobs, at most: each job keeps one reading for each. */
#define ACTUATOR_BRAKES_MAX 4

enum actuator_job_kind {
        ACTUATOR_JOB_DECISION,  /* a decision's lru_gen commands and memory.reclaim writes */
        ACTUATOR_JOB_DROP,      /* drop clean page-cache ranges of files (stream protection) */
};

/* One file range to drop: POSIX_FADV_DONTNEED on [offset, offset + length). */
struct actuator_drop {
        int fd;                 /* the file, owned by the job */
        char *path;             /* for log lines */
        uint64_t offset, length;
        bool whole_file;        /* the range starts at 0: one more file counted */
        bool small_file;        /* one of many small files (logged as a summary) */
        uint64_t read_bytes, size_bytes; /* how far the reader got, the file size (log lines) */
        uint64_t crossed_usec;  /* when the file crossed a stream threshold (CLOCK_MONOTONIC;
                                 * 0: unknown), for the drop's latency */
        int error;              /* result: 0 or the negative errno of the drop */
};

/* What a job did, for the owner of the finished job (the done callback's). */
struct actuator_result {
        unsigned failed;        /* writes that failed (a vanished cgroup is not a failure) */
        int last_error;
        uint64_t asked_bytes;   /* what the eviction/reclaim/drop writes asked for */
        bool vanished;          /* memory.reclaim said the cgroup is gone */
        bool cancelled;         /* stopped early: by shutdown, actuator_stop_cgroup(),
                                 * actuator_cancel() or a brake */
        uint8_t brake;          /* the brake that ended it (cancelled is set too): 1 + its index
                                 * in the brakes' table (brakes.h); 0: none */
        uint64_t finished_usec;
};

/* The brakes a decision job runs under (docs/design.md, "Stall guard"), set by its submitter
 * before actuator_submit(). */
struct actuator_limits {
        uint64_t stall_limit_ns; /* the stall guard stops the job when its cgroup's tasks spent
                                  * more than this in reclaim since it began; 0: no guard */
        double refault_share;   /* the refault guard stops the job when more pages of its cgroup
                                 * came back since it began than this share of the pages it asked
                                 * to reclaim so far; 0: no refault guard */
};

/* The submitter's record, kept with the job and never read by the actuator: its token (matches
 * the completion to its owner) and what it measures the job's effect against (control.c:
 * memory.stat's anon, file and pgsteal_proactive when it decided; bit k of has_baseline:
 * baseline[k] read). Kept with the job, not with each of thousands of cgroups. */
struct actuator_tag {
        uint64_t token;
        uint64_t baseline[3];
        uint8_t has_baseline;
};

/* A job: what to write, in which mode, and what came of it. Private to the actuation path
 * (daemon/core/actuator-internal.h); read
 * through the accessors below. */
struct actuator_job;

/* What the actuation path did since start, over every job (for the metrics and the dump). */
struct actuator_stats {
        uint64_t jobs;          /* finished jobs (dry-run ones included) */
        uint64_t writes;        /* write commands issued (not counting dry-run jobs) */
        uint64_t failed;        /* writes that failed */
        uint64_t asked_bytes;   /* bytes asked to evict, reclaim or drop */
};

/* Returns a new decision job for cgroup id in mode (also its summary's act) with d's summary
 * and commands and dup()s of dirfd
 * and lrugen_fd (-1 allowed), or NULL on OOM or when the descriptors cannot be duplicated. */
struct actuator_job *actuator_job_new(uint64_t cgroup_id, const char *path, int dirfd,
                                      int lrugen_fd, uint64_t page_size, enum act_mode mode,
                                      const struct decision *d);

/* Returns a new, empty drop job for cgroup id in mode, or NULL on OOM. */
struct actuator_job *actuator_drop_job_new(uint64_t cgroup_id, const char *path,
                                           enum act_mode mode);

/* Adds a range of file fd (ownership passes to the job, also on error) to a drop job.
 * Returns 0 or -ENOMEM. */
int actuator_drop_job_add(struct actuator_job *j, int fd, const char *path,
                          const struct actuator_drop *range);

/* Frees a job and closes its descriptors. NULL is fine. */
void actuator_job_free(struct actuator_job *j);

/* Returns the job's kind, cgroup id, page size, and mode (as lowered by actuator_report_only()
 * until it finished). */
enum actuator_job_kind actuator_job_kind(const struct actuator_job *j);
uint64_t actuator_job_cgroup_id(const struct actuator_job *j);
uint64_t actuator_job_page_size(const struct actuator_job *j);
enum act_mode actuator_job_mode(const struct actuator_job *j);

/* Returns what a decision job was decided with (a drop job's is empty). */
const struct decision_summary *actuator_job_decision(const struct actuator_job *j);

/* Returns the number of ranges of a drop job, and range i (< that number). */
size_t actuator_job_n_drops(const struct actuator_job *j);
const struct actuator_drop *actuator_job_drop(const struct actuator_job *j, size_t i);

/* Returns the job's results: final once it is handed to done (the owner may amend them). */
struct actuator_result *actuator_job_result(struct actuator_job *j);
const struct actuator_result *actuator_job_result_const(const struct actuator_job *j);

/* Returns the submitter's record of the job. */
struct actuator_tag *actuator_job_tag(struct actuator_job *j);
const struct actuator_tag *actuator_job_tag_const(const struct actuator_job *j);

/* Sets the brakes of a decision job (before actuator_submit()), and returns them. */
void actuator_job_set_limits(struct actuator_job *j, const struct actuator_limits *l);
struct actuator_limits actuator_job_limits(const struct actuator_job *j);

/* Returns the reading brake i (< ACTUATOR_BRAKES_MAX) keeps of the job. */
struct actuator_brake_reading *actuator_job_brake_reading(struct actuator_job *j, unsigned i);
const struct actuator_brake_reading *actuator_job_brake_reading_const(const struct actuator_job *j,
                                                                      unsigned i);

/* Runs every write of the job that its mode allows in order, in chunks of at most
 * ACTUATOR_CHUNK_PAGES, checking *cancel, actuator_stop_cgroup()/actuator_cancel() and the
 * actuator's check (the brakes, with the job's limits) before every command and chunk (NULL
 * cancel: never cancelled). Fills in the results. Blocking. */
void actuator_run_job(struct actuator_job *j, const bool *cancel);

/* Called on the event loop's thread for every finished job; it takes ownership of the job. */
typedef void (*actuator_done_fn)(struct actuator_job *j, void *userdata);

struct actuator;

/* Creates the actuation path. With an event loop e, starts the worker thread and watches its
 * completions on e; with e NULL, jobs run inline in actuator_submit() and done is called before
 * it returns. Returns 0 or a negative errno. */
int actuator_new(sd_event *e, actuator_done_fn done, void *userdata, struct actuator **ret);

/* Queues a job (ownership passes to the actuator, also on error). Drop jobs go before queued
 * decisions: a stream must be dropped while it is read, an eviction can wait a chunk. Returns
 * 0, or -ESHUTDOWN once stopping (the job is freed). */
int actuator_submit(struct actuator *a, struct actuator_job *j);

/* Drops the queued jobs of cgroup id (they are freed, done is not called) and stops its running
 * one after the write in flight (done is called as for any stopped job): its cgroup is no
 * longer managed. NULL is fine. Returns how many queued jobs were dropped. */
unsigned actuator_cancel(struct actuator *a, uint64_t cgroup_id);

/* What actuator_stop_cgroup() stopped. */
struct actuator_stopped {
        unsigned queued;        /* decision jobs that had not started: finished as cancelled */
        bool running;           /* the running job was one: it ends after its chunk in flight */
};

/* Stops the writes of cgroup id's decision jobs (a pressure trigger fired there): the queued
 * ones are cancelled before any write and handed to done as cancelled (so their owner stops
 * waiting for them), the running one ends after the chunk it is writing. Drop jobs (stream
 * protection) go on: dropping a stream relieves pressure. NULL is fine. Returns what it
 * stopped. */
struct actuator_stopped actuator_stop_cgroup(struct actuator *a, uint64_t cgroup_id);

/* Sets the check asked between chunks (the brakes) for the jobs submitted from now on (a copy is
 * kept; NULL check: none). Call before submitting: the worker reads it without a lock. NULL a is
 * fine. */
void actuator_set_check(struct actuator *a, const struct actuator_check *c);

/* Lowers every queued job, and the rest of the running one, to ACT_REPORT. For a reload that
 * turns DryRun= on: nothing is written after it. NULL is fine. */
void actuator_report_only(struct actuator *a);

/* Returns the number of jobs queued or running. */
unsigned actuator_pending(struct actuator *a);

/* Returns the number of files in the drop jobs queued or running (each holds a descriptor). */
unsigned actuator_pending_drop_files(struct actuator *a);

/* Returns the counts of what the actuation path did so far. */
struct actuator_stats actuator_get_stats(struct actuator *a);

/* Returns how long the write in progress has been running, or 0 when none is: the watchdog
 * pings systemd only while this stays short. */
uint64_t actuator_write_age_usec(struct actuator *a, uint64_t now_usec);

/* Stops the worker after its current chunk, drops queued jobs without calling done, and frees
 * everything. When the chunk does not return within ACTUATOR_STOP_TIMEOUT_USEC (a write the
 * kernel never completes), logs it and leaves the thread and a to the process's exit. NULL is
 * fine. */
void actuator_free(struct actuator *a);
