/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream-events.c: the fast path's batch of threshold crossings and the watched cgroup ids
 * (stream-events.h). */
#include "stream-events.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "mglrud/shared/macro.h"

#if HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#endif

struct stream_events {
#if HAVE_BPF
        struct ring_buffer *ring;       /* NULL without BPF */
#endif
        int watch_fd;                   /* the watch map, or -1 */
        struct stream_crossing *batch;  /* grows to STREAM_EVENTS_BATCH */
        size_t n, cap;
        uint64_t *watched;              /* sorted, the ids in the watch map */
        size_t n_watched;
};

#if HAVE_BPF
static int on_record(void *ctx, void *data, size_t size);
#endif

int stream_events_new(int ring_fd, int watch_fd, struct stream_events **ret) {
        _cleanup_free_ struct stream_events *ev = calloc(1, sizeof *ev);

        if (!ev)
                return -ENOMEM;
        ev->watch_fd = watch_fd;
#if HAVE_BPF
        if (ring_fd >= 0) {
                ev->ring = ring_buffer__new(ring_fd, on_record, ev, NULL);
                if (!ev->ring)
                        return negative_errno();
        }
#else
        (void) ring_fd;
#endif
        *ret = TAKE_PTR(ev);
        return 0;
}

void stream_events_free(struct stream_events *ev) {
        if (!ev)
                return;
#if HAVE_BPF
        ring_buffer__free(ev->ring);
#endif
        free(ev->batch);
        free(ev->watched);
        free(ev);
}

int stream_events_fd(const struct stream_events *ev) {
#if HAVE_BPF
        if (ev && ev->ring)
                return ring_buffer__epoll_fd(ev->ring);
#endif
        return -1;
}

/* Appends one record. Returns 0, -ENOSPC when the batch is full, or -ENOMEM. */
static int add_one(struct stream_events *ev, const struct streams_event *e) {
        if (ev->n == ev->cap) {
                if (ev->cap == STREAM_EVENTS_BATCH)
                        return -ENOSPC;
                size_t cap = MIN(MAX(ev->cap * 2, (size_t) 64), (size_t) STREAM_EVENTS_BATCH);
                struct stream_crossing *b = reallocarray(ev->batch, cap, sizeof *b);
                if (!b)
                        return -ENOMEM;
                ev->batch = b;
                ev->cap = cap;
        }
        ev->batch[ev->n++] = (struct stream_crossing) {
                .key = e->key,
                .val = e->val,
                .first_usec = e->val.last_ns / 1000,
        };
        return 0;
}

