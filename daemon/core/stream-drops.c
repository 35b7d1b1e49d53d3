/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream-drops.c: one cgroup's files classified (policy/stream-classify.c) and its streams
 * dropped: the files opened by handle (a mount per device, kept for one pass), the bounds (a
 * token bucket of files and one of bytes, the files pending in the actuation path), one drop job
 * per cgroup for the actuation path. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mglrud/core/actuator.h"
#include "mglrud/core/cgroup.h"
#include "mglrud/core/control.h"
#include "mglrud/kernel/file-handle.h"
#include "mglrud/kernel/memcg.h"
#include "mglrud/kernel/mountinfo.h"
#include "mglrud/policy/stream-classify.h"
#include "mglrud/shared/escape.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglrud/shared/time.h"
#include "mglrud/shared/token-bucket.h"
#include "stream-protection-internal.h"

/* Verdicts of files with at least this much inserted are logged when they change. */
#define STREAMS_LOG_MIN_BYTES (UINT64_C(16) << 20)

/* Opens a mount of the filesystem on dev and checks that it is ext4 or xfs. Returns the fd, or a
 * negative errno (-EOPNOTSUPP for other filesystems, -ENOENT when not mounted). */
static int mount_open(const char *proc_root, dev_t dev, char *what, size_t what_size) {
        _cleanup_close_ int fd = mountinfo_open_dev(proc_root, dev, what, what_size);
        if (fd < 0)
                return fd;
        int r = file_handle_check_mount(fd);
        if (r < 0)
                return r;
        return TAKE_FD(fd);
}

/* Returns a mount fd for dev (kept until streams_mounts_close(); a refusal is logged once per device),
 * or a negative errno. */
static int mount_get(struct streams *s, uint32_t kdev) {
        dev_t dev = makedev(kdev >> 20, kdev & 0xfffff); /* the kernel's dev_t: MAJOR << 20 | MINOR */
        struct mount_entry *e = NULL;
        for (size_t i = 0; i < s->n_mounts && !e; i++)
                if (s->mounts[i].dev == dev)
                        e = &s->mounts[i];
        if (!e) {
                struct mount_entry *m = realloc(s->mounts, (s->n_mounts + 1) * sizeof *m);
                if (!m)
                        return -ENOMEM;
                s->mounts = m;
                e = &m[s->n_mounts++];
                *e = (struct mount_entry) { .dev = dev, .fd = MOUNT_UNKNOWN };
        }
        if (e->fd != MOUNT_UNKNOWN)
                return e->fd >= 0 ? e->fd : -EOPNOTSUPP;
        char what[1024];
        int fd = mount_open(s->proc_root, dev, what, sizeof what);
        if (fd < 0 && !e->logged) {
                if (fd == -EOPNOTSUPP)
                        log_notice("Stream protection: not dropping files on %s: only ext4 and xfs "
                                   "are supported (file handles of inode and generation).", what);
                else
                        log_notice_errno(fd, "Stream protection: cannot open the mount of %s: %m",
                                         what);
                e->logged = true;
        }
        e->fd = fd >= 0 ? fd : -1;
        return fd >= 0 ? fd : -EOPNOTSUPP;
}

void streams_mounts_close(struct streams *s) {
        for (size_t i = 0; i < s->n_mounts; i++) {
                if (s->mounts[i].fd >= 0)
                        close(s->mounts[i].fd);
                s->mounts[i].fd = MOUNT_UNKNOWN;
        }
}

int streams_open_by_handle(const struct streams_key *key, uint32_t generation, char *path,
                           size_t size, void *userdata) {
        struct streams *s = userdata;
        int mfd = mount_get(s, key->dev);
        if (mfd < 0)
                return mfd;
        char raw[PATH_MAX] = "";
        int fd = file_handle_open(mfd, key->ino, generation, s->proc_root, raw, sizeof raw);
        /* Any user names its files: the log gets the name escaped. */
        if (fd >= 0 && raw[0])
                (void) escape_path_buf(raw, path, size);
        return fd;
}

/* Opens the file of e with the opener (path gets its name, or "dev:ino" when it has none).
 * Returns the fd or a negative errno. */
