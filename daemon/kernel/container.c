/* SPDX-License-Identifier: GPL-2.0-or-later */
/* container.c: container and pod identities from cgroup paths (the layouts are listed in
 * container.h and docs/design.md, "Containers"). Pure: no I/O, no allocation. */
#include "mglrud/kernel/container.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "mglrud/shared/macro.h"

static const char *const runtime_names[_CONTAINER_RUNTIME_MAX] = {
        [CONTAINER_RUNTIME_DOCKER] = "docker",
        [CONTAINER_RUNTIME_PODMAN] = "podman",
        [CONTAINER_RUNTIME_CONTAINERD] = "containerd",
        [CONTAINER_RUNTIME_CRIO] = "crio",
};

static const char *const qos_names[_QOS_CLASS_MAX] = {
        [QOS_CLASS_GUARANTEED] = "Guaranteed",
        [QOS_CLASS_BURSTABLE] = "Burstable",
        [QOS_CLASS_BESTEFFORT] = "BestEffort",
};

const char *container_runtime_to_string(enum container_runtime r) {
        return r >= 0 && r < _CONTAINER_RUNTIME_MAX ? runtime_names[r] : NULL;
}

int container_runtime_from_string(const char *s) {
        if (!s)
                return -EINVAL;
        if (strcasecmp(s, "cri-o") == 0)
                return CONTAINER_RUNTIME_CRIO;
        for (int r = 0; r < _CONTAINER_RUNTIME_MAX; r++)
                if (runtime_names[r] && strcasecmp(s, runtime_names[r]) == 0)
                        return r;
        return -EINVAL;
}

const char *qos_class_to_string(enum qos_class q) {
        return q >= 0 && q < _QOS_CLASS_MAX ? qos_names[q] : NULL;
}

int qos_class_from_string(const char *s) {
        if (!s)
                return -EINVAL;
        for (int q = 0; q < _QOS_CLASS_MAX; q++)
                if (qos_names[q] && strcasecmp(s, qos_names[q]) == 0)
                        return q;
        return -EINVAL;
}

const char *container_short_id(const char *id, char *buf, size_t size) {
        if (size == 0)
                return buf;
        size_t n = MIN(strnlen(id, CONTAINER_SHORT_ID_LEN), size - 1);
        memcpy(buf, id, n);
        buf[n] = '\0';
        return buf;
}

/* One path component: [p, p + len). */
struct name {
        const char *p;
        size_t len;
};

static bool name_is(struct name n, const char *s) {
        return n.len == strlen(s) && memcmp(n.p, s, n.len) == 0;
}

static bool name_has_prefix(struct name n, const char *prefix) {
        size_t l = strlen(prefix);
        return n.len >= l && memcmp(n.p, prefix, l) == 0;
}

static bool name_has_suffix(struct name n, const char *suffix) {
        size_t l = strlen(suffix);
        return n.len >= l && memcmp(n.p + n.len - l, suffix, l) == 0;
}

/* Returns n without its first `prefix` and last `suffix` bytes (the caller checked both). */
static struct name name_strip(struct name n, size_t prefix, size_t suffix) {
        return (struct name) { n.p + prefix, n.len - prefix - suffix };
}

static bool is_lower_hex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* A container id: exactly 64 lowercase hex digits (Docker, Podman, containerd, CRI-O). */
static bool is_container_id(struct name n) {
        if (n.len != CONTAINER_ID_LEN)
                return false;
        for (size_t i = 0; i < n.len; i++)
                if (!is_lower_hex(n.p[i]))
                        return false;
        return true;
}

/* A pod uid as a cgroup name carries it: hex digits and '-' (cgroupfs driver) or '_' (systemd
 * driver, where '-' separates slice levels). Kubernetes uids are UUIDs (36 characters), static
 * pods' are 32 hex digits; anything else of hex and separators up to POD_UID_MAX is taken as
 * written. Copies the uid with dashes into buf, only when it returns true. */
