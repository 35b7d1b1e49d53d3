/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the tests of stream protection's pieces share: the core fixture's cgroup (1 GiB used, no
 * limit: a file of 4 GiB read once is a stream) with a stream table made without BPF, and the
 * counters of such a file read sequentially so far. */
#pragma once

#include "core-fixture.h"
#include "daemon/core/stream-protection-internal.h"

#define MiB (UINT64_C(1) << 20)
#define PAGE UINT64_C(4096)
#define STREAM_SIZE (UINT64_C(4) << 30)

struct stream_fixture {
        struct core_fixture f;
        struct streams *s;
};

/* Sets t up: the core fixture (Mode=active, the cgroup's memory.stat all file pages) and an
 * empty stream table that opens files by handle until the test gives it an opener. */
static inline void stream_fixture_init(struct stream_fixture *t) {
        core_fixture_init(&t->f, POLICY_MODE_ACTIVE, "anon 0\nfile 1073741824\n");
        assert_int_equal(streams_new("/proc", &t->s), 0);
}

/* Frees what stream_fixture_init() made and a job left captured. */
static inline void stream_fixture_done(struct stream_fixture *t) {
        actuator_job_free(captured);
        captured = NULL;
        streams_free(t->s);
        core_fixture_done(&t->f);
}

/* The key of file ino of cgroup id (device 8:0), and its counters read sequentially up to
 * read_to bytes of a STREAM_SIZE file. */
static inline void stream_fixture_file(uint64_t id, uint64_t ino, uint64_t read_to,
                                       struct streams_key *ret_key, struct streams_val *ret_val) {
        *ret_key = (struct streams_key) { .cgroup_id = id, .ino = ino, .dev = 8 << 20 };
        *ret_val = (struct streams_val) { .pages = read_to / PAGE, .seq_pages = read_to / PAGE,
                                          .next_index = read_to / PAGE,
                                          .max_index = read_to / PAGE, .i_size = STREAM_SIZE };
}
