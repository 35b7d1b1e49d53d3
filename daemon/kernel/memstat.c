/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/kernel/memstat.h"

#include <errno.h>
#include <string.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

static const char *const memstat_key_table[_MEMSTAT_KEY_MAX] = {
        [MEMSTAT_ANON] = "anon",
        [MEMSTAT_FILE] = "file",
        [MEMSTAT_SHMEM] = "shmem",
        [MEMSTAT_FILE_MAPPED] = "file_mapped",
        [MEMSTAT_FILE_DIRTY] = "file_dirty",
        [MEMSTAT_ZSWAP] = "zswap",
        [MEMSTAT_ZSWAPPED] = "zswapped",
        [MEMSTAT_WORKINGSET_REFAULT_ANON] = "workingset_refault_anon",
        [MEMSTAT_WORKINGSET_REFAULT_FILE] = "workingset_refault_file",
        [MEMSTAT_WORKINGSET_ACTIVATE_ANON] = "workingset_activate_anon",
        [MEMSTAT_WORKINGSET_ACTIVATE_FILE] = "workingset_activate_file",
        [MEMSTAT_WORKINGSET_RESTORE_ANON] = "workingset_restore_anon",
        [MEMSTAT_WORKINGSET_RESTORE_FILE] = "workingset_restore_file",
        [MEMSTAT_WORKINGSET_NODERECLAIM] = "workingset_nodereclaim",
        [MEMSTAT_PGSCAN] = "pgscan",
        [MEMSTAT_PGSCAN_KSWAPD] = "pgscan_kswapd",
        [MEMSTAT_PGSCAN_DIRECT] = "pgscan_direct",
        [MEMSTAT_PGSCAN_PROACTIVE] = "pgscan_proactive",
        [MEMSTAT_PGSTEAL] = "pgsteal",
        [MEMSTAT_PGSTEAL_KSWAPD] = "pgsteal_kswapd",
        [MEMSTAT_PGSTEAL_DIRECT] = "pgsteal_direct",
        [MEMSTAT_PGSTEAL_PROACTIVE] = "pgsteal_proactive",
        [MEMSTAT_PSWPIN] = "pswpin",
        [MEMSTAT_PSWPOUT] = "pswpout",
        [MEMSTAT_ZSWPIN] = "zswpin",
        [MEMSTAT_ZSWPOUT] = "zswpout",
};

/* present is a 32-bit mask. */
_Static_assert(_MEMSTAT_KEY_MAX <= 32, "memstat.present has one bit per key");

const char *memstat_key_to_string(enum memstat_key k) {
        if ((unsigned) k >= _MEMSTAT_KEY_MAX)
                return NULL;
        return memstat_key_table[k];
}

/* Returns the key spelled exactly s[0..len), or -ENOENT for keys the policy does not use.
 * A linear scan: 26 short names against ~60 lines per file is cheaper than anything clever. */
static int memstat_key_lookup(const char *s, size_t len) {
        for (int k = 0; k < _MEMSTAT_KEY_MAX; k++)
                if (strlen(memstat_key_table[k]) == len && memcmp(memstat_key_table[k], s, len) == 0)
                        return k;
        return -ENOENT;
}

/* Parses one "key value" line (without its newline). Returns the key (or -ENOENT for an
 * unknown one) and sets *ret_value, or -EINVAL. Unknown keys are checked too: a line that is
 * not "key number" means this is not memory.stat. */
static int memstat_parse_line(const char *line, size_t len, uint64_t *ret_value) {
        const char *sp = memchr(line, ' ', len);
        if (!sp || sp == line)
                return -EINVAL;
        size_t klen = (size_t) (sp - line);
        for (size_t i = 0; i < klen; i++)
                if (!((line[i] >= 'a' && line[i] <= 'z') || (line[i] >= '0' && line[i] <= '9') ||
                      line[i] == '_'))
                        return -EINVAL;
        uint64_t v;
        if (parse_u64_n(sp + 1, len - klen - 1, &v) < 0)
                return -EINVAL;
        *ret_value = v;
        return memstat_key_lookup(line, klen);
}

int memstat_parse(const char *buf, size_t len, struct memstat *ret, unsigned *ret_bad_line) {
        unsigned lineno = 0;
        struct memstat s = {};
        size_t pos = 0;

        if (!buf || len == 0)
                return parse_bad_line(ret_bad_line, 0);
        const char *line;
        size_t llen;
        int more;
        while ((more = next_line(buf, len, &pos, &line, &llen)) > 0) {
                lineno++;
                uint64_t v;
                int k = memstat_parse_line(line, llen, &v);
                if (k == -ENOENT)
                        continue;
                if (k < 0)
                        return parse_bad_line(ret_bad_line, lineno);
                s.value[k] = v;
                s.present |= UINT32_C(1) << k;
        }
        if (more < 0) /* a last line without its newline: cut */
                return parse_bad_line(ret_bad_line, lineno + 1);
        *ret = s;
        return 0;
}

int memstat_read(int fd, struct memstat *ret, unsigned *ret_bad_line) {
        return READ_AND_PARSE(fd, memstat_parse, ret, ret_bad_line);
}
