/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.c: loading mglrud.conf and its drop-ins with inih.
 *
 * The packaged inih (Debian r55) is built without INI_HANDLER_LINENO, truncates section names
 * to 49 bytes and cuts them at the first ']' (which globs such as "[/a/x-[0-9]*]" need), treats
 * indented lines as continuations of the previous value, and only reports the first bad line's
 * number after the whole file was read. So we feed it through ini_parse_stream() with our own
 * line reader: the reader counts lines, parses section headers itself (full length, last ']'),
 * strips indentation, rejects malformed lines with a precise message and stops the stream on
 * the first error. inih still splits "Key = Value" and strips inline comments (';' after
 * whitespace; '#' only starts a comment at the beginning of a line), and the handler takes the
 * section and line number from the reader's state. */
#include "config-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

/* ---- parsing one file ---- */

enum section_kind {
        SECTION_NONE, /* before the first header */
        SECTION_DAEMON,
        SECTION_DEFAULTS,
        SECTION_CGROUP,
        SECTION_UNKNOWN,
};

struct parse_ctx {
        struct config *c;
        struct section_index *index;
        char *first_error;     /* the first error message (for Reload() callers), or NULL */
        const char *filename;
        const char *pos, *end; /* the reader's cursor in the text */
        unsigned line;         /* number of the line the reader handed out last */
        char *section;         /* the current section's name, full length */
        enum section_kind kind;
        size_t section_idx;    /* into c->sections when kind == SECTION_CGROUP */
        int error;             /* first error (negative errno): stops the stream */
};

/* Logs "FILE:LINE: [SECTION] Key=Value: reason" at level, leaving out the parts that are NULL. */
_printf_(5, 6) static void ctx_log(struct parse_ctx *ctx, int level, const char *key,
                                   const char *value, const char *fmt, ...) {
        char reason[512];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(reason, sizeof reason, fmt, ap);
        va_end(ap);

        char msg[1024];
        snprintf(msg, sizeof msg, "%s:%u: %s%s%s%s%s%s%s%s", ctx->filename, ctx->line,
                 ctx->section ? "[" : "", ctx->section ?: "", ctx->section ? "] " : "",
                 key ?: "", key ? "=" : "", value ?: "", key ? ": " : "", reason);
        log_full_errno(level, 0, "%s", msg);
        if (level <= LOG_ERR && ctx->error == 0) {
                ctx->error = -EINVAL;
                if (!ctx->first_error)
                        ctx->first_error = strdup(msg);
        }
}

#define ctx_error(ctx, key, value, ...) ctx_log((ctx), LOG_ERR, (key), (value), __VA_ARGS__)
#define ctx_warning(ctx, key, value, ...) ctx_log((ctx), LOG_WARNING, (key), (value), __VA_ARGS__)

