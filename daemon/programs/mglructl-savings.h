/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mglructl-savings.h: the plain summary at the end of `mglructl advise`: what the cgroups mglrud
 * only advises on (Mode=advise; the packaged 10-first-look.conf puts every top-level slice and
 * container there) would free now, and the one drop-in that turns the advice for the largest
 * into action. Built from the IdleProfile() entries alone (mglructl-idle.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mglructl.h"

/* What one threshold would free now: anon + file idle for at least it (never the two youngest
 * generations, never below the floor); known once the profile reaches it. */
struct ctl_saving_at {
        bool known;
        uint64_t threshold_usec;
        uint64_t bytes;
};

/* One advised cgroup. */
struct ctl_saving {
        const char *path;          /* the cgroup's name as the daemon shows it */
        struct ctl_saving_at min;  /* at MinColdAge: the most Mode=active would take */
        struct ctl_saving_at t;    /* at T, where Mode=active would start */
        uint64_t horizon_usec;     /* the oldest generation's idle time (0: none yet) */
};

/* Returns what s would free by the best figure known: at T, else at MinColdAge, else 0. */
uint64_t ctl_saving_bytes(const struct ctl_saving *s);

/* Fills ret[0..n) with the Mode=advise cgroups among the IdleProfile() entries v[0..n) (the
 * host's entry and the other modes are skipped), in their order. Returns how many. */
size_t ctl_savings_collect(const struct ctl_idle *v, size_t n, struct ctl_saving *ret);

/* Writes the drop-in that makes path managed with Mode=active: its file name into name
 * ("50-web.slice.conf") and its section header into section ("[/web.slice]", glob
 * characters escaped). Returns 0, or -EINVAL when path is not a name a section can select
 * as it is shown (the daemon escaped it: a backslash, a control character) or does not fit. */
int ctl_savings_dropin(const char *path, char *name, size_t name_size, char *section,
                       size_t section_size);

/* Returns the index in s[0..n) of the cgroup the drop-in is offered for: the one that would free
 * the most now by ctl_saving_bytes() (the first of equals) among those a section can name; n when there is none. */
size_t ctl_savings_best(const struct ctl_saving *s, size_t n);

/* Prints the summary of s[0..n) to f: each cgroup with what it would free now (or why that is
 * not known yet), the total, and the drop-in for the one that would free the most. dry_run is
 * the daemon's DryRun (the drop-in then needs DryRun=no too); dropin_dir where drop-ins go.
 * Prints nothing when n is 0. Returns 0 or -EIO. */
int ctl_savings_print(FILE *f, const struct ctl_saving *s, size_t n, bool dry_run,
                      const char *dropin_dir);
