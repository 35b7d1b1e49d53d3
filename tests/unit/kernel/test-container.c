/* SPDX-License-Identifier: GPL-2.0-or-later */
/* container_identify(): the container layouts of Docker, Podman, containerd, CRI-O and the
 * kubelet (systemd and cgroupfs drivers) on the fixture tree tests/fixtures/containers-7.3
 * (every directory against expected-identities.txt), and single paths for the edges: conmon
 * scopes, sub-cgroups, short or upper-case ids, pod uids, a kubelet cgroup root below the top. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "mglrud/kernel/cgroupfs.h"
#include "mglrud/kernel/container.h"
#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"

#define ID_A "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID_B "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define UID_DASH "4b6a1c3e-9f2d-4e8a-b7c5-1d2e3f4a5b6c"
#define UID_US "4b6a1c3e_9f2d_4e8a_b7c5_1d2e3f4a5b6c"

static const char *kind_name(enum container_kind k) {
        return k == CONTAINER_KIND_CONTAINER ? "container" : k == CONTAINER_KIND_POD ? "pod" : "none";
}

/* Formats an identity the way expected-identities.txt writes it. */
static void format_identity(const char *path, const struct container_identity *c, char *buf,
                            size_t size) {
        snprintf(buf, size, "%s\t%s\t%s\t%s\t%s\t%s", path, kind_name(c->kind),
                 container_runtime_to_string(c->runtime) ?: "-", c->id[0] ? c->id : "-",
                 c->pod_uid[0] ? c->pod_uid : "-", qos_class_to_string(c->qos) ?: "-");
}

static struct container_identity identify(const char *path) {
        struct container_identity c;
        memset(&c, 0xa5, sizeof c);
        assert_int_equal(container_identify(path, &c), 0);
        return c;
}

static void assert_container(const char *path, enum container_runtime rt, const char *id,
                             const char *pod, enum qos_class qos) {
        struct container_identity c = identify(path);
        if (c.kind != CONTAINER_KIND_CONTAINER)
                fail_msg("%s: kind %s, expected container", path, kind_name(c.kind));
        assert_int_equal(c.runtime, rt);
        assert_string_equal(c.id, id);
        assert_string_equal(c.pod_uid, pod);
        assert_int_equal(c.qos, qos);
}

static void assert_pod(const char *path, const char *uid, enum qos_class qos) {
        struct container_identity c = identify(path);
        if (c.kind != CONTAINER_KIND_POD)
                fail_msg("%s: kind %s, expected pod", path, kind_name(c.kind));
        assert_string_equal(c.pod_uid, uid);
        assert_int_equal(c.qos, qos);
        assert_string_equal(c.id, "");
        assert_int_equal(c.runtime, CONTAINER_RUNTIME_UNKNOWN);
}

static void assert_none(const char *path) {
        struct container_identity c = identify(path);
        if (c.kind != CONTAINER_KIND_NONE)
                fail_msg("%s: kind %s (id '%s' pod '%s'), expected none", path, kind_name(c.kind),
                         c.id, c.pod_uid);
        assert_string_equal(c.id, "");
        assert_string_equal(c.pod_uid, "");
        assert_int_equal(c.qos, QOS_CLASS_UNKNOWN);
}

/* ---- the fixture tree ---- */

struct tree_walk {
        char **lines;
        size_t n, cap;
};

