/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running a job: its writes in chunks through the write helpers (actuate.h), the checks between
 * chunks (a stop, shutdown, the guards), and how long each write took. */
#include "actuator-internal.h"

#include <errno.h>
#include <string.h>

#include "mglrud/core/actuate.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglrud/shared/time.h"

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

/* Returns true when the job must end before its next chunk: shutdown (*cancel), a stop of its
 * cgroup (actuator_stop_cgroup()), or a brake's (the actuator's check: a reclaim stall or a
 * refault burst there). Marks it cancelled. */
static bool cancelled(struct actuator_job *j, const bool *cancel) {
        if (j->result.cancelled)
                return true;
        if ((cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED)) ||
            __atomic_load_n(&j->stop, __ATOMIC_RELAXED) ||
            (j->check && j->check->check && j->check->check(j, j->check->userdata)))
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

uint64_t actuator_job_writes(const struct actuator_job *j) {
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
