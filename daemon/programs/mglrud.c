/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mglrud: the proactive reclaim daemon. sd-event loop with one timer per cycle, sd_notify
 * READY/STATUS/WATCHDOG, SIGHUP reload, clean exit on SIGTERM/SIGINT. */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "config.h"
#include "mglrud/config/config.h"
#include "mglrud/core/manager.h"
#include "mglrud/interfaces/bus.h"
#include "mglrud/interfaces/idle-report.h"
#include "mglrud/interfaces/journal.h"
#include "mglrud/interfaces/metrics.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/parse-util.h"
#include "mglrud/shared/time.h"

/* --once takes two samples this far apart, so rates (PSI, refaults) cover a real interval. */
#define ONCE_SAMPLE_GAP_USEC (2 * USEC_PER_SEC)

static const char *arg_config = MGLRUD_CONFIG_FILE;
static const char *arg_dropin = MGLRUD_CONFIG_DROPIN_DIR;
static bool arg_once, arg_check_config, arg_dropin_set;
static struct manager_overrides arg_overrides;
static int arg_log_level = -1;
static const char *arg_runtime_dir = MGLRUD_RUNTIME_DIR;
static const char *arg_metrics_file;

static void help(void) {
        printf("Usage: mglrud [OPTIONS]\n\n"
               "Proactive memory reclaim driven by the multi-gen LRU and PSI.\n\n"
               "  -c --config=FILE        main configuration file (default %s)\n"
               "     --config-dir=DIR     drop-in directory (default %s, or FILE.d when --config\n"
               "                          is given)\n"
               "  -n --dry-run            advise only: never write to any kernel file\n"
               "     --once               run one cycle (two samples %llus apart), print, exit\n"
               "     --check-config       validate the configuration, print the effective policy\n"
               "     --cgroup-root=PATH   cgroup2 mount to manage (default: found by libcgroup)\n"
               "     --debugfs-root=PATH  debugfs mount (default /sys/kernel/debug)\n"
               "     --proc-root=PATH     procfs mount (default /proc)\n"
               "  -i --interval=TIME      cycle interval, e.g. 5s (default from config, 10s)\n"
               "     --runtime-dir=DIR    where the mglructl socket DIR/bus goes (default %s)\n"
               "     --metrics-file=PATH  write Prometheus metrics to PATH after each cycle\n"
               "     --log-level=LEVEL    err, warning, notice, info, debug\n"
               "  -h --help               this help\n"
               "     --version            print the version\n",
               MGLRUD_CONFIG_FILE, MGLRUD_CONFIG_DROPIN_DIR,
               (unsigned long long) (ONCE_SAMPLE_GAP_USEC / USEC_PER_SEC), MGLRUD_RUNTIME_DIR);
}

