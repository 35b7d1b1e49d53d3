/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_parse_policy_key, the value parser behind every policy key of the config files and of
 * `mglructl set` (the D-Bus Set method). The input is "Key=value" (a NUL ends the value early).
 * Checks: 0 or -EINVAL; on failure a reason and the policy untouched; on success no reason
 * written, only key k changed, the value within its documented range, and policy_key_format()
 * (what config_dump writes) parsing back to the same value. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mglrud/config/config.h"

static bool ratio_equal(double a, double b) {
        return fabs(a - b) <= 1e-12 * fabs(b) + 1e-15;
}

/* Key k of a and b holds the same value (ratios up to the last bits of rounding). */
static bool key_equal(const struct policy *a, const struct policy *b, enum policy_key k) {
        switch (k) {
        case POLICY_KEY_MODE: return a->mode == b->mode;
        case POLICY_KEY_MIN_COLD_AGE: return a->min_cold_age_usec == b->min_cold_age_usec;
        case POLICY_KEY_MAX_COLD_AGE: return a->max_cold_age_usec == b->max_cold_age_usec;
        case POLICY_KEY_PRESSURE_TARGET: return ratio_equal(a->pressure_target, b->pressure_target);
        case POLICY_KEY_REFAULT_TARGET: return ratio_equal(a->refault_target, b->refault_target);
        case POLICY_KEY_SWAPPINESS: return a->swappiness == b->swappiness;
        case POLICY_KEY_FLOOR: return a->floor_bytes == b->floor_bytes;
        case POLICY_KEY_MAX_STEP: return a->max_step_bytes == b->max_step_bytes;
        case POLICY_KEY_RECLAIM_RATIO: return ratio_equal(a->reclaim_ratio, b->reclaim_ratio);
        case POLICY_KEY_STREAM_PROTECTION: return a->stream_protection == b->stream_protection;
        case POLICY_KEY_HIGH_HEADROOM: return ratio_equal(a->high_headroom, b->high_headroom);
        case _POLICY_KEY_MAX: break;
        }
        return false;
}

static bool policy_equal(const struct policy *a, const struct policy *b) {
        for (int k = 0; k < _POLICY_KEY_MAX; k++)
                if (!key_equal(a, b, k))
                        return false;
        return true;
}

/* The documented range of key k (config.h, etc/mglrud.conf). */
static bool key_in_range(const struct policy *p, enum policy_key k) {
        switch (k) {
        case POLICY_KEY_MODE: return p->mode >= 0 && p->mode < _POLICY_MODE_MAX;
        case POLICY_KEY_MIN_COLD_AGE:
                return p->min_cold_age_usec >= CONFIG_MIN_COLD_AGE_USEC &&
                       p->min_cold_age_usec <= CONFIG_MAX_COLD_AGE_USEC;
        case POLICY_KEY_MAX_COLD_AGE:
                return p->max_cold_age_usec >= CONFIG_MIN_COLD_AGE_USEC &&
                       p->max_cold_age_usec <= CONFIG_MAX_COLD_AGE_USEC;
        case POLICY_KEY_PRESSURE_TARGET: return p->pressure_target >= 0 && p->pressure_target <= 1;
        case POLICY_KEY_REFAULT_TARGET: return p->refault_target >= 0 && p->refault_target <= 1;
        case POLICY_KEY_SWAPPINESS:
                return (p->swappiness >= 0 && p->swappiness <= 200) ||
                       p->swappiness == SWAPPINESS_ANON_ONLY || p->swappiness == SWAPPINESS_AUTO;
        case POLICY_KEY_FLOOR: return true;
        case POLICY_KEY_MAX_STEP: return p->max_step_bytes >= CONFIG_MIN_MAX_STEP_BYTES;
        case POLICY_KEY_RECLAIM_RATIO: return p->reclaim_ratio > 0 && p->reclaim_ratio <= 1;
        case POLICY_KEY_STREAM_PROTECTION:
                return p->stream_protection >= 0 && p->stream_protection < _STREAM_PROTECTION_MAX;
        case POLICY_KEY_HIGH_HEADROOM: return p->high_headroom >= 0 && p->high_headroom <= 0.5;
        case _POLICY_KEY_MAX: break;
        }
        return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = malloc(size + 1);
        fuzz_check(text);
        memcpy(text, data, size);
        text[size] = '\0';

        char *value = strchr(text, '=');
        if (!value) {
                free(text);
                return 0;
        }
        *value++ = '\0';
        int k = policy_key_from_string(text);
        if (k < 0) {
                fuzz_check(k == -ENOENT);
                free(text);
                return 0;
        }

        struct policy before, p;
        static const char sentinel[] = "sentinel";
        const char *reason = sentinel;
        policy_init_defaults(&before);
        p = before;
        int r = config_parse_policy_key(&p, k, value, &reason);
        fuzz_check(r == 0 || r == -EINVAL);
        if (r < 0) {
                fuzz_check(reason != sentinel && reason && *reason);
                fuzz_check(policy_equal(&p, &before));
                free(text);
                return 0;
        }
        fuzz_check(reason == sentinel);
        fuzz_check(*value); /* the empty value (reset) is the caller's business */
        fuzz_check(key_in_range(&p, k));
        struct policy only_k = before;
        policy_copy_key(&only_k, &p, k);
        fuzz_check(policy_equal(&only_k, &p));

        /* What config_dump writes for the key parses back to the same value. */
        char buf[64];
        struct policy back;
        policy_init_defaults(&back);
        policy_key_format(buf, sizeof buf, &p, k);
        r = config_parse_policy_key(&back, k, buf, &reason);
        if (r < 0 || !key_equal(&p, &back, k))
                fprintf(stderr, "%s=%s formats as '%s', which parses back %s\n", text, value, buf,
                        r < 0 ? reason : "to another value");
        fuzz_check(r == 0 && key_equal(&p, &back, k));
        free(text);
        return 0;
}
