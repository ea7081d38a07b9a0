/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loader behaviour on temporary trees, always through --root, the way
 * policyctl --root and the system see them. */

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "config-trust.h"
#include "policy-load.h"

typedef struct Tree {
        char *root;
        GPtrArray *paths; /* owns what put() returns */
} Tree;

static void tree_setup(Tree *t, gconstpointer data) {
        g_autoptr(GError) error = NULL;
        t->root = g_dir_make_tmp("policy-load-XXXXXX", &error);
        t->paths = g_ptr_array_new_with_free_func(g_free);
        g_assert_no_error(error);
}

static int remove_tree(const char *path) {
        g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
        const char *e;
        while (d && (e = g_dir_read_name(d))) {
                g_autofree char *p = g_build_filename(path, e, NULL);
                if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
                        remove_tree(p);
                else
                        g_unlink(p);
        }
        return g_rmdir(path);
}

static void tree_teardown(Tree *t, gconstpointer data) {
        remove_tree(t->root);
        g_free(t->root);
        g_ptr_array_unref(t->paths);
}

/* Writes root/relpath, creating directories on the way; returns the path. */
static const char *put(Tree *t, const char *relpath, const char *content) {
        g_autoptr(GError) error = NULL;
        char *p = g_build_filename(t->root, relpath, NULL);
        g_autofree char *dir = g_path_get_dirname(p);
        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_assert_true(g_file_set_contents(p, content, -1, &error));
        g_assert_cmpint(chmod(p, 0644), ==, 0);
        g_ptr_array_add(t->paths, p);
        return p;
}

static void put_symlink(Tree *t, const char *relpath, const char *target) {
        g_autofree char *p = g_build_filename(t->root, relpath, NULL);
        g_autofree char *dir = g_path_get_dirname(p);
        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_assert_cmpint(symlink(target, p), ==, 0);
}

static PolicySet *load(Tree *t, Diagnostics *d) {
        PolicySet *set = NULL;
        g_assert_cmpint(policy_set_load(t->root, NULL, &set, d), ==, 0);
        return set;
}

static const PolicyGroup *must_get(const PolicySet *set, const char *name) {
        const PolicyGroup *g = policy_set_get(set, name);
        if (!g)
                g_error("group '%s' was not loaded", name);
        return g;
}

static void test_etc_beats_run_beats_local_beats_usr(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "usr/lib/policy.d/a.policy", "[PolicyGroup]\nDescription=usr\n");
        put(t, "usr/local/lib/policy.d/a.policy", "[PolicyGroup]\nDescription=local\n");
        put(t, "run/policy.d/a.policy", "[PolicyGroup]\nDescription=run\n");
        put(t, "etc/policy.d/a.policy", "[PolicyGroup]\nDescription=etc\n");
        put(t, "usr/lib/policy.d/b.policy", "[PolicyGroup]\nDescription=usr\n");
        put(t, "usr/local/lib/policy.d/b.policy", "[PolicyGroup]\nDescription=local\n");
        put(t, "run/policy.d/b.policy", "[PolicyGroup]\nDescription=run\n");
        put(t, "usr/lib/policy.d/c.policy", "[PolicyGroup]\nDescription=usr\n");
        put(t, "usr/local/lib/policy.d/c.policy", "[PolicyGroup]\nDescription=local\n");
        put(t, "usr/lib/policy.d/d.policy", "[PolicyGroup]\nDescription=usr\n");

        g_autoptr(PolicySet) set = load(t, d);
        g_assert_cmpstr(must_get(set, "a")->description, ==, "etc");
        g_assert_cmpstr(must_get(set, "b")->description, ==, "run");
        g_assert_cmpstr(must_get(set, "c")->description, ==, "local");
        g_assert_cmpstr(must_get(set, "d")->description, ==, "usr");
        g_autofree char *want = g_build_filename(t->root, "etc/policy.d/a.policy", NULL);
        g_assert_cmpstr(must_get(set, "a")->file, ==, want);
        g_assert_cmpuint(d->items->len, ==, 0);
}

static void test_main_files_do_not_merge(Tree *t, gconstpointer data) {
        /* The winner replaces the weaker file whole: keys it does not set are not inherited. */
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "usr/lib/policy.d/a.policy", "[PolicyGroup]\nPriority=7\n[Swap]\nSwapMax=1G\n");
        put(t, "etc/policy.d/a.policy", "[PolicyGroup]\nDescription=etc\n");
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_cmpuint(must_get(set, "a")->priority, ==, 0);
        g_assert_false(must_get(set, "a")->knobs[KNOB_SWAP_MAX].set);
}

