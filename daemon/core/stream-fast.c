/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream-fast.c: stream protection's fast path (docs/design.md, "One-shot stream protection"):
 * between cycles, the files the BPF program reports crossing a stream threshold get their new
 * counters in the table and their cgroups' files are classified and dropped at once, within the
 * bounds the cycle keeps too; the watched cgroups; the latency of the drops. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "mglrud/core/actuator.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "stream-protection-internal.h"

#if HAVE_BPF
#include <bpf/libbpf.h>

#include "bpf/page-cache-inserts.skel.h"
#endif

/* The fast path's bounds agree with the classifier's. */
_Static_assert(STREAMS_EVENT_SEQ_NUM == STREAM_SEQ_NUM && STREAMS_EVENT_SEQ_DEN == STREAM_SEQ_DEN &&
               STREAMS_EVENT_BACK_DEN == STREAM_BACK_DEN,
               "page-cache-inserts.h and stream-classify.h disagree on a stream");

int streams_feed_events(struct streams *s, const struct streams_key *keys,
                        const struct streams_val *vals, size_t n) {
        for (size_t i = 0; i < n; i++) {
                struct streams_event e = { .key = keys[i], .val = vals[i] };
                int r = stream_events_add(s->events, &e, 1);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Adds id to the sorted retry list (the fast path runs its cgroup again soon). */
int streams_retry_add(struct streams *s, uint64_t id) {
        uint64_t *n = reallocarray(s->retry_ids, s->n_retry + 1, sizeof *n);
        if (!n)
                return -ENOMEM;
        s->retry_ids = n;
        size_t i = s->n_retry;
        while (i > 0 && n[i - 1] > id) {
                n[i] = n[i - 1];
                i--;
        }
        n[i] = id;
        s->n_retry++;
        return 0;
}

/* Whether the fast path acts on cg's crossings. */
static bool cgroup_watched(const struct cgroup *cg, const struct cycle_input *in) {
        enum act_mode mode;
        return streams_cgroup_protected(cg, in, &mode);
}

/* Whether the insertions into cg's files are counted (streams_track_update()). */
static bool cgroup_tracked(const struct cgroup *cg, const struct cycle_input *in) {
        const struct policy *p = cg->policy;
        return in->refault_check || in->refault_guard ||
               (p->mode != POLICY_MODE_OFF && p->stream_protection != STREAM_PROTECTION_NO);
}

/* Puts the ids of the cgroups among the n that want() takes, and of the descendants they cover,
 * into the id set (a BPF map) of set; what names the set for the log. A failure is logged once
 * (*failed). */
static void ids_update(struct stream_events *set, bool *failed, const char *what,
                       bool (*want)(const struct cgroup *, const struct cycle_input *),
                       const struct cycle_input *in, struct cgroup *const *cgroups,
                       size_t n_cgroups) {
        _cleanup_free_ uint64_t *ids = NULL;
        size_t n = 0, cap = 0;
        int r = 0;

        for (size_t i = 0; i < n_cgroups && want; i++)
                if (want(cgroups[i], in))
                        cap += 1 + cgroups[i]->n_covered;
        if (cap > 0 && !(ids = reallocarray(NULL, cap, sizeof *ids)))
                r = -ENOMEM;
        for (size_t i = 0; i < n_cgroups && ids; i++) {
                const struct cgroup *cg = cgroups[i];
                if (!want(cg, in))
                        continue;
                ids[n++] = cg->id;
                for (size_t k = 0; k < cg->n_covered; k++)
                        ids[n++] = cg->covered_ids[k];
        }
        if (r >= 0)
                r = stream_events_watch(set, ids, n);
        if (r < 0 && !*failed)
                log_warning_errno(r, "Stream protection: cannot update the %s: %m", what);
        *failed = r < 0;
}

void streams_watch_update(struct streams *s, const struct cycle_input *in,
                          struct cgroup *const *cgroups, size_t n_cgroups) {
        ids_update(s->events, &s->watch_failed,
                   "watched cgroups, the fast path misses some (the cycle still acts)",
                   s->fast_path ? cgroup_watched : NULL, in, cgroups, n_cgroups);
}

void streams_track_update(struct streams *s, const struct cycle_input *in,
                          struct cgroup *const *cgroups, size_t n_cgroups) {
        ids_update(s->track, &s->track_failed,
                   "cgroups whose page-cache insertions are counted", cgroup_tracked, in,
                   cgroups, n_cgroups);
}

/* Applies the crossing to e: the newer counters, and when it waits for action since. */
static void apply_crossing(struct file_entry *e, const struct stream_crossing *c) {
        if (c->val.last_ns >= e->val.last_ns)
                e->val = c->val;
        if (!e->pending_usec)
                e->pending_usec = c->first_usec;
}

/* Returns the table's entry of key, or NULL. */
static struct file_entry *table_find(const struct streams *s, const struct streams_key *key) {
        return s->n_files > 0 ? bsearch(key, s->files, s->n_files, sizeof *s->files, streams_key_cmp)
                              : NULL;
}

/* Applies the crossings c[0..n) (sorted by key) marked in take to the table: its files get the
 * newer counters, new files are added while there is room (the next cycle's drain finds the
 * others). Returns 0 or -ENOMEM. */
static int table_apply(struct streams *s, const struct stream_crossing *c, size_t n,
                       const bool *take) {
        size_t n_new = 0;

        for (size_t k = 0; k < n; k++)
                n_new += take[k] && !table_find(s, &c[k].key);
        if (n_new > 0 && s->n_files + n_new > STREAMS_TABLE_MAX) {
                /* The table keeps files the LRU map has forgotten since the last drain: read
                 * the map again, within this period. */
                int r = streams_drain(s, false);
                if (r == -ENOMEM)
                        return r;
                n_new = 0;
                for (size_t k = 0; k < n; k++)
                        n_new += take[k] && !table_find(s, &c[k].key);
        }
        if (n_new == 0) {
                for (size_t k = 0; k < n; k++) {
                        struct file_entry *e = take[k] ? table_find(s, &c[k].key) : NULL;
                        if (e)
                                apply_crossing(e, &c[k]);
                }
                return 0;
        }
        int r = streams_tables_reserve(s, MIN(s->n_files + n_new, (size_t) STREAMS_TABLE_MAX));
        if (r < 0)
                return r;
        /* Both sorted: one merge into the spare table. */
        size_t i = 0, m = 0;
        for (size_t k = 0; i < s->n_files || k < n;) {
                if (k < n && !take[k]) {
                        k++;
                        continue;
                }
                int cmp = i == s->n_files ? 1 : k == n ? -1 : streams_key_cmp(&s->files[i].key, &c[k].key);
                if (cmp < 0) {
                        s->next[m++] = s->files[i++];
                        continue;
                }
                struct file_entry e;
                if (cmp == 0)
                        e = s->files[i++];
                else if (m + (s->n_files - i) < s->cap)
                        e = (struct file_entry) { .key = c[k].key, .verdict = STREAM_UNSURE };
                else {
                        k++; /* no room */
                        continue;
                }
                apply_crossing(&e, &c[k++]);
                s->next[m++] = e;
        }
        struct file_entry *t = s->files;
        s->files = s->next;
        s->next = t;
        s->n_files = m;
        return 0;
}

/* Returns the first crossing of cgroup id in c[0..n) (sorted by key, cgroup id first), and
 * their number in *ret_n. */
static size_t crossings_of_cgroup(const struct stream_crossing *c, size_t n, uint64_t id,
                                  size_t *ret_n) {
        size_t lo = 0, hi = n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (c[mid].key.cgroup_id < id)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        size_t end = lo;
        while (end < n && c[end].key.cgroup_id == id)
                end++;
        *ret_n = end - lo;
        return lo;
}

/* Marks in take the crossings of cg (its id and the descendants it covers). Returns whether
 * there are any. */
static bool take_crossings(const struct cgroup *cg, const struct stream_crossing *c, size_t n,
                           bool *take) {
        bool any = false;
        for (size_t i = 0; i <= cg->n_covered; i++) {
                size_t k, first = crossings_of_cgroup(c, n, i == 0 ? cg->id : cg->covered_ids[i - 1], &k);
                for (size_t j = first; j < first + k; j++)
                        take[j] = any = true;
        }
        return any;
}

int streams_fast(struct streams *s, const struct cycle_input *in, struct cgroup *const *cgroups,
                 size_t n_cgroups, struct actuator *act) {
        struct stream_crossing *c;
        int r = 0;

        if (!s || !s->fast_path)
                return 0;
        int more = stream_events_consume(s->events);
        if (more < 0) {
                log_debug_errno(more, "Stream protection: reading the ring buffer failed: %m");
                more = 0;
        }
        size_t n = stream_events_batch(s->events, &c);
        s->stats.fast_runs++;
        s->stats.crossings += n;
        if (n == 0 && s->n_retry == 0)
                return more;

        /* The protected cgroups with crossings or drops held back: crossings of others (no
         * longer watched, paused meanwhile) are left out. */
        _cleanup_free_ bool *take = calloc(MAX(n, (size_t) 1), sizeof *take);
        _cleanup_free_ struct cgroup **dirty = reallocarray(NULL, MAX(n_cgroups, (size_t) 1),
                                                            sizeof *dirty);
        if (!take || !dirty)
                return -ENOMEM;
        size_t n_dirty = 0;
        for (size_t i = 0; i < n_cgroups; i++) {
                enum act_mode mode;
                if (!streams_cgroup_protected(cgroups[i], in, &mode))
                        continue;
                bool retry = s->n_retry > 0 && bsearch(&cgroups[i]->id, s->retry_ids, s->n_retry,
                                                       sizeof *s->retry_ids, u64_cmp);
                if (take_crossings(cgroups[i], c, n, take) || retry)
                        dirty[n_dirty++] = cgroups[i];
        }
        r = table_apply(s, c, n, take);
        stream_events_clear(s->events);
        s->n_retry = 0;
        if (r < 0)
                return r;

        struct drop_run run = { .in = in, .act = act, .fast = true,
                                .pending_files = actuator_pending_drop_files(act) };
        for (size_t i = 0; i < n_dirty && r >= 0; i++) {
                struct cgroup *cg = dirty[i];
                enum act_mode mode;
                (void) streams_cgroup_protected(cg, in, &mode);
                run.held = actuator_pending(act) >= ACTUATOR_MAX_QUEUED;
                if (!run.held)
                        r = streams_cgroup(s, cg, mode, &run);
                if (r == 0 && run.held)
                        r = streams_retry_add(s, cg->id);
        }
        streams_mounts_close(s);
        if (r < 0)
                return r;
        return more || s->n_retry > 0;
}

void streams_set_fast_path(struct streams *s, bool on) {
        if (!s)
                return;
        s->fast_path = on;
        if (!on) {
                (void) stream_events_watch(s->events, NULL, 0);
                stream_events_clear(s->events);
                s->n_retry = 0;
        }
}

int streams_event_fd(const struct streams *s) {
        return s && s->fast_path ? stream_events_fd(s->events) : -1;
}

const uint64_t streams_latency_bounds_usec[STREAMS_LATENCY_BUCKETS] = {
        10000, 25000, 50000, 100000, 250000, 500000, 1000000, 2500000, 5000000, 10000000,
};

void streams_job_done(struct streams *s, const struct actuator_job *j) {
        if (!s || actuator_job_kind(j) != ACTUATOR_JOB_DROP)
                return;
        uint64_t finished = actuator_job_result_const(j)->finished_usec;
        for (size_t i = 0; i < actuator_job_n_drops(j); i++) {
                const struct actuator_drop *d = actuator_job_drop(j, i);
                if (d->error < 0 || !d->crossed_usec || finished < d->crossed_usec)
                        continue;
                uint64_t lat = finished - d->crossed_usec;
                size_t b = 0;
                while (b < STREAMS_LATENCY_BUCKETS && lat > streams_latency_bounds_usec[b])
                        b++;
                if (b < STREAMS_LATENCY_BUCKETS)
                        s->stats.latency_buckets[b]++;
                s->stats.latency_count++;
                s->stats.latency_sum_usec += lat;
                s->stats.latency_max_usec = MAX(s->stats.latency_max_usec, lat);
        }
}

struct streams_stats streams_get_stats(const struct streams *s) {
        if (!s)
                return (struct streams_stats) {};
        struct streams_stats st = s->stats;
        st.fast_path = s->fast_path;
        st.watched = stream_events_n_watched(s->events);
        st.tracked = stream_events_n_watched(s->track);
#if HAVE_BPF
        if (s->skel && s->skel->bss)
                st.lost = s->skel->bss->events_lost;
        st.counting = s->skel != NULL;
#endif
        return st;
}
