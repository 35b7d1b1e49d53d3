/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config-glob.c: the sections that select cgroups (path globs, container kinds, annotated
 * policies): their names, specificity, and the effective policy of a cgroup. */
#include "mglrud/config/config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cgroup_glob_validate(const char *glob) {
        if (!glob || glob[0] != '/')
                return -EINVAL;
        if (strcmp(glob, "/") == 0)
                return 0;

        /* Cgroup paths are normalized ("/a/b"), so a glob with an empty, "." or ".." component
         * or a trailing slash would silently never match: reject it instead. */
        const char *p = glob;
        while (*p == '/') {
                const char *start = p + 1;
                const char *end = strchrnul(start, '/');
                size_t len = (size_t) (end - start);
                if (len == 0 || (len == 1 && start[0] == '.') ||
                    (len == 2 && start[0] == '.' && start[1] == '.'))
                        return -EINVAL;
                p = end;
        }
        return 0;
}

void policy_section_compute_specificity(struct policy_section *s) {
        unsigned components = 0, wildcards = 0, literals = 0;

        for (const char *p = s->name; *p; p++) {
                switch (*p) {
                case '/':
                        if (p[1] != '\0') /* "/" alone is the root: zero components */
                                components++;
                        break;
                case '*':
                case '?':
                        wildcards++;
                        break;
                case '\\':
                        if (p[1] != '\0')
                                p++;
                        literals++;
                        break;
                case '[': {
                        /* A bracket expression is one wildcard; an unclosed '[' is a literal
                         * for fnmatch, so count it as one. "[]...]" and "[!]...]" start with
                         * a literal ']'. */
                        const char *q = p + 1;
                        if (*q == '!' || *q == '^')
                                q++;
                        if (*q == ']')
                                q++;
                        while (*q && *q != ']' && *q != '/')
                                q++;
                        if (*q == ']') {
                                wildcards++;
                                p = q;
                        } else
                                literals++;
                        break;
                }
                default:
                        literals++;
                }
        }

        s->n_components = components;
        s->n_wildcards = wildcards;
        s->n_literals = literals;
}

/* Returns true when name can name a [Policy:NAME] section: 1..POLICY_NAME_MAX of A-Z a-z 0-9
 * '-' '_' '.'. */
