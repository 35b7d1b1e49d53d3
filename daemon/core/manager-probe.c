/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manager-probe.c: the lru_gen source (lrugen-source.h): the lru_gen files, the histogram read
 * from them once per cycle, and the kernel capabilities probed with them. */
#include "mglrud/core/lrugen-source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"
#include "mglrud/core/actuate.h"

void lrugen_source_init(struct lrugen_source *s) {
        *s = (struct lrugen_source) { .read_fd = -1, .write_fd = -1, .enabled_fd = -1 };
}

void lrugen_source_done(struct lrugen_source *s) {
        closep_reset(&s->read_fd);
        closep_reset(&s->enabled_fd);
        closep_reset(&s->write_fd);
        read_buf_free(&s->buf);
        lrugen_done(&s->lrugen);
        lrugen_source_init(s);
}

const struct lrugen *lrugen_source_histogram(const struct lrugen_source *s) {
        return s->valid ? &s->lrugen : NULL;
}

/* Opens lru_gen for reading (lru_gen_full if possible, for tier counters) and writing. Under
 * Secure Boot lockdown only the read-only lru_gen_full opens: we fall back to memory.reclaim. */
void lrugen_source_open(struct lrugen_source *s, const char *debugfs_root, bool dry_run,
                        struct kernel_caps *caps) {
        closep_reset(&s->read_fd);
        closep_reset(&s->write_fd);
        closep_reset(&s->enabled_fd);
        /* /sys/kernel/debug/../mm/lru_gen/enabled is /sys/kernel/mm/lru_gen/enabled. */
        s->enabled_fd = open_under_root(debugfs_root, "../mm/lru_gen/enabled", O_RDONLY);
        s->readable = caps->lrugen_write = s->full = false;

        int fd = open_under_root(debugfs_root, "lru_gen_full", O_RDONLY);
        if (fd >= 0) {
                s->read_fd = fd;
                s->readable = s->full = true;
        } else {
                fd = open_under_root(debugfs_root, "lru_gen", O_RDONLY);
                if (fd >= 0) {
                        s->read_fd = fd;
                        s->readable = true;
                }
        }
        if (!dry_run) {
                fd = open_under_root(debugfs_root, "lru_gen", O_WRONLY);
                if (fd >= 0) {
                        s->write_fd = fd;
                        caps->lrugen_write = true;
                } else if (fd == -EPERM) {
                        log_notice("%s/lru_gen cannot be opened for writing (kernel lockdown?): "
                                   "falling back to memory.reclaim.", debugfs_root);
                } else {
                        log_notice_errno(fd, "%s/lru_gen is not available (%m): falling back to "
                                             "memory.reclaim.", debugfs_root);
                }
        }
        if (!s->readable)
                log_notice("No multi-gen LRU histogram under %s: cold-memory estimates are "
                           "unavailable, using the PSI-driven memory.reclaim fallback.",
                           debugfs_root);
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
static void learn_lrugen_ids(struct lrugen_source *s, const char *cgroup_root) {
        const struct lrugen *l = &s->lrugen;
        unsigned agree = 0, tries = 0;

        _cleanup_close_ int root = open(cgroup_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
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
                        s->ids = LRUGEN_IDS_PRIVATE;
                        log_debug("lru_gen ids are not cgroup ids (memcg %llu is %s, inode %llu): "
                                  "cgroups are found by path.", (unsigned long long) v->memcg_id,
                                  path, (unsigned long long) st.st_ino);
                        return;
                }
                if (++agree >= LRUGEN_IDS_AGREE) {
                        s->ids = LRUGEN_IDS_CGROUP;
                        log_debug("lru_gen ids are cgroup ids: the histogram's paths are not kept.");
                        return;
                }
        }
}

/* Returns whether MGLRU is on (/sys/kernel/mm/lru_gen/enabled & 1), read each cycle: an
 * administrator can switch it off at run time, and then the generations empty into the classic
 * LRU and lru_gen commands find nothing. Unknown (no such file): on. */
