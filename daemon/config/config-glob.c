/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config-glob.c: cgroup path glob sections: validation, specificity and the effective policy
 * of a cgroup. */
#include "mglrud/config/config.h"

#include <errno.h>
#include <fnmatch.h>
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

        for (const char *p = s->glob; *p; p++) {
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

static int cmp_unsigned(unsigned a, unsigned b) {
        return (a > b) - (a < b);
}

int policy_section_specificity_cmp(const struct policy_section *a,
                                   const struct policy_section *b) {
        int r;

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



const struct policy_section *config_policy_for(const struct config *c, const char *cgroup_path,
                                               struct policy *ret) {
        const struct policy_section *best = NULL, *winner[_POLICY_KEY_MAX] = {};

        /* Per key, the most specific matching section that set it wins; this is the same as
         * applying all matches in increasing specificity, without sorting or allocating. */
        /* The root cgroup "/" has no name for a '*' to match: only "[/]" applies to it. */
        bool root = strcmp(cgroup_path, "/") == 0;

        for (size_t i = 0; i < c->n_sections; i++) {
                const struct policy_section *s = &c->sections[i];
                bool match = root ? strcmp(s->glob, "/") == 0
                                  : fnmatch(s->glob, cgroup_path, FNM_PATHNAME) == 0;
                if (!match)
                        continue;
                if (!best || policy_section_specificity_cmp(s, best) > 0)
                        best = s;
                for (unsigned k = 0; k < _POLICY_KEY_MAX; k++)
                        if ((s->set_mask & (1u << k)) &&
                            (!winner[k] || policy_section_specificity_cmp(s, winner[k]) > 0))
                                winner[k] = s;
        }

        struct policy p = c->defaults;
        for (unsigned k = 0; k < _POLICY_KEY_MAX; k++)
                if (winner[k])
                        policy_copy_key(&p, &winner[k]->policy, k);

        /* Each section is checked over [Defaults] at load time, but two sections may combine
         * into MinColdAge > MaxColdAge (a broad one raising the minimum, a narrow one lowering
         * the maximum). The bound set by the more specific section is kept and the other one
         * follows it. */
        if (p.min_cold_age_usec > p.max_cold_age_usec) {
                const struct policy_section *wmin = winner[POLICY_KEY_MIN_COLD_AGE],
                                            *wmax = winner[POLICY_KEY_MAX_COLD_AGE];
                bool max_wins = wmax && (!wmin || policy_section_specificity_cmp(wmax, wmin) > 0);
                if (max_wins)
                        p.min_cold_age_usec = p.max_cold_age_usec;
                else
                        p.max_cold_age_usec = p.min_cold_age_usec;
        }

        *ret = p;
        return best;
}
