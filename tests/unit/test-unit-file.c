/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "config-trust.h"
#include "unit-file.h"

static char *tmpdir;

static char *put(const char *relpath, const char *content) {
        char *p = g_build_filename(tmpdir, relpath, NULL);
        g_autofree char *dir = g_path_get_dirname(p);
        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_assert_true(g_file_set_contents(p, content, -1, NULL));
        return p;
}

static char *joined(char **groups) {
        return g_strjoinv(" ", groups);
}

static void test_unit_section_and_x_prefix(void) {
        g_autofree char *f = put("u1/a.service", "[Unit]\nDescription=x\nX-PolicyGroup=foreground\n"
                                                 "[Service]\nExecStart=/bin/true\nPolicyGroup=batch\n");
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("a.service", f, NULL, 0, &groups, NULL), ==, 0);
        g_autofree char *s = joined(groups);
        g_assert_cmpstr(s, ==, "foreground batch");
}

static void test_other_sections_are_not_read(void) {
        g_autofree char *f = put("u2/a.service", "[Install]\nPolicyGroup=wrong\n[Socket]\nPolicyGroup=wrong2\n"
                                                 "[X-Foo]\nPolicyGroup=wrong3\n");
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("a.service", f, NULL, 0, &groups, NULL), ==, 0);
        g_assert_cmpuint(g_strv_length(groups), ==, 0);
}

static void test_type_section_follows_unit_type(void) {
        g_autofree char *f = put("u3/a.socket", "[Socket]\nPolicyGroup=s\n[Service]\nPolicyGroup=wrong\n");
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("a.socket", f, NULL, 0, &groups, NULL), ==, 0);
        g_autofree char *s = joined(groups);
        g_assert_cmpstr(s, ==, "s");
}

static void test_dropins_accumulate_and_empty_resets(void) {
        g_autofree char *f = put("u4/a.service", "[Unit]\nPolicyGroup=a b\n");
        g_autofree char *d1 = put("u4/a.service.d/10.conf", "[Service]\nPolicyGroup=c\n");
        g_autofree char *d2 = put("u4/a.service.d/20.conf", "[Unit]\nX-PolicyGroup=\nX-PolicyGroup=d a\n");
        g_autofree char *d3 = put("u4/a.service.d/30.conf", "[Unit]\nPolicyGroup=e d\n");
        const char *dropins[] = { d1, d2, d3, NULL };
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("a.service", f, dropins, 0, &groups, NULL), ==, 0);
        g_autofree char *s = joined(groups);
        g_assert_cmpstr(s, ==, "d a e");
}

/* Seen on systemd 257: a fragment it cannot parse leaves the unit unloaded
 * (LoadState=error); a drop-in it cannot parse keeps the lines before the
 * bad one, loses the rest, and the unit loads. */
static void test_refused_files_as_systemd(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        g_autofree char *bad = put("u9/a.service", "[Unit]\nPolicyGroup=a\n[Unit\"]\nPolicyGroup=b\n");
        g_autofree char *good = put("u9/b.service", "[Unit]\nPolicyGroup=a\n");
        g_autofree char *d1 = put("u9/b.service.d/10.conf", "[Unit]\nPolicyGroup=c\n[Bad\nPolicyGroup=d\n");
        g_autofree char *d2 = put("u9/b.service.d/20.conf", "[Unit]\nPolicyGroup=e\n");
        const char *dropins[] = { d1, d2, NULL };
        g_auto(GStrv) refused = NULL, partial = NULL;

        g_assert_cmpint(unit_file_read_policy_groups("a.service", bad, dropins, 0, &refused, d), ==, 0);
        g_assert_cmpuint(g_strv_length(refused), ==, 0);
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), ==, 2); /* the line, and the unit */

        g_assert_cmpint(unit_file_read_policy_groups("b.service", good, dropins, 0, &partial, NULL), ==, 0);
        g_autofree char *s = joined(partial);
        g_assert_cmpstr(s, ==, "a c e");
}