static void test_mask_with_dev_null_symlink(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "usr/lib/policy.d/a.policy", "[PolicyGroup]\nDescription=usr\n");
        put(t, "usr/lib/policy.d/a.policy.d/10-x.conf", "[PolicyGroup]\nPriority=5\n");
        put_symlink(t, "etc/policy.d/a.policy", "/dev/null");
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_null(policy_set_get(set, "a"));
        g_assert_cmpuint(set->masked->len, ==, 1);
        g_assert_cmpstr(g_ptr_array_index(set->masked, 0), ==, "a");
}

static void test_mask_with_empty_file(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "usr/lib/policy.d/a.policy", "[PolicyGroup]\nDescription=usr\n");
        put(t, "run/policy.d/a.policy", "");
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_null(policy_set_get(set, "a"));
        g_assert_cmpuint(set->masked->len, ==, 1);
}

static void test_mask_in_weaker_dir_does_not_hide_stronger(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "etc/policy.d/a.policy", "[PolicyGroup]\nDescription=etc\n");
        put_symlink(t, "usr/lib/policy.d/a.policy", "/dev/null");
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_cmpstr(must_get(set, "a")->description, ==, "etc");
}

static void test_dropins_from_all_dirs_in_lexical_order(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "usr/lib/policy.d/a.policy", "[PolicyGroup]\nDescription=main\n");
        /* Lexical order by file name, whatever the directory: 10 < 20 < 30. */
        put(t, "etc/policy.d/a.policy.d/10-etc.conf", "[PolicyGroup]\nDescription=etc10\nPriority=10\n");
        put(t, "usr/lib/policy.d/a.policy.d/20-usr.conf", "[PolicyGroup]\nDescription=usr20\n");
        put(t, "run/policy.d/a.policy.d/30-run.conf", "[PolicyGroup]\nPriority=30\n");
        g_autoptr(PolicySet) set = load(t, d);
        const PolicyGroup *g = must_get(set, "a");
        g_assert_cmpstr(g->description, ==, "usr20");
        g_assert_cmpuint(g->priority, ==, 30);
        g_assert_cmpuint(g->dropins->len, ==, 3);
        g_assert_true(g_str_has_suffix(g_ptr_array_index(g->dropins, 0), "etc/policy.d/a.policy.d/10-etc.conf"));
        g_assert_true(g_str_has_suffix(g_ptr_array_index(g->dropins, 1), "usr/lib/policy.d/a.policy.d/20-usr.conf"));
        g_assert_true(g_str_has_suffix(g_ptr_array_index(g->dropins, 2), "run/policy.d/a.policy.d/30-run.conf"));
}

static void test_same_named_dropin_in_stronger_dir_replaces(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "usr/lib/policy.d/a.policy", "[PolicyGroup]\n");
        put(t, "usr/lib/policy.d/a.policy.d/50-x.conf", "[PolicyGroup]\nDescription=usr\nPriority=3\n");
        put(t, "etc/policy.d/a.policy.d/50-x.conf", "[PolicyGroup]\nDescription=etc\n");
        g_autoptr(PolicySet) set = load(t, d);
        const PolicyGroup *g = must_get(set, "a");
        g_assert_cmpstr(g->description, ==, "etc");
        g_assert_cmpuint(g->priority, ==, 0); /* the usr drop-in was not read at all */
        g_assert_cmpuint(g->dropins->len, ==, 1);
}

static void test_dev_null_dropin_masks_that_dropin(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "usr/lib/policy.d/a.policy", "[PolicyGroup]\n");
        put(t, "usr/lib/policy.d/a.policy.d/50-x.conf", "[PolicyGroup]\nPriority=3\n");
        put(t, "usr/lib/policy.d/a.policy.d/60-y.conf", "[PolicyGroup]\nDescription=y\n");
        put_symlink(t, "etc/policy.d/a.policy.d/50-x.conf", "/dev/null");
        g_autoptr(PolicySet) set = load(t, d);
        const PolicyGroup *g = must_get(set, "a");
        g_assert_cmpuint(g->priority, ==, 0);
        g_assert_cmpstr(g->description, ==, "y");
        g_assert_cmpuint(g->dropins->len, ==, 1);
}

static void test_dropins_without_main_file_warn(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "etc/policy.d/ghost.policy.d/10.conf", "[PolicyGroup]\nPriority=3\n");
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_null(policy_set_get(set, "ghost"));
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_WARNING), ==, 1);
}

