/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump_format() on hand-built snapshots: the exact text, every line a counter can give. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "mglrud/interfaces/dump.h"
#include "mglrud/shared/macro.h"

#include "snapshots.h"

static char *dump(const struct daemon_stats *d, const struct control_snapshot *s, size_t n) {
        char *text = NULL;
        size_t len;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        assert_int_equal(dump_format(f, d, s, n), 0);
        assert_int_equal(fclose(f), 0);
        return text;
}

static void test_dump_exact(void **state) {
        struct control_snapshot s[2];
        struct daemon_stats d = stats;
        make_snapshots(s);
        d.dry_run = true;
        s[0].path = "/a";
        s[0].runtime = "docker";
        s[0].container_id = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        _cleanup_free_ char *text = dump(&d, s, 2);
        static const char expected[] =
                "mglrud " MGLRUD_VERSION "\n"
                "        Dry run: yes\n"
                "        Paused: no\n"
                "        Interval: 5s\n"
                "        Cycles: 42\n"
                "        Last cycle: 1.5ms\n"
                "        Cgroups: 2\n"
                "        Writes: 12 (1 failed), asked 48M\n"
                "        Stall guard: BPF, 2 jobs stopped\n"
                "        Refault guard: BPF, 1 job stopped\n"
                "-> /a\n"
                "        Id: 7\n"
                "        Container: docker 0123456789ab\n"
                "        Section: [/a*]\n"
                "        Mode: active\n"
                "        Paused: no\n"
                "        Cold age (T): 2.5s\n"
                "        Last reason: cold-generations\n"
                "        Cold: anon 4K file 8K\n"
                "        Cooling: anon 1M file 0\n"
                "        Warm: anon 0 file 2M\n"
                "        Pressure some: 25.00%\n"
                "        Reclaimed: anon 1M file 3B\n"
                "        Actions: 5\n"
                "        Errors: 1\n"
                "        Streams dropped: 2 files, 420M\n"
                "        File refaults: kernel 12, mglrud 4096 pages; kernel undercounts "
                "(own-count): the larger is used\n"
                "        Last reclaim write: ended at 34.568s (monotonic)\n"
                "        Pressure stops: 3 (1 write job stopped), first at 1.000s, last at "
                "2.500s (monotonic)\n"
                "        Reclaim stall: 1.250s in 9 reclaims (BPF, all tasks but mglrud's)\n"
                "        Stall guard stops: 2, the last at 12.346s (monotonic) after 0.612s of "
                "reclaim stall during the job\n"
                "        Refault guard stops: 1, the last at 23.457s (monotonic) after 700 "
                "pages read again during the job (limit 512)\n"
                "        Refault guard jobs: 4\n"
                "        Working set over limit: 3\n"
                "-> /b\n"
                "        Id: 8\n"
                "        Section: [/b]\n"
                "        Mode: advise\n"
                "        Paused: yes\n"
                "        Cold age (T): 1min\n"
                "        Last reason: none\n"
                "        Reclaimed: anon 0 file 0\n"
                "        Actions: 0\n"
                "        Errors: 0\n"
                "        Refault guard jobs: 0\n"
                "        Working set over limit: 0\n";
        assert_string_equal(text, expected);
}

/* Without the guards and with a global pause: the header says so; a cgroup's own pause
 * differs from the global one. */
static void test_dump_no_guards(void **state) {
        struct control_snapshot s[2];
        make_snapshots(s);
        struct daemon_stats d = stats;
        d.stall_guard = d.refault_guard = false;
        d.paused_all = true;
        s[0].path = "/a";
        s[0].has_reclaim_stall = false;
        _cleanup_free_ char *text = dump(&d, s, 1);
        assert_non_null(strstr(text, "        Paused: yes\n        Interval: 5s\n"));
        assert_non_null(strstr(text, "        Stall guard: no (PSI triggers only)\n"
                                     "        Refault guard: no\n-> /a\n"));
        assert_non_null(strstr(text, "        Mode: active\n        Paused: yes (all)\n"));
        assert_null(strstr(text, "Reclaim stall:"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_dump_exact),
                cmocka_unit_test(test_dump_no_guards),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
