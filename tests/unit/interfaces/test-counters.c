/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every counter of counters.h reaches every output: for each one, a snapshot (or daemon stats)
 * where only it changes must change its metric (when it has one), the dump (per cgroup), and
 * carry its value in its D-Bus field (read back from a real sd-bus message). A counter added to
 * the list and forgotten by a formatter fails here. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-fields.h"
#include "mglrud/interfaces/counter-info.h"
#include "mglrud/interfaces/dump.h"
#include "mglrud/interfaces/metrics.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"


/* Writes v into counter i of a snapshot, or of the daemon stats, by the member's name: not
 * through the descriptor, whose offset and size are under test. */
#define SET_CONTROL_(field, ...)                                                               \
        case CONTROL_COUNTER_##field:                                                          \
                s->field = v;                                                                  \
                break;
static void set_control(struct control_snapshot *s, size_t i, uint64_t v) {
        switch (i) {
                CONTROL_COUNTERS(SET_CONTROL_)
        default:
                fail();
        }
}
#define SET_DAEMON_(field, ...)                                                                \
        case DAEMON_COUNTER_##field:                                                           \
                d->field = v;                                                                  \
                break;
static void set_daemon(struct daemon_stats *d, size_t i, uint64_t v) {
        switch (i) {
                DAEMON_COUNTERS(SET_DAEMON_)
        default:
                fail();
        }
}

/* Every counter 1 (flags 0): each group's line is shown, each value small. */
static void base_records(struct daemon_stats *d, struct control_snapshot *s) {
        *d = (struct daemon_stats) { .n_cgroups = 1 };
        *s = (struct control_snapshot) {
                .path = "/t", .id = 1, .section = "/t", .mode = "active", .reason = "none",
                .refault_undercount_sign = "own-count",
        };
        for (size_t c = 0; c < _CONTROL_COUNTER_MAX; c++)
                if (control_counter_info[c].unit != COUNTER_FLAG)
                        set_control(s, c, 1);
        for (size_t c = 0; c < _DAEMON_COUNTER_MAX; c++)
                if (daemon_counter_info[c].unit != COUNTER_FLAG)
                        set_daemon(d, c, 1);
        d->stall_guard = true;
        s->has_reclaim_stall = true;
}

static char *format(snapshot_format_t fmt, const struct daemon_stats *d,
                    const struct control_snapshot *s) {
        char *text = NULL;
        size_t len;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        assert_int_equal(fmt(f, d, s, 1), 0);
        assert_int_equal(fclose(f), 0);
        return text;
}

/* Returns the text of the metric family name (from its # HELP line to the next), or NULL. */
static char *family(const char *text, const char *name) {
        char head[256];
        snprintf(head, sizeof head, "# HELP %s ", name);
        const char *a = strstr(text, head);
        if (!a)
                return NULL;
        const char *b = strstr(a + 1, "# HELP ");
        return strndup(a, b ? (size_t) (b - a) : strlen(a));
}

/* Two ends of a socketpair as sd-bus connections: enough to build and read messages. */
struct bus_pair {
        sd_bus *a, *b;
};

static void bus_pair_open(struct bus_pair *p) {
        int fds[2];
        sd_id128_t id;
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        assert_int_equal(sd_id128_randomize(&id), 0);
        assert_int_equal(sd_bus_new(&p->a), 0);
        assert_int_equal(sd_bus_set_fd(p->a, fds[0], fds[0]), 0);
        assert_int_equal(sd_bus_set_server(p->a, 1, id), 0);
        assert_int_equal(sd_bus_set_anonymous(p->a, 1), 0);
        assert_int_equal(sd_bus_start(p->a), 0);
        assert_int_equal(sd_bus_new(&p->b), 0);
        assert_int_equal(sd_bus_set_fd(p->b, fds[1], fds[1]), 0);
        assert_int_equal(sd_bus_set_anonymous(p->b, 1), 0);
        assert_int_equal(sd_bus_start(p->b), 0);
}

static void bus_pair_close(struct bus_pair *p) {
        sd_bus_flush_close_unref(p->a);
        sd_bus_flush_close_unref(p->b);
}

/* Builds the a{sv} of GetCgroup() (status NULL) or GetStatus() for the records, sealed and
 * rewound for reading. */
static sd_bus_message *bus_fields(sd_bus *bus, const struct daemon_stats *d,
                                  const struct control_snapshot *s) {
        sd_bus_message *m = NULL;
        assert_int_equal(sd_bus_message_new_method_call(bus, &m, "org.mglrud.Test", "/",
                                                        "org.mglrud.Test", "T"), 0);
        assert_int_equal(sd_bus_message_open_container(m, 'a', "{sv}"), 0);
        if (s)
                assert_int_equal(bus_append_snapshot(m, s), 0);
        else
                assert_int_equal(bus_append_status(m, d, "status", "/sys/fs/cgroup"), 0);
        assert_int_equal(sd_bus_message_close_container(m), 0);
        assert_int_equal(sd_bus_message_seal(m, 1, 0), 0);
        assert_int_equal(sd_bus_message_rewind(m, 1), 1);
        return m;
}

