/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "mglrud/kernel/memstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct memstat s, sentinel;
        int r;

        memset(&s, 0xa5, sizeof(s));
        sentinel = s;
        r = memstat_parse((const char *) data, size, &s, NULL);
        fuzz_check(r == 0 || r == -EINVAL);
        if (r < 0) {
                fuzz_check(memcmp(&s, &sentinel, sizeof(s)) == 0);
                return 0;
        }
        fuzz_check((s.present >> _MEMSTAT_KEY_MAX) == 0);
        for (int k = 0; k < _MEMSTAT_KEY_MAX; k++) {
                uint64_t v;
                bool present = memstat_get(&s, k, &v);
                fuzz_check(present == !!(s.present & (1u << k)));
                if (!present)
                        continue;
                /* The key really is in the text, as a whole line start. */
                const char *name = memstat_key_to_string(k);
                size_t nlen = strlen(name);
                bool found = false;
                for (size_t i = 0; i + nlen < size && !found; i++)
                        found = (i == 0 || data[i - 1] == '\n') && memcmp(data + i, name, nlen) == 0 &&
                                data[i + nlen] == ' ';
                fuzz_check(found);
                fuzz_check(memstat_delta(&s, &s, k) == 0);
        }
        return 0;
}