int stream_events_add(struct stream_events *ev, const struct streams_event *e, size_t n) {
        for (size_t i = 0; i < n; i++) {
                int r = add_one(ev, &e[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

#if HAVE_BPF
static int on_record(void *ctx, void *data, size_t size) {
        struct streams_event e = {};

        memcpy(&e, data, MIN(size, sizeof e));
        int r = add_one(ctx, &e);
        /* Negative stops the consumption; the record that says so was taken (libbpf advances
         * past it first), so a full batch stops after the record that filled it. */
        if (r == 0 && ((struct stream_events *) ctx)->n == STREAM_EVENTS_BATCH)
                return -ENOSPC;
        return r;
}
#endif

int stream_events_consume(struct stream_events *ev) {
#if HAVE_BPF
        if (!ev->ring)
                return 0;
        if (ev->n == STREAM_EVENTS_BATCH)
                return 1;
        int r = ring_buffer__consume(ev->ring);
        if (r == -ENOSPC)
                return 1;
        return r < 0 ? r : 0;
#else
        (void) ev;
        return 0;
#endif
}

static int crossing_cmp(const void *a, const void *b) {
        const struct stream_crossing *x = a, *y = b;
        if (x->key.cgroup_id != y->key.cgroup_id)
                return x->key.cgroup_id < y->key.cgroup_id ? -1 : 1;
        if (x->key.dev != y->key.dev)
                return x->key.dev < y->key.dev ? -1 : 1;
        if (x->key.ino != y->key.ino)
                return x->key.ino < y->key.ino ? -1 : 1;
        /* the same file: oldest first */
        return x->val.last_ns < y->val.last_ns ? -1 : x->val.last_ns > y->val.last_ns;
}

size_t stream_events_batch(struct stream_events *ev, struct stream_crossing **ret) {
        size_t n = 0;

        if (ev->n > 1)
                qsort(ev->batch, ev->n, sizeof *ev->batch, crossing_cmp);
        for (size_t i = 0; i < ev->n; i++) {
                struct stream_crossing *c = &ev->batch[i];
                struct stream_crossing *last = n > 0 ? &ev->batch[n - 1] : NULL;
                if (last && last->key.cgroup_id == c->key.cgroup_id &&
                    last->key.dev == c->key.dev && last->key.ino == c->key.ino) {
                        /* The later record has the newer counters; the earlier crossing stays. */
                        uint64_t first = last->first_usec;
                        *last = *c;
                        last->first_usec = MIN(first, c->first_usec);
                        continue;
                }
                ev->batch[n++] = *c;
        }
        ev->n = n;
        *ret = ev->batch;
        return n;
}

void stream_events_clear(struct stream_events *ev) {
        ev->n = 0;
}

/* Adds (on) or removes one id in the watch map. Returns 0 or a negative errno. */
static int watch_update(struct stream_events *ev, uint64_t id, bool on) {
#if HAVE_BPF
        if (ev->watch_fd < 0)
                return 0;
        __u8 one = 1;
        int r = on ? bpf_map_update_elem(ev->watch_fd, &id, &one, BPF_ANY)
                   : bpf_map_delete_elem(ev->watch_fd, &id);
        if (r < 0 && !(r == -ENOENT && !on))
                return negative_errno();
#else
        (void) ev;
        (void) id;
        (void) on;
#endif
        return 0;
}

int stream_events_watch(struct stream_events *ev, const uint64_t *ids, size_t n) {
        _cleanup_free_ uint64_t *want = NULL;
        size_t n_want = 0;
        int r = 0;

        n = MIN(n, (size_t) STREAMS_WATCH_ENTRIES);
        if (n > 0) {
                want = reallocarray(NULL, n, sizeof *want);
                if (!want)
                        return -ENOMEM;
                memcpy(want, ids, n * sizeof *want);
                qsort(want, n, sizeof *want, u64_cmp);
                for (size_t i = 0; i < n; i++)
                        if (n_want == 0 || want[i] != want[n_want - 1])
                                want[n_want++] = want[i];
        }
        /* Both sorted: one pass adds the new ids and removes the gone ones. */
        size_t i = 0, j = 0;
        while ((i < ev->n_watched || j < n_want) && r >= 0) {
                if (j == n_want || (i < ev->n_watched && ev->watched[i] < want[j]))
                        r = watch_update(ev, ev->watched[i++], false);
                else if (i == ev->n_watched || want[j] < ev->watched[i])
                        r = watch_update(ev, want[j++], true);
                else
                        i++, j++;
        }
        if (r < 0) {
                /* Some updates are done: the map holds at most the old ids and the wanted
                 * ones. Keeping their union as what is watched makes the next call remove
                 * whatever is not wanted then (removing an absent id is harmless). */
                _cleanup_free_ uint64_t *both = reallocarray(NULL, ev->n_watched + n_want + 1,
                                                             sizeof *both);
                if (!both)
                        return -ENOMEM;
                size_t k = 0;
                for (i = 0, j = 0; i < ev->n_watched || j < n_want;) {
                        uint64_t v = j == n_want || (i < ev->n_watched && ev->watched[i] <= want[j])
                                             ? ev->watched[i++]
                                             : want[j++];
                        if (k == 0 || both[k - 1] != v)
                                both[k++] = v;
                }
                free(ev->watched);
                ev->watched = TAKE_PTR(both);
                ev->n_watched = k;
                return r;
        }
        free(ev->watched);
        ev->watched = TAKE_PTR(want);
        ev->n_watched = n_want;
        return 0;
}

size_t stream_events_n_watched(const struct stream_events *ev) {
        return ev ? ev->n_watched : 0;
}
