/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the configuration files: drop-ins, sections merged across files, glob
 * precedence, and the shipped etc/mglrud.conf and etc/examples. */

#include "config-helpers.h"

static void write_file(const char *dir, const char *name, const char *text) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        assert_int_equal(fputs(text, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
}

static void rm_rf(const char *path) {
        DIR *d = opendir(path);
        if (!d) {
                unlink(path);
                return;
        }
        struct dirent *de;
        while ((de = readdir(d))) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                char p[512];
                snprintf(p, sizeof p, "%s/%s", path, de->d_name);
                rm_rf(p);
        }
        closedir(d);
        rmdir(path);
}

/* ---- tests ---- */

static void test_glob_precedence(void **state) {
        static const char text[] =
                "[/a.slice/b.service]\n"        /* 0: 2 components, 0 wildcards */
                "Floor=1M\n"
                "[/a.slice/*]\n"                /* 1: 2 components, 1 wildcard */
                "Floor=2M\nMaxStep=8M\nSwappiness=10\n"
                "[/*]\n"                        /* 2: 1 component */
                "Floor=3M\nMaxStep=16M\nSwappiness=20\nMode=advise\n"
                "[/a.slice/b*]\n"               /* 3: 2 components, 1 wildcard, 8 literals */
                "Swappiness=30\n"
                "[/a.slice/?.service]\n"        /* 4: 2 components, 1 wildcard, 15 literals */
                "Swappiness=40\n"
                "[/a.slice/*.service]\n"        /* 5: same counts as 4, later: wins the tie */
                "Swappiness=50\n"
                "[/a.slice/b.service/*]\n"      /* 6: 3 components */
                "Mode=off\n"
                "[/]\n"                         /* 7: the root cgroup only */
                "Mode=pressure\n";
        struct config c;
        struct policy p;
        const struct policy_section *s;

        config_init(&c);
        assert_int_equal(config_load_string(text, "g.conf", &c), 0);
        assert_int_equal(c.n_sections, 8);
        assert_int_equal(c.sections[4].n_components, 2);
        assert_int_equal(c.sections[4].n_wildcards, 1);
        assert_int_equal(c.sections[4].n_literals, 15);
        assert_int_equal(c.sections[7].n_components, 0);

        /* 0, 1, 3, 4, 5 match (section 2 does not: one component): Floor from 0, MaxStep from 1,
         * Swappiness from 5, Mode from [Defaults] */
        s = policy_for_path(&c, "/a.slice/b.service", &p);
        assert_ptr_equal(s, &c.sections[0]);
        assert_int_equal(p.floor_bytes, 1 * MiB);
        assert_int_equal(p.max_step_bytes, 8 * MiB);
        assert_int_equal(p.swappiness, 50);
        assert_int_equal(p.mode, POLICY_MODE_ACTIVE);

        /* 1, 2, 3 match: 3 has more literals than 1 */
        s = policy_for_path(&c, "/a.slice/bx.scope", &p);
        assert_ptr_equal(s, &c.sections[3]);
        assert_int_equal(p.swappiness, 30);
        assert_int_equal(p.floor_bytes, 2 * MiB);

        /* '*' does not cross '/': only 6 matches the grandchild */
        s = policy_for_path(&c, "/a.slice/b.service/x", &p);
        assert_ptr_equal(s, &c.sections[6]);
        assert_int_equal(p.mode, POLICY_MODE_OFF);
        assert_int_equal(p.floor_bytes, 0);
        assert_null(policy_for_path(&c, "/a.slice/c.scope/x", &p));
        assert_policy_equal(&p, &c.defaults);

        /* the root matches only "[/]", not section 2 (whose '*' would match the empty name) */
        s = policy_for_path(&c, "/", &p);
        assert_ptr_equal(s, &c.sections[7]);
        assert_int_equal(p.mode, POLICY_MODE_PRESSURE);
        s = policy_for_path(&c, "/user.slice", &p);
        assert_ptr_equal(s, &c.sections[2]);
        config_done(&c);
}

