/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-discovery.c: the managed cgroups and how they are found (discovery.h): the walk of
 * the tree, the inotify watches that say when to walk again, and the descriptor budget. */
#include "mglrud/core/discovery.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mglrud/core/control.h"
#include "mglrud/kernel/cgroupfs.h"
#include "mglrud/kernel/container.h"
#include "mglrud/shared/escape.h"
#include "mglrud/shared/fileio.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/time.h"

/* Rescan the tree at least this often, even when nothing told us it changed (inotify is the
 * fast path; this catches what it cannot see, e.g. a watch limit reached). */
#define RESCAN_INTERVAL_USEC (60 * USEC_PER_SEC)
/* IN_ATTRIB: a child directory's xattrs changed (mglrud-oci-hook recording an annotation
 * right after the runtime created the cgroup). IN_MODIFY: a file in it was written, e.g. the
 * memory.min or memory.swap.max the cgroups' reads keep (cgroup_files_read()); the kernel's own
 * memory.events notifications and our memory.reclaim writes come too, and are skipped. */
#define CGROUP_WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | \
                           IN_MODIFY | IN_ONLYDIR | IN_DONT_FOLLOW)

void discovery_init(struct discovery *d) {
        *d = (struct discovery) {
                .rescan_needed = true,
                .keep = { .mask = CGROUP_KEEP_ALL, .first_mask = CGROUP_KEEP_ALL },
                .inotify_fd = -1,
        };
}

void discovery_watch_start(struct discovery *d) {
        /* Cgroups come and go with containers: inotify on every cgroup directory tells us at
         * the next cycle instead of the next periodic rescan. */
        closep_reset(&d->inotify_fd);
        d->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (d->inotify_fd < 0)
                log_notice_errno(errno, "inotify unavailable (%m): new cgroups are found by the "
                                        "periodic rescan only.");
}

static void discovery_drop_cgroup(struct discovery *d, size_t i) {
        control_cgroup_free(d->cgroups[i]);
        cgroup_free(d->cgroups[i]);
        memmove(d->cgroups + i, d->cgroups + i + 1, (d->n_cgroups - i - 1) * sizeof *d->cgroups);
        d->n_cgroups--;
}

void discovery_done(struct discovery *d) {
        while (d->n_cgroups > 0)
                discovery_drop_cgroup(d, d->n_cgroups - 1);
        free(d->cgroups);
        attribute_notes_done(&d->attribute_notes);
        closep_reset(&d->inotify_fd);
        policy_pool_free(d->policies); /* after the cgroups, which point into it */
        *d = (struct discovery) { .inotify_fd = -1 };
}

void discovery_forget_sections(struct discovery *d) {
        for (size_t i = 0; i < d->n_cgroups; i++)
                d->cgroups[i]->section = NULL;
}

/* Returns the cgroup with this id among the first n of d->cgroups (sorted by id), or NULL. */
static struct cgroup *find_sorted(const struct discovery *d, size_t n, uint64_t id) {
        size_t lo = 0, hi = n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (d->cgroups[mid]->id < id)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo < n && d->cgroups[lo]->id == id ? d->cgroups[lo] : NULL;
}

struct cgroup *discovery_find(const struct discovery *d, uint64_t id) {
        /* Called for every finished job: a search, not a scan, with thousands of cgroups. */
        return find_sorted(d, d->n_cgroups, id);
}

struct cgroup *discovery_find_path(const struct discovery *d, const char *path) {
        /* By the name people see (escaped) first, then by the raw path. */
        for (size_t i = 0; i < d->n_cgroups; i++)
                if (strcmp(d->cgroups[i]->name, path) == 0)
                        return d->cgroups[i];
        for (size_t i = 0; i < d->n_cgroups; i++)
                if (strcmp(d->cgroups[i]->path, path) == 0)
                        return d->cgroups[i];
        return NULL;
}

struct walk_entry {
        const char *path;           /* into walk_ctx.paths, once the walk is done */
        size_t path_off;
        uint64_t id;
        const struct policy_section *section;
        struct container_identity container;
        struct cgroup_annotation annotation;
        struct policy policy;
        bool managed;
};

