// SPDX-License-Identifier: GPL-2.0-or-later
/* page-cache-inserts.bpf.c: per-file page-cache insertion counters for one-shot stream detection,
 * and the daemon's own refault count (page-cache-refaults.h). Attached to the tp_btf
 * filemap/mm_filemap_add_to_page_cache, mm_filemap_delete_from_page_cache and
 * writeback/writeback_dirty_folio (struct folio * since 5.18); CO-RE relocations make the same
 * object load on 6.1 through 7.x. */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "page-cache-inserts.h"
#include "page-cache-refaults.h"

char LICENSE[] SEC("license") = "GPL";

struct {
        __uint(type, BPF_MAP_TYPE_LRU_HASH);
        __uint(max_entries, STREAMS_MAP_ENTRIES);
        __type(key, struct streams_key);
        __type(value, struct streams_val);
} streams SEC(".maps");

/* Threshold crossings of files in watched cgroups, for the daemon's fast path. */
struct {
        __uint(type, BPF_MAP_TYPE_RINGBUF);
        __uint(max_entries, STREAMS_RING_BYTES);
} stream_events SEC(".maps");

/* The cgroup ids whose crossings are sent (the daemon keeps it to the cgroups with stream
 * protection on and the descendants they cover; empty: no events). */
struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, STREAMS_WATCH_ENTRIES);
        __uint(map_flags, BPF_F_NO_PREALLOC);
        __type(key, __u64);
        __type(value, __u8);
} stream_watch SEC(".maps");

/* The cgroup ids whose insertions are counted: the managed cgroups with stream protection on,
 * every managed one while the own refault count is wanted, and the descendants they cover (the
 * daemon keeps it each cycle). Insertions elsewhere are not recorded, so that files of cgroups
 * mglrud does not manage cannot fill the streams map and push the managed ones' out. Empty:
 * nothing is counted. */
struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, STREAMS_TRACK_ENTRIES);
        __uint(map_flags, BPF_F_NO_PREALLOC);
        __type(key, __u64);
        __type(value, __u8);
} streams_track SEC(".maps");

/* log2 of the page size, set by the daemon before loading (the counters count pages). */
const volatile __u32 page_shift = 12;
/* Crossings that did not fit in the ring buffer (the daemon's cycle still sees those files). */
__u64 events_lost = 0;

/* Own refault counts per cgroup (page-cache-refaults.h). */
struct {
        __uint(type, BPF_MAP_TYPE_LRU_HASH);
        __uint(max_entries, REFAULTS_MAP_ENTRIES);
        __type(key, __u64); /* cgroup id */
        __type(value, struct refaults_val);
} refaults SEC(".maps");

/* memcg_data's low bits are flags (MEMCG_DATA_OBJEXTS, MEMCG_DATA_KMEM). */
#define MEMCG_DATA_FLAGS_MASK 7UL

/* Returns memcg's cgroup id if memcg is a memory cgroup, else 0: its cgroup's memory
 * subsystem state points back at it. */
static __always_inline __u64 memcg_cgroup_id(struct mem_cgroup *memcg) {
        struct cgroup *cgrp = BPF_CORE_READ(memcg, css.cgroup);
        int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
        struct cgroup_subsys_state *css = NULL;

        if (!cgrp || id < 0 || id >= CGROUP_SUBSYS_COUNT)
                return 0;
        bpf_probe_read_kernel(&css, sizeof css, &cgrp->subsys[id]);
        if (css != &memcg->css)
                return 0;
        return BPF_CORE_READ(cgrp, kn, id);
}

/* The folio's memory cgroup. memcg_data points at the mem_cgroup up to 6.x, at an obj_cgroup
 * (which the kernel reparents when the cgroup dies) since page-cache folios are charged through
 * objcg (7.3 does): reading it as a mem_cgroup there yields no cgroup, and an eviction (in the
 * daemon's task) would be counted against the daemon's cgroup instead of the folio's. Both
 * readings are checked, so one object serves both kernels; without either, the current task's
 * cgroup (an insertion is charged to its reader). */
