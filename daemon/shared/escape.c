/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/shared/escape.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mglrud/shared/macro.h"

/* Returns the length of the valid UTF-8 sequence at s (1..4) and its code point in *ret_cp, or
 * 0 when the bytes at s are not one (overlong forms, surrogates and code points above U+10FFFF
 * included). */
static size_t utf8_decode(const unsigned char *s, uint32_t *ret_cp) {
        uint32_t cp;
        size_t n;

        if (s[0] < 0x80) {
                *ret_cp = s[0];
                return 1;
        }
        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                n = 2, cp = s[0] & 0x1f;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                n = 3, cp = s[0] & 0x0f;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                n = 4, cp = s[0] & 0x07;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        *ret_cp = cp;
        return n;
}

/* Code points that have no glyph of their own, so that a name holding one looks like another
 * name, or that reorder what follows them on the line: Unicode's Default_Ignorable_Code_Point
 * (DerivedCoreProperties.txt; it holds the bidirectional controls U+061C, U+200E, U+200F,
 * U+202A-U+202E and U+2066-U+2069, the zero-width characters and the tag characters), and the
 * line and paragraph separators U+2028 and U+2029 (line breaks to some terminals and to
 * JavaScript). */
static const struct {
        uint32_t first, last;
} invisible[] = {
        { 0x00ad, 0x00ad },   { 0x034f, 0x034f },   { 0x061c, 0x061c },
        { 0x115f, 0x1160 },   { 0x17b4, 0x17b5 },   { 0x180b, 0x180f },
        { 0x200b, 0x200f },   { 0x2028, 0x202e },   { 0x2060, 0x206f },
        { 0x3164, 0x3164 },   { 0xfe00, 0xfe0f },   { 0xfeff, 0xfeff },
        { 0xffa0, 0xffa0 },   { 0xfff0, 0xfff8 },   { 0x1bca0, 0x1bca3 },
        { 0x1d173, 0x1d17a }, { 0xe0000, 0xe0fff },
};

/* Returns true for a Unicode noncharacter: U+FDD0-U+FDEF and the last two code points of every
 * plane (U+FFFE, U+FFFF, U+1FFFE, ... U+10FFFF). sd-bus refuses a string holding one. */
static bool is_noncharacter(uint32_t cp) {
        return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe;
}

/* Returns true when the character cp is to be escaped: a C0 or C1 control, DEL, a
 * noncharacter or an invisible one (see above). */
static bool needs_escape(uint32_t cp) {
        if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || is_noncharacter(cp))
                return true;
        for (size_t i = 0; i < ELEMENTSOF(invisible); i++)
                if (cp >= invisible[i].first && cp <= invisible[i].last)
                        return true;
        return false;
}

bool escape_path_buf(const char *s, char *buf, size_t size) {
        const unsigned char *p = (const unsigned char *) s;
        size_t w = 0;

        if (size == 0)
                return false;
        while (*p) {
                uint32_t cp = 0;
                size_t n = utf8_decode(p, &cp);
                char piece[4 * 4 + 1]; /* four bytes escaped, and snprintf's NUL */
                size_t len;
                if (n > 0 && cp == '\\')
                        len = 2, memcpy(piece, "\\\\", 2);
                else if (n > 0 && !needs_escape(cp))
                        len = n, memcpy(piece, p, n);
                else {
                        /* Each byte of an invalid or escaped sequence on its own: "\x" and
                         * two digits for every byte, so the name comes back byte for byte. */
                        len = 0;
                        for (size_t i = 0; i < (n ? n : 1); i++)
                                len += (size_t) snprintf(piece + len, sizeof piece - len,
                                                         "\\x%02x", p[i]);
                }
                if (w + len >= size) {
                        buf[w] = '\0';
                        return false;
                }
                memcpy(buf + w, piece, len);
                w += len;
                p += n ? n : 1;
        }
        buf[w] = '\0';
        return true;
}

char *escape_path(const char *s) {
        /* At worst every byte becomes "\xNN". */
        size_t size = strlen(s) * 4 + 1;
        char *out = malloc(size);

        if (out)
                (void) escape_path_buf(s, out, size);
        return out;
}