static void test_non_policy_files_are_ignored(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "etc/policy.d/a.policy", "[PolicyGroup]\n");
        put(t, "etc/policy.d/a.policy~", "[PolicyGroup]\n");
        put(t, "etc/policy.d/.hidden.policy", "[PolicyGroup]\n");
        put(t, "etc/policy.d/README", "hello\n");
        put(t, "etc/policy.d/a.policy.d/notes.txt", "not a conf\n");
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_cmpuint(policy_set_size(set), ==, 1);
        g_assert_cmpuint(must_get(set, "a")->dropins->len, ==, 0);
}

static void test_writable_by_others_is_refused(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        const char *p = put(t, "etc/policy.d/open.policy", "[PolicyGroup]\n");
        const char *q = put(t, "etc/policy.d/grp.policy", "[PolicyGroup]\n");
        put(t, "etc/policy.d/ok.policy", "[PolicyGroup]\n");
        const char *r = put(t, "etc/policy.d/ok.policy.d/10-open.conf", "[PolicyGroup]\nPriority=9\n");
        g_assert_cmpint(chmod(p, 0666), ==, 0);
        g_assert_cmpint(chmod(q, 0664), ==, 0);
        g_assert_cmpint(chmod(r, 0646), ==, 0);
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_null(policy_set_get(set, "open"));
        g_assert_null(policy_set_get(set, "grp"));
        g_assert_cmpuint(must_get(set, "ok")->priority, ==, 0);
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_WARNING), ==, 3);
        for (guint i = 0; i < d->items->len; i++) {
                const Diagnostic *diag = g_ptr_array_index(d->items, i);
                g_assert_nonnull(strstr(diag->message, "refusing"));
        }
}

static void test_owned_by_another_user_is_refused(Tree *t, gconstpointer data) {
        if (geteuid() != 0) {
                g_test_skip("needs root to chown a file to another user");
                return;
        }
        g_autoptr(Diagnostics) d = diagnostics_new();
        const char *p = put(t, "etc/policy.d/theirs.policy", "[PolicyGroup]\n");
        g_assert_cmpint(chown(p, 4242, 4242), ==, 0);
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_null(policy_set_get(set, "theirs"));
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_WARNING), ==, 1);
}

static void test_root_prefix_is_honoured(Tree *t, gconstpointer data) {
        /* Without --root the host's /etc/policy.d would be read; with it,
         * only the tree. A group only in the tree proves which was read. */
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "usr/lib/policy.d/only-in-tree-4711.policy", "[PolicyGroup]\n");
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_nonnull(policy_set_get(set, "only-in-tree-4711"));
        g_autoptr(PolicySet) host = NULL;
        g_assert_cmpint(policy_set_load("/", NULL, &host, NULL), ==, 0);
        g_assert_null(policy_set_get(host, "only-in-tree-4711"));
}

/* The rule alone: who may own and write a file or a directory on the way. */
static void test_inode_trust_table(void) {
        static const struct {
                mode_t mode;
                uid_t owner;
                bool trusted;
        } rows[] = {
                { S_IFREG | 0644, 0, true },
                { S_IFREG | 0600, 1000, true },    /* the caller's own */
                { S_IFREG | 0644, 4242, false },   /* somebody else's */
                { S_IFREG | 0664, 0, false },
                { S_IFREG | 0646, 0, false },
                { S_IFDIR | 0755, 0, true },
                { S_IFDIR | 0775, 0, false },
                { S_IFDIR | 0777, 0, false },
                { S_IFDIR | 01777, 0, true },      /* /tmp: others add names, never replace ours */
                { S_IFDIR | 01777, 4242, false },  /* but not someone else's sticky directory */
                { S_IFDIR | 0755, 1000, true },
                { S_IFLNK | 0777, 0, true },       /* a link's mode means nothing */
                { S_IFLNK | 0777, 4242, false },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
                struct stat st = { .st_mode = rows[i].mode, .st_uid = rows[i].owner };
                const char *why = NULL;
                bool trusted = config_inode_trusted(&st, 1000, &why);
                if (trusted != rows[i].trusted)
                        g_error("row %zu (mode %o, uid %u): expected %s, got %s (%s)", i, (unsigned) rows[i].mode,
                                (unsigned) rows[i].owner, rows[i].trusted ? "trusted" : "refused",
                                trusted ? "trusted" : "refused", why ? why : "-");
                g_assert_true(trusted || why);
        }
}

static bool has_warning(Diagnostics *d, const char *needle) {
        for (guint i = 0; i < d->items->len; i++) {
                const Diagnostic *diag = g_ptr_array_index(d->items, i);
                if (strstr(diag->message, needle))
                        return true;
        }
        return false;
}