static void test_long_and_bracket_globs(void **state) {
        /* inih alone would cut these at 49 bytes and at the first ']' */
        static const char text[] =
                "[/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod*.slice]\n"
                "Floor=7M\n"
                "[/system.slice/docker-[0-9a-f]*.scope] ; a comment\n"
                "Floor=9M\n";
        struct config c;
        struct policy p;

        config_init(&c);
        assert_int_equal(config_load_string(text, "l.conf", &c), 0);
        assert_int_equal(cap.n, 0);
        assert_non_null(policy_for_path(
                &c, "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12_34.slice", &p));
        assert_int_equal(p.floor_bytes, 7 * MiB);
        assert_non_null(policy_for_path(&c, "/system.slice/docker-0af.scope", &p));
        assert_int_equal(p.floor_bytes, 9 * MiB);
        assert_int_equal(c.sections[1].n_wildcards, 2);
        config_done(&c);
}

static void test_combined_cold_ages(void **state) {
        /* each section is valid over [Defaults], their combination is not: the more specific
         * section's bound wins */
        static const char text[] = "[/a/*]\nMinColdAge=10min\n[/a/b]\nMaxColdAge=5min\n"
                                   "[/c/d]\nMinColdAge=10min\n[/c/*]\nMaxColdAge=5min\n";
        struct config c;
        struct policy p;

        config_init(&c);
        assert_int_equal(config_load_string(text, "c.conf", &c), 0);
        assert_non_null(policy_for_path(&c, "/a/b", &p));
        assert_int_equal(p.min_cold_age_usec, 5 * USEC_PER_MIN);
        assert_int_equal(p.max_cold_age_usec, 5 * USEC_PER_MIN);
        assert_non_null(policy_for_path(&c, "/c/d", &p));
        assert_int_equal(p.min_cold_age_usec, 10 * USEC_PER_MIN);
        assert_int_equal(p.max_cold_age_usec, 10 * USEC_PER_MIN);
        config_done(&c);
}

static void test_dropins(void **state) {
        char tmpl[] = "/tmp/test-config-XXXXXX";
        char *dir = mkdtemp(tmpl);
        char main_path[256], dropins[256];
        char **files = NULL;
        struct config c;
        struct policy p;

        assert_non_null(dir);
        snprintf(main_path, sizeof main_path, "%s/mglrud.conf", dir);
        snprintf(dropins, sizeof dropins, "%s/mglrud.conf.d", dir);
        assert_int_equal(mkdir(dropins, 0755), 0);

        write_file(dir, "mglrud.conf",
                   "[Daemon]\nInterval=20s\n"
                   "[Defaults]\nMinColdAge=30min\n" /* > built-in MaxColdAge: fixed by 10-a */
                   "[/x.slice]\nMode=off\nMaxStep=1M\n");
        write_file(dropins, "10-a.conf", "[Defaults]\nMaxColdAge=1h\n[/x.slice]\nMaxStep=2M\n");
        write_file(dropins, "9-b.conf", "[Daemon]\nInterval=40s\n"); /* "9-" sorts after "20-" */
        write_file(dropins, "20-c.conf", "[Daemon]\nInterval=30s\n[/y]\nFloor=1M\n");
        write_file(dropins, ".hidden.conf", "garbage\n");
        write_file(dropins, "notes.txt", "garbage\n");
        write_file(dropins, ".conf", "garbage\n");
        char path[512];
        snprintf(path, sizeof path, "%s/dir.conf", dropins);
        assert_int_equal(mkdir(path, 0755), 0);
        snprintf(path, sizeof path, "%s/30-masked.conf", dropins); /* masked, as in systemd */
        assert_int_equal(symlink("/dev/null", path), 0);

        assert_int_equal(config_list_files(main_path, dropins, &files), 0);
        const char *expected[] = { "mglrud.conf", "mglrud.conf.d/10-a.conf",
                                   "mglrud.conf.d/20-c.conf", "mglrud.conf.d/9-b.conf" };
        size_t n = 0;
        for (; files[n]; n++) {
                char want[512];
                assert_true(n < 4);
                snprintf(want, sizeof want, "%s/%s", dir, expected[n]);
                assert_string_equal(files[n], want);
        }
        assert_int_equal(n, 4);
        config_files_free(files);

        config_init(&c);
        assert_int_equal(config_load(main_path, dropins, &c, NULL), 0);
        assert_int_equal(cap.n, 0);
        assert_int_equal(c.interval_usec, 40 * USEC_PER_SEC); /* 9-b.conf is last */
        assert_int_equal(c.defaults.min_cold_age_usec, 30 * USEC_PER_MIN);
        assert_int_equal(c.defaults.max_cold_age_usec, 60 * USEC_PER_MIN);

        /* [/x.slice] merged across files: Mode from main, MaxStep from 10-a */
        assert_int_equal(c.n_sections, 2);
        assert_string_equal(c.sections[0].name, "/x.slice");
        assert_int_equal(c.sections[0].line, 3);
        assert_true(strstr(c.sections[0].file, "10-a.conf") != NULL);
        assert_non_null(policy_for_path(&c, "/x.slice", &p));
        assert_int_equal(p.mode, POLICY_MODE_OFF);
        assert_int_equal(p.max_step_bytes, 2 * MiB);
        assert_int_equal(p.max_cold_age_usec, 60 * USEC_PER_MIN);

        /* a bad drop-in: error names it, the loaded config stays */
        struct config orig;
        config_init(&orig);
        assert_int_equal(config_copy(&c, &orig), 0);
        write_file(dropins, "90-bad.conf", "[/y]\n\nSwappiness=lots\n");
        capture_reset();
        assert_int_equal(config_load(main_path, dropins, &c, NULL), -EINVAL);
        assert_int_equal(cap.n, 1);
        char want[512];
        snprintf(want, sizeof want,
                 "%s/90-bad.conf:3: [/y] Swappiness=lots: expected 0..200, max or auto", dropins);
        assert_string_equal(cap.msg[0], want);
        assert_config_equal(&c, &orig);

        /* unreadable main path (a directory) is an I/O error, not a silent default */
        capture_reset();
        assert_true(config_load(dropins, NULL, &c, NULL) < 0);
        assert_int_equal(count_level(LOG_ERR), 1);
        assert_config_equal(&c, &orig);

        config_done(&orig);
        config_done(&c);
        rm_rf(dir);
}

