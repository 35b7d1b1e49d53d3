/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-protocol.h: the org.mglrud.Manager1 D-Bus API as both ends see it: where the daemon
 * listens, its names, and its errors. Header only: mglructl links no daemon code.
 *
 * Methods (all on BUS_INTERFACE at BUS_OBJECT_PATH):
 *   ListCgroups() -> a(stss)            path, id, mode, last reason
 *   GetCgroup(s path) -> a{sv}          one cgroup's state (see bus.c: append_snapshot); for
 *                                       containers also Runtime, ContainerId, PodUid, QosClass,
 *                                       AnnotatedPolicy and Annotations, each only when known
 *   GetStatus() -> a{sv}                the daemon's state
 *   Dump() -> s, Metrics() -> s         the dump and the Prometheus text
 *   Advise() -> a(ss)                   path, advice line, computed now
 *   Reload(), Pause(s), Resume(s), Set(s path, s key, s value)   root only */
#pragma once

#define BUS_SOCKET_NAME "bus"
#define BUS_SERVICE "org.mglrud.Manager1"
#define BUS_OBJECT_PATH "/org/mglrud/Manager1"
#define BUS_INTERFACE "org.mglrud.Manager1"
#define BUS_ERROR_NO_SUCH_CGROUP "org.mglrud.Manager1.NoSuchCgroup"
