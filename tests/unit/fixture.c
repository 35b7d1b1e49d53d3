/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mglrud/shared/macro.h"

static const char *fixtures_dir(void) {
        const char *d = getenv("MGLRUD_FIXTURES");
        return d ? d : "tests/fixtures";
}

int fixture_read(const char *rel, struct read_buf *b) {
        char path[4096];

        if (snprintf(path, sizeof(path), "%s/%s", fixtures_dir(), rel) >= (int) sizeof(path))
                return -ENAMETOOLONG;
        return read_full_file_at(AT_FDCWD, path, b);
}

int fixture_exists(const char *rel) {
        char path[4096];

        if (snprintf(path, sizeof(path), "%s/%s", fixtures_dir(), rel) >= (int) sizeof(path))
                return 0;
        return access(path, R_OK) == 0;
}

int fixture_memfd(const char *text, size_t len) {
        _cleanup_close_ int fd = memfd_create("fixture", MFD_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        if (write(fd, text, len) != (ssize_t) len)
                return -EIO;
        return TAKE_FD(fd);
}

char *fixture_dup_exact(const char *s, size_t len) {
        char *p = malloc(len ? len : 1);
        if (p && len)
                memcpy(p, s, len);
        return p;
}
