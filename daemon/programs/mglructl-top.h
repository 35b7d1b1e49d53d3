/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mglructl-top.h: what mglructl top's cgroup view (mglructl-top.c) and its idle-age view
 * (mglructl-top-idle.c) share: the state of the screen, and how a line is written to it
 * (mglructl-top-screen.c, below both). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "mglructl.h"

enum { ANON, FILE_, NR_TYPES };

struct top_row {
        char path[512];
        char shown[512];       /* path with container ids shortened (shorten_ids()) */
        char container[48];    /* ctl_container_label(), "-" for other cgroups */
        char qos[16];
        char mode[16];
        uint64_t cold_age_usec;
        bool has_cold, has_psi, paused;
        uint64_t cold[NR_TYPES], reclaimed[NR_TYPES];
        double psi;
        double rate[NR_TYPES]; /* reclaimed bytes/s since the previous refresh, < 0 unknown */
};

struct top {
        sd_bus *bus;
        struct top_row *rows, *prev;
        size_t n, n_prev, alloc, alloc_prev;
        uint64_t fetched_usec;
        char status[256], info[256];
        uint64_t interval_usec;
        char sort;
        bool tty;
        unsigned cols, lines;
        bool idle_view;            /* 'i': the idle-age ladder instead of the cgroup rows */
        bool refetch;              /* fetch now, not at the next interval (the view changed) */
        sd_bus_message *idle_reply; /* IdleProfile(), holds the strings of idle[] */
        struct ctl_idle *idle;
        size_t n_idle;
};

/* mglructl-top-screen.c */
/* Writes one line, clipped to the terminal width and clearing the rest on a terminal. */
void top_emit(const struct top *t, const char *line, bool reverse);

/* Returns the end of s (of len bytes) to show after "..." in at most max bytes: it starts on a
 * whole character, never within a UTF-8 sequence (the terminal would show a broken one). */
const char *top_tail_of(const char *s, size_t len, size_t max);

/* mglructl-top-idle.c */
/* Refreshes the idle-age profiles (IdleProfile()). Returns 0 or an exit code. */
int top_fetch_idle(struct top *t);

/* Draws the idle-age view: per row the bytes idle for at least each rung. */
void top_render_idle(const struct top *t);
