/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/shared/time.h"

#include <time.h>

uint64_t now_monotonic_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / USEC_PER_MSEC;
}
