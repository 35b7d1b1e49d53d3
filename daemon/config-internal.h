/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config-internal.h: shared between config.c (the file parser) and config-keys.c (the keys). */
#pragma once

#include <stddef.h>

#include "mglrud/config.h"

/* Parses value for [Daemon] key k into c; an empty value restores the built-in default.
 * Returns 0, -ENOMEM, or -EINVAL with a static one-line reason in *ret_reason. */
int config_parse_daemon_key(struct config *c, enum daemon_key k, const char *value,
                            const char **ret_reason);

/* Parses value (non-empty) for policy key k into p. Returns 0, or -EINVAL with a static
 * reason in *ret_reason. */
int config_parse_policy_key(struct policy *p, enum policy_key k, const char *value,
                            const char **ret_reason);
