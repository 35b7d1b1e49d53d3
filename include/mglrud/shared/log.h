/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h: leveled logging. Under systemd (JOURNAL_STREAM set) records go to the journal with
 * structured fields; otherwise one plain line per record on stderr. */
#pragma once

#include <stdarg.h>
#include <syslog.h>

#include "mglrud/shared/macro.h"

/* Sets the maximum level printed (LOG_ERR..LOG_DEBUG). */
void log_set_max_level(int level);
int log_get_max_level(void);

/* Parses "err|warning|notice|info|debug" (or a syslog number). Returns the level or -EINVAL. */
int log_level_from_string(const char *s);

/* Sets the journal's SYSLOG_IDENTIFIER (default "mglrud"); ident must outlive the logging. */
void log_set_identifier(const char *ident);

/* Chooses the journal when stderr is connected to it (JOURNAL_STREAM), or when forced. */
void log_open(void);
void log_set_target_journal(int yes);

/* Test hook: while fn is set, every record that passes the level filter goes to fn (with the
 * formatted message) instead of stderr or the journal. fn = NULL restores normal output. */
void log_set_capture(void (*fn)(int level, const char *msg, void *userdata), void *userdata);

/* Logs msg at level. Returns -abs(error) when error != 0 so callers can `return log_...`,
 * else 0. */
int log_internal(int level, int error, const char *file, int line, const char *func,
                 const char *fmt, ...) _printf_(6, 7);

/* Logs a structured record: fields is a NULL-terminated list of "KEY=value" strings that go
 * to the journal as fields (and are appended as KEY=value, quoted when needed, on stderr);
 * error, when not 0, goes to the journal as ERRNO=. Returns 0. */
int log_struct_internal(int level, int error, const char *const *fields, const char *fmt, ...)
        _printf_(4, 5);

#define log_full_errno(level, error, ...) \
        log_internal((level), (error), __FILE__, __LINE__, __func__, __VA_ARGS__)
#define log_debug(...) log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...) log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...) log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...) log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, (e), __VA_ARGS__)
#define log_info_errno(e, ...) log_full_errno(LOG_INFO, (e), __VA_ARGS__)
#define log_notice_errno(e, ...) log_full_errno(LOG_NOTICE, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, (e), __VA_ARGS__)
