/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mglrud-oci-hook: an OCI runtime hook (createRuntime stage) that records a container's mglrud
 * annotations on its cgroup. It reads the OCI state from stdin (json-c), takes
 * io.mglrud.policy=NAME (a [Policy:NAME] section of mglrud.conf) and io.mglrud.KEY=VALUE (any
 * policy key), checks each with the configuration's own parser, finds the container's cgroup
 * (/proc/PID/cgroup of the container's process, else the bundle's linux.cgroupsPath) and
 * replaces its user.mglrud.* xattrs with what it accepted; mglrud reads them at discovery.
 *
 * It must never stop or slow a container start: it exits 0 whatever happens, logs what it
 * refused (to the journal when there is one, else stderr), and a timer ends it after
 * --timeout (100 ms by default) even if stdin or a file read blocks.
 *
 * Everything it is handed is the container's (its owner writes the annotations, the bundle and
 * the process's cgroup): the cgroup is opened beneath --cgroup-root only and must be a cgroup2
 * directory, stdin and config.json are read up to a cap, and the log takes a few lines per run
 * whatever the state holds (a summary of the refusals), every id, key, value and path escaped.
 * Links the shared, kernel and config layers only (docs/design.md, "Containers"). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "mglrud/config/config.h"
#include "mglrud/kernel/cgroup-beneath.h"
#include "mglrud/kernel/cgroup-xattr.h"
#include "mglrud/kernel/container.h"
#include "mglrud/shared/escape.h"
#include "mglrud/shared/fileio.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

#define ANNOTATION_PREFIX "io.mglrud."
/* What is read of each input (mglrud-oci-hook(8), "LIMITS"). The state carries the
 * annotations, which Kubernetes caps at 256 KiB in all per pod; a bundle's config.json carries
 * them again with the mounts, environment and seccomp profile (tens of KiB usually);
 * /proc/PID/cgroup is one line per hierarchy. More is refused, not parsed. */
#define STATE_MAX_BYTES (1024 * 1024)
#define CONFIG_JSON_MAX_BYTES (4 * 1024 * 1024)
#define PROC_CGROUP_MAX_BYTES (64 * 1024)
/* What the log shows of what it was handed (before escaping; longer is cut, with "..."). */
#define LOG_ID_MAX 128
#define LOG_KEY_MAX 64
#define LOG_VALUE_MAX 64
#define REFUSALS_SHOWN 3 /* refused annotations named in the summary line */
#define DEFAULT_TIMEOUT_USEC (100 * UINT64_C(1000))

static const char *arg_config = MGLRUD_CONFIG_FILE;
static const char *arg_config_dir = NULL;
static const char *arg_cgroup_root = "/sys/fs/cgroup";
static bool arg_cgroup_root_given;
static bool arg_no_cgroup2_check; /* tests on a directory tree: only with --cgroup-root */
static const char *arg_proc_root = "/proc";
static uint64_t arg_timeout_usec = DEFAULT_TIMEOUT_USEC;
static uint64_t start_usec;

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

static volatile sig_atomic_t recorded;

/* The deadline: a container start must not wait for us. Only async-signal-safe calls here. */
static void on_deadline(int sig) {
        static const char none[] = "mglrud-oci-hook: deadline reached, nothing recorded\n",
                          done[] = "mglrud-oci-hook: deadline reached after recording\n";
        ssize_t r = recorded ? write(STDERR_FILENO, done, sizeof done - 1)
                             : write(STDERR_FILENO, none, sizeof none - 1);
        (void) r;
        _exit(0);
}

static void disarm_deadline(void) {
        struct itimerval it = {};
        setitimer(ITIMER_REAL, &it, NULL);
}

/* Arms (or re-arms, after --timeout) the timer to end the process arg_timeout_usec after it
 * started. */
static void arm_deadline(void) {
        struct sigaction sa = { .sa_handler = on_deadline };
        sigaction(SIGALRM, &sa, NULL);
        uint64_t elapsed = now_usec() - start_usec;
        uint64_t left = arg_timeout_usec > elapsed ? arg_timeout_usec - elapsed : 1;
        struct itimerval it = { .it_value = { .tv_sec = (time_t) (left / USEC_PER_SEC),
                                              .tv_usec = (suseconds_t) (left % USEC_PER_SEC) } };
        setitimer(ITIMER_REAL, &it, NULL);
}