/* config_load_buffers: what config_load does with the files it read, without files (the
 * fuzzer's entry point): sections merge across buffers, and text is taken by length. */
static void test_buffers(void **state) {
        static const char main_text[] = "[Defaults]\nMode=advise\n[/x.slice]\nFloor=1M\n";
        static const char dropin_text[] = "\n[/x.slice]\nMaxStep=2M\n[/y]\nFloor=3M\n";
        static const char nul_text[] = "[/y]\nFloor=1M\0junk\n";
        const struct config_buffer files[] = {
                { .filename = "main.conf", .text = main_text, .len = strlen(main_text) },
                /* the length, not a NUL, ends the text: [/y] is left out */
                { .filename = "10-a.conf", .text = dropin_text, .len = 22 },
        };
        struct config c, orig;
        struct policy p;

        config_init(&c);
        assert_int_equal(config_load_buffers(files, 2, &c), 0);
        assert_int_equal(cap.n, 0);
        assert_int_equal(c.n_sections, 1);
        assert_string_equal(c.sections[0].file, "10-a.conf");
        assert_int_equal(c.sections[0].line, 2);
        assert_non_null(policy_for_path(&c, "/x.slice", &p));
        assert_int_equal(p.mode, POLICY_MODE_ADVISE);
        assert_int_equal(p.floor_bytes, 1 * MiB);
        assert_int_equal(p.max_step_bytes, 2 * MiB);

        /* a NUL byte inside a line is an error that names the file and line */
        const struct config_buffer bad = { .filename = "nul.conf", .text = nul_text,
                                           .len = sizeof nul_text - 1 };
        config_init(&orig);
        assert_int_equal(config_copy(&c, &orig), 0);
        assert_int_equal(config_load_buffers(&bad, 1, &c), -EINVAL);
        assert_int_equal(cap.n, 1);
        assert_string_equal(cap.msg[0], "nul.conf:2: [/y] line contains a NUL byte");
        assert_config_equal(&c, &orig);
        config_done(&orig);
        config_done(&c);
}

