/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "mglrud/kernel/memcg.h"

/* One corpus for both single-value files and /proc/meminfo: every input goes to both. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const char *s = (const char *) data;
        uint64_t v = 4242;
        int r;

        r = memcg_value_parse(s, size, &v);
        fuzz_check(r == 0 || r == -EINVAL || r == -ERANGE);
        if (r < 0)
                fuzz_check(v == 4242);
        else if (v != MEMCG_VALUE_MAX) {
                /* The number printed back is the text (up to leading zeros). */
                char buf[32];
                size_t n = size - (size > 0 && s[size - 1] == '\n');
                size_t z = 0;
                while (z + 1 < n && s[z] == '0')
                        z++;
                int len = snprintf(buf, sizeof(buf), "%" PRIu64, v);
                fuzz_check((size_t) len == n - z && memcmp(buf, s + z, n - z) == 0);
        } else
                fuzz_check(size >= 3 && memcmp(s, "max", 3) == 0);

        struct meminfo m = { .mem_total = 4242 };
        r = meminfo_parse(s, size, &m, NULL);
        fuzz_check(r == 0 || r == -EINVAL);
        if (r < 0)
                fuzz_check(m.mem_total == 4242);
        return 0;
}
