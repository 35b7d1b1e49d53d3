/* SPDX-License-Identifier: GPL-2.0-or-later */
/* streams.c: one-shot stream protection: the BPF counters (bpf/page-cache-inserts.bpf.c), the per-file
 * state across cycles, and the drop jobs (files opened by handle here, the ranges dropped by
 * the actuation path behind the reader). */
#include "mglrud/core/stream-protection.h"

#include <errno.h>

#include "config.h"
#include "mglrud/shared/log.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#if HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/page-cache-inserts.skel.h"
#else
struct page_cache_inserts_bpf;
#endif
#include "bpf/page-cache-inserts.h"
#include "bpf/page-cache-refaults.h"
#include "mglrud/core/control.h"
#include "mglrud/core/cgroup.h"
#include "mglrud/kernel/memcg.h"
#include "mglrud/policy/stream-classify.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglrud/shared/time.h"
#include "stream-protection-internal.h"

#ifndef XFS_SUPER_MAGIC
#define XFS_SUPER_MAGIC 0x58465342
#endif
#define FILEID_INO32_GEN 1

/* Verdicts of files with at least this much inserted are logged when they change. */
#define STREAMS_LOG_MIN_BYTES (UINT64_C(16) << 20)

int streams_key_cmp(const void *a, const void *b) {
        const struct streams_key *x = a, *y = b;
        if (x->cgroup_id != y->cgroup_id)
                return x->cgroup_id < y->cgroup_id ? -1 : 1;
        if (x->dev != y->dev)
                return x->dev < y->dev ? -1 : 1;
        if (x->ino != y->ino)
                return x->ino < y->ino ? -1 : 1;
        return 0;
}

static int open_by_handle(const struct streams_key *key, uint32_t generation, char *path,
                          size_t size, void *userdata);

int streams_new(const char *proc_root, struct streams **ret) {
        _cleanup_free_ struct streams *s = calloc(1, sizeof *s);

        if (!s)
                return -ENOMEM;
        s->proc_root = strdup(proc_root);
        if (!s->proc_root)
                return -ENOMEM;
        s->open_file = open_by_handle;
        s->open_userdata = s;
        s->fast_path = true;
        int r = stream_events_new(-1, -1, &s->events);
        if (r < 0) {
                free(s->proc_root);
                return r;
        }
        *ret = TAKE_PTR(s);
        return 0;
}

void streams_set_file_opener(struct streams *s, streams_open_file_fn fn, void *userdata) {
        s->open_file = fn;
        s->open_userdata = userdata;
}

int streams_open(const char *proc_root, struct streams **ret) {
#if HAVE_BPF
        struct streams *s;
        int r = streams_new(proc_root, &s);
        if (r < 0)
                return r;
        s->skel = page_cache_inserts_bpf__open();
        if (!s->skel) {
                r = negative_errno();
                streams_free(s);
                return r;
        }
        long page_size = sysconf(_SC_PAGESIZE);
        s->skel->rodata->page_shift = (uint32_t) __builtin_ctzl((unsigned long) MAX(page_size, 1L));
        r = page_cache_inserts_bpf__load(s->skel);
        if (r == 0)
                r = page_cache_inserts_bpf__attach(s->skel);
        if (r == 0) {
                stream_events_free(s->events);
                s->events = NULL;
                r = stream_events_new(bpf_map__fd(s->skel->maps.stream_events),
                                      bpf_map__fd(s->skel->maps.stream_watch), &s->events);
        }
        if (r < 0) {
                streams_free(s);
                return r;
        }
        *ret = s;
        return 0;
#else
        return -EOPNOTSUPP;
#endif
}

void streams_free(struct streams *s) {
        if (!s)
                return;
#if HAVE_BPF
        page_cache_inserts_bpf__destroy(s->skel);
#endif
        streams_mounts_close(s);
        stream_events_free(s->events);
        free(s->retry_ids);
        free(s->ids);
        free(s->mounts);
        free(s->files);
        free(s->next);
        free(s->proc_root);
        free(s);
}

