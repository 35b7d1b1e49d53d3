/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mountinfo.h: /proc/self/mountinfo (proc(5)), to find where the filesystem of a device number
 * is mounted: stream protection opens files by handle, which needs a descriptor of a mount. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#define MOUNTINFO_PATH_MAX 1024 /* a decoded mount point, with its NUL */

struct mountinfo_line {
        unsigned major, minor;                  /* the st_dev of files on the mount */
        char mount_point[MOUNTINFO_PATH_MAX];   /* with the kernel's octal escapes decoded */
};

/* Parses the line of buf[*pos..len) that starts at *pos: "ID PARENT MAJOR:MINOR ROOT
 * MOUNT_POINT ...", fields separated by one space, the mount point with blanks, backslashes and
 * newlines escaped as \ooo (decoded here). Advances *pos past the line and its '\n' (a last line
 * without one is taken as it is). Returns 1 and the line in *ret, 0 at the end of buf, or
 * -EINVAL for a line that does not parse (*ret untouched; the next call goes on after it). */
int mountinfo_next(const char *buf, size_t len, size_t *pos, struct mountinfo_line *ret);

/* Opens (O_DIRECTORY) the first mount point of device dev in proc_root/self/mountinfo that
 * opens. what (what_size bytes) describes the device for a message whatever the result: its
 * last mount point tried, or "MAJOR:MINOR". Returns the fd, -ENOENT when no mount of dev
 * opened, or the negative errno of reading mountinfo. */
int mountinfo_open_dev(const char *proc_root, dev_t dev, char *what, size_t what_size);
