/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/actuator.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "mglrud/core/actuate.h"
#include "mglrud/shared/fileio.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglrud/shared/time.h"

struct actuator {
        pthread_t thread;
        bool thread_started;
        pthread_mutex_t lock;
        pthread_cond_t wake;
        struct actuator_job *queue_head, *queue_tail; /* waiting */
        struct actuator_job *done_head, *done_tail;   /* finished, for the event loop */
        unsigned pending;                             /* queued + running */
        unsigned pending_drop_files;                  /* files of the pending drop jobs */
        bool stop;
        struct actuator_stall_source stall;           /* actuator_set_stall_source() */
        struct actuator_refault_source refault;       /* actuator_set_refault_source() */
        struct actuator_stats stats;                  /* under lock */
        struct actuator_job *running;                 /* the job the worker runs, under lock */
        int efd;
        sd_event_source *source;
        actuator_done_fn done;
        void *userdata;
};

struct actuator_job {
        /* input */
        enum actuator_job_kind kind;
        uint64_t cgroup_id;
        char *path;             /* for log lines (the cgroup may be renamed or gone meanwhile) */
        int dirfd;              /* the cgroup directory, owned by the job, or -1 (drops) */
        int lrugen_fd;          /* /sys/kernel/debug/lru_gen for writing, owned by the job, or -1 */
        uint64_t page_size;
        enum act_mode mode;     /* what the job may write (act_mode_allows()); lowered to
                                 * ACT_REPORT by actuator_report_only(); atomic */
        struct decision_summary decision;   /* ACTUATOR_JOB_DECISION: what was decided, with its
                                             * memory.reclaim writes; its lru_gen commands are
                                             * cmds (a job holds only those it has) */
        struct actuator_drop *drops;        /* ACTUATOR_JOB_DROP */
        size_t n_drops;
        uint64_t write_started_usec; /* the write in progress began then (0: none); atomic */
        struct actuator_tag tag;            /* the submitter's */
        const struct actuator_stall_source *stall; /* set by actuator_submit(); NULL: none */
        const struct actuator_refault_source *refault; /* set by actuator_submit(); NULL: none */
        struct actuator_limits limits;      /* actuator_job_set_limits() */

        /* results, and the state of a running job */
        struct actuator_result result;
        bool stop;              /* actuator_stop_cgroup(), actuator_cancel(): end after the chunk in
                                 * flight; atomic */
        bool has_stall_base;    /* stall_base_ns was read (at the job's first check) */
        uint64_t stall_base_ns; /* the cgroup's reclaim time when the job began */
        bool has_refault_base;  /* refault_base_pages was read (at the job's first check) */
        uint64_t refault_base_pages; /* the cgroup's own refault count when the job began */

        struct actuator_job *next;

        size_t n_cmds;
        struct lrugen_cmd cmds[];           /* the decision's lru_gen commands, in order */
};

static void free_list(struct actuator_job *j);

/* Returns a new job of kind for cgroup id with room for n_cmds commands, without descriptors,
 * or NULL on OOM. */
static struct actuator_job *job_alloc(enum actuator_job_kind kind, uint64_t cgroup_id,
                                      const char *path, enum act_mode mode, size_t n_cmds) {
        /* Sized to its commands: while an eviction takes seconds, every managed cgroup can
         * have a job queued (thousands of them), most with one ageing command. */
        struct actuator_job *j = calloc(1, sizeof *j + n_cmds * sizeof j->cmds[0]);
        if (!j)
                return NULL;
        j->kind = kind;
        j->dirfd = j->lrugen_fd = -1;
        j->cgroup_id = cgroup_id;
        j->mode = mode;
        j->path = strdup(path);
        if (!j->path) {
                free(j);
                return NULL;
        }
        return j;
}