/* "[Unit ]" is an unknown section to systemd, not [Unit]. */
static void test_section_names_are_verbatim(void) {
        g_autofree char *f = put("u10/a.service", "[Unit ]\nPolicyGroup=a\n[ Service]\nPolicyGroup=b\n"
                                                  "[Service]\nPolicyGroup=c\n");
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("a.service", f, NULL, 0, &groups, NULL), ==, 0);
        g_autofree char *s = joined(groups);
        g_assert_cmpstr(s, ==, "c");
}

static void test_bad_group_name_is_an_error_with_line(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        g_autofree char *f = put("u5/a.service", "[Unit]\n\nPolicyGroup=ok bad,name\n");
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("a.service", f, NULL, 0, &groups, d), ==, 0);
        g_autofree char *s = joined(groups);
        g_assert_cmpstr(s, ==, "ok");
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), ==, 1);
        const Diagnostic *diag = g_ptr_array_index(d->items, 0);
        g_assert_cmpuint(diag->line, ==, 3);
        g_assert_cmpstr(diag->file, ==, f);
}

static void test_transient_and_masked_units(void) {
        g_autofree char *d1 = put("u6/run.scope.d/50-Description.conf", "[Scope]\nX-PolicyGroup=batch\n");
        const char *dropins[] = { d1, NULL };
        g_auto(GStrv) a = NULL, b = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("run.scope", NULL, dropins, 0, &a, NULL), ==, 0);
        g_autofree char *s = joined(a);
        g_assert_cmpstr(s, ==, "batch");
        g_assert_cmpint(unit_file_read_policy_groups("m.service", "/dev/null", NULL, 0, &b, NULL), ==, 0);
        g_assert_cmpuint(g_strv_length(b), ==, 0);
}

static void test_missing_fragment_is_a_diagnostic(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("a.service", "/nonexistent/a.service", NULL, 0, &groups, d), ==, 0);
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), ==, 1);
}

static bool has_message(const Diagnostics *d, const char *needle) {
        for (guint i = 0; i < d->items->len; i++) {
                const Diagnostic *diag = g_ptr_array_index(d->items, i);
                if (strstr(diag->message, needle))
                        return true;
        }
        return false;
}

/* A FIFO where a unit file was (swapped in after its manager loaded it):
 * refused at once, never waited on for a writer. */
static void test_fifo_is_refused_not_waited_on(void) {
        g_autofree char *fifo = g_build_filename(tmpdir, "fifo.service", NULL);
        g_autoptr(Diagnostics) d = diagnostics_new();
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);
        g_assert_cmpint(unit_file_read_policy_groups("a.service", fifo, NULL, 0, &groups, d), ==, 0);
        g_assert_cmpuint(g_strv_length(groups), ==, 0);
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), ==, 1);
        g_auto(GStrv) as_user = NULL;
        g_autoptr(Diagnostics) du = diagnostics_new();
        g_assert_cmpint(unit_file_read_policy_groups("a.service", fifo, NULL, 1000, &as_user, du), ==, 0);
        g_assert_cmpuint(g_strv_length(as_user), ==, 0);
        g_assert_cmpuint(du->items->len, ==, 1);
}

/* The rule alone: what uid 1000 may reach by mode bits. */
static void test_readable_by_table(void) {
        static const struct {
                mode_t mode;
                uid_t owner;
                bool readable;
        } rows[] = {
                { S_IFREG | 0644, 0, true },
                { S_IFREG | 0640, 0, false },     /* the group may; uid may not be in it */
                { S_IFREG | 0600, 0, false },
                { S_IFREG | 0600, 1000, true },   /* the user's own */
                { S_IFREG | 0044, 1000, false },  /* the owner's bits are the owner's */
                { S_IFREG | 0644, 4242, true },   /* somebody else's, readable by all */
                { S_IFREG | 0604, 0, false },     /* others may, its group may not: uid may be in it */
                { S_IFDIR | 0701, 0, false },
                { S_IFDIR | 0755, 0, true },
                { S_IFDIR | 0700, 0, false },
                { S_IFDIR | 0750, 0, false },
                { S_IFDIR | 0711, 0, true },      /* search, no listing: enough */
                { S_IFDIR | 0700, 1000, true },
                { S_IFLNK | 0777, 4242, true },   /* a link's mode means nothing */
        };
        for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
                struct stat st = { .st_mode = rows[i].mode, .st_uid = rows[i].owner };
                const char *why = NULL;
                bool readable = config_inode_readable_by(&st, 1000, &why);
                if (readable != rows[i].readable)
                        g_error("row %zu (mode %o, uid %u): expected %s, got %s (%s)", i, (unsigned) rows[i].mode,
                                (unsigned) rows[i].owner, rows[i].readable ? "readable" : "refused",
                                readable ? "readable" : "refused", why ? why : "-");
                g_assert_true(readable || why);
                g_assert_true(config_inode_readable_by(&st, 0, &why));
        }
}

