/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup-attributes.h: a cgroup's user.mglrud.* xattrs as discovery takes them: only where
 * [Daemon] CgroupAttributes= trusts the directory's owner, checked key by key, bounded by the
 * configuration (config.h, config_annotation_bound), and whatever was refused or clamped
 * logged once per cgroup (man/mglrud.8, SECURITY). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mglrud/config/config.h"

/* Which cgroups' refusals were logged, and of what (a fingerprint of the messages). */
struct attribute_note {
        uint64_t id;
        uint64_t fingerprint;
};

struct attribute_notes {
        struct attribute_note *said;   /* by the last walk, sorted by id */
        size_t n_said;
        struct attribute_note *saying; /* by the walk under way */
        size_t n_saying, cap_saying;
};

/* Reads the annotation of the cgroup directory dirfd (the cgroup m describes: path and
 * container, m->annotation is not read; id its cgroup id) into *ret, as far as c lets it
 * count for a daemon running as self_uid: nothing when CgroupAttributes= does not trust the
 * directory, else the entries config_annotation_from_xattrs takes, a policy name only when c
 * has that [Policy:NAME], and the keys bounded by config_annotation_bound. What was refused
 * or clamped is logged (notice), once for each cgroup while the messages stay the same.
 * *ret is always written (empty on any error: a vanished cgroup, no user xattrs). */
void cgroup_attributes_read(struct attribute_notes *notes, const struct config *c,
                            unsigned self_uid, int dirfd, uint64_t id,
                            const struct cgroup_match *m, struct cgroup_annotation *ret);

/* Ends a walk: what it logged becomes what the next walk compares with (a cgroup it did not
 * see, or that had nothing to say, is said again when it shows up with something). */
void attribute_notes_walk_done(struct attribute_notes *notes);

void attribute_notes_done(struct attribute_notes *notes);
