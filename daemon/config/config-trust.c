/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config-trust.c: whom the daemon believes (man/mglrud.8, SECURITY). It runs as root and what
 * it reads decides what is evicted: a configuration path and a cgroup's xattrs count only when
 * nobody but root (or the daemon's own uid) could have written them, unless the administrator
 * said otherwise for cgroups ([Daemon] CgroupAttributes=). */
#include <stdio.h>

#include "config-internal.h"

enum verdict {
        VERDICT_TRUSTED,
        VERDICT_FOREIGN_OWNER, /* neither root nor self */
        VERDICT_WRITABLE,      /* by group or others */
};

/* Judges an owner and permission bits: root or self_uid, and no group or other write bit
 * (the sticky bit excuses them when sticky_ok). */
static enum verdict judge(unsigned owner_uid, unsigned mode, unsigned self_uid, bool sticky_ok) {
        if (owner_uid != 0 && owner_uid != self_uid)
                return VERDICT_FOREIGN_OWNER;
        if ((mode & 0022) && !(sticky_ok && (mode & 01000)))
                return VERDICT_WRITABLE;
        return VERDICT_TRUSTED;
}

static const char *writer(unsigned mode) {
        return mode & 0002 ? "everyone" : "its group";
}

bool config_path_trusted(enum config_path_kind kind, unsigned owner_uid, unsigned mode,
                         unsigned self_uid, char *reason, size_t size) {
        if (kind == CONFIG_PATH_SYMLINK)
                mode = 0; /* always 0777, and nobody can change a symlink, only replace it */
        switch (judge(owner_uid, mode, self_uid, kind == CONFIG_PATH_PARENT)) {
        case VERDICT_FOREIGN_OWNER:
                snprintf(reason, size, "owned by uid %u, not root", owner_uid);
                return false;
        case VERDICT_WRITABLE:
                snprintf(reason, size, "writable by %s (mode %04o)", writer(mode), mode & 07777);
                return false;
        default:
                return true;
        }
}

bool config_attributes_trusted(enum cgroup_attributes mode, unsigned owner_uid, unsigned dir_mode,
                               unsigned self_uid, char *reason, size_t size) {
        const char *name = cgroup_attributes_to_string(mode) ?: "?";

        switch (mode) {
        case CGROUP_ATTRIBUTES_DELEGATED:
                return true;
        case CGROUP_ATTRIBUTES_NO:
                snprintf(reason, size, "CgroupAttributes=no");
                return false;
        default:
                break;
        }
        switch (judge(owner_uid, dir_mode, self_uid, false)) {
        case VERDICT_FOREIGN_OWNER:
                snprintf(reason, size, "the directory is owned by uid %u (CgroupAttributes=%s)",
                         owner_uid, name);
                return false;
        case VERDICT_WRITABLE:
                snprintf(reason, size, "the directory is writable by %s (mode %04o, "
                         "CgroupAttributes=%s)", writer(dir_mode), dir_mode & 07777, name);
                return false;
        default:
                return true;
        }
}