static __always_inline __u64 folio_cgroup_id(struct folio *folio) {
        unsigned long memcg_data = BPF_CORE_READ(folio, memcg_data) & ~MEMCG_DATA_FLAGS_MASK;
        __u64 id = 0;

        if (memcg_data) {
                id = memcg_cgroup_id((struct mem_cgroup *) memcg_data);
                if (!id)
                        id = memcg_cgroup_id(BPF_CORE_READ((struct obj_cgroup *) memcg_data, memcg));
        }
        return id ? id : bpf_get_current_cgroup_id();
}

/* Before 6.6 the order had a field of its own in the first tail page. */
struct folio___old {
        unsigned char _folio_order;
} __attribute__((preserve_access_index));

static __always_inline __u64 folio_nr(struct folio *folio) {
        unsigned long flags = 0, flags1 = 0;

        /* flags is an unsigned long (6.1) or memdesc_flags_t wrapping one (7.x). */
        bpf_probe_read_kernel(&flags, sizeof flags, &folio->flags);
        if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
                return 1;
        if (bpf_core_field_exists(((struct folio___old *) folio)->_folio_order))
                return 1UL << BPF_CORE_READ((struct folio___old *) folio, _folio_order);
        /* Since 6.6 a large folio keeps its order in the low byte of the second page's flags. */
        flags1 = BPF_CORE_READ(folio, _flags_1);
        return 1UL << (flags1 & 0xff);
}

/* Returns whether the insertion that moved the counters from old_pages and old_next to *v made
 * the file cross a stream threshold (page-cache-inserts.h, "The fast path"). */
static __always_inline bool crossed(const struct streams_val *v, __u64 old_pages, __u64 old_next) {
        __u64 size_pages = (v->i_size + (1ULL << page_shift) - 1) >> page_shift;

        if (v->back_pages * STREAMS_EVENT_BACK_DEN > v->pages ||
            v->seq_pages * STREAMS_EVENT_SEQ_DEN < v->pages * STREAMS_EVENT_SEQ_NUM)
                return false;
        if (size_pages > 0 && old_next < size_pages && v->next_index >= size_pages &&
            v->pages >= size_pages && v->back_pages == 0)
                return true;
        return v->pages >= STREAMS_EVENT_STEP_PAGES &&
               old_pages / STREAMS_EVENT_STEP_PAGES != v->pages / STREAMS_EVENT_STEP_PAGES;
}

/* Sends the file's counters to the daemon when its cgroup is watched. */
static __always_inline void send_event(const struct streams_key *key, const struct streams_val *v) {
        struct streams_event ev;

        if (!bpf_map_lookup_elem(&stream_watch, &key->cgroup_id))
                return;
        ev.key = *key;
        ev.val = *v;
        if (bpf_ringbuf_output(&stream_events, &ev, sizeof ev, 0) < 0)
                __sync_fetch_and_add(&events_lost, 1);
}

/* Fills key with folio's file and cgroup. Returns the file's inode, or NULL without one. */
static __always_inline struct inode *folio_file_key(struct folio *folio, struct streams_key *key) {
        struct address_space *mapping = BPF_CORE_READ(folio, mapping);
        struct inode *inode;

        if (!mapping)
                return NULL;
        inode = BPF_CORE_READ(mapping, host);
        if (!inode)
                return NULL;
        key->ino = BPF_CORE_READ(inode, i_ino);
        key->dev = BPF_CORE_READ(inode, i_sb, s_dev);
        key->cgroup_id = folio_cgroup_id(folio);
        return inode;
}

/* Adds the refaults an insertion into v's file shows (page-cache-refaults.h) to its cgroup's
 * counter. */
