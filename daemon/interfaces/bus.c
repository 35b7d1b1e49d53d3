/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bus-internal.h"
#include "bus-fields.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "config.h"
#include "mglrud/core/control.h"
#include "mglrud/core/manager.h"
#include "mglrud/interfaces/dump.h"
#include "mglrud/interfaces/idle-report.h"
#include "mglrud/interfaces/metrics.h"
#include "mglrud/interfaces/report.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/time.h"

/* Returns 0 when the caller has effective uid 0, else an AccessDenied error (or -errno). */
static int check_root(struct bus_server *b, sd_bus_message *msg, sd_bus_error *error) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *c = NULL;
        struct bus_conn *conn = bus_conn_find(b->conns, b->n_conns,
                                              sd_bus_message_get_bus(msg));
        uid_t uid;

        if (conn) {
                /* The private socket: sd-bus sees the guard's socketpair, so its credentials
                 * are ours; the peer's uid was taken from SO_PEERCRED at accept. */
                if (conn->uid != 0)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                                 "%s requires root.",
                                                 sd_bus_message_get_member(msg));
                return 0;
        }
        int r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID, &c);
        if (r < 0)
                return r;
        /* Only an id the transport vouches for counts (SO_PEERCRED on the private socket, the
         * bus daemon's UnixUserID on the system bus): one read later from /proc/PID
         * ("augmented") is racy against PID reuse and must not grant anything. */
        uint64_t augmented = sd_bus_creds_get_augmented_mask(c);
        if (!(augmented & SD_BUS_CREDS_EUID) && sd_bus_creds_get_euid(c, &uid) >= 0)
                r = 0;
        else if (!(augmented & SD_BUS_CREDS_UID) && sd_bus_creds_get_uid(c, &uid) >= 0)
                r = 0;
        else
                r = -EPERM;
        if (r < 0 || uid != 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "%s requires root.", sd_bus_message_get_member(msg));
        return 0;
}

/* Returns 0 and the managed cgroup at path, or a NoSuchCgroup error. */
static int find_cgroup(struct bus_server *b, const char *path, sd_bus_error *error,
                       struct cgroup **ret) {
        *ret = manager_find_path(b->m, path);
        if (!*ret)
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_CGROUP,
                                         "%s is not a managed cgroup.", path);
        return 0;
}