/* The tree as one walk saw it: the entries and their paths in two blocks, not one allocation per
 * cgroup (they would leave holes among the cgroups allocated meanwhile). */
struct walk_ctx {
        struct discovery *d;
        const struct config *config;
        const char *cgroup_root;
        struct walk_entry *e;
        size_t n, cap;
        char *paths;
        size_t paths_len, paths_cap;
};

/* Watches one cgroup directory for children appearing or going (a repeated add is a no-op).
 * Running out of watches is not fatal: the periodic rescan still finds everything. */
static void watch_cgroup_dir(struct discovery *d, const char *cgroup_root,
                             const char *rel_path) {
        char full[PATH_MAX];
        if (d->inotify_fd < 0)
                return;
        snprintf(full, sizeof full, "%s%s", cgroup_root, strcmp(rel_path, "/") == 0 ? "" : rel_path);
        if (inotify_add_watch(d->inotify_fd, full, CGROUP_WATCH_MASK) < 0 && errno == ENOSPC &&
            !d->inotify_full) {
                d->inotify_full = true;
                log_notice("inotify watch limit reached (fs.inotify.max_user_watches): some new "
                           "cgroups are noticed by the periodic rescan only.");
        }
}

/* Returns true when inotify reported a directory created, removed or renamed under a watched
 * cgroup since the last call (or lost events), draining the queue; sets *ret_limits when a
 * kept limit file was written (or events were lost). */
static bool cgroup_tree_changed(struct discovery *d, bool *ret_limits) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        bool changed = false;
        ssize_t n;

        if (d->inotify_fd < 0)
                return false;
        while ((n = read(d->inotify_fd, buf, sizeof buf)) > 0)
                for (char *p = buf; p < buf + n;) {
                        const struct inotify_event *ev = (const struct inotify_event *) p;
                        if (ev->mask & (IN_ISDIR | IN_Q_OVERFLOW))
                                changed = true;
                        if ((ev->mask & IN_Q_OVERFLOW) ||
                            ((ev->mask & IN_MODIFY) && ev->len > 0 &&
                             cgroup_file_is_kept_limit(ev->name)))
                                *ret_limits = true;
                        p += sizeof *ev + ev->len;
                }
        return changed;
}

/* Makes every managed cgroup's next read take memory.min and memory.swap.max again. */
static void forget_limits(struct discovery *d) {
        for (size_t i = 0; i < d->n_cgroups; i++)
                cgroup_files_forget_limits(&d->cgroups[i]->files);
}

bool discovery_rescan_due(struct discovery *d, uint64_t now_usec) {
        bool limits = false;
        if (cgroup_tree_changed(d, &limits))
                d->rescan_needed = true;
        /* Who cannot see the writes reads the limits every cycle, as before they were kept. One
         * write is one cycle of reads for every cgroup: writes are rare (a unit or container
         * starting, an operator). */
        if (limits || d->inotify_fd < 0 || d->inotify_full)
                forget_limits(d);
        return d->rescan_needed || now_usec - d->last_rescan_usec >= RESCAN_INTERVAL_USEC;
}

static int walk_collect(const char *rel_path, uint64_t id, int dirfd, void *userdata) {
        struct walk_ctx *w = userdata;
        if (w->n == w->cap) {
                size_t cap = w->cap ? w->cap * 2 : 64;
                struct walk_entry *n = realloc(w->e, cap * sizeof *n);
                if (!n)
                        return -ENOMEM;
                w->e = n;
                w->cap = cap;
        }
        size_t len = strlen(rel_path) + 1;
        if (w->paths_cap - w->paths_len < len) {
                size_t cap = MAX(MAX(w->paths_cap * 2, w->paths_len + len), (size_t) 4096);
                char *p = realloc(w->paths, cap);
                if (!p)
                        return -ENOMEM;
                w->paths = p;
                w->paths_cap = cap;
        }
        struct walk_entry *e = &w->e[w->n];
        *e = (struct walk_entry) { .id = id, .path_off = w->paths_len };
        memcpy(w->paths + w->paths_len, rel_path, len);
        w->paths_len += len;
        (void) container_identify(rel_path, &e->container);
        struct cgroup_match match = { .path = rel_path, .container = &e->container };
        cgroup_attributes_read(&w->d->attribute_notes, w->config, geteuid(), dirfd, id,
                               &match, &e->annotation);
        match.annotation = &e->annotation;
        e->section = config_policy_for(w->config, &match, &e->policy);
        watch_cgroup_dir(w->d, w->cgroup_root, rel_path);
        e->managed = config_manages(e->section, &e->policy);
        w->n++;
        return 0;
}

