/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One-shot stream classification: see include/mglrud/policy/stream-classify.h for the rules. */
#include "mglrud/policy/stream-classify.h"

#include <errno.h>
#include <stddef.h>

static const char *const verdict_names[_STREAM_VERDICT_MAX] = {
        [STREAM_UNSURE] = "unsure",
        [STREAM_NOT_RANDOM] = "random",
        [STREAM_NOT_REREAD] = "re-read",
        [STREAM_NOT_SMALL] = "fits",
        [STREAM_NOT_ACTIVE] = "idle",
        [STREAM_ONE_SHOT] = "read once",
        [STREAM_SMALL_FILES] = "small files",
};

const char *stream_verdict_to_string(enum stream_verdict v) {
        return v >= 0 && v < _STREAM_VERDICT_MAX ? verdict_names[v] : NULL;
}

static uint64_t cgroup_memory(const struct stream_cgroup *cg) {
        return cg->limit_bytes != UINT64_MAX ? cg->limit_bytes : cg->current_bytes;
}

static bool is_sequential(const struct stream_file *f) {
        return f->seq_pages * STREAM_SEQ_DEN >= f->pages * STREAM_SEQ_NUM;
}

static bool is_reread(const struct stream_file *f) {
        return f->back_pages * STREAM_BACK_DEN > f->pages;
}

/* Read completely, each page once: a file's worth of sequential insertions up to EOF. */
static bool read_whole_once(const struct stream_file *f) {
        return f->size_pages > 0 && f->next_index >= f->size_pages &&
               f->pages >= f->size_pages && f->pages <= f->size_pages + f->size_pages / 8 + 1 &&
               is_sequential(f) && f->back_pages == 0;
}

uint64_t stream_small_inflow(const struct stream_file *f, uint64_t page_size) {
        if (!f || f->new_pages == 0 || !read_whole_once(f))
                return 0;
        return f->size_pages * page_size;
}

int stream_classify(const struct stream_file *f, const struct stream_cgroup *cg,
                    struct stream_action *ret) {
        if (!f || !cg || !ret || cg->page_size == 0)
                return -EINVAL;
        struct stream_action a = { .verdict = STREAM_UNSURE };
        uint64_t mem = cgroup_memory(cg);
        uint64_t size = f->size_pages * cg->page_size;
        uint64_t margin_pages = STREAM_MARGIN_BYTES / cg->page_size;

        if (f->pages == 0 || mem == 0)
                goto done;
        if (is_reread(f)) {
                a.verdict = STREAM_NOT_REREAD;
                goto done;
        }
        if (!is_sequential(f)) {
                a.verdict = f->pages >= 64 ? STREAM_NOT_RANDOM : STREAM_UNSURE;
                goto done;
        }

        /* Big file: caching it cannot help (its head is gone by the time the reader is at its
         * end), it only pushes the cgroup's other pages out. */
        if (size / 2 >= mem &&
            (cg->limit_bytes != UINT64_MAX || size >= STREAM_UNLIMITED_MIN_BYTES)) {
                if (f->pages * cg->page_size < STREAM_MIN_BYTES)
                        goto done;
                if (f->new_pages == 0) {
                        a.verdict = STREAM_NOT_ACTIVE;
                        goto done;
                }
                a.verdict = STREAM_ONE_SHOT;
                if (f->next_index > margin_pages + f->dropped_to) {
                        a.drop_start = f->dropped_to;
                        a.drop_end = f->next_index - margin_pages;
                }
                goto done;
        }

        /* Many small files, each read once, while the cgroup is at least half full: at
         * STREAM_SMALL_MIN_INFLOW per cycle it reaches its limit within a few cycles, and the
         * files read before that would otherwise never be dropped (new_pages is 0 after their
         * cycle) and push the hot set out later (S2 in tests/bench/RESULTS.md). */
        if (size * 16 <= mem && cg->limit_bytes != UINT64_MAX && read_whole_once(f) &&
            f->new_pages > 0 && cg->current_bytes * 2 >= cg->limit_bytes &&
            cg->small_inflow_bytes >= STREAM_SMALL_MIN_INFLOW) {
                a.verdict = STREAM_SMALL_FILES;
                if (f->size_pages > f->dropped_to) {
                        a.drop_start = f->dropped_to;
                        a.drop_end = f->size_pages;
                }
                goto done;
        }
        a.verdict = STREAM_NOT_SMALL;
done:
        *ret = a;
        return 0;
}
