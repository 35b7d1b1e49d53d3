/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-probe.c: what the kernel offers the manager: the lru_gen files, the host files
 * (/proc/pressure/memory, /proc/meminfo, /proc/swaps) and the capabilities probed from them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manager-probe.h"
#include "mglrud/shared/fileio.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/kernel/memcg.h"
#include "mglrud/kernel/swaps.h"
#include "mglrud/core/actuate.h"

/* Returns a new fd for root/rel, or a negative errno. */
static int open_at_root(const char *root, const char *rel, int flags) {
        _cleanup_free_ char *p = NULL;
        if (asprintf(&p, "%s/%s", root, rel) < 0)
                return -ENOMEM;
        int fd = open(p, flags | O_CLOEXEC);
        return fd < 0 ? negative_errno() : fd;
}

/* Refreshes caps.swap_compressed from /proc/swaps (swapon/swapoff can change it any time). A
 * read or parse failure leaves the last value. */
void manager_read_swaps(struct manager *m) {
        struct swaps_summary s;
        int r;

        if (m->swaps_fd < 0)
                return;
        r = swaps_read(m->swaps_fd, &s, NULL);
        if (r < 0) {
                log_debug_errno(r, "%s/swaps: %m", m->proc_root);
                return;
        }
        m->caps.kernel.swap_compressed = swaps_all_compressed(&s);
}

/* Opens lru_gen for reading (lru_gen_full if possible, for tier counters) and writing. Under
 * Secure Boot lockdown only the read-only lru_gen_full opens: we fall back to memory.reclaim. */
void manager_open_lrugen(struct manager *m) {
        closep_reset(&m->lrugen_read_fd);
        closep_reset(&m->lrugen_write_fd);
        closep_reset(&m->lrugen_enabled_fd);
        /* /sys/kernel/debug/../mm/lru_gen/enabled is /sys/kernel/mm/lru_gen/enabled. */
        m->lrugen_enabled_fd = open_at_root(m->debugfs_root, "../mm/lru_gen/enabled", O_RDONLY);
        m->caps.lrugen_read = m->caps.kernel.lrugen_write = m->caps.lrugen_full = false;

        int fd = open_at_root(m->debugfs_root, "lru_gen_full", O_RDONLY);
        if (fd >= 0) {
                m->lrugen_read_fd = fd;
                m->caps.lrugen_read = m->caps.lrugen_full = true;
        } else {
                fd = open_at_root(m->debugfs_root, "lru_gen", O_RDONLY);
                if (fd >= 0) {
                        m->lrugen_read_fd = fd;
                        m->caps.lrugen_read = true;
                }
        }
        if (!m->dry_run) {
                fd = open_at_root(m->debugfs_root, "lru_gen", O_WRONLY);
                if (fd >= 0) {
                        m->lrugen_write_fd = fd;
                        m->caps.kernel.lrugen_write = true;
                } else if (fd == -EPERM) {
                        log_notice("%s/lru_gen cannot be opened for writing (kernel lockdown?): "
                                   "falling back to memory.reclaim.", m->debugfs_root);
                } else {
                        log_notice_errno(fd, "%s/lru_gen is not available (%m): falling back to "
                                             "memory.reclaim.", m->debugfs_root);
                }
        }
        if (!m->caps.lrugen_read)
                log_notice("No multi-gen LRU histogram under %s: cold-memory estimates are "
                           "unavailable, using the PSI-driven memory.reclaim fallback.",
                           m->debugfs_root);
}

/* How many memcgs must show their cgroup directory's inode as id, with none showing another,
 * before lru_gen's ids are taken for cgroup ids: a 6.x private id (1..65535) can equal its
 * directory's inode by chance, not several. */
#define LRUGEN_IDS_AGREE 3
/* At most this many memcgs are looked at per histogram while the answer is unknown. */
#define LRUGEN_IDS_TRIES 16