static bool path_is_below(const char *path, const char *ancestor) {
        if (strcmp(ancestor, "/") == 0)
                return strcmp(path, "/") != 0;
        size_t l = strlen(ancestor);
        return strncmp(path, ancestor, l) == 0 && path[l] == '/';
}

static int cmp_path_cgroup(const void *key, const void *elem) {
        return strcmp(key, (*(struct cgroup *const *) elem)->path);
}

static int cmp_cgroup_path(const void *a, const void *b) {
        return strcmp((*(struct cgroup *const *) a)->path, (*(struct cgroup *const *) b)->path);
}

/* Adds id to the cgroup whose subtree covers it: the nearest managed ancestor, looked up prefix
 * by prefix (longest first) in by_path, the n managed cgroups sorted by path. */
static int cover_descendant(struct cgroup *const *by_path, size_t n_by_path,
                            const struct walk_entry *e) {
        char prefix[PATH_MAX];
        struct cgroup *best = NULL;
        size_t len = strlen(e->path);

        if (n_by_path == 0 || len >= sizeof prefix || strcmp(e->path, "/") == 0)
                return 0;
        memcpy(prefix, e->path, len + 1);
        while (!best && len > 0) {
                while (len > 0 && prefix[len - 1] != '/')
                        len--;
                if (len == 0)
                        break;
                prefix[len == 1 ? 1 : --len] = '\0'; /* "/a/b/c" -> "/a/b" -> "/a" -> "/" */
                struct cgroup *const *hit = bsearch(prefix, by_path, n_by_path, sizeof *by_path,
                                                    cmp_path_cgroup);
                if (hit && path_is_below(e->path, (*hit)->path))
                        best = *hit;
                if (len == 1)
                        break;
        }
        if (!best)
                return 0;
        uint64_t *n = realloc(best->covered_ids, (best->n_covered + 1) * sizeof *n);
        if (!n)
                return -ENOMEM;
        best->covered_ids = n;
        best->covered_ids[best->n_covered++] = e->id;
        return 0;
}

static int cmp_cgroup_id(const void *a, const void *b) {
        const struct cgroup *x = *(struct cgroup *const *) a, *y = *(struct cgroup *const *) b;
        return x->id < y->id ? -1 : x->id > y->id;
}

/* Fills *ret with which files each of n managed cgroups can keep open under the descriptor
 * limit and MANAGER_KEPT_FILES_MAX (the most that fits), and *ret_max with how many cgroups fit
 * at all (SIZE_MAX: all of them). */
static void keep_plan(size_t n, struct cgroup_keep_plan *ret, size_t *ret_max) {
        struct rlimit rl = { .rlim_cur = RLIM_INFINITY };
        uint64_t budget;

        (void) getrlimit(RLIMIT_NOFILE, &rl);
        /* Under a tiny limit (tests, a misconfigured unit) half of it is the reserve. */
        budget = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX
                 : rl.rlim_cur - MIN((uint64_t) MANAGER_FD_RESERVE, (uint64_t) rl.rlim_cur / 2);
        cgroup_files_keep_plan_for(n, budget, MANAGER_KEPT_FILES_MAX, ret, ret_max);
}

