/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape_path(): any byte string becomes text sd-bus takes and a terminal shows as itself, plain
 * names stay as they are, and the escaped form gives the name back byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>
#include <systemd/sd-bus.h>

#include "mglrud/shared/escape.h"
#include "mglrud/shared/macro.h"

/* Returns true when s is valid UTF-8 without C0/C1 controls or DEL (what a terminal and D-Bus
 * take). An escaped string is made of such characters and backslashes only. */
static bool printable(const char *s) {
        char *e = escape_path(s);
        assert_non_null(e);
        /* Escaping only doubles backslashes in a printable string. */
        size_t bs = 0;
        for (const char *p = s; *p; p++)
                bs += *p == '\\';
        bool ok = strlen(e) == strlen(s) + bs;
        free(e);
        return ok;
}

/* The reverse of escape_path(), written from its documented form: "\\" is a backslash, "\xNN"
 * the byte NN, any other backslash is an error (NULL). */
static char *unescape(const char *e) {
        char *out = malloc(strlen(e) + 1), *w = out;
        assert_non_null(out);
        for (const char *p = e; *p;) {
                unsigned b;
                if (*p != '\\')
                        *w++ = *p++;
                else if (p[1] == '\\')
                        *w++ = '\\', p += 2;
                else if (p[1] == 'x' && sscanf(p + 2, "%2x", &b) == 1 && p[2] && p[3] &&
                         strspn(p + 2, "0123456789abcdef") >= 2)
                        *w++ = (char) b, p += 4;
                else {
                        free(out);
                        return NULL;
                }
        }
        *w = '\0';
        return out;
}

/* Asserts that escape_path(in) is out (any when NULL), printable, and unescapes to in. */
static void check(const char *in, const char *out) {
        char *e = escape_path(in);
        assert_non_null(e);
        if (out)
                assert_string_equal(e, out);
        assert_true(printable(e));
        char *back = unescape(e);
        assert_non_null(back);
        assert_string_equal(back, in);
        free(back);
        free(e);
}

