/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration loader over a main file and its drop-ins: the input is split into up to
 * MAX_FILES files at lines that are exactly "%%", loaded with config_load_buffers (what
 * config_load does once it has read the files). Checks beyond "does not crash":
 *   - the result is 0 or -EINVAL, the same when loaded twice;
 *   - every message starts "FILE:LINE:" with a file of the input and a line inside it; a
 *     failure logs an error and leaves the caller's configuration untouched, a success none;
 *   - on success every value is within its documented range (config.h, etc/mglrud.conf),
 *     sections are valid, unique globs with their specificity, keys a section did not set are
 *     at their built-in defaults, MinColdAge <= MaxColdAge for every section and for
 *     config_policy_for() of any cgroup, and config_copy() gives the same configuration;
 *   - config_dump() (mglrud --check-config) parses back without a message to the same
 *     daemon settings, [Defaults] and effective policy of every section. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "fuzz.h"
#include "mglrud/config/config.h"
#include "mglrud/shared/log.h"

#define MAX_FILES 8

static struct {
        const struct config_buffer *files; /* NULL: no message is expected */
        size_t n_files;
        unsigned n_errors, n_messages;
} logged;

static size_t count_lines(const struct config_buffer *f) {
        size_t n = 0;
        for (size_t i = 0; i < f->len; i++)
                n += f->text[i] == '\n';
        return n + (f->len > 0 && f->text[f->len - 1] != '\n');
}

/* Every message names a file of the input and a line that exists in it. */
static void check_location(const char *msg) {
        for (size_t i = 0; i < logged.n_files; i++) {
                const struct config_buffer *f = &logged.files[i];
                size_t l = strlen(f->filename);
                if (strncmp(msg, f->filename, l) != 0 || msg[l] != ':')
                        continue;
                char *end;
                unsigned long line = strtoul(msg + l + 1, &end, 10);
                fuzz_check(end > msg + l + 1 && *end == ':');
                fuzz_check(line >= 1 && line <= count_lines(f));
                return;
        }
        fprintf(stderr, "message without FILE:LINE: %s\n", msg);
        fuzz_check(!"message names a file of the input");
}

static void capture(int level, const char *msg, void *userdata) {
        logged.n_messages++;
        if (level <= LOG_ERR)
                logged.n_errors++;
        fuzz_check(logged.files);
        check_location(msg);
}

static bool ratio_equal(double a, double b) {
        return fabs(a - b) <= 1e-12 * fabs(b) + 1e-15;
}

static bool is_ratio(double d) {
        return d >= 0 && d <= 1;
}

/* The documented ranges (config.h, etc/mglrud.conf); effective: MinColdAge <= MaxColdAge. */
static void check_policy(const struct policy *p, bool effective) {
        fuzz_check(p->mode >= 0 && p->mode < _POLICY_MODE_MAX);
        fuzz_check(p->min_cold_age_usec >= CONFIG_MIN_COLD_AGE_USEC &&
                   p->min_cold_age_usec <= CONFIG_MAX_COLD_AGE_USEC);
        fuzz_check(p->max_cold_age_usec >= CONFIG_MIN_COLD_AGE_USEC &&
                   p->max_cold_age_usec <= CONFIG_MAX_COLD_AGE_USEC);
        if (effective)
                fuzz_check(p->min_cold_age_usec <= p->max_cold_age_usec);
        fuzz_check(is_ratio(p->pressure_target));
        fuzz_check(is_ratio(p->refault_target));
        fuzz_check(is_ratio(p->reclaim_ratio) && p->reclaim_ratio > 0);
        fuzz_check((p->swappiness >= 0 && p->swappiness <= 200) ||
                   p->swappiness == SWAPPINESS_ANON_ONLY || p->swappiness == SWAPPINESS_AUTO);
        fuzz_check(p->max_step_bytes >= CONFIG_MIN_MAX_STEP_BYTES);
        fuzz_check(p->stream_protection >= 0 && p->stream_protection < _STREAM_PROTECTION_MAX);
}

static void check_policy_equal(const struct policy *a, const struct policy *b) {
        fuzz_check(a->mode == b->mode);
        fuzz_check(a->min_cold_age_usec == b->min_cold_age_usec);
        fuzz_check(a->max_cold_age_usec == b->max_cold_age_usec);
        fuzz_check(ratio_equal(a->pressure_target, b->pressure_target));
        fuzz_check(ratio_equal(a->refault_target, b->refault_target));
        fuzz_check(a->swappiness == b->swappiness);
        fuzz_check(a->floor_bytes == b->floor_bytes);
        fuzz_check(a->max_step_bytes == b->max_step_bytes);
        fuzz_check(ratio_equal(a->reclaim_ratio, b->reclaim_ratio));
        fuzz_check(a->stream_protection == b->stream_protection);
}

