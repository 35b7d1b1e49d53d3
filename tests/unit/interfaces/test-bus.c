/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The org.mglrud.Manager1 methods through a socketpair: a manager (--dry-run) on the 7.3
 * fixture tree, the server end attached the way bus-server.c attaches an accepted peer (the
 * guard in front, an sd-bus server connection behind), a client sd-bus on the other end, one
 * event loop for both. GetStatus, Dump, GetCgroup, Pause/Resume, Set and the errors for a
 * cgroup the daemon does not manage. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-internal.h"
#include "config.h"
#include "mglrud/core/manager.h"
#include "mglrud/interfaces/bus.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/time.h"

#define AB "/work load.slice/a b"
#define B "/work load.slice/b"

struct fixture {
        char tree[3072], cgroup_root[4096], debugfs_root[4096], proc_root[4096], conf[4096];
        char dropin[4096];
        char runtime_dir[64];
        sd_event *e;
        struct manager m;
        struct bus_server *b;
        sd_bus *client;
        unsigned reloads;
};

/* What the call in flight got back: its reply (an error reply too), NULL until then. */
struct call {
        sd_bus_message *reply;
};

static int reload(struct manager *m, char **ret_error) {
        return manager_reload(m, ret_error);
}

static int setup(void **state) {
        struct fixture *f = calloc(1, sizeof *f);
        const char *fixtures = getenv("MGLRUD_FIXTURES");
        int pair[2];

        assert_non_null(f);
        assert_non_null(fixtures);
        assert_true(strlen(fixtures) + sizeof "/tree-7.3" <= sizeof f->tree);
        snprintf(f->tree, sizeof f->tree, "%s/tree-7.3", fixtures);
        snprintf(f->cgroup_root, sizeof f->cgroup_root, "%s/cgroup", f->tree);
        snprintf(f->debugfs_root, sizeof f->debugfs_root, "%s/debugfs", f->tree);
        snprintf(f->proc_root, sizeof f->proc_root, "%s/proc", f->tree);
        snprintf(f->conf, sizeof f->conf, "%s/mglrud.conf", f->tree);
        snprintf(f->dropin, sizeof f->dropin, "%s/mglrud.conf.d", f->tree); /* as --config */
        snprintf(f->runtime_dir, sizeof f->runtime_dir, "/tmp/mglrud-test-bus.XXXXXX");
        assert_non_null(mkdtemp(f->runtime_dir));

        const struct manager_overrides o = {
                .cgroup_root = f->cgroup_root,
                .debugfs_root = f->debugfs_root,
                .proc_root = f->proc_root,
                .interval_usec = USEC_PER_SEC,
                .dry_run = true,
        };
        assert_int_equal(sd_event_new(&f->e), 0);
        manager_init(&f->m, &o, f->conf, f->dropin);
        assert_int_equal(manager_start(&f->m, f->e), 0);
        /* The first cycle discovers and samples, the second decides. */
        uint64_t now = now_monotonic_usec();
        assert_int_equal(manager_cycle(&f->m, now), 0);
        assert_int_equal(manager_cycle(&f->m, now + USEC_PER_SEC), 0);
        assert_int_equal(manager_n_cgroups(&f->m), 2);

        assert_int_equal(bus_server_new(&f->m, f->e, f->runtime_dir, reload, &f->b), 0);
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, pair),
                         0);
        assert_int_equal(bus_server_accept_fd(f->b, pair[1]), 0);
        assert_int_equal(f->b->n_conns, 1);
        assert_int_equal(sd_bus_new(&f->client), 0);
        assert_int_equal(sd_bus_set_fd(f->client, pair[0], pair[0]), 0);
        assert_int_equal(sd_bus_start(f->client), 0);
        assert_int_equal(sd_bus_attach_event(f->client, f->e, SD_EVENT_PRIORITY_NORMAL), 0);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        struct fixture *f = *state;
        char lock[128];

        sd_bus_flush_close_unref(f->client);
        bus_server_free(f->b);
        manager_done(&f->m);
        sd_event_unref(f->e);
        snprintf(lock, sizeof lock, "%s/lock", f->runtime_dir);
        assert_int_equal(unlink(lock), 0);
        assert_int_equal(rmdir(f->runtime_dir), 0);
        free(f);
        return 0;
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct call *c = userdata;
        c->reply = sd_bus_message_ref(m);
        return 0;
}