/* Whoever may write a directory on the way may swap the file for another. */
static void test_writable_directory_is_refused(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "etc/policy.d/a.policy", "[PolicyGroup]\n");
        put(t, "run/policy.d/b.policy", "[PolicyGroup]\n");
        put(t, "usr/lib/policy.d/c.policy", "[PolicyGroup]\n");
        g_autofree char *etc = g_build_filename(t->root, "etc/policy.d", NULL);
        g_autofree char *run = g_build_filename(t->root, "run", NULL);
        g_autofree char *usr = g_build_filename(t->root, "usr/lib/policy.d", NULL);
        g_assert_cmpint(chmod(etc, 0777), ==, 0);
        g_assert_cmpint(chmod(run, 0775), ==, 0);
        g_assert_cmpint(chmod(usr, 01777), ==, 0); /* sticky: allowed */
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_null(policy_set_get(set, "a"));
        g_assert_null(policy_set_get(set, "b"));
        must_get(set, "c");
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_WARNING), ==, 2);
        g_assert_true(has_warning(d, "writable by others (mode 0777)"));
        g_assert_true(has_warning(d, "writable by its group (mode 0775)"));
}

static void test_directory_of_another_user_is_refused(Tree *t, gconstpointer data) {
        if (geteuid() != 0) {
                g_test_skip("needs root to chown a directory to another user");
                return;
        }
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "etc/policy.d/a.policy", "[PolicyGroup]\n");
        g_autofree char *etc = g_build_filename(t->root, "etc/policy.d", NULL);
        g_assert_cmpint(chown(etc, 4242, 4242), ==, 0);
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_null(policy_set_get(set, "a"));
        g_assert_true(has_warning(d, "owned by uid 4242"));
}

/* A link in a trusted directory was made by root: its target counts, if
 * its own way is trusted too. */
static void test_symlink_follows_only_trusted_ways(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "usr/share/good/x.policy", "[PolicyGroup]\nPriority=7\n");
        put(t, "scratch/y.policy", "[PolicyGroup]\nPriority=8\n");
        g_autofree char *scratch = g_build_filename(t->root, "scratch", NULL);
        g_assert_cmpint(chmod(scratch, 0777), ==, 0);
        g_autofree char *good = g_build_filename(t->root, "usr/share/good/x.policy", NULL);
        g_autofree char *bad = g_build_filename(t->root, "scratch/y.policy", NULL);
        put_symlink(t, "etc/policy.d/linked.policy", good);
        put_symlink(t, "etc/policy.d/swapped.policy", bad);
        put_symlink(t, "etc/policy.d/relative.policy", "../../usr/share/good/x.policy");
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_cmpuint(must_get(set, "linked")->priority, ==, 7);
        g_assert_cmpuint(must_get(set, "relative")->priority, ==, 7);
        g_assert_null(policy_set_get(set, "swapped"));
        g_assert_true(has_warning(d, "writable by others (mode 0777)"));
}

/* A sticky directory lets others add names: a link of theirs is not followed
 * (as the kernel's fs.protected_symlinks would not either). */
static void test_others_link_in_sticky_directory_is_refused(Tree *t, gconstpointer data) {
        if (geteuid() != 0) {
                g_test_skip("needs root to make a link owned by another user");
                return;
        }
        g_autoptr(Diagnostics) d = diagnostics_new();
        const char *secret = put(t, "root-only/x.policy", "[PolicyGroup]\nPriority=9\n");
        g_assert_cmpint(chmod(secret, 0600), ==, 0);
        put_symlink(t, "run/policy.d/theirs.policy", secret);
        put_symlink(t, "run/policy.d/mine.policy", secret);
        g_autofree char *dir = g_build_filename(t->root, "run/policy.d", NULL);
        g_autofree char *theirs = g_build_filename(dir, "theirs.policy", NULL);
        g_assert_cmpint(chmod(dir, 01777), ==, 0);
        g_assert_cmpint(lchown(theirs, 4242, 4242), ==, 0);
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_null(policy_set_get(set, "theirs"));
        g_assert_cmpuint(must_get(set, "mine")->priority, ==, 9);
        g_assert_true(has_warning(d, "Link "));
        g_assert_true(has_warning(d, "owned by uid 4242"));
}

static void test_symlink_loop_is_an_error(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put_symlink(t, "etc/policy.d/loop.policy", "loop.policy");
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_null(policy_set_get(set, "loop"));
}

static void test_unreadable_dir_is_skipped(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "usr/lib/policy.d/a.policy", "[PolicyGroup]\n");
        /* A file where a directory should be is not an error. */
        put(t, "etc/policy.d", "not a directory\n");
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_nonnull(policy_set_get(set, "a"));
}

