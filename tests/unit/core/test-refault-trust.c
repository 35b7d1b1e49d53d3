/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Refault counts you can trust, the daemon's half (core/refault-trust.c through control's
 * cycle): a managed cgroup whose cycles decide on readings built by hand (control_cgroup_step()),
 * the kernel's count in memory.stat and the daemon's own count beside it. When the own count is
 * far above workingset_refault_file the cgroup is named once in the log with both numbers, its
 * snapshot (dump, metrics, bus) says so, and the controllers get the larger count: T rises.
 * With RefaultCheck=no the same cycles leave T alone. The reader (control_cgroup_read(), on
 * plain files, its own count handed in through cycle_input.own_refaults as the BPF map would)
 * reads what a built reading holds, reads no own count with RefaultCheck=no, sums it over the
 * descendants the cgroup's work covers, and says a failing read once, which only turns the own
 * count off. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core-fixture.h"
#include "mglrud/core/control.h"
#include "mglrud/shared/log.h"
#include "test-policy.h"

#define SEC UINT64_C(1000000)

static char dir[] = "/tmp/mglrud-test-refault-trust.XXXXXX";

#define CURRENT_BYTES UINT64_C(67108864) /* 64 MiB: 16384 pages */

/* The cgroup's memory.stat after the kernel counted refault_file refaults. */
static void stat_text(char *text, size_t size, uint64_t refault_file) {
        snprintf(text, size,
                 "anon 0\nfile 67108864\nworkingset_refault_anon 0\n"
                 "workingset_refault_file %llu\nworkingset_nodereclaim 0\npgsteal 0\n",
                 (unsigned long long) refault_file);
}

