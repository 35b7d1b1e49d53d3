/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mglructl: inspect and control a running mglrud over its private bus socket
 * (RUNTIME_DIR/bus, org.mglrud.Manager1). Exit codes: 0 ok, 1 the daemon returned an error,
 * 2 usage, 3 cannot connect, 4 access denied. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <systemd/sd-bus.h>

#include "config.h"
#include "mglrud/interfaces/bus-protocol.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"
#include "mglructl.h"
#include "mglructl-savings.h"

static const char *arg_runtime_dir = MGLRUD_RUNTIME_DIR;
static bool arg_json, arg_once, arg_idle;
static const char *arg_svg, *arg_html;
static uint64_t arg_interval = USEC_PER_SEC;

static void help(void) {
        printf("Usage: mglructl [OPTIONS] COMMAND\n\n"
               "Inspect and control the mglrud proactive reclaim daemon.\n\n"
               "Commands:\n"
               "  status           summary of the daemon and its cgroups\n"
               "  dump             full state, one block per cgroup\n"
               "  metrics          Prometheus text metrics\n"
               "  reload           reload the configuration (root)\n"
               "  pause [PATH]     stop acting on PATH, or on every cgroup (root)\n"
               "  resume [PATH]    act again on PATH, or on every cgroup (root)\n"
               "  advise           what each cgroup would get now (computed, nothing written)\n"
               "                   and the idle-age profiles of the host and the cgroups\n"
               "  set PATH KEY=VALUE\n"
               "                   override a policy key of PATH until restart (root);\n"
               "                   KEY= removes the override\n"
               "  top              live view of the cgroups (keys c r p n sort, i idle-age view,\n"
               "                   q quits)\n"
               "  report --svg FILE | --html FILE\n"
               "                   draw the idle-age curves of the host and the top cgroups\n\n"
               "Options:\n"
               "     --runtime-dir=DIR  find the daemon's socket in DIR (default %s)\n"
               "     --json             JSON output for status, dump and advise\n"
               "     --interval=TIME    top: refresh every TIME (default 1s)\n"
               "     --once             top: print one frame and exit\n"
               "     --idle             top: start in the idle-age view\n"
               "     --svg=FILE         report: write the picture as SVG\n"
               "     --html=FILE        report: write an HTML page with the picture and tables\n"
               "  -h --help             this help\n"
               "     --version          print the version\n",
               MGLRUD_RUNTIME_DIR);
}

/* Calls a method returning a{sv} (argument arg when not NULL) and reads it into f. Returns
 * the count, or minus an exit code. */
static int call_fields(sd_bus *bus, const char *member, const char *arg,
                       sd_bus_message **reply, struct field *f) {
        int r = ctl_call(bus, member, arg ? "s" : "", arg, reply);
        if (r > 0)
                return -r;
        r = ctl_read_fields(*reply, f, MAX_FIELDS);
        if (r < 0) {
                fprintf(stderr, "Cannot parse the %s reply: %s\n", member, strerror(-r));
                return -EXIT_DAEMON;
        }
        return r;
}

static void print_cgroup_line(const struct field *f, size_t n) {
        char t[32], ca[32], cf[32], ct[96];
        const struct field *path = ctl_field_get(f, n, "Path"), *mode = ctl_field_get(f, n, "Mode"),
                           *reason = ctl_field_get(f, n, "Reason");
        bool est = ctl_field_get(f, n, "ColdAnonBytes");
        printf("%-32s %-7s %-6s %7s %7s %-23s %-10s %s%s\n", path ? path->s : "?",
               mode ? mode->s : "?",
               format_duration(t, sizeof t, ctl_field_u64(f, n, "ColdAgeUSec")),
               est ? format_bytes(ca, sizeof ca, ctl_field_u64(f, n, "ColdAnonBytes")) : "-",
               est ? format_bytes(cf, sizeof cf, ctl_field_u64(f, n, "ColdFileBytes")) : "-",
               ctl_container_label(f, n, ct, sizeof ct), ctl_qos_label(f, n),
               reason ? reason->s : "?", ctl_field_u64(f, n, "Paused") ? " (paused)" : "");
}

