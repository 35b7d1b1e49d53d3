/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.h: the controllers, as pure functions. No I/O, no clocks, no globals, no logging: the
 * daemon samples a cgroup (struct cgroup_sample) and the host (struct host_sample) each cycle,
 * calls policy_decide() with the previous and the current samples and the cgroup's persistent
 * struct policy_state, executes the decision's commands in order (or only reports them in advise
 * mode), and reports write errors back with policy_note_error().
 *
 * Controllers (docs/design.md, "Controllers"):
 *  - frequency-guided tiering: age each lruvec about every T/2, evict the generations whose pages
 *    have been idle for at least the cold threshold T; T adapts to refaults and pressure;
 *  - pressure guard (cgroup PSI some) and host guard (host PSI full, MemAvailable);
 *  - swappiness controller: splits the budget into anon-only and file-only writes so that the
 *    measured anon share of what was reclaimed follows Swappiness= (or the refault cost, auto);
 *  - one-shot stream detection: file cache growing fast without refaults is evicted earlier;
 *  - fallback without lru_gen (or Mode=pressure): memory.reclaim with the TMO step.
 * Safety: never below max(memory.min, Floor=, hot set), at most MaxStep= per cycle, exponential
 * backoff after write errors, no rates across counter resets or clock jumps. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mglrud/kernel/lrugen.h"
#include "mglrud/kernel/memcg.h"
#include "mglrud/kernel/memstat.h"
#include "mglrud/kernel/psi.h"

#define POLICY_MAX_LRUVECS 64  /* per-lruvec state slots per cgroup (memcgs × nodes) */
#define DECISION_MAX_CMDS 96   /* lru_gen commands per decision: 3 per lruvec (2 evict + age) */
#define DECISION_MAX_RECLAIMS 2

/* ---- the policy (what mglrud.conf sets per cgroup) ---- */

enum policy_mode {
        POLICY_MODE_ACTIVE,   /* drive lru_gen ageing/eviction (memory.reclaim without lru_gen) */
        POLICY_MODE_ADVISE,   /* compute and report, never write */
        POLICY_MODE_PRESSURE, /* memory.reclaim with the TMO law only */
        POLICY_MODE_OFF,      /* not managed */
        _POLICY_MODE_MAX,
};

/* StreamProtection=: drop one-shot file streams behind the reader (needs BPF). */
enum stream_protection {
        STREAM_PROTECTION_YES,
        STREAM_PROTECTION_NO,
        STREAM_PROTECTION_ADVISE,   /* classify and report "would drop …", never drop */
        _STREAM_PROTECTION_MAX,
};

#define SWAPPINESS_ANON_ONLY 201 /* "max" */
#define SWAPPINESS_AUTO (-1)

struct policy {
        enum policy_mode mode;
        uint64_t min_cold_age_usec;  /* MinColdAge= lower bound of the cold threshold T */
        uint64_t max_cold_age_usec;  /* MaxColdAge= upper bound of T */
        double pressure_target;      /* PressureTarget= PSI some share that stops reclaim */
        double refault_target;       /* RefaultTarget= refaults per minute / working set */
        int swappiness;              /* Swappiness= 0..200, SWAPPINESS_ANON_ONLY, SWAPPINESS_AUTO */
        uint64_t floor_bytes;        /* Floor= never reclaim below this */
        uint64_t max_step_bytes;     /* MaxStep= at most this much per cycle */
        double reclaim_ratio;        /* ReclaimRatio= TMO step: share of memory.current per cycle */
        enum stream_protection stream_protection; /* StreamProtection= yes, no or advise */
        double high_headroom;        /* HighHeadroom= share of memory.high (or memory.max) kept
                                      * free, 0..HEADROOM_MAX (headroom.h); 0: off */
};