struct actuator_job *actuator_job_new(uint64_t cgroup_id, const char *path, int dirfd,
                                      int lrugen_fd, uint64_t page_size, enum act_mode mode,
                                      const struct decision *d) {
        struct actuator_job *j = job_alloc(ACTUATOR_JOB_DECISION, cgroup_id, path, mode,
                                           d->n_cmds);
        if (!j)
                return NULL;
        decision_summarize(d, &j->decision);
        j->decision.act = (uint8_t) mode;
        memcpy(j->cmds, d->cmds, d->n_cmds * sizeof d->cmds[0]);
        j->n_cmds = d->n_cmds;
        j->page_size = page_size;
        j->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
        if (lrugen_fd >= 0)
                j->lrugen_fd = fcntl(lrugen_fd, F_DUPFD_CLOEXEC, 3);
        if (j->dirfd < 0 || (lrugen_fd >= 0 && j->lrugen_fd < 0)) {
                actuator_job_free(j);
                return NULL;
        }
        return j;
}

struct actuator_job *actuator_drop_job_new(uint64_t cgroup_id, const char *path,
                                           enum act_mode mode) {
        return job_alloc(ACTUATOR_JOB_DROP, cgroup_id, path, mode, 0);
}

int actuator_drop_job_add(struct actuator_job *j, int fd, const char *path,
                          const struct actuator_drop *range) {
        struct actuator_drop *n = realloc(j->drops, (j->n_drops + 1) * sizeof *n);
        char *p = strdup(path);
        if (!n || !p) {
                if (n)
                        j->drops = n;
                free(p);
                close(fd);
                return -ENOMEM;
        }
        j->drops = n;
        n[j->n_drops] = *range;
        n[j->n_drops].fd = fd;
        n[j->n_drops].path = p;
        n[j->n_drops].error = 0;
        j->n_drops++;
        return 0;
}

void actuator_job_free(struct actuator_job *j) {
        if (!j)
                return;
        closep(&j->dirfd);
        closep(&j->lrugen_fd);
        for (size_t i = 0; i < j->n_drops; i++) {
                closep(&j->drops[i].fd);
                free(j->drops[i].path);
        }
        free(j->drops);
        free(j->path);
        free(j);
}

enum actuator_job_kind actuator_job_kind(const struct actuator_job *j) {
        return j->kind;
}

uint64_t actuator_job_cgroup_id(const struct actuator_job *j) {
        return j->cgroup_id;
}

uint64_t actuator_job_page_size(const struct actuator_job *j) {
        return j->page_size;
}

enum act_mode actuator_job_mode(const struct actuator_job *j) {
        /* Read before every write: actuator_report_only() lowers it while the job runs. */
        return __atomic_load_n(&j->mode, __ATOMIC_RELAXED);
}

const struct decision_summary *actuator_job_decision(const struct actuator_job *j) {
        return &j->decision;
}

size_t actuator_job_n_drops(const struct actuator_job *j) {
        return j->n_drops;
}

const struct actuator_drop *actuator_job_drop(const struct actuator_job *j, size_t i) {
        return &j->drops[i];
}

struct actuator_result *actuator_job_result(struct actuator_job *j) {
        return &j->result;
}

const struct actuator_result *actuator_job_result_const(const struct actuator_job *j) {
        return &j->result;
}

struct actuator_tag *actuator_job_tag(struct actuator_job *j) {
        return &j->tag;
}

const struct actuator_tag *actuator_job_tag_const(const struct actuator_job *j) {
        return &j->tag;
}

void actuator_job_set_limits(struct actuator_job *j, const struct actuator_limits *l) {
        j->limits = *l;
}

struct actuator_limits actuator_job_limits(const struct actuator_job *j) {
        return j->limits;
}

/* Logs how long one command blocked: slow writes must be visible (MaxStep= bounds them). */
static void note_write_time(const struct actuator_job *j, const char *what, uint64_t bytes,
                            uint64_t t0, int r) {
        uint64_t dt = now_monotonic_usec() - t0;
        char b[32], t[32];
        /* A job stopped while this write ran (its cgroup dropped, or a pressure stop) says so:
         * the write began before the stop, though its line comes after. */
        bool stopped = __atomic_load_n(&j->stop, __ATOMIC_RELAXED);
        log_full_errno(dt >= 2 * USEC_PER_SEC ? LOG_NOTICE : LOG_DEBUG, 0,
                       "%s: %s of %s took %s (%s%s)", j->path, what,
                       format_bytes(b, sizeof b, bytes), format_duration(t, sizeof t, dt),
                       r < 0 ? strerror(-r) : "ok", stopped ? "; stopped while it ran" : "");
}

