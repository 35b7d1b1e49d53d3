/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-fields.h: the a{sv} dictionaries of GetCgroup() and GetStatus() (bus.c), apart from the
 * methods so that a test can read them back from a message. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

#include "mglrud/interfaces/counter-info.h"
#include "mglrud/core/manager.h"

/* Appends a "{sv}" entry per counter of table[0..n) (counters.h) read from the record at base:
 * "b" for a flag, "t" otherwise; the COUNTER_STALL_GUARD ones only when has_reclaim_stall.
 * Returns 0 or what sd_bus_message_append() returns. */
int bus_append_counters(sd_bus_message *reply, const struct counter_info *table, size_t n,
                        const void *base, bool has_reclaim_stall);

/* Appends GetCgroup()'s entries for snapshot s into an open "a{sv}" container of reply.
 * Returns 0 or a negative errno. */
int bus_append_snapshot(sd_bus_message *reply, const struct control_snapshot *s);

/* Appends GetStatus()'s entries: the version, the status line, the cgroup root, then the
 * daemon counters of d. Returns 0 or a negative errno. */
int bus_append_status(sd_bus_message *reply, const struct daemon_stats *d, const char *status,
                      const char *cgroup_root);
