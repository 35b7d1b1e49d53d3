/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decision-text.h: a policy decision as one human line (dry-run advice, journal, mglructl). */
#pragma once

#include <stddef.h>

#include "mglrud/policy/policy.h"

/* Formats one human line for the dry-run advice and the journal of decision d done in mode act
 * (its plan says "would evict …" unless act is ACT_WRITE), e.g.
 * "cold anon 212M file 40M (idle ≥ 2min), cooling anon 10M file 5M; psi some 0.00%; T=2min;
 *  would evict 64M (anon 48M via lru_gen max, file 16M via lru_gen 0): cold-generations".
 * Returns the length it needed (like snprintf; truncated when >= size), or -EINVAL. */
int decision_format(const struct decision *d, enum act_mode act, char *buf, size_t size);

/* The same line from a decision's summary (what the daemon keeps of a cgroup's last decision
 * and what a finished job carries, with its act): decision_format(d, act) ==
 * decision_summary_format(summary of d with act).
 * Returns what decision_format() returns. */
int decision_summary_format(const struct decision_summary *d, char *buf, size_t size);

/* Logs, at notice level, that the working set of cgroup name exceeds its limit (decision d was
 * flagged DECISION_FLAG_OVER_LIMIT): how far over the HighHeadroom= line it is, the limit and
 * the sizing; the caller says it once per cgroup. */
void decision_log_over_limit(const char *name, const struct decision *d);
