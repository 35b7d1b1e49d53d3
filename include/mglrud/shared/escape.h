/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape.h: cgroup names as people and protocols can take them. The kernel accepts any byte but
 * '/' and NUL in a cgroup name; D-Bus strings must be UTF-8, and a terminal interprets control
 * characters (ESC sequences). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Returns a malloc'ed copy of s that is valid UTF-8 without control characters: a byte that is
 * not part of a valid UTF-8 sequence, a C0 or C1 control character and DEL become "\xNN" (each
 * byte), a backslash becomes "\\"; everything else is copied. Plain names come back unchanged.
 * Returns NULL on OOM. */
char *escape_path(const char *s);