/* The stall guard (docs/design.md, "Stall guard"): returns true when the job's cgroup's tasks
 * spent more than its limit in reclaim since its first check (the job's start). One map lookup;
 * a failed read skips the check (the PSI trigger still watches). */
static bool stalled(struct actuator_job *j) {
        uint64_t ns;
        if (!j->stall || !j->stall->read || !j->limits.stall_limit_ns || j->kind != ACTUATOR_JOB_DECISION)
                return false;
        if (j->stall->read(j->cgroup_id, &ns, j->stall->userdata) < 0)
                return false;
        if (!j->has_stall_base) {
                j->stall_base_ns = ns;
                j->has_stall_base = true;
                return false;
        }
        j->result.stall_ns = ns > j->stall_base_ns ? ns - j->stall_base_ns : 0;
        if (j->result.stall_ns <= j->limits.stall_limit_ns)
                return false;
        j->result.stall_stopped = true;
        return true;
}

/* The refault guard (docs/design.md, "Stall guard"): returns true when more of the job's
 * cgroup's evicted file pages came back since its first check than j->limits.refault_share of the
 * pages the job asked to reclaim by now. Pages that return while the job still runs were
 * evicted seconds before: the job is taking the working set. One map lookup; a failed read
 * skips the check. */
static bool refault_burst(struct actuator_job *j) {
        uint64_t pages;
        if (!j->refault || !j->refault->read || !(j->limits.refault_share > 0) ||
            j->kind != ACTUATOR_JOB_DECISION || j->page_size == 0)
                return false;
        if (j->refault->read(j->cgroup_id, &pages, j->refault->userdata) < 0)
                return false;
        if (!j->has_refault_base) {
                j->refault_base_pages = pages;
                j->has_refault_base = true;
                return false;
        }
        /* A count that went backwards (its map entry was recycled) starts the job's anew. */
        if (pages < j->refault_base_pages)
                j->refault_base_pages = pages;
        j->result.refault_pages = pages - j->refault_base_pages;
        j->result.refault_limit_pages = (uint64_t) ((double) (j->result.asked_bytes / j->page_size) *
                                             j->limits.refault_share);
        if (j->result.refault_pages <= j->result.refault_limit_pages)
                return false;
        j->result.refault_stopped = true;
        return true;
}

/* Returns true when the job must end before its next chunk: shutdown (*cancel), a stop of its
 * cgroup (actuator_stop_cgroup()), or a reclaim stall or a refault burst there (the guard).
 * Marks it cancelled. */
static bool cancelled(struct actuator_job *j, const bool *cancel) {
        if (j->result.cancelled)
                return true;
        if ((cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED)) ||
            __atomic_load_n(&j->stop, __ATOMIC_RELAXED) || stalled(j) || refault_burst(j))
                j->result.cancelled = true;
        return j->result.cancelled;
}

/* Notes when the write in progress began (the watchdog's measure of progress). */
static void write_begin(struct actuator_job *j) {
        __atomic_store_n(&j->write_started_usec, now_monotonic_usec(), __ATOMIC_RELAXED);
}

static void write_end(struct actuator_job *j) {
        __atomic_store_n(&j->write_started_usec, 0, __ATOMIC_RELAXED);
}


/* Returns whether the job's mode allows a write of kind w: what it does not allow is skipped,
 * neither written nor counted as asked. */
static bool job_allows(const struct actuator_job *j, enum act_write w) {
        return act_mode_allows(actuator_job_mode(j), w);
}

static enum act_write cmd_write(const struct lrugen_cmd *c) {
        return c->op == '+' ? ACT_WRITE_AGE : ACT_WRITE_EVICT;
}

