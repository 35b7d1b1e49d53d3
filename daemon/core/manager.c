/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/core/manager.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "manager-probe.h"
#include "manager-headroom.h"
#include "manager-triggers.h"
#include "mglrud/core/control.h"
#include "mglrud/core/policy-pool.h"
#include "mglrud/core/reclaim-stall.h"
#include "mglrud/core/refault-trust.h"
#include "mglrud/core/stream-protection.h"
#include "mglrud/core/cgroup-attributes.h"
#include "mglrud/kernel/cgroupfs.h"
#include "mglrud/shared/escape.h"
#include "mglrud/kernel/container.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglrud/shared/time.h"

/* Rescan the tree at least this often, even when nothing told us it changed (inotify is the
 * fast path; this catches what it cannot see, e.g. a watch limit reached). */
#define RESCAN_INTERVAL_USEC (60 * USEC_PER_SEC)
/* IN_ATTRIB: a child directory's xattrs changed (mglrud-oci-hook recording an annotation
 * right after the runtime created the cgroup). */
#define CGROUP_WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | \
                           IN_ONLYDIR | IN_DONT_FOLLOW)

void manager_init(struct manager *m, const struct manager_overrides *o, const char *config_file,
                  const char *dropin_dir) {
        *m = (struct manager) {
                .overrides = *o,
                .lrugen_read_fd = -1,
                .lrugen_enabled_fd = -1,
                .lrugen_write_fd = -1,
                .host_psi_fd = -1,
                .meminfo_fd = -1,
                .swaps_fd = -1,
                .inotify_fd = -1,
                .rescan_needed = true,
                .keep = CGROUP_KEEP_ALL,
        };
        config_init(&m->config);
        m->config_file = strdup(config_file);
        m->dropin_dir = strdup(dropin_dir);
}

static void manager_drop_cgroup(struct manager *m, size_t i) {
        control_cgroup_free(m->cgroups[i]);
        cgroup_free(m->cgroups[i]);
        memmove(m->cgroups + i, m->cgroups + i + 1, (m->n_cgroups - i - 1) * sizeof *m->cgroups);
        m->n_cgroups--;
}

void manager_done(struct manager *m) {
        /* First stop the writer: its completions refer to cgroups by id. */
        actuator_free(m->actuator);
        m->actuator = NULL;
        manager_triggers_done(m);
        m->streams_io = sd_event_source_disable_unref(m->streams_io);
        m->streams_timer = sd_event_source_disable_unref(m->streams_timer);
        m->headroom_timer = sd_event_source_disable_unref(m->headroom_timer);
        reclaim_stall_free(m->stall_guard); /* after the writer, which reads it */
        m->stall_guard = NULL;
        while (m->n_cgroups > 0)
                manager_drop_cgroup(m, m->n_cgroups - 1);
        free(m->cgroups);
        attribute_notes_done(&m->attribute_notes);
        streams_free(m->streams);
        closep_reset(&m->lrugen_read_fd);
        closep_reset(&m->lrugen_enabled_fd);
        closep_reset(&m->lrugen_write_fd);
        closep_reset(&m->host_psi_fd);
        closep_reset(&m->meminfo_fd);
        closep_reset(&m->swaps_fd);
        closep_reset(&m->inotify_fd);
        read_buf_free(&m->lrugen_buf);
        control_scratch_done(&m->scratch);
        lrugen_done(&m->lrugen);
        policy_pool_free(m->policies); /* after the cgroups, which point into it */
        config_done(&m->config);
        free(m->config_file);
        free(m->dropin_dir);
        free(m->cgroup_root);
        free(m->debugfs_root);
        free(m->proc_root);
        *m = (struct manager) { .lrugen_read_fd = -1, .lrugen_write_fd = -1,
                                .lrugen_enabled_fd = -1, .host_psi_fd = -1,
                                .meminfo_fd = -1, .swaps_fd = -1 };
}

static int set_string(char **dst, const char *src) {
        char *n = strdup(src);
        if (!n)
                return -ENOMEM;
        free(*dst);
        *dst = n;
        return 0;
}

