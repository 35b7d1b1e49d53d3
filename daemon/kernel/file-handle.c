/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/kernel/file-handle.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "mglrud/shared/macro.h"

#ifndef XFS_SUPER_MAGIC
#define XFS_SUPER_MAGIC 0x58465342
#endif
#define FILEID_INO32_GEN 1

int file_handle_check_mount(int mount_fd) {
        struct statfs sfs;
        if (fstatfs(mount_fd, &sfs) < 0)
                return negative_errno();
        if (sfs.f_type != EXT4_SUPER_MAGIC && sfs.f_type != XFS_SUPER_MAGIC)
                return -EOPNOTSUPP;
        return 0;
}

int file_handle_open(int mount_fd, uint64_t ino, uint32_t generation, const char *proc_root,
                     char *path, size_t size) {
        struct {
                struct file_handle fh;
                uint32_t ino_gen[2];
        } h = { .fh = { .handle_bytes = sizeof(uint32_t) * 2, .handle_type = FILEID_INO32_GEN },
                .ino_gen = { (uint32_t) ino, generation } };
        if (ino > UINT32_MAX)
                return -EOVERFLOW;
        _cleanup_close_ int fd = open_by_handle_at(mount_fd, &h.fh, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
                return negative_errno(); /* ESTALE: deleted, or the inode was reused */
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode) || st.st_ino != ino)
                return -ESTALE;
        char link[64];
        snprintf(link, sizeof link, "%s/self/fd/%d", proc_root, fd);
        ssize_t n = readlink(link, path, size - 1);
        if (n > 0)
                path[n] = 0;
        return TAKE_FD(fd);
}
