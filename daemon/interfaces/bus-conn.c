/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bus-conn.h"

#include <stddef.h>

struct bus_conn *bus_conn_find(struct bus_conn *const *conns, size_t n, sd_bus *bus) {
        for (size_t i = 0; i < n; i++)
                if (conns[i]->bus == bus)
                        return conns[i];
        return NULL;
}
