/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream-wiring.c: stream protection on the event loop (stream-wiring.h): loading the BPF
 * program as the configuration asks, and the fast path's event sources. */
#include "mglrud/core/stream-wiring.h"

#include <errno.h>
#include <sys/epoll.h>
#include <time.h>

#include "mglrud/shared/log.h"
#include "mglrud/shared/time.h"

void stream_wiring_init(struct stream_wiring *w, sd_event *e, stream_wiring_run_t run,
                        void *userdata) {
        *w = (struct stream_wiring) { .event = e, .run = run, .userdata = userdata };
}

/* Runs the fast path now, then waits for crossings, or for the gap when it has work left. */
static void stream_wiring_fast(struct stream_wiring *w) {
        uint64_t now = now_monotonic_usec();

        w->fast_usec = now;
        int r = w->run(w->streams, now, w->userdata);
        if (r < 0) {
                log_error_errno(r, "Stream protection's fast path failed fatally: %m");
                (void) sd_event_exit(w->event, r);
                return;
        }
        if (r > 0) {
                (void) sd_event_source_set_enabled(w->io, SD_EVENT_OFF);
                (void) sd_event_source_set_time(w->timer, now + STREAMS_FAST_GAP_USEC);
                (void) sd_event_source_set_enabled(w->timer, SD_EVENT_ONESHOT);
        } else {
                (void) sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
                (void) sd_event_source_set_enabled(w->io, SD_EVENT_ON);
        }
}

/* The fast path runs at most every STREAMS_FAST_GAP_USEC: right away when crossings come after
 * a quiet spell, else when the gap is over (the reader keeps inserting meanwhile, and one run
 * takes all its crossings). */
static int on_streams_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct stream_wiring *w = userdata;
        uint64_t now = now_monotonic_usec();

        if (now - w->fast_usec >= STREAMS_FAST_GAP_USEC) {
                stream_wiring_fast(w);
                return 0;
        }
        /* Level-triggered: off until the timer, or the loop would spin on the waiting ring. */
        (void) sd_event_source_set_enabled(w->io, SD_EVENT_OFF);
        (void) sd_event_source_set_time(w->timer, w->fast_usec + STREAMS_FAST_GAP_USEC);
        (void) sd_event_source_set_enabled(w->timer, SD_EVENT_ONESHOT);
        return 0;
}

static int on_streams_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        stream_wiring_fast(userdata);
        return 0;
}

/* Watches the stream crossings on the event loop while the fast path is on (and stops watching
 * when it is not). Failing to watch leaves the cycle to act, and is said. */
static void stream_wiring_watch(struct stream_wiring *w) {
        int fd = w->event ? streams_event_fd(w->streams) : -1;
        int r;

        if (w->io && fd >= 0 && sd_event_source_get_io_fd(w->io) == fd)
                return;
        w->io = sd_event_source_disable_unref(w->io);
        w->timer = sd_event_source_disable_unref(w->timer);
        if (fd < 0)
                return;
        r = sd_event_add_io(w->event, &w->io, fd, EPOLLIN, on_streams_io, w);
        if (r >= 0)
                r = sd_event_add_time(w->event, &w->timer, CLOCK_MONOTONIC, 0,
                                      STREAMS_FAST_GAP_USEC / 10, on_streams_timer, w);
        if (r >= 0)
                r = sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
        if (r < 0) {
                log_warning_errno(r, "Stream protection: cannot watch the crossings, streams are "
                                     "dropped at each cycle only: %m");
                w->io = sd_event_source_disable_unref(w->io);
                w->timer = sd_event_source_disable_unref(w->timer);
        }
}

/* Returns whether some section of c protects streams. */
static bool config_protects_streams(const struct config *c) {
        const uint32_t key = 1u << POLICY_KEY_STREAM_PROTECTION;
        bool protect = c->defaults.stream_protection != STREAM_PROTECTION_NO;
        /* A section that does not set the key has [Defaults]' value, not its own built-in one. */
        for (size_t i = 0; i < c->n_sections; i++) {
                const struct policy_section *sec = &c->sections[i];
                protect = protect || ((sec->set_mask & key) && sec->policy.stream_protection !=
                                                                       STREAM_PROTECTION_NO);
        }
        return protect;
}

/* Loads the program (once, said either way). */
static void stream_wiring_load(struct stream_wiring *w, const struct config *c, bool protect,
                               const char *proc_root) {
        w->tried = true;
        int r = streams_open(proc_root, &w->streams);
        if (r == -EOPNOTSUPP)
                log_notice("Stream protection unavailable: built without BPF.");
        else if (r < 0)
                log_notice_errno(r, "Stream protection unavailable: cannot load the BPF "
                                    "program: %m");
        else if (!protect)
                /* Loaded for the own refault count only: nothing is dropped. */
                log_info("Own refault count: tracking page-cache insertions with BPF "
                         "(StreamProtection=no everywhere: no stream is dropped).");
        else
                log_info("Stream protection: tracking page-cache insertions with BPF%s.",
                         c->stream_fast_path && w->event
                                 ? ", dropping streams as they cross" : "");
        if (r < 0 && c->refault_check)
                log_notice("RefaultCheck: without BPF, no own refault count: the kernel's "
                           "counts are checked against workingset_nodereclaim only.");
}

void stream_wiring_update(struct stream_wiring *w, const struct config *c, bool keep_loaded,
                          const char *proc_root, struct kernel_caps *caps) {
        bool protect = config_protects_streams(c);
        bool wanted = protect || c->refault_check || keep_loaded ||
                      (c->refault_guard && w->event); /* --once: no writer thread */
        if (!wanted) {
                /* Switched off by a reload: detach the program, no map walks. */
                if (w->streams)
                        log_info("Stream protection: off everywhere, detaching the BPF program.");
                streams_set_fast_path(w->streams, false);
                stream_wiring_watch(w); /* before the ring buffer goes */
                streams_free(w->streams);
                w->streams = NULL;
                w->tried = false;
                caps->stream_drops = false;
                return;
        }
        if (!w->tried)
                stream_wiring_load(w, c, protect, proc_root);
        /* Without an event loop (--once) nothing would take the crossings. */
        streams_set_fast_path(w->streams, c->stream_fast_path && w->event);
        caps->stream_drops = w->streams != NULL;
        stream_wiring_watch(w);
}

void stream_wiring_done(struct stream_wiring *w) {
        w->io = sd_event_source_disable_unref(w->io);
        w->timer = sd_event_source_disable_unref(w->timer);
        streams_free(w->streams);
        w->streams = NULL;
}