/* Applies config and command line to the effective settings. Returns 0 or -errno. */
static int manager_apply_settings(struct manager *m) {
        const struct manager_overrides *o = &m->overrides;
        const struct config *c = &m->config;
        int r;

        m->dry_run = o->dry_run || c->dry_run;
        m->interval_usec = o->interval_usec ? o->interval_usec : c->interval_usec;
        log_set_max_level(c->log_level);

        if ((r = set_string(&m->debugfs_root, o->debugfs_root ? o->debugfs_root
                                                               : c->debugfs_root)) < 0 ||
            (r = set_string(&m->proc_root, o->proc_root ? o->proc_root : c->proc_root)) < 0)
                return r;

        const char *root = o->cgroup_root ? o->cgroup_root
                           : (c->cgroup_root && *c->cgroup_root) ? c->cgroup_root : NULL;
        if (root)
                return set_string(&m->cgroup_root, root);

        _cleanup_free_ char *found = NULL;
        r = cgroupfs_find_memory_root(&found);
        if (r < 0)
                return log_error_errno(r, "No cgroup v2 hierarchy with the memory controller is "
                                          "mounted; set CgroupRoot= or --cgroup-root.");
        free(m->cgroup_root);
        m->cgroup_root = TAKE_PTR(found);
        return 0;
}

static void manager_streams_fast(struct manager *m);


/* The fast path runs at most every STREAMS_FAST_GAP_USEC: right away when crossings come after
 * a quiet spell, else when the gap is over (the reader keeps inserting meanwhile, and one run
 * takes all its crossings). */
static int on_streams_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct manager *m = userdata;
        uint64_t now = now_monotonic_usec();

        if (now - m->streams_fast_usec >= STREAMS_FAST_GAP_USEC) {
                manager_streams_fast(m);
                return 0;
        }
        /* Level-triggered: off until the timer, or the loop would spin on the waiting ring. */
        (void) sd_event_source_set_enabled(m->streams_io, SD_EVENT_OFF);
        (void) sd_event_source_set_time(m->streams_timer, m->streams_fast_usec + STREAMS_FAST_GAP_USEC);
        (void) sd_event_source_set_enabled(m->streams_timer, SD_EVENT_ONESHOT);
        return 0;
}

static int on_streams_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        manager_streams_fast(userdata);
        return 0;
}

/* Runs the fast path now, then waits for crossings, or for the gap when it has work left. */
static void manager_streams_fast(struct manager *m) {
        struct host_limits limits;
        struct cycle_input in;
        uint64_t now = now_monotonic_usec();

        manager_cycle_input(m, now, &limits, &in);
        m->streams_fast_usec = now;
        int r = streams_fast(m->streams, &in, m->cgroups, m->n_cgroups, m->actuator);
        if (r < 0) {
                log_error_errno(r, "Stream protection's fast path failed fatally: %m");
                (void) sd_event_exit(m->event, r);
                return;
        }
        if (r > 0) {
                (void) sd_event_source_set_enabled(m->streams_io, SD_EVENT_OFF);
                (void) sd_event_source_set_time(m->streams_timer, now + STREAMS_FAST_GAP_USEC);
                (void) sd_event_source_set_enabled(m->streams_timer, SD_EVENT_ONESHOT);
        } else {
                (void) sd_event_source_set_enabled(m->streams_timer, SD_EVENT_OFF);
                (void) sd_event_source_set_enabled(m->streams_io, SD_EVENT_ON);
        }
}

/* Watches the stream crossings on the event loop while the fast path is on (and stops watching
 * when it is not). Failing to watch leaves the cycle to act, and is said. */
static void manager_watch_streams(struct manager *m) {
        int fd = m->event ? streams_event_fd(m->streams) : -1;
        int r;

        if (m->streams_io && fd >= 0 && sd_event_source_get_io_fd(m->streams_io) == fd)
                return;
        m->streams_io = sd_event_source_disable_unref(m->streams_io);
        m->streams_timer = sd_event_source_disable_unref(m->streams_timer);
        if (fd < 0)
                return;
        r = sd_event_add_io(m->event, &m->streams_io, fd, EPOLLIN, on_streams_io, m);
        if (r >= 0)
                r = sd_event_add_time(m->event, &m->streams_timer, CLOCK_MONOTONIC, 0,
                                      STREAMS_FAST_GAP_USEC / 10, on_streams_timer, m);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->streams_timer, SD_EVENT_OFF);
        if (r < 0) {
                log_warning_errno(r, "Stream protection: cannot watch the crossings, streams are "
                                     "dropped at each cycle only: %m");
                m->streams_io = sd_event_source_disable_unref(m->streams_io);
                m->streams_timer = sd_event_source_disable_unref(m->streams_timer);
        }
}

/* Loads the stream-protection BPF program once, if some section wants it, RefaultCheck= or
 * RefaultGuard= (the own refault count comes from the same program). Without it the daemon
 * works as before, and says why once. Once the refault guard reads its map from the writer
 * thread, it stays loaded until exit. */
