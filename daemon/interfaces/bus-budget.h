/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-budget.h: the replies that the peers of the private socket leave unread, bounded in total.
 * Each peer may leave BUS_GUARD_MAX_BACKLOG (8 MiB) unread; 64 unprivileged peers just under that
 * would pin 512 MiB, past the unit's MemoryMax. Past BUS_BUDGET_BYTES in all, the unprivileged
 * peer holding the most is dropped, until the rest fits; root's replies always fit (root's
 * peers count in the total but are never the one dropped). Pure: bus-server.c feeds it. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#define BUS_BUDGET_BYTES (32U * 1024 * 1024)

/* One peer: its uid (SO_PEERCRED at accept) and the bytes of replies it has not read. */
struct bus_budget_peer {
        uid_t uid;
        size_t held;
};

/* Returns the bytes the n peers hold in all. */
size_t bus_budget_total(const struct bus_budget_peer *peers, size_t n);

/* Returns 0 and in *ret_index the peer to drop while what the n peers hold exceeds budget bytes:
 * the unprivileged one holding the most (the first of equals); -ENOENT when they fit, or when
 * nothing an unprivileged peer holds could be dropped (root's replies always fit). */
int bus_budget_victim(const struct bus_budget_peer *peers, size_t n, size_t budget,
                      size_t *ret_index);
