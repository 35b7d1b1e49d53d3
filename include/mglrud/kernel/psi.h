/* SPDX-License-Identifier: GPL-2.0-or-later */
/* psi.h: pressure stall information (<cgroup>/memory.pressure, /proc/pressure/memory). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct psi_line {
        double avg10, avg60, avg300; /* percent, as printed */
        uint64_t total_us;           /* cumulative stall time */
};

struct psi {
        struct psi_line some, full;
        bool has_full; /* the host CPU file has no "full" line on old kernels */
};

/* Parses the text of a pressure file: a "some" line and an optional "full" line, each
 * "<kind> avg10=A avg60=B avg300=C total=T\n" (every line must end in '\n', so a cut read is
 * caught). Returns 0, or -EINVAL on a malformed, duplicate or missing "some" line, with the
 * line (1-based, 0 for the whole file) in *ret_bad_line when it is not NULL. */
int psi_parse(const char *buf, size_t len, struct psi *ret, unsigned *ret_bad_line);

/* Reads and parses an open pressure file from offset 0. Returns 0, or a negative errno. */
int psi_read(int fd, struct psi *ret, unsigned *ret_bad_line);

/* Returns true and the share of time (0..1) stalled between two readings taken dt_usec apart,
 * from the "some" or the "full" totals; false when there is no rate (dt_usec 0, no "full"
 * line, or the total went backwards: the cgroup was recreated). Inline: the policy computes its
 * rates on samples without linking the reader. */
static inline bool psi_share(const struct psi *prev, const struct psi *cur, uint64_t dt_usec,
                             bool full, double *ret) {
        const struct psi_line *a = full ? &prev->full : &prev->some;
        const struct psi_line *b = full ? &cur->full : &cur->some;
        double share;

        if (dt_usec == 0 || (full && (!prev->has_full || !cur->has_full)) ||
            b->total_us < a->total_us)
                return false;
        /* The kernel's totals and the caller's clock are read at slightly different instants, so
         * the stall time can exceed the interval a little: clamp. */
        share = (double) (b->total_us - a->total_us) / (double) dt_usec;
        *ret = share < 0.0 ? 0.0 : share > 1.0 ? 1.0 : share;
        return true;
}

/* A PSI trigger (docs/design.md, "Pressure triggers"): the kernel wakes a poller (EPOLLPRI)
 * when tasks of the group stalled stall_usec or more within a window_usec tracking window.
 * The kernel accepts windows of 500 ms to 10 s and a stall within the window. */
#define PSI_TRIGGER_MIN_WINDOW_USEC (500 * UINT64_C(1000))
#define PSI_TRIGGER_MAX_WINDOW_USEC (10 * UINT64_C(1000000))

/* Formats the trigger text "some <stall> <window>" (or "full ...") the kernel parses from a
 * pressure file, into buf. Returns its length, or -EINVAL for a window outside the kernel's
 * range or a stall not within (0, window). */
int psi_trigger_format(char *buf, size_t size, bool full, uint64_t stall_usec,
                       uint64_t window_usec);

/* Opens the pressure file name under dirfd (dirfd AT_FDCWD: an absolute path) and registers a
 * trigger on it (only on cgroup2 and proc files: -EOPNOTSUPP for others, untouched). The registration writes nothing the kernel reclaims or keeps after the fd is
 * closed: closing it removes the trigger. Returns the fd to poll for EPOLLPRI (EPOLLERR: the
 * group went away), or a negative errno: -EINVAL when the kernel refuses the window (without
 * CAP_SYS_RESOURCE it takes multiples of 2 s only), -EOPNOTSUPP when PSI is off. */
int psi_trigger_open(int dirfd, const char *name, bool full, uint64_t stall_usec,
                     uint64_t window_usec);