static int enter_section(struct parse_ctx *ctx, const char *name) {
        struct config *c = ctx->c;
        char *file = NULL;

        free(ctx->section);
        ctx->section = strdup(name);
        if (!ctx->section)
                return -ENOMEM;

        if (strcmp(name, "Daemon") == 0) {
                ctx->kind = SECTION_DAEMON;
                return 0;
        }
        if (strcmp(name, "Defaults") == 0) {
                file = strdup(ctx->filename);
                if (!file)
                        return -ENOMEM;
                free(c->defaults_file);
                c->defaults_file = file;
                c->defaults_line = ctx->line;
                ctx->kind = SECTION_DEFAULTS;
                return 0;
        }
        struct policy_section parsed = {};
        const char *reason = NULL;
        int r = policy_section_parse_name(&parsed, name, &reason);
        if (r == -ENOENT) {
                ctx->kind = SECTION_UNKNOWN;
                ctx_warning(ctx, NULL, NULL, "unknown section, ignoring its keys");
                return 0;
        }
        if (r == -EINVAL) {
                ctx_error(ctx, NULL, NULL, "%s", reason);
                return -EINVAL;
        }
        if (r < 0)
                return r;

        file = strdup(ctx->filename);
        if (!file) {
                free(parsed.name);
                return -ENOMEM;
        }
        /* "[Pod:BestEffort]" and "[Pod:besteffort]" are one section: compare canonical names. */
        int i = section_index_find(ctx->index, c, parsed.name);
        if (i == -ENOMEM) {
                free(parsed.name);
                free(file);
                return i;
        }
        if (i < 0) {
                /* Geometric growth: one section at a time was quadratic. */
                if (c->n_sections == c->sections_cap) {
                        size_t cap = MAX(c->sections_cap * 2, (size_t) 8);
                        struct policy_section *n = reallocarray(c->sections, cap, sizeof *n);
                        if (!n) {
                                free(parsed.name);
                                free(file);
                                return -ENOMEM;
                        }
                        c->sections = n;
                        c->sections_cap = cap;
                }
                c->sections[c->n_sections] = parsed;
                policy_init_defaults(&c->sections[c->n_sections].policy);
                i = (int) c->n_sections++;
                section_index_add(ctx->index, c, (size_t) i);
        } else
                free(parsed.name);
        /* A section seen again in a later file merges into the first one (keeping its place
         * for the final specificity tie-break); only its location moves. */
        free(c->sections[i].file);
        c->sections[i].file = file;
        c->sections[i].line = ctx->line;
        ctx->kind = SECTION_CGROUP;
        ctx->section_idx = (size_t) i;
        return 0;
}