static void test_missing_files(void **state) {
        struct config c, def;
        char **files = NULL;

        assert_int_equal(config_list_files("/nonexistent/mglrud.conf", "/nonexistent/d", &files), 0);
        assert_null(files[0]);
        config_files_free(files);
        assert_int_equal(config_list_files(NULL, NULL, &files), 0);
        assert_null(files[0]);
        config_files_free(files);

        /* A missing main file is an error (a typo in --config must not mean "manage nothing"),
         * named in the message; the configuration in force stays. A missing drop-in directory
         * is fine. */
        config_init(&c);
        config_init(&def);
        assert_int_equal(config_load_string("[/x]\nFloor=1M\n", "t.conf", &c), 0);
        struct config before;
        assert_int_equal(config_copy(&c, &before), 0);
        char *why = NULL;
        assert_int_equal(config_load("/nonexistent/mglrud.conf", "/nonexistent/d", &c, &why), -ENOENT);
        assert_non_null(why);
        assert_string_equal(why, "/nonexistent/mglrud.conf: No such file or directory");
        free(why);
        assert_config_equal(&c, &before);
        config_done(&before);
        config_done(&c);
        config_done(&def);
}

/* The shipped file documents every key at its built-in default: parsing it must change
 * nothing and warn about nothing. */
static void test_shipped_config(void **state) {
        const char *root = getenv("MGLRUD_SOURCE_ROOT");
        char path[512], dir[512];
        struct config c, def;

        assert_non_null(root);
        snprintf(path, sizeof path, "%s/etc/mglrud.conf", root);
        snprintf(dir, sizeof dir, "%s/etc/no-such-dir", root);
        config_init(&c);
        config_init(&def);
        assert_int_equal(config_load(path, dir, &c, NULL), 0);
        assert_int_equal(cap.n, 0);
        assert_config_equal(&c, &def);
        assert_int_equal(c.n_sections, 0);
        config_done(&c);

        /* With the package's drop-in: advice on every top-level slice, container and pod,
         * Mode=advise and nothing else, over the built-in defaults. */
        snprintf(dir, sizeof dir, "%s/etc/mglrud.conf.d", root);
        config_init(&c);
        assert_int_equal(config_load(path, dir, &c, NULL), 0);
        assert_int_equal(cap.n, 0);
        assert_daemon_equal(&c, &def);
        assert_policy_equal(&c.defaults, &def.defaults);
        static const char *const first_look[] = { "/*.slice", "Container:*", "Pod:*" };
        assert_int_equal(c.n_sections, ELEMENTSOF(first_look));
        for (size_t i = 0; i < ELEMENTSOF(first_look); i++) {
                assert_string_equal(c.sections[i].name, first_look[i]);
                assert_int_equal(c.sections[i].set_mask, 1u << POLICY_KEY_MODE);
                assert_int_equal(c.sections[i].policy.mode, POLICY_MODE_ADVISE);
        }
        config_done(&c);
        config_init(&c);

        /* Uncommenting every "#Key=value" line must also give the built-in defaults. */
        FILE *f = fopen(path, "re");
        assert_non_null(f);
        char *text = NULL, *line = NULL;
        size_t text_len = 0, line_size = 0;
        FILE *out = open_memstream(&text, &text_len);
        assert_non_null(out);
        unsigned n_keys = 0;
        while (getline(&line, &line_size, f) > 0) {
                if (line[0] != '#')
                        fputs(line, out);
                else if (line[1] >= 'A' && line[1] <= 'Z' && strchr(line, '=') &&
                         !strchr(line, ' ')) {
                        fputs(line + 1, out);
                        n_keys++;
                }
        }
        free(line);
        fclose(f);
        fclose(out);
        assert_int_equal(n_keys, _DAEMON_KEY_MAX + _POLICY_KEY_MAX);
        assert_int_equal(config_load_string(text, path, &c), 0);
        assert_int_equal(cap.n, 0);
        assert_config_equal(&c, &def);
        /* all but CgroupRoot, whose default is the empty value that means "not set" */
        assert_int_equal(c.daemon_set_mask,
                         ((1u << _DAEMON_KEY_MAX) - 1) & ~(1u << DAEMON_KEY_CGROUP_ROOT));
        assert_int_equal(c.defaults_set_mask, (1u << _POLICY_KEY_MAX) - 1);
        free(text);
        config_done(&c);
}