static void manager_open_streams(struct manager *m) {
        const uint32_t key = 1u << POLICY_KEY_STREAM_PROTECTION;
        bool protect = m->config.defaults.stream_protection != STREAM_PROTECTION_NO;
        /* A section that does not set the key has [Defaults]' value, not its own built-in one. */
        for (size_t i = 0; i < m->config.n_sections; i++) {
                const struct policy_section *sec = &m->config.sections[i];
                protect = protect || ((sec->set_mask & key) && sec->policy.stream_protection !=
                                                                       STREAM_PROTECTION_NO);
        }
        bool wanted = protect || m->config.refault_check || m->refault_guard ||
                      (m->config.refault_guard && m->event); /* --once: no writer thread */
        if (!wanted) {
                /* Switched off by a reload: detach the program, no map walks. */
                if (m->streams)
                        log_info("Stream protection: off everywhere, detaching the BPF program.");
                streams_set_fast_path(m->streams, false);
                manager_watch_streams(m); /* before the ring buffer goes */
                streams_free(m->streams);
                m->streams = NULL;
                m->streams_tried = false;
                m->caps.kernel.stream_drops = false;
                return;
        }
        if (!m->streams_tried) {
                m->streams_tried = true;
                int r = streams_open(m->proc_root, &m->streams);
                if (r == -EOPNOTSUPP)
                        log_notice("Stream protection unavailable: built without BPF.");
                else if (r < 0)
                        log_notice_errno(r, "Stream protection unavailable: cannot load the BPF "
                                            "program: %m");
                else if (!protect)
                        /* Loaded for the own refault count only: nothing is dropped. */
                        log_info("Own refault count: tracking page-cache insertions with BPF "
                                 "(StreamProtection=no everywhere: no stream is dropped).");
                else
                        log_info("Stream protection: tracking page-cache insertions with BPF%s.",
                                 m->config.stream_fast_path && m->event
                                         ? ", dropping streams as they cross" : "");
                if (r < 0 && m->config.refault_check)
                        log_notice("RefaultCheck: without BPF, no own refault count: the kernel's "
                                   "counts are checked against workingset_nodereclaim only.");
        }
        /* Without an event loop (--once) nothing would take the crossings. */
        streams_set_fast_path(m->streams, m->config.stream_fast_path && m->event);
        m->caps.kernel.stream_drops = m->streams != NULL;
        manager_watch_streams(m);
        manager_open_refault_guard(m);
}

/* The own refault count of a cgroup (cycle_input.own_refaults), from stream protection's BPF
 * program. */
static int manager_own_refaults(void *userdata, uint64_t cgroup_id, uint64_t *ret_pages) {
        return refault_count_read(streams_refaults_map_fd(userdata), cgroup_id, ret_pages);
}

/* Returns the cgroup with this id among the first n of m->cgroups (sorted by id), or NULL. */
static struct cgroup *find_sorted(const struct manager *m, size_t n, uint64_t id) {
        size_t lo = 0, hi = n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (m->cgroups[mid]->id < id)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo < n && m->cgroups[lo]->id == id ? m->cgroups[lo] : NULL;
}

/* Returns the managed cgroup with this cgroup id, or NULL. */
static struct cgroup *manager_find(const struct manager *m, uint64_t id) {
        /* Called for every finished job: a search, not a scan, with thousands of cgroups. */
        return find_sorted(m, m->n_cgroups, id);
}

/* The actuation path's completions: the job's cgroup (by id: it may be gone) measures it. */
static void manager_job_done(struct actuator_job *j, void *userdata) {
        struct manager *m = userdata;
        const struct actuator_result *r = actuator_job_result_const(j);
        struct cgroup *cg = manager_find(m, actuator_job_cgroup_id(j));
        streams_job_done(m->streams, j);
        if (cg && r->stall_stopped)
                manager_stall_guard_stop(m, cg, j, now_monotonic_usec());
        else if (cg && r->refault_stopped)
                manager_refault_guard_stop(m, cg, j, now_monotonic_usec());
        control_job_done(cg, j, &m->report);
}