/* Writes it as the fixture's memory.stat (for the reader). */
static void write_stat(uint64_t refault_file) {
        char p[PATH_MAX], text[256];
        snprintf(p, sizeof p, "%s/cg/memory.stat", dir);
        stat_text(text, sizeof text, refault_file);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static int setup(void **state) {
        char p[PATH_MAX];
        assert_non_null(mkdtemp(dir));
        snprintf(p, sizeof p, "%s/cg", dir);
        assert_int_equal(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/cg/memory.current", dir);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fprintf(f, "%llu\n", (unsigned long long) CURRENT_BYTES);
        fclose(f);
        write_stat(0);
        return 0;
}

static int teardown(void **state) {
        assert_int_equal(rm_tree(dir), 0);
        return 0;
}

/* The own counts the "BPF map" holds, per cgroup id. */
struct own_table {
        uint64_t ids[2], pages[2];
        size_t n;
        int error; /* returned instead when not 0 */
        unsigned reads;
};

static int read_own(void *userdata, uint64_t cgroup_id, uint64_t *ret_pages) {
        struct own_table *t = userdata;
        t->reads++;
        if (t->error)
                return t->error;
        for (size_t i = 0; i < t->n; i++)
                if (t->ids[i] == cgroup_id) {
                        *ret_pages = t->pages[i];
                        return 0;
                }
        *ret_pages = 0;
        return 0;
}

struct captured {
        unsigned undercount_lines, read_lines;
        char last[1024];
};

static void capture(int level, const char *msg, void *userdata) {
        struct captured *c = userdata;
        if (strstr(msg, "undercounts refaults")) {
                c->undercount_lines++;
                strncpy(c->last, msg, sizeof c->last - 1);
                c->last[sizeof c->last - 1] = 0;
        }
        if (strstr(msg, "own refault count"))
                c->read_lines++;
}

struct run {
        struct cgroup *cg;
        struct kernel_caps caps;
        struct report_sink report;
        struct cycle_input in;
        struct actuator *act;
        struct own_table own;
        struct captured log;
};

static void run_start(struct run *r, bool refault_check) {
        char p[PATH_MAX];
        struct stat st;
        snprintf(p, sizeof p, "%s/cg", dir);
        assert_int_equal(stat(p, &st), 0);
        *r = (struct run) {
                .caps = { .page_size = 4096 },
                .own = { .ids = { st.st_ino }, .n = 1 },
        };
        assert_int_equal(cgroup_new(dir, "/cg", st.st_ino, CGROUP_KEEP_ALL, &r->cg), 0);
        test_give_policy(r->cg);
        /* Advise: decisions and T, no writes (no job stays in flight between the cycles). */
        test_policy_of(r->cg)->mode = POLICY_MODE_ADVISE;
        r->in = (struct cycle_input) {
                .now_usec = 1000 * SEC,
                .caps = &r->caps,
                .lrugen_write_fd = -1,
                .report = &r->report,
                .refault_check = refault_check,
                .own_refaults = read_own,
                .own_refaults_userdata = &r->own,
        };
        assert_int_equal(actuator_new(NULL, NULL, NULL, &r->act), 0);
        log_set_capture(capture, &r->log);
        write_stat(0);
}

/* The kernel's count of the cycles so far (run_count()). */
static uint64_t refault_file;

/* Counts the refaults of the next cycle, 2 s after the previous one: kernel_file by the kernel,
 * own by the daemon. */
static void run_count(struct run *r, uint64_t kernel_file, uint64_t own) {
        if (r->in.now_usec == 1000 * SEC)
                refault_file = 0;
        refault_file += kernel_file;
        r->own.pages[0] += own;
        r->in.now_usec += 2 * SEC;
}

/* One cycle 2 s after the previous one, after the kernel counted kernel_file and the daemon
 * own file refaults, on a reading built as control_cgroup_read() would read it (the own count
 * read with RefaultCheck= only). Returns the snapshot. */
static struct control_snapshot run_cycle(struct run *r, uint64_t kernel_file, uint64_t own) {
        char text[256];
        run_count(r, kernel_file, own);
        stat_text(text, sizeof text, refault_file);
        struct control_reading rd = core_reading(r->in.now_usec, text, CURRENT_BYTES);
        if (r->in.refault_check)
                rd.own = (struct own_refaults) { .pages = r->own.pages[0], .valid = true };
        assert_int_equal(control_cgroup_step(r->cg, &r->in, &rd, r->act), 0);
        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(r->cg, &snap), 0);
        return snap;
}

/* The same cycle read from the files: memory.stat written, the own count read through
 * cycle_input.own_refaults. */
static struct control_snapshot run_cycle_files(struct run *r, uint64_t kernel_file,
                                               uint64_t own) {
        run_count(r, kernel_file, own);
        write_stat(refault_file);
        assert_int_equal(control_cgroup_cycle(r->cg, &r->in, r->act), 0);
        struct control_snapshot snap;
        assert_int_equal(control_cgroup_snapshot(r->cg, &snap), 0);
        return snap;
}

static void run_stop(struct run *r) {
        log_set_capture(NULL, NULL);
        actuator_free(r->act);
        control_cgroup_free(r->cg);
        cgroup_free(r->cg);
}

/* MinColdAge 2min, MaxColdAge 20min: T starts at their geometric middle. */
#define T0 UINT64_C(379473319)

static void test_undercount_said_once_and_t_raised(void **state) {
        struct run r;
        run_start(&r, true);

        struct control_snapshot s = run_cycle(&r, 0, 0); /* the first sample */
        assert_int_equal(s.cold_age_usec, T0);
        assert_false(s.refault_undercount);

        /* 16 MiB read back in 2 s, the kernel counted 10 pages. */
        s = run_cycle(&r, 10, 4096);
        assert_int_equal(r.log.undercount_lines, 1);
        assert_non_null(strstr(r.log.last, "/cg: "));
        assert_non_null(strstr(r.log.last, "mglrud saw 16M "));
        assert_non_null(strstr(r.log.last, "workingset_refault_file counted 40K"));
        assert_true(s.refault_undercount);
        assert_string_equal(s.refault_undercount_sign, "own-count");
        assert_int_equal(s.own_refault_pages, 4096);
        assert_int_equal(s.kernel_refault_pages, 10);
        /* The decision of that same cycle already took the larger count. */
        assert_int_equal(s.cold_age_usec, T0 * 3 / 2);
        assert_non_null(strstr(s.line, "file refaults from mglrud's own count"));

        /* More of the same: not said again; T is held for two cycles, then raised again. */
        for (int i = 0; i < 3; i++)
                s = run_cycle(&r, 10, 4096);
        assert_int_equal(r.log.undercount_lines, 1);
        assert_int_equal(s.own_refault_pages, 4 * 4096);
        assert_int_equal(s.kernel_refault_pages, 40);
        assert_int_equal(s.cold_age_usec, T0 * 3 / 2 * 3 / 2);
        run_stop(&r);
}

/* The same cycles with RefaultCheck=no: nothing is read, said or raised. */
static void test_check_off(void **state) {
        struct run r;
        run_start(&r, false);
        run_cycle(&r, 0, 0);
        struct control_snapshot s;
        for (int i = 0; i < 4; i++)
                s = run_cycle(&r, 10, 4096);
        assert_int_equal(r.log.undercount_lines, 0);
        assert_false(s.refault_undercount);
        assert_null(s.refault_undercount_sign);
        assert_int_equal(s.own_refault_pages, 0);
        assert_int_equal(s.cold_age_usec, T0);
        run_stop(&r);
}

/* A kernel that counts what the daemon sees is trusted, and T goes where the kernel's count
 * puts it: the same as with RefaultCheck=no (200 pages a cycle, summed over cycles, are far
 * above RefaultTarget here, so T rises in both). */
static void test_kernel_agrees(void **state) {
        struct run r;
        struct control_snapshot s, unchecked;
        run_start(&r, false);
        run_cycle(&r, 0, 0);
        for (int i = 0; i < 10; i++)
                unchecked = run_cycle(&r, 200, 200);
        run_stop(&r);

        run_start(&r, true);
        run_cycle(&r, 0, 0);
        for (int i = 0; i < 10; i++)
                s = run_cycle(&r, 200, 200);
        assert_int_equal(r.log.undercount_lines, 0);
        assert_false(s.refault_undercount);
        assert_int_equal(s.own_refault_pages, 2000);
        assert_true(unchecked.cold_age_usec > T0);
        assert_int_equal(s.cold_age_usec, unchecked.cold_age_usec);
        run_stop(&r);
}

/* The own count is summed over the cgroup and the unmanaged descendants its work covers. */
static void test_covered_descendants(void **state) {
        struct run r;
        run_start(&r, true);
        uint64_t child = 12345;
        r.cg->covered_ids = &child;
        r.cg->n_covered = 1;
        r.own.ids[1] = child;
        r.own.n = 2;
        run_cycle_files(&r, 0, 0);
        r.own.pages[1] += 3000;
        struct control_snapshot s = run_cycle_files(&r, 0, 1000);
        assert_int_equal(s.own_refault_pages, 4000);
        assert_true(s.refault_undercount);
        r.cg->covered_ids = NULL;
        r.cg->n_covered = 0;
        run_stop(&r);
}

/* A map that cannot be read: said once, no own count, nothing found short. */
static void test_read_error(void **state) {
        struct run r;
        run_start(&r, true);
        r.own.error = -EPERM;
        run_cycle_files(&r, 0, 0);
        struct control_snapshot s;
        for (int i = 0; i < 3; i++)
                s = run_cycle_files(&r, 10, 4096);
        assert_int_equal(r.log.read_lines, 1);
        assert_int_equal(r.log.undercount_lines, 0);
        assert_false(s.refault_undercount);
        assert_int_equal(s.cold_age_usec, T0);
        run_stop(&r);
}

/* The reader reads what run_cycle() builds: the same memory.stat, limits and own count; with
 * RefaultCheck=no it reads no own count. */
static void test_reader_reads_the_built_reading(void **state) {
        struct run r;
        char text[256];
        for (int check = 0; check < 2; check++) {
                run_start(&r, check);
                run_count(&r, 10, 4096);
                write_stat(refault_file);
                struct control_reading rd;
                assert_int_equal(control_cgroup_read(r.cg, &r.in, &rd), 1);
                stat_text(text, sizeof text, refault_file);
                struct control_reading built = core_reading(r.in.now_usec, text, CURRENT_BYTES);
                assert_int_equal(rd.cur.now_usec, built.cur.now_usec);
                assert_int_equal(rd.cur.stat.present, built.cur.stat.present);
                assert_memory_equal(rd.cur.stat.value, built.cur.stat.value,
                                    sizeof rd.cur.stat.value);
                assert_memory_equal(&rd.cur.limits, &built.cur.limits, sizeof rd.cur.limits);
                assert_int_equal(rd.cur.has_psi, built.cur.has_psi);
                assert_int_equal(rd.own.valid, check);
                assert_int_equal(rd.own.pages, check ? 4096 : 0);
                assert_int_equal(r.own.reads, check);
                run_stop(&r);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_undercount_said_once_and_t_raised),
                cmocka_unit_test(test_check_off),
                cmocka_unit_test(test_kernel_agrees),
                cmocka_unit_test(test_covered_descendants),
                cmocka_unit_test(test_read_error),
                cmocka_unit_test(test_reader_reads_the_built_reading),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