/* One bit per policy key, to know which keys a section set. */
enum policy_key {
        POLICY_KEY_MODE,
        POLICY_KEY_MIN_COLD_AGE,
        POLICY_KEY_MAX_COLD_AGE,
        POLICY_KEY_PRESSURE_TARGET,
        POLICY_KEY_REFAULT_TARGET,
        POLICY_KEY_SWAPPINESS,
        POLICY_KEY_FLOOR,
        POLICY_KEY_MAX_STEP,
        POLICY_KEY_RECLAIM_RATIO,
        POLICY_KEY_STREAM_PROTECTION,
        POLICY_KEY_HIGH_HEADROOM,
        _POLICY_KEY_MAX,
};


/* Returns "Mode" etc., or NULL. */
const char *policy_key_to_string(enum policy_key k);
/* Returns the policy key named exactly name ("MaxStep"), or -ENOENT. */
int policy_key_from_string(const char *name);
/* Returns "active" etc., or NULL. */
const char *policy_mode_to_string(enum policy_mode m);
/* Returns the enum, or -EINVAL. */
int policy_mode_from_string(const char *s);
/* Returns "yes", "no", "advise", or NULL for an unknown value. */
const char *stream_protection_to_string(enum stream_protection s);
/* Copies key k from src into dst. */
void policy_copy_key(struct policy *dst, const struct policy *src, enum policy_key k);
/* Copies every key whose bit (1u << enum policy_key) is set in mask from src into dst: a
 * section or a runtime override applied over a base policy. */
void policy_copy_keys(struct policy *dst, const struct policy *src, uint32_t mask);

/* Samples more than this apart give no rates (suspend, stalled daemon, clock jump). */
#define POLICY_MAX_SAMPLE_GAP_USEC (600ULL * 1000000ULL)

/* ---- inputs ---- */

/* What the daemon read for one managed cgroup in one cycle. */
struct cgroup_sample {
        uint64_t now_usec;                     /* CLOCK_MONOTONIC when sampled */
        struct psi psi;                        /* memory.pressure */
        bool has_psi;
        struct memstat stat;                   /* memory.stat */
        struct memcg_limits limits;            /* memory.current/min/…/swap.* */
        /* This cgroup's own memcg and its unmanaged descendants, every node (not owned). */
        const struct lrugen_lruvec *lruvecs;
        size_t n_lruvecs;
        bool has_lrugen;                       /* lruvecs come from lru_gen(_full) this cycle */
        /* The daemon's own count of page-cache pages re-inserted after reclaim evicted them
         * (BPF; cumulative like memory.stat's events, docs/design.md "Refault counts you can
         * trust"), and whether it was read. */
        uint64_t own_refault_file;
        bool has_own_refault_file;
        /* The kernel's workingset_refault_file was found short for this cgroup: the rates
         * take the larger of its delta and own_refault_file's (DECISION_FLAG_OWN_REFAULTS). */
        bool refault_file_undercount;
};

/* What the daemon read for the host in one cycle. */
struct host_sample {
        uint64_t now_usec;
        struct psi psi;                        /* /proc/pressure/memory */
        bool has_psi;
        struct meminfo meminfo;
};

/* Host-wide guard limits ([Daemon] HostPressureLimit=, HostMinAvailable=). */
struct host_limits {
        double full_limit;                     /* host PSI full share (0..1); <= 0: off */
        uint64_t min_available;                /* MemAvailable floor in bytes; 0: off */
};

/* What the daemon probed at start (docs/design.md, "Kernel interfaces"). */
struct kernel_caps {
        uint64_t page_size;      /* sysconf(_SC_PAGESIZE): lru_gen counts pages of this size */
        bool lrugen_write;       /* /sys/kernel/debug/lru_gen opened O_RDWR */
        bool swappiness_max;     /* "max" accepted (lru_gen '-' and memory.reclaim), ≈6.15+ */
        bool reclaim_swappiness; /* memory.reclaim takes swappiness=N, ≈6.9+ */
        bool has_swap;           /* some swap device (zram, disk) or zswap backing exists */
        bool swap_compressed;    /* every swap device is zram: anon refaults never read disk */
        bool stream_drops;       /* BPF stream protection is loaded: the streams of cgroups with
                                  * StreamProtection=yes are dropped file by file */
};

/* ---- persistent per-cgroup state ---- */

/* (The fields of the state structs are ordered by size, widest first, to waste no padding: the
 * daemon keeps one per managed cgroup, thousands of them.) */
