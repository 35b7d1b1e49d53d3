/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-probe.h: the manager's kernel files and capabilities (manager-probe.c). Internal to
 * the manager. */
#pragma once

#include "mglrud/core/manager.h"

/* (Re)opens lru_gen for reading (lru_gen_full if possible) and, unless dry-run, writing; sets
 * caps.lrugen_read/_full/_write and says once what is missing. */
void manager_open_lrugen(struct manager *m);
/* (Re)opens the host files. Returns 0, or a negative errno when /proc/meminfo cannot be
 * opened (the others are optional). */
int manager_open_host(struct manager *m);
/* Fills m->caps from the kernel (write probes only outside dry-run). */
void manager_probe(struct manager *m);
/* Reads this cycle's lru_gen(_full) into m->lrugen; m->lrugen_valid says whether it worked.
 * Until m->lrugen_ids is known, learns it from what was read (then reads without paths). */
void manager_read_lrugen(struct manager *m);
/* Refreshes caps.swap_compressed from /proc/swaps; a failure leaves the last value. */
void manager_read_swaps(struct manager *m);
