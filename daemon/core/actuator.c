/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The actuation path's queue and its writer thread: submission, cancellation and stops of a
 * cgroup's jobs, completions handed to the event loop, and the counts. */
#include "actuator-internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

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
        struct actuator_check check;                  /* actuator_set_check() */
        struct actuator_stats stats;                  /* under lock */
        struct actuator_job *running;                 /* the job the worker runs, under lock */
        int efd;
        sd_event_source *source;
        actuator_done_fn done;
        void *userdata;
};

static void free_list(struct actuator_job *j);

/* Counts a finished job (under the lock when a thread runs jobs). */
static void count_job(struct actuator *a, const struct actuator_job *j) {
        a->stats.jobs++;
        if (actuator_job_mode(j) == ACT_REPORT)
                return; /* nothing was written (or, lowered while it ran, not counted) */
        a->stats.writes += actuator_job_writes(j);
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
        j->check = &a->check;
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

void actuator_set_check(struct actuator *a, const struct actuator_check *c) {
        if (a)
                a->check = c ? *c : (struct actuator_check) {};
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