/* Every example drop-in loads over the shipped file without errors or warnings. */
static void test_examples(void **state) {
        const char *root = getenv("MGLRUD_SOURCE_ROOT");
        char main_path[512], dir[512];
        unsigned n = 0;

        assert_non_null(root);
        snprintf(main_path, sizeof main_path, "%s/etc/mglrud.conf", root);
        snprintf(dir, sizeof dir, "%s/etc/examples", root);

        char **files = NULL;
        assert_int_equal(config_list_files(NULL, dir, &files), 0);
        for (char **p = files; *p; p++, n++) {
                struct config c;
                config_init(&c);
                capture_reset();
                assert_int_equal(config_load(*p, NULL, &c, NULL), 0);
                assert_int_equal(cap.n, 0);
                assert_true(c.n_sections > 0);
                config_done(&c);
        }
        config_files_free(files);
        assert_int_equal(n, 3);

        struct config all;
        config_init(&all);
        assert_int_equal(config_load(main_path, dir, &all, NULL), 0);
        assert_int_equal(cap.n, 0);

        /* and what --check-config prints for them parses back to the same settings */
        char *buf = config_dump_string(&all);
        assert_dump_reloads(&all, buf);
        free(buf);
        config_done(&all);
}

/* Loads dir/mglrud.conf and dir/d; returns config_load's result with its first error in why
 * (freed by the next call; "" when none). */
static int load_in(const char *dir, char **why) {
        char main_path[512], dropins[512];
        struct config c;

        free(*why);
        *why = NULL;
        snprintf(main_path, sizeof main_path, "%s/mglrud.conf", dir);
        snprintf(dropins, sizeof dropins, "%s/d", dir);
        config_init(&c);
        int r = config_load(main_path, dropins, &c, why);
        config_done(&c);
        if (!*why)
                *why = strdup("");
        return r;
}

/* Who may have written a path (config_path_trusted): root or the running uid, nobody else. */
static void test_path_trust(void **state) {
        char why[128];
        const unsigned self = 4242;

        assert_true(config_path_trusted(CONFIG_PATH_FILE, 0, 0644, self, why, sizeof why));
        assert_true(config_path_trusted(CONFIG_PATH_FILE, self, 0600, self, why, sizeof why));
        assert_false(config_path_trusted(CONFIG_PATH_FILE, 1000, 0644, self, why, sizeof why));
        assert_string_equal(why, "owned by uid 1000, not root");
        assert_false(config_path_trusted(CONFIG_PATH_FILE, 0, 0664, self, why, sizeof why));
        assert_string_equal(why, "writable by its group (mode 0664)");
        /* a sticky directory (/tmp) may hold a file, but not be the drop-in directory */
        assert_true(config_path_trusted(CONFIG_PATH_PARENT, 0, 01777, self, why, sizeof why));
        assert_false(config_path_trusted(CONFIG_PATH_PARENT, 0, 0777, self, why, sizeof why));
        assert_string_equal(why, "writable by everyone (mode 0777)");
        assert_false(config_path_trusted(CONFIG_PATH_DROPIN_DIR, 0, 01777, self, why, sizeof why));
        /* a symlink's mode means nothing, its owner does */
        assert_true(config_path_trusted(CONFIG_PATH_SYMLINK, 0, 0777, self, why, sizeof why));
        assert_false(config_path_trusted(CONFIG_PATH_SYMLINK, 1000, 0777, self, why, sizeof why));
}

/* config_load refuses a file, a drop-in directory, a symlink or what it points to, or a
 * directory holding one, that someone else could have written (the owner cases as root). */
