/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkscale-tree: a cgroup/debugfs/proc fixture tree of N managed cgroups made from the real 7.3
 * captures (tests/fixtures/kernel-7.3), for the scale benchmark and the churn tests. Built on the
 * host and inside the test VM (no Python there).
 *
 *   mkscale-tree --capture DIR --out DIR --cgroups N [--per-group 100] [--seed 1]
 *   mkscale-tree --capture DIR --out DIR --churn K [--to N]
 *
 * Layout (OUT/cgroup is the cgroup root):
 *   /scale.slice/gNNN.slice/cNNNNNN.scope   the leaves (managed by OUT/mglrud.conf), per-group
 *                                           in each group; each has the nine memory files the
 *                                           daemon keeps open, from the captures of cgroup-a-b
 *                                           and cgroup-b in turn, memory.stat and
 *                                           memory.current scaled by a per-leaf factor in
 *                                           [0.5, 2) so the numbers differ as real ones do
 *   /scale.slice, /scale.slice/gNNN.slice   unmanaged parents (memory.stat, memory.pressure)
 * OUT/debugfs/lru_gen_full and lru_gen have one record per cgroup, in the 7.x form: the id is
 * the directory's inode (what the 7.3 kernel prints), the body the captured record of the
 * template's cgroup, verbatim (about 2 KiB per memcg in lru_gen_full). OUT/proc has the captured
 * meminfo, pressure/memory and swaps. --churn K removes the K oldest leaves, adds K new ones
 * (new names, so new inodes; with --to N, as many as it takes to have N) and rewrites both lru_gen
 * files in place (a running daemon keeps reading the file it opened). Exit status 0, 1 on errors, 2 on usage. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_RECORDS 8
static const char *const leaf_files[] = {
        "memory.stat", "memory.pressure", "memory.current", "memory.min", "memory.low",
        "memory.high", "memory.max", "memory.swap.current", "memory.swap.max",
};
#define N_LEAF_FILES (sizeof leaf_files / sizeof leaf_files[0])

struct text {
        char *data;
        size_t len, cap;
};

/* The captured records, by path: the bodies after "memcg ID PATH\n". */
struct records {
        char *path[MAX_RECORDS];
        char *body[MAX_RECORDS];
        size_t n;
};

static const char *capture, *out;
static struct records full, brief;
static char *leaf_text[2][N_LEAF_FILES]; /* [template][file] */
static char *root_stat, *root_pressure;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die(const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "mkscale-tree: ");
        vfprintf(stderr, fmt, ap);
        if (errno)
                fprintf(stderr, ": %s", strerror(errno));
        fputc('\n', stderr);
        va_end(ap);
        exit(1);
}

static char *read_file(const char *dir, const char *name) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, name);
        FILE *f = fopen(p, "re");
        if (!f)
                die("%s", p);
        struct text t = {};
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
                if (t.len + n + 1 > t.cap) {
                        t.cap = (t.len + n + 1) * 2;
                        if (!(t.data = realloc(t.data, t.cap)))
                                die("realloc");
                }
                memcpy(t.data + t.len, buf, n);
                t.len += n;
        }
        fclose(f);
        if (!t.data && !(t.data = calloc(1, 1)))
                die("calloc");
        t.data[t.len] = 0;
        return t.data;
}

static void text_add(struct text *t, const char *s, size_t n) {
        if (t->len + n + 1 > t->cap) {
                t->cap = (t->len + n + 1) * 2;
                if (!(t->data = realloc(t->data, t->cap)))
                        die("realloc");
        }
        memcpy(t->data + t->len, s, n);
        t->len += n;
        t->data[t->len] = 0;
}

/* Splits a captured lru_gen text into its records: path and body (the lines after the memcg
 * line). The text is modified in place. */
static void split_records(char *text, struct records *r) {
        char *starts[MAX_RECORDS + 1];
        size_t n = 0;
        for (char *p = text; p && *p;) {
                if (strncmp(p, "memcg ", 6) == 0) {
                        if (n == MAX_RECORDS) {
                                errno = 0;
                                die("too many records in the capture");
                        }
                        starts[n++] = p;
                }
                char *nl = strchr(p, '\n');
                p = nl ? nl + 1 : NULL;
        }
        for (size_t i = 0; i < n; i++) {
                char *nl = strchr(starts[i], '\n');
                char *id = starts[i] + 6 + strspn(starts[i] + 6, " ");
                char *sp = strchr(id, ' ');
                if (!nl || !sp || sp > nl) {
                        errno = 0;
                        die("bad memcg line in the capture");
                }
                r->path[i] = strndup(sp + 1, (size_t) (nl - sp - 1));
                r->body[i] = nl + 1;
        }
        for (size_t i = 0; i + 1 < n; i++)
                starts[i + 1][0] = 0; /* ends body i */
        r->n = n;
}