/* Opens or closes the managed cgroups' files to d->keep by their place in d->cgroups: first
 * the closes (the cgroups past n_first), then, when opens is true, the opens, so that the
 * descriptors in use never exceed the plan's. A cgroup found gone is marked vanished. */
static void apply_keep_plan(struct discovery *d, bool opens) {
        /* The plan is for the cgroups a rescan takes: there may be fewer now. */
        size_t first = MIN(d->keep.n_first, d->n_cgroups);
        for (int pass = 0; pass < (opens ? 2 : 1); pass++)
                for (size_t i = pass ? 0 : first; i < (pass ? first : d->n_cgroups); i++)
                        if (cgroup_files_keep(&d->cgroups[i]->files,
                                              cgroup_keep_plan_mask(&d->keep, i)) == -ENOENT)
                                d->cgroups[i]->vanished = true;
}

/* Sets how many files each managed cgroup keeps open for n of them, and says so when the masks
 * change (not when only how many keep the larger one does: cgroups come and go). Returns how
 * many cgroups can be managed. */
static size_t fit_descriptors(struct discovery *d, size_t n) {
        size_t max;
        struct cgroup_keep_plan plan;
        struct rlimit rl = {};

        keep_plan(n, &plan, &max);
        (void) getrlimit(RLIMIT_NOFILE, &rl);
        if (plan.mask != d->keep.mask || plan.first_mask != d->keep.first_mask ||
            (max < n) != d->fd_short) {
                if (plan.mask != CGROUP_KEEP_ALL || max < n)
                        log_notice("Descriptor limit %llu for %zu managed cgroups: keeping %u "
                                   "of their files open each (%u for %zu of them), opening the "
                                   "others for each read%s.", (unsigned long long) rl.rlim_cur,
                                   n, cgroup_files_fd_cost(plan.mask) - 1,
                                   cgroup_files_fd_cost(plan.first_mask) - 1, plan.n_first,
                                   max < n ? "; not all fit, raise LimitNOFILE=" : "");
                if (max < n)
                        log_warning("Managing only %zu of %zu matching cgroups: the descriptor "
                                    "limit (%llu) is too low.", max, n,
                                    (unsigned long long) rl.rlim_cur);
                d->fd_short = max < n;
        }
        /* Before the new cgroups are opened (with plan.mask): the known ones give back what
         * the new plan does not leave them. The opens wait for the sort (places move with the
         * new cgroups): opened here, some would be closed again there. */
        d->keep = plan;
        apply_keep_plan(d, false);
        return max;
}

/* Logs that e is newly managed (as cgroup name, its escaped path): with which section, as which
 * container, with which annotated keys. */
static void log_managing(const struct walk_entry *e, const char *name) {
        char what[160] = "", keys[256] = "", sid[CONTAINER_SHORT_ID_LEN + 1];
        const struct container_identity *ci = &e->container;

        if (ci->kind == CONTAINER_KIND_CONTAINER)
                snprintf(what, sizeof what, ", container %s %s%s%s",
                         container_runtime_to_string(ci->runtime) ?: "(runtime unknown)",
                         container_short_id(ci->id, sid, sizeof sid),
                         ci->pod_uid[0] ? " of pod " : "", ci->pod_uid);
        else if (ci->kind == CONTAINER_KIND_POD)
                snprintf(what, sizeof what, ", pod %s (%s)", ci->pod_uid,
                         qos_class_to_string(ci->qos) ?: "QoS unknown");
        for (unsigned k = 0; k < _POLICY_KEY_MAX; k++)
                if (e->annotation.set_mask & (1u << k)) {
                        char v[48];
                        size_t l = strlen(keys);
                        snprintf(keys + l, sizeof keys - l, "%s%s=%s", l ? " " : ", annotated ",
                                 policy_key_to_string(k),
                                 policy_key_format(v, sizeof v, &e->annotation.overrides, k));
                }
        log_info("Managing %s (id %llu) with [%s]%s%s, mode %s.", name,
                 (unsigned long long) e->id, e->section ? e->section->name : "Defaults", what,
                 keys, policy_mode_to_string(e->policy.mode));
}