static void test_bad_file_does_not_stop_others(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "etc/policy.d/bad.policy", "[Swap]\nSwapMax=lots\nthis is junk\n");
        put(t, "etc/policy.d/good.policy", "[Swap]\nSwapMax=1G\n");
        g_autoptr(PolicySet) set = load(t, d);
        g_assert_true(must_get(set, "good")->knobs[KNOB_SWAP_MAX].set);
        g_assert_false(must_get(set, "bad")->knobs[KNOB_SWAP_MAX].set);
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), ==, 2);
}

static void test_unreadable_main_file_drops_the_group(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        put(t, "usr/lib/policy.d/a.policy", "[PolicyGroup]\nDescription=vendor\n");
        put_symlink(t, "etc/policy.d/a.policy", "/nonexistent/a.policy");
        g_autoptr(PolicySet) set = load(t, d);
        /* The stronger file wins even when it cannot be read: no silent fallback. */
        g_assert_null(policy_set_get(set, "a"));
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), ==, 1);
}

static void test_daemon_config_with_dropins(Tree *t, gconstpointer data) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        DaemonConfig c;
        put(t, "etc/policyd.conf", "[Daemon]\nRescanIntervalSec=30\nDryRun=yes\n");
        put(t, "usr/lib/policyd.conf.d/10-vendor.conf", "[Daemon]\nRescanIntervalSec=5min\nDryRun=no\n");
        put(t, "etc/policyd.conf.d/20-admin.conf", "[Daemon]\nDryRun=\nDryRun=yes\nBogus=1\n");
        daemon_config_init(&c);
        g_assert_cmpint(daemon_config_load(t->root, &c, d), ==, 0);
        g_assert_cmpuint(c.rescan_interval_sec, ==, 300);
        g_assert_true(c.dry_run);
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_WARNING), ==, 1);
        daemon_config_done(&c);
}

static void test_daemon_config_defaults_without_files(Tree *t, gconstpointer data) {
        DaemonConfig c;
        daemon_config_init(&c);
        g_assert_cmpint(daemon_config_load(t->root, &c, NULL), ==, 0);
        g_assert_cmpuint(c.rescan_interval_sec, ==, 0);
        g_assert_false(c.dry_run);
        daemon_config_done(&c);
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
#define ADD(name, fn) g_test_add("/load/" name, Tree, NULL, tree_setup, fn, tree_teardown)
        ADD("etc-beats-run-beats-local-beats-usr", test_etc_beats_run_beats_local_beats_usr);
        ADD("main-files-do-not-merge", test_main_files_do_not_merge);
        ADD("mask-with-dev-null-symlink", test_mask_with_dev_null_symlink);
        ADD("mask-with-empty-file", test_mask_with_empty_file);
        ADD("mask-in-weaker-dir-does-not-hide-stronger", test_mask_in_weaker_dir_does_not_hide_stronger);
        ADD("dropins-from-all-dirs-in-lexical-order", test_dropins_from_all_dirs_in_lexical_order);
        ADD("same-named-dropin-in-stronger-dir-replaces", test_same_named_dropin_in_stronger_dir_replaces);
        ADD("dev-null-dropin-masks-that-dropin", test_dev_null_dropin_masks_that_dropin);
        ADD("dropins-without-main-file-warn", test_dropins_without_main_file_warn);
        ADD("non-policy-files-are-ignored", test_non_policy_files_are_ignored);
        ADD("writable-by-others-is-refused", test_writable_by_others_is_refused);
        ADD("owned-by-another-user-is-refused", test_owned_by_another_user_is_refused);
        g_test_add_func("/load/inode-trust-table", test_inode_trust_table);
        ADD("writable-directory-is-refused", test_writable_directory_is_refused);
        ADD("directory-of-another-user-is-refused", test_directory_of_another_user_is_refused);
        ADD("symlink-follows-only-trusted-ways", test_symlink_follows_only_trusted_ways);
        ADD("others-link-in-sticky-directory-is-refused", test_others_link_in_sticky_directory_is_refused);
        ADD("symlink-loop-is-an-error", test_symlink_loop_is_an_error);
        ADD("root-prefix-is-honoured", test_root_prefix_is_honoured);
        ADD("unreadable-dir-is-skipped", test_unreadable_dir_is_skipped);
        ADD("bad-file-does-not-stop-others", test_bad_file_does_not_stop_others);
        ADD("unreadable-main-file-drops-the-group", test_unreadable_main_file_drops_the_group);
        ADD("daemon-config-with-dropins", test_daemon_config_with_dropins);
        ADD("daemon-config-defaults-without-files", test_daemon_config_defaults_without_files);
        return g_test_run();
}
