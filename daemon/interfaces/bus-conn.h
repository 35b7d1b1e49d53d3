/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-conn.h: a peer of the private socket as the server keeps it (bus-server.c accepts it and
 * drops it) and as the methods ask about it (bus.c: the uid SO_PEERCRED gave for a call that
 * came on it). */
#pragma once

#include <stddef.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

struct bus_server;
struct bus_guard;

/* One peer of the private socket: its sd-bus connection behind the guard. */
struct bus_conn {
        struct bus_server *b;
        sd_bus *bus;
        struct bus_guard *guard;
        uid_t uid;               /* from SO_PEERCRED at accept */
        sd_event_source *kick;   /* processes what sd-bus read with BEGIN (bus-server.c) */
};

/* Returns the connection of conns[0..n) whose sd-bus object is bus, or NULL (the system bus). */
struct bus_conn *bus_conn_find(struct bus_conn *const *conns, size_t n, sd_bus *bus);
