/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bus-budget.h"

#include <errno.h>

size_t bus_budget_total(const struct bus_budget_peer *peers, size_t n) {
        size_t total = 0;
        for (size_t i = 0; i < n; i++)
                total += peers[i].held;
        return total;
}

int bus_budget_victim(const struct bus_budget_peer *peers, size_t n, size_t budget,
                      size_t *ret_index) {
        if (bus_budget_total(peers, n) <= budget)
                return -ENOENT;
        size_t victim = n;
        for (size_t i = 0; i < n; i++)
                if (peers[i].uid != 0 && peers[i].held > 0 &&
                    (victim == n || peers[i].held > peers[victim].held))
                        victim = i;
        if (victim == n)
                return -ENOENT;
        *ret_index = victim;
        return 0;
}