static int file_open(struct streams *s, const struct file_entry *e, char *path, size_t size) {
        snprintf(path, size, "%u:%u inode %llu", e->key.dev >> 20, e->key.dev & 0xfffff,
                 (unsigned long long) e->key.ino);
        return s->open_file(&e->key, e->val.generation, path, size, s->open_userdata);
}

/* Takes a drop of the range a from the budget (files and bytes: struct streams) and the
 * files pending in the actuation path. A range beyond the bytes left is cut to them (the rest
 * waits: dropped_to says where it stopped). Returns false when nothing fits. */
static bool budget_take(struct streams *s, struct drop_run *run, struct stream_action *a,
                        uint64_t page_size) {
        token_bucket_refill(&s->budget_files, run->in->now_usec);
        token_bucket_refill(&s->budget_bytes, run->in->now_usec);
        uint64_t left_pages = s->budget_bytes.tokens / page_size;
        if (s->budget_files.tokens < USEC_PER_SEC || left_pages == 0 ||
            run->pending_files >= STREAMS_MAX_FILES_PENDING)
                return false;
        if (a->drop_end - a->drop_start > left_pages) {
                a->drop_end = a->drop_start + left_pages;
                run->held = true;
        }
        (void) token_bucket_take(&s->budget_files, USEC_PER_SEC);
        (void) token_bucket_take(&s->budget_bytes, (a->drop_end - a->drop_start) * page_size);
        run->pending_files++;
        return true;
}

/* The classifier's view of e; new pages count from the drain before the last one (a cycle, or
 * the fast path for a file inserted into since window_usec) or from the last drain (the fast
 * path, other files). */
static struct stream_file entry_to_file(const struct file_entry *e, uint64_t page_size,
                                        bool fast, uint64_t window_usec) {
        bool recent = window_usec && e->val.last_ns / 1000 >= window_usec;
        uint64_t base = fast && !recent ? e->drained_pages : e->prev_pages;
        return (struct stream_file) {
                .pages = e->val.pages,
                .seq_pages = e->val.seq_pages,
                .back_pages = e->val.back_pages,
                .next_index = e->val.next_index,
                .max_index = e->val.max_index,
                .size_pages = (e->val.i_size + page_size - 1) / page_size,
                .new_pages = e->val.pages > base ? e->val.pages - base : 0,
                .dropped_to = e->dropped_to,
        };
}

/* Logs a verdict change of a large file (the classification log). */
static void log_verdict(struct streams *s, const struct cgroup *cg, struct file_entry *e,
                        const struct stream_file *f, enum stream_verdict v, uint64_t page_size) {
        /* "idle" only means no progress this cycle: not a change of mind worth a line. */
        if (v == e->verdict || v == STREAM_UNSURE || v == STREAM_NOT_ACTIVE ||
            f->pages * page_size < STREAMS_LOG_MIN_BYTES)
                return;
        e->verdict = v;
        char path[512], a[32], b[32], c[32];
        /* opened only for its name in path (the handle is all the map keeps) */
        int fd = file_open(s, e, path, sizeof path);
        closep(&fd);
        log_info("%s: %s: %s (inserted %s, %s sequential, %s re-inserted, file %s).", cg->name,
                 path, v == STREAM_ONE_SHOT || v == STREAM_SMALL_FILES ? "stream" : "not a stream",
                 format_bytes(a, sizeof a, f->pages * page_size),
                 format_bytes(b, sizeof b, f->seq_pages * page_size),
                 format_bytes(c, sizeof c, f->back_pages * page_size),
                 stream_verdict_to_string(v));
}

/* Adds one file's range to the cgroup's drop job (created on first use). Returns 0, -ENOMEM,
 * or a negative errno when the file cannot be opened (logged at debug: it was deleted, or the
 * inode reused). */
