/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The job's mode, obeyed by the actuation path: a job in ACT_REPORT writes nothing (neither
 * lru_gen nor memory.reclaim, nothing counted as asked or written), one in ACT_AGE_ONLY writes
 * only its lru_gen ageing commands, one in ACT_WRITE everything (the control); and each write
 * helper, called directly, writes only what the mode it is given allows. lru_gen is the
 * write end of a pipe and memory.reclaim a FIFO with a reader, so every write is seen, in
 * order. */
#include "mglrud/core/actuate.h"
#include "actuator-fixture.h"

/* A decision with every kind of write: an eviction, an ageing command, a memory.reclaim. */
static struct decision every_write(void) {
        struct decision d = { .n_cmds = 2, .n_age = 1, .n_reclaims = 1 };
        d.cmds[0] = (struct lrugen_cmd) { .op = '-', .memcg_id = 5, .node = 0, .seq = 6,
                                          .swappiness = 0, .nr_pages = 10,
                                          .type = LRUGEN_FILE };
        d.cmds[1] = (struct lrugen_cmd) { .op = '+', .memcg_id = 5, .node = 0, .seq = 7,
                                          .swappiness = -1 };
        d.reclaims[0] = (struct reclaim_req) { .bytes = 8192, .swappiness = -1 };
        return d;
}

/* Runs every_write() as one job in mode; returns the job (finished) and what lru_gen and
 * memory.reclaim got. */
static const struct actuator_job *run_in(struct sink *s, enum act_mode mode, char *lrugen,
                                         char *reclaim, size_t size) {
        struct decision d = every_write();
        struct actuator_job *j = sink_job(s, 1, mode, &d);
        assert_int_equal(actuator_submit(s->a, j), 0);
        assert_int_equal(s->n_done, 1);
        drain(s->lrugen[0], lrugen, size);
        drain(s->reclaim_rd, reclaim, size);
        return s->done[0];
}

static void test_report_writes_nothing(void **state) {
        struct sink s;
        char lrugen[256], reclaim[256];
        sink_init(&s);
        const struct actuator_job *j = run_in(&s, ACT_REPORT, lrugen, reclaim, sizeof lrugen);
        assert_string_equal(lrugen, "");
        assert_string_equal(reclaim, "");
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 0);
        assert_int_equal(actuator_job_result_const(j)->failed, 0);
        struct actuator_stats st = actuator_get_stats(s.a);
        assert_int_equal(st.jobs, 1);
        assert_int_equal(st.writes, 0);
        sink_done(&s);
}

static void test_age_only_writes_ageing(void **state) {
        struct sink s;
        char lrugen[256], reclaim[256];
        sink_init(&s);
        const struct actuator_job *j = run_in(&s, ACT_AGE_ONLY, lrugen, reclaim, sizeof lrugen);
        assert_string_equal(lrugen, "+ 5 0 7");
        assert_string_equal(reclaim, "");
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 0); /* ageing asks nothing out of memory */
        assert_int_equal(actuator_job_result_const(j)->failed, 0);
        assert_int_equal(actuator_get_stats(s.a).writes, 1);
        sink_done(&s);
}

/* The control for the two above: the same job in ACT_WRITE writes all three. */
static void test_write_writes_all(void **state) {
        struct sink s;
        char lrugen[256], reclaim[256];
        sink_init(&s);
        const struct actuator_job *j = run_in(&s, ACT_WRITE, lrugen, reclaim, sizeof lrugen);
        assert_string_equal(lrugen, "- 5 0 6 0 10+ 5 0 7");
        assert_string_equal(reclaim, "8192");
        assert_int_equal(actuator_job_result_const(j)->asked_bytes, 10 * PAGE + 8192);
        assert_int_equal(actuator_get_stats(s.a).writes, 3);
        sink_done(&s);
}

/* The helpers on their own: what the actuation path would not call them for, they refuse too. */
static void test_helpers_obey_the_mode(void **state) {
        struct sink s;
        char buf[256];
        sink_init(&s);
        const struct decision d = every_write();
        for (enum act_mode m = ACT_WRITE; m < _ACT_MODE_MAX; m++) {
                assert_int_equal(actuate_lrugen(s.lrugen[1], &d.cmds[0], m), 0);
                assert_string_equal(drain(s.lrugen[0], buf, sizeof buf),
                                    m == ACT_WRITE ? "- 5 0 6 0 10" : "");
                assert_int_equal(actuate_lrugen(s.lrugen[1], &d.cmds[1], m), 0);
                assert_string_equal(drain(s.lrugen[0], buf, sizeof buf),
                                    m == ACT_REPORT ? "" : "+ 5 0 7");
                assert_int_equal(actuate_reclaim(s.dirfd, &d.reclaims[0], m), 0);
                assert_string_equal(drain(s.reclaim_rd, buf, sizeof buf),
                                    m == ACT_WRITE ? "8192" : "");
        }
        /* A drop: a bad descriptor fails only when the helper gets as far as the kernel. */
        assert_int_equal(actuate_drop(1000000, 0, PAGE, ACT_WRITE), -EBADF);
        assert_int_equal(actuate_drop(1000000, 0, PAGE, ACT_AGE_ONLY), 0);
        assert_int_equal(actuate_drop(1000000, 0, PAGE, ACT_REPORT), 0);
        sink_done(&s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_report_writes_nothing),
                cmocka_unit_test(test_age_only_writes_ageing),
                cmocka_unit_test(test_write_writes_all),
                cmocka_unit_test(test_helpers_obey_the_mode),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