static bool policy_name_valid(const char *name) {
        size_t n = 0;
        for (const char *p = name; *p; p++, n++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
                        return false;
        return n >= 1 && n <= POLICY_NAME_MAX;
}

int policy_section_parse_name(struct policy_section *s, const char *name,
                              const char **ret_reason) {
        enum section_match match;
        int selector = SECTION_SELECTOR_ANY;
        char *canonical = NULL;
        const char *v;

        if (name[0] == '/') {
                if (cgroup_glob_validate(name) < 0) {
                        *ret_reason = "invalid cgroup path glob (needs \"/a/b\" form: no empty, "
                                      "\".\" or \"..\" component, no trailing '/')";
                        return -EINVAL;
                }
                match = SECTION_MATCH_PATH;
                canonical = strdup(name);
        } else if (strncmp(name, "Container:", 10) == 0) {
                v = name + 10;
                if (strcmp(v, "*") != 0 && (selector = container_runtime_from_string(v)) < 0) {
                        *ret_reason = "unknown container runtime (expected docker, podman, "
                                      "containerd, crio or *)";
                        return -EINVAL;
                }
                match = SECTION_MATCH_CONTAINER;
                if (asprintf(&canonical, "Container:%s",
                             selector < 0 ? "*" : container_runtime_to_string(selector)) < 0)
                        canonical = NULL;
        } else if (strncmp(name, "Pod:", 4) == 0) {
                v = name + 4;
                if (strcmp(v, "*") != 0 && (selector = qos_class_from_string(v)) < 0) {
                        *ret_reason = "unknown pod QoS class (expected guaranteed, burstable, "
                                      "besteffort or *)";
                        return -EINVAL;
                }
                match = SECTION_MATCH_POD;
                if (asprintf(&canonical, "Pod:%s",
                             selector < 0 ? "*" : qos_class_to_string(selector)) < 0)
                        canonical = NULL;
                else
                        for (char *p = canonical + 4; *p; p++)
                                *p = (char) (*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
        } else if (strncmp(name, "Policy:", 7) == 0) {
                if (!policy_name_valid(name + 7)) {
                        *ret_reason = "invalid policy name (1-64 of A-Z a-z 0-9 - _ .)";
                        return -EINVAL;
                }
                match = SECTION_MATCH_POLICY;
                canonical = strdup(name);
        } else
                return -ENOENT;

        if (!canonical)
                return -ENOMEM;
        s->name = canonical;
        s->match = match;
        s->selector = selector;
        if (match == SECTION_MATCH_PATH)
                policy_section_compute_specificity(s);
        return 0;
}

/* The specificity class of a section (config.h, from least to most specific). */
static int section_rank(const struct policy_section *s) {
        switch (s->match) {
        case SECTION_MATCH_PATH:
                return s->n_wildcards > 0 ? 1 : 4;
        case SECTION_MATCH_CONTAINER:
        case SECTION_MATCH_POD:
                return s->selector == SECTION_SELECTOR_ANY ? 2 : 3;
        case SECTION_MATCH_POLICY:
                return 5;
        }
        return 0;
}

static int cmp_unsigned(unsigned a, unsigned b) {
        return (a > b) - (a < b);
}

int policy_section_specificity_cmp(const struct policy_section *a,
                                   const struct policy_section *b) {
        int r;

        r = section_rank(a) - section_rank(b);
        if (r != 0)
                return r;
        r = cmp_unsigned(a->n_components, b->n_components);
        if (r != 0)
                return r;
        r = cmp_unsigned(b->n_wildcards, a->n_wildcards); /* fewer wildcards is more specific */
        if (r != 0)
                return r;
        r = cmp_unsigned(a->n_literals, b->n_literals);
        if (r != 0)
                return r;
        return (a > b) - (a < b);
}

/* Returns true when section s selects the cgroup m describes. */
static bool section_matches(const struct policy_section *s, const struct cgroup_match *m) {
        const struct container_identity *ci = m->container;

        switch (s->match) {
        case SECTION_MATCH_PATH:
                /* The root cgroup "/" has no name for a '*' to match: only "[/]" applies. */
                if (strcmp(m->path, "/") == 0)
                        return strcmp(s->name, "/") == 0;
                return fnmatch(s->name, m->path, FNM_PATHNAME) == 0;
        case SECTION_MATCH_CONTAINER:
                return ci && ci->kind == CONTAINER_KIND_CONTAINER &&
                       (s->selector == SECTION_SELECTOR_ANY || s->selector == (int) ci->runtime);
        case SECTION_MATCH_POD:
                return ci && ci->kind == CONTAINER_KIND_POD &&
                       (s->selector == SECTION_SELECTOR_ANY || s->selector == (int) ci->qos);
        case SECTION_MATCH_POLICY:
                return m->annotation && m->annotation->policy_name[0] &&
                       strcmp(s->name + strlen("Policy:"), m->annotation->policy_name) == 0;
        }
        return false;
}

const struct policy_section *config_find_policy(const struct config *c, const char *name) {
        for (size_t i = 0; i < c->n_sections; i++)
                if (c->sections[i].match == SECTION_MATCH_POLICY &&
                    strcmp(c->sections[i].name + strlen("Policy:"), name) == 0)
                        return &c->sections[i];
        return NULL;
}

const struct policy_section *config_policy_for(const struct config *c, const struct cgroup_match *m,
                                               struct policy *ret) {
        const struct policy_section *best = NULL, *winner[_POLICY_KEY_MAX] = {};
        const struct cgroup_annotation *a = m->annotation;
        bool exact_off = false;

        /* Per key, the most specific matching section that set it wins; this is the same as
         * applying all matches in increasing specificity, without sorting or allocating. */
        for (size_t i = 0; i < c->n_sections; i++) {
                const struct policy_section *s = &c->sections[i];
                if (!section_matches(s, m))
                        continue;
                if (!best || policy_section_specificity_cmp(s, best) > 0)
                        best = s;
                if (section_rank(s) == 4 && (s->set_mask & (1u << POLICY_KEY_MODE)) &&
                    s->policy.mode == POLICY_MODE_OFF)
                        exact_off = true;
                for (unsigned k = 0; k < _POLICY_KEY_MAX; k++)
                        if ((s->set_mask & (1u << k)) &&
                            (!winner[k] || policy_section_specificity_cmp(s, winner[k]) > 0))
                                winner[k] = s;
        }

        struct policy p = c->defaults;
        for (unsigned k = 0; k < _POLICY_KEY_MAX; k++)
                if (winner[k])
                        policy_copy_key(&p, &winner[k]->policy, k);
        uint32_t annotated = a ? a->set_mask : 0;
        if (annotated)
                policy_copy_keys(&p, &a->overrides, annotated);
        /* What the administrator turned off for this one cgroup stays off: [Policy:NAME] and
         * the keys come from whoever could write its xattrs. */
        if (exact_off)
                p.mode = POLICY_MODE_OFF;

        /* Each section is checked over [Defaults] at load time, but two sources may combine
         * into MinColdAge > MaxColdAge (a broad one raising the minimum, a narrow one lowering
         * the maximum). The bound set by the more specific one is kept and the other one
         * follows it; the annotation is the most specific of all. */
        if (p.min_cold_age_usec > p.max_cold_age_usec) {
                const struct policy_section *wmin = winner[POLICY_KEY_MIN_COLD_AGE],
                                            *wmax = winner[POLICY_KEY_MAX_COLD_AGE];
                bool amin = annotated & (1u << POLICY_KEY_MIN_COLD_AGE),
                     amax = annotated & (1u << POLICY_KEY_MAX_COLD_AGE);
                bool max_wins = amin || amax
                                        ? amax && !amin
                                        : wmax && (!wmin || policy_section_specificity_cmp(
                                                                    wmax, wmin) > 0);
                if (max_wins)
                        p.min_cold_age_usec = p.max_cold_age_usec;
                else
                        p.max_cold_age_usec = p.min_cold_age_usec;
        }

        *ret = p;
        return best;
}

bool config_manages(const struct policy_section *s, const struct policy *p) {
        return s && p->mode != POLICY_MODE_OFF;
}

bool config_annotation_key_allowed(enum policy_key k) {
        return k >= 0 && k < _POLICY_KEY_MAX && k != POLICY_KEY_SWAPPINESS;
}

int config_annotation_add(struct cgroup_annotation *a, const char *key, const char *value,
                          const char **ret_reason) {
        if (strcmp(key, "policy") == 0) {
                if (!policy_name_valid(value)) {
                        *ret_reason = "invalid policy name (1-64 of A-Z a-z 0-9 - _ .)";
                        return -EINVAL;
                }
                snprintf(a->policy_name, sizeof a->policy_name, "%s", value);
                return 0;
        }
        int k = policy_key_from_string(key);
        if (k < 0) {
                *ret_reason = "unknown policy key";
                return -EINVAL;
        }
        if (!config_annotation_key_allowed(k)) {
                *ret_reason = "not allowed in an annotation (the configuration's sections set it)";
                return -EINVAL;
        }
        if (!*value) {
                *ret_reason = "empty value";
                return -EINVAL;
        }
        struct policy p = a->overrides;
        int r = config_parse_policy_key(&p, k, value, ret_reason);
        if (r < 0)
                return r;
        a->overrides = p;
        a->set_mask |= 1u << k;
        return 0;
}

int config_annotation_from_xattrs(const struct cgroup_xattrs *x, struct cgroup_annotation *ret,
                                  annotation_refused_fn refused, void *userdata) {
        struct cgroup_annotation a = {};
        const char *reason;
        int n_refused = 0;

        policy_init_defaults(&a.overrides);
        for (size_t i = 0; i < x->n; i++)
                if (config_annotation_add(&a, x->items[i].name, x->items[i].value, &reason) < 0) {
                        n_refused++;
                        if (refused)
                                refused(x->items[i].name, x->items[i].value, reason, userdata);
                }
        const uint32_t both = (1u << POLICY_KEY_MIN_COLD_AGE) | (1u << POLICY_KEY_MAX_COLD_AGE);
        if ((a.set_mask & both) == both &&
            a.overrides.min_cold_age_usec > a.overrides.max_cold_age_usec) {
                /* Neither is more specific than the other: both go. */
                a.set_mask &= ~both;
                n_refused += 2;
                if (refused) {
                        refused("MinColdAge", cgroup_xattrs_get(x, "MinColdAge") ?: "",
                                "greater than MaxColdAge", userdata);
                        refused("MaxColdAge", cgroup_xattrs_get(x, "MaxColdAge") ?: "",
                                "less than MinColdAge", userdata);
                }
        }
        *ret = a;
        return n_refused;
}