static int add_drop(struct streams *s, const struct cgroup *cg, struct file_entry *e,
                    const struct stream_action *a, enum act_mode mode, uint64_t page_size,
                    uint64_t crossed_usec, struct actuator_job **job) {
        char path[512];
        int fd = file_open(s, e, path, sizeof path);

        /* Once a range is handed on (or cannot be), it is never tried again. */
        e->dropped_to = a->drop_end;
        if (fd == -ENOMEM)
                return fd;
        if (fd < 0) {
                log_debug_errno(fd, "%s: cannot open %s by handle: %m", cg->name, path);
                return fd;
        }
        if (!*job && !(*job = actuator_drop_job_new(cg->id, cg->name, mode))) {
                close(fd);
                return -ENOMEM;
        }
        struct actuator_drop range = {
                .offset = a->drop_start * page_size,
                .length = (a->drop_end - a->drop_start) * page_size,
                .whole_file = a->drop_start == 0,
                .small_file = a->verdict == STREAM_SMALL_FILES,
                .read_bytes = e->val.next_index * page_size,
                .size_bytes = e->val.i_size,
                .crossed_usec = crossed_usec,
        };
        return actuator_drop_job_add(*job, fd, path, &range);
}

/* Sets *ret_ids to the ids whose files are cg's, ascending and once each: its own and those of
 * the descendants it covers (*ret_sorted holds them when there are such, to be freed; else
 * *ret_ids points at own). Returns how many, or -ENOMEM. */
static ssize_t cgroup_ids_sorted(const struct cgroup *cg, uint64_t *own, uint64_t **ret_sorted,
                                 const uint64_t **ret_ids) {
        *own = cg->id;
        *ret_sorted = NULL;
        *ret_ids = own;
        if (cg->n_covered == 0)
                return 1;
        uint64_t *sorted = reallocarray(NULL, cg->n_covered + 1, sizeof *sorted);
        if (!sorted)
                return -ENOMEM;
        sorted[0] = cg->id;
        memcpy(sorted + 1, cg->covered_ids, cg->n_covered * sizeof *sorted);
        qsort(sorted, cg->n_covered + 1, sizeof *sorted, u64_cmp);
        size_t n = 0;
        for (size_t i = 0; i <= cg->n_covered; i++)
                if (n == 0 || sorted[i] != sorted[n - 1])
                        sorted[n++] = sorted[i];
        *ret_sorted = sorted;
        *ret_ids = sorted;
        return (ssize_t) n;
}

/* What one cgroup's files are classified against this pass: the ids its files are under. */
struct cgroup_pass {
        struct cgroup *cg;
        const uint64_t *ids;
        size_t n_ids;
        uint64_t page_size;
        uint64_t window_usec;   /* the fast path's inflow window (stream_file.window) */
        uint64_t trigger_usec;  /* the earliest crossing the fast path was told about */
};

/* Adds the small-file inflow of the pass's files to scg and finds their earliest crossing. The
 * fast path's drops of files that did not cross themselves (small files read before the
 * cgroup's inflow reached the threshold) count from it. */
static void pass_inflow(struct streams *s, const struct drop_run *run, struct cgroup_pass *p,
                        struct stream_cgroup *scg) {
        for (size_t i = 0; i < p->n_ids; i++) {
                size_t k, first = streams_files_of_cgroup(s, p->ids[i], &k);
                for (size_t j = first; j < first + k; j++) {
                        const struct file_entry *e = &s->files[j];
                        struct stream_file f = entry_to_file(e, p->page_size, run->fast,
                                                             p->window_usec);
                        scg->small_inflow_bytes += stream_small_inflow(&f, p->page_size);
                        if (run->fast && e->pending_usec &&
                            (!p->trigger_usec || e->pending_usec < p->trigger_usec))
                                p->trigger_usec = e->pending_usec;
                }
        }
}

/* Classifies the pass's files and adds the drops to *job, until a bound holds the rest back
 * (run->held). Returns 0 or -ENOMEM. */