struct policy_lruvec_state {
        uint64_t memcg_id;
        uint64_t last_age_usec;  /* when we last asked to age it (0: never) */
        uint64_t last_age_seq;   /* the max_seq we aged from */
        uint64_t last_seen_usec; /* for slot reuse */
        /* Where our evictions put back the pages they found referenced (tiering.c:
         * rejected_since): max_seq − 1 of the last eviction, noted at the next decision... */
        uint64_t pending_reject_seq;
        /* ... with that decision's time, per generation (indexed by seq % 4). */
        struct {
                uint64_t seq, usec; /* usec 0: none */
        } rejected[4];
        int node;
        unsigned n_aged;         /* agings asked for so far (saturates at 2: calibrated) */
        bool has_pending_reject; /* pending_reject_seq is set */
};

struct policy_state {
        uint64_t cold_age_usec;      /* T, in [MinColdAge, MaxColdAge] */
        uint64_t quiet_since_usec;   /* start of the quiet streak (quiet_cycles) */
        uint64_t t_floor_usec;       /* T that refaults last showed to be needed ... */
        uint64_t t_floor_until_usec; /* ... kept as a lower bound until then */
        uint64_t last_error_usec;
        unsigned quiet_cycles;       /* consecutive cycles with few refaults and no pressure */
        unsigned raise_hold;         /* cycles left before T may be raised again */
        /* Refaults summed over the cycles since the window began (tiering_adapt): a steady
         * trickle too thin for one cycle still raises T once the window holds enough. */
        uint64_t refault_window_pages;
        uint64_t refault_window_usec;
        unsigned backoff_cycles;     /* cycles left to skip after errors */
        unsigned error_streak;       /* consecutive failed cycles (backoff = 2^(streak-1)) */
        unsigned stall_hold;         /* decisions left to skip after a pressure trigger */
        bool error_noted;            /* an error was noted since the last decision */

        /* swappiness controller */
        double anon_share_integral;  /* correction added to the target anon share */
        double measured_anon_share;  /* of what was reclaimed last cycle (has_measured) */
        double refault_rate[_LRUGEN_NR_TYPES]; /* EMA of refaults/min (pages), for auto */
        uint64_t last_planned_bytes[_LRUGEN_NR_TYPES]; /* the previous decision's split */
        bool has_measured;
        bool anon_compressed;        /* anon refaults decompress (zram, zswap) instead of reading
                                      * disk; false until zram or zswpin > pswpin is seen */
        bool last_split_free;        /* … followed the share (no type ran short) */

        /* one-shot stream detector */
        bool streaming;
        unsigned stream_cycles;      /* consecutive cycles of fast file inflow, no refaults */

        int last_reason;             /* enum decision_reason of the last decision */
        uint64_t last_decision_usec;
        /* Pages the last decision asked to evict from generations idle for T (Mode=active,
         * not over the headroom line); 0 for any other decision. What the kernel then took
         * of them tells whether those generations were idle (tiering_adapt: futile). */
        uint64_t last_cold_evict_pages;

        /* Last, so that policy_state_size() bytes are the whole state. */
        size_t n_lruvecs;
        struct policy_lruvec_state lruvecs[POLICY_MAX_LRUVECS];
};

/* Returns how many bytes of s hold its state: everything up to its last lruvec slot in use.
 * Slots beyond n_lruvecs are never read before policy_decide() fills them, so copying this
 * many bytes copies the state: the daemon keeps each cgroup's state at this size (a node can
 * run thousands of cgroups, each usually with one lruvec per node) and policy_decide() copies
 * no more than this. */
static inline size_t policy_state_size(const struct policy_state *s) {
        return offsetof(struct policy_state, lruvecs) + s->n_lruvecs * sizeof s->lruvecs[0];
}