static void test_escape(void **state) {
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "/system.slice/foo.service", "/system.slice/foo.service" },
                { "/work load.slice/a b", "/work load.slice/a b" },
                { "/caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x90\xa7", "/caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x90\xa7" },
                { "/\xff\xfe x", "/\\xff\\xfe x" },
                { "/esc\x1b[31mred", "/esc\\x1b[31mred" },
                { "/tab\there\nnl\r\x7f", "/tab\\x09here\\x0anl\\x0d\\x7f" },
                { "/back\\slash", "/back\\\\slash" },
                { "/c1 \xc2\x80 \xc2\x9b csi \xc2\x9f", "/c1 \\xc2\\x80 \\xc2\\x9b csi \\xc2\\x9f" },
                { "/nbsp \xc2\xa0", "/nbsp \xc2\xa0" },
                { "/overlong \xc0\xaf", "/overlong \\xc0\\xaf" },
                { "/surrogate \xed\xa0\x80", "/surrogate \\xed\\xa0\\x80" },
                { "/cut \xe2\x82", "/cut \\xe2\\x82" },
                { "/above \xf4\x90\x80\x80", "/above \\xf4\\x90\\x80\\x80" },
                { "/%n%s", "/%n%s" },
                /* Noncharacters: U+FFFE, U+FFFF, U+FDD0, U+FDEF, U+1FFFE, U+10FFFF. */
                { "/nc \xef\xbf\xbe", "/nc \\xef\\xbf\\xbe" },
                { "/nc \xef\xbf\xbf", "/nc \\xef\\xbf\\xbf" },
                { "/nc \xef\xb7\x90", "/nc \\xef\\xb7\\x90" },
                { "/nc \xef\xb7\xaf", "/nc \\xef\\xb7\\xaf" },
                { "/nc \xf0\x9f\xbf\xbe", "/nc \\xf0\\x9f\\xbf\\xbe" },
                { "/nc \xf4\x8f\xbf\xbf", "/nc \\xf4\\x8f\\xbf\\xbf" },
                /* ... and their neighbours, which are characters: U+FDCF, U+FDF0, U+FFFD. */
                { "/ok \xef\xb7\x8f \xef\xb7\xb0 \xef\xbf\xbd", "/ok \xef\xb7\x8f \xef\xb7\xb0 \xef\xbf\xbd" },
                /* Bidirectional controls: U+202A, U+202E (RLO), U+2066, U+2069, U+200F, U+061C. */
                { "/bidi \xe2\x80\xaa", "/bidi \\xe2\\x80\\xaa" },
                { "/bidi \xe2\x80\xae" "evil", "/bidi \\xe2\\x80\\xae" "evil" },
                { "/bidi \xe2\x81\xa6", "/bidi \\xe2\\x81\\xa6" },
                { "/bidi \xe2\x81\xa9", "/bidi \\xe2\\x81\\xa9" },
                { "/bidi \xe2\x80\x8f", "/bidi \\xe2\\x80\\x8f" },
                { "/bidi \xd8\x9c", "/bidi \\xd8\\x9c" },
                /* Invisible: U+200B, U+FEFF, U+00AD, tag U+E0041; separators U+2028, U+2029. */
                { "/a\xe2\x80\x8b", "/a\\xe2\\x80\\x8b" },
                { "/a\xef\xbb\xbf", "/a\\xef\\xbb\\xbf" },
                { "/a\xc2\xad", "/a\\xc2\\xad" },
                { "/a\xf3\xa0\x81\x81", "/a\\xf3\\xa0\\x81\\x81" },
                { "/a\xe2\x80\xa8\xe2\x80\xa9", "/a\\xe2\\x80\\xa8\\xe2\\x80\\xa9" },
                /* Visible neighbours: U+2027, U+2030, U+2070, U+E0FFF + 1 is a private use. */
                { "/a\xe2\x80\xa7\xe2\x80\xb0\xe2\x81\xb0", "/a\xe2\x80\xa7\xe2\x80\xb0\xe2\x81\xb0" },
                { "/pua \xf3\xb0\x80\x80", "/pua \xf3\xb0\x80\x80" },
                /* A name that looks like an escape stays apart from the escaped one. */
                { "/\\xff", "/\\\\xff" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                check(cases[i].in, cases[i].out);
}

/* Every byte value, alone and after a lead byte: the result is always printable and gives the
 * input back. */
static void test_all_bytes(void **state) {
        for (unsigned a = 1; a < 256; a++)
                for (unsigned b = 0; b < 256; b += 17) {
                        char in[4] = { (char) a, (char) b, 'x', 0 };
                        check(in, NULL);
                }
}

/* escape_path_buf() in every buffer size: a prefix of the whole form that never ends within
 * a character or an escape (it unescapes to a prefix of the input), true only when it all fit. */
static void test_buf_sizes(void **state) {
        const char *in = "/a\\b\xff\xe2\x80\xae\xc3\xa9\xf0\x9f\x90\xa7 x";
        char *whole = escape_path(in), buf[128];
        assert_non_null(whole);
        size_t len = strlen(whole);
        assert_true(len < sizeof buf);
        assert_false(escape_path_buf(in, buf, 0));
        for (size_t size = 1; size <= len + 1; size++) {
                memset(buf, 'Z', sizeof buf);
                bool fit = escape_path_buf(in, buf, size);
                assert_int_equal(fit, size == len + 1);
                assert_true(strlen(buf) < size);
                assert_memory_equal(buf, whole, strlen(buf));
                char *back = unescape(buf);
                assert_non_null(back);
                assert_memory_equal(back, in, strlen(back));
                /* ... and valid UTF-8 on its own: nothing to escape again but backslashes */
                assert_true(printable(buf));
                free(back);
        }
        free(whole);
}

