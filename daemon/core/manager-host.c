/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-host.c: the host's files and the host sample read from them once per cycle, and the
 * host's idle-age profile (host-reader.h). */
#include "mglrud/core/host-reader.h"

#include <errno.h>
#include <fcntl.h>

#include "mglrud/kernel/memcg.h"
#include "mglrud/kernel/psi.h"
#include "mglrud/kernel/swaps.h"
#include "mglrud/shared/fileio.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"

void host_reader_init(struct host_reader *h) {
        *h = (struct host_reader) { .psi_fd = -1, .meminfo_fd = -1, .swaps_fd = -1 };
}

void host_reader_done(struct host_reader *h) {
        closep_reset(&h->psi_fd);
        closep_reset(&h->meminfo_fd);
        closep_reset(&h->swaps_fd);
        host_reader_init(h);
}

int host_reader_open(struct host_reader *h, const char *proc_root) {
        closep_reset(&h->psi_fd);
        closep_reset(&h->meminfo_fd);
        closep_reset(&h->swaps_fd);
        /* Optional: without it, Swappiness=auto takes zram swap-ins for disk reads. */
        h->swaps_fd = open_under_root(proc_root, "swaps", O_RDONLY);
        if (h->swaps_fd < 0 && h->swaps_fd != -ENOENT)
                log_notice_errno(h->swaps_fd, "%s/swaps: %m; zram is not told from disk swap.",
                                 proc_root);
        h->psi_fd = open_under_root(proc_root, "pressure/memory", O_RDONLY);
        if (h->psi_fd < 0)
                log_notice_errno(h->psi_fd, "%s/pressure/memory: %m; the host pressure guard "
                                            "only watches MemAvailable.", proc_root);
        h->meminfo_fd = open_under_root(proc_root, "meminfo", O_RDONLY);
        if (h->meminfo_fd < 0)
                return log_error_errno(h->meminfo_fd, "%s/meminfo: %m", proc_root);
        return 0;
}

/* Refreshes caps.swap_compressed from /proc/swaps (swapon/swapoff can change it any time). A
 * read or parse failure leaves the last value. */
void host_reader_read_swaps(struct host_reader *h, const char *proc_root,
                            struct kernel_caps *caps) {
        struct swaps_summary s;
        int r;

        if (h->swaps_fd < 0)
                return;
        r = swaps_read(h->swaps_fd, &s, NULL);
        if (r < 0) {
                log_debug_errno(r, "%s/swaps: %m", proc_root);
                return;
        }
        caps->swap_compressed = swaps_all_compressed(&s);
}

void host_reader_probe(struct host_reader *h, const char *proc_root, struct kernel_caps *caps) {
        if (h->meminfo_fd >= 0) {
                struct meminfo mi;
                if (meminfo_read(h->meminfo_fd, &mi, NULL) >= 0)
                        caps->has_swap = mi.swap_total > 0;
        }
        host_reader_read_swaps(h, proc_root, caps);
}

/* Says once that a host file cannot be read or parsed (with its line), and once that it can
 * again: a broken file must be heard of, but not every cycle. */
static void note_host_file(const char *proc_root, struct file_trouble *t, const char *rel, int r,
                           unsigned line, const char *consequence) {
        if (r >= 0) {
                if (t->active)
                        log_notice("%s/%s reads again.", proc_root, rel);
                t->active = false;
                return;
        }
        if (t->active && t->error == r && t->line == line)
                return;
        *t = (struct file_trouble) { .active = true, .error = r, .line = line };
        if (line > 0)
                log_warning_errno(r, "%s/%s, line %u: %m; %s", proc_root, rel, line, consequence);
        else
                log_warning_errno(r, "%s/%s: %m; %s", proc_root, rel, consequence);
}

void host_reader_read(struct host_reader *h, const char *proc_root, uint64_t now_usec,
                      bool has_prev, struct kernel_caps *caps) {
        struct host_sample s = { .now_usec = now_usec };
        unsigned line = 0;
        int r;

        if (h->psi_fd >= 0) {
                r = psi_read(h->psi_fd, &s.psi, &line);
                s.has_psi = r >= 0;
                note_host_file(proc_root, &h->psi_trouble, "pressure/memory", r, line,
                               "the host pressure guard only watches MemAvailable meanwhile.");
        }
        if (h->meminfo_fd >= 0) {
                line = 0;
                r = meminfo_read(h->meminfo_fd, &s.meminfo, &line);
                if (r >= 0)
                        caps->has_swap = s.meminfo.swap_total > 0;
                note_host_file(proc_root, &h->meminfo_trouble, "meminfo", r, line,
                               "MemAvailable reads as 0 meanwhile, which pauses reclaim.");
        }
        h->prev = h->cur;
        h->has_prev = has_prev;
        h->cur = s;
}

void host_reader_update_idle(struct host_reader *h, const struct lrugen *l, uint64_t page_size,
                             uint64_t now_usec) {
        struct host_idle *idle = &h->idle;
        const struct meminfo *mi = &h->cur.meminfo;

        idle->read_usec = now_usec;
        idle->has_lists = mi->has_lru;
        idle->active[LRUGEN_ANON] = mi->active_anon;
        idle->active[LRUGEN_FILE] = mi->active_file;
        idle->inactive[LRUGEN_ANON] = mi->inactive_anon;
        idle->inactive[LRUGEN_FILE] = mi->inactive_file;
        idle->has_profile = l &&
                            idle_profile_compute(l->lruvecs, l->n_lruvecs, NULL, now_usec,
                                                 page_size, idle_ladder_default_usec,
                                                 IDLE_LADDER_DEFAULT_N, &idle->profile) >= 0;
}