static bool parse_pod_uid(struct name n, char sep, char buf[static POD_UID_MAX + 1]) {
        char uid[POD_UID_MAX + 1];
        size_t digits = 0;

        if (n.len == 0 || n.len > POD_UID_MAX)
                return false;
        for (size_t i = 0; i < n.len; i++) {
                char c = n.p[i];
                if (c == sep)
                        c = '-';
                else if (is_lower_hex(c))
                        digits++;
                else
                        return false;
                uid[i] = c;
        }
        uid[n.len] = '\0';
        /* Not a separator at either end, and at least a UUID's 32 digits. */
        if (digits < 32 || n.p[0] == sep || n.p[n.len - 1] == sep)
                return false;
        memcpy(buf, uid, n.len + 1);
        return true;
}

/* The systemd driver's pod slice: "<parents>-kubepods[-<qos>]-pod<uid>.slice", where
 * <parents>- is present when the kubelet's cgroup root is not the top (e.g. "kubelet-"). Fills
 * uid and qos. */
static bool parse_pod_slice(struct name n, char uid[static POD_UID_MAX + 1], enum qos_class *qos) {
        static const struct {
                const char *marker; /* what precedes "pod<uid>" */
                enum qos_class qos;
        } kinds[] = {
                { "kubepods-besteffort-pod", QOS_CLASS_BESTEFFORT },
                { "kubepods-burstable-pod", QOS_CLASS_BURSTABLE },
                { "kubepods-pod", QOS_CLASS_GUARANTEED },
        };
        if (!name_has_suffix(n, ".slice"))
                return false;
        struct name base = name_strip(n, 0, strlen(".slice"));
        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                size_t ml = strlen(kinds[k].marker);
                /* The marker starts the name or follows a '-' (a parent slice's name). */
                for (size_t at = 0; at + ml < base.len; at++) {
                        if ((at > 0 && base.p[at - 1] != '-') ||
                            memcmp(base.p + at, kinds[k].marker, ml) != 0)
                                continue;
                        if (!parse_pod_uid(name_strip(base, at + ml, 0), '_', uid))
                                return false;
                        *qos = kinds[k].qos;
                        return true;
                }
        }
        return false;
}

/* The cgroupfs driver's pod directory "pod<uid>" below "kubepods" or "kubepods/<qos>": parent
 * and grandparent are the components before it (len 0 when absent). */
static bool parse_pod_dir(struct name n, struct name parent, struct name grandparent,
                          char uid[static POD_UID_MAX + 1], enum qos_class *qos) {
        enum qos_class q;

        if (name_is(parent, "kubepods"))
                q = QOS_CLASS_GUARANTEED;
        else if (!name_is(grandparent, "kubepods"))
                return false;
        else if (name_is(parent, "besteffort"))
                q = QOS_CLASS_BESTEFFORT;
        else if (name_is(parent, "burstable"))
                q = QOS_CLASS_BURSTABLE;
        else
                return false;
        if (!name_has_prefix(n, "pod") || !parse_pod_uid(name_strip(n, 3, 0), '-', uid))
                return false;
        *qos = q;
        return true;
}

/* A container's own cgroup name under the systemd driver: "<prefix><id>.scope". Conmon
 * scopes ("libpod-conmon-", "crio-conmon-") have an id that is not 64 hex digits after the
 * runtime's prefix, so they fail the id check. Fills id and runtime. */
static bool parse_container_scope(struct name n, char id[static CONTAINER_ID_LEN + 1],
                                  enum container_runtime *runtime) {
        static const struct {
                const char *prefix;
                enum container_runtime runtime;
        } scopes[] = {
                { "docker-", CONTAINER_RUNTIME_DOCKER },
                { "libpod-", CONTAINER_RUNTIME_PODMAN },
                { "cri-containerd-", CONTAINER_RUNTIME_CONTAINERD },
                { "nerdctl-", CONTAINER_RUNTIME_CONTAINERD },
                { "crio-", CONTAINER_RUNTIME_CRIO },
        };
        if (!name_has_suffix(n, ".scope"))
                return false;
        for (size_t k = 0; k < ELEMENTSOF(scopes); k++) {
                size_t pl = strlen(scopes[k].prefix);
                if (!name_has_prefix(n, scopes[k].prefix))
                        continue;
                struct name idn = name_strip(n, pl, strlen(".scope"));
                if (!is_container_id(idn))
                        return false;
                memcpy(id, idn.p, idn.len);
                id[idn.len] = '\0';
                *runtime = scopes[k].runtime;
                return true;
        }
        return false;
}

