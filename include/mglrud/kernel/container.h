/* SPDX-License-Identifier: GPL-2.0-or-later */
/* container.h: what a cgroup path says about containers. Container runtimes and the kubelet
 * name their cgroups by fixed layouts (docs/design.md, "Containers"); this reads a container's
 * runtime and id, a Kubernetes pod's uid and QoS class out of a path, without I/O:
 *
 *   Docker      .../docker-<id>.scope            (systemd driver, also rootless)
 *               /docker/<id>                     (cgroupfs driver)
 *   Podman      .../libpod-<id>.scope            (machine.slice, or user@<uid>.service rootless)
 *               .../libpod-conmon-<id>.scope     conmon, not a container
 *   containerd  .../cri-containerd-<id>.scope    (Kubernetes), .../nerdctl-<id>.scope
 *   CRI-O       .../crio-<id>.scope              .../crio-conmon-<id>.scope is conmon
 *   Kubernetes, systemd driver: .../kubepods[-<qos>].slice/...kubepods[-<qos>]-pod<uid>.slice
 *               (the uid with '_' for '-'; Guaranteed pods have no <qos> part), containers
 *               below as above; cgroupfs driver: .../kubepods/[<qos>/]pod<uid>/<id> (or
 *               crio-<id>).
 *
 * Container ids are 64 lowercase hex digits; pod uids are what Kubernetes writes (a UUID with
 * dashes, or 32 hex digits for static pods). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum container_kind {
        CONTAINER_KIND_NONE,      /* no layout matched: not a container or pod */
        CONTAINER_KIND_CONTAINER, /* one container's cgroup */
        CONTAINER_KIND_POD,       /* a Kubernetes pod's cgroup (its containers are below) */
        _CONTAINER_KIND_MAX,
};

enum container_runtime {
        CONTAINER_RUNTIME_UNKNOWN, /* the layout does not say (Kubernetes cgroupfs driver) */
        CONTAINER_RUNTIME_DOCKER,
        CONTAINER_RUNTIME_PODMAN,
        CONTAINER_RUNTIME_CONTAINERD,
        CONTAINER_RUNTIME_CRIO,
        _CONTAINER_RUNTIME_MAX,
};

enum qos_class {
        QOS_CLASS_UNKNOWN,
        QOS_CLASS_GUARANTEED,
        QOS_CLASS_BURSTABLE,
        QOS_CLASS_BESTEFFORT,
        _QOS_CLASS_MAX,
};

#define CONTAINER_ID_LEN 64
#define CONTAINER_SHORT_ID_LEN 12 /* what `docker ps` shows */
#define POD_UID_MAX 64

struct container_identity {
        enum container_kind kind;
        enum container_runtime runtime;
        enum qos_class qos;
        char id[CONTAINER_ID_LEN + 1];  /* "" unless kind is CONTAINER */
        char pod_uid[POD_UID_MAX + 1];  /* with dashes; "" when not in a Kubernetes pod */
};

/* Reads the container identity of cgroup path ("/system.slice/docker-<id>.scope"; absolute,
 * '/'-separated, as the walk gives it) into *ret. A path that matches no layout, a conmon scope
 * and a container's own sub-cgroups give kind NONE. Returns 0 (always writes *ret), or -EINVAL
 * for a NULL or relative path. */
int container_identify(const char *path, struct container_identity *ret);

/* Truncates path (absolute, as container_identify() takes it) in place to its nearest component
 * that is a container's own cgroup: crun's systemd driver runs a Podman container's process in
 * "libpod-<id>.scope/container", one level below the cgroup the layout names. Returns 0 when
 * path or an ancestor is a container (path then names it), -ENOENT when none is (path
 * unchanged), -EINVAL for a NULL or relative path. */
int container_cgroup_of(char *path);

/* Returns "docker", "podman", "containerd", "crio", or NULL for UNKNOWN or out of range. */
const char *container_runtime_to_string(enum container_runtime r);
/* Parses a runtime name (case-insensitive; "cri-o" for crio). Returns the runtime or -EINVAL. */
int container_runtime_from_string(const char *s);
/* Returns "Guaranteed", "Burstable", "BestEffort" (as Kubernetes writes them), or NULL. */
const char *qos_class_to_string(enum qos_class q);
/* Parses a QoS class, case-insensitive ("besteffort", "BestEffort"). Returns it or -EINVAL. */
int qos_class_from_string(const char *s);

/* Returns the first CONTAINER_SHORT_ID_LEN characters of id (the whole id if shorter) in buf
 * (of at least CONTAINER_SHORT_ID_LEN + 1 bytes). Returns buf. */
const char *container_short_id(const char *id, char *buf, size_t size);

/* Parses /proc/PID/cgroup and copies the cgroup v2 path (the "0::PATH" line) into buf. Returns
 * 0, -ENOENT when there is no v2 line (a v1-only host), -ENAMETOOLONG when it does not fit, or
 * -EINVAL when a line is not "ID:CONTROLLERS:PATH" or the path is not absolute. */
int proc_cgroup_parse(const char *text, size_t len, char *buf, size_t size);

/* Turns an OCI config's linux.cgroupsPath into a cgroup path below the cgroup2 root: a path
 * ("/a/b", or "a/b" taken from the root) is kept; the systemd driver's "SLICE:PREFIX:NAME"
 * becomes SLICE expanded into its parents (systemd.slice(5): "a-b.slice" is
 * "/a.slice/a-b.slice"; "" and "-.slice" are the root) and then PREFIX-NAME.scope; a NAME that
 * ends in ".slice" is a slice itself, expanded alone. Returns 0, -ENAMETOOLONG, or -EINVAL for
 * an empty path or a malformed slice name. */
int container_cgroups_path_resolve(const char *cgroups_path, char *buf, size_t size);