/* Initialises state for a newly managed (or recreated) cgroup. T starts at the geometric middle
 * of [MinColdAge, MaxColdAge]: starting at MinColdAge would evict a periodically reused set on
 * the first cycles (the 30 s set measured in docs/design.md), starting at MaxColdAge would wait the
 * longest bound before the first eviction; refaults raise T quickly (×1.5) and quiet periods
 * lower it slowly (×0.9 after 6 quiet cycles), so the middle converges from either side. A raise
 * holds further raises for 2 cycles (refaults lag the evictions that caused them). */
void policy_state_init(struct policy_state *s, const struct policy *p, uint64_t now_usec);

/* Records that a write for this cgroup failed (not ENOENT/ENODEV: a removed cgroup is not an
 * error). Consecutive failures back off 1, 2, 4, 8, 16 cycles. */
void policy_note_error(struct policy_state *s, uint64_t now_usec);

/* Records that the cgroup's pressure trigger fired (tasks stalled past the threshold within the
 * trigger's window while mglrud reclaimed there): T goes up as after a cycle over
 * PressureTarget, at once, further raises wait POLICY_RAISE_HOLD_CYCLES (the averages of the
 * next cycles show the same stall), and the next decision reclaims nothing. */
void policy_note_stall(const struct policy *p, struct policy_state *s, uint64_t now_usec);

/* Pressure triggers (docs/design.md, "Pressure triggers"): the stall, within one trigger window,
 * that alone puts a cycle of interval_usec over target (PressureTarget=, or HostPressureLimit=
 * for the host's "full"), at least POLICY_TRIGGER_MIN_STALL_USEC (a shorter threshold fires on
 * the noise of every refault) and at most half the window. Returns it in usec. */
#define POLICY_TRIGGER_MIN_STALL_USEC 2000
uint64_t policy_trigger_stall_usec(double target, uint64_t interval_usec, uint64_t window_usec);

/* ---- output ---- */

enum decision_reason {
        DECISION_NONE_MODE_OFF,       /* Mode=off */
        DECISION_NONE_WARMUP,         /* no rates: first sample, counters reset, clock jump */
        DECISION_NONE_HOST_PRESSURE,  /* host PSI full or MemAvailable beyond the limits */
        DECISION_NONE_BACKOFF,        /* recent write errors */
        DECISION_NONE_PRESSURE,       /* cgroup PSI some above PressureTarget */
        DECISION_NONE_AT_FLOOR,       /* cold memory, but at max(memory.min, Floor, hot set) */
        DECISION_NONE_NOTHING_COLD,   /* nothing idle for T (or nothing reclaimable) */
        DECISION_AGE,                 /* only ageing commands */
        DECISION_EVICT_COLD,          /* evicting generations idle for at least T */
        DECISION_EVICT_STREAM,        /* evicting a one-shot file stream early */
        DECISION_TMO_STEP,            /* memory.reclaim with the TMO step */
        _DECISION_REASON_MAX,
};

/* Notes that qualify a decision (bit mask in struct decision.flags). */
enum {
        DECISION_FLAG_FIRST_SAMPLE   = 1u << 0,  /* no previous sample */
        DECISION_FLAG_COUNTER_RESET  = 1u << 1,  /* a counter went backwards: state reset */
        DECISION_FLAG_CLOCK_JUMP     = 1u << 2,  /* now <= prev now, or gap too large */
        DECISION_FLAG_NO_PSI         = 1u << 3,  /* no cgroup PSI: pressure guard blind */
        DECISION_FLAG_T_RAISED       = 1u << 4,
        DECISION_FLAG_T_LOWERED      = 1u << 5,
        DECISION_FLAG_NO_SWAP        = 1u << 6,  /* anon cold but no swap (or swap.max reached) */
        DECISION_FLAG_MIXED_ANON     = 1u << 7,  /* no "max": anon part as a mixed write */
        DECISION_FLAG_FILE_PROTECTED = 1u << 8,  /* tier counters: hot file refaulting */
        DECISION_FLAG_TRUNCATED      = 1u << 9,  /* more lruvecs than DECISION_MAX_CMDS */
        DECISION_FLAG_REFAULTS       = 1u << 10, /* refaults above RefaultTarget */
        DECISION_FLAG_OWN_REFAULTS   = 1u << 11, /* file refaults from the daemon's own count,
                                                  * above the kernel's (undercount) */
        DECISION_FLAG_HEADROOM       = 1u << 12, /* over the HighHeadroom= line: the plan
                                                  * evicts back to it (headroom.h) */
        DECISION_FLAG_OVER_LIMIT     = 1u << 13, /* over the line and not enough idle for
                                                  * MinColdAge: the working set exceeds the
                                                  * limit */
        DECISION_FLAG_FUTILE         = 1u << 14, /* the last eviction at T got under a quarter
                                                  * of what it asked: its pages were in use */
};

