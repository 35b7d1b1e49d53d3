/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/shared/escape.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returns the length of the valid UTF-8 sequence at s (1..4), or 0 when the bytes at s are not
 * one (overlong forms, surrogates and code points above U+10FFFF included). */
static size_t utf8_len(const unsigned char *s) {
        uint32_t cp;
        size_t n;

        if (s[0] < 0x80)
                return 1;
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
        return n;
}

/* Returns true when the sequence of len bytes at s is to be escaped. */
static bool needs_escape(const unsigned char *s, size_t len) {
        if (len == 0)
                return true; /* not UTF-8 */
        if (len == 1)
                return s[0] < 0x20 || s[0] == 0x7f || s[0] == '\\';
        /* C1 controls U+0080..U+009F: some terminals take 0x9b as CSI. */
        return len == 2 && s[0] == 0xc2 && s[1] < 0xa0;
}

char *escape_path(const char *s) {
        const unsigned char *p = (const unsigned char *) s;
        size_t len = strlen(s);
        char *out = malloc(len * 4 + 1), *w = out;

        if (!out)
                return NULL;
        while (*p) {
                size_t n = utf8_len(p);
                if (!needs_escape(p, n)) {
                        memcpy(w, p, n);
                        w += n;
                        p += n;
                        continue;
                }
                if (n == 1 && *p == '\\') {
                        *w++ = '\\';
                        *w++ = '\\';
                        p++;
                        continue;
                }
                /* Each byte of an invalid or control sequence on its own. */
                for (size_t i = 0; i < (n ? n : 1); i++)
                        w += sprintf(w, "\\x%02x", p[i]);
                p += n ? n : 1;
        }
        *w = '\0';
        return out;
}