/* Learns from the histogram just read, with its paths, what lru_gen's ids are: on 7.x a memcg's
 * id is its cgroup id, the inode of its directory (docs/design.md, "Kernel interfaces"); 6.x
 * prints a private id. Memcgs whose path does not resolve under the cgroup root (gone since, or
 * outside the daemon's view) say nothing; with fewer than LRUGEN_IDS_AGREE that resolve, the
 * next histogram is asked. Once they are known to be cgroup ids, the histograms are read
 * without paths (LRUGEN_READ_NO_PATHS: a path less in the heap per memcg). */
static void learn_lrugen_ids(struct manager *m) {
        const struct lrugen *l = &m->lrugen;
        unsigned agree = 0, tries = 0;

        _cleanup_close_ int root = open(m->cgroup_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                return;
        for (size_t i = 0; i < l->n_lruvecs && tries < LRUGEN_IDS_TRIES; i++) {
                const struct lrugen_lruvec *v = &l->lruvecs[i];
                const char *path = lrugen_path(l, v);
                struct stat st;

                if (i > 0 && l->lruvecs[i - 1].memcg_id == v->memcg_id)
                        continue; /* the same memcg on another node */
                if (path[0] != '/' || path[1] == '\0')
                        continue; /* the root: its id is 1 either way */
                tries++;
                if (fstatat(root, path + 1, &st, 0) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                if (st.st_ino != v->memcg_id) {
                        m->lrugen_ids = LRUGEN_IDS_PRIVATE;
                        log_debug("lru_gen ids are not cgroup ids (memcg %llu is %s, inode %llu): "
                                  "cgroups are found by path.", (unsigned long long) v->memcg_id,
                                  path, (unsigned long long) st.st_ino);
                        return;
                }
                if (++agree >= LRUGEN_IDS_AGREE) {
                        m->lrugen_ids = LRUGEN_IDS_CGROUP;
                        log_debug("lru_gen ids are cgroup ids: the histogram's paths are not kept.");
                        return;
                }
        }
}

/* Returns whether MGLRU is on (/sys/kernel/mm/lru_gen/enabled & 1), read each cycle: an
 * administrator can switch it off at run time, and then the generations empty into the classic
 * LRU and lru_gen commands find nothing. Unknown (no such file): on. */
static bool lrugen_enabled(struct manager *m) {
        char buf[32];
        if (m->lrugen_enabled_fd < 0)
                return true;
        ssize_t n = pread(m->lrugen_enabled_fd, buf, sizeof buf - 1, 0);
        if (n <= 0)
                return true;
        buf[n] = '\0';
        return strtoul(buf, NULL, 0) & 1;
}

/* Reads this cycle's lru_gen(_full) into m->lrugen; m->lrugen_valid says whether it worked. */
static void read_lrugen(struct manager *m) {
        m->lrugen_valid = false;
        if (m->lrugen_read_fd < 0)
                return;
        bool enabled = lrugen_enabled(m);
        if (enabled != !m->lrugen_off) {
                m->lrugen_off = !enabled;
                if (m->lrugen_off)
                        log_notice("MGLRU was switched off (%s/../mm/lru_gen/enabled): using the "
                                   "memory.reclaim fallback until it is on again.", m->debugfs_root);
                else
                        log_notice("MGLRU is on again: back to the lru_gen histogram.");
        }
        if (m->lrugen_off)
                return;
        int r = lrugen_read(m->lrugen_read_fd, &m->lrugen_buf,
                            m->lrugen_ids == LRUGEN_IDS_CGROUP ? LRUGEN_READ_NO_PATHS : 0,
                            &m->lrugen);
        struct file_trouble *t = &m->lrugen_trouble;
        const char *name = m->caps.lrugen_full ? "lru_gen_full" : "lru_gen";
        unsigned line = m->lrugen.n_bad > 0 ? m->lrugen.first_bad_line : 0;

        /* Said when the trouble starts or its first bad line moves, not every cycle. */
        if (r < 0 || m->lrugen.n_bad > 0) {
                if (!t->active || t->error != r || t->line != line) {
                        if (r < 0 && line == 0)
                                log_warning_errno(r, "Cannot read %s/%s (%zu bytes): %m", m->debugfs_root,
                                                  name, m->lrugen_buf.len);
                        else if (r < 0)
                                log_warning("%s/%s, line %u: malformed, and no record is usable: "
                                            "no histogram this cycle.", m->debugfs_root, name, line);
                        else
                                log_warning("%s/%s, line %u: malformed memcg record (%u in all): "
                                            "those memcgs get no histogram this cycle, the others do.",
                                            m->debugfs_root, name, line, m->lrugen.n_bad);
                }
                *t = (struct file_trouble) { .active = true, .error = r, .line = line };
        } else if (t->active) {
                log_notice("%s/%s reads again.", m->debugfs_root, name);
                t->active = false;
        }
        m->lrugen_valid = r >= 0;
}

void manager_read_lrugen(struct manager *m) {
        read_lrugen(m);
        /* Learnt in the cycles, not in manager_probe(): then the log level is the one asked
         * for, and the tree has been walked. */
        if (m->lrugen_valid && m->lrugen_ids == LRUGEN_IDS_UNKNOWN)
                learn_lrugen_ids(m);
}

/* Reads what the kernel supports. In dry-run nothing is written, so write probes are replaced
 * by inference from the lru_gen id format (64-bit cgroup ids arrived after "max" support). */
void manager_probe(struct manager *m) {
        struct kernel_caps *k = &m->caps.kernel;
        long page_size = sysconf(_SC_PAGESIZE);

        /* lru_gen counts pages of this size, and memory.reclaim rounds to it: 4 KiB on x86,
         * 4, 16 or 64 KiB on arm64. */
        k->page_size = page_size > 0 ? (uint64_t) page_size : 4096;
        if (m->meminfo_fd >= 0) {
                struct meminfo mi;
                if (meminfo_read(m->meminfo_fd, &mi, NULL) >= 0)
                        k->has_swap = mi.swap_total > 0;
        }
        manager_read_swaps(m);

        bool new_ids = false;
        read_lrugen(m);
        if (m->lrugen_valid)
                new_ids = m->lrugen.format == LRUGEN_FORMAT_V7 || m->lrugen.n_lruvecs == 0 ||
                          m->lrugen.lruvecs[m->lrugen.n_lruvecs - 1].memcg_id > 65535;

        if (m->dry_run) {
                k->reclaim_swappiness = true;
                k->swappiness_max = new_ids;
                return;
        }

        _cleanup_close_ int fd = open(m->cgroup_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int r = fd >= 0 ? actuate_reclaim_probe(fd, 60) : negative_errno();
        if (r == -ENOENT || r == -EACCES || r == -EPERM || r == -EROFS) {
                /* No memory.reclaim we may write to: "max" is inferred as in dry-run. */
                k->reclaim_swappiness = false;
                k->swappiness_max = new_ids;
                return;
        }
        k->reclaim_swappiness = r >= 0;
        k->swappiness_max = k->reclaim_swappiness &&
                            actuate_reclaim_probe(fd, SWAPPINESS_ANON_ONLY) >= 0;
}

int manager_open_host(struct manager *m) {
        closep_reset(&m->host_psi_fd);
        closep_reset(&m->meminfo_fd);
        closep_reset(&m->swaps_fd);
        /* Optional: without it, Swappiness=auto takes zram swap-ins for disk reads. */
        m->swaps_fd = open_at_root(m->proc_root, "swaps", O_RDONLY);
        if (m->swaps_fd < 0 && m->swaps_fd != -ENOENT)
                log_notice_errno(m->swaps_fd, "%s/swaps: %m; zram is not told from disk swap.",
                                 m->proc_root);
        m->host_psi_fd = open_at_root(m->proc_root, "pressure/memory", O_RDONLY);
        if (m->host_psi_fd < 0)
                log_notice_errno(m->host_psi_fd, "%s/pressure/memory: %m; the host pressure guard "
                                                 "only watches MemAvailable.", m->proc_root);
        m->meminfo_fd = open_at_root(m->proc_root, "meminfo", O_RDONLY);
        if (m->meminfo_fd < 0)
                return log_error_errno(m->meminfo_fd, "%s/meminfo: %m", m->proc_root);
        return 0;
}
