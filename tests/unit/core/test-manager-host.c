/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The host's files (manager-host.c) on a /proc tree made of the 7.3 captures: what is opened
 * and what is optional, the swap capabilities probed from meminfo and swaps, the host sample
 * read each cycle (the last becoming the previous), a malformed file said once with its line
 * and once when it reads again, and the LRU lists taken for a kernel without lru_gen. */
#include "files-fixture.h"

#include <syslog.h>

#include "mglrud/core/host-reader.h"

#define KIB UINT64_C(1024)

struct proc {
        char dir[64];
        int dirfd;
        struct host_reader h;
        struct kernel_caps caps;
};

/* Sets p up: a /proc tree with the 7.3 meminfo, swaps (one zram device) and pressure/memory. */
static void proc_init(struct proc *p) {
        *p = (struct proc) { .dir = "/tmp/mglrud-test-host.XXXXXX" };
        assert_non_null(mkdtemp(p->dir));
        p->dirfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(p->dirfd >= 0);
        assert_int_equal(mkdirat(p->dirfd, "pressure", 0755), 0);
        copy_fixture(p->dirfd, "meminfo", "kernel-7.3/meminfo");
        copy_fixture(p->dirfd, "swaps", "kernel-7.3/swaps");
        copy_fixture(p->dirfd, "pressure/memory", "kernel-7.3/proc-pressure-memory");
        host_reader_init(&p->h);
        log_lines_start();
}

static void proc_done(struct proc *p) {
        log_lines_stop();
        host_reader_done(&p->h);
        assert_int_equal(p->h.meminfo_fd, -1);
        close(p->dirfd);
        assert_int_equal(rm_tree(p->dir), 0);
}

static void test_open_and_probe(void **state) {
        struct proc p;
        proc_init(&p);
        assert_int_equal(host_reader_open(&p.h, p.dir), 0);
        assert_true(p.h.psi_fd >= 0 && p.h.meminfo_fd >= 0 && p.h.swaps_fd >= 0);
        host_reader_probe(&p.h, p.dir, &p.caps);
        assert_true(p.caps.has_swap);
        assert_true(p.caps.swap_compressed); /* /dev/zram0 only */
        assert_int_equal(log_lines.n, 0);

        /* swapoff, then a disk swap area beside the zram one: not all compressed. */
        write_at(p.dirfd, "swaps", "Filename\tType\tSize\tUsed\tPriority\n");
        host_reader_read_swaps(&p.h, p.dir, &p.caps);
        assert_false(p.caps.swap_compressed);
        copy_fixture(p.dirfd, "swaps", "kernel-7.3/swaps");
        host_reader_read_swaps(&p.h, p.dir, &p.caps);
        assert_true(p.caps.swap_compressed);
        write_at(p.dirfd, "swaps", "Filename\tType\tSize\tUsed\tPriority\n"
                                   "/dev/zram0 partition 524284 39096 -1\n"
                                   "/dev/sda2 partition 1048572 0 -2\n");
        host_reader_read_swaps(&p.h, p.dir, &p.caps);
        assert_false(p.caps.swap_compressed);

        /* A host without swap. */
        copy_fixture(p.dirfd, "meminfo", "memcg/meminfo-noswap");
        host_reader_probe(&p.h, p.dir, &p.caps);
        assert_false(p.caps.has_swap);
        proc_done(&p);
}

/* /proc/swaps that cannot be parsed leaves what was known. */
static void test_swaps_unparsable_keeps_last(void **state) {
        struct proc p;
        proc_init(&p);
        assert_int_equal(host_reader_open(&p.h, p.dir), 0);
        host_reader_probe(&p.h, p.dir, &p.caps);
        assert_true(p.caps.swap_compressed);
        write_at(p.dirfd, "swaps", "garbage\n/dev/sda2 x\n");
        host_reader_read_swaps(&p.h, p.dir, &p.caps);
        assert_true(p.caps.swap_compressed);
        proc_done(&p);
}

/* meminfo is required; pressure and swaps are not, and a missing pressure file is said. */
static void test_optional_files(void **state) {
        struct proc p;
        proc_init(&p);
        assert_int_equal(unlinkat(p.dirfd, "pressure/memory", 0), 0);
        assert_int_equal(unlinkat(p.dirfd, "swaps", 0), 0);
        assert_int_equal(host_reader_open(&p.h, p.dir), 0);
        assert_int_equal(p.h.psi_fd, -ENOENT);
        assert_int_equal(p.h.swaps_fd, -ENOENT);
        assert_int_equal(log_lines_with("pressure/memory"), 1);
        assert_int_equal(log_lines_with("swaps"), 0); /* its absence is ordinary */
        p.caps.swap_compressed = true;
        host_reader_probe(&p.h, p.dir, &p.caps);
        assert_true(p.caps.has_swap);
        assert_true(p.caps.swap_compressed); /* not known: left */
        host_reader_read(&p.h, p.dir, 5, false, &p.caps);
        assert_false(p.h.cur.has_psi);

        assert_int_equal(unlinkat(p.dirfd, "meminfo", 0), 0);
        assert_int_equal(host_reader_open(&p.h, p.dir), -ENOENT);
        assert_int_equal(log_lines_with("meminfo"), 1);
        proc_done(&p);
}

