/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "mglrud/kernel/psi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct psi p, sentinel;
        int r;

        memset(&p, 0xa5, sizeof(p));
        sentinel = p;
        r = psi_parse((const char *) data, size, &p, NULL);
        fuzz_check(r == 0 || r == -EINVAL);
        if (r < 0) {
                fuzz_check(memcmp(&p, &sentinel, sizeof(p)) == 0); /* untouched on failure */
                return 0;
        }
        fuzz_check(p.some.avg10 >= 0 && p.some.avg10 <= 100);
        fuzz_check(p.some.avg60 >= 0 && p.some.avg60 <= 100);
        fuzz_check(p.some.avg300 >= 0 && p.some.avg300 <= 100);
        fuzz_check(size > 0 && data[size - 1] == '\n');

        struct psi q = p;
        q.some.total_us += 1000;
        double ratio = -1;
        fuzz_check(psi_share(&p, &q, 2000, false, &ratio) == (q.some.total_us >= p.some.total_us));
        fuzz_check(ratio == -1 || (ratio >= 0 && ratio <= 1));
        fuzz_check(!psi_share(&p, &q, 0, true, &ratio));
        return 0;
}
