/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file-handle.h: opening a file by handle (open_by_handle_at(2), CAP_DAC_READ_SEARCH) from the
 * inode and generation numbers a BPF program saw, on a filesystem whose handles are just those
 * two (FILEID_INO32_GEN: ext4, xfs). */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Checks that the filesystem of the open directory mount_fd takes inode + generation handles
 * (ext4 or xfs). Returns 0, -EOPNOTSUPP for another filesystem, or the errno of fstatfs(). */
int file_handle_check_mount(int mount_fd);

/* Opens the regular file of inode ino and generation on the filesystem of mount_fd and
 * resolves its path through proc_root/self/fd into path (size bytes; left as it is when the
 * link cannot be read). Returns the fd, -EOVERFLOW for an inode beyond 32 bits, -ESTALE when the
 * file was deleted, the inode reused or it is not a regular file, or another negative errno. */
int file_handle_open(int mount_fd, uint64_t ino, uint32_t generation, const char *proc_root,
                     char *path, size_t size);