/* One lru_gen command; evictions in chunks. Returns 0 or the first error. */
static int run_lrugen_cmd(struct actuator_job *j, const struct lrugen_cmd *c, const bool *cancel) {
        uint64_t t0 = now_monotonic_usec();
        int r = 0;

        if (c->op == '+') {
                write_begin(j);
                r = actuate_lrugen(j->lrugen_fd, c, actuator_job_mode(j));
                write_end(j);
        } else {
                /* Repeating "- id node seq" is safe: once the generations up to seq are empty
                 * the kernel returns at once. */
                for (uint64_t left = c->nr_pages; left > 0 && r >= 0;) {
                        if (cancelled(j, cancel) || !job_allows(j, ACT_WRITE_EVICT))
                                break;
                        struct lrugen_cmd chunk = *c;
                        chunk.nr_pages = MIN(left, (uint64_t) ACTUATOR_CHUNK_PAGES);
                        write_begin(j);
                        r = actuate_lrugen(j->lrugen_fd, &chunk, actuator_job_mode(j));
                        write_end(j);
                        left -= chunk.nr_pages;
                        j->result.asked_bytes += chunk.nr_pages * j->page_size;
                }
        }
        note_write_time(j, c->op == '+' ? "lru_gen age" : "lru_gen evict",
                        c->op == '-' ? c->nr_pages * j->page_size : 0, t0, r);
        return r;
}

/* One memory.reclaim request in chunks; EAGAIN ends it (the kernel found no more). */
static int run_reclaim(struct actuator_job *j, const struct reclaim_req *req, const bool *cancel) {
        const uint64_t chunk_bytes = (uint64_t) ACTUATOR_CHUNK_PAGES * j->page_size;
        uint64_t t0 = now_monotonic_usec();
        int r = 0;

        for (uint64_t left = req->bytes; left > 0;) {
                if (cancelled(j, cancel) || !job_allows(j, ACT_WRITE_RECLAIM))
                        break;
                struct reclaim_req chunk = *req;
                chunk.bytes = MIN(left, chunk_bytes);
                write_begin(j);
                r = actuate_reclaim(j->dirfd, &chunk, actuator_job_mode(j));
                write_end(j);
                left -= chunk.bytes;
                j->result.asked_bytes += chunk.bytes;
                if (r < 0)
                        break;
        }
        note_write_time(j, "memory.reclaim", req->bytes, t0, r);
        return r;
}

/* Drops every range of a drop job; a failed drop is logged and the others go on. */
static void run_drops(struct actuator_job *j, const bool *cancel) {
        for (size_t i = 0; i < j->n_drops; i++) {
                struct actuator_drop *d = &j->drops[i];
                if (cancelled(j, cancel) || !job_allows(j, ACT_WRITE_DROP))
                        break;
                write_begin(j);
                d->error = actuate_drop(d->fd, d->offset, d->length, actuator_job_mode(j));
                write_end(j);
                j->result.asked_bytes += d->length;
                if (d->error < 0) {
                        j->result.failed++;
                        j->result.last_error = d->error;
                        log_warning_errno(d->error, "%s: %s: POSIX_FADV_DONTNEED failed: %m",
                                          j->path, d->path);
                }
        }
}

/* Returns the number of kernel writes a job issues (chunks included), for the counts. */
static uint64_t job_writes(const struct actuator_job *j) {
        if (j->kind == ACTUATOR_JOB_DROP)
                return j->n_drops;
        uint64_t n = 0;
        for (size_t i = 0; i < j->n_cmds; i++) {
                const struct lrugen_cmd *c = &j->cmds[i];
                if (!job_allows(j, cmd_write(c)))
                        continue;
                n += c->op == '+' ? 1 : (c->nr_pages + ACTUATOR_CHUNK_PAGES - 1) / ACTUATOR_CHUNK_PAGES;
        }
        for (size_t i = 0; i < j->decision.n_reclaims && job_allows(j, ACT_WRITE_RECLAIM); i++) {
                uint64_t chunk = (uint64_t) ACTUATOR_CHUNK_PAGES * j->page_size;
                n += (j->decision.reclaims[i].bytes + chunk - 1) / chunk;
        }
        return n;
}

