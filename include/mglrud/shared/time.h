/* SPDX-License-Identifier: GPL-2.0-or-later */
/* time.h: time units and the one clock the daemon reads (CLOCK_MONOTONIC). The policy uses the
 * units only: it never reads a clock, the daemon passes the time in. */
#pragma once

#include <stdint.h>

#define USEC_PER_MSEC UINT64_C(1000)
#define USEC_PER_SEC UINT64_C(1000000)
#define USEC_PER_MINUTE (60 * USEC_PER_SEC)

/* Returns CLOCK_MONOTONIC in microseconds. */
uint64_t now_monotonic_usec(void);