/* Calls member with the arguments of types and runs the one loop (the server's and the
 * client's) until the answer came. Returns the reply (a method return or an error). */
static sd_bus_message *callv(struct fixture *f, const char *member, const char *types,
                             va_list ap) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *msg = NULL;
        struct call c = {};

        assert_int_equal(sd_bus_message_new_method_call(f->client, &msg, NULL, BUS_OBJECT_PATH,
                                                        BUS_INTERFACE, member), 0);
        assert_true(sd_bus_message_appendv(msg, types, ap) >= 0);
        assert_true(sd_bus_call_async(f->client, NULL, msg, on_reply, &c, 0) >= 0);
        for (unsigned i = 0; !c.reply && i < 500; i++)
                assert_true(sd_event_run(f->e, 10 * USEC_PER_MSEC) >= 0);
        if (!c.reply)
                fail_msg("no answer to %s()", member);
        return c.reply;
}

static sd_bus_message *call(struct fixture *f, const char *member, const char *types, ...) {
        va_list ap;
        va_start(ap, types);
        sd_bus_message *reply = callv(f, member, types, ap);
        va_end(ap);
        return reply;
}

/* Calls member and checks that it succeeded (a reply with no arguments to read). */
static void call_ok(struct fixture *f, const char *member, const char *types, ...) {
        va_list ap;
        va_start(ap, types);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = callv(f, member, types, ap);
        va_end(ap);
        if (sd_bus_message_is_method_error(reply, NULL))
                fail_msg("%s(): %s: %s", member, sd_bus_message_get_error(reply)->name,
                         sd_bus_message_get_error(reply)->message);
}

/* Checks that reply is the error name (and frees it). */
static void assert_error(sd_bus_message *reply, const char *name) {
        if (!sd_bus_message_is_method_error(reply, name))
                fail_msg("expected the error %s, got %s", name,
                         sd_bus_message_is_method_error(reply, NULL) ?
                                 sd_bus_message_get_error(reply)->name : "a method return");
        sd_bus_message_unref(reply);
}

/* One value of an a{sv} reply, as the client reads it. */
struct value {
        char type;
        uint64_t u;
        int b;
        char s[512];
};

/* Finds key in the a{sv} reply (read from its start). Returns true and its value when there. */
static bool dict_get(sd_bus_message *reply, const char *key, struct value *ret) {
        const char *k, *contents;
        bool found = false;

        assert_int_equal(sd_bus_message_rewind(reply, true), 1);
        assert_true(sd_bus_message_enter_container(reply, 'a', "{sv}") > 0);
        while (!found && sd_bus_message_enter_container(reply, 'e', "sv") > 0) {
                assert_true(sd_bus_message_read(reply, "s", &k) > 0);
                assert_true(sd_bus_message_peek_type(reply, NULL, &contents) > 0);
                if (strcmp(k, key) != 0) {
                        assert_true(sd_bus_message_skip(reply, "v") >= 0);
                        assert_true(sd_bus_message_exit_container(reply) >= 0);
                        continue;
                }
                found = true;
                *ret = (struct value) { .type = contents[0] };
                assert_true(sd_bus_message_enter_container(reply, 'v', contents) > 0);
                if (contents[0] == 't')
                        assert_true(sd_bus_message_read(reply, "t", &ret->u) > 0);
                else if (contents[0] == 'b')
                        assert_true(sd_bus_message_read(reply, "b", &ret->b) > 0);
                else if (contents[0] == 's') {
                        const char *s;
                        assert_true(sd_bus_message_read(reply, "s", &s) > 0);
                        snprintf(ret->s, sizeof ret->s, "%s", s);
                } else
                        assert_true(sd_bus_message_skip(reply, contents) >= 0);
        }
        return found;
}

