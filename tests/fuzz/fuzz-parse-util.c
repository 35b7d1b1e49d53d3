/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mglrud/shared/parse-util.h"

/* The first byte picks the parser, the rest is its input (as a NUL-terminated string for the
 * string parsers; embedded NULs just end it early). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        const char *s = (const char *) data + 1;
        size_t len = size - 1;
        char *str = malloc(len + 1);
        char buf[64];
        uint64_t u = 4242;
        double d = -1;
        int r;

        fuzz_check(str);
        memcpy(str, s, len);
        str[len] = '\0';

        switch (data[0] % 7) {
        case 0:
                r = parse_u64_n(s, len, &u);
                fuzz_check(r == 0 || r == -EINVAL || r == -ERANGE);
                fuzz_check(r == 0 || u == 4242);
                break;
        case 1:
                r = parse_decimal_n(s, len, &d);
                fuzz_check(r == 0 || r == -EINVAL);
                fuzz_check(r < 0 ? d == -1 : d >= 0);
                break;
        case 2:
                r = parse_size(str, &u);
                fuzz_check(r == 0 || r == -EINVAL || r == -ERANGE);
                if (r == 0) {
                        uint64_t back;
                        fuzz_check(parse_size(format_bytes(buf, sizeof(buf), u), &back) == 0);
                        fuzz_check(back <= u);
                }
                break;
        case 3:
                r = parse_duration(str, &u);
                fuzz_check(r == 0 || r == -EINVAL || r == -ERANGE);
                if (r == 0) {
                        uint64_t back;
                        fuzz_check(parse_duration(format_duration(buf, sizeof(buf), u), &back) == 0);
                        fuzz_check(back <= u);
                }
                break;
        case 4:
                r = parse_percent(str, &d);
                fuzz_check(r == 0 || r == -EINVAL);
                fuzz_check(r < 0 ? d == -1 : (d >= 0 && d <= 1));
                break;
        case 5:
                r = parse_boolean(str);
                fuzz_check(r == 0 || r == 1 || r == -EINVAL);
                break;
        default:
                r = parse_u64(str, &u);
                fuzz_check(r == 0 || r == -EINVAL || r == -ERANGE);
                break;
        }
        free(str);
        return 0;
}
