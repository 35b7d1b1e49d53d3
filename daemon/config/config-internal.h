/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config-internal.h: shared between config.c (the file parser), config-keys.c (the keys) and
 * config-files.c (the list of files). */
#pragma once

#include <stddef.h>

#include "mglrud/config/config.h"

/* Parses value for [Daemon] key k into c; an empty value restores the built-in default.
 * Returns 0, -ENOMEM, or -EINVAL with a static one-line reason in *ret_reason. */
int config_parse_daemon_key(struct config *c, enum daemon_key k, const char *value,
                            const char **ret_reason);

static inline void config_files_freep(char ***files) {
        config_files_free(*files);
}