static __always_inline void refaults_count(struct streams_val *v, __u64 cgroup_id,
                                           struct inode *inode) {
        struct refaults_val *c, init = {};
        __u64 n = refaults_note_insertion(v, BPF_CORE_READ(inode, i_size),
                                          BPF_CORE_READ(inode, i_generation), bpf_ktime_get_ns());

        if (!n)
                return;
        c = bpf_map_lookup_elem(&refaults, &cgroup_id);
        if (!c) {
                bpf_map_update_elem(&refaults, &cgroup_id, &init, BPF_NOEXIST);
                c = bpf_map_lookup_elem(&refaults, &cgroup_id);
                if (!c)
                        return;
        }
        __sync_fetch_and_add(&c->pages, n);
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(streams_add, struct folio *folio) {
        struct inode *inode;
        struct streams_key key = {};
        struct streams_val *v, init = {};
        __u64 index, nr, end, window, old_pages, old_next;

        inode = folio_file_key(folio, &key);
        if (!inode || !bpf_map_lookup_elem(&streams_track, &key.cgroup_id))
                return 0;
        index = BPF_CORE_READ(folio, index);
        nr = folio_nr(folio);
        end = index + nr;

        v = bpf_map_lookup_elem(&streams, &key);
        if (!v) {
                init.pages = nr;
                init.seq_pages = index == 0 ? nr : 0;
                init.next_index = end;
                init.max_index = end;
                init.i_size = BPF_CORE_READ(inode, i_size);
                init.generation = BPF_CORE_READ(inode, i_generation);
                init.last_ns = bpf_ktime_get_ns();
                bpf_map_update_elem(&streams, &key, &init, BPF_NOEXIST);
                if (crossed(&init, 0, 0))
                        send_event(&key, &init);
                return 0;
        }
        old_pages = v->pages;
        old_next = v->next_index;
        v->pages += nr;
        if (index >= v->next_index && index <= v->next_index + STREAMS_SEQ_WINDOW)
                v->seq_pages += nr;
        /* Small files: half their size is "far". */
        window = v->max_index / 2 < STREAMS_BACK_WINDOW ? v->max_index / 2 : STREAMS_BACK_WINDOW;
        if (index + window < v->max_index)
                v->back_pages += nr;
        v->next_index = end;
        if (end > v->max_index)
                v->max_index = end;
        refaults_count(v, key.cgroup_id, inode);
        v->i_size = BPF_CORE_READ(inode, i_size);
        v->last_ns = bpf_ktime_get_ns();
        if (crossed(v, old_pages, old_next))
                send_event(&key, v);
        return 0;
}

/* include/linux/sched.h (the same since 2.6): set while a task reclaims memory (kswapd, direct
 * and memcg reclaim, memory.reclaim, lru_gen eviction), not while it truncates, invalidates or
 * drops caches, which leave no shadow entries behind either. */
#define PF_MEMALLOC 0x00000800

/* A folio leaves the page cache: when reclaim took it, its file's eviction budget grows. Files
 * the stream map does not hold (no insertion seen since the daemon started) are not counted. */
SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(refaults_evict, struct folio *folio) {
        struct task_struct *task = bpf_get_current_task_btf();
        struct streams_key key = {};
        struct streams_val *v;

        if (!(BPF_CORE_READ(task, flags) & PF_MEMALLOC) || !folio_file_key(folio, &key))
                return 0;
        v = bpf_map_lookup_elem(&streams, &key);
        if (v)
                refaults_note_eviction(v, folio_nr(folio), bpf_ktime_get_ns());
        return 0;
}

/* A page of a file is made dirty (written through write() or a shared mapping): re-insertions
 * into the file are writes for a while, not refaults. */
SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(refaults_dirtied, struct folio *folio, struct address_space *mapping) {
        struct streams_key key = {};
        struct streams_val *v;

        if (!folio_file_key(folio, &key))
                return 0;
        v = bpf_map_lookup_elem(&streams, &key);
        if (v)
                refaults_note_dirtied(v, bpf_ktime_get_ns());
        return 0;
}