void actuator_run_job(struct actuator_job *j, const bool *cancel) {
        const struct decision_summary *d = &j->decision;

        if (j->kind == ACTUATOR_JOB_DROP) {
                run_drops(j, cancel);
                j->result.finished_usec = now_monotonic_usec();
                return;
        }

        for (size_t i = 0; i < j->n_cmds && !cancelled(j, cancel); i++) {
                const struct lrugen_cmd *c = &j->cmds[i];
                if (!job_allows(j, cmd_write(c)))
                        continue;
                int r = run_lrugen_cmd(j, c, cancel);
                if (r == -EEXIST && c->op == '+')
                        continue; /* someone else (kswapd, reclaim) aged it just now */
                if (r == -EINVAL) {
                        /* The memcg went away between our read and the write, or its max_seq
                         * moved (a child's removal ages the parent on 7.2+). Re-read next cycle. */
                        log_debug("%s: lru_gen command %c for memcg %llu node %d seq %llu "
                                  "refused (EINVAL): stale, will re-read.", j->path, c->op,
                                  (unsigned long long) c->memcg_id, c->node,
                                  (unsigned long long) c->seq);
                        continue;
                }
                if (r < 0) {
                        j->result.failed++;
                        j->result.last_error = r;
                        log_warning_errno(r, "%s: lru_gen write failed: %m", j->path);
                }
        }
        for (size_t i = 0; i < d->n_reclaims && job_allows(j, ACT_WRITE_RECLAIM) &&
                           !cancelled(j, cancel); i++) {
                int r = run_reclaim(j, &d->reclaims[i], cancel);
                if (r == -EAGAIN || r == -EINTR)
                        continue; /* the kernel reclaimed less than asked, or was interrupted:
                                   * what it did is measured later; the next cycle asks again */
                if (r == -ENOENT) {
                        j->result.vanished = true;
                        break;
                }
                if (r < 0) {
                        j->result.failed++;
                        j->result.last_error = r;
                        log_warning_errno(r, "%s: memory.reclaim failed: %m", j->path);
                }
        }
        j->result.finished_usec = now_monotonic_usec();
}

/* Counts a finished job (under the lock when a thread runs jobs). */
static void count_job(struct actuator *a, const struct actuator_job *j) {
        a->stats.jobs++;
        if (actuator_job_mode(j) == ACT_REPORT)
                return; /* nothing was written (or, lowered while it ran, not counted) */
        a->stats.writes += job_writes(j);
        a->stats.failed += j->result.failed;
        a->stats.asked_bytes += j->result.asked_bytes;
}

/* Appends j to the finished jobs and wakes the event loop (under the lock). */
static void finish_locked(struct actuator *a, struct actuator_job *j) {
        if (a->done_tail)
                a->done_tail->next = j;
        else
                a->done_head = j;
        a->done_tail = j;
        uint64_t one = 1;
        if (write(a->efd, &one, sizeof one) < 0) {
                /* Cannot happen with a non-blocking eventfd below 2^64-1. */
        }
}

static void *worker(void *userdata) {
        struct actuator *a = userdata;

        pthread_mutex_lock(&a->lock);
        for (;;) {
                while (!a->stop && !a->queue_head)
                        pthread_cond_wait(&a->wake, &a->lock);
                if (a->stop)
                        break;
                struct actuator_job *j = a->queue_head;
                a->queue_head = j->next;
                if (!a->queue_head)
                        a->queue_tail = NULL;
                j->next = NULL;
                a->running = j;
                pthread_mutex_unlock(&a->lock);

                actuator_run_job(j, &a->stop);

                pthread_mutex_lock(&a->lock);
                a->running = NULL;
                count_job(a, j);
                finish_locked(a, j);
        }
        pthread_mutex_unlock(&a->lock);
        return NULL;
}

static int on_done(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct actuator *a = userdata;
        uint64_t n;
        if (read(fd, &n, sizeof n) < 0 && errno != EAGAIN)
                return log_warning_errno(errno, "actuator eventfd: %m"), 0;

        pthread_mutex_lock(&a->lock);
        struct actuator_job *list = a->done_head;
        a->done_head = a->done_tail = NULL;
        pthread_mutex_unlock(&a->lock);

        while (list) {
                struct actuator_job *j = list;
                list = j->next;
                j->next = NULL;
                pthread_mutex_lock(&a->lock);
                a->pending--;
                if (j->kind == ACTUATOR_JOB_DROP)
                        a->pending_drop_files -= j->n_drops;
                pthread_mutex_unlock(&a->lock);
                a->done(j, a->userdata);
        }
        return 0;
}

