/* SPDX-License-Identifier: GPL-2.0-or-later */
/* container_identify() on any path: the input is one cgroup path (up to the first NUL). What it
 * finds must be in the path as the layouts write it: a 64-hex container id in the last
 * component, a pod uid of hex digits and dashes, a kind that agrees with the fields. The same
 * input also goes to proc_cgroup_parse() (as /proc/PID/cgroup) and
 * container_cgroups_path_resolve() (as an OCI cgroupsPath): what they return is an absolute
 * path that fits the buffer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mglrud/kernel/container.h"

static bool all_of(const char *s, const char *set) {
        return strspn(s, set) == strlen(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct container_identity c;
        char *path = malloc(size + 1);
        if (!path)
                return 0;
        memcpy(path, data, size);
        path[size] = '\0';

        char buf[256];
        int q = proc_cgroup_parse((const char *) data, size, buf, sizeof buf);
        fuzz_check(q == 0 || q == -ENOENT || q == -EINVAL || q == -ENAMETOOLONG);
        if (q == 0)
                fuzz_check(buf[0] == '/' && strlen(buf) < sizeof buf);
        q = container_cgroups_path_resolve(path, buf, sizeof buf);
        fuzz_check(q == 0 || q == -EINVAL || q == -ENAMETOOLONG);
        if (q == 0)
                fuzz_check(buf[0] == '/');

        memset(&c, 0xa5, sizeof c);
        int r = container_identify(path, &c);
        if (path[0] != '/') {
                fuzz_check(r == -EINVAL);
                free(path);
                return 0;
        }
        fuzz_check(r == 0);
        fuzz_check(c.kind >= CONTAINER_KIND_NONE && c.kind < _CONTAINER_KIND_MAX);
        fuzz_check(c.runtime >= CONTAINER_RUNTIME_UNKNOWN && c.runtime < _CONTAINER_RUNTIME_MAX);
        fuzz_check(c.qos >= QOS_CLASS_UNKNOWN && c.qos < _QOS_CLASS_MAX);
        fuzz_check(memchr(c.id, '\0', sizeof c.id) && memchr(c.pod_uid, '\0', sizeof c.pod_uid));
        const char *last = strrchr(path, '/') + 1;
        switch (c.kind) {
        case CONTAINER_KIND_NONE:
                fuzz_check(!c.id[0] && !c.pod_uid[0] && c.runtime == CONTAINER_RUNTIME_UNKNOWN &&
                           c.qos == QOS_CLASS_UNKNOWN);
                break;
        case CONTAINER_KIND_CONTAINER:
                fuzz_check(strlen(c.id) == CONTAINER_ID_LEN && all_of(c.id, "0123456789abcdef"));
                fuzz_check(strstr(last, c.id) != NULL);
                fuzz_check(!strstr(last, "conmon"));
                fuzz_check(!c.pod_uid[0] == (c.qos == QOS_CLASS_UNKNOWN));
                break;
        case CONTAINER_KIND_POD:
                fuzz_check(!c.id[0] && c.runtime == CONTAINER_RUNTIME_UNKNOWN);
                fuzz_check(c.pod_uid[0] && c.qos != QOS_CLASS_UNKNOWN);
                break;
        default:
                fuzz_check(false);
        }
        if (c.pod_uid[0])
                fuzz_check(all_of(c.pod_uid, "0123456789abcdef-") && c.pod_uid[0] != '-' &&
                           strlen(c.pod_uid) <= POD_UID_MAX);
        free(path);
        return 0;
}