/* status and --json dump: the daemon's GetStatus, then GetCgroup for each listed cgroup. */
static int cmd_status(sd_bus *bus, bool full_json) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *st = NULL, *list = NULL;
        struct field f[MAX_FIELDS];
        char a[32], b[32];
        int n = call_fields(bus, "GetStatus", NULL, &st, f);
        if (n < 0)
                return -n;
        int r = ctl_call(bus, "ListCgroups", "", NULL, &list);
        if (r > 0)
                return r;

        if (arg_json) {
                fputs("{\"daemon\":", stdout);
                ctl_json_fields(f, n);
                fputs(",\"cgroups\":[", stdout);
        } else {
                const struct field *v = ctl_field_get(f, n, "Version"), *s = ctl_field_get(f, n, "Status"),
                                   *root = ctl_field_get(f, n, "CgroupRoot");
                printf("mglrud %s: %s\n", v ? v->s : "?", s ? s->s : "?");
                printf("  Cgroup root: %s\n", root ? root->s : "?");
                printf("  Interval: %s (last cycle took %s)\n",
                       format_duration(a, sizeof a, ctl_field_u64(f, n, "IntervalUSec")),
                       format_duration(b, sizeof b, ctl_field_u64(f, n, "LastCycleUSec")));
                printf("  Dry run: %s, paused: %s\n\n", ctl_field_u64(f, n, "DryRun") ? "yes" : "no",
                       ctl_field_u64(f, n, "PausedAll") ? "yes (all)" : "no");
                printf("%-32s %-7s %-6s %7s %7s %-23s %-10s %s\n", "CGROUP", "MODE", "T",
                       "COLD-A", "COLD-F", "CONTAINER", "QOS", "REASON");
        }
        if ((r = sd_bus_message_enter_container(list, 'a', "(stss)")) < 0)
                goto fail;
        for (bool first = true;; first = false) {
                const char *path, *mode, *reason;
                uint64_t id;
                r = sd_bus_message_read(list, "(stss)", &path, &id, &mode, &reason);
                if (r < 0)
                        goto fail;
                if (r == 0)
                        break;
                if (arg_json && !full_json) {
                        printf("%s{\"Path\":", first ? "" : ",");
                        ctl_json_string(path);
                        printf(",\"Id\":%" PRIu64 ",\"Mode\":", id);
                        ctl_json_string(mode);
                        fputs(",\"Reason\":", stdout);
                        ctl_json_string(reason);
                        putchar('}');
                        continue;
                }
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *cr = NULL;
                struct field g[MAX_FIELDS];
                int k = call_fields(bus, "GetCgroup", path, &cr, g);
                if (k < 0)
                        return -k;
                if (arg_json) {
                        if (!first)
                                putchar(',');
                        ctl_json_fields(g, k);
                } else
                        print_cgroup_line(g, k);
        }
        if (arg_json)
                puts("]}");
        return 0;
fail:
        fprintf(stderr, "Cannot parse the ListCgroups reply: %s\n", strerror(-r));
        return EXIT_DAEMON;
}

static int cmd_text(sd_bus *bus, const char *member) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *text;
        int r = ctl_call(bus, member, "", NULL, &reply);
        if (r > 0)
                return r;
        if (sd_bus_message_read(reply, "s", &text) < 0) {
                fprintf(stderr, "Cannot parse the %s reply.\n", member);
                return EXIT_DAEMON;
        }
        fputs(text, stdout);
        return 0;
}

/* Returns the idle entry of path in v[0..n), or NULL. */
static const struct ctl_idle *idle_find(const struct ctl_idle *v, size_t n, const char *path) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i].path, path) == 0)
                        return &v[i];
        return NULL;
}

/* Writes the savings of the Mode=advise cgroups as the JSON value of "Savings": their paths with
 * the bytes MinColdAge and T would free now (null while not known), and the drop-in for the
 * one that would free the most. */
static void savings_json(const struct ctl_saving *s, size_t n) {
        char name[256], section[512];
        size_t best = ctl_savings_best(s, n);
        fputs(",\"Savings\":{\"Cgroups\":[", stdout);
        for (size_t i = 0; i < n; i++) {
                printf("%s{\"Path\":", i ? "," : "");
                ctl_json_string(s[i].path);
                const struct ctl_saving_at *at[] = { &s[i].min, &s[i].t };
                static const char *const key[] = { "MinColdAge", "T" };
                for (size_t k = 0; k < ELEMENTSOF(at); k++) {
                        printf(",\"%sUSec\":%" PRIu64 ",\"%sBytes\":", key[k],
                               at[k]->threshold_usec, key[k]);
                        if (at[k]->known)
                                printf("%" PRIu64, at[k]->bytes);
                        else
                                fputs("null", stdout);
                }
                putchar('}');
        }
        fputs("],\"DropIn\":", stdout);
        if (best < n && ctl_savings_dropin(s[best].path, name, sizeof name, section,
                                           sizeof section) == 0) {
                char file[512], text[600];
                snprintf(file, sizeof file, "%s/%s", MGLRUD_CONFIG_DROPIN_DIR, name);
                snprintf(text, sizeof text, "%s\nMode=active\n", section);
                fputs("{\"File\":", stdout);
                ctl_json_string(file);
                fputs(",\"Text\":", stdout);
                ctl_json_string(text);
                putchar('}');
        } else
                fputs("null", stdout);
        putchar('}');
}

