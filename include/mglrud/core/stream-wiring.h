/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream-wiring.h: stream protection on the event loop (stream-wiring.c): loads the BPF program
 * when the configuration wants it, and runs the fast path as stream crossings arrive, at most
 * every STREAMS_FAST_GAP_USEC (docs/design.md, "One-shot stream protection"). The manager owns
 * one and says how a run of the fast path gets its cycle input and cgroups. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "mglrud/config/config.h"
#include "mglrud/core/stream-protection.h"
#include "mglrud/policy/policy.h"

/* Runs the fast path of s at now_usec (streams_fast() with the caller's cycle input). Returns
 * what streams_fast() returns. */
typedef int (*stream_wiring_run_t)(struct streams *s, uint64_t now_usec, void *userdata);

struct stream_wiring {
        struct streams *streams;    /* one-shot stream protection; NULL without BPF */
        bool tried;                 /* streams_open() was attempted (and reported) */
        sd_event *event;            /* the event loop (NULL: --once) */
        sd_event_source *io;        /* stream crossings waiting (the fast path) */
        sd_event_source *timer;     /* the fast path's next run, when it must wait */
        uint64_t fast_usec;         /* when the fast path last ran */
        stream_wiring_run_t run;
        void *userdata;
};

/* Initializes w for event loop e (NULL: --once, no fast path); run runs the fast path. Nothing
 * is loaded yet. */
void stream_wiring_init(struct stream_wiring *w, sd_event *e, stream_wiring_run_t run,
                        void *userdata);

/* Loads the stream-protection BPF program once, if some section of c wants it, RefaultCheck= or
 * RefaultGuard= (the own refault count comes from the same program), or detaches it when none
 * does any longer, unless keep_loaded (the refault guard reads its map from the writer thread:
 * it stays until exit). Without it the daemon works as before, and says why once. Sets
 * caps->stream_drops, and watches the crossings while the fast path is on. */
void stream_wiring_update(struct stream_wiring *w, const struct config *c, bool keep_loaded,
                          const char *proc_root, struct kernel_caps *caps);

/* Stops watching and frees the program. */
void stream_wiring_done(struct stream_wiring *w);
