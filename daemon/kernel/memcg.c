/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/kernel/memcg.h"

#include <errno.h>
#include <string.h>

#include "mglrud/shared/fileio.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/parse-util.h"

int memcg_value_parse(const char *buf, size_t len, uint64_t *ret) {
        uint64_t v;
        int r;

        if (!buf)
                return -EINVAL;
        if (len > 0 && buf[len - 1] == '\n')
                len--;
        if (len == 3 && memcmp(buf, "max", 3) == 0) {
                *ret = MEMCG_VALUE_MAX;
                return 0;
        }
        r = parse_u64_n(buf, len, &v);
        if (r < 0)
                return r;
        /* "max" is how the kernel spells "unlimited"; a number that collides with our
         * encoding of it cannot come from a page-granular counter. */
        if (v == MEMCG_VALUE_MAX)
                return -ERANGE;
        *ret = v;
        return 0;
}

int memcg_value_read(int fd, uint64_t *ret) {
        return READ_AND_PARSE(fd, memcg_value_parse, ret);
}

enum {
        MEMINFO_MEM_TOTAL,
        MEMINFO_MEM_AVAILABLE,
        MEMINFO_SWAP_TOTAL,
        MEMINFO_SWAP_FREE,
        _MEMINFO_REQUIRED,
        MEMINFO_ACTIVE_ANON = _MEMINFO_REQUIRED, /* optional from here on */
        MEMINFO_INACTIVE_ANON,
        MEMINFO_ACTIVE_FILE,
        MEMINFO_INACTIVE_FILE,
        _MEMINFO_MAX,
};

static const char *const meminfo_keys[_MEMINFO_MAX] = {
        [MEMINFO_MEM_TOTAL] = "MemTotal",
        [MEMINFO_MEM_AVAILABLE] = "MemAvailable",
        [MEMINFO_SWAP_TOTAL] = "SwapTotal",
        [MEMINFO_SWAP_FREE] = "SwapFree",
        [MEMINFO_ACTIVE_ANON] = "Active(anon)",
        [MEMINFO_INACTIVE_ANON] = "Inactive(anon)",
        [MEMINFO_ACTIVE_FILE] = "Active(file)",
        [MEMINFO_INACTIVE_FILE] = "Inactive(file)",
};

/* Parses one "Key:   N kB" (or "Key:   N" for counts such as HugePages_Total) line. Returns 0
 * and the key name and value in bytes (or the count), or -EINVAL. */
static int meminfo_parse_line(const char *line, size_t len, const char **ret_key, size_t *ret_klen,
                              uint64_t *ret_value) {
        const char *colon = memchr(line, ':', len);
        if (!colon || colon == line)
                return -EINVAL;
        size_t p = (size_t) (colon - line) + 1;
        size_t spaces = p;
        while (p < len && line[p] == ' ')
                p++;
        if (p == spaces)
                return -EINVAL;
        size_t end = len;
        uint64_t mult = 1;
        if (len - p > 3 && memcmp(line + len - 3, " kB", 3) == 0) {
                end = len - 3;
                mult = 1024;
        }
        uint64_t v;
        if (parse_u64_n(line + p, end - p, &v) < 0 || v > UINT64_MAX / mult)
                return -EINVAL;
        *ret_key = line;
        *ret_klen = (size_t) (colon - line);
        *ret_value = v * mult;
        return 0;
}

int meminfo_parse(const char *buf, size_t len, struct meminfo *ret, unsigned *ret_bad_line) {
        unsigned lineno = 0;
        uint64_t v[_MEMINFO_MAX] = {};
        unsigned seen = 0;
        size_t pos = 0;

        if (!buf)
                return parse_bad_line(ret_bad_line, 0);
        const char *line;
        size_t llen;
        int more;
        while ((more = next_line(buf, len, &pos, &line, &llen)) > 0) {
                lineno++;
                const char *key;
                size_t klen;
                uint64_t value;
                if (meminfo_parse_line(line, llen, &key, &klen, &value) < 0)
                        return parse_bad_line(ret_bad_line, lineno);
                for (unsigned k = 0; k < _MEMINFO_MAX; k++)
                        if (strlen(meminfo_keys[k]) == klen && memcmp(meminfo_keys[k], key, klen) == 0) {
                                v[k] = value;
                                seen |= 1u << k;
                        }
        }
        if (more < 0) /* a last line without its newline: cut */
                return parse_bad_line(ret_bad_line, lineno + 1);
        if ((seen & ((1u << _MEMINFO_REQUIRED) - 1)) != (1u << _MEMINFO_REQUIRED) - 1)
                return parse_bad_line(ret_bad_line, 0);
        *ret = (struct meminfo) {
                .mem_total = v[MEMINFO_MEM_TOTAL],
                .mem_available = v[MEMINFO_MEM_AVAILABLE],
                .swap_total = v[MEMINFO_SWAP_TOTAL],
                .swap_free = v[MEMINFO_SWAP_FREE],
                .active_anon = v[MEMINFO_ACTIVE_ANON],
                .inactive_anon = v[MEMINFO_INACTIVE_ANON],
                .active_file = v[MEMINFO_ACTIVE_FILE],
                .inactive_file = v[MEMINFO_INACTIVE_FILE],
                .has_lru = seen == (1u << _MEMINFO_MAX) - 1,
        };
        return 0;
}

int meminfo_read(int fd, struct meminfo *ret, unsigned *ret_bad_line) {
        return READ_AND_PARSE(fd, meminfo_parse, ret, ret_bad_line);
}
