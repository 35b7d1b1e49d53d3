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
 * caught). Returns 0, or -EINVAL on a malformed, duplicate or missing "some" line. */
int psi_parse(const char *buf, size_t len, struct psi *ret);

/* Reads and parses an open pressure file from offset 0. Returns 0, or a negative errno. */
int psi_read(int fd, struct psi *ret);

/* Returns the share of wall time (0..1) stalled between two samples taken wall_us apart, from
 * the "some" totals; 0 when wall_us is 0 or the counter went backwards (cgroup recreated). */
double psi_some_ratio(const struct psi *prev, const struct psi *cur, uint64_t wall_us);
/* Same from the "full" totals. */
double psi_full_ratio(const struct psi *prev, const struct psi *cur, uint64_t wall_us);