/* Keys outside mask are at the built-in defaults (an empty assignment restores them). */
static void check_unset_keys(const struct policy *p, uint32_t mask) {
        struct policy d;

        fuzz_check((mask >> _POLICY_KEY_MAX) == 0);
        policy_init_defaults(&d);
        policy_copy_keys(&d, p, mask);
        check_policy_equal(&d, p);
}

static bool str_equal(const char *a, const char *b) {
        return a == b || (a && b && strcmp(a, b) == 0);
}

static void section_effective(const struct config *c, const struct policy_section *s,
                              struct policy *ret) {
        *ret = c->defaults;
        policy_copy_keys(ret, &s->policy, s->set_mask);
}

static void check_daemon_equal(const struct config *a, const struct config *b) {
        fuzz_check(a->interval_usec == b->interval_usec);
        fuzz_check(a->dry_run == b->dry_run);
        fuzz_check(str_equal(a->cgroup_root, b->cgroup_root));
        fuzz_check(str_equal(a->debugfs_root, b->debugfs_root));
        fuzz_check(str_equal(a->proc_root, b->proc_root));
        fuzz_check(a->log_level == b->log_level);
        fuzz_check(ratio_equal(a->host_full_limit, b->host_full_limit));
        fuzz_check(a->host_min_available == b->host_min_available);
        fuzz_check(a->stream_fast_path == b->stream_fast_path);
        fuzz_check(a->refault_check == b->refault_check);
        fuzz_check(a->pressure_triggers == b->pressure_triggers);
        fuzz_check(a->stall_guard == b->stall_guard);
        fuzz_check(a->refault_guard == b->refault_guard);
}

/* Everything equal, locations and masks included (a copy, or an untouched config). */
static void check_config_same(const struct config *a, const struct config *b) {
        check_daemon_equal(a, b);
        fuzz_check(a->daemon_set_mask == b->daemon_set_mask);
        check_policy_equal(&a->defaults, &b->defaults);
        fuzz_check(a->defaults_set_mask == b->defaults_set_mask);
        fuzz_check(str_equal(a->defaults_file, b->defaults_file));
        fuzz_check(a->defaults_line == b->defaults_line);
        fuzz_check(a->n_sections == b->n_sections);
        for (size_t i = 0; i < a->n_sections; i++) {
                const struct policy_section *s = &a->sections[i], *t = &b->sections[i];
                fuzz_check(strcmp(s->name, t->name) == 0);
                fuzz_check(s->match == t->match && s->selector == t->selector);
                fuzz_check(str_equal(s->file, t->file));
                fuzz_check(s->line == t->line);
                check_policy_equal(&s->policy, &t->policy);
                fuzz_check(s->set_mask == t->set_mask);
                fuzz_check(s->n_components == t->n_components);
                fuzz_check(s->n_wildcards == t->n_wildcards);
                fuzz_check(s->n_literals == t->n_literals);
        }
}

static const struct config_buffer *find_file(const struct config_buffer *files, size_t n,
                                             const char *name) {
        for (size_t i = 0; i < n; i++)
                if (str_equal(files[i].filename, name))
                        return &files[i];
        return NULL;
}

static bool is_literal(const char *glob) {
        return !strpbrk(glob, "*?[\\");
}

static void check_loaded(const struct config *c, const struct config_buffer *files, size_t n) {
        fuzz_check(c->interval_usec >= CONFIG_MIN_INTERVAL_USEC &&
                   c->interval_usec <= CONFIG_MAX_INTERVAL_USEC);
        fuzz_check(!c->cgroup_root || c->cgroup_root[0] == '/');
        fuzz_check(c->debugfs_root && c->debugfs_root[0] == '/');
        fuzz_check(c->proc_root && c->proc_root[0] == '/');
        fuzz_check(c->log_level >= LOG_ERR && c->log_level <= LOG_DEBUG);
        fuzz_check(is_ratio(c->host_full_limit));
        fuzz_check((c->daemon_set_mask >> _DAEMON_KEY_MAX) == 0);

        check_policy(&c->defaults, true);
        check_unset_keys(&c->defaults, c->defaults_set_mask);
        fuzz_check(c->defaults_file || c->defaults_set_mask == 0);
        if (c->defaults_file) {
                const struct config_buffer *f = find_file(files, n, c->defaults_file);
                fuzz_check(f && c->defaults_line >= 1 && c->defaults_line <= count_lines(f));
        }

        for (size_t i = 0; i < c->n_sections; i++) {
                const struct policy_section *s = &c->sections[i];
                for (size_t j = 0; j < i; j++)
                        fuzz_check(strcmp(c->sections[j].name, s->name) != 0);
                if (s->match == SECTION_MATCH_PATH) {
                        fuzz_check(cgroup_glob_validate(s->name) == 0);
                        struct policy_section spec = { .name = s->name };
                        policy_section_compute_specificity(&spec);
                        fuzz_check(spec.n_components == s->n_components &&
                                   spec.n_wildcards == s->n_wildcards &&
                                   spec.n_literals == s->n_literals);
                }
                const struct config_buffer *f = find_file(files, n, s->file);
                fuzz_check(f && s->line >= 1 && s->line <= count_lines(f));
                check_unset_keys(&s->policy, s->set_mask);

                struct policy p;
                section_effective(c, s, &p);
                check_policy(&p, true);

                /* A glob without wildcards is a cgroup path that its own section manages. */
                if (s->match != SECTION_MATCH_PATH)
                        continue;
                const struct cgroup_match m = { .path = s->name };
                const struct policy_section *best = config_policy_for(c, &m, &p);
                check_policy(&p, true);
                if (is_literal(s->name))
                        fuzz_check(best && policy_section_specificity_cmp(best, s) >= 0);
        }
        static const char *const paths[] = { "/", "/a", "/system.slice/sshd.service",
                                             "/batch.slice/job1.scope", "/a/b/c" };
        for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
                struct policy p;
                const struct cgroup_match m = { .path = paths[i] };
                config_policy_for(c, &m, &p);
                check_policy(&p, true);
        }
}

