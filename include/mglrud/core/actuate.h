/* SPDX-License-Identifier: GPL-2.0-or-later */
/* actuate.h: the only places that write to kernel files, one helper per interface. Each takes
 * the job's mode (act-mode.h: decided once, where the decision is made) and writes only what
 * act_mode_allows() says it allows, so no caller can write by accident while advising. Only
 * the actuation path (actuator-run.c) calls them; the one write outside a job is the manager's
 * probe of memory.reclaim, which it makes only when not in dry-run. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mglrud/policy/act-mode.h"
#include "mglrud/policy/policy.h"

/* Formats an lru_gen command ("+ 42 0 7" / "- 42 0 5 max 16384") into buf. Swappiness is
 * printed in decimal without leading zeros (the 7.x kernel parses "060" as octal), 201 as "max".
 * Returns the length, or -EINVAL when it does not fit or the command is invalid. */
int lrugen_cmd_format(const struct lrugen_cmd *cmd, char *buf, size_t size);

/* Formats a memory.reclaim request ("67108864 swappiness=0"). Never formats an empty or
 * zero-byte write (6.1 reclaims everything on an empty line). Returns length or -EINVAL. */
int reclaim_req_format(const struct reclaim_req *req, char *buf, size_t size);

/* Writes one lru_gen command to the open lru_gen fd, one command per write() so errors are
 * attributable. When mode does not allow it, nothing is written and 0 is returned. Returns 0, -EINVAL (the memcg
 * is gone, or a stale sequence number), -EEXIST ('+': someone else aged), or -errno. */
int actuate_lrugen(int lrugen_fd, const struct lrugen_cmd *cmd, enum act_mode mode);

/* Writes one memory.reclaim request in the cgroup directory dirfd. When mode does not allow
 * it, nothing is written and 0 is returned. Returns 0, -EAGAIN when the kernel reclaimed less than asked (not an error), -ENOENT
 * when the cgroup vanished, or -errno. */
int actuate_reclaim(int dirfd, const struct reclaim_req *req, enum act_mode mode);

/* Drops the clean, unmapped page-cache pages of [offset, offset + length) of the open file fd
 * (posix_fadvise POSIX_FADV_DONTNEED: dirty and writeback pages stay, nothing is written back).
 * When mode does not allow it, nothing is done. Returns 0 or a negative errno. */
int actuate_drop(int fd, uint64_t offset, uint64_t length, enum act_mode mode);

/* Probes whether memory.reclaim in the cgroup directory dirfd takes "swappiness=" (and "max"):
 * writes "0 swappiness=N", which reclaims nothing. Never an empty write (6.1 reclaims
 * everything on an empty line). The caller does not probe in dry-run (manager-probe.c infers the
 * capability then). Returns 0 when accepted, -ENOENT without memory.reclaim, or the write's
 * negative errno. */
int actuate_reclaim_probe(int dirfd, int swappiness);
