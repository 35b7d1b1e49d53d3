/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The job: what to write, in which mode, for which cgroup; its construction and accessors. */
#include "actuator-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mglrud/shared/macro.h"

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

struct actuator_brake_reading *actuator_job_brake_reading(struct actuator_job *j, unsigned i) {
        return &j->brakes[i];
}

const struct actuator_brake_reading *actuator_job_brake_reading_const(const struct actuator_job *j,
                                                                      unsigned i) {
        return &j->brakes[i];
}
