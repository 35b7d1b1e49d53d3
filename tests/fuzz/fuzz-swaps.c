/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "mglrud/kernel/swaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct swaps_summary s, sentinel;
        int r;

        memset(&s, 0xa5, sizeof(s));
        sentinel = s;
        r = swaps_parse((const char *) data, size, &s, NULL);
        fuzz_check(r == 0 || r == -EINVAL);
        if (r < 0) {
                fuzz_check(memcmp(&s, &sentinel, sizeof(s)) == 0); /* untouched on failure */
                return 0;
        }
        fuzz_check(s.n_zram <= s.n_devices);
        fuzz_check(s.used_kib <= s.size_kib);
        fuzz_check(size > 0 && data[size - 1] == '\n');
        fuzz_check(swaps_all_compressed(&s) == (s.n_devices > 0 && s.n_zram == s.n_devices));
        return 0;
}
