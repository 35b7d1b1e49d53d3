/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream-table.c: stream protection's table of files, sorted by (cgroup, device, inode): the
 * BPF map read into it once a cycle (and by the fast path between cycles), the state of each
 * file carried from one read to the next. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "mglrud/shared/macro.h"

#if HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/page-cache-inserts.skel.h"
#endif
#include "stream-protection-internal.h"

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
        return n_ids > 0 && bsearch(&id, ids, n_ids, sizeof *ids, u64_cmp);
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
        s->stats.map_files = visited;
        *ret_n = n;
        return 0;
}

/* Reads the map one key at a time (kernels without batch lookups) into s->next, keeping the files
 * of the cgroups in ids. Returns 0 and the count, or -ENOMEM. */
static int drain_by_key(struct streams *s, int map_fd, const uint64_t *ids, size_t n_ids,
                        size_t *ret_n) {
        struct streams_key key, prev;
        bool have_prev = false;
        size_t n = 0, visited;

        for (visited = 0; visited < STREAMS_MAP_ENTRIES &&
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
        s->stats.map_files = visited;
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

/* Returns the index of the first file of cgroup id in the table (sorted by key, cgroup id
 * first), and its number of files in *ret_n. */
size_t streams_files_of_cgroup(const struct streams *s, uint64_t id, size_t *ret_n) {
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