static int collect(const char *rel_path, uint64_t id, int dirfd, void *userdata) {
        struct tree_walk *w = userdata;
        struct container_identity c;
        char line[1024];
        assert_int_equal(container_identify(rel_path, &c), 0);
        format_identity(rel_path, &c, line, sizeof line);
        if (w->n == w->cap) {
                w->cap = w->cap ? 2 * w->cap : 64;
                w->lines = realloc(w->lines, w->cap * sizeof *w->lines);
                assert_non_null(w->lines);
        }
        w->lines[w->n++] = strdup(line);
        return 0;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void test_fixture_tree(void **state) {
        const char *fixtures = getenv("MGLRUD_FIXTURES");
        char root[PATH_MAX];
        struct tree_walk w = {};
        _cleanup_(read_buf_free) struct read_buf expected = {};

        assert_non_null(fixtures);
        snprintf(root, sizeof root, "%s/containers-7.3/cgroup", fixtures);
        assert_int_equal(cgroupfs_walk(root, collect, &w), 0);
        qsort(w.lines, w.n, sizeof *w.lines, cmp_str);

        assert_int_equal(fixture_read("containers-7.3/expected-identities.txt", &expected), 0);
        size_t i = 0, containers = 0, pods = 0;
        for (char *line = strtok(expected.data, "\n"); line; line = strtok(NULL, "\n")) {
                if (line[0] == '#')
                        continue;
                if (i >= w.n)
                        fail_msg("expected %s, but the walk ended", line);
                if (strcmp(w.lines[i], line) != 0)
                        fail_msg("walked\n  %s\nexpected\n  %s", w.lines[i], line);
                containers += strstr(line, "\tcontainer\t") != NULL;
                pods += strstr(line, "\tpod\t") != NULL;
                i++;
        }
        assert_int_equal(i, w.n);
        /* Every layout is in the tree: 15 containers, 7 pods (make-tree.py). */
        assert_int_equal(containers, 15);
        assert_int_equal(pods, 7);
        for (size_t k = 0; k < w.n; k++)
                free(w.lines[k]);
        free(w.lines);
}

/* ---- the real engines' captures (containers-7.3/engines, engines-systemd in the VM) ---- */

static const char *const engine_captures[] = { "docker-20.10.txt", "podman-4.3.txt" };

/* Adds the identity line of path to w, once. */
static void add_identity(struct tree_walk *w, const char *path) {
        char line[1024];
        struct container_identity c = identify(path);
        format_identity(path, &c, line, sizeof line);
        for (size_t i = 0; i < w->n; i++)
                if (strcmp(w->lines[i], line) == 0)
                        return;
        collect(path, 0, -1, w);
}

/* Reads one capture: its cgroup paths ("/..." lines and the "0::/..." of "NAME pid: " lines)
 * into w; the cgroup its "cgroupsPath: " line resolves to into resolved, and the cgroup of the
 * "container pid: " line into proc (each "" when absent; both PATH_MAX bytes). */
static void read_capture(const char *name, struct tree_walk *w, char *resolved, char *proc) {
        char rel[PATH_MAX], buf[PATH_MAX];
        _cleanup_(read_buf_free) struct read_buf b = {};
        char *save = NULL;

        snprintf(rel, sizeof rel, "containers-7.3/engines/%s", name);
        assert_int_equal(fixture_read(rel, &b), 0);
        resolved[0] = proc[0] = '\0';
        for (char *l = strtok_r(b.data, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                const char *pid = strstr(l, " pid: "), *cgp = "cgroupsPath: ";
                if (l[0] == '/')
                        add_identity(w, l);
                else if (pid && l[0] != '#') {
                        pid += strlen(" pid: ");
                        if (proc_cgroup_parse(pid, strlen(pid), buf, sizeof buf) < 0)
                                fail_msg("%s: no cgroup v2 path in '%s'", name, l);
                        add_identity(w, buf);
                        if (strncmp(l, "container pid: ", 15) == 0)
                                strcpy(proc, buf);
                } else if (strncmp(l, cgp, strlen(cgp)) == 0)
                        assert_int_equal(container_cgroups_path_resolve(l + strlen(cgp), resolved,
                                                                        PATH_MAX), 0);
        }
}

/* Every cgroup the real Docker 20.10 and Podman 4.3 made (or ran a process in) has the
 * identity expected-identities.txt there gives it; the runtime spec's cgroupsPath (what the
 * hook falls back to) names the container's own cgroup, and so does container_cgroup_of() of
 * the container process's cgroup (what the hook reads first: with crun, a sub-cgroup). */
static void test_engine_captures(void **state) {
        struct tree_walk w = {};
        _cleanup_(read_buf_free) struct read_buf expected = {};
        char resolved[PATH_MAX], proc[PATH_MAX];
        size_t containers = 0;

        for (size_t k = 0; k < ELEMENTSOF(engine_captures); k++) {
                size_t first = w.n;
                read_capture(engine_captures[k], &w, resolved, proc);
                assert_int_equal(container_cgroup_of(proc), 0);
                assert_string_equal(proc, resolved);
                struct container_identity c = identify(resolved[0] ? resolved : "/");
                if (c.kind != CONTAINER_KIND_CONTAINER)
                        fail_msg("%s: cgroupsPath resolves to '%s', not a container", engine_captures[k],
                                 resolved);
                bool listed = false;
                for (size_t i = first; i < w.n; i++)
                        listed |= strncmp(w.lines[i], resolved, strlen(resolved)) == 0 &&
                                  w.lines[i][strlen(resolved)] == '\t';
                if (!listed)
                        fail_msg("%s: cgroupsPath resolves to %s, which the capture does not list",
                                 engine_captures[k], resolved);
        }
        qsort(w.lines, w.n, sizeof *w.lines, cmp_str);
        assert_int_equal(fixture_read("containers-7.3/engines/expected-identities.txt", &expected), 0);
        size_t i = 0;
        for (char *line = strtok(expected.data, "\n"); line; line = strtok(NULL, "\n")) {
                if (line[0] == '#')
                        continue;
                if (i >= w.n)
                        fail_msg("expected %s, but the captures name no more cgroups", line);
                if (strcmp(w.lines[i], line) != 0)
                        fail_msg("captured\n  %s\nexpected\n  %s", w.lines[i], line);
                containers += strstr(line, "\tcontainer\t") != NULL;
                i++;
        }
        assert_int_equal(i, w.n);
        assert_int_equal(containers, ELEMENTSOF(engine_captures)); /* one container each */
        for (size_t k = 0; k < w.n; k++)
                free(w.lines[k]);
        free(w.lines);
}

/* ---- single paths ---- */

static void test_docker_podman_containerd(void **state) {
        assert_container("/system.slice/docker-" ID_A ".scope", CONTAINER_RUNTIME_DOCKER, ID_A, "",
                         QOS_CLASS_UNKNOWN);
        assert_container("/docker/" ID_B, CONTAINER_RUNTIME_DOCKER, ID_B, "", QOS_CLASS_UNKNOWN);
        /* Rootless Docker and Docker in Docker: the scope name alone says it. */
        assert_container("/user.slice/user-1000.slice/user@1000.service/docker-" ID_A ".scope",
                         CONTAINER_RUNTIME_DOCKER, ID_A, "", QOS_CLASS_UNKNOWN);
        assert_container("/docker/" ID_A "/docker/" ID_B, CONTAINER_RUNTIME_DOCKER, ID_B, "",
                         QOS_CLASS_UNKNOWN);
        assert_container("/machine.slice/libpod-" ID_A ".scope", CONTAINER_RUNTIME_PODMAN, ID_A,
                         "", QOS_CLASS_UNKNOWN);
        assert_container("/system.slice/nerdctl-" ID_A ".scope", CONTAINER_RUNTIME_CONTAINERD,
                         ID_A, "", QOS_CLASS_UNKNOWN);
}

static void test_not_containers(void **state) {
        assert_none("/");
        assert_none("/system.slice");
        assert_none("/system.slice/docker.service");
        /* conmon, the container monitor of Podman and CRI-O, is no container */
        assert_none("/machine.slice/libpod-conmon-" ID_A ".scope");
        assert_none("/kubepods.slice/kubepods-pod" UID_US ".slice/crio-conmon-" ID_A ".scope");
        assert_none("/kubepods/pod" UID_DASH "/crio-conmon-" ID_A);
        /* a container's own sub-cgroups */
        assert_none("/machine.slice/libpod-" ID_A ".scope/container");
        assert_none("/system.slice/docker-" ID_A ".scope/init.scope");
        /* ids that are not 64 lowercase hex digits */
        assert_none("/system.slice/docker-3f2a9c1b7e4d.scope");
        assert_none("/system.slice/docker-" ID_A "0.scope");
        assert_none("/system.slice/docker-0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.scope");
        assert_none("/system.slice/docker-" ID_A ".service");
        assert_none("/system.slice/docker-" ID_A);
        assert_none("/dockerx/" ID_A);
        assert_none("/" ID_A);
        /* pod-like names outside the kubelet's layout */
        assert_none("/pod" UID_DASH);
        assert_none("/kubepods/guaranteed/pod" UID_DASH);
        assert_none("/other/besteffort/pod" UID_DASH);
        assert_none("/kubepods.slice/kubepods-besteffort.slice");
        assert_none("/kubepods.slice/kubepods-besteffort-podxyz.slice");
        assert_none("/kubepods.slice/kubepods-pod" UID_US ".scope");
        assert_none("/kubepods.slice/mykubepods-pod" UID_US ".slice");
        assert_none("/kubepods.slice/kubepods-pod_" UID_US ".slice");
        /* a container directory below a pod needs the id exactly */
        assert_none("/kubepods/pod" UID_DASH "/" "0123");
}

static void test_kubernetes_systemd(void **state) {
        const char *be = "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_US
                         ".slice";
        char p[512];
        assert_pod(be, UID_DASH, QOS_CLASS_BESTEFFORT);
        snprintf(p, sizeof p, "%s/cri-containerd-" ID_A ".scope", be);
        assert_container(p, CONTAINER_RUNTIME_CONTAINERD, ID_A, UID_DASH, QOS_CLASS_BESTEFFORT);
        snprintf(p, sizeof p, "%s/crio-" ID_B ".scope", be);
        assert_container(p, CONTAINER_RUNTIME_CRIO, ID_B, UID_DASH, QOS_CLASS_BESTEFFORT);
        /* cri-dockerd: Docker's scope in a pod */
        snprintf(p, sizeof p, "%s/docker-" ID_B ".scope", be);
        assert_container(p, CONTAINER_RUNTIME_DOCKER, ID_B, UID_DASH, QOS_CLASS_BESTEFFORT);

        assert_pod("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_US ".slice",
                   UID_DASH, QOS_CLASS_BURSTABLE);
        assert_pod("/kubepods.slice/kubepods-pod" UID_US ".slice", UID_DASH, QOS_CLASS_GUARANTEED);
        assert_container("/kubepods.slice/kubepods-pod" UID_US ".slice/cri-containerd-" ID_A
                         ".scope", CONTAINER_RUNTIME_CONTAINERD, ID_A, UID_DASH,
                         QOS_CLASS_GUARANTEED);
        /* static pods: a 32-digit hash as uid */
        assert_pod("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                   "0123456789abcdef0123456789abcdef.slice",
                   "0123456789abcdef0123456789abcdef", QOS_CLASS_BURSTABLE);
        /* a kubelet cgroup root below the top (kind, --cgroup-root=/kubelet.slice) */
        assert_pod("/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
                   "kubelet-kubepods-besteffort-pod" UID_US ".slice",
                   UID_DASH, QOS_CLASS_BESTEFFORT);
}

static void test_kubernetes_cgroupfs(void **state) {
        assert_pod("/kubepods/besteffort/pod" UID_DASH, UID_DASH, QOS_CLASS_BESTEFFORT);
        assert_pod("/kubepods/burstable/pod" UID_DASH, UID_DASH, QOS_CLASS_BURSTABLE);
        assert_pod("/kubepods/pod" UID_DASH, UID_DASH, QOS_CLASS_GUARANTEED);
        assert_pod("/kubelet/kubepods/pod" UID_DASH, UID_DASH, QOS_CLASS_GUARANTEED);
        assert_container("/kubepods/besteffort/pod" UID_DASH "/" ID_A, CONTAINER_RUNTIME_UNKNOWN,
                         ID_A, UID_DASH, QOS_CLASS_BESTEFFORT);
        assert_container("/kubepods/burstable/pod" UID_DASH "/crio-" ID_A, CONTAINER_RUNTIME_CRIO,
                         ID_A, UID_DASH, QOS_CLASS_BURSTABLE);
        assert_container("/kubepods/pod" UID_DASH "/" ID_B, CONTAINER_RUNTIME_UNKNOWN, ID_B,
                         UID_DASH, QOS_CLASS_GUARANTEED);
}

static void test_names(void **state) {
        struct container_identity c;
        char buf[CONTAINER_SHORT_ID_LEN + 1];

        assert_int_equal(container_identify(NULL, &c), -EINVAL);
        assert_int_equal(container_identify("system.slice/docker-" ID_A ".scope", &c), -EINVAL);
        assert_int_equal(container_identify("/x", NULL), -EINVAL);

        assert_string_equal(container_short_id(ID_A, buf, sizeof buf), "0123456789ab");
        assert_string_equal(container_short_id("abc", buf, sizeof buf), "abc");
        char small[4];
        assert_string_equal(container_short_id(ID_A, small, sizeof small), "012");

        for (int r = CONTAINER_RUNTIME_DOCKER; r < _CONTAINER_RUNTIME_MAX; r++)
                assert_int_equal(container_runtime_from_string(container_runtime_to_string(r)), r);
        assert_int_equal(container_runtime_from_string("CRI-O"), CONTAINER_RUNTIME_CRIO);
        assert_int_equal(container_runtime_from_string("Docker"), CONTAINER_RUNTIME_DOCKER);
        assert_int_equal(container_runtime_from_string("lxc"), -EINVAL);
        assert_int_equal(container_runtime_from_string(""), -EINVAL);
        assert_null(container_runtime_to_string(CONTAINER_RUNTIME_UNKNOWN));
        assert_null(container_runtime_to_string(_CONTAINER_RUNTIME_MAX));

        assert_int_equal(qos_class_from_string("besteffort"), QOS_CLASS_BESTEFFORT);
        assert_int_equal(qos_class_from_string("BestEffort"), QOS_CLASS_BESTEFFORT);
        assert_int_equal(qos_class_from_string("Guaranteed"), QOS_CLASS_GUARANTEED);
        assert_int_equal(qos_class_from_string("burstable"), QOS_CLASS_BURSTABLE);
        assert_int_equal(qos_class_from_string("best-effort"), -EINVAL);
        assert_string_equal(qos_class_to_string(QOS_CLASS_BESTEFFORT), "BestEffort");
        assert_null(qos_class_to_string(QOS_CLASS_UNKNOWN));
}

static void assert_resolves(const char *cgroups_path, const char *expected) {
        char buf[512];
        int r = container_cgroups_path_resolve(cgroups_path, buf, sizeof buf);
        if (r < 0)
                fail_msg("%s: %s", cgroups_path, strerror(-r));
        assert_string_equal(buf, expected);
}

static void test_cgroups_path_resolve(void **state) {
        char small[16], buf[256];
        assert_resolves("/system.slice/docker-" ID_A ".scope", "/system.slice/docker-" ID_A ".scope");
        assert_resolves("machine.slice/x", "/machine.slice/x");
        assert_resolves("system.slice:docker:" ID_A, "/system.slice/docker-" ID_A ".scope");
        assert_resolves("kubepods-besteffort-pod" UID_US ".slice:cri-containerd:" ID_A,
                        "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
                        UID_US ".slice/cri-containerd-" ID_A ".scope");
        assert_resolves(":libpod:" ID_A, "/libpod-" ID_A ".scope");
        assert_resolves("-.slice:libpod:" ID_A, "/libpod-" ID_A ".scope");
        assert_resolves("system.slice::" ID_A, "/system.slice/" ID_A ".scope");
        assert_resolves("system.slice::kubepods-pod" UID_US ".slice",
                        "/kubepods.slice/kubepods-pod" UID_US ".slice");
        assert_int_equal(container_cgroups_path_resolve("", buf, sizeof buf), -EINVAL);
        assert_int_equal(container_cgroups_path_resolve(NULL, buf, sizeof buf), -EINVAL);
        assert_int_equal(container_cgroups_path_resolve("a:b", buf, sizeof buf), -EINVAL);
        assert_int_equal(container_cgroups_path_resolve("a.slice:b:", buf, sizeof buf), -EINVAL);
        assert_int_equal(container_cgroups_path_resolve("a:b:c:d", buf, sizeof buf), -EINVAL);
        assert_int_equal(container_cgroups_path_resolve("system:docker:x", buf, sizeof buf), -EINVAL);
        assert_int_equal(container_cgroups_path_resolve("a--b.slice:p:x", buf, sizeof buf), -EINVAL);
        assert_int_equal(container_cgroups_path_resolve("a-.slice:p:x", buf, sizeof buf), -EINVAL);
        assert_int_equal(container_cgroups_path_resolve("a.slice:p:x/y", buf, sizeof buf), -EINVAL);
        assert_int_equal(container_cgroups_path_resolve("system.slice:docker:" ID_A, small,
                                                        sizeof small), -ENAMETOOLONG);
}

static void test_cgroup_of(void **state) {
        char p[PATH_MAX];
        strcpy(p, "/machine.slice/libpod-" ID_A ".scope/container");
        assert_int_equal(container_cgroup_of(p), 0);
        assert_string_equal(p, "/machine.slice/libpod-" ID_A ".scope");
        strcpy(p, "/system.slice/docker-" ID_A ".scope");
        assert_int_equal(container_cgroup_of(p), 0);
        assert_string_equal(p, "/system.slice/docker-" ID_A ".scope");
        strcpy(p, "/kubepods/besteffort/pod" UID_DASH "/" ID_B "/a/b");
        assert_int_equal(container_cgroup_of(p), 0);
        assert_string_equal(p, "/kubepods/besteffort/pod" UID_DASH "/" ID_B);
        /* No container on the way up: the path is left whole. */
        strcpy(p, "/system.slice/mglrud-vm-scenario.service/x");
        assert_int_equal(container_cgroup_of(p), -ENOENT);
        assert_string_equal(p, "/system.slice/mglrud-vm-scenario.service/x");
        strcpy(p, "/machine.slice/libpod-conmon-" ID_A ".scope");
        assert_int_equal(container_cgroup_of(p), -ENOENT);
        assert_string_equal(p, "/machine.slice/libpod-conmon-" ID_A ".scope");
        strcpy(p, "/");
        assert_int_equal(container_cgroup_of(p), -ENOENT);
        assert_string_equal(p, "/");
        assert_int_equal(container_cgroup_of(NULL), -EINVAL);
        strcpy(p, "system.slice");
        assert_int_equal(container_cgroup_of(p), -EINVAL);
}

static void test_proc_cgroup(void **state) {
        char buf[256], small[8];
        static const char v2[] = "0::/system.slice/docker-" ID_A ".scope\n";
        static const char hybrid[] = "12:memory:/docker/" ID_A "\n1:name=systemd:/x\n0::/init.scope\n";
        static const char v1[] = "12:memory:/docker/" ID_A "\n";
        assert_int_equal(proc_cgroup_parse(v2, strlen(v2), buf, sizeof buf), 0);
        assert_string_equal(buf, "/system.slice/docker-" ID_A ".scope");
        assert_int_equal(proc_cgroup_parse(hybrid, strlen(hybrid), buf, sizeof buf), 0);
        assert_string_equal(buf, "/init.scope");
        assert_int_equal(proc_cgroup_parse("0::/\n", 5, buf, sizeof buf), 0);
        assert_string_equal(buf, "/");
        assert_int_equal(proc_cgroup_parse("0::/a", 5, buf, sizeof buf), 0); /* no final newline */
        assert_string_equal(buf, "/a");
        assert_int_equal(proc_cgroup_parse(v1, strlen(v1), buf, sizeof buf), -ENOENT);
        assert_int_equal(proc_cgroup_parse("", 0, buf, sizeof buf), -ENOENT);
        assert_int_equal(proc_cgroup_parse("garbage\n", 8, buf, sizeof buf), -EINVAL);
        assert_int_equal(proc_cgroup_parse("0::relative\n", 12, buf, sizeof buf), -EINVAL);
        assert_int_equal(proc_cgroup_parse("0::\n", 4, buf, sizeof buf), -EINVAL);
        assert_int_equal(proc_cgroup_parse(v2, strlen(v2), small, sizeof small), -ENAMETOOLONG);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fixture_tree),
                cmocka_unit_test(test_engine_captures),
                cmocka_unit_test(test_docker_podman_containerd),
                cmocka_unit_test(test_not_containers),
                cmocka_unit_test(test_kubernetes_systemd),
                cmocka_unit_test(test_kubernetes_cgroupfs),
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_cgroups_path_resolve),
                cmocka_unit_test(test_proc_cgroup),
                cmocka_unit_test(test_cgroup_of),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
