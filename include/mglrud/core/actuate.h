/* SPDX-License-Identifier: GPL-2.0-or-later */
/* actuate.h: the only places that write to kernel files, one helper per interface. Each checks
 * dry-run itself, so no caller can write by accident while advising. Only the actuation path
 * (actuator.c) calls them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mglrud/policy/policy.h"

/* Formats an lru_gen command ("+ 42 0 7" / "- 42 0 5 max 16384") into buf. Swappiness is
 * printed in decimal without leading zeros (the 7.x kernel parses "060" as octal), 201 as "max".
 * Returns the length, or -EINVAL when it does not fit or the command is invalid. */
int lrugen_cmd_format(const struct lrugen_cmd *cmd, char *buf, size_t size);

/* Formats a memory.reclaim request ("67108864 swappiness=0"). Never formats an empty or
 * zero-byte write (6.1 reclaims everything on an empty line). Returns length or -EINVAL. */
int reclaim_req_format(const struct reclaim_req *req, char *buf, size_t size);

/* Writes one lru_gen command to the open lru_gen fd, one command per write() so errors are
 * attributable. In dry-run nothing is written and 0 is returned. Returns 0, -EINVAL (the memcg
 * is gone, or a stale sequence number), -EEXIST ('+': someone else aged), or -errno. */
int actuate_lrugen(int lrugen_fd, const struct lrugen_cmd *cmd, bool dry_run);

/* Writes one memory.reclaim request in the cgroup directory dirfd. In dry-run nothing is
 * written. Returns 0, -EAGAIN when the kernel reclaimed less than asked (not an error), -ENOENT
 * when the cgroup vanished, or -errno. */
int actuate_reclaim(int dirfd, const struct reclaim_req *req, bool dry_run);

/* Drops the clean, unmapped page-cache pages of [offset, offset + length) of the open file fd
 * (posix_fadvise POSIX_FADV_DONTNEED: dirty and writeback pages stay, nothing is written back).
 * In dry-run nothing is done. Returns 0 or a negative errno. */
int actuate_drop(int fd, uint64_t offset, uint64_t length, bool dry_run);

/* Probes whether memory.reclaim in the cgroup directory dirfd takes "swappiness=" (and "max"):
 * writes "0 swappiness=N", which reclaims nothing. Never an empty write (6.1 reclaims
 * everything on an empty line). In dry-run nothing is written and -EPERM is returned (unknown).
 * Returns 0 when accepted, -ENOENT without memory.reclaim, or the write's negative errno. */
int actuate_reclaim_probe(int dirfd, int swappiness, bool dry_run);
