/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump.h: the stable human-readable state dump (mglructl dump, the bus Dump() method): a header
 * block for the daemon, then one block per managed cgroup, like oomctl dump. */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "mglrud/core/manager.h"

/* Writes the dump of d and the n snapshots to f. Returns 0, or -EIO on a write error. */
int dump_format(FILE *f, const struct daemon_stats *d, const struct control_snapshot *snaps,
                size_t n);
