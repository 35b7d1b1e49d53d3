/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mountinfo_next() over the whole input: every call moves on and stays within it, a line that
 * parses has a NUL-terminated mount point that fits, one that does not leaves the output as it
 * was, and the walk ends exactly at the end of the input. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "mglrud/kernel/mountinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct mountinfo_line l, sentinel;
        size_t pos = 0;
        int r;

        memset(&sentinel, 0xa5, sizeof sentinel);
        for (;;) {
                size_t before = pos;
                l = sentinel;
                r = mountinfo_next((const char *) data, size, &pos, &l);
                if (r == 0) {
                        fuzz_check(pos == size && before == size);
                        return 0;
                }
                fuzz_check(r == 1 || r == -EINVAL);
                fuzz_check(pos > before && pos <= size);
                if (r < 0) {
                        fuzz_check(memcmp(&l, &sentinel, sizeof l) == 0);
                        continue;
                }
                size_t n = strnlen(l.mount_point, sizeof l.mount_point);
                fuzz_check(n > 0 && n < sizeof l.mount_point);
                fuzz_check(!memchr(data + before, '\n', pos - before) ||
                           data[pos - 1] == '\n');
        }
}