/* A user manager's unit files are read as its user could: root's private
 * file, one in a directory the user cannot search, and a link to either
 * give nothing, each with its reason; the user's own and root's public
 * files are read. */
static void test_user_unit_files_read_as_the_user(void) {
        if (geteuid() != 0) {
                g_test_skip("needs root to own files another uid may not read");
                return;
        }
        g_autofree char *base = g_build_filename(tmpdir, "as-user", NULL);
        g_assert_cmpint(g_mkdir_with_parents(base, 0755), ==, 0);
        const char *body = "[Unit]\nX-PolicyGroup=g\n";
        g_autofree char *pub = put("as-user/public.service", body);
        g_autofree char *secret = put("as-user/secret.service", body);
        g_autofree char *mine = put("as-user/mine.service", body);
        g_autofree char *hidden = put("as-user/closed/x.service", body);
        g_autofree char *closed = g_build_filename(base, "closed", NULL);
        g_autofree char *link = g_build_filename(base, "link.service", NULL);
        g_assert_cmpint(chmod(pub, 0644), ==, 0);
        g_assert_cmpint(chmod(secret, 0600), ==, 0);
        g_assert_cmpint(chmod(mine, 0600), ==, 0);
        g_assert_cmpint(chown(mine, 1000, 1000), ==, 0);
        g_assert_cmpint(chmod(hidden, 0644), ==, 0);
        g_assert_cmpint(chmod(closed, 0700), ==, 0);
        g_assert_cmpint(symlink(secret, link), ==, 0);

        static const struct {
                const char *name;
                bool read;
                const char *why;
        } rows[] = {
                { "public.service", true, NULL },
                { "mine.service", true, NULL },
                { "secret.service", false, "File is not readable by the user (mode 0600)" },
                { "closed/x.service", false, "not searchable by the user (mode 0700)" },
                { "link.service", false, "File is not readable by the user (mode 0600)" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
                g_autofree char *path = g_build_filename(base, rows[i].name, NULL);
                g_autoptr(Diagnostics) d = diagnostics_new();
                g_auto(GStrv) groups = NULL;
                g_assert_cmpint(unit_file_read_policy_groups("a.service", path, NULL, 1000, &groups, d), ==, 0);
                if ((g_strv_length(groups) == 1) != rows[i].read)
                        g_error("%s: expected it %s", rows[i].name, rows[i].read ? "read" : "refused");
                if (rows[i].why && !has_message(d, rows[i].why))
                        g_error("%s: no diagnostic saying '%s'", rows[i].name, rows[i].why);
                /* Root (PID 1's units) reads them all. */
                g_auto(GStrv) as_root = NULL;
                g_assert_cmpint(unit_file_read_policy_groups("a.service", path, NULL, 0, &as_root, NULL), ==, 0);
                g_assert_cmpuint(g_strv_length(as_root), ==, 1);
        }
        g_autoptr(GPtrArray) got = NULL;
        g_assert_cmpint(unit_file_read_property("a.service", secret, NULL, 1000, "X-PolicyGroup", &got), ==, 0);
        g_assert_cmpuint(got->len, ==, 0);
}

static void test_unit_type_sections(void) {
        g_assert_cmpstr(unit_type_section("a.service"), ==, "Service");
        g_assert_cmpstr(unit_type_section("a.b.scope"), ==, "Scope");
        g_assert_cmpstr(unit_type_section("a.slice"), ==, "Slice");
        g_assert_null(unit_type_section("noext"));
        g_assert_null(unit_type_section("a.unknown"));
}

static void test_slice_chain(void) {
        g_auto(GStrv) a = unit_slice_chain("user-1000.slice");
        g_autofree char *sa = g_strjoinv(" ", a);
        g_assert_cmpstr(sa, ==, "user-1000.slice user.slice -.slice");
        g_auto(GStrv) b = unit_slice_chain("system.slice");
        g_autofree char *sb = g_strjoinv(" ", b);
        g_assert_cmpstr(sb, ==, "system.slice -.slice");
        g_auto(GStrv) c = unit_slice_chain("-.slice");
        g_autofree char *sc = g_strjoinv(" ", c);
        g_assert_cmpstr(sc, ==, "-.slice");
        g_auto(GStrv) d = unit_slice_chain(NULL);
        g_assert_cmpuint(g_strv_length(d), ==, 0);
        g_auto(GStrv) e = unit_slice_chain("foo.service");
        g_assert_cmpuint(g_strv_length(e), ==, 0);
}

static void test_property_values_compare_by_meaning(void) {
        g_assert_true(systemd_property_value_equal("MemorySwapMax", "infinity", "infinity"));
        g_assert_false(systemd_property_value_equal("MemorySwapMax", "infinity", "1024"));
        g_assert_true(systemd_property_value_equal("MemoryZSwapWriteback", "no", "0"));
        g_assert_false(systemd_property_value_equal("MemoryZSwapWriteback", "no", "yes"));
        g_assert_true(systemd_property_value_equal("AllowedMemoryNodes", "0-1", "0,1"));
        g_assert_true(systemd_property_value_equal("AllowedMemoryNodes", "", ""));
        g_assert_false(systemd_property_value_equal("AllowedMemoryNodes", "0", "0-1"));
        g_assert_false(systemd_property_value_equal("MemorySwapMax", NULL, "1"));
}

static void test_generated_dropins_are_recognised(void) {
        static const struct {
                const char *path;
                bool generated;
        } table[] = {
                { "/run/systemd/generator/a.service.d/50-policy-groups.conf", true },
                { "/run/systemd/generator.early/a.service.d/50-policy-groups.conf", true },
                { "/run/systemd/generator.late/foo-.service.d/50-policy-groups.conf", true },
                { "/run/systemd/generator/service.d/50-policy-groups.conf", true },
                /* Same name elsewhere: the administrator's, masking ours. */
                { "/etc/systemd/system/a.service.d/50-policy-groups.conf", false },
                { "/run/systemd/system.control/a.service.d/50-policy-groups.conf", false },
                { "/run/systemd/generator/a.service.d/50-other.conf", false },
                { "/run/systemd/generator/a.service/50-policy-groups.conf", false },
                { "/run/systemd/generator/.d/50-policy-groups.conf", false },
                { "/run/systemd/generator/a.service.d/x/50-policy-groups.conf", false },
                { "/run/systemd/generator.other/a.service.d/50-policy-groups.conf", false },
                { "/run/systemd/generator/50-policy-groups.conf", false },
                { "", false },
                { NULL, false },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(table); i++)
                if (unit_dropin_is_generated(table[i].path) != table[i].generated)
                        g_error("%s: expected %s", table[i].path ?: "(null)",
                                table[i].generated ? "generated" : "not generated");
}

#define GEN "/run/systemd/generator/a.service.d/50-policy-groups.conf"
#define FRAGMENT "/etc/systemd/system/a.service"
#define ADMIN_DROPIN "/etc/systemd/system/a.service.d/10-admin.conf"
#define LATER_DROPIN "/etc/systemd/system/a.service.d/60-later.conf"
#define CONTROL "/run/systemd/system.control/a.service.d/50-MemorySwapMax.conf"

/* What policyd records as "previous" before it first sets a property: never
 * the value of its own generator's drop-in (issue 7, class 8). */
/* A recorded "" is every node for AllowedMemoryNodes= (undo restores it:
 * it was left at the group's nodes before), and "nothing to restore to"
 * for the others (a percentage of RAM that cannot be told). */
static void test_empty_previous_value(void) {
        g_assert_true(systemd_property_empty_is_value("AllowedMemoryNodes"));
        g_assert_false(systemd_property_empty_is_value("MemorySwapMax"));
        g_assert_false(systemd_property_empty_is_value("MemoryZSwapMax"));
        g_assert_false(systemd_property_empty_is_value("MemoryZSwapWriteback"));
        g_assert_false(systemd_property_empty_is_value(NULL));
}

static void test_previous_value_is_never_ours(void) {
        static const struct {
                const char *name;
                const char *property, *current;
                const char *assignments[8]; /* file, value, file, value, ... */
                int r;
                const char *previous;
        } table[] = {
                { "no file sets it: systemd's value", "MemorySwapMax", "infinity", {}, 0, "infinity" },
                { "the administrator's file", "MemorySwapMax", "1073741824", { FRAGMENT, "1G" }, 0, "1073741824" },
                { "ours, over the administrator's 1G", "MemorySwapMax", "161058816",
                  { FRAGMENT, "1G", GEN, "157284K" }, 1, "1073741824" },
                { "ours, nothing else sets it: systemd's default", "MemorySwapMax", "161058816",
                  { GEN, "157284K" }, 1, "infinity" },
                { "ours, over an admin's drop-in over the fragment", "MemorySwapMax", "161058816",
                  { FRAGMENT, "1G", ADMIN_DROPIN, "2G", GEN, "157284K" }, 1, "2147483648" },
                { "ours, over an empty assignment (a reset)", "MemorySwapMax", "161058816",
                  { FRAGMENT, "1G", ADMIN_DROPIN, "", GEN, "157284K" }, 1, "infinity" },
                { "ours, over a value systemd ignores", "MemorySwapMax", "161058816",
                  { FRAGMENT, "1G", ADMIN_DROPIN, "lots", GEN, "157284K" }, 1, "1073741824" },
                { "ours, over a percentage of RAM: cannot tell, unset", "MemorySwapMax", "161058816",
                  { FRAGMENT, "10%", GEN, "157284K" }, 1, "" },
                { "ours, over the administrator's infinity", "MemoryZSwapMax", "4096",
                  { FRAGMENT, "infinity", GEN, "4K" }, 1, "infinity" },
                { "a later drop-in wins over ours", "MemorySwapMax", "2147483648",
                  { FRAGMENT, "1G", GEN, "157284K", LATER_DROPIN, "2G" }, 0, "2147483648" },
                { "a later ignored value leaves ours in force", "MemorySwapMax", "161058816",
                  { FRAGMENT, "1G", GEN, "157284K", LATER_DROPIN, "lots" }, 1, "1073741824" },
                /* systemd's value is not our file's: changed at runtime since. */
                { "ours in the files, another value in force", "MemorySwapMax", "5000",
                  { FRAGMENT, "1G", GEN, "157284K" }, 0, "5000" },
                { "a runtime drop-in before ours is hidden by ours", "MemorySwapMax", "161058816",
                  { FRAGMENT, "1G", CONTROL, "3G", GEN, "157284K" }, 1, "3221225472" },
                { "booleans: ours over the default", "MemoryZSwapWriteback", "no", { GEN, "no" }, 1, "yes" },
                { "booleans: ours over the administrator's", "MemoryZSwapWriteback", "no",
                  { FRAGMENT, "off", GEN, "no" }, 1, "no" },
                { "booleans: an empty one is ignored, not a reset", "MemoryZSwapWriteback", "yes",
                  { FRAGMENT, "no", ADMIN_DROPIN, "", GEN, "yes" }, 1, "no" },
                { "nodes: ours over the default (all)", "AllowedMemoryNodes", "0", { GEN, "0" }, 1, "" },
                { "nodes: ours over the administrator's", "AllowedMemoryNodes", "1",
                  { FRAGMENT, "0 1", GEN, "1" }, 1, "0-1" },
                { "no current value at all", "MemorySwapMax", NULL, {}, 0, "" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
                g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func(g_free);
                g_autofree char *previous = NULL;

                for (size_t j = 0; j + 1 < G_N_ELEMENTS(table[i].assignments) && table[i].assignments[j]; j += 2) {
                        UnitPropertyAssignment *u = g_new0(UnitPropertyAssignment, 1);
                        u->file = (char *) table[i].assignments[j];
                        u->value = (char *) table[i].assignments[j + 1];
                        g_ptr_array_add(a, u);
                }
                int r = unit_property_previous(table[i].property, table[i].current, a, &previous);
                if (r != table[i].r || g_strcmp0(previous, table[i].previous) != 0)
                        g_error("%s: expected %d '%s', got %d '%s'", table[i].name, table[i].r, table[i].previous, r,
                                previous);
        }
}

#define OTHER_CONTROL "/run/systemd/system.control/a.service.d/50-MemoryZSwapMax.conf"
#define ETC_CONTROL "/etc/systemd/system.control/a.service.d/50-MemorySwapMax.conf"

/* policyd --revert removes the runtime drop-in systemd rewrote with the
 * restored value only where the unit's other files give that value. */
static void test_runtime_dropin_restates_files(void) {
        static const struct {
                const char *name;
                const char *property, *restored;
                const char *assignments[10]; /* file, value, file, value, ... */
                bool restates;
        } table[] = {
                { "no file sets it, restored systemd's default", "MemorySwapMax", "infinity", {}, true },
                { "no file sets it, restored another value", "MemorySwapMax", "1073741824", {}, false },
                { "the fragment gives the restored value", "MemorySwapMax", "1073741824", { FRAGMENT, "1G" }, true },
                { "the fragment gives another value", "MemorySwapMax", "1073741824", { FRAGMENT, "2G" }, false },
                { "an admin drop-in wins over the fragment", "MemorySwapMax", "2147483648",
                  { FRAGMENT, "1G", ADMIN_DROPIN, "2G" }, true },
                { "the fragment alone is not what wins", "MemorySwapMax", "1073741824",
                  { FRAGMENT, "1G", ADMIN_DROPIN, "2G" }, false },
                { "the runtime drop-in itself is not counted", "MemorySwapMax", "infinity",
                  { CONTROL, "infinity" }, true },
                { "nor is it when it says another value", "MemorySwapMax", "1073741824",
                  { FRAGMENT, "1G", CONTROL, "3G" }, true },
                { "nor the generator's drop-in: the files alone", "MemorySwapMax", "1073741824",
                  { FRAGMENT, "1G", GEN, "157284K" }, true },
                { "the generator's drop-in alone: systemd's default", "MemorySwapMax", "161058816",
                  { GEN, "157284K" }, false },
                { "an empty assignment resets to the default", "MemorySwapMax", "infinity",
                  { FRAGMENT, "1G", ADMIN_DROPIN, "" }, true },
                { "a value systemd ignores leaves the one before", "MemorySwapMax", "1073741824",
                  { FRAGMENT, "1G", LATER_DROPIN, "lots" }, true },
                { "a percentage of RAM cannot be told: kept", "MemorySwapMax", "1073741824",
                  { FRAGMENT, "10%" }, false },
                { "another property's runtime drop-in is not counted", "MemorySwapMax", "infinity",
                  { OTHER_CONTROL, "5G" }, true },
                /* A persistent set-property stays: it is the administrator's. */
                { "a persistent control drop-in counts", "MemorySwapMax", "infinity", { ETC_CONTROL, "4G" }, false },
                { "booleans: the default", "MemoryZSwapWriteback", "yes", {}, true },
                { "booleans: by meaning", "MemoryZSwapWriteback", "no", { FRAGMENT, "off" }, true },
                { "booleans: an empty one is ignored", "MemoryZSwapWriteback", "yes", { FRAGMENT, "no", ADMIN_DROPIN, "" },
                  false },
                { "nodes: all, the default", "AllowedMemoryNodes", "", {}, true },
                { "nodes: by meaning", "AllowedMemoryNodes", "0-1", { FRAGMENT, "0 1" }, true },
                { "nodes: another list", "AllowedMemoryNodes", "0", { FRAGMENT, "0 1" }, false },
                { "no restored value", "MemorySwapMax", NULL, {}, false },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
                g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func(g_free);

                for (size_t j = 0; j + 1 < G_N_ELEMENTS(table[i].assignments) && table[i].assignments[j]; j += 2) {
                        UnitPropertyAssignment *u = g_new0(UnitPropertyAssignment, 1);
                        u->file = (char *) table[i].assignments[j];
                        u->value = (char *) table[i].assignments[j + 1];
                        g_ptr_array_add(a, u);
                }
                bool got = unit_property_dropin_restates_files(table[i].property, table[i].restored, a);
                if (got != table[i].restates)
                        g_error("%s: expected %s, got %s", table[i].name, table[i].restates ? "restates" : "does not",
                                got ? "restates" : "does not");
        }

        static const struct {
                const char *path;
                bool control;
        } paths[] = {
                { CONTROL, true },
                { OTHER_CONTROL, true },
                { ETC_CONTROL, false },
                { "/run/systemd/system.control/a.service.d/x/50-MemorySwapMax.conf", false },
                { "/run/systemd/system.control/a.service/50-MemorySwapMax.conf", false },
                { "/run/systemd/system.control/a.service.d/", false },
                { "/run/systemd/system.controlx/a.service.d/50-MemorySwapMax.conf", false },
                { GEN, false },
                { NULL, false },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(paths); i++)
                if (unit_dropin_is_runtime_control(paths[i].path) != paths[i].control)
                        g_error("%s: expected %s", paths[i].path ?: "(null)",
                                paths[i].control ? "a runtime control drop-in" : "not one");
}

static void test_read_property_from_files_in_order(void) {
        g_autofree char *fragment = put("p1/a.service", "[Unit]\nMemorySwapMax=9G\n[Service]\nMemorySwapMax=1G\n"
                                                        "ExecStart=/bin/true\n[Install]\nMemorySwapMax=8G\n");
        g_autofree char *d1 = put("p1/a.service.d/10-a.conf", "[Service]\nMemorySwapMax=\nMemorySwapMax=2G\n");
        g_autofree char *d2 = put("p1/a.service.d/20-b.conf", "[Service]\nMemoryZSwapMax=3G\n");
        const char *dropins[] = { d1, "/nonexistent/30-c.conf", "/dev/null", d2, NULL };
        g_autoptr(GPtrArray) got = NULL;

        g_assert_cmpint(unit_file_read_property("a.service", fragment, dropins, 0, "MemorySwapMax", &got), ==, 0);
        g_assert_cmpuint(got->len, ==, 3);
        const UnitPropertyAssignment *x = g_ptr_array_index(got, 0), *y = g_ptr_array_index(got, 1),
                                     *z = g_ptr_array_index(got, 2);
        g_assert_cmpstr(x->file, ==, fragment);
        g_assert_cmpstr(x->value, ==, "1G");
        g_assert_cmpstr(y->file, ==, d1);
        g_assert_cmpstr(y->value, ==, "");
        g_assert_cmpstr(z->value, ==, "2G");

        g_clear_pointer(&got, g_ptr_array_unref);
        g_assert_cmpint(unit_file_read_property("a.service", NULL, NULL, 0, "MemorySwapMax", &got), ==, 0);
        g_assert_cmpuint(got->len, ==, 0);
        g_clear_pointer(&got, g_ptr_array_unref);
        g_assert_cmpint(unit_file_read_property("noext", fragment, NULL, 0, "MemorySwapMax", &got), ==, -EINVAL);
        g_assert_null(got);
}

static void test_unit_file_spellings_in_policyds_form(void) {
        static const struct {
                const char *property, *value;
                int r;
                const char *out;
        } table[] = {
                { "MemorySwapMax", "1G", 0, "1073741824" },
                { "MemorySwapMax", "1G 512M", 0, "1610612736" },
                { "MemorySwapMax", "4096", 0, "4096" },
                { "MemorySwapMax", "infinity", 0, "infinity" },
                { "MemorySwapMax", "", 0, "infinity" },
                { "MemoryZSwapMax", "0", 0, "0" },
                { "MemorySwapMax", "10%", -EOPNOTSUPP, NULL },
                { "MemorySwapMax", "10\u2030", -EOPNOTSUPP, NULL },
                { "MemorySwapMax", "lots", -EINVAL, NULL },
                { "MemoryZSwapWriteback", "off", 0, "no" },
                { "MemoryZSwapWriteback", "", -EINVAL, NULL },
                { "AllowedMemoryNodes", "0 2-3", 0, "0,2-3" },
                { "AllowedMemoryNodes", "", 0, "" },
                { "AllowedMemoryNodes", "x", -EINVAL, NULL },
                { "CPUWeight", "100", -EOPNOTSUPP, NULL },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
                g_autofree char *out = NULL;
                int r = systemd_property_from_unit_file(table[i].property, table[i].value, &out);
                if (r != table[i].r || g_strcmp0(out, table[i].out) != 0)
                        g_error("%s=%s: expected %d '%s', got %d '%s'", table[i].property, table[i].value, table[i].r,
                                table[i].out, r, out);
        }
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        tmpdir = g_dir_make_tmp("unit-file-XXXXXX", NULL);
        g_assert_nonnull(tmpdir);
        g_assert_cmpint(chmod(tmpdir, 0755), ==, 0); /* as /etc would be: for the reads as another uid */
        g_test_add_func("/unit-file/unit-section-and-x-prefix", test_unit_section_and_x_prefix);
        g_test_add_func("/unit-file/other-sections-are-not-read", test_other_sections_are_not_read);
        g_test_add_func("/unit-file/type-section-follows-unit-type", test_type_section_follows_unit_type);
        g_test_add_func("/unit-file/dropins-accumulate-and-empty-resets", test_dropins_accumulate_and_empty_resets);
        g_test_add_func("/unit-file/refused-files-as-systemd", test_refused_files_as_systemd);
        g_test_add_func("/unit-file/section-names-are-verbatim", test_section_names_are_verbatim);
        g_test_add_func("/unit-file/bad-group-name-is-an-error-with-line", test_bad_group_name_is_an_error_with_line);
        g_test_add_func("/unit-file/transient-and-masked-units", test_transient_and_masked_units);
        g_test_add_func("/unit-file/missing-fragment-is-a-diagnostic", test_missing_fragment_is_a_diagnostic);
        g_test_add_func("/unit-file/unit-type-sections", test_unit_type_sections);
        g_test_add_func("/unit-file/fifo-is-refused-not-waited-on", test_fifo_is_refused_not_waited_on);
        g_test_add_func("/unit-file/readable-by-table", test_readable_by_table);
        g_test_add_func("/unit-file/user-unit-files-read-as-the-user", test_user_unit_files_read_as_the_user);
        g_test_add_func("/unit-file/slice-chain", test_slice_chain);
        g_test_add_func("/unit-file/property-values-compare-by-meaning", test_property_values_compare_by_meaning);
        g_test_add_func("/unit-file/generated-dropins-are-recognised", test_generated_dropins_are_recognised);
        g_test_add_func("/unit-file/previous-value-is-never-ours", test_previous_value_is_never_ours);
        g_test_add_func("/unit-file/empty-previous-value", test_empty_previous_value);
        g_test_add_func("/unit-file/runtime-dropin-restates-files", test_runtime_dropin_restates_files);
        g_test_add_func("/unit-file/read-property-from-files-in-order", test_read_property_from_files_in_order);
        g_test_add_func("/unit-file/unit-file-spellings-in-policyds-form", test_unit_file_spellings_in_policyds_form);
        int r = g_test_run();
        const char *argv_rm[] = { "rm", "-rf", tmpdir, NULL };
        (void) g_spawn_sync(NULL, (char **) argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
        g_free(tmpdir);
        return r;
}
