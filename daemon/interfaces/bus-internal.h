/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-internal.h: shared by bus.c (the org.mglrud.Manager1 methods) and bus-server.c (the
 * private socket, its connections and the system bus name); the connections themselves are in
 * bus-conn.h, which both stand on. */
#pragma once

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <systemd/sd-id128.h>

#include "mglrud/interfaces/bus.h"

#include "bus-conn.h"

/* Calls held for the next cycle at most (the rest are answered at once, with what there is):
 * the memory a peer can pin this way is bounded. */
#define BUS_MAX_WAITING 64

/* A reply rendered once and served to every caller until the next cycle or a change made over
 * the bus (Dump(), Metrics(): a flood of calls costs one rendering per cycle, not one per call). */
struct bus_text_cache {
        char *text;              /* NULL: nothing rendered yet */
        uint64_t cycle;          /* manager's cycles when rendered */
        uint64_t generation;     /* bus_server's generation when rendered */
};

struct bus_server {
        struct manager *m;
        int lock_fd;             /* RUNTIME_DIR/lock, flock()ed for the daemon's lifetime */
        bus_reload_t reload;
        sd_event *event;
        char *socket_path;
        int listen_fd;
        sd_event_source *listen_source, *accept_pause;
        struct bus_conn **conns; /* accepted private connections */
        size_t n_conns;
        sd_bus *system_bus;
        sd_id128_t id;
        uint64_t last_refusal_log_usec;
        unsigned refusals_unlogged;
        /* IdleProfile() and Metrics() calls that wait for the cgroups' profiles (the first
         * calls turn them on; bus_server_cycle_done() answers them after the next cycle). */
        sd_bus_message *waiting[BUS_MAX_WAITING];
        size_t n_waiting;
        uint64_t generation;     /* changes made over the bus (Set, Pause, Resume, Reload) */
        struct bus_text_cache dump_cache, metrics_cache;
        uint64_t renders;        /* Dump() and Metrics() texts rendered (GetStatus BusRenders) */
};

/* The methods, served on the private socket and on the system bus. */
extern const sd_bus_vtable bus_manager_vtable[];

/* Answers a call that waited for the cgroups' idle-age profiles (IdleProfile(), Metrics()).
 * Returns what sending the reply returns. */
int bus_answer_waiting(struct bus_server *b, sd_bus_message *msg);

/* Serves one accepted peer of the private socket on fd (ownership passes, also on error): puts
 * the guard in front of it and an sd-bus server connection behind that, or refuses it when the
 * peer has too many already (logged). Returns 0 (also when refused) or a negative errno. */
int bus_server_accept_fd(struct bus_server *b, int fd);
