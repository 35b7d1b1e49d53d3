/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape_path(): any byte string becomes printable UTF-8, plain names stay as they are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

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
                { "/c1 \xc2\x9b csi", "/c1 \\xc2\\x9b csi" },
                { "/overlong \xc0\xaf", "/overlong \\xc0\\xaf" },
                { "/surrogate \xed\xa0\x80", "/surrogate \\xed\\xa0\\x80" },
                { "/cut \xe2\x82", "/cut \\xe2\\x82" },
                { "/%n%s", "/%n%s" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *e = escape_path(cases[i].in);
                assert_non_null(e);
                assert_string_equal(e, cases[i].out);
                assert_true(printable(e));
                free(e);
        }
}

/* Every byte value, alone and after a lead byte: the result is always printable. */
static void test_all_bytes(void **state) {
        for (unsigned a = 1; a < 256; a++)
                for (unsigned b = 0; b < 256; b += 17) {
                        char in[4] = { (char) a, (char) b, 'x', 0 };
                        char *e = escape_path(in);
                        assert_non_null(e);
                        assert_true(printable(e));
                        free(e);
                }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_escape),
                cmocka_unit_test(test_all_bytes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