int actuator_new(sd_event *e, actuator_done_fn done, void *userdata, struct actuator **ret) {
        struct actuator *a = calloc(1, sizeof *a);
        int r;

        if (!a)
                return -ENOMEM;
        pthread_mutex_init(&a->lock, NULL);
        pthread_cond_init(&a->wake, NULL);
        a->done = done;
        a->userdata = userdata;
        a->efd = -1;
        if (!e) {
                *ret = a; /* inline: actuator_submit() runs the job */
                return 0;
        }
        a->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (a->efd < 0) {
                r = negative_errno();
                goto fail;
        }
        r = sd_event_add_io(e, &a->source, a->efd, EPOLLIN, on_done, a);
        if (r < 0)
                goto fail;
        r = -pthread_create(&a->thread, NULL, worker, a);
        if (r < 0)
                goto fail;
        a->thread_started = true;
        *ret = a;
        return 0;
fail:
        actuator_free(a);
        return r;
}

int actuator_submit(struct actuator *a, struct actuator_job *j) {
        j->next = NULL;
        j->stall = &a->stall;
        j->refault = &a->refault;
        if (!a->thread_started) {
                actuator_run_job(j, NULL);
                count_job(a, j);
                a->done(j, a->userdata);
                return 0;
        }
        pthread_mutex_lock(&a->lock);
        if (a->stop) {
                pthread_mutex_unlock(&a->lock);
                actuator_job_free(j);
                return -ESHUTDOWN;
        }
        if (j->kind == ACTUATOR_JOB_DROP) {
                /* Before the first queued decision, after the drops queued before it. */
                struct actuator_job **p = &a->queue_head;
                while (*p && (*p)->kind == ACTUATOR_JOB_DROP)
                        p = &(*p)->next;
                j->next = *p;
                *p = j;
                if (!j->next)
                        a->queue_tail = j;
        } else {
                if (a->queue_tail)
                        a->queue_tail->next = j;
                else
                        a->queue_head = j;
                a->queue_tail = j;
        }
        a->pending++;
        if (j->kind == ACTUATOR_JOB_DROP)
                a->pending_drop_files += j->n_drops;
        pthread_cond_signal(&a->wake);
        pthread_mutex_unlock(&a->lock);
        return 0;
}

/* Unlinks from the queue, in one walk, the jobs of cgroup_id (with decisions_only, its
 * decision jobs only: drops go on) and sets the queue's tail again; the running job of that
 * kind is told to end after the write in flight. Under the lock. Returns the unlinked jobs in
 * queue order, linked by next; *ret_running says whether the running job was told to stop. */
static struct actuator_job *unqueue_cgroup_locked(struct actuator *a, uint64_t cgroup_id,
                                                  bool decisions_only, bool *ret_running) {
        struct actuator_job *taken = NULL, **taken_tail = &taken;
        struct actuator_job **p = &a->queue_head;

        a->queue_tail = NULL;
        while (*p) {
                struct actuator_job *j = *p;
                if (j->cgroup_id != cgroup_id ||
                    (decisions_only && j->kind != ACTUATOR_JOB_DECISION)) {
                        a->queue_tail = j;
                        p = &j->next;
                        continue;
                }
                *p = j->next;
                j->next = NULL;
                *taken_tail = j;
                taken_tail = &j->next;
        }
        struct actuator_job *r = a->running;
        *ret_running = r && r->cgroup_id == cgroup_id &&
                       (!decisions_only || r->kind == ACTUATOR_JOB_DECISION);
        if (*ret_running)
                __atomic_store_n(&r->stop, true, __ATOMIC_RELAXED);
        return taken;
}

unsigned actuator_cancel(struct actuator *a, uint64_t cgroup_id) {
        unsigned n = 0;
        bool running;

        if (!a || !a->thread_started)
                return 0; /* inline: nothing is ever queued */
        pthread_mutex_lock(&a->lock);
        /* The running one ends after the write in flight: its cgroup is gone or no longer
         * ours, and a job of 16 chunks would go on writing for seconds. */
        struct actuator_job *drop = unqueue_cgroup_locked(a, cgroup_id, false, &running);
        for (struct actuator_job *j = drop; j; j = j->next) {
                a->pending--;
                if (j->kind == ACTUATOR_JOB_DROP)
                        a->pending_drop_files -= j->n_drops;
                n++;
        }
        pthread_mutex_unlock(&a->lock);
        free_list(drop); /* closes descriptors: outside the lock */
        return n;
}

