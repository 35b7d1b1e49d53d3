/* SPDX-License-Identifier: GPL-2.0-or-later */
/* counter-info.h: the counters of counters.h as the formatters read them (metrics, dump, bus):
 * one descriptor per counter, in list order, with where its value is and how it is shown. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mglrud/core/counters.h"

/* One counter as the formatters see it: where it is and how it is shown. */
struct counter_info {
        const char *field;        /* the member's name (tests, messages) */
        size_t offset;            /* in struct control_snapshot or struct daemon_stats */
        size_t size;              /* sizeof the member: 1 (bool), 4 or 8 */
        enum counter_unit unit;
        enum counter_when when;
        const char *metric, *metric_type, *help; /* metric NULL: no metric */
        const char *bus_key;
        const char *dump_label;   /* NULL: in another counter's dump line (or none) */
};

/* The per-cgroup and daemon-wide counters in list order (counter-info.c). */
extern const struct counter_info control_counter_info[_CONTROL_COUNTER_MAX];
extern const struct counter_info daemon_counter_info[_DAEMON_COUNTER_MAX];

/* Returns the value of the counter c describes in the record at base (a snapshot or the
 * daemon stats), widened to 64 bits. */
uint64_t counter_value(const struct counter_info *c, const void *base);