/* Blocks or unblocks the deadline around the xattr writes, so that it cannot cut a record in
 * half (a few setxattr calls on kernfs: microseconds). */
static void deadline_block(bool block) {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGALRM);
        sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL);
}

/* Reads fd to its end into b, at most max bytes. Returns 0, -EFBIG when there is more (read
 * no further than max + 1 bytes), or a negative errno. */
static int read_capped(int fd, size_t max, struct read_buf *b) {
        for (;;) {
                /* Room for max bytes, one more that tells a longer input, and the NUL. */
                if (b->cap - b->len < 4096 && b->cap < max + 2) {
                        size_t cap = MIN(MAX(b->cap * 2, (size_t) 16384), max + 2);
                        char *n = realloc(b->data, cap);
                        if (!n)
                                return -ENOMEM;
                        b->data = n;
                        b->cap = cap;
                }
                ssize_t k = read(fd, b->data + b->len, b->cap - b->len - 1);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        break;
                b->len += (size_t) k;
                if (b->len > max)
                        return -EFBIG;
        }
        b->data[b->len] = '\0';
        return 0;
}

/* Opens path read-only and reads it up to max bytes (read_capped()). Returns 0 or a negative
 * errno. */
static int read_file_capped(const char *path, size_t max, struct read_buf *b) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        return read_capped(fd, max, b);
}

/* Returns a malloc'ed copy of s cut to max bytes ("..." marks a cut) and escaped for the log
 * (escape_path()), or NULL on OOM. */
static char *escape_clip(const char *s, size_t max) {
        _cleanup_free_ char *cut = strndup(s, max);
        if (!cut)
                return NULL;
        char *e = escape_path(cut);
        if (!e || strlen(s) <= max)
                return e;
        char *dots = NULL;
        int r = asprintf(&dots, "%s...", e);
        free(e);
        return r < 0 ? NULL : dots;
}

