/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus.h: the org.mglrud.Manager1 D-Bus API, served on a private socket RUNTIME_DIR/bus (for
 * mglructl, works without dbus-daemon) and, when reachable, under that name on the system bus.
 * Reads are open to everyone; Reload, Pause and Resume require effective uid 0. */
#pragma once

#include <systemd/sd-event.h>

#include "mglrud/core/manager.h"
#include "mglrud/interfaces/bus-protocol.h"

struct bus_server;

/* Reloads the configuration (what SIGHUP does). Returns 0 or -errno, with the first error's text
 * in *ret_error (malloc'ed) when there is one. */
typedef int (*bus_reload_t)(struct manager *m, char **ret_error);

/* Creates runtime_dir (0755) if needed, refuses one that is not a directory owned by us alone
 * (-EPERM), takes runtime_dir/lock (-EBUSY while another daemon holds it), listens on
 * runtime_dir/bus (mode 0666) and serves every connection from event e; Reload() calls reload.
 * When runtime_dir is the default one, also takes the name on the system bus (failure is only
 * logged at debug level). Returns 0 and the server in *ret, or a negative errno
 * (-ENAMETOOLONG for a socket path beyond sun_path). */
int bus_server_new(struct manager *m, sd_event *e, const char *runtime_dir, bus_reload_t reload,
                   struct bus_server **ret);

/* Called after each cycle: answers the IdleProfile() and Metrics() calls that waited for the
 * cgroups' idle-age profiles once the cycle kept them (manager_idle_profile_ready()). NULL is
 * fine. */
void bus_server_cycle_done(struct bus_server *b);

/* Closes every connection, removes the socket and frees b. NULL is fine. */
void bus_server_free(struct bus_server *b);