static const char *record(const struct records *r, const char *path) {
        for (size_t i = 0; i < r->n; i++)
                if (strcmp(r->path[i], path) == 0)
                        return r->body[i];
        errno = 0;
        die("no record of %s in the capture", path);
        return NULL;
}

static void load_templates(void) {
        split_records(read_file(capture, "lru_gen_full"), &full);
        split_records(read_file(capture, "lru_gen"), &brief);
        static const char *const dirs[2] = { "cgroup-a-b", "cgroup-b" };
        for (int t = 0; t < 2; t++)
                for (size_t i = 0; i < N_LEAF_FILES; i++) {
                        char d[4096];
                        snprintf(d, sizeof d, "%s/%s", capture, dirs[t]);
                        leaf_text[t][i] = read_file(d, leaf_files[i]);
                }
        char d[4096];
        snprintf(d, sizeof d, "%s/cgroup-root", capture);
        root_stat = read_file(d, "memory.stat");
        root_pressure = read_file(d, "memory.pressure");
}

static void write_file(const char *dir, const char *name, const char *text) {
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", dir, name);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        size_t len = strlen(text);
        if (fd < 0 || write(fd, text, len) != (ssize_t) len || close(fd) < 0)
                die("%s", p);
}

/* A deterministic factor in [0.5, 2) per leaf. */
static double leaf_factor(unsigned long leaf, unsigned long seed) {
        uint64_t x = (leaf + 1) * UINT64_C(0x9E3779B97F4A7C15) ^ seed;
        x ^= x >> 31;
        x *= UINT64_C(0xBF58476D1CE4E5B9);
        x ^= x >> 29;
        return 0.5 + 1.5 * (double) (x >> 11) / (double) (UINT64_C(1) << 53);
}

static void add_parent(const char *dir) {
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                die("mkdir %s", dir);
        write_file(dir, "memory.stat", leaf_text[1][0]);
        write_file(dir, "memory.pressure", leaf_text[1][1]);
}

static void add_leaf(unsigned long leaf, unsigned long per_group, unsigned long seed) {
        char dir[4096];
        int t = (int) (leaf % 2);
        double k = leaf_factor(leaf, seed);
        snprintf(dir, sizeof dir, "%s/cgroup/scale.slice/g%03lu.slice", out, leaf / per_group);
        add_parent(dir);
        snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/c%06lu.scope", leaf);
        if (mkdir(dir, 0755) < 0)
                die("mkdir %s", dir);
        for (size_t i = 0; i < N_LEAF_FILES; i++) {
                const char *text = leaf_text[t][i];
                struct text scaled = {};
                if (strcmp(leaf_files[i], "memory.stat") == 0) {
                        for (const char *p = text; *p;) {
                                const char *nl = strchr(p, '\n');
                                char key[128], line[256];
                                unsigned long long v;
                                if (sscanf(p, "%127s %llu", key, &v) != 2) {
                                        errno = 0;
                                        die("bad memory.stat line in the capture");
                                }
                                if (strcmp(key, "percpu") != 0)
                                        v = (unsigned long long) ((double) v * k);
                                int n = snprintf(line, sizeof line, "%s %llu\n", key, v);
                                text_add(&scaled, line, (size_t) n);
                                p = nl ? nl + 1 : p + strlen(p);
                        }
                        text = scaled.data;
                } else if (strcmp(leaf_files[i], "memory.current") == 0) {
                        char line[64];
                        snprintf(line, sizeof line, "%llu\n",
                                 (unsigned long long) ((double) strtoull(text, NULL, 10) * k));
                        text_add(&scaled, line, strlen(line));
                        text = scaled.data;
                }
                write_file(dir, leaf_files[i], text);
                free(scaled.data);
        }
}