/* Each cycle's sample: the 7.3 values, the last one kept as the previous. */
static void test_read_sample(void **state) {
        struct proc p;
        proc_init(&p);
        assert_int_equal(host_reader_open(&p.h, p.dir), 0);
        host_reader_read(&p.h, p.dir, 1000, false, &p.caps);
        assert_false(p.h.has_prev);
        assert_int_equal(p.h.cur.now_usec, 1000);
        assert_true(p.h.cur.has_psi);
        assert_int_equal(p.h.cur.meminfo.mem_total, 981944 * KIB);
        assert_int_equal(p.h.cur.meminfo.mem_available, 641504 * KIB);
        assert_int_equal(p.h.cur.meminfo.swap_total, 524284 * KIB);
        assert_true(p.caps.has_swap);

        write_at(p.dirfd, "pressure/memory",
                 "some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\n"
                 "full avg10=0.50 avg60=0.20 avg300=0.05 total=65432\n");
        copy_fixture(p.dirfd, "meminfo", "memcg/meminfo-noswap");
        host_reader_read(&p.h, p.dir, 3000, true, &p.caps);
        assert_true(p.h.has_prev);
        assert_int_equal(p.h.prev.now_usec, 1000);
        assert_int_equal(p.h.prev.psi.some.total_us, 0);
        assert_int_equal(p.h.cur.now_usec, 3000);
        assert_int_equal(p.h.cur.psi.some.total_us, 123456);
        assert_int_equal(p.h.cur.psi.full.total_us, 65432);
        assert_false(p.caps.has_swap); /* with this cycle's meminfo */
        assert_int_equal(log_lines.n, 0);
        proc_done(&p);
}

/* A malformed file is said once with its line while it stays so, again when it breaks
 * elsewhere, and once when it reads again; meanwhile the sample has no PSI. */
static void test_malformed_said_once(void **state) {
        struct proc p;
        proc_init(&p);
        assert_int_equal(host_reader_open(&p.h, p.dir), 0);
        const char *bad2 = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull what\n";
        write_at(p.dirfd, "pressure/memory", bad2);
        for (unsigned i = 0; i < 3; i++) {
                host_reader_read(&p.h, p.dir, 1000 + i, true, &p.caps);
                assert_false(p.h.cur.has_psi);
        }
        assert_int_equal(log_lines.n, 1);
        assert_int_equal(log_lines_with("pressure/memory, line 2"), 1);
        assert_int_equal(log_lines.level[0], LOG_WARNING);

        write_at(p.dirfd, "pressure/memory", "junk\n");
        host_reader_read(&p.h, p.dir, 2000, true, &p.caps);
        assert_int_equal(log_lines_with("pressure/memory, line 1"), 1);
        assert_int_equal(log_lines.n, 2);

        copy_fixture(p.dirfd, "pressure/memory", "kernel-7.3/proc-pressure-memory");
        host_reader_read(&p.h, p.dir, 3000, true, &p.caps);
        host_reader_read(&p.h, p.dir, 4000, true, &p.caps);
        assert_true(p.h.cur.has_psi);
        assert_int_equal(log_lines_with("reads again"), 1);
        assert_int_equal(log_lines.n, 3);

        /* meminfo has its own trouble: MemAvailable missing. */
        write_at(p.dirfd, "meminfo", "MemTotal: 1024 kB\n");
        host_reader_read(&p.h, p.dir, 5000, true, &p.caps);
        host_reader_read(&p.h, p.dir, 6000, true, &p.caps);
        assert_int_equal(log_lines_with("/meminfo"), 1);
        assert_int_equal(log_lines.n, 4);
        proc_done(&p);
}

/* Without a histogram, the idle profile is not there, the LRU lists of meminfo are. */
static void test_idle_from_lists(void **state) {
        struct proc p;
        proc_init(&p);
        assert_int_equal(host_reader_open(&p.h, p.dir), 0);
        host_reader_read(&p.h, p.dir, 1000, false, &p.caps);
        host_reader_update_idle(&p.h, NULL, 4096, 1000);
        assert_false(p.h.idle.has_profile);
        assert_true(p.h.idle.has_lists);
        assert_int_equal(p.h.idle.read_usec, 1000);
        assert_int_equal(p.h.idle.active[LRUGEN_ANON], p.h.cur.meminfo.active_anon);
        assert_int_equal(p.h.idle.inactive[LRUGEN_FILE], p.h.cur.meminfo.inactive_file);
        assert_true(p.h.idle.inactive[LRUGEN_FILE] > 0);
        proc_done(&p);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_open_and_probe),
                cmocka_unit_test(test_swaps_unparsable_keeps_last),
                cmocka_unit_test(test_optional_files),
                cmocka_unit_test(test_read_sample),
                cmocka_unit_test(test_malformed_said_once),
                cmocka_unit_test(test_idle_from_lists),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
