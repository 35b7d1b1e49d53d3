/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The write helpers' text (actuate.c): lru_gen commands and memory.reclaim requests as the 7.x
 * kernel parses them (swappiness in decimal without leading zeros, 201 as "max", an eviction
 * always with its swappiness), what they refuse to format (an empty or zero-byte reclaim, an
 * eviction of nothing, a command that does not fit), and the probe of memory.reclaim. */
#include "actuator-fixture.h"

#include "mglrud/core/actuate.h"

static const char *cmd_text(const struct lrugen_cmd *c, char *buf, size_t size) {
        int n = lrugen_cmd_format(c, buf, size);
        assert_int_equal(n, (int) strlen(buf));
        return buf;
}

static void test_lrugen_cmd_format(void **state) {
        char buf[128];
        struct lrugen_cmd c = { .op = '+', .memcg_id = 42, .node = 1, .seq = 7, .swappiness = -1 };
        assert_string_equal(cmd_text(&c, buf, sizeof buf), "+ 42 1 7");
        c.swappiness = 60; /* ignored when ageing */
        assert_string_equal(cmd_text(&c, buf, sizeof buf), "+ 42 1 7");

        c = (struct lrugen_cmd) { .op = '-', .memcg_id = 42, .node = 0, .seq = 5,
                                  .swappiness = 60, .nr_pages = 16384 };
        assert_string_equal(cmd_text(&c, buf, sizeof buf), "- 42 0 5 60 16384");
        c.swappiness = 0;
        assert_string_equal(cmd_text(&c, buf, sizeof buf), "- 42 0 5 0 16384");
        c.swappiness = 8; /* "08" would be read as octal and refused */
        assert_string_equal(cmd_text(&c, buf, sizeof buf), "- 42 0 5 8 16384");
        c.swappiness = SWAPPINESS_ANON_ONLY;
        assert_string_equal(cmd_text(&c, buf, sizeof buf), "- 42 0 5 max 16384");
        c.swappiness = 200;
        assert_string_equal(cmd_text(&c, buf, sizeof buf), "- 42 0 5 200 16384");
        c.memcg_id = UINT64_MAX;
        c.seq = UINT64_MAX;
        assert_string_equal(cmd_text(&c, buf, sizeof buf),
                            "- 18446744073709551615 0 18446744073709551615 200 16384");
}

static void test_lrugen_cmd_refused(void **state) {
        char buf[128];
        const struct lrugen_cmd evict = { .op = '-', .memcg_id = 42, .node = 0, .seq = 5,
                                          .swappiness = 0, .nr_pages = 1 };
        struct lrugen_cmd c = evict;
        c.swappiness = -1; /* the default would be vm.swappiness, not the policy's */
        assert_int_equal(lrugen_cmd_format(&c, buf, sizeof buf), -EINVAL);
        c = evict, c.swappiness = 202;
        assert_int_equal(lrugen_cmd_format(&c, buf, sizeof buf), -EINVAL);
        c = evict, c.nr_pages = 0;
        assert_int_equal(lrugen_cmd_format(&c, buf, sizeof buf), -EINVAL);
        c = evict, c.node = -1;
        assert_int_equal(lrugen_cmd_format(&c, buf, sizeof buf), -EINVAL);
        c = evict, c.op = '?';
        assert_int_equal(lrugen_cmd_format(&c, buf, sizeof buf), -EINVAL);
        c = evict; /* "- 42 0 5 0 1" is 12 characters: 12 bytes leave no room for the NUL */
        assert_int_equal(lrugen_cmd_format(&c, buf, 12), -EINVAL);
        assert_int_equal(lrugen_cmd_format(&c, buf, 13), 12);
}