struct actuator_stopped actuator_stop_cgroup(struct actuator *a, uint64_t cgroup_id) {
        struct actuator_stopped ret = {};

        if (!a || !a->thread_started)
                return ret; /* inline: nothing is ever queued or running between calls */
        pthread_mutex_lock(&a->lock);
        struct actuator_job *list = unqueue_cgroup_locked(a, cgroup_id, true, &ret.running);
        while (list) {
                struct actuator_job *j = list;
                list = j->next;
                j->next = NULL;
                j->result.cancelled = true;
                j->result.finished_usec = now_monotonic_usec();
                count_job(a, j);
                finish_locked(a, j); /* pending drops when the loop hands it to done */
                ret.queued++;
        }
        pthread_mutex_unlock(&a->lock);
        return ret;
}

void actuator_set_stall_source(struct actuator *a, const struct actuator_stall_source *src) {
        if (a)
                a->stall = src ? *src : (struct actuator_stall_source) {};
}

void actuator_set_refault_source(struct actuator *a, const struct actuator_refault_source *src) {
        if (a)
                a->refault = src ? *src : (struct actuator_refault_source) {};
}

void actuator_report_only(struct actuator *a) {
        if (!a || !a->thread_started)
                return; /* inline: nothing is ever queued or running between calls */
        pthread_mutex_lock(&a->lock);
        for (struct actuator_job *j = a->queue_head; j; j = j->next)
                j->mode = ACT_REPORT;
        if (a->running)
                __atomic_store_n(&a->running->mode, ACT_REPORT, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&a->lock);
}

unsigned actuator_pending_drop_files(struct actuator *a) {
        pthread_mutex_lock(&a->lock);
        unsigned n = a->pending_drop_files;
        pthread_mutex_unlock(&a->lock);
        return n;
}

unsigned actuator_pending(struct actuator *a) {
        pthread_mutex_lock(&a->lock);
        unsigned n = a->pending;
        pthread_mutex_unlock(&a->lock);
        return n;
}

struct actuator_stats actuator_get_stats(struct actuator *a) {
        pthread_mutex_lock(&a->lock);
        struct actuator_stats s = a->stats;
        pthread_mutex_unlock(&a->lock);
        return s;
}

uint64_t actuator_write_age_usec(struct actuator *a, uint64_t now_usec) {
        uint64_t started = 0;
        if (!a)
                return 0;
        pthread_mutex_lock(&a->lock);
        if (a->running)
                started = __atomic_load_n(&a->running->write_started_usec, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&a->lock);
        return started && now_usec > started ? now_usec - started : 0;
}

static void free_list(struct actuator_job *j) {
        while (j) {
                struct actuator_job *next = j->next;
                actuator_job_free(j);
                j = next;
        }
}

void actuator_free(struct actuator *a) {
        if (!a)
                return;
        if (a->thread_started) {
                pthread_mutex_lock(&a->lock);
                __atomic_store_n(&a->stop, true, __ATOMIC_RELAXED);
                pthread_cond_signal(&a->wake);
                pthread_mutex_unlock(&a->lock);
                /* A write the kernel never returns from must not keep the daemon from exiting:
                 * wait for the chunk in progress, but not forever. */
                struct timespec deadline;
                clock_gettime(CLOCK_REALTIME, &deadline);
                deadline.tv_sec += ACTUATOR_STOP_TIMEOUT_USEC / USEC_PER_SEC;
                int r = pthread_timedjoin_np(a->thread, NULL, &deadline);
                if (r != 0) {
                        uint64_t age = actuator_write_age_usec(a, now_monotonic_usec());
                        char t[32];
                        log_error_errno(r, "The writer thread is stuck in a write (%s: %s for "
                                        "%s); exiting without it.", a->running ? a->running->path : "?",
                                        r == ETIMEDOUT ? "no return" : "join failed",
                                        format_duration(t, sizeof t, age));
                        /* It still owns its job and may touch a: both are left to the exit. */
                        pthread_detach(a->thread);
                        return;
                }
        }
        free_list(a->queue_head);
        free_list(a->done_head);
        sd_event_source_disable_unref(a->source);
        if (a->efd >= 0)
                close(a->efd);
        pthread_cond_destroy(&a->wake);
        pthread_mutex_destroy(&a->lock);
        free(a);
}