static int method_list(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct bus_server *b = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        struct control_snapshot s;
        int r = sd_bus_message_new_method_return(msg, &reply);
        if (r < 0)
                return r;
        size_t n;
        struct cgroup *const *cgroups = manager_cgroups(b->m, &n);
        r = sd_bus_message_open_container(reply, 'a', "(stss)");
        for (size_t i = 0; r >= 0 && i < n; i++) {
                (void) control_cgroup_snapshot(cgroups[i], &s);
                r = sd_bus_message_append(reply, "(stss)", s.path, s.id, s.mode, s.reason);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

#define APPEND_T(key, v) sd_bus_message_append(reply, "{sv}", key, "t", (uint64_t) (v))

int bus_append_counters(sd_bus_message *reply, const struct counter_info *table, size_t n,
                        const void *base, bool has_reclaim_stall) {
        for (size_t c = 0; c < n; c++) {
                const struct counter_info *info = &table[c];
                uint64_t v = counter_value(info, base);
                int r;
                if (info->when == COUNTER_STALL_GUARD && !has_reclaim_stall)
                        continue;
                if (info->unit == COUNTER_FLAG)
                        r = sd_bus_message_append(reply, "{sv}", info->bus_key, "b", (int) v);
                else
                        r = APPEND_T(info->bus_key, v);
                if (r < 0)
                        return r;
        }
        return 0;
}

int bus_append_snapshot(sd_bus_message *reply, const struct control_snapshot *s) {
        int r;
        if ((r = sd_bus_message_append(reply, "{sv}", "Path", "s", s->path)) < 0 ||
            (r = APPEND_T("Id", s->id)) < 0 ||
            (r = sd_bus_message_append(reply, "{sv}", "Section", "s", s->section)) < 0 ||
            (r = sd_bus_message_append(reply, "{sv}", "Mode", "s", s->mode)) < 0 ||
            (r = APPEND_T("ColdAgeUSec", s->cold_age_usec)) < 0 ||
            (r = sd_bus_message_append(reply, "{sv}", "Reason", "s", s->reason)) < 0 ||
            (r = sd_bus_message_append(reply, "{sv}", "Decision", "s", s->line)) < 0 ||
            (r = APPEND_T("ReclaimedAnonBytes", s->reclaimed_bytes[LRUGEN_ANON])) < 0 ||
            (r = APPEND_T("ReclaimedFileBytes", s->reclaimed_bytes[LRUGEN_FILE])) < 0 ||
            (r = sd_bus_message_append(reply, "{sv}", "Paused", "b", (int) s->paused)) < 0)
                return r;
        char ov[sizeof s->overrides] = "";
        for (size_t i = 0; i < s->n_overrides; i++)
                snprintf(ov + strlen(ov), sizeof ov - strlen(ov), "%s%s", i ? " " : "",
                         s->overrides[i]);
        if ((r = sd_bus_message_append(reply, "{sv}", "RuntimeOverrides", "s", ov)) < 0)
                return r;
        /* What the cgroup's path says about its container, each only when known. */
        const struct {
                const char *key, *value;
        } ident[] = {
                { "Runtime", s->runtime },
                { "ContainerId", s->container_id },
                { "PodUid", s->pod_uid },
                { "QosClass", s->qos_class },
                { "AnnotatedPolicy", s->annotated_policy },
        };
        for (size_t i = 0; i < ELEMENTSOF(ident); i++)
                if (ident[i].value && (r = sd_bus_message_append(reply, "{sv}", ident[i].key, "s",
                                                                 ident[i].value)) < 0)
                        return r;
        if (s->n_annotations > 0) {
                char an[sizeof s->annotations] = "";
                for (size_t i = 0; i < s->n_annotations; i++)
                        snprintf(an + strlen(an), sizeof an - strlen(an), "%s%s", i ? " " : "",
                                 s->annotations[i]);
                if ((r = sd_bus_message_append(reply, "{sv}", "Annotations", "s", an)) < 0)
                        return r;
        }
        if (s->has_estimates &&
            ((r = APPEND_T("ColdAnonBytes", s->cold_bytes[LRUGEN_ANON])) < 0 ||
             (r = APPEND_T("ColdFileBytes", s->cold_bytes[LRUGEN_FILE])) < 0 ||
             (r = APPEND_T("CoolingAnonBytes", s->cooling_bytes[LRUGEN_ANON])) < 0 ||
             (r = APPEND_T("CoolingFileBytes", s->cooling_bytes[LRUGEN_FILE])) < 0 ||
             (r = APPEND_T("WarmAnonBytes", s->warm_bytes[LRUGEN_ANON])) < 0 ||
             (r = APPEND_T("WarmFileBytes", s->warm_bytes[LRUGEN_FILE])) < 0))
                return r;
        /* The counters (counters.h), the guards' as the dump has them. */
        if ((r = bus_append_counters(reply, control_counter_info, _CONTROL_COUNTER_MAX, s,
                                     s->has_reclaim_stall)) < 0)
                return r;
        if (s->refault_undercount_sign &&
            (r = sd_bus_message_append(reply, "{sv}", "RefaultUndercountSign", "s",
                                       s->refault_undercount_sign)) < 0)
                return r;
        if (s->has_psi_some)
                return sd_bus_message_append(reply, "{sv}", "PressureSome", "d", s->psi_some);
        return 0;
}

static int method_get(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct bus_server *b = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        struct control_snapshot s;
        const char *path;
        int r = sd_bus_message_read(msg, "s", &path);
        if (r < 0)
                return r;
        struct cgroup *cg;
        if ((r = find_cgroup(b, path, error, &cg)) < 0)
                return r;
        manager_cgroup_snapshot(b->m, cg, &s);
        if ((r = sd_bus_message_new_method_return(msg, &reply)) < 0 ||
            (r = sd_bus_message_open_container(reply, 'a', "{sv}")) < 0 ||
            (r = bus_append_snapshot(reply, &s)) < 0 ||
            (r = sd_bus_message_close_container(reply)) < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

int bus_append_status(sd_bus_message *reply, const struct daemon_stats *d, const char *status,
                      const char *cgroup_root) {
        int r;
        if ((r = sd_bus_message_append(reply, "{sv}", "Version", "s", MGLRUD_VERSION)) < 0 ||
            (r = sd_bus_message_append(reply, "{sv}", "Status", "s", status)) < 0 ||
            (r = sd_bus_message_append(reply, "{sv}", "CgroupRoot", "s", cgroup_root)) < 0)
                return r;
        return bus_append_counters(reply, daemon_counter_info, _DAEMON_COUNTER_MAX, d, false);
}

static int method_status(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct bus_server *b = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        struct daemon_stats d;
        char line[256];
        int r;
        manager_daemon_stats(b->m, &d);
        if ((r = sd_bus_message_new_method_return(msg, &reply)) < 0 ||
            (r = sd_bus_message_open_container(reply, 'a', "{sv}")) < 0 ||
            (r = bus_append_status(reply, &d, manager_status(b->m, line, sizeof line),
                                   manager_cgroup_root(b->m))) < 0 ||
            (r = sd_bus_message_append(reply, "{sv}", "BusRenders", "t",
                                       (uint64_t) b->renders)) < 0 ||
            (r = sd_bus_message_close_container(reply)) < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* Answers msg with fmt's text, rendered at most once per cycle (and after each change made over
 * the bus): every caller until then gets the same bytes. */
static int reply_text(sd_bus_message *msg, struct bus_server *b, snapshot_format_t fmt,
                      struct bus_text_cache *cache) {
        uint64_t cycles = manager_cycles(b->m);
        if (!cache->text || cache->cycle != cycles || cache->generation != b->generation) {
                _cleanup_free_ char *text = NULL;
                int r = report_text(b->m, fmt, &text);
                if (r < 0)
                        return r;
                b->renders++;
                free(cache->text);
                *cache = (struct bus_text_cache) { .text = TAKE_PTR(text), .cycle = cycles,
                                                   .generation = b->generation };
        }
        return sd_bus_reply_method_return(msg, "s", cache->text);
}

static int method_dump(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct bus_server *b = userdata;
        return reply_text(msg, b, dump_format, &b->dump_cache);
}

/* Turns the cgroups' idle-age profiles on for a call that shows them and returns true when it
 * is to wait for them: kept from the next cycle on, they are not there yet. The call is then
 * held (bus_server_cycle_done() answers it), so that it shows what it always showed, one
 * interval later (docs/design.md, "Idle-age profile"). */
static bool wait_for_profiles(struct bus_server *b, sd_bus_message *msg) {
        manager_want_idle_profile(b->m);
        if (manager_idle_profile_ready(b->m) || b->n_waiting == BUS_MAX_WAITING)
                return false;
        b->waiting[b->n_waiting++] = sd_bus_message_ref(msg);
        return true;
}

static int metrics_reply(sd_bus_message *msg, struct bus_server *b) {
        return reply_text(msg, b, metrics_format, &b->metrics_cache);
}

static int method_metrics(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct bus_server *b = userdata;
        /* The metrics carry the cgroups' idle-age profiles (a scraper asks again and again). */
        if (wait_for_profiles(b, msg))
                return 1;
        return metrics_reply(msg, b);
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct bus_server *b = userdata;
        int r = check_root(b, msg, error);
        if (r < 0)
                return r;
        _cleanup_free_ char *why = NULL;
        r = b->reload(b->m, &why);
        b->generation++; /* also after a failed reload: part of it may have been applied */
        if (r < 0 && why)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s", why);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "%m");
        return sd_bus_reply_method_return(msg, NULL);
}

static int set_paused(sd_bus_message *msg, struct bus_server *b, bool paused,
                      sd_bus_error *error) {
        const char *path;
        int r = check_root(b, msg, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "s", &path);
        if (r < 0)
                return r;
        if (!*path) {
                if ((r = manager_pause_all(b->m, paused)) < 0)
                        return r;
                log_info("%s all cgroups.", paused ? "Paused" : "Resumed");
        } else {
                struct cgroup *cg;
                if ((r = find_cgroup(b, path, error, &cg)) < 0)
                        return r;
                r = control_cgroup_set_paused(cg, paused);
                if (r < 0)
                        return r;
                log_info("%s %s.", paused ? "Paused" : "Resumed", cg->name);
        }
        b->generation++;
        return sd_bus_reply_method_return(msg, NULL);
}

static int method_pause(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return set_paused(msg, userdata, true, error);
}

static int method_resume(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return set_paused(msg, userdata, false, error);
}

static int method_advise(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct bus_server *b = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint64_t now = now_monotonic_usec();
        char line[1024];
        int r = sd_bus_message_new_method_return(msg, &reply);
        if (r < 0)
                return r;
        size_t n;
        struct cgroup *const *cgroups = manager_cgroups(b->m, &n);
        r = sd_bus_message_open_container(reply, 'a', "(ss)");
        for (size_t i = 0; r >= 0 && i < n; i++) {
                struct cgroup *cg = cgroups[i];
                int q = manager_advise(b->m, cg, now, line, sizeof line);
                if (q == -ENOMEM)
                        return q;
                if (q < 0)
                        snprintf(line, sizeof line, "cannot advise: %s", strerror(-q));
                r = sd_bus_message_append(reply, "(ss)", cg->name, line);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

/* Appends one IdleProfile() entry: (path, fields, rows); see bus-protocol.h. */
static int append_idle(sd_bus_message *reply, const char *path, const struct idle_table *t,
                       const struct control_snapshot *s, uint64_t read_ago_usec) {
        int r;
        if ((r = sd_bus_message_open_container(reply, 'r', "sa{sv}a(tttud)")) < 0 ||
            (r = sd_bus_message_append(reply, "s", path)) < 0 ||
            (r = sd_bus_message_open_container(reply, 'a', "{sv}")) < 0 ||
            (r = sd_bus_message_append(reply, "{sv}", "Kind", "s", s ? "cgroup" : "host")) < 0 ||
            (r = sd_bus_message_append(reply, "{sv}", "HasReading", "b", (int) !t->unread)) < 0 ||
            (r = sd_bus_message_append(reply, "{sv}", "HasLruGen", "b", (int) t->has_lrugen)) < 0 ||
            (r = APPEND_T("ReadAgoUSec", read_ago_usec)) < 0 ||
            (r = sd_bus_message_append(reply, "{sv}", "HasLruLists", "b",
                                       (int) t->has_lru_lists)) < 0)
                return r;
        if (t->has_lru_lists &&
            ((r = APPEND_T("ActiveAnonBytes", t->active[0])) < 0 ||
             (r = APPEND_T("InactiveAnonBytes", t->inactive[0])) < 0 ||
             (r = APPEND_T("ActiveFileBytes", t->active[1])) < 0 ||
             (r = APPEND_T("InactiveFileBytes", t->inactive[1])) < 0))
                return r;
        if (t->has_lrugen &&
            ((r = APPEND_T("Lruvecs", t->n_lruvecs)) < 0 ||
             (r = APPEND_T("HorizonUSec", t->horizon_usec)) < 0 ||
             (r = APPEND_T("AgedMinUSec", t->aged_min_usec)) < 0 ||
             (r = APPEND_T("AgedMaxUSec", t->aged_max_usec)) < 0 ||
             (r = APPEND_T("TotalAnonBytes", t->total[0])) < 0 ||
             (r = APPEND_T("TotalFileBytes", t->total[1])) < 0 ||
             (r = APPEND_T("HotAnonBytes", t->hot[0])) < 0 ||
             (r = APPEND_T("HotFileBytes", t->hot[1])) < 0 ||
             (r = APPEND_T("ReaccessUSec", t->reaccess_usec)) < 0 ||
             (r = APPEND_T("ReaccessPendingUSec", t->reaccess_pending_usec)) < 0))
                return r;
        if (s &&
            ((r = sd_bus_message_append(reply, "{sv}", "Mode", "s", s->mode)) < 0 ||
             (r = sd_bus_message_append(reply, "{sv}", "Policy", "s", t->policy)) < 0 ||
             (r = APPEND_T("ColdAgeUSec", s->cold_age_usec)) < 0 ||
             (r = APPEND_T("MinColdAgeUSec", s->min_cold_age_usec)) < 0 ||
             (r = APPEND_T("MaxColdAgeUSec", s->max_cold_age_usec)) < 0))
                return r;
        for (size_t i = 0; i < t->n_forecasts; i++) {
                const struct idle_table_forecast *x = &t->forecasts[i];
                char k[4][64];
                snprintf(k[0], sizeof k[0], "Forecast%sUSec", x->name);
                snprintf(k[1], sizeof k[1], "Forecast%sAnonBytes", x->name);
                snprintf(k[2], sizeof k[2], "Forecast%sFileBytes", x->name);
                snprintf(k[3], sizeof k[3], "Forecast%sFlags", x->name);
                if ((r = APPEND_T(k[0], x->threshold_usec)) < 0 ||
                    (r = APPEND_T(k[1], x->bytes[0])) < 0 ||
                    (r = APPEND_T(k[2], x->bytes[1])) < 0 || (r = APPEND_T(k[3], x->flags)) < 0)
                        return r;
        }
        if ((r = sd_bus_message_close_container(reply)) < 0 ||
            (r = sd_bus_message_open_container(reply, 'a', "(tttud)")) < 0)
                return r;
        for (size_t i = 0; i < t->n_rows; i++) {
                const struct idle_table_row *w = &t->rows[i];
                if ((r = sd_bus_message_append(reply, "(tttud)", w->idle_usec, w->bytes[0],
                                               w->bytes[1], (uint32_t) w->flags, w->reaccess)) < 0)
                        return r;
        }
        if ((r = sd_bus_message_close_container(reply)) < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

static int idle_profile_reply(sd_bus_message *msg, struct bus_server *b) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ struct control_snapshot *snaps = NULL;
        struct daemon_stats d;
        struct idle_table t;
        char policy[256];
        size_t n;
        uint64_t now = now_monotonic_usec();
        const struct host_idle *h = manager_host_idle(b->m);
        int r = manager_snapshots(b->m, &d, &snaps, &n);
        if (r < 0)
                return r;
        if ((r = sd_bus_message_new_method_return(msg, &reply)) < 0 ||
            (r = sd_bus_message_open_container(reply, 'a', "(sa{sv}a(tttud))")) < 0)
                return r;
        idle_table_from_host(h, &t);
        r = append_idle(reply, "", &t, NULL,
                        h->read_usec && now > h->read_usec ? now - h->read_usec : 0);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                uint64_t read_usec = snaps[i].idle_lists.read_usec;
                idle_table_from_snapshot(&snaps[i], &t, policy, sizeof policy);
                r = append_idle(reply, snaps[i].path, &t, &snaps[i],
                                read_usec && now > read_usec ? now - read_usec : 0);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

static int method_idle_profile(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct bus_server *b = userdata;
        if (wait_for_profiles(b, msg))
                return 1;
        return idle_profile_reply(msg, b);
}

int bus_answer_waiting(struct bus_server *b, sd_bus_message *msg) {
        const char *member = sd_bus_message_get_member(msg);
        int r = member && strcmp(member, "Metrics") == 0 ? metrics_reply(msg, b) :
                                                           idle_profile_reply(msg, b);
        /* What sd-bus does with a method's error, done here: the method returned long ago. */
        return r < 0 ? sd_bus_reply_method_errno(msg, r, NULL) : r;
}

static int method_set(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        struct bus_server *b = userdata;
        const char *path, *key, *value, *reason = NULL;
        int r = check_root(b, msg, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "sss", &path, &key, &value);
        if (r < 0)
                return r;
        struct cgroup *cg;
        if ((r = find_cgroup(b, path, error, &cg)) < 0)
                return r;
        int k = policy_key_from_string(key);
        if (k < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "%s=%s: unknown policy key", key, value);
        r = manager_set_override(b->m, cg, k, value, &reason);
        if (r == -EINVAL)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s=%s: %s", key,
                                         value, reason ?: "invalid value");
        if (r < 0)
                return r;
        b->generation++;
        if (*value)
                log_info("%s: %s=%s (runtime override).", cg->name, key, value);
        else
                log_info("%s: runtime override of %s removed.", cg->name, key);
        return sd_bus_reply_method_return(msg, NULL);
}

/* Every method is "unprivileged" for sd-bus: the changing ones check uid 0 themselves, the
 * same way on the private socket and on the system bus. */
const sd_bus_vtable bus_manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("ListCgroups", "", "a(stss)", method_list, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("GetCgroup", "s", "a{sv}", method_get, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("GetStatus", "", "a{sv}", method_status, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Dump", "", "s", method_dump, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Metrics", "", "s", method_metrics, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Reload", "", "", method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Pause", "s", "", method_pause, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Resume", "s", "", method_resume, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Advise", "", "a(ss)", method_advise, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("IdleProfile", "", "a(sa{sv}a(tttud))", method_idle_profile,
                      SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Set", "sss", "", method_set, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};