/* Returns the daemon's DryRun (GetStatus), false when it cannot be read. */
static bool daemon_dry_run(sd_bus *bus) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *st = NULL;
        struct field f[MAX_FIELDS];
        int n = call_fields(bus, "GetStatus", NULL, &st, f);
        return n > 0 && ctl_field_u64(f, (size_t) n, "DryRun");
}

/* advise: the daemon's fresh advice for every cgroup, one line each, then the idle-age profile
 * of the host and of each cgroup (IdleProfile(), as of the last cycle), then what the cgroups in
 * Mode=advise would free and the drop-in that acts on it (mglructl-savings.h). */
static int cmd_advise(sd_bus *bus) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL, *idle_reply = NULL;
        _cleanup_free_ struct ctl_idle *idle = NULL;
        _cleanup_free_ struct ctl_saving *savings = NULL;
        size_t n_idle = 0, n_savings;
        int r = ctl_call(bus, "Advise", "", NULL, &reply);
        if (r > 0)
                return r;
        r = ctl_idle_fetch(bus, &idle_reply, &idle, &n_idle);
        if (r > 0)
                return r;
        savings = calloc(MAX(n_idle, 1U), sizeof *savings);
        if (!savings) {
                fprintf(stderr, "Out of memory.\n");
                return EXIT_DAEMON;
        }
        n_savings = ctl_savings_collect(idle, n_idle, savings);
        if ((r = sd_bus_message_enter_container(reply, 'a', "(ss)")) < 0)
                goto fail;
        if (arg_json) {
                fputs("{\"host\":", stdout);
                if (n_idle > 0 && idle[0].path[0] == 0)
                        ctl_idle_json(&idle[0]);
                else
                        fputs("null", stdout);
                fputs(",\"cgroups\":[", stdout);
        } else
                printf("%-32s %s\n", "CGROUP", "ADVICE");
        for (bool first = true;; first = false) {
                const char *path, *line;
                r = sd_bus_message_read(reply, "(ss)", &path, &line);
                if (r < 0)
                        goto fail;
                if (r == 0)
                        break;
                if (arg_json) {
                        const struct ctl_idle *x = idle_find(idle, n_idle, path);
                        printf("%s{\"Path\":", first ? "" : ",");
                        ctl_json_string(path);
                        fputs(",\"Advice\":", stdout);
                        ctl_json_string(line);
                        fputs(",\"Profile\":", stdout);
                        if (x)
                                ctl_idle_json(x);
                        else
                                fputs("null", stdout);
                        putchar('}');
                } else
                        printf("%-32s %s\n", path, line);
        }
        if (arg_json) {
                putchar(']');
                savings_json(savings, n_savings);
                puts("}");
                return 0;
        }
        for (size_t i = 0; i < n_idle; i++) {
                struct idle_table t;
                ctl_idle_table(&idle[i], &t);
                putchar('\n');
                (void) idle_table_print(stdout, &t);
        }
        (void) ctl_savings_print(stdout, savings, n_savings, n_savings && daemon_dry_run(bus),
                                 MGLRUD_CONFIG_DROPIN_DIR);
        return 0;
fail:
        fprintf(stderr, "Cannot parse the Advise reply: %s\n", strerror(-r));
        return EXIT_DAEMON;
}

/* set PATH KEY=VALUE: a runtime override of one policy key; "KEY=" removes it. */
static int cmd_set(sd_bus *bus, const char *path, const char *assignment) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *eq = strchr(assignment, '=');
        if (!eq || eq == assignment) {
                fprintf(stderr, "Expected KEY=VALUE or KEY=, not \"%s\" (see --help).\n",
                        assignment);
                return EXIT_USAGE;
        }
        _cleanup_free_ char *key = strndup(assignment, eq - assignment);
        if (!key)
                return EXIT_DAEMON;
        int r = sd_bus_call_method(bus, NULL, BUS_OBJECT_PATH, BUS_INTERFACE, "Set", &error, NULL,
                                   "sss", path, key, eq + 1);
        return r >= 0 ? 0 : ctl_call_failed("Set", &error, r);
}

