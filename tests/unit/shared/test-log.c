/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c on stderr: structured records carry their fields as KEY=value (quoted when needed), and
 * the level filter holds for plain and structured records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "mglrud/shared/log.h"

/* Runs fn with stderr sent to a temporary file; returns what it printed (malloc'ed). */
static char *stderr_of(void (*fn)(void)) {
        FILE *tmp = tmpfile();
        assert_non_null(tmp);
        fflush(stderr);
        int saved = dup(STDERR_FILENO);
        assert_true(saved >= 0);
        assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
        fn();
        fflush(stderr);
        assert_true(dup2(saved, STDERR_FILENO) >= 0);
        close(saved);
        long n = ftell(tmp);
        assert_true(n >= 0);
        char *text = calloc(1, (size_t) n + 1);
        rewind(tmp);
        assert_int_equal(fread(text, 1, (size_t) n, tmp), (size_t) n);
        fclose(tmp);
        return text;
}

static void log_action(void) {
        const char *fields[] = { "MGLRUD_CGROUP=/work load.slice/a \"b\"", "MGLRUD_ACTION=evict",
                                 "MGLRUD_BYTES=4096", "MGLRUD_ODD=tab\there", NULL };
        log_struct_internal(LOG_INFO, 0, fields, "evict asked %s", "4K");
}

static void test_struct_fields_on_stderr(void **state) {
        log_open();
        log_set_max_level(LOG_INFO);
        char *text = stderr_of(log_action);
        assert_string_equal(text, "evict asked 4K MGLRUD_CGROUP=\"/work load.slice/a \\\"b\\\"\" "
                                  "MGLRUD_ACTION=evict MGLRUD_BYTES=4096 "
                                  "MGLRUD_ODD=\"tab\\x09here\"\n");
        free(text);
}

static void log_debug_both(void) {
        const char *fields[] = { "MGLRUD_ACTION=advise", NULL };
        log_debug("plain debug");
        log_struct_internal(LOG_DEBUG, 0, fields, "structured debug");
        log_notice("notice %d", 1);
}

static void test_level_filter(void **state) {
        log_set_max_level(LOG_NOTICE);
        assert_int_equal(log_get_max_level(), LOG_NOTICE);
        char *text = stderr_of(log_debug_both);
        assert_string_equal(text, "notice 1\n");
        free(text);
        log_set_max_level(LOG_DEBUG);
        text = stderr_of(log_debug_both);
        assert_string_equal(text, "debug: plain debug\ndebug: structured debug "
                                  "MGLRUD_ACTION=advise\nnotice 1\n");
        free(text);
}

static void test_errno_return(void **state) {
        log_set_max_level(LOG_ERR);
        assert_int_equal(log_warning_errno(5, "quiet"), -5);
        assert_int_equal(log_warning_errno(-5, "quiet"), -5);
        assert_int_equal(log_warning("quiet"), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_struct_fields_on_stderr),
                cmocka_unit_test(test_level_filter),
                cmocka_unit_test(test_errno_return),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
