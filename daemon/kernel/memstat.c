/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/kernel/memstat.h"

#include <errno.h>
#include <string.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

static const struct {
        const char *name;
        uint8_t len;
} memstat_keys[_MEMSTAT_KEY_MAX] = {
#define KEY(k, name) [k] = { name, sizeof(name) - 1 }
        KEY(MEMSTAT_ANON, "anon"),
        KEY(MEMSTAT_FILE, "file"),
        KEY(MEMSTAT_SHMEM, "shmem"),
        KEY(MEMSTAT_FILE_MAPPED, "file_mapped"),
        KEY(MEMSTAT_FILE_DIRTY, "file_dirty"),
        KEY(MEMSTAT_ZSWAP, "zswap"),
        KEY(MEMSTAT_ZSWAPPED, "zswapped"),
        KEY(MEMSTAT_INACTIVE_ANON, "inactive_anon"),
        KEY(MEMSTAT_ACTIVE_ANON, "active_anon"),
        KEY(MEMSTAT_INACTIVE_FILE, "inactive_file"),
        KEY(MEMSTAT_ACTIVE_FILE, "active_file"),
        KEY(MEMSTAT_WORKINGSET_REFAULT_ANON, "workingset_refault_anon"),
        KEY(MEMSTAT_WORKINGSET_REFAULT_FILE, "workingset_refault_file"),
        KEY(MEMSTAT_WORKINGSET_ACTIVATE_ANON, "workingset_activate_anon"),
        KEY(MEMSTAT_WORKINGSET_ACTIVATE_FILE, "workingset_activate_file"),
        KEY(MEMSTAT_WORKINGSET_RESTORE_ANON, "workingset_restore_anon"),
        KEY(MEMSTAT_WORKINGSET_RESTORE_FILE, "workingset_restore_file"),
        KEY(MEMSTAT_WORKINGSET_NODERECLAIM, "workingset_nodereclaim"),
        KEY(MEMSTAT_PGSCAN, "pgscan"),
        KEY(MEMSTAT_PGSCAN_KSWAPD, "pgscan_kswapd"),
        KEY(MEMSTAT_PGSCAN_DIRECT, "pgscan_direct"),
        KEY(MEMSTAT_PGSCAN_PROACTIVE, "pgscan_proactive"),
        KEY(MEMSTAT_PGSTEAL, "pgsteal"),
        KEY(MEMSTAT_PGSTEAL_KSWAPD, "pgsteal_kswapd"),
        KEY(MEMSTAT_PGSTEAL_DIRECT, "pgsteal_direct"),
        KEY(MEMSTAT_PGSTEAL_PROACTIVE, "pgsteal_proactive"),
        KEY(MEMSTAT_PSWPIN, "pswpin"),
        KEY(MEMSTAT_PSWPOUT, "pswpout"),
        KEY(MEMSTAT_ZSWPIN, "zswpin"),
        KEY(MEMSTAT_ZSWPOUT, "zswpout"),
#undef KEY
};

/* present is a 32-bit mask; the hash table has room to spare. */
_Static_assert(_MEMSTAT_KEY_MAX <= 32, "memstat.present has one bit per key");

const char *memstat_key_to_string(enum memstat_key k) {
        if ((unsigned) k >= _MEMSTAT_KEY_MAX)
                return NULL;
        return memstat_keys[k].name;
}

/* The policy's keys by a hash of their names (open addressing, index + 1, 0 empty), built once
 * before main(): memory.stat has ~70 lines, is read for every managed cgroup every cycle, and
 * most of its lines are keys the policy does not use, which one probe turns away. */
#define KEY_SLOTS 128
static uint8_t key_slots[KEY_SLOTS];

static unsigned key_hash(const char *s, size_t len) {
        return ((unsigned) len * 131u + (unsigned char) s[0] * 31u +
                (unsigned char) s[len / 2] * 7u + (unsigned char) s[len - 1]) % KEY_SLOTS;
}

__attribute__((constructor)) static void key_slots_init(void) {
        for (int k = 0; k < _MEMSTAT_KEY_MAX; k++) {
                unsigned h = key_hash(memstat_keys[k].name, memstat_keys[k].len);
                while (key_slots[h])
                        h = (h + 1) % KEY_SLOTS;
                key_slots[h] = (uint8_t) (k + 1);
        }
}

/* Returns the key spelled exactly s[0..len) (len > 0), or -ENOENT for keys the policy does not
 * use. */
static int memstat_key_lookup(const char *s, size_t len) {
        for (unsigned h = key_hash(s, len); key_slots[h]; h = (h + 1) % KEY_SLOTS) {
                int k = key_slots[h] - 1;
                if (memstat_keys[k].len == len && memcmp(memstat_keys[k].name, s, len) == 0)
                        return k;
        }
        return -ENOENT;
}

/* The bytes a key is made of: [a-z0-9_]. */
static const bool key_char[256] = {
        ['a' ... 'z'] = true, ['0' ... '9'] = true, ['_'] = true,
};

/* Parses the "key value\n" line at buf[*pos..len): the key, one space, a decimal and its newline,
 * in one pass (no search for the newline first, no second walk of the digits: memory.stat's ~70
 * lines are read for every managed cgroup every cycle). Returns the key (or -ENOENT for an
 * unknown one) with *ret_value set and *pos past the newline, or -EINVAL for anything else, a
 * line without its newline included. Unknown keys are checked too: a line that is not "key
 * number" means this is not memory.stat. */
static int memstat_parse_line(const char *buf, size_t len, size_t *pos, uint64_t *ret_value) {
        const char *line = buf + *pos;
        size_t n = len - *pos, klen = 0, p;

        while (klen < n && key_char[(unsigned char) line[klen]])
                klen++;
        if (klen == 0 || klen == n || line[klen] != ' ')
                return -EINVAL;
        uint64_t v = 0;
        unsigned d;
        /* Digits are summed as they are read; past 19 of them parse_u64_n() decides (it is
         * the one that knows about overflow). */
        for (p = klen + 1; p < n && (d = (unsigned) (unsigned char) line[p] - '0') <= 9; p++)
                v = v * 10 + d;
        size_t digits = p - klen - 1;
        if (digits == 0 || p == n || line[p] != '\n')
                return -EINVAL;
        if (digits >= 20 && parse_u64_n(line + klen + 1, digits, &v) < 0)
                return -EINVAL;
        *ret_value = v;
        *pos += p + 1;
        return memstat_key_lookup(line, klen);
}

int memstat_parse(const char *buf, size_t len, struct memstat *ret, unsigned *ret_bad_line) {
        unsigned lineno = 0;
        struct memstat s = {};
        size_t pos = 0;

        if (!buf || len == 0)
                return parse_bad_line(ret_bad_line, 0);
        while (pos < len) {
                lineno++;
                uint64_t v;
                int k = memstat_parse_line(buf, len, &pos, &v);
                if (k == -ENOENT)
                        continue;
                if (k < 0) /* a last line without its newline too: cut */
                        return parse_bad_line(ret_bad_line, lineno);
                s.value[k] = v;
                s.present |= UINT32_C(1) << k;
        }
        *ret = s;
        return 0;
}

int memstat_read(int fd, struct memstat *ret, unsigned *ret_bad_line) {
        return READ_AND_PARSE(fd, memstat_parse, ret, ret_bad_line);
}