/* Finds key in the a{sv} reply and checks that its value is of type. */
static void dict_need(sd_bus_message *reply, const char *key, char type, struct value *ret) {
        if (!dict_get(reply, key, ret))
                fail_msg("no %s in the reply", key);
        assert_int_equal(ret->type, type);
}

static uint64_t dict_u64(sd_bus_message *reply, const char *key) {
        struct value v;
        dict_need(reply, key, 't', &v);
        return v.u;
}

static bool dict_bool(sd_bus_message *reply, const char *key) {
        struct value v;
        dict_need(reply, key, 'b', &v);
        return v.b;
}

static const char *dict_str(sd_bus_message *reply, const char *key, struct value *v) {
        dict_need(reply, key, 's', v);
        return v->s;
}

/* Returns Dump()'s text (malloc'ed). */
static char *dump(struct fixture *f) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = call(f, "Dump", "");
        const char *text;
        assert_false(sd_bus_message_is_method_error(reply, NULL));
        assert_true(sd_bus_message_read(reply, "s", &text) > 0);
        char *copy = strdup(text);
        assert_non_null(copy);
        return copy;
}

/* Returns the dump's block of cgroup path, from its "-> " line to the next (malloc'ed). */
static char *dump_block(struct fixture *f, const char *path) {
        _cleanup_free_ char *text = dump(f);
        char head[600];
        snprintf(head, sizeof head, "-> %s\n", path);
        char *p = strstr(text, head);
        if (!p)
                fail_msg("the dump has no %s: %s", path, text);
        char *end = strstr(p + strlen(head), "-> ");
        return strndup(p, end ? (size_t) (end - p) : strlen(p));
}

/* Returns GetCgroup(path)'s "Paused". */
static bool cgroup_paused(struct fixture *f, const char *path) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = call(f, "GetCgroup", "s", path);
        assert_false(sd_bus_message_is_method_error(reply, NULL));
        return dict_bool(reply, "Paused");
}

static void test_status(void **state) {
        struct fixture *f = *state;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = call(f, "GetStatus", "");
        struct value v;

        assert_false(sd_bus_message_is_method_error(reply, NULL));
        assert_string_equal(dict_str(reply, "Version", &v), MGLRUD_VERSION);
        assert_string_equal(dict_str(reply, "CgroupRoot", &v), f->cgroup_root);
        assert_non_null(strstr(dict_str(reply, "Status", &v), "2 cgroups"));
        assert_int_equal(dict_u64(reply, "Cgroups"), 2);
        assert_int_equal(dict_u64(reply, "Cycles"), 2);
        assert_int_equal(dict_u64(reply, "IntervalUSec"), USEC_PER_SEC);
        assert_true(dict_bool(reply, "DryRun"));
        assert_false(dict_bool(reply, "PausedAll"));
}

static void test_dump(void **state) {
        struct fixture *f = *state;
        _cleanup_free_ char *text = dump(f);
        _cleanup_free_ char *ab = NULL, *b = NULL;

        assert_true(strncmp(text, "mglrud " MGLRUD_VERSION "\n", strlen("mglrud " MGLRUD_VERSION
                                                                      "\n")) == 0);
        assert_non_null(strstr(text, "        Dry run: yes\n"));
        assert_non_null(strstr(text, "        Cgroups: 2\n"));
        ab = dump_block(f, AB);
        b = dump_block(f, B);
        assert_non_null(strstr(ab, "        Paused: no\n"));
        assert_non_null(strstr(b, "        Paused: no\n"));
}

