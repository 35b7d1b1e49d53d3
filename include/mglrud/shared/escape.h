/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape.h: cgroup names as people and protocols can take them. The kernel accepts any byte but
 * '/' and NUL in a cgroup name; D-Bus strings must be UTF-8, and a terminal interprets control
 * characters (ESC sequences); some characters show as nothing or turn the rest of the line
 * around (bidirectional controls), so that one name would look like another. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Returns a malloc'ed copy of s that D-Bus, JSON, XML and a terminal all take and show as
 * itself: valid UTF-8 without control, noncharacter or invisible code points. Each byte of a
 * sequence that is not valid UTF-8, of a C0 or C1 control character or DEL, of a Unicode
 * noncharacter (U+FDD0-U+FDEF, U+nFFFE, U+nFFFF: sd-bus refuses them) and of an invisible or
 * reordering character (Default_Ignorable_Code_Point, with the bidirectional controls; U+2028,
 * U+2029) becomes "\xNN"; a backslash becomes "\\"; everything else is copied. So a backslash
 * in the result always starts an escape, and two different strings never give the same
 * result. Plain names come back unchanged. Returns NULL on OOM. */
char *escape_path(const char *s);

/* Writes the escape_path() form of s into buf of size bytes, NUL-terminated. When it does not
 * fit, stops before the first character or escape that does not (never within one, so what
 * is written is a prefix of the whole form) and returns false; true when all of it fits. */
bool escape_path_buf(const char *s, char *buf, size_t size);