static bool is_blank(char ch) {
        return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

/* Parses a section header line "[name]" with an optional trailing comment. Returns 0 and the
 * name (pointing into line, NUL-terminated in place), or -EINVAL. */
static int parse_section_header(char *line, char **ret_name) {
        /* The last ']' closes the header: globs may contain bracket expressions. */
        char *close = NULL;
        for (char *p = line + 1; *p; p++) {
                if (*p == ']')
                        close = p;
                else if ((*p == ';' || *p == '#') && close && is_blank(p[-1]))
                        break; /* comment after the header */
        }
        if (!close)
                return -EINVAL;
        for (char *p = close + 1; *p; p++) {
                if (*p == ';' || *p == '#')
                        break;
                if (!is_blank(*p))
                        return -EINVAL;
        }
        *close = '\0';
        char *name = line + 1;
        while (is_blank(*name))
                name++;
        for (char *e = name + strlen(name); e > name && is_blank(e[-1]); e--)
                e[-1] = '\0';
        if (!*name)
                return -EINVAL;
        *ret_name = name;
        return 0;
}

/* The ini_reader: hands inih one line at a time; see the top of the file for why. */
static char *reader(char *buf, int size, void *userdata) {
        struct parse_ctx *ctx = userdata;

        if (ctx->error != 0 || ctx->pos >= ctx->end)
                return NULL;

        const char *l = ctx->pos;
        const char *nl = memchr(l, '\n', (size_t) (ctx->end - l));
        size_t len = nl ? (size_t) (nl - l) : (size_t) (ctx->end - l);
        ctx->pos = nl ? nl + 1 : ctx->end;
        ctx->line++;

        if (ctx->line == 1 && len >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0)
                l += 3, len -= 3; /* UTF-8 byte order mark */
        while (len > 0 && is_blank(*l))
                l++, len--; /* indentation is not a continuation line here */
        while (len > 0 && is_blank(l[len - 1]))
                len--;

        if (memchr(l, '\0', len)) {
                ctx_error(ctx, NULL, NULL, "line contains a NUL byte");
                return NULL;
        }
        if (len + 1 > (size_t) size) {
                ctx_error(ctx, NULL, NULL, "line too long (at most %d characters)", size - 1);
                return NULL;
        }
        memcpy(buf, l, len);
        buf[len] = '\0';

        if (len == 0 || buf[0] == '#' || buf[0] == ';')
                return buf;

        if (buf[0] == '[') {
                char *name;
                if (parse_section_header(buf, &name) < 0) {
                        ctx_error(ctx, NULL, NULL, "invalid section header");
                        return NULL;
                }
                int r = enter_section(ctx, name);
                if (r < 0) {
                        if (ctx->error == 0)
                                ctx->error = r;
                        return NULL;
                }
                buf[0] = '\0'; /* inih need not see headers: the handler uses ctx->section */
                return buf;
        }

        /* inih also accepts "Key: Value"; we do not, to keep one syntax. */
        char *eq = strchr(buf, '=');
        size_t colon = strcspn(buf, ":");
        if (!eq) {
                /* Not echoed: a file linked here by mistake (or malice) may hold secrets. */
                ctx_error(ctx, NULL, NULL, "expected Key=Value or [Section]");
                return NULL;
        }
        if (eq == buf || colon < (size_t) (eq - buf)) {
                ctx_error(ctx, NULL, NULL, "invalid key name");
                return NULL;
        }
        return buf;
}

static const char *daemon_name(int k) {
        return daemon_key_to_string(k);
}

static const char *policy_name(int k) {
        return policy_key_to_string(k);
}

/* Returns the index of name in to_string's table, or -ENOENT. */
static int lookup_key(const char *(*to_string)(int), int n, const char *name) {
        for (int i = 0; i < n; i++)
                if (strcmp(to_string(i), name) == 0)
                        return i;
        return -ENOENT;
}

/* Returns the key name that differs from name only in case (for a hint), or NULL. */
static const char *lookup_key_icase(const char *(*to_string)(int), int n, const char *name) {
        for (int i = 0; i < n; i++)
                if (strcasecmp(to_string(i), name) == 0)
                        return to_string(i);
        return NULL;
}

static int handler(void *userdata, const char *section_unused, const char *name,
                   const char *value) {
        struct parse_ctx *ctx = userdata;
        struct config *c = ctx->c;
        const char *reason = NULL;
        int r;

        if (ctx->error != 0)
                return 0;

        switch (ctx->kind) {
        case SECTION_UNKNOWN:
                return 1; /* warned once at the header */
        case SECTION_NONE:
                ctx_warning(ctx, name, value, "assignment outside of any section, ignoring");
                return 1;
        default:
                break;
        }

        int dk = lookup_key(daemon_name, _DAEMON_KEY_MAX, name);
        int pk = lookup_key(policy_name, _POLICY_KEY_MAX, name);

        if (ctx->kind == SECTION_DAEMON) {
                if (pk >= 0) {
                        ctx_error(ctx, name, value,
                                  "policy key not allowed in [Daemon] (use [Defaults])");
                        return 0;
                }
                if (dk < 0)
                        goto unknown;
                r = config_parse_daemon_key(c, dk, value, &reason);
        } else {
                if (dk >= 0) {
                        ctx_error(ctx, name, value, "[Daemon] key not allowed in a policy section");
                        return 0;
                }
                if (pk < 0)
                        goto unknown;

                bool defaults = ctx->kind == SECTION_DEFAULTS;
                struct policy *p = defaults ? &c->defaults : &c->sections[ctx->section_idx].policy;
                uint32_t *mask = defaults ? &c->defaults_set_mask
                                          : &c->sections[ctx->section_idx].set_mask;
                if (!*value) {
                        /* Empty: forget the assignment (back to inherited/built-in). */
                        struct policy def;
                        policy_init_defaults(&def);
                        policy_copy_key(p, &def, pk);
                        *mask &= ~(1u << pk);
                        return 1;
                }
                r = config_parse_policy_key(p, pk, value, &reason);
                if (r >= 0)
                        *mask |= 1u << pk;
        }
        if (r == -ENOMEM) {
                ctx->error = -ENOMEM;
                return 0;
        }
        if (r < 0) {
                ctx_error(ctx, name, value, "%s", reason);
                return 0;
        }
        return 1;

unknown:;
        const char *hint = ctx->kind == SECTION_DAEMON
                                   ? lookup_key_icase(daemon_name, _DAEMON_KEY_MAX, name)
                                   : lookup_key_icase(policy_name, _POLICY_KEY_MAX, name);
        if (hint)
                ctx_warning(ctx, name, value, "unknown key, ignoring (did you mean %s=?)", hint);
        else
                ctx_warning(ctx, name, value, "unknown key, ignoring");
        return 1;
}

/* Logs an error of the configuration as a whole and keeps the first one's text in *first (when
 * first is not NULL and nothing is there yet). Returns -err. */
_printf_(3, 4) static int load_error(char **first, int err, const char *fmt, ...) {
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        log_error("%s", msg);
        if (first && !*first)
                *first = strdup(msg);
        return -abs(err);
}

static int parse_text(struct config *c, struct section_index *index, const char *text, size_t len,
                      const char *filename, char **first_error) {
        struct parse_ctx ctx = {
                .c = c,
                .index = index,
                .filename = filename,
                .pos = text,
                .end = text + len,
        };

        int r = ini_parse_stream(reader, &ctx, handler, &ctx);
        free(ctx.section);
        if (ctx.first_error) {
                if (first_error && !*first_error)
                        *first_error = ctx.first_error;
                else
                        free(ctx.first_error);
        }
        if (ctx.error == -ENOMEM || r == -2)
                return log_error_errno(ENOMEM, "%s: out of memory", filename);
        if (ctx.error < 0)
                return ctx.error;
        if (r != 0)
                /* The reader lets only "Key=Value" lines through, so inih should never fail. */
                return log_error_errno(EINVAL, "%s:%d: syntax error", filename, r);
        return 0;
}

static int check_cold_ages(const struct policy *p, const char *file, unsigned line,
                           const char *section, const char *from, char **first_error) {
        char a[32], b[32];

        if (p->min_cold_age_usec <= p->max_cold_age_usec)
                return 0;
        return load_error(first_error, EINVAL, "%s:%u: [%s] MinColdAge=%s: greater than MaxColdAge=%s%s",
                          file ?: "(built-in)", line, section,
                          format_duration(a, sizeof a, p->min_cold_age_usec),
                          format_duration(b, sizeof b, p->max_cold_age_usec), from);
}

/* Checks what only makes sense once every file is read. Returns 0 or -EINVAL. */
static int config_verify(const struct config *c, char **first_error) {
        int r = check_cold_ages(&c->defaults, c->defaults_file, c->defaults_line, "Defaults", "",
                                first_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < c->n_sections; i++) {
                const struct policy_section *s = &c->sections[i];
                struct policy p = c->defaults;
                policy_copy_keys(&p, &s->policy, s->set_mask);
                uint32_t both = (1u << POLICY_KEY_MIN_COLD_AGE) | (1u << POLICY_KEY_MAX_COLD_AGE);
                r = check_cold_ages(&p, s->file, s->line, s->name,
                                    (s->set_mask & both) == both ? ""
                                    : (s->set_mask & both) ? " (the other one from [Defaults])"
                                                           : "",
                                    first_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

int config_load_buffers(const struct config_buffer *files, size_t n, struct config *ret) {
        _cleanup_(config_done) struct config tmp;
        _cleanup_(section_index_done) struct section_index index = {};
        int r;

        config_init(&tmp);
        for (size_t i = 0; i < n; i++) {
                r = parse_text(&tmp, &index, files[i].text, files[i].len, files[i].filename, NULL);
                if (r < 0)
                        return r;
        }
        r = config_verify(&tmp, NULL);
        if (r < 0)
                return r;
        config_move(ret, &tmp);
        return 0;
}

int config_load_string(const char *text, const char *filename, struct config *c) {
        const struct config_buffer file = { .filename = filename, .text = text, .len = strlen(text) };
        return config_load_buffers(&file, 1, c);
}

/* Logs "PATH: WHAT: refusing it." as the load's error. Returns -EPERM. */
static int refuse(char **first_error, const char *path, const char *what) {
        return load_error(first_error, EPERM, "%s: %s: refusing it.", path, what);
}

/* Refuses path when the directory holding resolved (path itself, or what its symlink resolves
 * to) could be written by someone but root: they could put another file in its place. */
static int check_parent(const char *resolved, const char *path, char **first_error) {
        _cleanup_free_ char *copy = strdup(resolved);
        char why[128], what[PATH_MAX + 160];
        struct stat st;

        if (!copy)
                return -ENOMEM;
        const char *dir = dirname(copy);
        if (stat(dir, &st) < 0)
                return load_error(first_error, errno, "%s: %s", dir, strerror(errno));
        if (config_path_trusted(CONFIG_PATH_PARENT, st.st_uid, st.st_mode, geteuid(), why,
                                sizeof why))
                return 0;
        snprintf(what, sizeof what, "the directory %s is %s", dir, why);
        return refuse(first_error, path, what);
}

/* Refuses a configuration path (a file, or the drop-in directory: kind) that someone but root
 * could have written, like sshd's StrictModes (config_path_trusted, with the daemon's own uid
 * trusted too: a per-user instance, tests on fixture files): what it is after links (target,
 * as opened), the symlink itself, and the directories holding both. Returns 0, -EPERM (logged)
 * or a negative errno. */
static int check_trust(const char *path, const struct stat *target, enum config_path_kind kind,
                       char **first_error) {
        char why[128], what[192];
        struct stat st;
        int r;

        if (lstat(path, &st) < 0)
                return load_error(first_error, errno, "%s: %s", path, strerror(errno));
        bool link = S_ISLNK(st.st_mode);
        if (link && !config_path_trusted(CONFIG_PATH_SYMLINK, st.st_uid, st.st_mode, geteuid(),
                                         why, sizeof why)) {
                snprintf(what, sizeof what, "a symlink %s", why);
                return refuse(first_error, path, what);
        }
        if (!config_path_trusted(kind, target->st_uid, target->st_mode, geteuid(), why,
                                 sizeof why)) {
                snprintf(what, sizeof what, "%s%s", link ? "what it links to is " : "", why);
                return refuse(first_error, path, what);
        }
        r = check_parent(path, path, first_error);
        if (r < 0 || !link)
                return r;
        _cleanup_free_ char *real = realpath(path, NULL);
        if (!real)
                return load_error(first_error, errno, "%s: %s", path, strerror(errno));
        return check_parent(real, path, first_error);
}

int config_load(const char *main_path, const char *dropin_dir, struct config *ret,
                char **ret_error) {
        _cleanup_(config_files_freep) char **files = NULL;
        _cleanup_(config_done) struct config tmp;
        _cleanup_free_ char *first = NULL;
        _cleanup_(section_index_done) struct section_index index = {};
        struct stat st;
        int r;

        config_init(&tmp);
        /* The main file must exist: a typo in --config, or a file removed before a reload, must
         * not silently mean "manage nothing". An empty file gives the built-in defaults. */
        if (main_path && stat(main_path, &st) < 0) {
                r = load_error(&first, errno, "%s: %s", main_path, strerror(errno));
                goto fail;
        }
        if (dropin_dir && stat(dropin_dir, &st) == 0 &&
            (r = check_trust(dropin_dir, &st, CONFIG_PATH_DROPIN_DIR, &first)) < 0)
                goto fail;
        r = config_list_files(main_path, dropin_dir, &files);
        if (r < 0)
                goto fail;

        for (char **f = files; *f; f++) {
                _cleanup_(read_buf_free) struct read_buf b = {};
                _cleanup_close_ int fd = open(*f, O_RDONLY | O_CLOEXEC | O_NOCTTY);
                if (fd < 0 && errno == ENOENT)
                        continue; /* removed since it was listed: as if it never existed */
                if (fd < 0 || fstat(fd, &st) < 0) {
                        r = load_error(&first, errno, "%s: %s", *f, strerror(errno));
                        goto fail;
                }
                if ((r = check_trust(*f, &st, CONFIG_PATH_FILE, &first)) < 0)
                        goto fail;
                r = read_full_fd(fd, &b);
                if (r < 0) {
                        r = load_error(&first, r, "%s: %s", *f, strerror(-r));
                        goto fail;
                }
                r = parse_text(&tmp, &index, b.data, b.len, *f, &first);
                if (r < 0)
                        goto fail;
        }

        r = config_verify(&tmp, &first);
        if (r < 0)
                goto fail;
        config_move(ret, &tmp);
        return 0;
fail:
        if (ret_error)
                *ret_error = TAKE_PTR(first);
        return r;
}
