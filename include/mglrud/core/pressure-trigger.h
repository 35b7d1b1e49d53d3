/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pressure-trigger.h: PSI triggers on the event loop (docs/design.md, "Pressure triggers"). A
 * cycle sees pressure only as the average of an Interval, seconds after a reclaim began to hurt;
 * a trigger wakes the loop as soon as tasks have stalled past a threshold within a window, so
 * that reclaim stops within a second. The manager arms one on each cgroup while it reclaims
 * there and one on the host; what a firing does is the PSI brake's (brake-psi.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

/* The window of every trigger: the kernel rate-limits events to one per window, and polls ten
 * times per window. Without CAP_SYS_RESOURCE it only takes multiples of 2 s. */
#define PRESSURE_TRIGGER_WINDOW_USEC (1000 * UINT64_C(1000))
#define PRESSURE_TRIGGER_UNPRIVILEGED_WINDOW_USEC (2000 * UINT64_C(1000))

struct pressure_trigger;

/* Called on the loop when the trigger fires, with the time it was seen (CLOCK_MONOTONIC). */
typedef void (*pressure_trigger_fn)(struct pressure_trigger *t, uint64_t now_usec,
                                    void *userdata);

/* A trigger's threshold: tasks stalling stall_usec within a window ("full": all of them at
 * once, else some). */
struct pressure_threshold {
        bool full;
        uint64_t stall_usec;
};

/* Arms a trigger on the pressure file name under dirfd ("memory.pressure", or an absolute path
 * with AT_FDCWD): tasks stalling as *threshold says within *window_usec.
 * When the kernel refuses *window_usec with EINVAL and a privileged window was asked for,
 * retries with PRESSURE_TRIGGER_UNPRIVILEGED_WINDOW_USEC and sets *window_usec to it. A trigger
 * already in *slot with the same threshold is kept, one with another is replaced. Returns 0
 * with the trigger in *slot, or a negative errno (*slot untouched): -EOPNOTSUPP when the kernel
 * has no PSI or no triggers, -ENOENT/-ENODEV when the group is gone. */
int pressure_trigger_arm(struct pressure_trigger **slot, sd_event *e, int dirfd,
                         const char *name, const struct pressure_threshold *threshold,
                         uint64_t *window_usec, pressure_trigger_fn fn, void *userdata);

/* Removes the trigger in *slot (closing its fd de-registers it) and sets *slot to NULL. Safe in
 * the trigger's own callback. NULL *slot is fine. */
void pressure_trigger_disarm(struct pressure_trigger **slot);

/* Returns how often the trigger fired since it was armed. */
uint64_t pressure_trigger_fired(const struct pressure_trigger *t);

/* Returns the stall threshold the trigger was armed with (usec). */
uint64_t pressure_trigger_stall_usec(const struct pressure_trigger *t);

/* Handles a readiness of the trigger's fd as the loop would (revents from epoll): EPOLLERR
 * (checked first: the group is gone) disarms it through *slot, EPOLLPRI calls fn. Returns 0.
 * For tests, which cannot make the kernel fire a trigger. */
int pressure_trigger_dispatch(struct pressure_trigger **slot, uint32_t revents,
                              uint64_t now_usec);
