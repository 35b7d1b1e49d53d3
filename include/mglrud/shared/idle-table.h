/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idle-table.h: an idle-age profile as text for people: the ladder (bytes idle for at least t,
 * with what is not known yet shown as such), the re-access rate per rung and what the policy's
 * thresholds would free. One formatter for mglrud --once (from the daemon's profile) and
 * mglructl advise (from the bus), so both print the same thing. Plain values only: index 0 is
 * anon, 1 file; the flags have the values of the policy's IDLE_ROW_* (idle-profile.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
        IDLE_TABLE_PARTIAL = 1u << 0, /* a lower bound: some memory's generations end earlier */
        IDLE_TABLE_UNKNOWN = 1u << 1, /* beyond every oldest generation: not known yet */
        IDLE_TABLE_HORIZON = 1u << 2, /* the oldest generation's own idle time */
        IDLE_TABLE_NO_SWAP = 1u << 3, /* forecast: swap takes less anon than is cold */
        IDLE_TABLE_FLOOR   = 1u << 4, /* forecast: cut to the floor (memory.min, Floor=, hot) */
};

#define IDLE_TABLE_ROWS_MAX 16
#define IDLE_TABLE_FORECASTS 3
/* A re-access rate over less than this says little (pages come back at the ageing walks,
 * every T/2): the tables and the metrics show it from then on. */
#define IDLE_TABLE_REACCESS_MIN_USEC (30 * UINT64_C(1000000))

struct idle_table_row {
        uint64_t idle_usec;
        uint64_t bytes[2];
        unsigned flags;
        double reaccess;   /* share of these bytes used again per minute; < 0: not measured */
};

struct idle_table_forecast {
        const char *name;  /* "T", "MinColdAge", "MaxColdAge" */
        uint64_t threshold_usec;
        uint64_t bytes[2];
        unsigned flags;
};

struct idle_table {
        const char *title;        /* "host" or a cgroup path */
        bool unread;              /* no cycle has read it yet (paused, writes still running, a
                                   * malformed lru_gen record): nothing else is set */
        const char *policy;       /* "active, T=31s, MinColdAge=20s, MaxColdAge=1min" or NULL */
        bool has_lrugen;          /* else only the LRU lists below are known */
        size_t n_lruvecs;
        uint64_t horizon_usec;    /* 0: no generation older than the youngest holds pages */
        uint64_t aged_min_usec, aged_max_usec; /* time since the last ageing */
        uint64_t total[2], hot[2];
        struct idle_table_row rows[IDLE_TABLE_ROWS_MAX];
        size_t n_rows;
        struct idle_table_forecast forecasts[IDLE_TABLE_FORECASTS];
        size_t n_forecasts;
        uint64_t reaccess_usec;   /* time the re-access rate covers; 0: none shown */
        uint64_t reaccess_pending_usec; /* readings so far when too few to show a rate */
        bool has_lru_lists;       /* without lru_gen: memory.stat or /proc/meminfo lists */
        uint64_t active[2], inactive[2];
        const char *lru_lists_source; /* "memory.stat", "/proc/meminfo" */
};

/* Writes t as an indented block: a heading line, then the ladder and what the thresholds would
 * free, or, without lru_gen, what can and cannot be estimated. Returns 0 or -EIO. */
int idle_table_print(FILE *f, const struct idle_table *t);

/* Formats one row's bytes as the table shows them: "?" when not known yet, "≥12M" for a lower
 * bound, "12M" otherwise. Returns buf. */
const char *idle_table_bytes(char *buf, size_t size, uint64_t bytes, unsigned flags);