static void test_reclaim_req_format(void **state) {
        char buf[64];
        struct reclaim_req r = { .bytes = 67108864, .swappiness = 0 };
        assert_int_equal(reclaim_req_format(&r, buf, sizeof buf), 21);
        assert_string_equal(buf, "67108864 swappiness=0");
        r.swappiness = -1;
        assert_true(reclaim_req_format(&r, buf, sizeof buf) > 0);
        assert_string_equal(buf, "67108864");
        r.swappiness = SWAPPINESS_ANON_ONLY;
        assert_true(reclaim_req_format(&r, buf, sizeof buf) > 0);
        assert_string_equal(buf, "67108864 swappiness=max");
        r.swappiness = 7;
        assert_true(reclaim_req_format(&r, buf, sizeof buf) > 0);
        assert_string_equal(buf, "67108864 swappiness=7");

        r = (struct reclaim_req) { .bytes = 0, .swappiness = -1 }; /* 6.1: reclaims everything */
        assert_int_equal(reclaim_req_format(&r, buf, sizeof buf), -EINVAL);
        r = (struct reclaim_req) { .bytes = 4096, .swappiness = 300 };
        assert_int_equal(reclaim_req_format(&r, buf, sizeof buf), -EINVAL);
        r = (struct reclaim_req) { .bytes = 4096, .swappiness = -1 };
        assert_int_equal(reclaim_req_format(&r, buf, 4), -EINVAL);
}

/* The helpers refuse what they cannot format before they look at the mode or the file: a bad
 * request is an error in every mode. */
static void test_helpers_refuse_bad_requests(void **state) {
        struct sink s;
        char buf[64];
        sink_init(&s);
        const struct lrugen_cmd empty = { .op = '-', .memcg_id = 1, .seq = 5, .swappiness = 0 };
        const struct reclaim_req zero = { .bytes = 0, .swappiness = -1 };
        for (enum act_mode m = ACT_WRITE; m < _ACT_MODE_MAX; m++) {
                assert_int_equal(actuate_lrugen(s.lrugen[1], &empty, m), -EINVAL);
                assert_int_equal(actuate_reclaim(s.dirfd, &zero, m), -EINVAL);
                assert_int_equal(actuate_drop(0, 0, 0, m), -EINVAL);
                assert_int_equal(actuate_drop(0, 1, INT64_MAX, m), -EINVAL);
        }
        assert_string_equal(drain(s.lrugen[0], buf, sizeof buf), "");
        assert_string_equal(drain(s.reclaim_rd, buf, sizeof buf), "");
        /* lru_gen not open: an error only when there is something to write. */
        const struct lrugen_cmd age = { .op = '+', .memcg_id = 1, .seq = 5, .swappiness = -1 };
        assert_int_equal(actuate_lrugen(-1, &age, ACT_WRITE), -EBADF);
        assert_int_equal(actuate_lrugen(-1, &age, ACT_REPORT), 0);
        sink_done(&s);
}

/* A cgroup removed under us: memory.reclaim's absence is "vanished" (-ENOENT). */
static void test_reclaim_vanished(void **state) {
        char dir[] = "/tmp/mglrud-test-actuate.XXXXXX";
        assert_non_null(mkdtemp(dir));
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dirfd >= 0);
        const struct reclaim_req r = { .bytes = 4096, .swappiness = -1 };
        assert_int_equal(actuate_reclaim(dirfd, &r, ACT_WRITE), -ENOENT);
        assert_int_equal(actuate_reclaim(dirfd, &r, ACT_AGE_ONLY), 0);
        assert_int_equal(actuate_reclaim_probe(dirfd, 0), -ENOENT);
        close(dirfd);
        assert_int_equal(rmdir(dir), 0);
}

/* The probe writes a reclaim of nothing with the swappiness asked, never an empty line. */
static void test_reclaim_probe(void **state) {
        struct sink s;
        char buf[64];
        sink_init(&s);
        assert_int_equal(actuate_reclaim_probe(s.dirfd, SWAPPINESS_ANON_ONLY), 0);
        assert_string_equal(drain(s.reclaim_rd, buf, sizeof buf), "0 swappiness=max");
        assert_int_equal(actuate_reclaim_probe(s.dirfd, 60), 0);
        assert_string_equal(drain(s.reclaim_rd, buf, sizeof buf), "0 swappiness=60");
        assert_int_equal(actuate_reclaim_probe(s.dirfd, -1), -EINVAL);
        assert_int_equal(actuate_reclaim_probe(s.dirfd, 999), -EINVAL);
        assert_string_equal(drain(s.reclaim_rd, buf, sizeof buf), "");
        sink_done(&s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lrugen_cmd_format),
                cmocka_unit_test(test_lrugen_cmd_refused),
                cmocka_unit_test(test_reclaim_req_format),
                cmocka_unit_test(test_helpers_refuse_bad_requests),
                cmocka_unit_test(test_reclaim_vanished),
                cmocka_unit_test(test_reclaim_probe),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