static bool lrugen_enabled(const struct lrugen_source *s) {
        char buf[32];
        if (s->enabled_fd < 0)
                return true;
        ssize_t n = pread(s->enabled_fd, buf, sizeof buf - 1, 0);
        if (n <= 0)
                return true;
        buf[n] = '\0';
        return strtoul(buf, NULL, 0) & 1;
}

/* Reads this cycle's lru_gen(_full) into s->lrugen; s->valid says whether it worked. */
static void read_lrugen(struct lrugen_source *s, const char *debugfs_root) {
        s->valid = false;
        if (s->read_fd < 0)
                return;
        bool enabled = lrugen_enabled(s);
        if (enabled != !s->off) {
                s->off = !enabled;
                if (s->off)
                        log_notice("MGLRU was switched off (%s/../mm/lru_gen/enabled): using the "
                                   "memory.reclaim fallback until it is on again.", debugfs_root);
                else
                        log_notice("MGLRU is on again: back to the lru_gen histogram.");
        }
        if (s->off)
                return;
        int r = lrugen_read(s->read_fd, &s->buf,
                            s->ids == LRUGEN_IDS_CGROUP ? LRUGEN_READ_NO_PATHS : 0, &s->lrugen);
        struct file_trouble *t = &s->trouble;
        const char *name = s->full ? "lru_gen_full" : "lru_gen";
        unsigned line = s->lrugen.n_bad > 0 ? s->lrugen.first_bad_line : 0;

        /* Said when the trouble starts or its first bad line moves, not every cycle. */
        if (r < 0 || s->lrugen.n_bad > 0) {
                if (!t->active || t->error != r || t->line != line) {
                        if (r < 0 && line == 0)
                                log_warning_errno(r, "Cannot read %s/%s (%zu bytes): %m", debugfs_root,
                                                  name, s->buf.len);
                        else if (r < 0)
                                log_warning("%s/%s, line %u: malformed, and no record is usable: "
                                            "no histogram this cycle.", debugfs_root, name, line);
                        else
                                log_warning("%s/%s, line %u: malformed memcg record (%u in all): "
                                            "those memcgs get no histogram this cycle, the others do.",
                                            debugfs_root, name, line, s->lrugen.n_bad);
                }
                *t = (struct file_trouble) { .active = true, .error = r, .line = line };
        } else if (t->active) {
                log_notice("%s/%s reads again.", debugfs_root, name);
                t->active = false;
        }
        s->valid = r >= 0;
}

void lrugen_source_read(struct lrugen_source *s, const char *debugfs_root,
                        const char *cgroup_root) {
        read_lrugen(s, debugfs_root);
        /* Learnt in the cycles, not in lrugen_source_probe_caps(): then the log level is the
         * one asked for, and the tree has been walked. */
        if (s->valid && s->ids == LRUGEN_IDS_UNKNOWN)
                learn_lrugen_ids(s, cgroup_root);
}

/* Reads what the kernel supports. In dry-run nothing is written, so write probes are replaced
 * by inference from the lru_gen id format (64-bit cgroup ids arrived after "max" support). */
void lrugen_source_probe_caps(struct lrugen_source *s, const char *debugfs_root,
                              const char *cgroup_root, bool dry_run, struct kernel_caps *k) {
        long page_size = sysconf(_SC_PAGESIZE);

        /* lru_gen counts pages of this size, and memory.reclaim rounds to it: 4 KiB on x86,
         * 4, 16 or 64 KiB on arm64. */
        k->page_size = page_size > 0 ? (uint64_t) page_size : 4096;

        bool new_ids = false;
        read_lrugen(s, debugfs_root);
        if (s->valid)
                new_ids = s->lrugen.format == LRUGEN_FORMAT_V7 || s->lrugen.n_lruvecs == 0 ||
                          s->lrugen.lruvecs[s->lrugen.n_lruvecs - 1].memcg_id > 65535;

        if (dry_run) {
                k->reclaim_swappiness = true;
                k->swappiness_max = new_ids;
                return;
        }

        _cleanup_close_ int fd = open(cgroup_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
