/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config-internal.h: shared between config.c (the file parser), config-keys.c (the keys),
 * config-files.c (the list of files) and config-section-index.c (the sections by name). */
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

/* The policy sections by name while loading (config-section-index.c). Zero-initialized: empty. */
struct section_index {
        size_t *slots;         /* section index + 1, 0 for empty; open addressing */
        size_t cap;            /* a power of two, at least twice the sections */
};

/* Returns the index in c->sections of the section named name, or -ENOENT; -ENOMEM. Makes room
 * for one more section, which section_index_add() then needs. */
int section_index_find(struct section_index *x, const struct config *c, const char *name);

/* Indexes c->sections[i] by its name (after a section_index_find() that said -ENOENT). */
void section_index_add(struct section_index *x, const struct config *c, size_t i);

void section_index_done(struct section_index *x);