static void test_untrusted_paths(void **state) {
        char tmpl[] = "/tmp/mglrud-trust-XXXXXX", other_tmpl[] = "/tmp/mglrud-other-XXXXXX";
        char *dir = mkdtemp(tmpl), *other = mkdtemp(other_tmpl), *why = NULL;
        char p[512], q[512], expect[1024];

        if (!dir || !other) {
                fail_msg("mkdtemp: %m");
                return;
        }
        write_file(dir, "mglrud.conf", "[Defaults]\nFloor=1M\n");
        snprintf(p, sizeof p, "%s/mglrud.conf", dir);
        snprintf(q, sizeof q, "%s/d", dir);
        assert_int_equal(mkdir(q, 0755), 0);
        assert_int_equal(load_in(dir, &why), 0);

        assert_int_equal(chmod(p, 0664), 0);
        assert_int_equal(load_in(dir, &why), -EPERM);
        snprintf(expect, sizeof expect, "%s: writable by its group (mode 0664): refusing it.", p);
        assert_string_equal(why, expect);
        assert_int_equal(chmod(p, 0644), 0);

        /* its directory: world-writable is refused, sticky (as /tmp) is not */
        assert_int_equal(chmod(dir, 0777), 0);
        assert_int_equal(load_in(dir, &why), -EPERM);
        /* (the drop-in directory is checked first: it is in there too) */
        snprintf(expect, sizeof expect, "%s: the directory %s is writable by everyone (mode 0777): "
                 "refusing it.", q, dir);
        assert_string_equal(why, expect);
        assert_int_equal(chmod(dir, 01777), 0);
        assert_int_equal(load_in(dir, &why), 0);
        assert_int_equal(chmod(dir, 0700), 0);

        /* the drop-in directory: not even sticky */
        assert_int_equal(chmod(q, 01777), 0);
        assert_int_equal(load_in(dir, &why), -EPERM);
        snprintf(expect, sizeof expect, "%s: writable by everyone (mode 1777): refusing it.", q);
        assert_string_equal(why, expect);
        assert_int_equal(chmod(q, 0755), 0);

        /* a drop-in linked from elsewhere: what it links to, and the directory that is in */
        write_file(other, "x.conf", "[Defaults]\nFloor=2M\n");
        char target[512], link[512];
        snprintf(target, sizeof target, "%s/x.conf", other);
        snprintf(link, sizeof link, "%s/d/50-x.conf", dir);
        assert_int_equal(symlink(target, link), 0);
        assert_int_equal(load_in(dir, &why), 0);
        assert_int_equal(chmod(target, 0666), 0);
        assert_int_equal(load_in(dir, &why), -EPERM);
        snprintf(expect, sizeof expect, "%s: what it links to is writable by everyone (mode 0666): "
                 "refusing it.", link);
        assert_string_equal(why, expect);
        assert_int_equal(chmod(target, 0644), 0);
        assert_int_equal(chmod(other, 0775), 0);
        assert_int_equal(load_in(dir, &why), -EPERM);
        snprintf(expect, sizeof expect, "%s: the directory %s is writable by its group (mode 0775): "
                 "refusing it.", link, other);
        assert_string_equal(why, expect);
        assert_int_equal(chmod(other, 0700), 0);
        assert_int_equal(load_in(dir, &why), 0);

        if (geteuid() == 0) {
                /* owners: the symlink, the file, the drop-in directory */
                assert_int_equal(lchown(link, 1000, 1000), 0);
                assert_int_equal(load_in(dir, &why), -EPERM);
                snprintf(expect, sizeof expect, "%s: a symlink owned by uid 1000, not root: "
                         "refusing it.", link);
                assert_string_equal(why, expect);
                assert_int_equal(lchown(link, 0, 0), 0);
                assert_int_equal(chown(p, 1000, 1000), 0);
                assert_int_equal(load_in(dir, &why), -EPERM);
                snprintf(expect, sizeof expect, "%s: owned by uid 1000, not root: refusing it.", p);
                assert_string_equal(why, expect);
                assert_int_equal(chown(p, 0, 0), 0);
                assert_int_equal(chown(q, 1000, 1000), 0);
                assert_int_equal(load_in(dir, &why), -EPERM);
                assert_int_equal(chown(q, 0, 0), 0);
                assert_int_equal(load_in(dir, &why), 0);
        }
        free(why);
        rm_rf(dir);
        rm_rf(other);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_glob_precedence, setup, teardown),
                cmocka_unit_test_setup_teardown(test_long_and_bracket_globs, setup, teardown),
                cmocka_unit_test_setup_teardown(test_combined_cold_ages, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dropins, setup, teardown),
                cmocka_unit_test_setup_teardown(test_buffers, setup, teardown),
                cmocka_unit_test_setup_teardown(test_missing_files, setup, teardown),
                cmocka_unit_test_setup_teardown(test_shipped_config, setup, teardown),
                cmocka_unit_test_setup_teardown(test_examples, setup, teardown),
                cmocka_unit_test_setup_teardown(test_path_trust, setup, teardown),
                cmocka_unit_test_setup_teardown(test_untrusted_paths, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