int manager_start(struct manager *m, sd_event *e) {
        m->event = e;
        int r = config_load(m->config_file, m->dropin_dir, &m->config, NULL);
        if (r < 0)
                return r;
        r = manager_apply_settings(m);
        if (r < 0)
                return r;
        r = manager_open_host(m);
        if (r < 0)
                return r;
        manager_open_lrugen(m);
        manager_probe(m);
        r = actuator_new(e, manager_job_done, m, &m->actuator);
        if (r < 0)
                return log_error_errno(r, "Cannot start the writer thread: %m");
        /* Cgroups come and go with containers: inotify on every cgroup directory tells us at
         * the next cycle instead of the next periodic rescan. */
        m->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (m->inotify_fd < 0)
                log_notice_errno(errno, "inotify unavailable (%m): new cgroups are found by the "
                                        "periodic rescan only.");
        char ivl[32];
        format_duration(ivl, sizeof ivl, m->interval_usec);
        log_info("mglrud %s: cgroup root %s, %s, lru_gen %s%s, swap %s, interval %s.",
                 MGLRUD_VERSION, m->cgroup_root, m->dry_run ? "dry-run (advise only)" : "active",
                 m->caps.lrugen_read ? (m->caps.lrugen_full ? "full" : "read") : "absent",
                 m->caps.kernel.lrugen_write ? "+write" : "",
                 !m->caps.kernel.has_swap ? "off" : m->caps.kernel.swap_compressed ? "on (zram)" : "on",
                 ivl);
        manager_open_streams(m);
        manager_open_stall_guard(m);
        manager_watch_headroom(m);
        m->rescan_needed = true;
        return 0;
}

static int manager_rescan(struct manager *m, uint64_t now_usec);

int manager_reload(struct manager *m, char **ret_error) {
        struct config c;
        config_init(&c);
        int r = config_load(m->config_file, m->dropin_dir, &c, ret_error);
        if (r < 0) {
                config_done(&c);
                return log_error_errno(r, "Reload failed, keeping the previous configuration.");
        }
        config_move(&m->config, &c);
        /* The cgroups' sections pointed into the old configuration: none until the rescan
         * below (or the next cycle's, if it fails) finds the new ones. */
        for (size_t i = 0; i < m->n_cgroups; i++)
                m->cgroups[i]->section = NULL;
        bool was_dry_run = m->dry_run;
        r = manager_apply_settings(m);
        /* DryRun= turned on: the writes decided before it must not happen either. */
        if (m->dry_run)
                actuator_report_only(m->actuator);
        if (r < 0)
                return r;
        manager_open_lrugen(m);
        /* In dry-run the capabilities were inferred, not probed: probe them now that we
         * write (and infer again, without writing, when dry-run starts). */
        if (was_dry_run != m->dry_run)
                manager_probe(m);
        manager_open_streams(m);
        manager_open_stall_guard(m);
        m->rescan_needed = true;
        /* Rescan now, so that bus calls before the next cycle see the new policies (and the
         * runtime overrides re-applied over them). */
        r = manager_rescan(m, now_monotonic_usec());
        if (r == -ENOMEM)
                return r;
        log_info("Configuration reloaded.");
        return 0;
}

/* ---- discovery ---- */

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
        struct manager *m;
        struct walk_entry *e;
        size_t n, cap;
        char *paths;
        size_t paths_len, paths_cap;
};

/* Watches one cgroup directory for children appearing or going (a repeated add is a no-op).
 * Running out of watches is not fatal: the periodic rescan still finds everything. */
static void watch_cgroup_dir(struct manager *m, const char *rel_path) {
        char full[PATH_MAX];
        if (m->inotify_fd < 0)
                return;
        snprintf(full, sizeof full, "%s%s", m->cgroup_root, strcmp(rel_path, "/") == 0 ? "" : rel_path);
        if (inotify_add_watch(m->inotify_fd, full, CGROUP_WATCH_MASK) < 0 && errno == ENOSPC &&
            !m->inotify_full) {
                m->inotify_full = true;
                log_notice("inotify watch limit reached (fs.inotify.max_user_watches): some new "
                           "cgroups are noticed by the periodic rescan only.");
        }
}

/* Returns true when inotify reported a directory created, removed or renamed under a watched
 * cgroup since the last call (or lost events), draining the queue. */
static bool cgroup_tree_changed(struct manager *m) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        bool changed = false;
        ssize_t n;

        if (m->inotify_fd < 0)
                return false;
        while ((n = read(m->inotify_fd, buf, sizeof buf)) > 0)
                for (char *p = buf; p < buf + n;) {
                        const struct inotify_event *ev = (const struct inotify_event *) p;
                        if (ev->mask & (IN_ISDIR | IN_Q_OVERFLOW))
                                changed = true;
                        p += sizeof *ev + ev->len;
                }
        return changed;
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
        cgroup_attributes_read(&w->m->attribute_notes, &w->m->config, geteuid(), dirfd, id,
                               &match, &e->annotation);
        match.annotation = &e->annotation;
        e->section = config_policy_for(&w->m->config, &match, &e->policy);
        watch_cgroup_dir(w->m, rel_path);
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

