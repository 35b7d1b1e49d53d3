/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream-protection.c: one-shot stream protection: the BPF program's lifecycle
 * (bpf/page-cache-inserts.bpf.c) and the cycle: the map read into the file table
 * (stream-table.c), each protected cgroup's files classified and dropped (stream-drops.c),
 * then the fast path's watch list (stream-fast.c). */
#include "mglrud/core/stream-protection.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/time.h"

#if HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/page-cache-inserts.skel.h"
#endif
#include "stream-protection-internal.h"

int streams_new(const char *proc_root, struct streams **ret) {
        _cleanup_free_ struct streams *s = calloc(1, sizeof *s);

        if (!s)
                return -ENOMEM;
        s->proc_root = strdup(proc_root);
        if (!s->proc_root)
                return -ENOMEM;
        s->open_file = streams_open_by_handle;
        s->open_userdata = s;
        s->fast_path = true;
        s->budget_files = (struct token_bucket) {
                .rate_per_sec = (uint64_t) STREAMS_MAX_FILES_PER_SEC * USEC_PER_SEC,
                .burst = (uint64_t) STREAMS_BURST_FILES * USEC_PER_SEC,
        };
        s->budget_bytes = (struct token_bucket) {
                .rate_per_sec = STREAMS_MAX_BYTES_PER_SEC,
                .burst = STREAMS_MAX_BYTES_PER_SEC,
        };
        int r = stream_events_new(-1, -1, &s->events);
        if (r >= 0 && (r = stream_events_new(-1, -1, &s->track)) < 0)
                stream_events_free(s->events);
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
        if (r == 0) {
                stream_events_free(s->track);
                s->track = NULL;
                r = stream_events_new(-1, bpf_map__fd(s->skel->maps.streams_track), &s->track);
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
        stream_events_free(s->track);
        free(s->retry_ids);
        free(s->ids);
        free(s->mounts);
        free(s->files);
        free(s->next);
        free(s->proc_root);
        free(s);
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
                qsort(ids, n_ids, sizeof *ids, u64_cmp);
        s->n_ids = n_ids;
        streams_track_update(s, in, cgroups, n_cgroups);
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

int streams_refaults_map_fd(const struct streams *s) {
#if HAVE_BPF
        if (s && s->skel)
                return bpf_map__fd(s->skel->maps.refaults);
#else
        (void) s;
#endif
        return -EOPNOTSUPP;
}