static int parse_argv(int argc, char **argv) {
        enum { ARG_RUNTIME_DIR = 0x100, ARG_JSON, ARG_VERSION, ARG_INTERVAL, ARG_ONCE, ARG_IDLE,
               ARG_SVG, ARG_HTML };
        static const struct option options[] = {
                { "runtime-dir", required_argument, NULL, ARG_RUNTIME_DIR },
                { "json", no_argument, NULL, ARG_JSON },
                { "interval", required_argument, NULL, ARG_INTERVAL },
                { "once", no_argument, NULL, ARG_ONCE },
                { "idle", no_argument, NULL, ARG_IDLE },
                { "svg", required_argument, NULL, ARG_SVG },
                { "html", required_argument, NULL, ARG_HTML },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {}
        };
        int c;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case ARG_RUNTIME_DIR:
                        arg_runtime_dir = optarg;
                        break;
                case ARG_JSON:
                        arg_json = true;
                        break;
                case ARG_INTERVAL:
                        if (parse_duration(optarg, &arg_interval) < 0 ||
                            arg_interval < USEC_PER_SEC / 10) {
                                fprintf(stderr, "Invalid --interval=%s (at least 100ms).\n",
                                        optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_ONCE:
                        arg_once = true;
                        break;
                case ARG_IDLE:
                        arg_idle = true;
                        break;
                case ARG_SVG:
                        arg_svg = optarg;
                        break;
                case ARG_HTML:
                        arg_html = optarg;
                        break;
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("mglructl %s\n", MGLRUD_VERSION);
                        return 0;
                default:
                        return -EINVAL;
                }
        return 1;
}

int main(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r = parse_argv(argc, argv);
        if (r <= 0)
                return r < 0 ? EXIT_USAGE : 0;
        if (optind >= argc) {
                fprintf(stderr, "Missing command (see --help).\n");
                return EXIT_USAGE;
        }
        const char *verb = argv[optind];
        int nargs = argc - optind - 1;
        bool changes = strcmp(verb, "pause") == 0 || strcmp(verb, "resume") == 0;
        bool set = strcmp(verb, "set") == 0;
        static const char *const verbs[] = { "status", "dump", "metrics", "reload", "pause",
                                             "resume", "top", "advise", "set", "report" };
        bool known = false;
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                known = known || strcmp(verb, verbs[i]) == 0;
        if (!known || nargs > (set ? 2 : changes ? 1 : 0)) {
                fprintf(stderr, known ? "Too many arguments for %s (see --help).\n"
                                      : "Unknown command %s (see --help).\n", verb);
                return EXIT_USAGE;
        }
        if (set && (nargs < 2 || !strchr(argv[optind + 2], '=') || argv[optind + 2][0] == '=')) {
                fprintf(stderr, "Usage: mglructl set PATH KEY=VALUE (see --help).\n");
                return EXIT_USAGE;
        }
        if (strcmp(verb, "report") == 0 && !arg_svg && !arg_html) {
                fprintf(stderr, "Usage: mglructl report --svg FILE | --html FILE (see --help).\n");
                return EXIT_USAGE;
        }
        if (ctl_connect(arg_runtime_dir, &bus) < 0)
                return EXIT_CONNECT;

        if (strcmp(verb, "status") == 0)
                return cmd_status(bus, false);
        if (strcmp(verb, "dump") == 0)
                return arg_json ? cmd_status(bus, true) : cmd_text(bus, "Dump");
        if (strcmp(verb, "top") == 0)
                return ctl_top_run(bus, arg_interval, arg_once, arg_idle);
        if (strcmp(verb, "metrics") == 0)
                return cmd_text(bus, "Metrics");
        if (strcmp(verb, "advise") == 0)
                return cmd_advise(bus);
        if (strcmp(verb, "report") == 0)
                return ctl_report_run(bus, arg_svg, arg_html);
        if (set)
                return cmd_set(bus, argv[optind + 1], argv[optind + 2]);
        if (strcmp(verb, "reload") == 0)
                return ctl_call(bus, "Reload", "", NULL, NULL);
        return ctl_call(bus, strcmp(verb, "pause") == 0 ? "Pause" : "Resume", "s",
                    nargs ? argv[optind + 1] : "", NULL);
}