struct cgroup *manager_find_path(const struct manager *m, const char *path) {
        /* By the name people see (escaped) first, then by the raw path. */
        for (size_t i = 0; i < m->n_cgroups; i++)
                if (strcmp(m->cgroups[i]->name, path) == 0)
                        return m->cgroups[i];
        for (size_t i = 0; i < m->n_cgroups; i++)
                if (strcmp(m->cgroups[i]->path, path) == 0)
                        return m->cgroups[i];
        return NULL;
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

/* Returns which files each of n managed cgroups can keep open under the descriptor limit and
 * MANAGER_KEPT_FILES_MAX (the most that fits), and in *ret_max how many cgroups fit at all
 * (SIZE_MAX: all of them). */
static unsigned manager_keep_mask(size_t n, size_t *ret_max) {
        struct rlimit rl = { .rlim_cur = RLIM_INFINITY };
        uint64_t budget;

        (void) getrlimit(RLIMIT_NOFILE, &rl);
        /* Under a tiny limit (tests, a misconfigured unit) half of it is the reserve. */
        budget = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX
                 : rl.rlim_cur - MIN((uint64_t) MANAGER_FD_RESERVE, (uint64_t) rl.rlim_cur / 2);
        return cgroup_files_keep_mask_for(n, budget, MANAGER_KEPT_FILES_MAX, ret_max);
}

/* Sets how many files each managed cgroup keeps open for n of them, and says so when that
 * changes. Returns how many cgroups can be managed. */
static size_t manager_fit_descriptors(struct manager *m, size_t n) {
        size_t max;
        unsigned keep = manager_keep_mask(n, &max);
        struct rlimit rl = {};

        (void) getrlimit(RLIMIT_NOFILE, &rl);
        if (keep != m->keep || (max < n) != m->fd_short) {
                if (keep != CGROUP_KEEP_ALL || max < n)
                        log_notice("Descriptor limit %llu for %zu managed cgroups: keeping %u "
                                   "of their files open each, opening the others for each "
                                   "read%s.", (unsigned long long) rl.rlim_cur, n,
                                   cgroup_files_fd_cost(keep) - 1,
                                   max < n ? "; not all fit, raise LimitNOFILE=" : "");
                if (max < n)
                        log_warning("Managing only %zu of %zu matching cgroups: the descriptor "
                                    "limit (%llu) is too low.", max, n,
                                    (unsigned long long) rl.rlim_cur);
                m->keep = keep;
                m->fd_short = max < n;
                for (size_t i = 0; i < m->n_cgroups; i++)
                        if (cgroup_files_keep(&m->cgroups[i]->files, keep) == -ENOENT)
                                m->cgroups[i]->vanished = true;
        }
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

/* Walks the tree: new matching cgroups are opened, gone or no longer matching ones dropped,
 * kept ones get the current policy. Controller state survives across rescans by cgroup id. */
static int manager_rescan(struct manager *m, uint64_t now_usec) {
        struct walk_ctx w = { .m = m };
        _cleanup_free_ struct cgroup **by_path = NULL;
        struct policy_pool *pool = NULL;
        int r = cgroupfs_walk(m->cgroup_root, walk_collect, &w);
        attribute_notes_walk_done(&m->attribute_notes);
        if (r < 0) {
                log_error_errno(r, "Cannot walk cgroup tree %s: %m", m->cgroup_root);
                goto out;
        }
        for (size_t i = 0; i < w.n; i++)
                w.e[i].path = w.paths + w.e[i].path_off;

        /* Room for every managed entry at once (one allocation, not one per new cgroup). */
        size_t n_sorted = m->n_cgroups, n_managed = 0;
        for (size_t i = 0; i < w.n; i++)
                n_managed += w.e[i].managed;
        struct cgroup **grown = reallocarray(m->cgroups, n_sorted + n_managed + 1, sizeof *grown);
        if (!grown) {
                r = -ENOMEM;
                goto out;
        }
        m->cgroups = grown;
        for (size_t i = 0; i < m->n_cgroups; i++)
                m->cgroups[i]->seen = false;

        size_t max = manager_fit_descriptors(m, n_managed), n_kept = 0;
        /* Every kept cgroup's policy goes into a new pool, and the old one, with the policies
         * no cgroup has any longer, goes once all point into the new one. */
        if ((r = policy_pool_new(&pool)) < 0)
                goto out;

        for (size_t i = 0; i < w.n; i++) {
                struct walk_entry *e = &w.e[i];
                if (!e->managed)
                        continue;
                if (n_kept == max)
                        break; /* said once by manager_fit_descriptors() */
                n_kept++;
                /* The known ones are the first n_sorted, still sorted by id; new ones follow. */
                struct cgroup *cg = find_sorted(m, n_sorted, e->id);
                /* Its policy first, so that a cgroup never is in the list without one. */
                struct policy p = e->policy;
                if (cg)
                        control_cgroup_apply_overrides(cg, &p);
                const struct policy *shared = policy_pool_intern(pool, &p);
                if (!shared) {
                        r = -ENOMEM;
                        goto out;
                }
                if (!cg) {
                        r = cgroup_new(m->cgroup_root, e->path, e->id, m->keep, &cg);
                        if (r == -ENOMEM)
                                goto out;
                        if (r < 0) {
                                _cleanup_free_ char *name = escape_path(e->path);
                                if (r == -ENOENT || r == -EOPNOTSUPP)
                                        log_debug("Skipping %s: %s", name ?: "?",
                                                  r == -ENOENT ? "vanished" : "no memory controller");
                                else
                                        log_warning_errno(r, "Cannot open cgroup %s: %m", name ?: "?");
                                continue;
                        }
                        cg->policy = shared;
                        m->cgroups[m->n_cgroups++] = cg;
                        log_managing(e, cg->name);
                } else if ((r = cgroup_set_path(cg, e->path)) < 0)
                        goto out; /* renamed: ids are stable, paths are not */
                if ((r = cgroup_set_identity(cg, &e->container, &e->annotation)) < 0)
                        goto out;
                cg->section = e->section;
                cg->policy = shared;
                cg->seen = true;
                /* Still in the tree under the same id: a write's ENOENT (e.g. no
                 * memory.reclaim) did not mean it was gone. A real removal shows again. */
                cg->vanished = false;
                cg->n_covered = 0;
        }

        size_t kept = 0;
        for (size_t i = 0; i < m->n_cgroups; i++) {
                struct cgroup *cg = m->cgroups[i];
                if (cg->seen) {
                        m->cgroups[kept++] = cg;
                        continue;
                }
                /* Its queued writes go too, and its running job stops after the write in
                 * flight: no action on a cgroup we know is gone. Said after the stop, so that
                 * a write logged after this line without "stopped while it ran" would be one
                 * the stop missed. */
                actuator_cancel(m->actuator, cg->id);
                log_info("No longer managing %s.", cg->name);
                control_cgroup_free(cg);
                cgroup_free(cg);
        }
        m->n_cgroups = kept;
        qsort(m->cgroups, m->n_cgroups, sizeof *m->cgroups, cmp_cgroup_id);
        grown = reallocarray(m->cgroups, MAX(m->n_cgroups, (size_t) 1), sizeof *grown);
        if (grown)
                m->cgroups = grown;

        if (m->n_cgroups > 0 && !(by_path = reallocarray(NULL, m->n_cgroups, sizeof *by_path))) {
                r = -ENOMEM;
                goto out;
        }
        if (by_path) {
                memcpy(by_path, m->cgroups, m->n_cgroups * sizeof *by_path);
                qsort(by_path, m->n_cgroups, sizeof *by_path, cmp_cgroup_path);
        }
        for (size_t i = 0; i < w.n; i++)
                if (!w.e[i].managed && (r = cover_descendant(by_path, m->n_cgroups, &w.e[i])) < 0)
                        goto out;

        if (m->n_cgroups == 0 && m->config.n_sections == 0)
                log_notice("No cgroup sections in the configuration: nothing to manage. Add a "
                           "section such as [/system.slice/*] (see mglrud.conf(5)).");
        m->rescan_needed = false;
        m->last_rescan_usec = now_usec;
        r = 0;
out:
        if (pool && r >= 0)
                policy_pool_free(m->policies);
        else if (pool)
                /* Stopped half-way: some cgroups still point into the old pool. */
                policy_pool_retire(pool, m->policies);
        if (pool)
                m->policies = pool;
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

/* ---- sampling ---- */

/* Fills *ret with this cycle's input for the pieces below the manager (limits is its storage). */
void manager_cycle_input(struct manager *m, uint64_t now_usec, struct host_limits *limits,
                         struct cycle_input *ret) {
        *limits = (struct host_limits) { .full_limit = m->config.host_full_limit,
                                         .min_available = m->config.host_min_available };
        *ret = (struct cycle_input) {
                .now_usec = now_usec,
                .host_prev = m->has_host_prev ? &m->host_prev : NULL,
                .host_cur = &m->host_cur,
                .host_limits = limits,
                .lrugen = m->lrugen_valid ? &m->lrugen : NULL,
                .caps = &m->caps.kernel,
                .lrugen_readable = m->caps.lrugen_read,
                .lrugen_write_fd = m->lrugen_write_fd,
                .dry_run = m->dry_run,
                .paused_all = m->paused_all,
                .report = &m->report,
                .scratch = &m->scratch,
                .refault_check = m->config.refault_check,
                .own_refaults = m->streams ? manager_own_refaults : NULL,
                .own_refaults_userdata = m->streams,
                .interval_usec = m->interval_usec,
                .stall_guard = m->stall_guard && m->config.stall_guard,
                .idle_profile = m->idle_profile,
                .refault_guard = m->refault_guard && m->config.refault_guard,
        };
}

/* Says once that a host file cannot be read or parsed (with its line), and once that it can
 * again: a broken file must be heard of, but not every cycle. */
static void note_host_file(struct manager *m, struct file_trouble *t, const char *rel, int r,
                           unsigned line, const char *consequence) {
        if (r >= 0) {
                if (t->active)
                        log_notice("%s/%s reads again.", m->proc_root, rel);
                t->active = false;
                return;
        }
        if (t->active && t->error == r && t->line == line)
                return;
        *t = (struct file_trouble) { .active = true, .error = r, .line = line };
        if (line > 0)
                log_warning_errno(r, "%s/%s, line %u: %m; %s", m->proc_root, rel, line, consequence);
        else
                log_warning_errno(r, "%s/%s: %m; %s", m->proc_root, rel, consequence);
}

static void manager_read_host(struct manager *m, uint64_t now_usec) {
        struct host_sample h = { .now_usec = now_usec };
        unsigned line = 0;
        int r;

        if (m->host_psi_fd >= 0) {
                r = psi_read(m->host_psi_fd, &h.psi, &line);
                h.has_psi = r >= 0;
                note_host_file(m, &m->host_psi_trouble, "pressure/memory", r, line,
                               "the host pressure guard only watches MemAvailable meanwhile.");
        }
        if (m->meminfo_fd >= 0) {
                line = 0;
                r = meminfo_read(m->meminfo_fd, &h.meminfo, &line);
                if (r >= 0)
                        m->caps.kernel.has_swap = h.meminfo.swap_total > 0;
                note_host_file(m, &m->meminfo_trouble, "meminfo", r, line,
                               "MemAvailable reads as 0 meanwhile, which pauses reclaim.");
        }
        m->host_prev = m->host_cur;
        m->has_host_prev = m->cycles > 0;
        m->host_cur = h;
}

/* Updates the host's idle-age profile from this cycle's histogram (every memcg), or its LRU
 * lists from /proc/meminfo. */
static void manager_host_idle(struct manager *m, uint64_t now_usec) {
        struct host_idle *h = &m->host_idle;
        const struct meminfo *mi = &m->host_cur.meminfo;

        h->read_usec = now_usec;
        h->has_lists = mi->has_lru;
        h->active[LRUGEN_ANON] = mi->active_anon;
        h->active[LRUGEN_FILE] = mi->active_file;
        h->inactive[LRUGEN_ANON] = mi->inactive_anon;
        h->inactive[LRUGEN_FILE] = mi->inactive_file;
        h->has_profile = m->lrugen_valid &&
                         idle_profile_compute(m->lrugen.lruvecs, m->lrugen.n_lruvecs, NULL,
                                              now_usec, m->caps.kernel.page_size,
                                              idle_ladder_default_usec, IDLE_LADDER_DEFAULT_N,
                                              &h->profile) >= 0;
}

int manager_cycle(struct manager *m, uint64_t now_usec) {
        int r;

        if (cgroup_tree_changed(m))
                m->rescan_needed = true;
        if (m->rescan_needed || now_usec - m->last_rescan_usec >= RESCAN_INTERVAL_USEC) {
                r = manager_rescan(m, now_usec);
                if (r == -ENOMEM)
                        return r;
                /* swapon/swapoff are rare: checked with the tree, not every cycle. */
                manager_read_swaps(m);
        }

        manager_read_host(m, now_usec);
        manager_read_lrugen(m);
        manager_host_idle(m, now_usec);

        struct host_limits limits;
        struct cycle_input in;
        manager_cycle_input(m, now_usec, &limits, &in);
        for (size_t i = 0; i < m->n_cgroups; i++) {
                struct cgroup *cg = m->cgroups[i];
                r = control_cgroup_cycle(cg, &in, m->actuator);
                if (r == -ENOMEM)
                        return r;
                if (cg->vanished) {
                        log_debug("Cgroup %s vanished.", cg->name);
                        m->rescan_needed = true;
                }
        }
        r = streams_cycle(m->streams, &in, m->cgroups, m->n_cgroups, m->actuator);
        if (r == -ENOMEM)
                return r;
        manager_update_triggers(m, now_usec);
        m->cycles++;
        uint64_t end = now_monotonic_usec();
        m->last_cycle_usec = end > now_usec ? end - now_usec : 0;
        return 0;
}

const char *manager_status(const struct manager *m, char *buf, size_t size) {
        uint64_t reclaimed = 0;
        for (size_t i = 0; i < m->n_cgroups; i++)
                reclaimed += control_cgroup_reclaimed_bytes(m->cgroups[i]);
        char b[32], t[32];
        /* The cycle's duration too: with thousands of cgroups it is what an operator checks
         * first (tests/bench/cycle-meter reads it from here). */
        snprintf(buf, size, "%s %zu cgroup%s, %s reclaimed, cycle %llu took %s",
                 m->dry_run ? "Advising on" : "Managing", m->n_cgroups,
                 m->n_cgroups == 1 ? "" : "s", format_bytes(b, sizeof b, reclaimed),
                 (unsigned long long) m->cycles, format_duration(t, sizeof t, m->last_cycle_usec));
        return buf;
}

int manager_set_override(struct manager *m, struct cgroup *cg, enum policy_key k,
                         const char *value, const char **ret_reason) {
        struct policy base;
        const struct cgroup_match match = { .path = cg->path, .container = cg->container,
                                            .annotation = cg->annotation };
        (void) config_policy_for(&m->config, &match, &base);
        /* (A cgroup exists only after a rescan that made m->policies.) */
        return control_cgroup_set_override(cg, m->policies, &base, k, value, ret_reason);
}

int manager_advise(struct manager *m, struct cgroup *cg, uint64_t now_usec, char *buf,
                   size_t size) {
        struct host_limits limits;
        struct cycle_input in;
        manager_cycle_input(m, now_usec, &limits, &in);
        return control_cgroup_advise(cg, &in, buf, size);
}

void manager_want_idle_profile(struct manager *m) {
        if (m->idle_profile)
                return;
        m->idle_profile = true;
        m->idle_profile_cycle = m->cycles;
        log_info("Idle-age profiles asked for: every managed cgroup keeps one from the next "
                 "cycle on.");
}

bool manager_idle_profile_ready(const struct manager *m) {
        return m->idle_profile && m->cycles > m->idle_profile_cycle;
}

void manager_cgroup_snapshot(const struct manager *m, const struct cgroup *cg,
                             struct control_snapshot *ret) {
        (void) control_cgroup_snapshot(cg, ret);
        ret->has_reclaim_stall = m->stall_guard &&
                reclaim_stall_read(m->stall_guard, cg->id, &ret->reclaim_stall_ns,
                                   &ret->reclaim_stall_count) >= 0;
}

void manager_daemon_stats(const struct manager *m, struct daemon_stats *ret) {
        *ret = (struct daemon_stats) {
                .cycles = m->cycles,
                .n_cgroups = m->n_cgroups,
                .cycle_usec = m->last_cycle_usec,
                .interval_usec = m->interval_usec,
                .dry_run = m->dry_run,
                .paused_all = m->paused_all,
                .stall_guard = m->stall_guard != NULL,
                .refault_guard = m->refault_guard && m->config.refault_guard,
                .actuation = m->actuator ? actuator_get_stats(m->actuator)
                                         : (struct actuator_stats) {},
                .write_age_usec = m->actuator ? actuator_write_age_usec(m->actuator,
                                                                        now_monotonic_usec())
                                              : 0,
                .streams = streams_get_stats(m->streams),
                .host_idle = &m->host_idle,
        };
#define STATS_COPY_COUNT(field) ret->field = m->counters.field;
#define STATS_COPY_STATE(field)
#define STATS_COPY_(field, type, source, ...) STATS_COPY_##source(field)
        DAEMON_COUNTERS(STATS_COPY_)
}

int manager_snapshots(const struct manager *m, struct daemon_stats *ret_stats,
                      struct control_snapshot **ret_snaps, size_t *ret_n) {
        struct control_snapshot *s = calloc(MAX(m->n_cgroups, (size_t) 1), sizeof *s);
        if (!s)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_cgroups; i++)
                manager_cgroup_snapshot(m, m->cgroups[i], &s[i]);
        manager_daemon_stats(m, ret_stats);
        *ret_snaps = s;
        *ret_n = m->n_cgroups;
        return 0;
}
