/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The replies of memcached's text protocol that mc-zipf reads (get and set), parsed from a
 * buffer that may hold a partial reply: the client reads from its socket until a reply is
 * complete. */
#pragma once

#include <stddef.h>
#include <stdint.h>

enum mc_reply_kind {
	MC_STORED,       /* "STORED" (set) */
	MC_NOT_STORED,   /* "NOT_STORED" */
	MC_HIT,          /* "VALUE <key> <flags> <bytes>", the data, "END" (get of one key) */
	MC_MISS,         /* "END" alone (get, no such key) */
	MC_ERROR,        /* "ERROR", "CLIENT_ERROR ...", "SERVER_ERROR ..." */
};

struct mc_reply {
	enum mc_reply_kind kind;
	/* MC_HIT: the value's length (the <bytes> field, which the data matched). */
	size_t value_len;
};

/* Parses the first reply in buf[0..len). Returns the bytes it takes (> 0) with *ret set; 0 when
 * buf holds only the beginning of a reply (read more and call again); -EBADMSG when buf cannot
 * be the beginning of a reply of one of the kinds above (an unknown line, a VALUE header that
 * does not parse, data not followed by "\r\n", a VALUE not followed by "END"). */
int mc_reply_parse(const char *buf, size_t len, struct mc_reply *ret);