/* A container below a cgroupfs-driver pod directory: "<id>" or "crio-<id>". */
static bool parse_container_dir(struct name n, char id[static CONTAINER_ID_LEN + 1],
                                enum container_runtime *runtime) {
        struct name idn = n;
        enum container_runtime rt = CONTAINER_RUNTIME_UNKNOWN;
        if (name_has_prefix(n, "crio-")) {
                idn = name_strip(n, strlen("crio-"), 0);
                rt = CONTAINER_RUNTIME_CRIO;
        }
        if (!is_container_id(idn))
                return false;
        memcpy(id, idn.p, idn.len);
        id[idn.len] = '\0';
        *runtime = rt;
        return true;
}

/* Fills last[0] with the last component of path, last[1] with the one before, and so on, up
 * to n; missing ones have length 0. */
static void last_components(const char *path, struct name *last, size_t n) {
        for (size_t i = 0; i < n; i++)
                last[i] = (struct name) { path, 0 };
        const char *end = path + strlen(path);
        for (size_t i = 0; i < n && end > path; i++) {
                const char *start = end;
                while (start > path && start[-1] != '/')
                        start--;
                last[i] = (struct name) { start, (size_t) (end - start) };
                end = start > path ? start - 1 : path;
        }
}

int container_identify(const char *path, struct container_identity *ret) {
        if (!path || path[0] != '/' || !ret)
                return -EINVAL;

        struct container_identity c = {};
        /* [0] the cgroup itself, [1] its parent, ... (the cgroupfs layout is four deep). */
        struct name n[5];
        last_components(path, n, ELEMENTSOF(n));

        if (parse_pod_slice(n[0], c.pod_uid, &c.qos) ||
            parse_pod_dir(n[0], n[1], n[2], c.pod_uid, &c.qos)) {
                c.kind = CONTAINER_KIND_POD;
        } else if (parse_container_scope(n[0], c.id, &c.runtime)) {
                c.kind = CONTAINER_KIND_CONTAINER;
                /* Inside a pod (systemd driver): the pod is the parent slice. */
                if (!parse_pod_slice(n[1], c.pod_uid, &c.qos))
                        c.pod_uid[0] = '\0';
        } else if (name_is(n[1], "docker") && is_container_id(n[0])) {
                /* Docker's cgroupfs driver: /docker/<id> (the parent may itself be nested). */
                c.kind = CONTAINER_KIND_CONTAINER;
                c.runtime = CONTAINER_RUNTIME_DOCKER;
                memcpy(c.id, n[0].p, n[0].len);
        } else if (parse_pod_dir(n[1], n[2], n[3], c.pod_uid, &c.qos) &&
                   parse_container_dir(n[0], c.id, &c.runtime)) {
                c.kind = CONTAINER_KIND_CONTAINER;
        } else {
                c = (struct container_identity) {};
        }
        *ret = c;
        return 0;
}

int container_cgroup_of(char *path) {
        if (!path || path[0] != '/')
                return -EINVAL;
        /* Cut the path after each of its components in turn, from the last one up. */
        for (size_t end = strlen(path); end > 1;) {
                struct container_identity c;
                char saved = path[end];
                path[end] = '\0';
                (void) container_identify(path, &c);
                if (c.kind == CONTAINER_KIND_CONTAINER)
                        return 0;
                path[end] = saved;
                while (end > 0 && path[end - 1] != '/')
                        end--;
                end--; /* the '/' before that component */
        }
        return -ENOENT;
}