/* Finds key in the a{sv} of m; returns 0 and its value ("t" or "b" as 0/1, *ret_type the
 * variant's signature), or -ENOENT. */
static int bus_field(sd_bus_message *m, const char *key, uint64_t *ret, char *ret_type) {
        const char *k, *contents;
        int r = -ENOENT;
        assert_int_equal(sd_bus_message_rewind(m, 1), 1);
        assert_true(sd_bus_message_enter_container(m, 'a', "{sv}") > 0);
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                assert_true(sd_bus_message_read(m, "s", &k) > 0);
                assert_true(sd_bus_message_peek_type(m, NULL, &contents) > 0);
                if (strcmp(k, key) == 0 && strcmp(contents, "t") == 0) {
                        assert_true(sd_bus_message_read(m, "v", "t", ret) > 0);
                        *ret_type = 't';
                        r = 0;
                } else if (strcmp(k, key) == 0 && strcmp(contents, "b") == 0) {
                        int b;
                        assert_true(sd_bus_message_read(m, "v", "b", &b) > 0);
                        *ret = (uint64_t) b;
                        *ret_type = 'b';
                        r = 0;
                } else {
                        assert_true(sd_bus_message_skip(m, "v") > 0);
                }
                assert_true(sd_bus_message_exit_container(m) > 0);
        }
        return r;
}

/* The members' real sizes, from the lists (not from the descriptors under test). */
#define SIZE_CONTROL_(field, ...) sizeof(((struct control_snapshot *) 0)->field),
static const size_t control_size[] = { CONTROL_COUNTERS(SIZE_CONTROL_) };
#define SIZE_DAEMON_(field, ...) sizeof(((struct daemon_stats *) 0)->field),
static const size_t daemon_size[] = { DAEMON_COUNTERS(SIZE_DAEMON_) };

/* The value counter c is set to in the test: one no other counter has, past 32 bits for a
 * 64-bit member (a descriptor with the wrong offset or size reads another value), 1 for a
 * flag. */
static uint64_t distinct(const struct counter_info *c) {
        bool control = c >= control_counter_info && c < control_counter_info + _CONTROL_COUNTER_MAX;
        size_t size = control ? control_size[c - control_counter_info] :
                                daemon_size[c - daemon_counter_info];
        return c->unit == COUNTER_FLAG ? 1 : size == 4 ? 3000000000ULL : 5000000000000ULL;
}

/* Checks that counter c's field on the bus is there once with the value it was set to, typed
 * by its unit. */
static void check_bus(sd_bus_message *m, const struct counter_info *c) {
        uint64_t v = 0;
        char type = 0;
        if (bus_field(m, c->bus_key, &v, &type) < 0)
                fail_msg("%s: no bus field %s", c->field, c->bus_key);
        if (v != distinct(c))
                fail_msg("%s: bus field %s is %llu, not %llu", c->field, c->bus_key,
                         (unsigned long long) v, (unsigned long long) distinct(c));
        assert_int_equal(type, c->unit == COUNTER_FLAG ? 'b' : 't');
}

/* Checks that changing counter c changes its metric family (and only when it has one). */
static void check_metric(const struct counter_info *c, const char *before, const char *after) {
        if (!c->metric)
                return;
        _cleanup_free_ char *fb = family(before, c->metric), *fa = family(after, c->metric);
        if (!fb || !fa)
                fail_msg("%s: no metric family %s", c->field, c->metric);
        if (strcmp(fb, fa) == 0)
                fail_msg("%s: metric %s does not show its value: %s", c->field, c->metric, fa);
        char type_line[256];
        snprintf(type_line, sizeof type_line, "# TYPE %s %s\n", c->metric, c->metric_type);
        assert_non_null(strstr(fa, type_line));
}

/* Checks that the dump shows counter c's value (distinct() as a number, a time in s, or bytes),
 * or for a flag that it changes the dump. */
static void check_dump(const struct counter_info *c, const char *before, const char *after) {
        uint64_t v = distinct(c);
        char shown[4][32];
        snprintf(shown[0], sizeof shown[0], "%llu", (unsigned long long) v);
        snprintf(shown[1], sizeof shown[1], "%.3fs", (double) v / 1e6);
        snprintf(shown[2], sizeof shown[2], "%.3fs", (double) v / 1e9);
        format_bytes(shown[3], sizeof shown[3], v);
        if (c->unit == COUNTER_FLAG) {
                if (strcmp(before, after) == 0)
                        fail_msg("%s: the dump does not show it: %s", c->field, after);
                return;
        }
        for (size_t k = 0; k < ELEMENTSOF(shown); k++)
                if (strstr(after, shown[k]) && !strstr(before, shown[k]))
                        return;
        fail_msg("%s: the dump does not show its value %llu: %s", c->field,
                 (unsigned long long) v, after);
}