static void check_dump_reloads(const struct config *c) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        struct config back;

        fuzz_check(f);
        config_dump(c, f);
        fuzz_check(fclose(f) == 0);

        config_init(&back);
        logged.files = NULL; /* any message about the dump fails the capture */
        int r = config_load_string(text, "dump", &back);
        if (r != 0)
                fprintf(stderr, "the dump does not parse back (%d):\n%s", r, text);
        fuzz_check(r == 0);

        check_daemon_equal(c, &back);
        check_policy_equal(&c->defaults, &back.defaults);
        fuzz_check(c->n_sections == back.n_sections);
        for (size_t i = 0; i < c->n_sections; i++) {
                struct policy p, q;
                fuzz_check(strcmp(c->sections[i].name, back.sections[i].name) == 0);
                section_effective(c, &c->sections[i], &p);
                section_effective(&back, &back.sections[i], &q);
                check_policy_equal(&p, &q);
        }
        config_done(&back);
        free(text);
}

/* The caller's configuration before each load: some of everything, so that "untouched" means
 * something. */
static const char reference_text[] =
        "[Daemon]\nInterval=42s\nCgroupRoot=/cg\nHostPressureLimit=7%\n"
        "[Defaults]\nMode=advise\nMaxColdAge=1h\n"
        "[/keep.slice/*]\nFloor=1M\nSwappiness=max\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static struct config reference;
        static bool initialized;
        struct config_buffer files[MAX_FILES];
        char names[MAX_FILES][48];
        size_t n = 0, start = 0;
        int r;

        if (!initialized) {
                log_set_max_level(LOG_DEBUG);
                log_set_capture(capture, NULL);
                config_init(&reference);
                fuzz_check(config_load_string(reference_text, "reference.conf", &reference) == 0);
                initialized = true;
        }

        /* Split at lines "%%": file i is data[start..i), each in a buffer of exactly its size
         * (ASan catches a read past the end of one file). */
        for (size_t i = 0; i <= size; i++) {
                bool sep = n < MAX_FILES - 1 && (i == 0 || data[i - 1] == '\n') && i + 2 <= size &&
                           data[i] == '%' && data[i + 1] == '%' && (i + 2 == size || data[i + 2] == '\n');
                if (!sep && i < size)
                        continue;
                char *text = malloc(i - start + 1);
                fuzz_check(text);
                memcpy(text, data + start, i - start);
                if (n == 0)
                        snprintf(names[n], sizeof names[n], "mglrud.conf");
                else
                        snprintf(names[n], sizeof names[n], "mglrud.conf.d/%zu.conf", n);
                files[n] = (struct config_buffer) { .filename = names[n], .text = text, .len = i - start };
                n++;
                start = i + 3 < size ? i + 3 : size;
                i += 2;
        }

        struct config c, again;
        fuzz_check(config_copy(&reference, &c) == 0);
        logged = (typeof(logged)) { .files = files, .n_files = n };
        r = config_load_buffers(files, n, &c);
        fuzz_check(r == 0 || r == -EINVAL);
        if (r < 0) {
                fuzz_check(logged.n_errors > 0);
                check_config_same(&c, &reference);
        } else {
                fuzz_check(logged.n_errors == 0);
                check_loaded(&c, files, n);

                /* The same files give the same configuration (no state kept between loads). */
                config_init(&again);
                fuzz_check(config_load_buffers(files, n, &again) == 0);
                check_config_same(&c, &again);
                config_done(&again);

                struct config copy;
                fuzz_check(config_copy(&c, &copy) == 0);
                check_config_same(&c, &copy);
                config_done(&copy);

                check_dump_reloads(&c);
        }
        config_done(&c);
        for (size_t i = 0; i < n; i++)
                free((char *) files[i].text);
        logged = (typeof(logged)) {};
        return 0;
}
