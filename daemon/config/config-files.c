/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config-files.c: which files make up the configuration: the main file, then the drop-ins of
 * its directory ("*.conf", not hidden, regular files after following links) in name order. */
#include "config-internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mglrud/shared/log.h"
#include "mglrud/shared/macro.h"

void config_files_free(char **files) {
        for (char **f = files; f && *f; f++)
                free(*f);
        free(files);
}

static int cmp_strp(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static int files_add(char ***files, size_t *n, char *path) {
        char **l = reallocarray(*files, *n + 2, sizeof **files);
        if (!l) {
                free(path);
                return -ENOMEM;
        }
        l[(*n)++] = path;
        l[*n] = NULL;
        *files = l;
        return 0;
}

static bool is_dropin_name(const char *name) {
        size_t len = strlen(name);
        /* "foo.conf", not hidden files (editor and package manager leftovers start with '.') */
        return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".conf") == 0;
}

int config_list_files(const char *main_path, const char *dropin_dir, char ***ret_files) {
        _cleanup_(config_files_freep) char **files = NULL;
        size_t n = 0, n_main;
        struct stat st;
        int r;

        files = calloc(1, sizeof *files);
        if (!files)
                return -ENOMEM;

        if (main_path) {
                if (stat(main_path, &st) == 0) {
                        char *p = strdup(main_path);
                        if (!p || files_add(&files, &n, p) < 0)
                                return -ENOMEM;
                } else if (errno != ENOENT)
                        return log_error_errno(errno, "%s: %m", main_path);
        }
        n_main = n;

        if (dropin_dir) {
                DIR *d = opendir(dropin_dir);
                if (!d) {
                        if (errno != ENOENT && errno != ENOTDIR)
                                return log_error_errno(errno, "%s: %m", dropin_dir);
                } else {
                        struct dirent *de;
                        r = 0;
                        errno = 0;
                        while (r == 0 && (de = readdir(d))) {
                                if (!is_dropin_name(de->d_name))
                                        continue;
                                /* Only regular files (following symlinks): a link to /dev/null
                                 * masks a drop-in, as in systemd. */
                                if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 ||
                                    !S_ISREG(st.st_mode))
                                        continue;
                                char *p;
                                if (asprintf(&p, "%s/%s", dropin_dir, de->d_name) < 0)
                                        r = -ENOMEM;
                                else
                                        r = files_add(&files, &n, p);
                        }
                        closedir(d);
                        if (r < 0)
                                return r;
                        qsort(files + n_main, n - n_main, sizeof *files, cmp_strp);
                }
        }

        *ret_files = TAKE_PTR(files);
        return 0;
}
