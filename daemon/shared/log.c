/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/shared/log.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#define SD_JOURNAL_SUPPRESS_LOCATION 1
#include <sys/uio.h>
#include <systemd/sd-journal.h>

/* Written by a reload on the event loop, read by the writer thread: accessed atomically. */
static int max_level = LOG_INFO;
static bool to_journal;
static const char *identifier = "mglrud";
static void (*capture_fn)(int level, const char *msg, void *userdata);
static void *capture_userdata;

void log_set_capture(void (*fn)(int level, const char *msg, void *userdata), void *userdata) {
        capture_fn = fn;
        capture_userdata = userdata;
}

void log_set_max_level(int level) {
        __atomic_store_n(&max_level, level, __ATOMIC_RELAXED);
}

int log_get_max_level(void) {
        return __atomic_load_n(&max_level, __ATOMIC_RELAXED);
}

int log_level_from_string(const char *s) {
        static const struct {
                const char *name;
                int level;
        } names[] = {
                { "emerg", LOG_EMERG },   { "alert", LOG_ALERT }, { "crit", LOG_CRIT },
                { "err", LOG_ERR },       { "error", LOG_ERR },   { "warning", LOG_WARNING },
                { "warn", LOG_WARNING },  { "notice", LOG_NOTICE }, { "info", LOG_INFO },
                { "debug", LOG_DEBUG },
        };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (strcasecmp(s, names[i].name) == 0)
                        return names[i].level;
        if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
                return s[0] - '0';
        return -EINVAL;
}

void log_set_identifier(const char *ident) {
        identifier = ident;
}

void log_set_target_journal(int yes) {
        to_journal = yes;
}

void log_open(void) {
        /* systemd sets JOURNAL_STREAM when stderr goes to the journal: only then do structured
         * records make sense; on a terminal we print plain lines. */
        const char *js = getenv("JOURNAL_STREAM");
        to_journal = js && *js;
}

static const char *level_prefix(int level) {
        switch (level) {
        case LOG_EMERG:
        case LOG_ALERT:
        case LOG_CRIT:
        case LOG_ERR:
                return "error: ";
        case LOG_WARNING:
                return "warning: ";
        case LOG_DEBUG:
                return "debug: ";
        default:
                return "";
        }
}

int log_internal(int level, int error, const char *file, int line, const char *func,
                 const char *fmt, ...) {
        int ret = error == 0 ? 0 : -abs(error);
        if (level > log_get_max_level())
                return ret;

        char msg[2048];
        va_list ap;
        int saved = errno;
        if (error != 0)
                errno = abs(error); /* so %m in fmt names the error we were given */
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        errno = saved;

        if (capture_fn)
                capture_fn(level, msg, capture_userdata);
        else if (to_journal) {
                char errbuf[32];
                snprintf(errbuf, sizeof errbuf, "ERRNO=%d", abs(error));
                /* ERRNO= only when there is one (the list ends at the NULL otherwise). */
                sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%i", level, "CODE_FILE=%s", file,
                                "CODE_LINE=%d", line, "CODE_FUNC=%s", func,
                                "SYSLOG_IDENTIFIER=%s", identifier, error ? errbuf : NULL, NULL);
        } else {
                fprintf(stderr, "%s%s\n", level_prefix(level), msg);
        }
        return ret;
}

/* Appends " KEY=value" for each field to f, quoting values with blanks, quotes or control
 * characters (logfmt style), so that a line on stderr carries what the journal gets. */
static void put_fields(FILE *f, const char *const *fields) {
        for (size_t i = 0; fields && fields[i]; i++) {
                const char *eq = strchr(fields[i], '=');
                if (!eq)
                        continue;
                const char *v = eq + 1;
                bool quote = !*v || strpbrk(v, " \t\"\\") != NULL;
                for (const char *p = v; *p && !quote; p++)
                        quote = (unsigned char) *p < 0x20 || *p == 0x7f;
                fprintf(f, " %.*s=%s", (int) (eq - fields[i]), fields[i], quote ? "\"" : "");
                for (const char *p = v; *p; p++) {
                        unsigned char c = (unsigned char) *p;
                        if (c == '"' || c == '\\')
                                fprintf(f, "\\%c", c);
                        else if (c < 0x20 || c == 0x7f)
                                fprintf(f, "\\x%02x", c);
                        else
                                fputc(c, f);
                }
                if (quote)
                        fputc('"', f);
        }
}

int log_struct_internal(int level, int error, const char *const *fields, const char *fmt, ...) {
        if (level > log_get_max_level())
                return 0;

        char msg[2048];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);

        if (capture_fn)
                capture_fn(level, msg, capture_userdata);
        else if (to_journal) {
                struct iovec iov[40];
                char msgfield[2100], prio[32], errbuf[32];
                size_t n = 0;
                snprintf(msgfield, sizeof msgfield, "MESSAGE=%s", msg);
                snprintf(prio, sizeof prio, "PRIORITY=%d", level);
                iov[n++] = (struct iovec) { msgfield, strlen(msgfield) };
                iov[n++] = (struct iovec) { prio, strlen(prio) };
                char ident[64];
                snprintf(ident, sizeof ident, "SYSLOG_IDENTIFIER=%s", identifier);
                iov[n++] = (struct iovec) { ident, strlen(ident) };
                if (error != 0) {
                        snprintf(errbuf, sizeof errbuf, "ERRNO=%d", abs(error));
                        iov[n++] = (struct iovec) { errbuf, strlen(errbuf) };
                }
                for (size_t i = 0; fields && fields[i] && n < ELEMENTSOF(iov); i++)
                        iov[n++] = (struct iovec) { (char *) fields[i], strlen(fields[i]) };
                sd_journal_sendv(iov, (int) n);
        } else {
                flockfile(stderr);
                fprintf(stderr, "%s%s", level_prefix(level), msg);
                put_fields(stderr, fields);
                fputc('\n', stderr);
                funlockfile(stderr);
        }
        return 0;
}