/* ---- the rescan, step by step ---- */

/* Step 1: walks the tree under w->cgroup_root into w. Returns 0 or a negative errno (logged). */
static int rescan_walk(struct walk_ctx *w) {
        int r = cgroupfs_walk(w->cgroup_root, walk_collect, w);
        attribute_notes_walk_done(&w->d->attribute_notes);
        if (r < 0)
                return log_error_errno(r, "Cannot walk cgroup tree %s: %m", w->cgroup_root);
        for (size_t i = 0; i < w->n; i++)
                w->e[i].path = w->paths + w->e[i].path_off;
        return 0;
}

/* Step 2, for one matching entry e: the known cgroup with its id (among the first n_sorted) gets
 * e's path, identity and policy (with its runtime overrides, interned in pool); an unknown one
 * is opened and appended. Returns 0 (also when it cannot be opened: logged, skipped), -ENOMEM,
 * or the negative errno of updating a known one. */
static int rescan_take(struct discovery *d, const char *cgroup_root, const struct walk_entry *e,
                       struct policy_pool *pool, size_t n_sorted) {
        /* The known ones are the first n_sorted, still sorted by id; new ones follow. */
        struct cgroup *cg = find_sorted(d, n_sorted, e->id);
        int r;

        /* Its policy first, so that a cgroup never is in the list without one. */
        struct policy p = e->policy;
        if (cg)
                control_cgroup_apply_overrides(cg, &p);
        const struct policy *shared = policy_pool_intern(pool, &p);
        if (!shared)
                return -ENOMEM;
        if (!cg) {
                r = cgroup_new(cgroup_root, e->path, e->id, d->keep.mask, &cg);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        _cleanup_free_ char *name = escape_path(e->path);
                        if (r == -ENOENT || r == -EOPNOTSUPP)
                                log_debug("Skipping %s: %s", name ?: "?",
                                          r == -ENOENT ? "vanished" : "no memory controller");
                        else
                                log_warning_errno(r, "Cannot open cgroup %s: %m", name ?: "?");
                        return 0;
                }
                cg->policy = shared;
                d->cgroups[d->n_cgroups++] = cg;
                log_managing(e, cg->name);
        } else if ((r = cgroup_set_path(cg, e->path)) < 0)
                return r; /* renamed: ids are stable, paths are not */
        if ((r = cgroup_set_identity(cg, &e->container, &e->annotation)) < 0)
                return r;
        cg->section = e->section;
        cg->policy = shared;
        cg->seen = true;
        /* Still in the tree under the same id: a write's ENOENT (e.g. no memory.reclaim) did
         * not mean it was gone. A real removal shows again. */
        cg->vanished = false;
        cg->n_covered = 0;
        return 0;
}

/* Step 2: makes room for every matching entry of w at once (one allocation, not one per new
 * cgroup), fits them to the descriptor limit and takes each (rescan_take()). Returns 0 or a
 * negative errno. */
static int rescan_match(struct discovery *d, const struct walk_ctx *w, struct policy_pool *pool) {
        size_t n_sorted = d->n_cgroups, n_managed = 0;
        int r;

        for (size_t i = 0; i < w->n; i++)
                n_managed += w->e[i].managed;
        struct cgroup **grown = reallocarray(d->cgroups, n_sorted + n_managed + 1, sizeof *grown);
        if (!grown)
                return -ENOMEM;
        d->cgroups = grown;
        for (size_t i = 0; i < d->n_cgroups; i++)
                d->cgroups[i]->seen = false;

        size_t max = fit_descriptors(d, n_managed), n_kept = 0;
        for (size_t i = 0; i < w->n; i++) {
                if (!w->e[i].managed)
                        continue;
                if (n_kept == max)
                        break; /* said once by fit_descriptors() */
                n_kept++;
                if ((r = rescan_take(d, w->cgroup_root, &w->e[i], pool, n_sorted)) < 0)
                        return r;
        }
        return 0;
}

/* Step 3: releases the cgroups the walk did not take (gone, or no longer matching), and sorts
 * the rest by id again. */
