/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-guard.h: what stands between a peer on the private socket and sd-bus (bus.c). Anyone may
 * connect to RUNTIME_DIR/bus, so sd-bus never reads the peer's socket itself: the guard does,
 * and hands sd-bus one end of a socketpair. It forwards the SASL lines (each at most
 * BUS_GUARD_MAX_LINE bytes, BEGIN within BUS_GUARD_DEADLINE_USEC of connecting) and whole D-Bus
 * messages (each at most BUS_GUARD_MAX_MESSAGE bytes, complete within BUS_GUARD_DEADLINE_USEC of
 * its first byte), and closes the connection on anything else: the daemon's memory per peer is
 * bounded, a slow drip costs a few seconds. Replies go back through the guard, which drops a
 * peer that leaves more than BUS_GUARD_MAX_BACKLOG bytes of replies unread. The peer's uid is
 * taken once, from SO_PEERCRED at accept (sd-bus would see the socketpair: our own uid). */
#pragma once

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#define BUS_GUARD_MAX_LINE 512
#define BUS_GUARD_MAX_MESSAGE (64U * 1024)
#define BUS_GUARD_MAX_BACKLOG (8U * 1024 * 1024)
#define BUS_GUARD_DEADLINE_USEC (5 * UINT64_C(1000000))

struct bus_guard;

/* Called once when the guard closed the peer's side (EOF, error or a refused message); reason
 * is NULL for a plain disconnect. */
typedef void (*bus_guard_closed_fn)(struct bus_guard *g, const char *reason, void *userdata);

/* Takes the accepted socket peer_fd (ownership passes, also on error) and returns in
 * *ret_daemon_fd the socket sd-bus is to use for this peer. Returns 0 and the guard, or a
 * negative errno. */
int bus_guard_new(sd_event *e, int peer_fd, bus_guard_closed_fn closed, void *userdata,
                  struct bus_guard **ret, int *ret_daemon_fd);

/* Returns the peer's uid and pid as the kernel saw them at accept. */
uid_t bus_guard_uid(const struct bus_guard *g);
pid_t bus_guard_pid(const struct bus_guard *g);

/* Closes both sides and frees g. NULL is fine. */
void bus_guard_free(struct bus_guard *g);
