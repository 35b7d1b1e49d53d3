/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config-attributes.c: how far a cgroup's user.mglrud.* xattrs count (man/mglrud.8, SECURITY).
 * Whoever can write a cgroup directory can set them: the root runtime's mglrud-oci-hook, but
 * also the owner of a delegated subtree or a rootless container. So the administrator says on
 * which directories they count ([Daemon] CgroupAttributes=), and where they count they may only
 * make the policy the configuration gives the cgroup more careful. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config-internal.h"
#include "mglrud/shared/macro.h"

/* How careful a mode or a StreamProtection= value is: lower is more careful. */
static int mode_rank(enum policy_mode m) {
        return m == POLICY_MODE_OFF ? 0 : m == POLICY_MODE_ADVISE ? 1 : 2;
}

static int stream_rank(enum stream_protection s) {
        return s == STREAM_PROTECTION_NO ? 0 : s == STREAM_PROTECTION_ADVISE ? 1 : 2;
}

/* Which way an annotated key may move from the configuration's value. */
enum bound_way {
        BOUND_DOWN_ONLY, /* at most the configuration's value (or a more careful mode) */
        BOUND_UP_ONLY,   /* at least the configuration's value */
};

static enum bound_way key_way(enum policy_key k) {
        switch (k) {
        case POLICY_KEY_MIN_COLD_AGE:
        case POLICY_KEY_MAX_COLD_AGE:
        case POLICY_KEY_FLOOR:
                return BOUND_UP_ONLY; /* older pages only, more kept */
        default:
                return BOUND_DOWN_ONLY; /* smaller steps, stop sooner, a more careful mode */
        }
}

/* Returns <0, 0 or >0 as key k of a is below, at or above that of b (in the key's own order;
 * two different modes of the same rank, active and pressure, compare as "above"). */
static int key_cmp(const struct policy *a, const struct policy *b, enum policy_key k) {
#define CMP(x, y) (((x) > (y)) - ((x) < (y)))
        switch (k) {
        case POLICY_KEY_MODE:
                if (a->mode != b->mode && mode_rank(a->mode) == mode_rank(b->mode))
                        return 1;
                return CMP(mode_rank(a->mode), mode_rank(b->mode));
        case POLICY_KEY_STREAM_PROTECTION:
                return CMP(stream_rank(a->stream_protection), stream_rank(b->stream_protection));
        case POLICY_KEY_MIN_COLD_AGE: return CMP(a->min_cold_age_usec, b->min_cold_age_usec);
        case POLICY_KEY_MAX_COLD_AGE: return CMP(a->max_cold_age_usec, b->max_cold_age_usec);
        case POLICY_KEY_FLOOR: return CMP(a->floor_bytes, b->floor_bytes);
        case POLICY_KEY_MAX_STEP: return CMP(a->max_step_bytes, b->max_step_bytes);
        case POLICY_KEY_PRESSURE_TARGET: return CMP(a->pressure_target, b->pressure_target);
        case POLICY_KEY_REFAULT_TARGET: return CMP(a->refault_target, b->refault_target);
        case POLICY_KEY_RECLAIM_RATIO: return CMP(a->reclaim_ratio, b->reclaim_ratio);
        case POLICY_KEY_SWAPPINESS: return CMP(a->swappiness, b->swappiness);
        case POLICY_KEY_HIGH_HEADROOM: return CMP(a->high_headroom, b->high_headroom);
        default: return 0;
        }
#undef CMP
}

/* Passes key k of a, as recorded, to note with why it was changed. */
_printf_(5, 6) static void note_key(annotation_refused_fn note, void *userdata,
                                    const struct cgroup_annotation *a, enum policy_key k,
                                    const char *fmt, ...) {
        char was[48], why[160];
        va_list ap;
        if (!note)
                return;
        va_start(ap, fmt);
        vsnprintf(why, sizeof why, fmt, ap);
        va_end(ap);
        note(policy_key_to_string(k), policy_key_format(was, sizeof was, &a->overrides, k), why,
             userdata);
}

int config_annotation_bound(const struct config *c, const struct cgroup_match *m,
                            struct cgroup_annotation *a, annotation_refused_fn note,
                            void *userdata) {
        struct cgroup_annotation named = {};
        struct policy base, probe;
        char v[48];
        int n = 0;

        /* What the sections give the cgroup, with the policy the annotation names. */
        memcpy(named.policy_name, a->policy_name, sizeof named.policy_name);
        policy_init_defaults(&named.overrides);
        struct cgroup_match bm = *m;
        bm.annotation = &named;
        (void) config_policy_for(c, &bm, &base);
        /* An exact path's Mode=off shows as off over everything: then no key counts. */
        named.set_mask = 1u << POLICY_KEY_MODE;
        named.overrides.mode = POLICY_MODE_ACTIVE;
        (void) config_policy_for(c, &bm, &probe);
        bool final_off = probe.mode == POLICY_MODE_OFF;

        for (unsigned k = 0; k < _POLICY_KEY_MAX; k++) {
                if (!(a->set_mask & (1u << k)))
                        continue;
                if (final_off) {
                        note_key(note, userdata, a, k, "an exact-path section sets Mode=off for "
                                 "this cgroup: ignored");
                        a->set_mask &= ~(1u << k);
                        n++;
                        continue;
                }
                int cmp = key_cmp(&a->overrides, &base, k);
                bool up = key_way(k) == BOUND_UP_ONLY;
                if (cmp == 0 || (up ? cmp > 0 : cmp < 0))
                        continue;
                policy_key_format(v, sizeof v, &base, k);
                if (k == POLICY_KEY_MODE || k == POLICY_KEY_STREAM_PROTECTION) {
                        /* No value in between: the configuration's stands. */
                        note_key(note, userdata, a, k, "more than the configuration's %s for "
                                 "this cgroup: ignored (an annotation may only lower it)", v);
                        a->set_mask &= ~(1u << k);
                } else {
                        note_key(note, userdata, a, k,
                                 up ? "below the configuration's %s for this cgroup: clamped "
                                      "to it (an annotation may only raise it)"
                                    : "above the configuration's %s for this cgroup: clamped "
                                      "to it (an annotation may only lower it)", v);
                        policy_copy_key(&a->overrides, &base, k);
                }
                n++;
        }
        return n;
}