/* One lru_gen command: "+ memcg node seq" (ageing) or "- memcg node seq swappiness nr_pages". */
struct lrugen_cmd {
        char op;                 /* '+' or '-' */
        uint64_t memcg_id;
        int node;
        uint64_t seq;            /* '+': max_seq read; '-': evict generations <= seq */
        int swappiness;          /* -1: omit (always on '+'), 0..200, 201: "max" */
        uint64_t nr_pages;       /* '-' only */
        enum lrugen_type type;   /* '-' only: what the write is meant to take (for reporting) */
};

/* One memory.reclaim write: "<bytes> [swappiness=N|max]". */
struct reclaim_req {
        uint64_t bytes;
        int swappiness;          /* -1: omit, 0..200, 201: "max" */
};

struct decision {
        enum decision_reason reason;
        uint32_t flags;

        /* Commands, to be executed in order (per lruvec: evictions before ageing, because
         * ageing a lruvec that has 4 generations merges its oldest into the next one). */
        struct lrugen_cmd cmds[DECISION_MAX_CMDS];
        size_t n_cmds;
        struct reclaim_req reclaims[DECISION_MAX_RECLAIMS];
        size_t n_reclaims;

        /* Estimates for reporting (bytes, per type, summed over lruvecs). A generation's pages
         * have been idle at least as long as the next younger generation exists. */
        uint64_t cold_bytes[_LRUGEN_NR_TYPES];    /* idle >= T */
        uint64_t cooling_bytes[_LRUGEN_NR_TYPES]; /* idle in [T/2, T) */
        uint64_t warm_bytes[_LRUGEN_NR_TYPES];    /* younger, including the hot set */
        uint64_t hot_bytes;                       /* the two youngest generations */
        bool has_estimates;                       /* lru_gen data was there */
        uint64_t idle_horizon_usec;               /* the longest idle time the generations
                                                   * tell (idle-profile.h; 0: none): cold_bytes
                                                   * is not known when T is longer */
        uint64_t horizon_bytes[_LRUGEN_NR_TYPES]; /* idle for at least idle_horizon_usec */
        double psi_some;                          /* cgroup PSI some share over the cycle */
        bool has_psi_some;
        uint64_t cold_age_usec;                   /* T after this cycle's adaptation */
        uint64_t file_cold_age_usec;              /* T for file (shorter when streaming) */
        uint64_t floor_bytes;                     /* max(memory.min, Floor, hot set) */
        uint64_t budget_bytes;                    /* what this cycle may reclaim at most */
        uint64_t planned_bytes[_LRUGEN_NR_TYPES]; /* the anon/file split of the plan */
        double target_anon_share;                 /* what the swappiness controller aims at */
        int anon_swappiness;                      /* swappiness of the anon writes */
        unsigned n_age;                           /* ageing commands */

        /* Headroom and sizing (headroom.h), where lru_gen data was there. */
        uint64_t limit_bytes;                     /* memory.high, or memory.max; 0: not read
                                                   * (headroom off) or no limit */
        uint64_t headroom_line;                   /* (1 − HighHeadroom) × limit; 0: none */
        uint64_t headroom_excess;                 /* memory.current − the line (0: under) */
        uint64_t headroom_below_t_bytes;          /* of planned_bytes, idle for less than T */
        uint64_t need_bytes;                      /* touched within MinColdAge + headroom */
        uint64_t need_t_bytes;                    /* touched within T + headroom */
        bool need_horizon_short;                  /* the horizon is short of MinColdAge */
};

