/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-main.c: a deterministic stand-in for libFuzzer, so the fuzzers run as regression tests
 * with gcc under ASan/UBSan (and valgrind). Usage:
 *   fuzz-<target> [-n ITERATIONS] [-s SEED] PATH...
 * Each PATH is a corpus directory (its files, hidden ones left out) or one input file; a
 * missing PATH is skipped with a note (tests/fuzz/regressions/<target> exists only once a crash
 * was kept). Runs LLVMFuzzerTestOneInput over every input (name order within a directory), then
 * over ITERATIONS (default 5000) mutations of them from a fixed seed, so a failure reproduces
 * exactly. Every input lives in a buffer of exactly its size, so ASan catches a parser reading
 * past len. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"

struct input {
        char *name;
        uint8_t *data;
        size_t size;
};

static uint64_t rng_state;

/* xorshift64*: small, fast, and the same sequence on every machine. */
static uint64_t rnd(void) {
        rng_state ^= rng_state >> 12;
        rng_state ^= rng_state << 25;
        rng_state ^= rng_state >> 27;
        return rng_state * UINT64_C(2685821657736338717);
}

static size_t rnd_below(size_t n) {
        return n ? (size_t) (rnd() % n) : 0;
}

static int name_cmp(const void *a, const void *b) {
        return strcmp(((const struct input *) a)->name, ((const struct input *) b)->name);
}

static void add_input(struct input **v, size_t *n, const char *name, struct read_buf *b) {
        struct input *nv = realloc(*v, (*n + 1) * sizeof(**v));
        if (!nv)
                abort();
        *v = nv;
        nv[*n].name = strdup(name);
        nv[*n].size = b->len;
        nv[*n].data = (uint8_t *) b->data; /* b->data holds len + NUL: copied exactly below */
        if (!nv[*n].name)
                abort();
        (*n)++;
}

/* Appends the input at path: every regular file of a directory (in name order), or the file
 * itself. Returns the number of inputs added, or a negative errno. */
static int load_path(const char *path, struct input **v, size_t *n) {
        struct read_buf b = {};
        size_t first = *n;
        int r;

        DIR *d = opendir(path);
        if (!d) {
                if (errno != ENOTDIR)
                        return negative_errno();
                r = read_full_file_at(AT_FDCWD, path, &b);
                if (r < 0)
                        return r;
                add_input(v, n, path, &b);
                return 1;
        }
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                b = (struct read_buf) {};
                if (read_full_file_at(dirfd(d), de->d_name, &b) < 0)
                        continue; /* a subdirectory */
                add_input(v, n, de->d_name, &b);
        }
        closedir(d);
        qsort(*v + first, *n - first, sizeof(**v), name_cmp);
        return (int) (*n - first);
}

static void run_exact(const uint8_t *data, size_t size) {
        uint8_t *copy = malloc(size ? size : 1);
        if (!copy)
                abort();
        if (size)
                memcpy(copy, data, size);
        LLVMFuzzerTestOneInput(copy, size);
        free(copy);
}

/* Bytes that matter to the kernel and config formats: separators, suffix letters, digits,
 * edges, INI and glob syntax. */
static const char interesting[] =
        " \n\t\r\0x0123456789repRTxTYFAtyfaLOYNFA=.%:/-maxkBmemcg node[]*?;#\\";

