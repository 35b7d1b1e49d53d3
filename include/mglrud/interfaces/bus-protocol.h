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
 *   IdleProfile() -> a(sa{sv}a(tttud))  the idle-age profiles as of the last cycle: the host's
 *                                       (path "") first, then every managed cgroup's. Fields:
 *                                       Kind ("host", "cgroup"), HasReading (false until a
 *                                       cycle read it: nothing else is known), HasLruGen,
 *                                       ReadAgoUSec,
 *                                       HasLruLists and {Active,Inactive}{Anon,File}Bytes (the
 *                                       LRU lists, what is known without lru_gen); with lru_gen
 *                                       Lruvecs, HorizonUSec (the oldest generation's idle time),
 *                                       Aged{Min,Max}USec (since the last ageing),
 *                                       {Total,Hot}{Anon,File}Bytes, ReaccessUSec (time the
 *                                       re-access rates cover; 0 until a minute of readings),
 *                                       ReaccessPendingUSec; for a cgroup Mode, Policy,
 *                                       ColdAgeUSec, {Min,Max}ColdAgeUSec and per threshold
 *                                       N in T, MinColdAge, MaxColdAge: ForecastNUSec,
 *                                       ForecastN{Anon,File}Bytes, ForecastNFlags. Rows: idle
 *                                       time (usec), anon and file bytes idle at least that
 *                                       long, flags (idle-table.h: IDLE_TABLE_*),
 *                                       re-access share per minute (< 0: not measured).
 *   Reload(), Pause(s), Resume(s), Set(s path, s key, s value)   root only */
#pragma once

#define BUS_SOCKET_NAME "bus"
#define BUS_SERVICE "org.mglrud.Manager1"
#define BUS_OBJECT_PATH "/org/mglrud/Manager1"
#define BUS_INTERFACE "org.mglrud.Manager1"
#define BUS_ERROR_NO_SUCH_CGROUP "org.mglrud.Manager1.NoSuchCgroup"