/* What the daemon does with one cgroup's decision or drops this cycle: decided once, by
 * act_mode_decide() (act-mode.h), carried by the job, obeyed by the write helpers. */
enum act_mode {
        ACT_WRITE,      /* every write decided */
        ACT_AGE_ONLY,   /* only the lru_gen ageing commands ('+'): Mode=advise, which must age
                         * for its generations to say anything about idle time */
        ACT_REPORT,     /* nothing is written: the decision is reported as advice */
        _ACT_MODE_MAX,
};

/* What a decision says, without its lru_gen commands: what the daemon keeps of a cgroup's last
 * decision (for the bus, the dump and metrics) and what a finished job reports. */
struct decision_summary {
        uint64_t cold_bytes[_LRUGEN_NR_TYPES];
        uint64_t cooling_bytes[_LRUGEN_NR_TYPES];
        uint64_t warm_bytes[_LRUGEN_NR_TYPES];
        uint64_t planned_bytes[_LRUGEN_NR_TYPES];
        uint64_t idle_horizon_usec;                /* the line says what T past it means */
        uint64_t horizon_bytes[_LRUGEN_NR_TYPES];
        uint64_t cold_age_usec;
        uint64_t file_cold_age_usec;
        uint64_t limit_bytes;                      /* as in struct decision */
        uint64_t headroom_line;
        uint64_t need_bytes;
        uint64_t need_t_bytes;
        double psi_some;
        struct reclaim_req reclaims[DECISION_MAX_RECLAIMS];
        enum decision_reason reason;
        uint32_t flags;
        int anon_swappiness;
        uint16_t n_cmds;                           /* lru_gen commands */
        uint16_t n_age;                            /* … of which ageing */
        uint8_t n_reclaims;
        uint8_t act;                               /* enum act_mode: what was done with it
                                                    * (ACT_WRITE from decision_summarize()) */
        bool has_estimates;
        bool has_psi_some;
        bool need_horizon_short;
};

/* Fills *ret with what d says (every field of the summary, copied from d). */
void decision_summarize(const struct decision *d, struct decision_summary *ret);

/* Returns "warmup", "cold-generations", … or NULL for an unknown value. */
const char *decision_reason_to_string(enum decision_reason r);

/* The memory.stat keys read from a previous sample: memory.stat's file and the event counters
 * that the policy takes deltas of or checks for a reset (guard.c), which include those the
 * refault trust check reads (core/refault-trust.c: workingset_refault_file,
 * workingset_nodereclaim, pgsteal). policy_decide() reads no other key of prev, so a caller that
 * keeps previous samples for thousands of cgroups keeps only these. */
#define POLICY_PREV_MEMSTAT_KEYS 10
extern const enum memstat_key policy_prev_memstat_keys[POLICY_PREV_MEMSTAT_KEYS];

/* What one cycle's decision for one cgroup is made from: the cgroup's settings, what the kernel
 * offers, and the cycle's readings of the cgroup and of the host. */
struct policy_input {
        const struct policy *policy;            /* the cgroup's effective policy */
        const struct kernel_caps *caps;
        const struct cgroup_sample *prev;       /* the previous sample, NULL: first cycle */
        const struct cgroup_sample *cur;
        const struct host_sample *host_prev;    /* NULL: first cycle */
        const struct host_sample *host_cur;     /* NULL: no host guard */
        const struct host_limits *host_limits;  /* NULL: no host guard */
};

/* Decides one cycle for one cgroup from in. Of in->prev's memory.stat, only the keys in
 * policy_prev_memstat_keys are read. Rates (PSI shares, refaults, measured anon share) come
 * from prev→cur deltas, i.e. they include the effect of the previous decision. Writes the new
 * state to *ret_state (which may be state itself) and the decision to *ret_decision.
 * Returns 0, or -EINVAL on inconsistent input (NULL arguments, MinColdAge > MaxColdAge,
 * swappiness out of range, lruvecs with more than 4 or unordered generations), leaving the
 * outputs untouched. */
int policy_decide(const struct policy_input *in, const struct policy_state *state,
                  struct policy_state *ret_state, struct decision *ret_decision);
