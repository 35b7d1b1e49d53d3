/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mglructl-top-screen.c: how both views of mglructl top (mglructl-top.c, mglructl-top-idle.c)
 * write to the terminal: one line clipped to its width, a long path's tail. */
#include <stdio.h>
#include <string.h>

#include "mglrud/shared/macro.h"
#include "mglructl-top.h"

/* Returns the end of s (of len bytes) to show after "..." in at most max bytes: it starts on a
 * whole character, never within a UTF-8 sequence (the terminal would show a broken one). */
const char *top_tail_of(const char *s, size_t len, size_t max) {
        const char *p = s + len - max;
        while (((unsigned char) *p & 0xc0) == 0x80)
                p++;
        return p;
}

/* Writes one line, clipped to the terminal width and clearing the rest on a terminal. */
void top_emit(const struct top *t, const char *line, bool reverse) {
        size_t len = strlen(line);
        if (!t->tty) {
                puts(line);
                return;
        }
        fputs(reverse ? "\033[7m" : "", stdout);
        fwrite(line, 1, MIN(len, (size_t) t->cols), stdout);
        fputs(reverse ? "\033[K\033[0m\r\n" : "\033[K\r\n", stdout);
}
