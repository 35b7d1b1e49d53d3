/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stream protection on the event loop (stream-wiring.c), with a stream table made without BPF
 * in place of the program (streams_new(): loaded and reported already): whether the program stays
 * loaded for a configuration (a section that sets StreamProtection=, [Defaults]' value for the
 * others, RefaultCheck=, the refault guard only with an event loop, a caller that keeps it), the
 * fast path only with an event loop, the capability of drops said to the rest of the daemon,
 * and detaching said once. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <systemd/sd-event.h>

#include "files-fixture.h"
#include "mglrud/config/config.h"
#include "mglrud/core/stream-wiring.h"

static int run_fast(struct streams *s, uint64_t now_usec, void *userdata) {
        (void) s, (void) now_usec;
        ++*(unsigned *) userdata;
        return 0;
}

struct subject {
        sd_event *event;
        struct stream_wiring w;
        struct kernel_caps caps;
        struct config c;
        unsigned runs;
};

static int subject_new(void **state) {
        struct subject *t = calloc(1, sizeof *t);
        assert_non_null(t);
        assert_true(sd_event_new(&t->event) >= 0);
        config_init(&t->c);
        *state = t;
        return 0;
}

static int subject_free(void **state) {
        struct subject *t = *state;
        stream_wiring_done(&t->w);
        assert_null(t->w.streams);
        config_done(&t->c);
        sd_event_unref(t->event);
        free(t);
        return 0;
}

/* Wires t for an event loop (or none: --once) with a table already "loaded". */
static void wire(struct subject *t, bool with_event) {
        stream_wiring_init(&t->w, with_event ? t->event : NULL, run_fast, &t->runs);
        assert_int_equal(streams_new("/proc", &t->w.streams), 0);
        t->w.tried = true;
}

/* Loads text as the configuration, the refault check and guard off unless text sets them. */
static void configure(struct subject *t, const char *text) {
        char buf[512];
        snprintf(buf, sizeof buf, "[Daemon]\nRefaultCheck=no\nRefaultGuard=no\n%s", text);
        config_done(&t->c);
        config_init(&t->c);
        assert_int_equal(config_load_string(buf, "test.conf", &t->c), 0);
}

#define SUBJECT_TEST(f) cmocka_unit_test_setup_teardown(f, subject_new, subject_free)

static void test_protecting_with_loop(void **state) {
        struct subject *t = *state;
        wire(t, true);
        configure(t, "[Daemon]\nStreamFastPath=yes\n");
        struct streams *s = t->w.streams;
        stream_wiring_update(&t->w, &t->c, false, "/proc", &t->caps);
        assert_ptr_equal(t->w.streams, s); /* loaded once, kept */
        assert_true(t->caps.stream_drops);
        assert_true(streams_get_stats(s).fast_path);
        /* Nothing to watch without a ring buffer: no event source, no run. */
        assert_null(t->w.io);
        assert_null(t->w.timer);
        assert_int_equal(t->runs, 0);

        configure(t, "[Daemon]\nStreamFastPath=no\n");
        stream_wiring_update(&t->w, &t->c, false, "/proc", &t->caps);
        assert_false(streams_get_stats(t->w.streams).fast_path);
        assert_true(t->caps.stream_drops);
}

static void test_once_has_no_fast_path(void **state) {
        struct subject *t = *state;
        wire(t, false);
        configure(t, "[Daemon]\nStreamFastPath=yes\n");
        stream_wiring_update(&t->w, &t->c, false, "/proc", &t->caps);
        assert_non_null(t->w.streams);
        assert_true(t->caps.stream_drops);
        assert_false(streams_get_stats(t->w.streams).fast_path); /* nothing would take them */
}

static void test_off_everywhere_detaches(void **state) {
        struct subject *t = *state;
        wire(t, true);
        t->caps.stream_drops = true;
        configure(t, "[Defaults]\nStreamProtection=no\n");
        log_lines_start();
        stream_wiring_update(&t->w, &t->c, false, "/proc", &t->caps);
        assert_null(t->w.streams);
        assert_false(t->w.tried); /* a reload that wants it again loads it again */
        assert_false(t->caps.stream_drops);
        stream_wiring_update(&t->w, &t->c, false, "/proc", &t->caps);
        log_lines_stop();
        assert_int_equal(log_lines_with("detaching the BPF program"), 1);
}

static void test_what_keeps_it_loaded(void **state) {
        struct subject *t = *state;
        wire(t, true);
        /* A section that sets it. */
        configure(t, "[Defaults]\nStreamProtection=no\n[/batch.slice/*]\nStreamProtection=yes\n");
        stream_wiring_update(&t->w, &t->c, false, "/proc", &t->caps);
        assert_non_null(t->w.streams);
        /* A section that does not set it has [Defaults]' value. */
        configure(t, "[Defaults]\nStreamProtection=no\n[/batch.slice/*]\nSwappiness=0\n");
        stream_wiring_update(&t->w, &t->c, true, "/proc", &t->caps);
        assert_non_null(t->w.streams); /* the caller keeps it */
        configure(t, "[Daemon]\nRefaultCheck=yes\n[Defaults]\nStreamProtection=no\n");
        stream_wiring_update(&t->w, &t->c, false, "/proc", &t->caps);
        assert_non_null(t->w.streams); /* the own refault count */
        configure(t, "[Daemon]\nRefaultGuard=yes\n[Defaults]\nStreamProtection=no\n");
        stream_wiring_update(&t->w, &t->c, false, "/proc", &t->caps);
        assert_non_null(t->w.streams); /* the refault guard, with a writer thread */
        assert_true(t->caps.stream_drops);
        configure(t, "[Defaults]\nStreamProtection=no\n[/batch.slice/*]\nSwappiness=0\n");
        stream_wiring_update(&t->w, &t->c, false, "/proc", &t->caps);
        assert_null(t->w.streams);
}

static void test_refault_guard_needs_loop(void **state) {
        struct subject *t = *state;
        wire(t, false);
        configure(t, "[Daemon]\nRefaultGuard=yes\n[Defaults]\nStreamProtection=no\n");
        stream_wiring_update(&t->w, &t->c, false, "/proc", &t->caps);
        assert_null(t->w.streams); /* --once: no job to guard */
        assert_false(t->caps.stream_drops);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                SUBJECT_TEST(test_protecting_with_loop),
                SUBJECT_TEST(test_once_has_no_fast_path),
                SUBJECT_TEST(test_off_everywhere_detaches),
                SUBJECT_TEST(test_what_keeps_it_loaded),
                SUBJECT_TEST(test_refault_guard_needs_loop),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
