/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/actuate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"

static int format_swappiness(int swappiness, char *buf, size_t size) {
        if (swappiness == SWAPPINESS_ANON_ONLY)
                return snprintf(buf, size, "max");
        if (swappiness < 0 || swappiness > 200)
                return -EINVAL;
        return snprintf(buf, size, "%d", swappiness);
}

int lrugen_cmd_format(const struct lrugen_cmd *cmd, char *buf, size_t size) {
        int n;
        if (cmd->node < 0)
                return -EINVAL;
        if (cmd->op == '+') {
                n = snprintf(buf, size, "+ %llu %d %llu", (unsigned long long) cmd->memcg_id,
                             cmd->node, (unsigned long long) cmd->seq);
        } else if (cmd->op == '-') {
                char swp[8];
                /* Always explicit: the default is vm.swappiness, not what the policy chose. */
                if (format_swappiness(cmd->swappiness, swp, sizeof swp) < 0 || cmd->nr_pages == 0)
                        return -EINVAL;
                n = snprintf(buf, size, "- %llu %d %llu %s %llu",
                             (unsigned long long) cmd->memcg_id, cmd->node,
                             (unsigned long long) cmd->seq, swp,
                             (unsigned long long) cmd->nr_pages);
        } else
                return -EINVAL;
        return n < 0 || (size_t) n >= size ? -EINVAL : n;
}

int reclaim_req_format(const struct reclaim_req *req, char *buf, size_t size) {
        int n;
        if (req->bytes == 0)
                return -EINVAL;
        if (req->swappiness < 0) {
                n = snprintf(buf, size, "%llu", (unsigned long long) req->bytes);
        } else {
                char swp[8];
                if (format_swappiness(req->swappiness, swp, sizeof swp) < 0)
                        return -EINVAL;
                n = snprintf(buf, size, "%llu swappiness=%s", (unsigned long long) req->bytes,
                             swp);
        }
        return n < 0 || (size_t) n >= size ? -EINVAL : n;
}

int actuate_lrugen(int lrugen_fd, const struct lrugen_cmd *cmd, enum act_mode mode) {
        char buf[128];
        int r = lrugen_cmd_format(cmd, buf, sizeof buf);
        if (r < 0)
                return r;
        if (!act_mode_allows(mode, cmd->op == '+' ? ACT_WRITE_AGE : ACT_WRITE_EVICT))
                return 0;
        if (lrugen_fd < 0)
                return -EBADF;
        return write_string_fd(lrugen_fd, buf);
}

int actuate_reclaim(int dirfd, const struct reclaim_req *req, enum act_mode mode) {
        char buf[64];
        int r = reclaim_req_format(req, buf, sizeof buf);
        if (r < 0)
                return r;
        if (!act_mode_allows(mode, ACT_WRITE_RECLAIM))
                return 0;
        r = write_string_file_at(dirfd, "memory.reclaim", buf);
        if (r < 0 && errno_is_vanished(r))
                return -ENOENT;
        return r;
}

int actuate_drop(int fd, uint64_t offset, uint64_t length, enum act_mode mode) {
        if (fd < 0 || length == 0 || offset > INT64_MAX || length > INT64_MAX - offset)
                return -EINVAL;
        if (!act_mode_allows(mode, ACT_WRITE_DROP))
                return 0;
        int r = posix_fadvise(fd, (off_t) offset, (off_t) length, POSIX_FADV_DONTNEED);
        return r == 0 ? 0 : -r;
}

int actuate_reclaim_probe(int dirfd, int swappiness) {
        char buf[32], swp[8];
        if (format_swappiness(swappiness, swp, sizeof swp) < 0)
                return -EINVAL;
        snprintf(buf, sizeof buf, "0 swappiness=%s", swp);
        return write_string_file_at(dirfd, "memory.reclaim", buf);
}