/* Makes s->next[0..n) (fresh counters) the table, sorted, carrying over the state of files
 * seen before; files no longer there are forgotten. new_period: this is a cycle's drain, which
 * starts a new period for the counts of new pages; else the fast path re-reads the map within
 * the current one. */
static void table_swap_in(struct streams *s, size_t n, bool new_period) {
        for (size_t i = 0; i < n; i++) {
                struct file_entry *e = &s->next[i];
                const struct file_entry *old =
                        s->n_files ? bsearch(&e->key, s->files, s->n_files, sizeof *s->files,
                                             streams_key_cmp)
                                   : NULL;
                if (new_period) {
                        e->prev_pages = old ? old->drained_pages : 0;
                        e->drained_pages = e->val.pages;
                } else {
                        e->prev_pages = old ? old->prev_pages : 0;
                        e->drained_pages = old ? old->drained_pages : 0;
                }
                e->dropped_to = old ? old->dropped_to : 0;
                e->pending_usec = old ? old->pending_usec : 0;
                e->verdict = old ? old->verdict : STREAM_UNSURE;
        }
        if (n > 0)
                qsort(s->next, n, sizeof *s->next, streams_key_cmp);
        struct file_entry *t = s->files;
        s->files = s->next;
        s->next = t;
        s->n_files = n;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/* Makes room for n files in both tables. The map holds up to STREAMS_MAP_ENTRIES, but on most
 * nodes a few streams at a time: the tables grow with what the map holds. Returns 0 or
 * -ENOMEM. */
int streams_tables_reserve(struct streams *s, size_t n) {
        if (n <= s->cap)
                return 0;
        if (n > STREAMS_TABLE_MAX)
                return -ENOMEM;
        size_t cap = MIN(MAX(MAX(s->cap * 2, n), (size_t) 64), (size_t) STREAMS_TABLE_MAX);
        struct file_entry *f = reallocarray(s->files, cap, sizeof *f);
        if (!f)
                return -ENOMEM;
        s->files = f;
        struct file_entry *x = reallocarray(s->next, cap, sizeof *x);
        if (!x)
                return -ENOMEM;
        s->next = x;
        s->cap = cap;
        return 0;
}

int streams_feed(struct streams *s, const struct streams_key *keys, const struct streams_val *vals,
                 size_t n) {
        if (n > STREAMS_MAP_ENTRIES)
                return -E2BIG;
        int r = streams_tables_reserve(s, n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                s->next[i] = (struct file_entry) { .key = keys[i], .val = vals[i] };
        if (n > 0)
                qsort(s->next, n, sizeof *s->next, streams_key_cmp);
        table_swap_in(s, n, true);
        return 0;
}

#if HAVE_BPF
/* Map entries read per bpf() call: one walk of a full map (16384 files) takes 16 calls instead
 * of two per entry. */
#define STREAMS_BATCH 1024

/* Whether the files of cgroup id are kept: ids (n_ids, sorted) are the managed cgroups and the
 * descendants they cover, the only ones ever classified. The map counts every cgroup of the node
 * (up to STREAMS_MAP_ENTRIES files), and the table would hold them all. */
static bool wanted(uint64_t id, const uint64_t *ids, size_t n_ids) {
        return n_ids > 0 && bsearch(&id, ids, n_ids, sizeof *ids, cmp_u64);
}

/* Reads the map in batches into s->next, keeping the files of the cgroups in ids and growing
 * the tables with them. Returns 0 and the count, -EOPNOTSUPP when the kernel has no batch
 * lookups for this map (or a bucket needs a bigger batch), or another negative errno. */
static int drain_batch(struct streams *s, int map_fd, const uint64_t *ids, size_t n_ids,
                       size_t *ret_n) {
        static struct streams_key keys[STREAMS_BATCH];
        static struct streams_val vals[STREAMS_BATCH];
        uint64_t token = 0;
        bool first = true;
        size_t n = 0, visited = 0;

        while (visited < STREAMS_MAP_ENTRIES) {
                __u32 count = (__u32) MIN((size_t) STREAMS_BATCH, STREAMS_MAP_ENTRIES - visited);
                if (streams_tables_reserve(s, n + count) < 0)
                        return -ENOMEM;
                int r = bpf_map_lookup_batch(map_fd, first ? NULL : &token, &token, keys, vals,
                                             &count, NULL);
                r = r < 0 ? negative_errno() : 0;
                visited += count;
                for (__u32 i = 0; i < count && n < s->cap; i++)
                        if (wanted(keys[i].cgroup_id, ids, n_ids))
                                s->next[n++] = (struct file_entry) { .key = keys[i], .val = vals[i] };
                if (r == -ENOENT)
                        break; /* the end of the map */
                if (r == -EINVAL || r == -ENOTSUP || r == -EOPNOTSUPP || r == -ENOSPC)
                        return first ? -EOPNOTSUPP : r;
                if (r < 0)
                        return r;
                first = false;
        }
        *ret_n = n;
        return 0;
}

/* Reads the map one key at a time (kernels without batch lookups) into s->next, keeping the files
 * of the cgroups in ids. Returns 0 and the count, or -ENOMEM. */
static int drain_by_key(struct streams *s, int map_fd, const uint64_t *ids, size_t n_ids,
                        size_t *ret_n) {
        struct streams_key key, prev;
        bool have_prev = false;
        size_t n = 0;

        for (size_t visited = 0; visited < STREAMS_MAP_ENTRIES &&
             bpf_map_get_next_key(map_fd, have_prev ? &prev : NULL, &key) == 0; visited++) {
                prev = key;
                have_prev = true;
                if (!wanted(key.cgroup_id, ids, n_ids))
                        continue;
                if (streams_tables_reserve(s, n + 1) < 0)
                        return -ENOMEM;
                struct file_entry *e = &s->next[n];
                *e = (struct file_entry) { .key = key };
                if (bpf_map_lookup_elem(map_fd, &key, &e->val) < 0)
                        continue; /* evicted meanwhile; the walk goes on from this key */
                n++;
        }
        *ret_n = n;
        return 0;
}
#endif

/* Reads the whole BPF map into the table (new_period: see table_swap_in()), keeping the files of
 * the cgroups the last cycle listed (s->ids, sorted: wanted()). Entries the LRU map evicted are
 * forgotten. Returns 0, or the errno of the map walk (without a map: 0, the table stays as
 * fed). */
int streams_drain(struct streams *s, bool new_period) {
#if HAVE_BPF
        if (!s->skel)
                return 0;
        int map_fd = bpf_map__fd(s->skel->maps.streams);
        size_t n = 0;
        int r = s->no_batch ? -EOPNOTSUPP : drain_batch(s, map_fd, s->ids, s->n_ids, &n);
        if (r == -EOPNOTSUPP) {
                s->no_batch = true;
                r = drain_by_key(s, map_fd, s->ids, s->n_ids, &n);
        }
        if (r < 0)
                return r;
        table_swap_in(s, n, new_period);
        /* Files come and go with their cgroups: give back what a busier cycle needed. */
        if (s->cap > 256 && n < s->cap / 4) {
                size_t cap = MAX(n * 2, (size_t) 256);
                struct file_entry *f = reallocarray(s->files, cap, sizeof *f);
                if (f) {
                        s->files = f;
                        struct file_entry *x = reallocarray(s->next, cap, sizeof *x);
                        if (x)
                                s->next = x;
                        s->cap = cap; /* next holds at least that many either way */
                }
        }
#else
        (void) new_period;
#endif
        return 0;
}

/* Decodes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape_octal(char *p) {
        char *w = p;
        for (; *p; p++) {
                if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
                    p[3] >= '0' && p[3] <= '7') {
                        *w++ = (char) ((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
                        p += 3;
                } else
                        *w++ = *p;
        }
        *w = 0;
}

/* Opens a mount of the filesystem on dev and checks that it is ext4 or xfs. Returns the fd, or a
 * negative errno (-EOPNOTSUPP for other filesystems, -ENOENT when not mounted). */
static int mount_open(const char *proc_root, dev_t dev, char *ret_what, size_t what_size) {
        char path[512], line[4096];
        snprintf(path, sizeof path, "%s/self/mountinfo", proc_root);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return negative_errno();
        snprintf(ret_what, what_size, "%u:%u", major(dev), minor(dev));
        while (fgets(line, sizeof line, f)) {
                unsigned maj, min;
                char root[1024], mnt[1024];
                if (sscanf(line, "%*u %*u %u:%u %1023s %1023s", &maj, &min, root, mnt) != 4 ||
                    makedev(maj, min) != dev)
                        continue;
                unescape_octal(mnt);
                snprintf(ret_what, what_size, "%s", mnt);
                _cleanup_close_ int fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                struct statfs sfs;
                if (fstatfs(fd, &sfs) < 0)
                        return negative_errno();
                if (sfs.f_type != EXT4_SUPER_MAGIC && sfs.f_type != XFS_SUPER_MAGIC)
                        return -EOPNOTSUPP;
                return TAKE_FD(fd);
        }
        return -ENOENT;
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

/* Closes the mount fds of this cycle (a refused device is tried again, quietly, next cycle). */
void streams_mounts_close(struct streams *s) {
        for (size_t i = 0; i < s->n_mounts; i++) {
                if (s->mounts[i].fd >= 0)
                        close(s->mounts[i].fd);
                s->mounts[i].fd = MOUNT_UNKNOWN;
        }
}

/* Opens the file by handle (inode + generation; needs CAP_DAC_READ_SEARCH) and resolves its path
 * into path. Returns the fd or a negative errno. */
static int open_by_handle(const struct streams_key *key, uint32_t generation, char *path,
                          size_t size, void *userdata) {
        struct streams *s = userdata;
        int mfd = mount_get(s, key->dev);
        if (mfd < 0)
                return mfd;
        struct {
                struct file_handle fh;
                uint32_t ino_gen[2];
        } h = { .fh = { .handle_bytes = sizeof(uint32_t) * 2, .handle_type = FILEID_INO32_GEN },
                .ino_gen = { (uint32_t) key->ino, generation } };
        if (key->ino > UINT32_MAX)
                return -EOVERFLOW;
        _cleanup_close_ int fd = open_by_handle_at(mfd, &h.fh, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
                return negative_errno(); /* ESTALE: deleted, or the inode was reused */
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode) || st.st_ino != key->ino)
                return -ESTALE;
        char link[64];
        snprintf(link, sizeof link, "%s/self/fd/%d", s->proc_root, fd);
        ssize_t n = readlink(link, path, size - 1);
        if (n > 0)
                path[n] = 0;
        return TAKE_FD(fd);
}

/* Opens the file of e with the opener (path gets its name, or "dev:ino" when it has none).
 * Returns the fd or a negative errno. */
static int file_open(struct streams *s, const struct file_entry *e, char *path, size_t size) {
        snprintf(path, size, "%u:%u inode %llu", e->key.dev >> 20, e->key.dev & 0xfffff,
                 (unsigned long long) e->key.ino);
        return s->open_file(&e->key, e->val.generation, path, size, s->open_userdata);
}

/* Tops the budget up for the time since the last call: STREAMS_MAX_FILES_PER_SEC files and
 * STREAMS_MAX_BYTES_PER_SEC bytes a second, up to STREAMS_BURST_FILES files and a second's
 * bytes. Full at first use (and if the clock went back). */
static void budget_refill(struct streams *s, uint64_t now) {
        const uint64_t files_max = (uint64_t) STREAMS_BURST_FILES * USEC_PER_SEC;
        if (!s->budget_usec || now < s->budget_usec) {
                s->budget_files = files_max;
                s->budget_bytes = STREAMS_MAX_BYTES_PER_SEC;
        } else {
                /* Capped first: a full bucket takes at most 2 s, and the product stays far
                 * from overflowing. */
                uint64_t dt = MIN(now - s->budget_usec, 2 * USEC_PER_SEC);
                s->budget_files = MIN(s->budget_files + dt * STREAMS_MAX_FILES_PER_SEC, files_max);
                s->budget_bytes = MIN(s->budget_bytes + dt * STREAMS_MAX_BYTES_PER_SEC / USEC_PER_SEC,
                                      STREAMS_MAX_BYTES_PER_SEC);
        }
        s->budget_usec = now;
}

/* Takes a drop of the range a from the budget (files and bytes, see budget_refill()) and the
 * files pending in the actuation path. A range beyond the bytes left is cut to them (the rest
 * waits: dropped_to says where it stopped). Returns false when nothing fits. */
static bool budget_take(struct streams *s, struct drop_run *run, struct stream_action *a,
                        uint64_t page_size) {
        budget_refill(s, run->in->now_usec);
        uint64_t left_pages = s->budget_bytes / page_size;
        if (s->budget_files < USEC_PER_SEC || left_pages == 0 ||
            run->pending_files >= STREAMS_MAX_FILES_PENDING)
                return false;
        if (a->drop_end - a->drop_start > left_pages) {
                a->drop_end = a->drop_start + left_pages;
                run->held = true;
        }
        s->budget_files -= USEC_PER_SEC;
        s->budget_bytes -= (a->drop_end - a->drop_start) * page_size;
        run->pending_files++;
        return true;
}

/* Returns the index of the first file of cgroup id in the table (sorted by key, cgroup id
 * first), and its number of files in *ret_n. */
static size_t files_of_cgroup(const struct streams *s, uint64_t id, size_t *ret_n) {
        size_t lo = 0, hi = s->n_files;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (s->files[mid].key.cgroup_id < id)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        size_t end = lo;
        while (end < s->n_files && s->files[end].key.cgroup_id == id)
                end++;
        *ret_n = end - lo;
        return lo;
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

/* Classifies the files of one cgroup and hands its drops to the actuation path as one job,
 * within the bounds (run->held says one held some back). Returns 0 or -ENOMEM. */
int streams_cgroup(struct streams *s, struct cgroup *cg, enum act_mode mode,
                   struct drop_run *run) {
        uint64_t page_size = run->in->caps->page_size;
        struct stream_cgroup scg = { .page_size = page_size, .limit_bytes = UINT64_MAX };
        struct actuator_job *job = NULL;
        int r = 0;

        if (s->n_files == 0)
                return 0;
        /* Its files in the table's order: the ids of cg and of the descendants it covers,
         * ascending, each a run of the table (sorted by cgroup id first). A cycle costs a
         * lookup per cgroup, not a pass over the table. */
        uint64_t own = cg->id, *ids = &own;
        _cleanup_free_ uint64_t *sorted = NULL;
        size_t n_ids = 1, n_files = 0;
        if (cg->n_covered > 0) {
                sorted = reallocarray(NULL, cg->n_covered + 1, sizeof *sorted);
                if (!sorted)
                        return -ENOMEM;
                sorted[0] = cg->id;
                memcpy(sorted + 1, cg->covered_ids, cg->n_covered * sizeof *sorted);
                qsort(sorted, cg->n_covered + 1, sizeof *sorted, cmp_u64);
                n_ids = 0;
                for (size_t i = 0; i <= cg->n_covered; i++)
                        if (n_ids == 0 || sorted[i] != sorted[n_ids - 1])
                                sorted[n_ids++] = sorted[i];
                ids = sorted;
        }
        for (size_t i = 0; i < n_ids; i++) {
                size_t k;
                files_of_cgroup(s, ids[i], &k);
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
        uint64_t window_usec = 0, now = run->in->now_usec;
        if (run->fast && s->prev_drain_usec && s->drain_usec > s->prev_drain_usec)
                window_usec = MAX(now - MIN(now, s->drain_usec - s->prev_drain_usec), UINT64_C(1));

        /* The fast path's drops of files that did not cross themselves (small files read
         * before the cgroup's inflow reached the threshold) count from the earliest crossing
         * it was told about. */
        uint64_t trigger_usec = 0;
        for (size_t i = 0; i < n_ids; i++) {
                size_t k, first = files_of_cgroup(s, ids[i], &k);
                for (size_t j = first; j < first + k; j++) {
                        const struct file_entry *e = &s->files[j];
                        struct stream_file f = entry_to_file(e, page_size, run->fast, window_usec);
                        scg.small_inflow_bytes += stream_small_inflow(&f, page_size);
                        if (run->fast && e->pending_usec &&
                            (!trigger_usec || e->pending_usec < trigger_usec))
                                trigger_usec = e->pending_usec;
                }
        }
        bool stop = false;
        for (size_t i = 0; i < n_ids && !stop; i++) {
                size_t k, first = files_of_cgroup(s, ids[i], &k);
                for (size_t j = first; j < first + k && !stop; j++) {
                        struct file_entry *e = &s->files[j];
                        struct stream_action a;
                        struct stream_file f = entry_to_file(e, page_size, run->fast, window_usec);
                        if (stream_classify(&f, &scg, &a) < 0)
                                continue;
                        log_verdict(s, cg, e, &f, a.verdict, page_size);
                        if (a.drop_end <= a.drop_start) {
                                e->pending_usec = 0; /* a crossing with nothing to drop */
                                continue;
                        }
                        if (!budget_take(s, run, &a, page_size)) {
                                run->held = true; /* the rest waits for a retry or the cycle */
                                stop = true;
                                break;
                        }
                        uint64_t crossed = e->pending_usec ?: trigger_usec;
                        e->pending_usec = 0;
                        r = add_drop(s, cg, e, &a, mode, page_size, crossed, &job);
                        if (r == -ENOMEM) {
                                stop = true;
                                break;
                        }
                        r = 0;
                }
        }
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

int streams_cycle(struct streams *s, const struct cycle_input *in, struct cgroup *const *cgroups,
                  size_t n_cgroups, struct actuator *act) {
        int r;

        if (!s)
                return 0;
        /* The ids whose files matter: every managed cgroup (paused ones too: their files keep
         * their history) and the descendants each covers, sorted. */
        size_t n_ids = 0, cap = n_cgroups;
        for (size_t i = 0; i < n_cgroups; i++)
                cap += cgroups[i]->n_covered;
        if (cap > s->ids_cap) {
                uint64_t *ids = reallocarray(s->ids, cap, sizeof *ids);
                if (!ids)
                        return -ENOMEM;
                s->ids = ids;
                s->ids_cap = cap;
        }
        uint64_t *ids = s->ids;
        for (size_t i = 0; i < n_cgroups; i++) {
                ids[n_ids++] = cgroups[i]->id;
                for (size_t k = 0; k < cgroups[i]->n_covered; k++)
                        ids[n_ids++] = cgroups[i]->covered_ids[k];
        }
        if (n_ids > 1)
                qsort(ids, n_ids, sizeof *ids, cmp_u64);
        s->n_ids = n_ids;
        r = streams_drain(s, true);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_warning_errno(r, "Stream protection: cannot read the BPF map: %m");
                return 0;
        }
        s->prev_drain_usec = s->drain_usec;
        s->drain_usec = in->now_usec;
        struct drop_run run = { .in = in, .act = act,
                                .pending_files = actuator_pending_drop_files(act) };
        s->n_retry = 0;
        for (size_t i = 0; i < n_cgroups; i++) {
                struct cgroup *cg = cgroups[i];
                enum act_mode mode;
                if (!streams_cgroup_protected(cg, in, &mode))
                        continue;
                run.held = false;
                r = streams_cgroup(s, cg, mode, &run);
                if (r == 0 && run.held && s->fast_path)
                        r = streams_retry_add(s, cg->id);
                if (r < 0)
                        break;
        }
        streams_mounts_close(s);
        streams_watch_update(s, in, cgroups, n_cgroups);
        return r < 0 ? r : 0;
}

int streams_refault_pages(const struct streams *s, uint64_t cgroup_id, uint64_t *ret_pages) {
#if HAVE_BPF
        struct refaults_val v;
        __u64 key = cgroup_id;

        if (!s || !s->skel)
                return -EOPNOTSUPP;
        if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.refaults), &key, &v) < 0) {
                int r = negative_errno();
                if (r != -ENOENT)
                        return r;
                v.pages = 0; /* nothing counted yet (or the entry was recycled) */
        }
        *ret_pages = v.pages;
        return 0;
#else
        return -EOPNOTSUPP;
#endif
}