static int parse_argv(int argc, char **argv) {
        enum { ARG_ONCE = 0x100, ARG_CHECK, ARG_CGROOT, ARG_DEBUGFS, ARG_PROC, ARG_LOGLEVEL,
               ARG_VERSION, ARG_CONFIG_DIR, ARG_RUNTIME_DIR, ARG_METRICS_FILE };
        static const struct option options[] = {
                { "config", required_argument, NULL, 'c' },
                { "config-dir", required_argument, NULL, ARG_CONFIG_DIR },
                { "dry-run", no_argument, NULL, 'n' },
                { "once", no_argument, NULL, ARG_ONCE },
                { "check-config", no_argument, NULL, ARG_CHECK },
                { "cgroup-root", required_argument, NULL, ARG_CGROOT },
                { "debugfs-root", required_argument, NULL, ARG_DEBUGFS },
                { "proc-root", required_argument, NULL, ARG_PROC },
                { "interval", required_argument, NULL, 'i' },
                { "log-level", required_argument, NULL, ARG_LOGLEVEL },
                { "runtime-dir", required_argument, NULL, ARG_RUNTIME_DIR },
                { "metrics-file", required_argument, NULL, ARG_METRICS_FILE },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {}
        };
        int c, r;
        static char dropin_buf[4096];

        while ((c = getopt_long(argc, argv, "c:ni:h", options, NULL)) >= 0) {
                switch (c) {
                case 'c':
                        arg_config = optarg;
                        if (!arg_dropin_set) {
                                snprintf(dropin_buf, sizeof dropin_buf, "%s.d", optarg);
                                arg_dropin = dropin_buf;
                        }
                        break;
                case ARG_CONFIG_DIR:
                        arg_dropin = optarg;
                        arg_dropin_set = true;
                        break;
                case 'n':
                        arg_overrides.dry_run = true;
                        break;
                case ARG_ONCE:
                        arg_once = true;
                        break;
                case ARG_CHECK:
                        arg_check_config = true;
                        break;
                case ARG_CGROOT:
                        arg_overrides.cgroup_root = optarg;
                        break;
                case ARG_DEBUGFS:
                        arg_overrides.debugfs_root = optarg;
                        break;
                case ARG_PROC:
                        arg_overrides.proc_root = optarg;
                        break;
                case 'i':
                        r = parse_duration(optarg, &arg_overrides.interval_usec);
                        if (r < 0 || arg_overrides.interval_usec < USEC_PER_SEC / 10 ||
                            arg_overrides.interval_usec > CONFIG_MAX_INTERVAL_USEC) {
                                log_error("--interval=%s: expected a duration from 100ms to 1h "
                                          "such as 5s or 1min.", optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_LOGLEVEL:
                        arg_log_level = log_level_from_string(optarg);
                        if (arg_log_level < 0) {
                                log_error("--log-level=%s: expected err, warning, notice, info or "
                                          "debug.", optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_RUNTIME_DIR:
                        arg_runtime_dir = optarg;
                        break;
                case ARG_METRICS_FILE:
                        arg_metrics_file = optarg;
                        break;
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("mglrud %s\n", MGLRUD_VERSION);
                        return 0;
                default:
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                log_error("Unexpected argument: %s (see --help).", argv[optind]);
                return -EINVAL;
        }
        return 1;
}

/* What the cycle timer works on. */
struct loop {
        struct manager *m;
        struct bus_server *bus; /* NULL when not served */
};

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        struct loop *l = userdata;
        struct manager *m = l->m;
        char status[256];
        int r = manager_cycle(m, now_monotonic_usec());
        if (r < 0) {
                log_error_errno(r, "Control cycle failed fatally: %m");
                return sd_event_exit(sd_event_source_get_event(s), r);
        }
        sd_notifyf(false, "STATUS=%s", manager_status(m, status, sizeof status));
        bus_server_cycle_done(l->bus);
        if (arg_metrics_file) {
                static int last_error;
                r = metrics_write_file(m, arg_metrics_file);
                if (r < 0 && r != last_error)
                        log_warning_errno(r, "Cannot write metrics to %s: %m", arg_metrics_file);
                last_error = MIN(r, 0);
        }
        /* Keep the cadence, but after a cycle that overran (a slow read, a stalled host) do
         * not fire back to back to catch up: the next sample must cover a real interval. */
        uint64_t now = now_monotonic_usec(), next = usec + manager_interval_usec(m);
        if (next < now)
                next = now + manager_interval_usec(m);
        sd_event_source_set_time(s, next);
        return 0;
}

/* SIGHUP and the bus Reload(): the command line's --log-level wins over the config again. */
static int reload(struct manager *m, char **ret_error) {
        sd_notify(false, "RELOADING=1");
        int r = manager_reload(m, ret_error);
        if (arg_log_level >= 0)
                log_set_max_level(arg_log_level);
        sd_notify(false, "READY=1");
        return r;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        (void) reload(userdata, NULL);
        return 0;
}

/* Runs the daemon on event loop e (the manager was started on it). Returns 0 or -errno. */
static uint64_t watchdog_usec;

/* Pings systemd's watchdog, but only while the daemon makes progress: the event loop runs this
 * timer, and the writer thread is not stuck in one write for half the watchdog period (a write
 * the kernel never returns from would otherwise go unnoticed: the loop keeps running). */
static int on_watchdog(sd_event_source *s, uint64_t usec, void *userdata) {
        struct manager *m = userdata;
        static bool stuck_logged;
        uint64_t age = manager_write_age_usec(m, now_monotonic_usec());

        if (age < watchdog_usec / 2) {
                sd_notify(false, "WATCHDOG=1");
                stuck_logged = false;
        } else if (!stuck_logged) {
                char t[32];
                log_error("The writer thread has been in one write for %s: no longer pinging the "
                          "watchdog.", format_duration(t, sizeof t, age));
                stuck_logged = true;
        }
        return sd_event_source_set_time(s, usec + watchdog_usec / 4);
}

/* Starts the watchdog timer when systemd asks for one (WATCHDOG_USEC). Returns 0 or -errno. */
static int watchdog_start(struct manager *m, sd_event *e, sd_event_source **ret) {
        uint64_t now;
        int r = sd_watchdog_enabled(false, &watchdog_usec);
        if (r <= 0)
                return r;
        sd_event_now(e, CLOCK_MONOTONIC, &now);
        r = sd_event_add_time(e, ret, CLOCK_MONOTONIC, now, watchdog_usec / 8, on_watchdog, m);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(*ret, SD_EVENT_ON);
}

static int run_loop(struct manager *m, sd_event *e) {
        sd_event_source *timer = NULL, *watchdog = NULL;
        struct bus_server *bus = NULL;
        int r;

        /* NULL handlers make sd-event exit the loop on these signals. */
        if ((r = sd_event_add_signal(e, NULL, SIGTERM, NULL, NULL)) < 0 ||
            (r = sd_event_add_signal(e, NULL, SIGINT, NULL, NULL)) < 0 ||
            (r = sd_event_add_signal(e, NULL, SIGHUP, on_sighup, m)) < 0) {
                log_error_errno(r, "Cannot watch signals: %m");
                goto out;
        }
        r = bus_server_new(m, e, arg_runtime_dir, reload, &bus);
        if (r == -EBUSY || r == -EPERM)
                goto out; /* another daemon's directory, or one others may write: logged */
        if (r < 0)
                log_warning_errno(r, "Cannot serve %s/%s, mglructl will not reach us: %m",
                                  arg_runtime_dir, BUS_SOCKET_NAME);
        r = watchdog_start(m, e, &watchdog);
        if (r < 0)
                log_warning_errno(r, "Cannot enable the watchdog: %m");
        uint64_t now;
        sd_event_now(e, CLOCK_MONOTONIC, &now);
        struct loop loop = { .m = m, .bus = bus };
        r = sd_event_add_time(e, &timer, CLOCK_MONOTONIC, now, USEC_PER_SEC / 10, on_timer, &loop);
        if (r < 0) {
                log_error_errno(r, "Cannot add the cycle timer: %m");
                goto out;
        }
        sd_event_source_set_enabled(timer, SD_EVENT_ON);

        sd_notify(false, "READY=1\nSTATUS=Starting the first cycle");
        r = sd_event_loop(e);
        if (r < 0)
                log_error_errno(r, "Event loop failed: %m");
        sd_notify(false, "STOPPING=1");
        log_info("Exiting.");
out:
        bus_server_free(bus);
        sd_event_source_unref(timer);
        sd_event_source_unref(watchdog);
        return r;
}

/* Raises the soft descriptor limit to the hard one (systemd's units start at 1024 soft): each
 * managed cgroup keeps up to 10 files open. select() is not used, so high fds are fine. */
static void raise_fd_limit(void) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
                return;
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                log_debug_errno(errno, "Cannot raise the descriptor limit: %m");
}

int main(int argc, char **argv) {
        struct manager m;
        int r;

        log_open();
        raise_fd_limit();
#ifdef __GLIBC__
        /* Big buffers (the histogram of thousands of lruvecs, a snapshot of every cgroup for a
         * bus call) are mmapped and given back when freed. By default glibc raises its mmap
         * threshold after the first such free, and the next ones stay on the heap, resident. */
        mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
        r = parse_argv(argc, argv);
        if (r <= 0)
                return r < 0 ? 2 : 0;
        if (arg_log_level >= 0)
                log_set_max_level(arg_log_level);

        if (arg_check_config) {
                struct config c;
                config_init(&c);
                r = config_load(arg_config, arg_dropin, &c, NULL);
                if (r < 0) {
                        config_done(&c);
                        return 1;
                }
                char **files = NULL;
                if (config_list_files(arg_config, arg_dropin, &files) >= 0) {
                        printf("# Files read, in order:\n");
                        for (char **f = files; *f; f++)
                                printf("#   %s\n", *f);
                        if (!files[0])
                                printf("#   (none: built-in defaults)\n");
                        config_files_free(files);
                }
                config_dump(&c, stdout);
                config_done(&c);
                return 0;
        }

        sd_event *e = NULL;
        if (!arg_once) {
                /* Blocked before any thread starts, so the writer thread inherits the mask and
                 * never takes them from the event loop. */
                sigset_t mask;
                sigemptyset(&mask);
                sigaddset(&mask, SIGTERM);
                sigaddset(&mask, SIGINT);
                sigaddset(&mask, SIGHUP);
                sigprocmask(SIG_BLOCK, &mask, NULL);
                r = sd_event_default(&e);
                if (r < 0) {
                        log_error_errno(r, "sd_event_default: %m");
                        return 1;
                }
        }

        manager_init(&m, &arg_overrides, arg_config, arg_dropin);
        /* The daemon reports through the log/journal; --once prints its advice on stdout. */
        manager_set_report(&m, journal_report_sink(NULL));
        r = manager_start(&m, e);
        if (arg_log_level >= 0)
                log_set_max_level(arg_log_level);
        if (r < 0) {
                manager_done(&m);
                sd_event_unref(e);
                return 1;
        }

        /* Both print the cgroups' idle-age profiles. */
        if (arg_once || arg_metrics_file)
                manager_want_idle_profile(&m);
        if (arg_once) {
                /* The first cycle only samples (no rates yet); the second decides and prints. */
                int lvl = log_get_max_level();
                log_set_max_level(MIN(lvl, LOG_NOTICE));
                r = manager_cycle(&m, now_monotonic_usec());
                log_set_max_level(lvl);
                manager_set_report(&m, journal_report_sink(stdout));
                if (r >= 0) {
                        struct timespec ts = { ONCE_SAMPLE_GAP_USEC / USEC_PER_SEC, 0 };
                        nanosleep(&ts, NULL);
                        r = manager_cycle(&m, now_monotonic_usec());
                }
                if (r >= 0 && manager_n_cgroups(&m) == 0)
                        log_notice("No managed cgroups under %s.", manager_cgroup_root(&m));
                /* What the generations the kernel already has say: --once ages nothing, so
                 * the tables say how old that information is. */
                if (r >= 0) {
                        putchar('\n');
                        r = idle_report_print(stdout, &m);
                        if (r < 0)
                                log_error_errno(r, "Cannot print the idle-age profile: %m");
                }
        } else {
                r = run_loop(&m, e);
        }
        manager_done(&m); /* waits for the chunk being written, drops the queue */
        sd_event_unref(e);
        return r < 0 ? 1 : 0;
}
