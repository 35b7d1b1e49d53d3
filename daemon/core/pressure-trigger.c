/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/pressure-trigger.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "mglrud/kernel/psi.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/time.h"

struct pressure_trigger {
        int fd;
        sd_event_source *source;
        struct pressure_trigger **slot; /* where its owner keeps it: disarmed through it */
        bool full;
        uint64_t stall_usec, window_usec;
        uint64_t fired;
        pressure_trigger_fn fn;
        void *userdata;
};

static void trigger_free(struct pressure_trigger *t) {
        if (!t)
                return;
        sd_event_source_disable_unref(t->source);
        closep(&t->fd);
        free(t);
}

void pressure_trigger_disarm(struct pressure_trigger **slot) {
        if (!slot || !*slot)
                return;
        trigger_free(*slot);
        *slot = NULL;
}

int pressure_trigger_dispatch(struct pressure_trigger **slot, uint32_t revents,
                              uint64_t now_usec) {
        struct pressure_trigger *t = *slot;
        /* A removed cgroup reports EPOLLERR with EPOLLPRI: the source is gone, not a stall. */
        if (revents & EPOLLERR) {
                pressure_trigger_disarm(slot);
                return 0;
        }
        if (revents & EPOLLPRI) {
                t->fired++;
                t->fn(t, now_usec, t->userdata); /* may disarm t */
        }
        return 0;
}

static int on_event(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct pressure_trigger *t = userdata;
        return pressure_trigger_dispatch(t->slot, revents, now_monotonic_usec());
}

int pressure_trigger_arm(struct pressure_trigger **slot, sd_event *e, int dirfd,
                         const char *name, const struct pressure_threshold *threshold,
                         uint64_t *window_usec, pressure_trigger_fn fn, void *userdata) {
        const bool full = threshold->full;
        const uint64_t stall_usec = threshold->stall_usec;
        struct pressure_trigger *old = *slot;
        if (old && old->full == full && old->stall_usec == stall_usec &&
            old->window_usec == *window_usec) {
                old->fn = fn;
                old->userdata = userdata;
                return 0;
        }

        uint64_t window = *window_usec;
        int fd = psi_trigger_open(dirfd, name, full, stall_usec, window);
        if (fd == -EINVAL && window < PRESSURE_TRIGGER_UNPRIVILEGED_WINDOW_USEC) {
                /* Without CAP_SYS_RESOURCE the kernel takes multiples of 2 s only. */
                window = PRESSURE_TRIGGER_UNPRIVILEGED_WINDOW_USEC;
                fd = psi_trigger_open(dirfd, name, full, MIN(stall_usec, window / 2), window);
        }
        if (fd == -EINVAL)
                fd = -EOPNOTSUPP; /* the kernel takes no trigger this daemon can ask for */
        if (fd < 0)
                return fd;

        struct pressure_trigger *t = calloc(1, sizeof *t);
        if (!t) {
                close(fd);
                return -ENOMEM;
        }
        *t = (struct pressure_trigger) {
                .fd = fd, .slot = slot, .full = full, .stall_usec = stall_usec,
                .window_usec = *window_usec, .fn = fn, .userdata = userdata,
        };
        if (e) {
                int r = sd_event_add_io(e, &t->source, fd, EPOLLPRI, on_event, t);
                if (r < 0) {
                        trigger_free(t);
                        return r;
                }
        }
        trigger_free(old);
        /* The key compared next time is what was asked for, so a 2 s fallback is not redone. */
        *window_usec = window;
        t->window_usec = window;
        *slot = t;
        return 0;
}

uint64_t pressure_trigger_fired(const struct pressure_trigger *t) {
        return t ? t->fired : 0;
}

uint64_t pressure_trigger_stall_usec(const struct pressure_trigger *t) {
        return t ? t->stall_usec : 0;
}
