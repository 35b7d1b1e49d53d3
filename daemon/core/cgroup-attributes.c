/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup-attributes.c: the user.mglrud.* xattrs of a cgroup at discovery, as far as the
 * administrator lets them count (cgroup-attributes.h). A rescan reads them every minute and at
 * each inotify event, so what was refused is logged once, not each time. */
#include "mglrud/core/cgroup-attributes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mglrud/kernel/cgroup-xattr.h"
#include "mglrud/shared/escape.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"

/* The messages for one cgroup, one per line, until they are logged or found said already. */
struct said_lines {
        const char *name; /* the cgroup's escaped path */
        char text[4096];
        size_t len;
};

/* Appends "NAME: <verb> user.mglrud.KEY=VALUE: REASON" (key and value escaped). */
static void add_line(struct said_lines *l, const char *verb, const char *key, const char *value,
                     const char *reason) {
        _cleanup_free_ char *k = escape_path(key), *v = escape_path(value);
        if (l->len >= sizeof l->text)
                return;
        int n = snprintf(l->text + l->len, sizeof l->text - l->len, "%s: %s%s%s=%s: %s\n",
                         l->name, verb, CGROUP_XATTR_PREFIX, k ?: "?", v ?: "?", reason);
        l->len = n < 0 ? l->len : MIN(l->len + (size_t) n, sizeof l->text);
}

static void refused(const char *key, const char *value, const char *reason, void *userdata) {
        add_line(userdata, "ignoring the xattr ", key, value, reason);
}

static void bounded(const char *key, const char *value, const char *reason, void *userdata) {
        add_line(userdata, "the xattr ", key, value, reason);
}

static uint64_t fingerprint(const char *s, size_t len) {
        uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */
        for (size_t i = 0; i < len; i++)
                h = (h ^ (unsigned char) s[i]) * UINT64_C(1099511628211);
        return h;
}

static int cmp_note(const void *a, const void *b) {
        const struct attribute_note *x = a, *y = b;
        return (x->id > y->id) - (x->id < y->id);
}

/* Logs l's lines unless the last walk logged the same for id; remembers them for the next. */
static void say_once(struct attribute_notes *notes, uint64_t id, const struct said_lines *l) {
        const struct attribute_note key = { .id = id, .fingerprint = fingerprint(l->text, l->len) };
        const struct attribute_note *old = notes->n_said ? bsearch(&key, notes->said, notes->n_said,
                                                                   sizeof key, cmp_note)
                                                         : NULL;
        if (!old || old->fingerprint != key.fingerprint)
                for (const char *p = l->text; p < l->text + l->len;) {
                        const char *nl = memchr(p, '\n', (size_t) (l->text + l->len - p));
                        size_t n = nl ? (size_t) (nl - p) : (size_t) (l->text + l->len - p);
                        log_notice("%.*s", (int) n, p);
                        p += n + 1;
                }
        if (notes->n_saying == notes->cap_saying) {
                size_t cap = MAX(notes->cap_saying * 2, (size_t) 16);
                struct attribute_note *n = reallocarray(notes->saying, cap, sizeof *n);
                if (!n)
                        return; /* said again next time: no harm */
                notes->saying = n;
                notes->cap_saying = cap;
        }
        notes->saying[notes->n_saying++] = key;
}

/* Takes what x may set, checked and bounded, into *ret, with the reasons in l. */
static void take(const struct config *c, const struct cgroup_match *m,
                 const struct cgroup_xattrs *x, struct said_lines *l,
                 struct cgroup_annotation *ret) {
        (void) config_annotation_from_xattrs(x, ret, refused, l);
        if (ret->policy_name[0] && !config_find_policy(c, ret->policy_name)) {
                refused("policy", ret->policy_name, "no such [Policy:] section", l);
                ret->policy_name[0] = '\0';
        }
        (void) config_annotation_bound(c, m, ret, bounded, l);
}

void cgroup_attributes_read(struct attribute_notes *notes, const struct config *c,
                            unsigned self_uid, int dirfd, uint64_t id,
                            const struct cgroup_match *m, struct cgroup_annotation *ret) {
        struct cgroup_xattrs x;
        struct stat st;
        char why[160];

        *ret = (struct cgroup_annotation) {};
        policy_init_defaults(&ret->overrides);
        if (c->cgroup_attributes == CGROUP_ATTRIBUTES_NO)
                return; /* not even read: nothing to say either */
        if (fstat(dirfd, &st) < 0 || cgroup_xattrs_read(dirfd, &x) < 0 || x.n == 0)
                return;
        _cleanup_free_ char *name = escape_path(m->path);
        struct said_lines *l = malloc(sizeof *l);
        if (!l)
                return; /* no annotation: the careful side */
        *l = (struct said_lines) { .name = name ?: "?" };
        if (config_attributes_trusted(c->cgroup_attributes, (unsigned) st.st_uid,
                                      (unsigned) st.st_mode, self_uid, why, sizeof why))
                take(c, m, &x, l, ret);
        else
                for (size_t i = 0; i < x.n; i++)
                        refused(x.items[i].name, x.items[i].value, why, l);
        if (l->len > 0)
                say_once(notes, id, l);
        free(l);
}

void attribute_notes_walk_done(struct attribute_notes *notes) {
        free(notes->said);
        if (notes->n_saying > 1)
                qsort(notes->saying, notes->n_saying, sizeof *notes->saying, cmp_note);
        notes->said = notes->saying;
        notes->n_said = notes->n_saying;
        notes->saying = NULL;
        notes->n_saying = notes->cap_saying = 0;
}

void attribute_notes_done(struct attribute_notes *notes) {
        free(notes->said);
        free(notes->saying);
        *notes = (struct attribute_notes) {};
}