/* Adds the record of the cgroup at rel (cgroup path) to both texts, if its directory exists. */
static void add_record(struct text *tf, struct text *tb, const char *rel, const char *template) {
        char p[8192], head[8192];
        struct stat st;
        snprintf(p, sizeof p, "%s/cgroup%s", out, strcmp(rel, "/") == 0 ? "" : rel);
        if (stat(p, &st) < 0)
                return; /* removed meanwhile */
        int n = snprintf(head, sizeof head, "memcg %llu %s\n", (unsigned long long) st.st_ino, rel);
        text_add(tf, head, (size_t) n);
        text_add(tf, record(&full, template), strlen(record(&full, template)));
        text_add(tb, head, (size_t) n);
        text_add(tb, record(&brief, template), strlen(record(&brief, template)));
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Returns the sorted names of the entries of dir that start with prefix; *ret_n their count. */
static char **list_dir(const char *dir, const char *prefix, size_t *ret_n) {
        DIR *d = opendir(dir);
        char **v = NULL;
        size_t n = 0;
        if (!d) {
                *ret_n = 0;
                return NULL;
        }
        struct dirent *de;
        while ((de = readdir(d)))
                if (strncmp(de->d_name, prefix, strlen(prefix)) == 0) {
                        if (!(v = realloc(v, (n + 1) * sizeof *v)) || !(v[n++] = strdup(de->d_name)))
                                die("realloc");
                }
        closedir(d);
        if (n)
                qsort(v, n, sizeof *v, cmp_str);
        *ret_n = n;
        return v;
}

/* Rewrites name in place (no truncation first: the file shrinks after the new text is in). */
static void rewrite_in_place(const char *name, const struct text *t) {
        char p[8192];
        snprintf(p, sizeof p, "%s/debugfs/%s", out, name);
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0 || pwrite(fd, t->data, t->len, 0) != (ssize_t) t->len ||
            ftruncate(fd, (off_t) t->len) < 0 || close(fd) < 0)
                die("%s", p);
}

/* Writes lru_gen_full and lru_gen for the tree as it is now, in walk order (root, parents,
 * leaves), like the kernel's: leaves alternate the two captured leaf records. */
static void write_lrugen(void) {
        struct text tf = {}, tb = {};
        char dir[8192];
        size_t ng;

        add_record(&tf, &tb, "/", "/");
        add_record(&tf, &tb, "/scale.slice", "/work load.slice");
        snprintf(dir, sizeof dir, "%s/cgroup/scale.slice", out);
        char **groups = list_dir(dir, "g", &ng);
        for (size_t g = 0; g < ng; g++) {
                char rel[4096], gdir[8192];
                size_t nl;
                snprintf(rel, sizeof rel, "/scale.slice/%s", groups[g]);
                add_record(&tf, &tb, rel, "/work load.slice");
                snprintf(gdir, sizeof gdir, "%s/%s", dir, groups[g]);
                char **leaves = list_dir(gdir, "c", &nl);
                for (size_t i = 0; i < nl; i++) {
                        char lrel[8192];
                        unsigned long leaf = strtoul(leaves[i] + 1, NULL, 10);
                        snprintf(lrel, sizeof lrel, "%s/%s", rel, leaves[i]);
                        add_record(&tf, &tb, lrel, leaf % 2 ? "/work load.slice/b" : "/work load.slice/a b");
                        free(leaves[i]);
                }
                free(leaves);
                free(groups[g]);
        }
        free(groups);
        snprintf(dir, sizeof dir, "%s/debugfs", out);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                die("mkdir %s", dir);
        rewrite_in_place("lru_gen_full", &tf);
        rewrite_in_place("lru_gen", &tb);
        free(tf.data);
        free(tb.data);
}

static unsigned long read_counter(const char *name, unsigned long dflt) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", out, name);
        FILE *f = fopen(p, "re");
        unsigned long v = dflt;
        if (f) {
                if (fscanf(f, "%lu", &v) != 1)
                        v = dflt;
                fclose(f);
        }
        return v;
}

static void write_counter(const char *name, unsigned long v) {
        char text[32];
        snprintf(text, sizeof text, "%lu\n", v);
        write_file(out, name, text);
}

static void remove_leaf(const char *dir) {
        for (size_t i = 0; i < N_LEAF_FILES; i++) {
                char p[8192];
                snprintf(p, sizeof p, "%s/%s", dir, leaf_files[i]);
                unlink(p);
        }
        char p[8192];
        snprintf(p, sizeof p, "%s/memory.reclaim", dir); /* made by tests that write */
        unlink(p);
        if (rmdir(dir) < 0)
                die("rmdir %s", dir);
}

/* Removes the k oldest leaves (lowest numbers) and adds new ones: as many (to < 0) or until there
 * are to. */