static void test_control_counters(void **state) {
        struct bus_pair p;
        bus_pair_open(&p);
        for (size_t i = 0; i < _CONTROL_COUNTER_MAX; i++) {
                const struct counter_info *c = &control_counter_info[i];
                struct daemon_stats d;
                struct control_snapshot s;
                base_records(&d, &s);
                _cleanup_free_ char *metrics0 = format(metrics_format, &d, &s),
                                    *dump0 = format(dump_format, &d, &s);
                set_control(&s, i, distinct(c));
                assert_int_equal(counter_value(c, &s), distinct(c));
                _cleanup_free_ char *metrics1 = format(metrics_format, &d, &s),
                                    *dump1 = format(dump_format, &d, &s);
                check_metric(c, metrics0, metrics1);
                check_dump(c, dump0, dump1);
                sd_bus_message *m = bus_fields(p.b, NULL, &s);
                check_bus(m, c);
                sd_bus_message_unref(m);
        }
        bus_pair_close(&p);
}

static void test_daemon_counters(void **state) {
        struct bus_pair p;
        bus_pair_open(&p);
        for (size_t i = 0; i < _DAEMON_COUNTER_MAX; i++) {
                const struct counter_info *c = &daemon_counter_info[i];
                struct daemon_stats d;
                struct control_snapshot s;
                base_records(&d, &s);
                _cleanup_free_ char *metrics0 = format(metrics_format, &d, &s);
                set_daemon(&d, i, distinct(c));
                _cleanup_free_ char *metrics1 = format(metrics_format, &d, &s);
                check_metric(c, metrics0, metrics1);
                sd_bus_message *m = bus_fields(p.b, &d, NULL);
                check_bus(m, c);
                sd_bus_message_unref(m);
        }
        bus_pair_close(&p);
}

/* The stall guard's figures are there with it only: no metric family without it, no series,
 * bus field or dump line for a cgroup it has no reading of. */
static void test_stall_guard_absent(void **state) {
        struct bus_pair p;
        struct daemon_stats d;
        struct control_snapshot s;
        bus_pair_open(&p);
        base_records(&d, &s);
        d.stall_guard = false;
        s.has_reclaim_stall = false;
        _cleanup_free_ char *metrics = format(metrics_format, &d, &s),
                            *text = format(dump_format, &d, &s);
        sd_bus_message *m = bus_fields(p.b, NULL, &s);
        for (size_t i = 0; i < _CONTROL_COUNTER_MAX; i++) {
                const struct counter_info *c = &control_counter_info[i];
                uint64_t v;
                char type;
                if (c->when != COUNTER_STALL_GUARD)
                        continue;
                if (c->metric)
                        assert_null(strstr(metrics, c->metric));
                assert_int_equal(bus_field(m, c->bus_key, &v, &type), -ENOENT);
        }
        assert_null(strstr(text, "Reclaim stall"));
        sd_bus_message_unref(m);
        bus_pair_close(&p);
}

/* Names are unique: a copied line with its name left unchanged would hide a counter. */
static void test_names_unique(void **state) {
        const struct counter_info *all[_CONTROL_COUNTER_MAX + _DAEMON_COUNTER_MAX];
        size_t n = 0;
        for (size_t i = 0; i < _CONTROL_COUNTER_MAX; i++)
                all[n++] = &control_counter_info[i];
        for (size_t i = 0; i < _DAEMON_COUNTER_MAX; i++)
                all[n++] = &daemon_counter_info[i];
        for (size_t i = 0; i < n; i++) {
                assert_non_null(all[i]->bus_key);
                assert_true(!all[i]->metric == !all[i]->help);
                for (size_t j = i + 1; j < n; j++) {
                        bool same_table = (i < _CONTROL_COUNTER_MAX) == (j < _CONTROL_COUNTER_MAX);
                        if (same_table && strcmp(all[i]->bus_key, all[j]->bus_key) == 0)
                                fail_msg("bus key %s twice", all[i]->bus_key);
                        if (all[i]->metric && all[j]->metric &&
                            strcmp(all[i]->metric, all[j]->metric) == 0)
                                fail_msg("metric %s twice", all[i]->metric);
                }
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_control_counters),
                cmocka_unit_test(test_daemon_counters),
                cmocka_unit_test(test_stall_guard_absent),
                cmocka_unit_test(test_names_unique),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