/* Applies one random edit to buf (len *len, capacity cap). */
static void mutate_once(uint8_t *buf, size_t *len, size_t cap, const struct input *corpus, size_t n) {
        size_t l = *len;
        switch (rnd_below(8)) {
        case 0: /* flip a bit */
                if (l)
                        buf[rnd_below(l)] ^= (uint8_t) (1u << rnd_below(8));
                break;
        case 1: /* overwrite with an interesting byte */
                if (l)
                        buf[rnd_below(l)] = (uint8_t) interesting[rnd_below(sizeof(interesting) - 1)];
                break;
        case 2: /* insert an interesting byte */
                if (l < cap) {
                        size_t p = rnd_below(l + 1);
                        memmove(buf + p + 1, buf + p, l - p);
                        buf[p] = (uint8_t) interesting[rnd_below(sizeof(interesting) - 1)];
                        *len = l + 1;
                }
                break;
        case 3: /* delete a range */
                if (l) {
                        size_t p = rnd_below(l), k = 1 + rnd_below(MIN(l - p, (size_t) 64));
                        memmove(buf + p, buf + p + k, l - p - k);
                        *len = l - k;
                }
                break;
        case 4: /* truncate */
                *len = rnd_below(l + 1);
                break;
        case 5: { /* duplicate a range (repeated lines, racy reads) */
                if (!l)
                        break;
                size_t p = rnd_below(l), k = 1 + rnd_below(MIN(l - p, (size_t) 256));
                if (l + k > cap)
                        break;
                size_t at = rnd_below(l + 1);
                uint8_t tmp[256];
                memcpy(tmp, buf + p, k);
                memmove(buf + at + k, buf + at, l - at);
                memcpy(buf + at, tmp, k);
                *len = l + k;
                break;
        }
        case 6: { /* splice in a piece of another corpus file */
                const struct input *o = &corpus[rnd_below(n)];
                if (!o->size)
                        break;
                size_t p = rnd_below(o->size), k = 1 + rnd_below(MIN(o->size - p, (size_t) 256));
                size_t at = rnd_below(l + 1);
                if (at + k > cap)
                        break;
                memcpy(buf + at, o->data + p, k);
                *len = MAX(l, at + k);
                break;
        }
        default: { /* replace a digit run with a huge number (overflow paths) */
                static const char *const big[] = { "18446744073709551615", "18446744073709551616",
                                                   "4294967295", "4294967296", "99999999999999999999999",
                                                   "0", "65535", "2147483648" };
                const char *b = big[rnd_below(ELEMENTSOF(big))];
                size_t bl = strlen(b);
                if (!l || l + bl > cap)
                        break;
                size_t p = rnd_below(l);
                memmove(buf + p + bl, buf + p, l - p);
                memcpy(buf + p, b, bl);
                *len = l + bl;
                break;
        }
        }
}

static int usage(const char *argv0) {
        fprintf(stderr, "usage: %s [-n ITERATIONS] [-s SEED] PATH...\n", argv0);
        return 2;
}

int main(int argc, char **argv) {
        struct input *corpus = NULL;
        unsigned long iterations = 5000;
        uint64_t seed = UINT64_C(0x6d676c727564); /* "mglrud" */
        size_t n = 0;
        int opt;

        while ((opt = getopt(argc, argv, "n:s:")) >= 0)
                switch (opt) {
                case 'n': iterations = strtoul(optarg, NULL, 10); break;
                case 's': seed = strtoull(optarg, NULL, 0); break;
                default: return usage(argv[0]);
                }
        if (optind >= argc)
                return usage(argv[0]);
        rng_state = seed ? seed : 1;

        for (int i = optind; i < argc; i++) {
                int r = load_path(argv[i], &corpus, &n);
                if (r == -ENOENT)
                        printf("%s: none, skipped\n", argv[i]);
                else if (r < 0) {
                        fprintf(stderr, "%s: %s\n", argv[i], strerror(-r));
                        return 1;
                }
        }
        if (n == 0) {
                fprintf(stderr, "no corpus: every PATH is missing or empty\n");
                return 1;
        }
        for (size_t i = 0; i < n; i++)
                run_exact(corpus[i].data, corpus[i].size);
        run_exact((const uint8_t *) "", 0);

        size_t max = 0;
        for (size_t i = 0; i < n; i++)
                max = MAX(max, corpus[i].size);
        size_t cap = max * 2 + 4096;
        uint8_t *buf = malloc(cap);
        if (!buf)
                abort();
        for (unsigned long it = 0; it < iterations; it++) {
                const struct input *in = &corpus[rnd_below(n)];
                size_t len = in->size;
                memcpy(buf, in->data, len);
                unsigned edits = 1 + (unsigned) rnd_below(4);
                for (unsigned e = 0; e < edits; e++)
                        mutate_once(buf, &len, cap, corpus, n);
                run_exact(buf, len);
        }
        printf("%zu inputs, %lu mutations (seed 0x%" PRIx64 "): ok\n", n, iterations, seed);

        free(buf);
        for (size_t i = 0; i < n; i++) {
                free(corpus[i].name);
                free(corpus[i].data);
        }
        free(corpus);
        return 0;
}
