/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-guard.h: what stands between a peer on the private socket and sd-bus (bus.c). Anyone may
 * connect to RUNTIME_DIR/bus, so sd-bus never reads the peer's socket itself: the guard does,
 * and hands sd-bus one end of a socketpair. It forwards the SASL lines (each at most
 * BUS_GUARD_MAX_LINE bytes, BEGIN within BUS_GUARD_DEADLINE_USEC of connecting) and whole D-Bus
 * messages (each at most BUS_GUARD_MAX_MESSAGE bytes, complete within BUS_GUARD_DEADLINE_USEC of
 * its first byte), and closes the connection on anything else: the daemon's memory per peer is
 * bounded, a slow drip costs a few seconds. Replies go back through the guard, which drops a
 * peer that leaves more than BUS_GUARD_MAX_BACKLOG bytes of replies unread, in the guard's queue
 * and in the kernel's socket buffer together (and tells its owner
 * each time its backlog grew, for a budget of all peers). With an idle timeout set, a peer that
 * sends no whole message and reads no reply for that long is dropped. The peer's uid is
 * taken once, from SO_PEERCRED at accept (sd-bus would see the socketpair: our own uid). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#define BUS_GUARD_MAX_LINE 512
#define BUS_GUARD_MAX_MESSAGE (64U * 1024)
#define BUS_GUARD_MAX_BACKLOG (8U * 1024 * 1024)
/* The send buffer of a peer's socket: replies the kernel holds for a peer that does not read
 * (at most twice this, the kernel's overhead included), beside what the guard holds. */
#define BUS_GUARD_PEER_SNDBUF (64 * 1024)
#define BUS_GUARD_DEADLINE_USEC (5 * UINT64_C(1000000))

struct bus_guard;

/* Called once when the guard closed the peer's side (EOF, error or a refused message); reason
 * is NULL for a plain disconnect. */
typedef void (*bus_guard_closed_fn)(struct bus_guard *g, const char *reason, void *userdata);

/* Called after the replies waiting for the peer grew (bus_guard_backlog()); the callee may close
 * this guard or others. */
typedef void (*bus_guard_backlog_fn)(struct bus_guard *g, void *userdata);

/* Takes the accepted socket peer_fd (ownership passes, also on error) and returns in
 * *ret_daemon_fd the socket sd-bus is to use for this peer. Returns 0 and the guard, or a
 * negative errno. */
int bus_guard_new(sd_event *e, int peer_fd, bus_guard_closed_fn closed, void *userdata,
                  struct bus_guard **ret, int *ret_daemon_fd);

void bus_guard_set_backlog_callback(struct bus_guard *g, bus_guard_backlog_fn fn);

/* Drops the peer after usec without a whole message from it or a reply read by it (0: never).
 * Returns 0 or a negative errno. */
int bus_guard_set_idle_timeout(struct bus_guard *g, uint64_t usec);

/* Sets the sd-event priority of the guard's two sockets. Returns 0 or a negative errno. */
int bus_guard_set_priority(struct bus_guard *g, int64_t priority);

/* Returns the bytes of replies the peer has not read yet: what the guard holds for it and what
 * the kernel holds in the peer's socket (at most twice BUS_GUARD_PEER_SNDBUF). */
size_t bus_guard_backlog(const struct bus_guard *g);

/* Closes the peer's side now, with reason for the closed callback; the guard stays until freed. */
void bus_guard_close(struct bus_guard *g, const char *reason);

/* Returns the peer's uid and pid as the kernel saw them at accept. */
uid_t bus_guard_uid(const struct bus_guard *g);
pid_t bus_guard_pid(const struct bus_guard *g);

/* Closes both sides and frees g. NULL is fine. */
void bus_guard_free(struct bus_guard *g);