static void rescan_release_unseen(struct discovery *d, struct actuator *a) {
        size_t kept = 0;
        for (size_t i = 0; i < d->n_cgroups; i++) {
                struct cgroup *cg = d->cgroups[i];
                if (cg->seen) {
                        d->cgroups[kept++] = cg;
                        continue;
                }
                /* Its queued writes go too, and its running job stops after the write in
                 * flight: no action on a cgroup we know is gone. Said after the stop, so that
                 * a write logged after this line without "stopped while it ran" would be one
                 * the stop missed. */
                actuator_cancel(a, cg->id);
                log_info("No longer managing %s.", cg->name);
                control_cgroup_free(cg);
                cgroup_free(cg);
        }
        d->n_cgroups = kept;
        qsort(d->cgroups, d->n_cgroups, sizeof *d->cgroups, cmp_cgroup_id);
        /* The first n_first by id keep the larger mask: new ones among them open theirs. */
        apply_keep_plan(d, true);
        struct cgroup **shrunk = reallocarray(d->cgroups, MAX(d->n_cgroups, (size_t) 1),
                                              sizeof *shrunk);
        if (shrunk)
                d->cgroups = shrunk;
}

/* Step 4: gives each managed cgroup the ids of the unmanaged cgroups in its subtree (the
 * nearest managed ancestor covers them). Returns 0 or -ENOMEM. */
static int rescan_cover(struct discovery *d, const struct walk_ctx *w) {
        _cleanup_free_ struct cgroup **by_path = NULL;
        int r;

        if (d->n_cgroups > 0 && !(by_path = reallocarray(NULL, d->n_cgroups, sizeof *by_path)))
                return -ENOMEM;
        if (by_path) {
                memcpy(by_path, d->cgroups, d->n_cgroups * sizeof *by_path);
                qsort(by_path, d->n_cgroups, sizeof *by_path, cmp_cgroup_path);
        }
        for (size_t i = 0; i < w->n; i++)
                if (!w->e[i].managed && (r = cover_descendant(by_path, d->n_cgroups, &w->e[i])) < 0)
                        return r;
        return 0;
}

int discovery_rescan(struct discovery *d, const struct config *c, const char *cgroup_root,
                     struct actuator *a, uint64_t now_usec) {
        struct walk_ctx w = { .d = d, .config = c, .cgroup_root = cgroup_root };
        struct policy_pool *pool = NULL;
        int r = rescan_walk(&w);
        if (r < 0)
                goto out;
        /* Every kept cgroup's policy goes into a new pool, and the old one, with the policies
         * no cgroup has any longer, goes once all point into the new one. */
        if ((r = policy_pool_new(&pool)) < 0 || (r = rescan_match(d, &w, pool)) < 0)
                goto out;
        rescan_release_unseen(d, a);
        if ((r = rescan_cover(d, &w)) < 0)
                goto out;

        if (d->n_cgroups == 0 && c->n_sections == 0)
                log_notice("No cgroup sections in the configuration: nothing to manage. Add a "
                           "section such as [/system.slice/*] (see mglrud.conf(5)).");
        d->rescan_needed = false;
        d->last_rescan_usec = now_usec;
        /* What inotify cannot see (a cgroup outside the watches) is read again at the periodic
         * rescan at the latest. */
        forget_limits(d);
        r = 0;
out:
        if (pool && r >= 0)
                policy_pool_free(d->policies);
        else if (pool)
                /* Stopped half-way: some cgroups still point into the old pool. */
                policy_pool_retire(pool, d->policies);
        if (pool)
                d->policies = pool;
        free(w.paths);
        free(w.e);
#ifdef __GLIBC__
        /* Give back the pages the walk's entries (one per cgroup in the tree) and the state of
         * cgroups that went away left free in the middle of the heap: cgroups come and go all
         * day, and without this the RSS keeps the high-water mark of every rescan. It is a walk
         * over the free chunks, once per rescan. */
        malloc_trim(0);
#endif
        return r;
}