static const char *json_string_of(struct json_object *o, const char *key) {
        struct json_object *v;
        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

/* The refusals of one run: counted, the first REFUSALS_SHOWN kept for the summary line. */
struct refusal_ctx {
        const char *id; /* escaped */
        unsigned n;
        char *shown;    /* "io.mglrud.KEY=VALUE (reason); ...", escaped and cut; or NULL */
};

static void refused(const char *key, const char *value, const char *reason, void *userdata) {
        struct refusal_ctx *c = userdata;
        if (c->n++ >= REFUSALS_SHOWN)
                return;
        _cleanup_free_ char *k = escape_clip(key, LOG_KEY_MAX),
                            *v = escape_clip(value ?: "", LOG_VALUE_MAX),
                            *why = escape_clip(reason, PATH_MAX);
        char *n = NULL;
        if (!k || !v || !why || asprintf(&n, "%s%s%s%s=%s (%s)", c->shown ?: "",
                                         c->shown ? "; " : "", ANNOTATION_PREFIX, k, v, why) < 0)
                return;
        free(c->shown);
        c->shown = n;
}

/* Logs the refusals of the run in one line: how many of the seen annotations, the first
 * REFUSALS_SHOWN of them. A state of thousands of bad annotations must not flood the journal
 * (its rate limit would drop the runtime's own lines). */
static void log_refusals(const struct refusal_ctx *c, unsigned seen, bool nothing_left) {
        if (c->n == 0)
                return;
        log_warning("%s: refused %u of %u %s* annotations: %s%s%s", c->id, c->n, seen,
                    ANNOTATION_PREFIX, c->shown ?: "(out of memory)",
                    c->n > REFUSALS_SHOWN ? "; ..." : "",
                    nothing_left ? "; nothing left to record." : ".");
}

/* Collects the io.mglrud.* annotations of the state into a (checked) and x (as recorded).
 * Returns the number of io.mglrud.* annotations seen. */
static unsigned collect_annotations(struct json_object *annotations, struct refusal_ctx *rc,
                                    struct cgroup_annotation *a, struct cgroup_xattrs *x) {
        const size_t plen = strlen(ANNOTATION_PREFIX);
        unsigned seen = 0;

        json_object_object_foreach(annotations, key, val) {
                if (strncmp(key, ANNOTATION_PREFIX, plen) != 0)
                        continue;
                seen++;
                const char *name = key + plen, *reason = NULL;
                if (!json_object_is_type(val, json_type_string)) {
                        refused(name, json_object_to_json_string(val), "not a string", rc);
                        continue;
                }
                const char *value = json_object_get_string(val);
                if (x->n >= CGROUP_XATTR_MAX) {
                        refused(name, value, "too many annotations", rc);
                        continue;
                }
                if (strlen(name) > CGROUP_XATTR_NAME_MAX ||
                    strlen(value) > CGROUP_XATTR_VALUE_MAX) {
                        refused(name, value, "too long", rc);
                        continue;
                }
                if (config_annotation_add(a, name, value, &reason) < 0) {
                        refused(name, value, reason, rc);
                        continue;
                }
                struct cgroup_xattr *it = &x->items[x->n++];
                snprintf(it->name, sizeof it->name, "%s", name);
                snprintf(it->value, sizeof it->value, "%s", value);
        }
        return seen;
}

/* Drops entry name from x. */
static void xattrs_drop(struct cgroup_xattrs *x, const char *name) {
        for (size_t i = 0; i < x->n; i++)
                if (strcmp(x->items[i].name, name) == 0) {
                        memmove(&x->items[i], &x->items[i + 1],
                                (x->n - i - 1) * sizeof x->items[0]);
                        x->n--;
                        return;
                }
}

/* Checks what needs the configuration: the policy name names a [Policy:NAME] section, and
 * annotated cold ages do not contradict each other. */
static void check_against_config(struct cgroup_annotation *a, struct cgroup_xattrs *x,
                                 struct refusal_ctx *rc) {
        const uint32_t both = (1u << POLICY_KEY_MIN_COLD_AGE) | (1u << POLICY_KEY_MAX_COLD_AGE);
        if ((a->set_mask & both) == both &&
            a->overrides.min_cold_age_usec > a->overrides.max_cold_age_usec) {
                refused("MinColdAge", cgroup_xattrs_get(x, "MinColdAge"), "greater than MaxColdAge",
                        rc);
                refused("MaxColdAge", cgroup_xattrs_get(x, "MaxColdAge"), "less than MinColdAge",
                        rc);
                xattrs_drop(x, "MinColdAge");
                xattrs_drop(x, "MaxColdAge");
                a->set_mask &= ~both;
        }
        if (!a->policy_name[0])
                return;

        _cleanup_free_ char *dropins = NULL;
        const char *dir = arg_config_dir;
        if (!dir) {
                if (strcmp(arg_config, MGLRUD_CONFIG_FILE) == 0)
                        dir = MGLRUD_CONFIG_DROPIN_DIR;
                else if (asprintf(&dropins, "%s.d", arg_config) >= 0)
                        dir = dropins;
        }
        struct config c;
        config_init(&c);
        /* The daemon checks the name again at discovery (its configuration may change). With
         * a configuration that does not load, the name is recorded unchecked. */
        int r = config_load(arg_config, dir, &c, NULL);
        bool any_policy = false;
        for (size_t i = 0; r >= 0 && i < c.n_sections; i++)
                any_policy = any_policy || c.sections[i].match == SECTION_MATCH_POLICY;
        if (r < 0)
                log_warning("%s: cannot load %s (%s), recording policy %s unchecked.", rc->id,
                            arg_config, strerror(-r), a->policy_name);
        else if (!any_policy)
                /* Not the daemon's configuration (the daemon runs elsewhere, e.g. from a
                 * Kubernetes ConfigMap): the daemon checks the name at discovery. */
                log_notice("%s: %s has no [Policy:] section, recording policy %s unchecked.",
                           rc->id, arg_config, a->policy_name);
        else if (!config_find_policy(&c, a->policy_name)) {
                char reason[2 * PATH_MAX + 128];
                snprintf(reason, sizeof reason, "no [Policy:%s] section in %s or %s",
                         a->policy_name, arg_config, dir ?: "(no drop-ins)");
                refused("policy", a->policy_name, reason, rc);
                xattrs_drop(x, "policy");
                a->policy_name[0] = '\0';
        }
        config_done(&c);
}

/* Reads the linux.cgroupsPath of the bundle's config.json (at most CONFIG_JSON_MAX_BYTES) into
 * buf, resolved (container_cgroups_path_resolve()). Returns 0 or a negative errno. */
static int bundle_cgroups_path(const char *config_json, char *buf, size_t size) {
        _cleanup_(read_buf_free) struct read_buf b = {};
        int r = read_file_capped(config_json, CONFIG_JSON_MAX_BYTES, &b);
        if (r < 0)
                return r;
        struct json_object *cfg = json_tokener_parse(b.data), *linux_, *cgp;
        r = -ENOENT;
        if (cfg && json_object_object_get_ex(cfg, "linux", &linux_) &&
            json_object_object_get_ex(linux_, "cgroupsPath", &cgp) &&
            json_object_is_type(cgp, json_type_string))
                r = container_cgroups_path_resolve(json_object_get_string(cgp), buf, size);
        json_object_put(cfg);
        return r;
}

/* Finds the container's cgroup below the cgroup2 root: the cgroup of its process (or its
 * nearest ancestor that a container layout names, when the runtime made a sub-cgroup), else the
 * bundle's linux.cgroupsPath. Returns 0, the path in buf and the file it came from in src (of
 * PATH_MAX bytes), or a negative errno. Either may name any path ("/../x"): record() resolves it
 * beneath the root. */
static int find_cgroup(struct json_object *state, const char *id, char *buf, size_t size,
                       char *src) {
        struct json_object *pidv;
        int r = -ENOENT;

        if (json_object_object_get_ex(state, "pid", &pidv) &&
            json_object_is_type(pidv, json_type_int) && json_object_get_int64(pidv) > 0) {
                _cleanup_(read_buf_free) struct read_buf b = {};
                snprintf(src, PATH_MAX, "%s/%lld/cgroup", arg_proc_root,
                         (long long) json_object_get_int64(pidv));
                r = read_file_capped(src, PROC_CGROUP_MAX_BYTES, &b);
                if (r >= 0 && (r = proc_cgroup_parse(b.data, b.len, buf, size)) >= 0) {
                        /* crun runs a Podman container's process one level below the scope
                         * mglrud knows as the container (libpod-<id>.scope/container). */
                        (void) container_cgroup_of(buf);
                        return 0;
                }
                log_debug("%s: no cgroup v2 path in %s (%s), trying the bundle.", id, src,
                          strerror(-r));
        }

        const char *bundle = json_string_of(state, "bundle");
        if (!bundle)
                return r;
        snprintf(src, PATH_MAX, "%s/config.json", bundle);
        return bundle_cgroups_path(src, buf, size);
}

/* Records x on the cgroup at path, opened beneath the root (cgroup_open_beneath()) and a cgroup2
 * directory (unless --no-cgroup2-check). Returns 0 or a negative errno: -EXDEV (the path
 * leaves the root), -ELOOP (a symlink), -EMEDIUMTYPE (not cgroup2), those of the writes. */
static int record(const char *path, const struct cgroup_xattrs *x) {
        _cleanup_close_ int root = open(arg_cgroup_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                return negative_errno();
        _cleanup_close_ int fd = cgroup_open_beneath(root, path);
        if (fd < 0)
                return fd;
        int r = arg_no_cgroup2_check ? 0 : cgroup_fd_is_cgroup2(fd);
        if (r < 0)
                return r;
        deadline_block(true);
        r = cgroup_xattrs_write(fd, x);
        recorded = r >= 0;
        deadline_block(false);
        return r;
}

/* The order of a record's entries: the policy name, then the keys in mglrud.conf(5) order. */
static int record_rank(const char *name) {
        return strcmp(name, "policy") == 0 ? -1 : policy_key_from_string(name);
}

static int cmp_xattr(const void *a, const void *b) {
        return record_rank(((const struct cgroup_xattr *) a)->name) -
               record_rank(((const struct cgroup_xattr *) b)->name);
}

/* Sorts x so that logs read the same whatever order the runtime wrote the annotations in. */
static void sort_record(struct cgroup_xattrs *x) {
        qsort(x->items, x->n, sizeof x->items[0], cmp_xattr);
}

/* Why record() failed, for the log. */
static const char *record_error(int r) {
        switch (r) {
        case -EXDEV:
                return "the path leaves the cgroup root (a \"..\" component), refused";
        case -ELOOP:
                return "a symlink on the path, refused";
        case -EMEDIUMTYPE:
                return "not a cgroup2 directory, refused";
        case -EOPNOTSUPP:
                return "no user xattrs on this cgroupfs (needs Linux 5.7)";
        default:
                return strerror(-r);
        }
}

static void format_record(const struct cgroup_xattrs *x, char *buf, size_t size) {
        buf[0] = '\0';
        for (size_t i = 0; i < x->n; i++) {
                size_t l = strlen(buf);
                snprintf(buf + l, size - l, "%s%s=%s", i ? " " : "", x->items[i].name,
                         x->items[i].value);
        }
}

/* Records the annotations of the state on the container's cgroup; id is escaped. Logs at most
 * three lines: the refusals, the configuration's trouble, the outcome. */
static void record_annotations(struct json_object *state, const char *id) {
        struct json_object *annotations;
        struct cgroup_annotation a = {};
        struct cgroup_xattrs x = {};
        _cleanup_free_ char *shown = NULL;
        struct refusal_ctx rc = { .id = id };
        unsigned seen;
        policy_init_defaults(&a.overrides);
        if (!json_object_object_get_ex(state, "annotations", &annotations) ||
            !json_object_is_type(annotations, json_type_object) ||
            (seen = collect_annotations(annotations, &rc, &a, &x)) == 0) {
                log_debug("%s: no %s* annotations, nothing to record.", id, ANNOTATION_PREFIX);
                return;
        }
        check_against_config(&a, &x, &rc);
        shown = rc.shown;
        log_refusals(&rc, seen, x.n == 0);
        if (x.n == 0)
                return;
        sort_record(&x);

        char path[PATH_MAX], src[PATH_MAX], rec[2048];
        int r = find_cgroup(state, id, path, sizeof path, src);
        if (r < 0) {
                log_error("%s: cannot find the container's cgroup (no cgroup v2 path for its "
                          "process, no usable linux.cgroupsPath in its bundle): %s; nothing "
                          "recorded.", id, strerror(-r));
                return;
        }
        format_record(&x, rec, sizeof rec);
        _cleanup_free_ char *rec_esc = escape_path(rec), *path_esc = escape_path(path),
                            *src_esc = escape_path(src);
        r = record(path, &x);
        if (r < 0)
                log_error("%s: cannot record %s on %s%s (from %s): %s", id, rec_esc ?: "",
                          arg_cgroup_root, path_esc ?: "?", src_esc ?: "?", record_error(r));
        else
                log_info("%s: recorded %s on %s (%u refused, %.1f ms).", id, rec_esc ?: "",
                         path_esc ?: "?", rc.n, (double) (now_usec() - start_usec) / 1000.0);
}

static void run(void) {
        _cleanup_(read_buf_free) struct read_buf in = {};
        int r = read_capped(STDIN_FILENO, STATE_MAX_BYTES, &in);
        if (r < 0) {
                log_error("Cannot read the OCI state from stdin: %s",
                          r == -EFBIG ? "more than 1 MiB, ignoring it" : strerror(-r));
                return;
        }
        enum json_tokener_error jerr;
        struct json_object *state = json_tokener_parse_verbose(in.data, &jerr);
        if (!state || !json_object_is_type(state, json_type_object)) {
                log_error("The OCI state on stdin is not a JSON object (%s), ignoring it.",
                          state ? "another JSON value" : json_tokener_error_desc(jerr));
                json_object_put(state);
                return;
        }
        const char *id = json_string_of(state, "id");
        _cleanup_free_ char *id_esc = escape_clip(id ?: "(no id)", LOG_ID_MAX);
        record_annotations(state, id_esc ?: "(out of memory)");
        json_object_put(state);
}

static void help(void) {
        printf("mglrud-oci-hook [OPTIONS] < OCI-STATE\n\n"
               "Records a container's io.mglrud.* annotations as user.mglrud.* xattrs on its\n"
               "cgroup for mglrud (OCI hook, createRuntime stage). Always exits 0.\n\n"
               "     --config=FILE       mglrud.conf to check policy names in (default %s)\n"
               "     --config-dir=DIR    its drop-ins (default FILE.d, or %s)\n"
               "     --cgroup-root=PATH  the cgroup2 mount (default /sys/fs/cgroup)\n"
               "     --proc-root=PATH    procfs (default /proc)\n"
               "     --timeout=TIME      give up after TIME (default 100ms)\n"
               "     --log-level=LEVEL   err, warning, notice, info (default) or debug\n"
               "     --log-target=T      journal, stderr or auto (default: the journal when\n"
               "                         its socket exists)\n"
               "  -h --help              this help\n"
               "     --version           print the version\n",
               MGLRUD_CONFIG_FILE, MGLRUD_CONFIG_DROPIN_DIR);
}

/* Parses the options. Returns 1 to run, 0 to exit (help, version). A bad option is logged
 * and ignored: a typo in a hooks.d file must not stop containers. */
static int parse_argv(int argc, char **argv) {
        enum { ARG_CONFIG = 0x100, ARG_CONFIG_DIR, ARG_CGROUP_ROOT, ARG_PROC_ROOT, ARG_TIMEOUT,
               ARG_LOG_LEVEL, ARG_LOG_TARGET, ARG_VERSION, ARG_NO_CGROUP2_CHECK };
        static const struct option options[] = {
                { "config", required_argument, NULL, ARG_CONFIG },
                { "config-dir", required_argument, NULL, ARG_CONFIG_DIR },
                { "cgroup-root", required_argument, NULL, ARG_CGROUP_ROOT },
                { "proc-root", required_argument, NULL, ARG_PROC_ROOT },
                { "timeout", required_argument, NULL, ARG_TIMEOUT },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                { "log-target", required_argument, NULL, ARG_LOG_TARGET },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                /* Not in --help: for tests on a directory tree (mglrud-oci-hook(8)). */
                { "no-cgroup2-check", no_argument, NULL, ARG_NO_CGROUP2_CHECK },
                {}
        };
        uint64_t u;
        int c, r;
        opterr = 0;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case ARG_CONFIG: arg_config = optarg; break;
                case ARG_CONFIG_DIR: arg_config_dir = optarg; break;
                case ARG_CGROUP_ROOT:
                        arg_cgroup_root = optarg;
                        arg_cgroup_root_given = true;
                        break;
                case ARG_NO_CGROUP2_CHECK: arg_no_cgroup2_check = true; break;
                case ARG_PROC_ROOT: arg_proc_root = optarg; break;
                case ARG_TIMEOUT:
                        if (parse_duration(optarg, &u) < 0 || u == 0 || u > 10 * USEC_PER_SEC)
                                log_warning("Ignoring --timeout=%s (a duration up to 10s).",
                                            optarg);
                        else
                                arg_timeout_usec = u;
                        break;
                case ARG_LOG_LEVEL:
                        if ((r = log_level_from_string(optarg)) < 0)
                                log_warning("Ignoring --log-level=%s.", optarg);
                        else
                                log_set_max_level(r);
                        break;
                case ARG_LOG_TARGET:
                        if (strcmp(optarg, "journal") == 0 || strcmp(optarg, "stderr") == 0)
                                log_set_target_journal(optarg[0] == 'j');
                        else if (strcmp(optarg, "auto") != 0)
                                log_warning("Ignoring --log-target=%s.", optarg);
                        break;
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("mglrud-oci-hook %s\n", MGLRUD_VERSION);
                        return 0;
                default:
                        log_warning("Ignoring the unknown option %s.", argv[optind - 1]);
                }
        /* The real tree is always checked: the option is for a test tree named with it. */
        if (arg_no_cgroup2_check && !arg_cgroup_root_given) {
                log_warning("Ignoring --no-cgroup2-check without --cgroup-root.");
                arg_no_cgroup2_check = false;
        }
        return 1;
}

int main(int argc, char **argv) {
        start_usec = now_usec();
        log_set_identifier("mglrud-oci-hook");
        log_set_target_journal(access("/run/systemd/journal/socket", W_OK) == 0);
        /* Before the options: the deadline covers everything that could block. */
        arm_deadline();
        if (parse_argv(argc, argv) > 0) {
                arm_deadline(); /* again, with --timeout */
                run();
        }
        /* Done: exit handlers (a sanitizer's leak check) may take their time. */
        disarm_deadline();
        return 0;
}