/* Pause and Resume of one cgroup and of all: GetCgroup, Dump and GetStatus follow. */
static void test_pause_resume(void **state) {
        struct fixture *f = *state;
        _cleanup_free_ char *paused = NULL, *other = NULL, *resumed = NULL, *all = NULL;

        if (geteuid() != 0)
                skip(); /* SO_PEERCRED gives our uid: the changing methods refuse it */
        call_ok(f, "Pause", "s", B);
        assert_true(cgroup_paused(f, B));
        assert_false(cgroup_paused(f, AB));
        paused = dump_block(f, B);
        other = dump_block(f, AB);
        assert_non_null(strstr(paused, "        Paused: yes\n"));
        assert_non_null(strstr(other, "        Paused: no\n"));

        call_ok(f, "Resume", "s", B);
        assert_false(cgroup_paused(f, B));
        resumed = dump_block(f, B);
        assert_non_null(strstr(resumed, "        Paused: no\n"));

        call_ok(f, "Pause", "s", "");
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *status = call(f, "GetStatus", "");
        assert_true(dict_bool(status, "PausedAll"));
        all = dump_block(f, AB);
        assert_non_null(strstr(all, "        Paused: yes (all)\n"));
        call_ok(f, "Resume", "s", "");
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *after = call(f, "GetStatus", "");
        assert_false(dict_bool(after, "PausedAll"));
}

/* Set: a runtime override in GetCgroup and the dump; a bad value or key is refused and changes
 * nothing; an empty value removes it. */
static void test_set(void **state) {
        struct fixture *f = *state;
        _cleanup_free_ char *block = NULL;
        struct value v;

        if (geteuid() != 0)
                skip();
        call_ok(f, "Set", "sss", AB, "MaxStep", "32M");
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *ab = call(f, "GetCgroup", "s", AB);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *b = call(f, "GetCgroup", "s", B);
        assert_string_equal(dict_str(ab, "RuntimeOverrides", &v), "MaxStep=32M");
        assert_string_equal(dict_str(b, "RuntimeOverrides", &v), "");
        block = dump_block(f, AB);
        assert_non_null(strstr(block, "        Override: MaxStep=32M (runtime override)\n"));

        assert_error(call(f, "Set", "sss", AB, "MaxStep", "12Q"), SD_BUS_ERROR_INVALID_ARGS);
        assert_error(call(f, "Set", "sss", AB, "Frobnicate", "1"), SD_BUS_ERROR_INVALID_ARGS);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *kept = call(f, "GetCgroup", "s", AB);
        assert_string_equal(dict_str(kept, "RuntimeOverrides", &v), "MaxStep=32M");

        call_ok(f, "Set", "sss", AB, "MaxStep", "");
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *gone = call(f, "GetCgroup", "s", AB);
        assert_string_equal(dict_str(gone, "RuntimeOverrides", &v), "");
}

/* A cgroup the daemon does not manage: NoSuchCgroup from every method that takes one, and
 * nothing changes. */
static void test_unknown_cgroup(void **state) {
        struct fixture *f = *state;

        assert_error(call(f, "GetCgroup", "s", "/nonexistent"), BUS_ERROR_NO_SUCH_CGROUP);
        if (geteuid() != 0)
                return;
        assert_error(call(f, "Pause", "s", "/nonexistent"), BUS_ERROR_NO_SUCH_CGROUP);
        assert_error(call(f, "Resume", "s", "/nonexistent"), BUS_ERROR_NO_SUCH_CGROUP);
        assert_error(call(f, "Set", "sss", "/nonexistent", "MaxStep", "1M"),
                     BUS_ERROR_NO_SUCH_CGROUP);
        assert_false(cgroup_paused(f, AB));
        assert_false(cgroup_paused(f, B));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_status, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dump, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pause_resume, setup, teardown),
                cmocka_unit_test_setup_teardown(test_set, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unknown_cgroup, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