static void churn(unsigned long k, long to) {
        unsigned long per_group = read_counter(".per-group", 100), next = read_counter(".next-leaf", 0);
        unsigned long seed = read_counter(".seed", 1);
        char dir[8192];
        size_t ng, removed = 0;
        snprintf(dir, sizeof dir, "%s/cgroup/scale.slice", out);
        char **groups = list_dir(dir, "g", &ng);
        /* The oldest leaves: gather every leaf number, sorted. */
        unsigned long *nums = NULL;
        size_t n = 0;
        for (size_t g = 0; g < ng; g++) {
                char gdir[8192];
                size_t nl;
                snprintf(gdir, sizeof gdir, "%s/%s", dir, groups[g]);
                char **leaves = list_dir(gdir, "c", &nl);
                for (size_t i = 0; i < nl; i++) {
                        if (!(nums = realloc(nums, (n + 1) * sizeof *nums)))
                                die("realloc");
                        nums[n++] = strtoul(leaves[i] + 1, NULL, 10);
                        free(leaves[i]);
                }
                free(leaves);
                free(groups[g]);
        }
        free(groups);
        for (size_t i = 1; i < n; i++) /* insertion sort: the list is nearly sorted */
                for (size_t j = i; j > 0 && nums[j - 1] > nums[j]; j--) {
                        unsigned long t = nums[j];
                        nums[j] = nums[j - 1];
                        nums[j - 1] = t;
                }
        for (size_t i = 0; i < n && removed < k; i++, removed++) {
                char leaf[8192];
                snprintf(leaf, sizeof leaf, "%s/g%03lu.slice/c%06lu.scope", dir, nums[i] / per_group, nums[i]);
                remove_leaf(leaf);
        }
        free(nums);
        size_t left = n - removed;
        unsigned long add = to < 0 ? removed : (size_t) to > left ? (size_t) to - left : 0;
        for (unsigned long i = 0; i < add; i++)
                add_leaf(next++, per_group, seed);
        write_counter(".next-leaf", next);
        write_lrugen();
}

static void build(unsigned long n, unsigned long per_group, unsigned long seed) {
        char dir[8192];
        snprintf(dir, sizeof dir, "%s/cgroup", out);
        if (mkdir(out, 0755) < 0 && errno != EEXIST)
                die("mkdir %s", out);
        if (mkdir(dir, 0755) < 0)
                die("mkdir %s (the tree must not exist)", dir);
        write_file(dir, "memory.stat", root_stat);
        write_file(dir, "memory.pressure", root_pressure);
        snprintf(dir, sizeof dir, "%s/cgroup/scale.slice", out);
        add_parent(dir);
        for (unsigned long i = 0; i < n; i++)
                add_leaf(i, per_group, seed);
        write_counter(".next-leaf", n);
        write_counter(".per-group", per_group);
        write_counter(".seed", seed);
        write_lrugen();
        snprintf(dir, sizeof dir, "%s/proc", out);
        mkdir(dir, 0755);
        write_file(dir, "meminfo", read_file(capture, "meminfo"));
        write_file(dir, "swaps", read_file(capture, "swaps"));
        snprintf(dir, sizeof dir, "%s/proc/pressure", out);
        mkdir(dir, 0755);
        write_file(dir, "memory", read_file(capture, "proc-pressure-memory"));
        write_file(out, "mglrud.conf",
                   "# Scale benchmark: every leaf managed, defaults otherwise (tests/bench/mkscale-tree).\n"
                   "[Daemon]\nInterval=1s\n\n[/scale.slice/*/*]\nMode=active\n");
}

static void usage(void) {
        fprintf(stderr, "usage: mkscale-tree --capture DIR --out DIR --cgroups N [--per-group 100] "
                        "[--seed 1]\n       mkscale-tree --capture DIR --out DIR --churn K [--to N]\n");
        exit(2);
}

int main(int argc, char **argv) {
        unsigned long n = 0, per_group = 100, seed = 1, k = 0;
        long to = -1;
        bool have_n = false, have_k = false;

        for (int i = 1; i < argc; i++) {
                if (i + 1 >= argc)
                        usage();
                const char *o = argv[i], *v = argv[++i];
                if (strcmp(o, "--capture") == 0)
                        capture = v;
                else if (strcmp(o, "--out") == 0)
                        out = v;
                else if (strcmp(o, "--cgroups") == 0)
                        n = strtoul(v, NULL, 10), have_n = true;
                else if (strcmp(o, "--per-group") == 0)
                        per_group = strtoul(v, NULL, 10);
                else if (strcmp(o, "--seed") == 0)
                        seed = strtoul(v, NULL, 10);
                else if (strcmp(o, "--churn") == 0)
                        k = strtoul(v, NULL, 10), have_k = true;
                else if (strcmp(o, "--to") == 0)
                        to = strtol(v, NULL, 10);
                else
                        usage();
        }
        if (!capture || !out || have_n == have_k || per_group == 0)
                usage();
        errno = 0;
        load_templates();
        if (have_n)
                build(n, per_group, seed);
        else
                churn(k, to);
        return 0;
}
