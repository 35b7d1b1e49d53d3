/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host-reader.h: the host's files (/proc/pressure/memory, /proc/meminfo, /proc/swaps), read
 * once per cycle into the host sample policy_decide() takes, and the host's idle-age profile
 * (manager-host.c). The manager owns one and hands its readings down in the cycle input. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "mglrud/core/file-trouble.h"
#include "mglrud/kernel/lrugen.h"
#include "mglrud/policy/idle-profile.h"
#include "mglrud/policy/policy.h"

/* The host's idle-age profile, over every memcg's lruvecs in lru_gen (docs/design.md,
 * "Idle-age profile"), and /proc/meminfo's LRU lists for a kernel without lru_gen. */
struct host_idle {
        bool has_profile;
        struct idle_profile profile;
        bool has_lists;
        uint64_t active[_LRUGEN_NR_TYPES], inactive[_LRUGEN_NR_TYPES];
        uint64_t read_usec;         /* CLOCK_MONOTONIC of the reading; 0: none yet */
};

struct host_reader {
        int psi_fd, meminfo_fd, swaps_fd;
        struct host_sample prev, cur; /* what policy_decide() takes, read once per cycle */
        bool has_prev;
        struct file_trouble psi_trouble, meminfo_trouble;
        struct host_idle idle;      /* the host's idle-age profile, updated each cycle */
};

/* Initializes h with no file open. */
void host_reader_init(struct host_reader *h);

/* Closes the files. */
void host_reader_done(struct host_reader *h);

/* (Re)opens the host files under proc_root. Returns 0, or a negative errno when /proc/meminfo
 * cannot be opened (the others are optional). */
int host_reader_open(struct host_reader *h, const char *proc_root);

/* Fills caps->has_swap from /proc/meminfo and caps->swap_compressed from /proc/swaps (start and
 * reload). */
void host_reader_probe(struct host_reader *h, const char *proc_root, struct kernel_caps *caps);

/* Refreshes caps->swap_compressed from /proc/swaps; a failure leaves the last value. */
void host_reader_read_swaps(struct host_reader *h, const char *proc_root,
                            struct kernel_caps *caps);

/* Reads this cycle's host sample at now_usec (the last one becomes the previous, which the
 * cycle input gets when has_prev: not on the first cycle), and caps->has_swap with it. Says
 * once when a file cannot be read or parsed. */
void host_reader_read(struct host_reader *h, const char *proc_root, uint64_t now_usec,
                      bool has_prev, struct kernel_caps *caps);

/* Updates the host's idle-age profile from this cycle's histogram l (every memcg; NULL: none
 * this cycle), or its LRU lists from /proc/meminfo. */
void host_reader_update_idle(struct host_reader *h, const struct lrugen *l, uint64_t page_size,
                             uint64_t now_usec);