static int pass_drops(struct streams *s, struct drop_run *run, struct cgroup_pass *p,
                      const struct stream_cgroup *scg, enum act_mode mode,
                      struct actuator_job **job) {
        for (size_t i = 0; i < p->n_ids; i++) {
                size_t k, first = streams_files_of_cgroup(s, p->ids[i], &k);
                for (size_t j = first; j < first + k; j++) {
                        struct file_entry *e = &s->files[j];
                        struct stream_action a;
                        struct stream_file f = entry_to_file(e, p->page_size, run->fast,
                                                             p->window_usec);
                        if (stream_classify(&f, scg, &a) < 0)
                                continue;
                        log_verdict(s, p->cg, e, &f, a.verdict, p->page_size);
                        if (a.drop_end <= a.drop_start) {
                                e->pending_usec = 0; /* a crossing with nothing to drop */
                                continue;
                        }
                        if (!budget_take(s, run, &a, p->page_size)) {
                                run->held = true; /* the rest waits for a retry or the cycle */
                                return 0;
                        }
                        uint64_t crossed = e->pending_usec ?: p->trigger_usec;
                        e->pending_usec = 0;
                        if (add_drop(s, p->cg, e, &a, mode, p->page_size, crossed, job) == -ENOMEM)
                                return -ENOMEM;
                }
        }
        return 0;
}

/* Classifies the files of one cgroup and hands its drops to the actuation path as one job,
 * within the bounds (run->held says one held some back). Returns 0 or -ENOMEM. */
int streams_cgroup(struct streams *s, struct cgroup *cg, enum act_mode mode,
                   struct drop_run *run) {
        struct cgroup_pass p = { .cg = cg, .page_size = run->in->caps->page_size };
        struct stream_cgroup scg = { .page_size = p.page_size, .limit_bytes = UINT64_MAX };
        struct actuator_job *job = NULL;

        if (s->n_files == 0)
                return 0;
        /* Its files in the table's order: the ids of cg and of the descendants it covers,
         * ascending, each a run of the table (sorted by cgroup id first). A cycle costs a
         * lookup per cgroup, not a pass over the table. */
        uint64_t own;
        _cleanup_free_ uint64_t *sorted = NULL;
        ssize_t n_ids = cgroup_ids_sorted(cg, &own, &sorted, &p.ids);
        if (n_ids < 0)
                return (int) n_ids;
        p.n_ids = (size_t) n_ids;
        size_t n_files = 0;
        for (size_t i = 0; i < p.n_ids; i++) {
                size_t k;
                streams_files_of_cgroup(s, p.ids[i], &k);
                n_files += k;
        }
        if (n_files == 0)
                return 0;

        if (!(cg->files.present & (1u << CGROUP_FILE_CURRENT)) ||
            cgroup_files_read_value(&cg->files, CGROUP_FILE_CURRENT, 0, &scg.current_bytes) < 0)
                return 0;
        if (cgroup_files_read_value(&cg->files, CGROUP_FILE_MAX, UINT64_MAX, &scg.limit_bytes) < 0)
                scg.limit_bytes = UINT64_MAX;

        /* Between cycles the small-file inflow is the last period's length back from now, not
         * the current period's so far: files read whole since then count with their pages since
         * the drain before the last. Counting from the last drain made every cycle start the
         * inflow from zero, so a stream going on at the cycle (grep -r in S2) had its next 8 MiB
         * held back, up to 2 s, and then dropped in one batch that took the second's budget. */
        uint64_t now = run->in->now_usec;
        if (run->fast && s->prev_drain_usec && s->drain_usec > s->prev_drain_usec)
                p.window_usec = MAX(now - MIN(now, s->drain_usec - s->prev_drain_usec),
                                    UINT64_C(1));

        pass_inflow(s, run, &p, &scg);
        int r = pass_drops(s, run, &p, &scg, mode, &job);
        if (job) {
                int q = actuator_submit(run->act, job);
                if (q == -ENOMEM)
                        r = q;
        }
        return r;
}

/* Returns whether the files of cg are classified now (stream protection on, acting, not
 * paused, still there), and in *ret_mode what its drops do (act_mode_decide()). */
bool streams_cgroup_protected(const struct cgroup *cg, const struct cycle_input *in,
                              enum act_mode *ret_mode) {
        const struct policy *p = cg->policy;
        if (in->paused_all || p->mode == POLICY_MODE_OFF ||
            p->stream_protection == STREAM_PROTECTION_NO || cg->vanished ||
            control_cgroup_paused(cg))
                return false; /* Pause() stops every action, this one too */
        *ret_mode = act_mode_decide(&(const struct act_facts) {
                .subject = ACT_SUBJECT_DROPS,
                .dry_run = in->dry_run,
                .mode = p->mode,
                .stream_protection = p->stream_protection,
        });
        return true;
}