/* Returns the UTF-8 encoding of cp in buf (NUL-terminated). */
static char *utf8_encode(uint32_t cp, char buf[static 5]) {
        unsigned char *b = (unsigned char *) buf;
        if (cp < 0x80)
                b[0] = (unsigned char) cp, b[1] = 0;
        else if (cp < 0x800)
                b[0] = 0xc0 | (cp >> 6), b[1] = 0x80 | (cp & 0x3f), b[2] = 0;
        else if (cp < 0x10000)
                b[0] = 0xe0 | (cp >> 12), b[1] = 0x80 | ((cp >> 6) & 0x3f),
                b[2] = 0x80 | (cp & 0x3f), b[3] = 0;
        else
                b[0] = 0xf0 | (cp >> 18), b[1] = 0x80 | ((cp >> 12) & 0x3f),
                b[2] = 0x80 | ((cp >> 6) & 0x3f), b[3] = 0x80 | (cp & 0x3f), b[4] = 0;
        return buf;
}

/* Returns sd-bus's answer to appending s as a string to a new message on bus: 0 or more when it
 * takes it, -EINVAL when it is not a valid D-Bus string. */
static int bus_takes(sd_bus *bus, const char *s) {
        sd_bus_message *m = NULL;
        int r = sd_bus_message_new_method_call(bus, &m, "org.example.T", "/t", "org.example.T",
                                                "M");
        assert_int_equal(r, 0);
        r = sd_bus_message_append(m, "s", s);
        sd_bus_message_unref(m);
        return r;
}

/* Appends the escaped form of every code point in [first, last] (surrogates skipped) to chunk
 * at *len, cap bytes in all. */
static void append_escaped(uint32_t first, uint32_t last, char *chunk, size_t *len, size_t cap) {
        for (uint32_t cp = first; cp <= last; cp++) {
                if (cp >= 0xd800 && cp <= 0xdfff)
                        continue;
                char buf[5];
                assert_true(escape_path_buf(utf8_encode(cp, buf), chunk + *len, cap - *len));
                *len += strlen(chunk + *len);
        }
}

/* Every code point of the BMP, and of each other plane the first 4096 and the last 4096 (where
 * its noncharacters are; plane 14's first are the tag characters), escaped and 4096 at a time
 * joined into one string: sd-bus, which refuses noncharacters and invalid UTF-8, takes every
 * one (the bug was "Invalid argument" from every read method of the bus). A message is made on
 * a bus that is started on a socketpair and never used. */
static void test_sd_bus_takes_every_escaped_code_point(void **state) {
        int sv[2];
        sd_bus *bus = NULL;
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        assert_int_equal(sd_bus_new(&bus), 0);
        assert_int_equal(sd_bus_set_fd(bus, sv[0], sv[0]), 0);
        assert_true(sd_bus_start(bus) >= 0);

        /* The oracle says no to what the daemon once sent. */
        assert_int_equal(bus_takes(bus, "/nc \xef\xbf\xbe"), -EINVAL);
        size_t cap = 4096 * 16 + 1;
        char *chunk = malloc(cap);
        assert_non_null(chunk);
        for (uint32_t first = 0; first <= 0x10ffff; first += 4096) {
                if (first >= 0x10000 && (first & 0xffff) >= 4096 && (first & 0xffff) < 0xf000)
                        continue;
                uint32_t last = first + 4095;
                size_t len = 0;
                append_escaped(first ?: 1, last, chunk, &len, cap);
                if (bus_takes(bus, chunk) < 0)
                        fail_msg("sd-bus refuses an escaped code point in U+%04X..U+%04X",
                                 (unsigned) first, (unsigned) last);
        }
        free(chunk);
        sd_bus_close_unref(bus);
        close(sv[1]);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_escape),
                cmocka_unit_test(test_all_bytes),
                cmocka_unit_test(test_buf_sizes),
                cmocka_unit_test(test_sd_bus_takes_every_escaped_code_point),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
