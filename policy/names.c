/* SPDX-License-Identifier: GPL-2.0-or-later */
/* names.c: the names of policy keys, modes and decision reasons, and copying keys between
 * policies (a section or a runtime override applied over a base policy). */
#include <errno.h>
#include <string.h>

#include "policy-internal.h"

static const char *const policy_key_names[_POLICY_KEY_MAX] = {
        [POLICY_KEY_MODE] = "Mode",
        [POLICY_KEY_MIN_COLD_AGE] = "MinColdAge",
        [POLICY_KEY_MAX_COLD_AGE] = "MaxColdAge",
        [POLICY_KEY_PRESSURE_TARGET] = "PressureTarget",
        [POLICY_KEY_REFAULT_TARGET] = "RefaultTarget",
        [POLICY_KEY_SWAPPINESS] = "Swappiness",
        [POLICY_KEY_FLOOR] = "Floor",
        [POLICY_KEY_MAX_STEP] = "MaxStep",
        [POLICY_KEY_RECLAIM_RATIO] = "ReclaimRatio",
        [POLICY_KEY_STREAM_PROTECTION] = "StreamProtection",
        [POLICY_KEY_HIGH_HEADROOM] = "HighHeadroom",
};

static const char *const policy_mode_names[_POLICY_MODE_MAX] = {
        [POLICY_MODE_ACTIVE] = "active",
        [POLICY_MODE_ADVISE] = "advise",
        [POLICY_MODE_PRESSURE] = "pressure",
        [POLICY_MODE_OFF] = "off",
};

static const char *const stream_protection_names[_STREAM_PROTECTION_MAX] = {
        [STREAM_PROTECTION_YES] = "yes",
        [STREAM_PROTECTION_NO] = "no",
        [STREAM_PROTECTION_ADVISE] = "advise",
};

static const char *const reason_table[_DECISION_REASON_MAX] = {
        [DECISION_NONE_MODE_OFF] = "mode-off",
        [DECISION_NONE_WARMUP] = "warmup",
        [DECISION_NONE_HOST_PRESSURE] = "host-pressure",
        [DECISION_NONE_BACKOFF] = "backoff",
        [DECISION_NONE_PRESSURE] = "pressure",
        [DECISION_NONE_AT_FLOOR] = "at-floor",
        [DECISION_NONE_NOTHING_COLD] = "nothing-cold",
        [DECISION_AGE] = "age",
        [DECISION_EVICT_COLD] = "cold-generations",
        [DECISION_EVICT_STREAM] = "stream",
        [DECISION_TMO_STEP] = "tmo-step",
};

const char *policy_key_to_string(enum policy_key k) {
        return k >= 0 && k < _POLICY_KEY_MAX ? policy_key_names[k] : NULL;
}

int policy_key_from_string(const char *name) {
        for (int k = 0; k < _POLICY_KEY_MAX; k++)
                if (strcmp(name, policy_key_names[k]) == 0)
                        return k;
        return -ENOENT;
}

const char *policy_mode_to_string(enum policy_mode m) {
        return m >= 0 && m < _POLICY_MODE_MAX ? policy_mode_names[m] : NULL;
}

int policy_mode_from_string(const char *s) {
        for (int m = 0; m < _POLICY_MODE_MAX; m++)
                if (strcmp(s, policy_mode_names[m]) == 0)
                        return m;
        return -EINVAL;
}

const char *stream_protection_to_string(enum stream_protection s) {
        return s >= 0 && s < _STREAM_PROTECTION_MAX ? stream_protection_names[s] : NULL;
}

const char *decision_reason_to_string(enum decision_reason r) {
        if ((unsigned) r >= _DECISION_REASON_MAX)
                return NULL;
        return reason_table[r];
}

void policy_copy_key(struct policy *dst, const struct policy *src, enum policy_key k) {
        switch (k) {
        case POLICY_KEY_MODE:
                dst->mode = src->mode;
                break;
        case POLICY_KEY_MIN_COLD_AGE:
                dst->min_cold_age_usec = src->min_cold_age_usec;
                break;
        case POLICY_KEY_MAX_COLD_AGE:
                dst->max_cold_age_usec = src->max_cold_age_usec;
                break;
        case POLICY_KEY_PRESSURE_TARGET:
                dst->pressure_target = src->pressure_target;
                break;
        case POLICY_KEY_REFAULT_TARGET:
                dst->refault_target = src->refault_target;
                break;
        case POLICY_KEY_SWAPPINESS:
                dst->swappiness = src->swappiness;
                break;
        case POLICY_KEY_FLOOR:
                dst->floor_bytes = src->floor_bytes;
                break;
        case POLICY_KEY_MAX_STEP:
                dst->max_step_bytes = src->max_step_bytes;
                break;
        case POLICY_KEY_RECLAIM_RATIO:
                dst->reclaim_ratio = src->reclaim_ratio;
                break;
        case POLICY_KEY_STREAM_PROTECTION:
                dst->stream_protection = src->stream_protection;
                break;
        case POLICY_KEY_HIGH_HEADROOM:
                dst->high_headroom = src->high_headroom;
                break;
        case _POLICY_KEY_MAX:
                break;
        }
}

void policy_copy_keys(struct policy *dst, const struct policy *src, uint32_t mask) {
        for (unsigned k = 0; k < _POLICY_KEY_MAX; k++)
                if (mask & (1u << k))
                        policy_copy_key(dst, src, k);
}
