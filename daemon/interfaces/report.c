/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/interfaces/report.h"

#include <errno.h>
#include <stdlib.h>

#include "mglrud/shared/macro.h"

int report_text(const struct manager *m, snapshot_format_t fmt, char **ret_text) {
        _cleanup_free_ struct control_snapshot *snaps = NULL;
        struct daemon_stats d;
        size_t n, len;
        char *text = NULL;

        int r = manager_snapshots(m, &d, &snaps, &n);
        if (r < 0)
                return r;
        FILE *f = open_memstream(&text, &len);
        if (!f)
                return -ENOMEM;
        r = fmt(f, &d, snaps, n);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0) {
                free(text);
                return r;
        }
        *ret_text = text;
        return 0;
}