int proc_cgroup_parse(const char *text, size_t len, char *buf, size_t size) {
        for (const char *l = text, *end = text + len; l < end;) {
                const char *nl = memchr(l, '\n', (size_t) (end - l));
                const char *le = nl ?: end;
                const char *c1 = memchr(l, ':', (size_t) (le - l));
                const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t) (le - c1 - 1)) : NULL;
                if (!c2 || c1 == l)
                        return -EINVAL;
                if (c1 - l == 1 && l[0] == '0' && c2 == c1 + 1) {
                        size_t plen = (size_t) (le - c2 - 1);
                        if (plen == 0 || c2[1] != '/' || memchr(c2 + 1, '\0', plen))
                                return -EINVAL;
                        if (plen + 1 > size)
                                return -ENAMETOOLONG;
                        memcpy(buf, c2 + 1, plen);
                        buf[plen] = '\0';
                        return 0;
                }
                l = nl ? nl + 1 : end;
        }
        return -ENOENT;
}

/* Appends s[0..len) to buf at *o. Returns 0 or -ENAMETOOLONG. */
static int append(char *buf, size_t size, size_t *o, const char *s, size_t len) {
        if (*o + len + 1 > size)
                return -ENAMETOOLONG;
        memcpy(buf + *o, s, len);
        *o += len;
        buf[*o] = '\0';
        return 0;
}

/* Appends a slice and its parents: "a-b.slice" -> "/a.slice/a-b.slice". */
static int append_slice(char *buf, size_t size, size_t *o, const char *slice, size_t len) {
        static const char suffix[] = ".slice";
        const size_t sl = sizeof suffix - 1;
        int r;

        if (len == 0 || (len == 7 && memcmp(slice, "-.slice", 7) == 0))
                return 0; /* the root slice */
        if (len <= sl || memcmp(slice + len - sl, suffix, sl) != 0 || memchr(slice, '/', len))
                return -EINVAL;
        size_t stem = len - sl;
        if (slice[0] == '-' || slice[stem - 1] == '-')
                return -EINVAL;
        for (size_t i = 0; i <= stem; i++) {
                if (i < stem && slice[i] != '-')
                        continue;
                if (i < stem && slice[i + 1] == '-')
                        return -EINVAL; /* "a--b" names no parent */
                if ((r = append(buf, size, o, "/", 1)) < 0 ||
                    (r = append(buf, size, o, slice, i)) < 0 ||
                    (r = append(buf, size, o, suffix, sl)) < 0)
                        return r;
        }
        return 0;
}

int container_cgroups_path_resolve(const char *cgroups_path, char *buf, size_t size) {
        size_t o = 0;
        int r;

        if (!cgroups_path || !*cgroups_path || size == 0)
                return -EINVAL;
        buf[0] = '\0';
        const char *c1 = strchr(cgroups_path, ':');
        if (!c1) {
                if (cgroups_path[0] != '/' && (r = append(buf, size, &o, "/", 1)) < 0)
                        return r;
                return append(buf, size, &o, cgroups_path, strlen(cgroups_path));
        }
        const char *c2 = strchr(c1 + 1, ':');
        if (!c2 || strchr(c2 + 1, ':') || !c2[1] || memchr(c1 + 1, '/', (size_t) (c2 - c1 - 1)) ||
            strchr(c2 + 1, '/'))
                return -EINVAL;
        if ((r = append_slice(buf, size, &o, cgroups_path, (size_t) (c1 - cgroups_path))) < 0)
                return r;
        const char *name = c2 + 1;
        size_t nl = strlen(name);
        if (nl > 6 && strcmp(name + nl - 6, ".slice") == 0) {
                /* A slice as the unit: its own name says all its parents. */
                o = 0;
                buf[0] = '\0';
                if ((r = append_slice(buf, size, &o, name, nl)) < 0)
                        return r;
                return o == 0 ? append(buf, size, &o, "/", 1) : 0; /* "-.slice": the root */
        }
        if ((r = append(buf, size, &o, "/", 1)) < 0)
                return r;
        if (c2 > c1 + 1 && ((r = append(buf, size, &o, c1 + 1, (size_t) (c2 - c1 - 1))) < 0 ||
                            (r = append(buf, size, &o, "-", 1)) < 0))
                return r;
        if ((r = append(buf, size, &o, name, nl)) < 0 ||
            (r = append(buf, size, &o, ".scope", 6)) < 0)
                return r;
        return 0;
}
