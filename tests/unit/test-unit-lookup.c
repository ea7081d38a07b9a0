/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit lookup against systemd 257's own answers. The "vm257" tree is the
 * layout of unit-lookup-oracle.sh, which tests/vm ran through systemd
 * 257.13 (Debian 13): every expected FragmentPath, Names and DropInPaths
 * below is what `systemctl show` printed there, byte for byte. Here the same tree sits
 * below a --root, with the same absolute symlinks, which must resolve
 * inside the root. */

#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "unit-file.h"
#include "unit-file.h"
#include "unit-lookup.h"
#include "util.h"

static char *tmpdir;

static const char *const search_path[] = {
        "/etc/systemd/system.control", "/run/systemd/system.control", "/run/systemd/transient",
        "/run/systemd/generator.early", "/etc/systemd/system",       "/etc/systemd/system.attached",
        "/run/systemd/system",          "/run/systemd/system.attached", "/run/systemd/generator",
        "/usr/local/lib/systemd/system", "/usr/lib/systemd/system",   "/run/systemd/generator.late",
        NULL,
};

#define E "/etc/systemd/system/"
#define R "/run/systemd/system/"
#define U "/usr/lib/systemd/system/"
#define L "/usr/local/lib/systemd/system/"

/* One line of a tree: "f PATH" a unit file, "c PATH" a drop-in, "e PATH" an
 * empty file, "d PATH" a directory, "l PATH TARGET" a symlink. */
static void build_tree(const char *root, const char *const *lines) {
        for (const char *const *line = lines; *line; line++) {
                g_auto(GStrv) w = g_strsplit(*line, " ", 3);
                g_autofree char *p = g_build_filename(root, w[1], NULL);
                g_autofree char *dir = g_path_get_dirname(p);

                g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
                switch (w[0][0]) {
                case 'f':
                        g_assert_true(g_file_set_contents(p, "[Service]\nExecStart=/bin/true\n", -1, NULL));
                        break;
                case 'c':
                        g_assert_true(g_file_set_contents(p, "[Unit]\nDocumentation=man:x(1)\n", -1, NULL));
                        break;
                case 'e':
                        g_assert_true(g_file_set_contents(p, "", -1, NULL));
                        break;
                case 'd':
                        g_assert_cmpint(g_mkdir_with_parents(p, 0755), ==, 0);
                        break;
                case 'l':
                        g_assert_nonnull(w[2]);
                        g_assert_cmpint(symlink(w[2], p), ==, 0);
                        break;
                default:
                        g_assert_not_reached();
                }
        }
}

/* The layout of the VM run (tests/vm, systemd 257.13), minus the unit files
 * that only systemd needs. */
static const char *const vm257_tree[] = {
        "f " U "foo-bar.service",
        "c " U "foo-bar.service.d/10-a.conf",
        "c " E "foo-.service.d/10-a.conf",
        "c " R "service.d/20-b.conf",
        "c " U "foo-.service.d/30-c.conf",
        "c " E "service.d/40-m.conf",
        "c " U "foo-bar.service.d/40-m.conf",
        "l " E "foo-bar.service.d/50-null.conf /dev/null",
        "c " U "foo-.service.d/50-null.conf",
        "c " E "foo-bar.service.d/.55-hidden.conf",
        "d " E "foo-bar.service.d/60-dir.conf",
        "l " E "foo-bar.service.d/70-dangling.conf /nonexistent/x.conf",
        "c " E "foo-bar.service.d/80-notconf.txt",
        "c " R "foo-bar.service.d/85-run.conf",
        "c " L "foo-.service.d/86-local.conf",
        "e " E "foo-bar.service.d/87-empty.conf",
        "c " U "service.d/87-empty.conf",
        /* an instance directory in /usr/lib, the template's in /etc */
        "f " U "tmpl@.service",
        "c " U "tmpl@i1.service.d/10-x.conf",
        "c " E "tmpl@.service.d/10-x.conf",
        "c " U "tmpl@.service.d/20-t.conf",
        "c " E "tmpl-.service.d/30-p.conf",
        "c " E "tmpl-@i1.service.d/31-ip.conf",
        "l " E "tmpl-alias@.service " U "tmpl@.service",
        "c " E "tmpl-alias@.service.d/40-ta.conf",
        "c " E "tmpl-alias@i1.service.d/41-tai.conf",
        "f " E "tmpl@own.service",
        /* instance prefix directories */
        "f " U "a-b@.service",
        "c " E "a-b@x.service.d/10-a-bAx.conf",
        "c " E "a-b@.service.d/10-a-bA.conf",
        "c " E "a-.service.d/10-a-.conf",
        "c " E "a-@x.service.d/10-a-Ax.conf",
        "c " E "a-@.service.d/10-a-A.conf",
        "c " E "a-b.service.d/10-a-b.conf",
        "c " U "a-@.service.d/20-same.conf",
        "c " R "a-b@x.service.d/20-same.conf",
        /* aliases with drop-ins of their own, same names in both */
        "f " U "real2.service",
        "l " E "nick2.service " U "real2.service",
        "c " U "nick2.service.d/10-n.conf",
        "c " E "real2.service.d/20-r.conf",
        "c " U "real2.service.d/30-s.conf",
        "c " E "nick2.service.d/30-s.conf",
        "f " R "prec.service",
        "f " U "prec.service",
        "f " E "prec3.service",
        "f " U "prec3.service",
        "l " E "nick3.service " U "prec3.service",
        "l " R "nick4.service real2.service",
        "l " L "nick5.service nick4.service",
        /* masks */
        "f " U "empty.service",
        "e " E "empty.service",
        "f " U "masked.service",
        "l " E "masked.service /dev/null",
        "c " E "masked.service.d/10-m.conf",
        /* systemctl link, a linked drop-in directory */
        "f /opt/units/linked.service",
        "l " E "linked.service /opt/units/linked.service",
        "c " E "linked.service.d/10-l.conf",
        "f " U "symdir.service",
        "c /opt/sd/10-sd.conf",
        "l " E "symdir.service.d /opt/sd",
        /* dashes: doubled, trailing, leading */
        "f " U "foo--bar.service",
        "c " E "foo--.service.d/10-dd.conf",
        "c " E "foo-.service.d/11-d.conf",
        "f " U "x-y-.service",
        "c " E "x-y-.service.d/10.conf",
        "c " E "x-.service.d/11.conf",
        "c " E "x-y.service.d/12.conf",
        "f " U "-lead.service",
        "c " E "-.service.d/10.conf",
        "f " U "sl-a-b.slice",
        "c " E "sl-.slice.d/10.conf",
        "c " E "slice.d/11.conf",
        "c " E "sl-a-.slice.d/12.conf",
        /* not units: a self-alias into a subdirectory, an alias of another type */
        "f " U "sub/deep.service",
        "l " E "deep.service sub/deep.service",
        "c " E "ghost.service.d/10-g.conf",
        "f " U "typ.socket",
        "l " E "typalias.service " U "typ.socket",
        NULL,
};

typedef struct Expected {
        const char *name;
        const char *id;
        const char *names;    /* Names=, sorted here: systemd's order is a hash's */
        const char *fragment; /* FragmentPath= */
        bool masked;
        const char *dropins; /* DropInPaths= */
} Expected;

static const Expected vm257_expected[] = {
        { "foo-bar.service", "foo-bar.service", "foo-bar.service", U "foo-bar.service", false,
          E "foo-.service.d/10-a.conf " E "foo-.service.d/11-d.conf " R "service.d/20-b.conf " U
          "foo-.service.d/30-c.conf " U "foo-bar.service.d/40-m.conf " E "foo-bar.service.d/50-null.conf " E
          "foo-bar.service.d/60-dir.conf " E "foo-bar.service.d/70-dangling.conf " R
          "foo-bar.service.d/85-run.conf " L "foo-.service.d/86-local.conf " E "foo-bar.service.d/87-empty.conf" },
        { "tmpl@i1.service", "tmpl@i1.service", "tmpl-alias@i1.service tmpl@i1.service", U "tmpl@.service", false,
          E "tmpl@.service.d/10-x.conf " R "service.d/20-b.conf " U "tmpl@.service.d/20-t.conf " E
          "tmpl-.service.d/30-p.conf " E "tmpl-@i1.service.d/31-ip.conf " E "service.d/40-m.conf " E
          "tmpl-alias@.service.d/40-ta.conf " E "tmpl-alias@i1.service.d/41-tai.conf " U "service.d/87-empty.conf" },
        { "tmpl@i2.service", "tmpl@i2.service", "tmpl-alias@i2.service tmpl@i2.service", U "tmpl@.service", false,
          E "tmpl@.service.d/10-x.conf " R "service.d/20-b.conf " U "tmpl@.service.d/20-t.conf " E
          "tmpl-.service.d/30-p.conf " E "service.d/40-m.conf " E "tmpl-alias@.service.d/40-ta.conf " U
          "service.d/87-empty.conf" },
        { "tmpl-alias@i1.service", "tmpl@i1.service", "tmpl-alias@i1.service tmpl@i1.service", U "tmpl@.service",
          false,
          E "tmpl@.service.d/10-x.conf " R "service.d/20-b.conf " U "tmpl@.service.d/20-t.conf " E
          "tmpl-.service.d/30-p.conf " E "tmpl-@i1.service.d/31-ip.conf " E "service.d/40-m.conf " E
          "tmpl-alias@.service.d/40-ta.conf " E "tmpl-alias@i1.service.d/41-tai.conf " U "service.d/87-empty.conf" },
        { "tmpl@own.service", "tmpl@own.service", "tmpl@own.service", E "tmpl@own.service", false,
          E "tmpl@.service.d/10-x.conf " R "service.d/20-b.conf " U "tmpl@.service.d/20-t.conf " E
          "service.d/40-m.conf " U "service.d/87-empty.conf" },
        { "a-b@x.service", "a-b@x.service", "a-b@x.service", U "a-b@.service", false,
          E "a-.service.d/10-a-.conf " E "a-@.service.d/10-a-A.conf " E "a-@x.service.d/10-a-Ax.conf " E
          "a-b@.service.d/10-a-bA.conf " E "a-b@x.service.d/10-a-bAx.conf " R "service.d/20-b.conf " R
          "a-b@x.service.d/20-same.conf " E "service.d/40-m.conf " U "service.d/87-empty.conf" },
        { "a-b@y.service", "a-b@y.service", "a-b@y.service", U "a-b@.service", false,
          E "a-.service.d/10-a-.conf " E "a-@.service.d/10-a-A.conf " E "a-b@.service.d/10-a-bA.conf " R
          "service.d/20-b.conf " U "a-@.service.d/20-same.conf " E "service.d/40-m.conf " U "service.d/87-empty.conf" },
        { "real2.service", "real2.service", "nick2.service nick4.service nick5.service real2.service",
          U "real2.service", false,
          U "nick2.service.d/10-n.conf " R "service.d/20-b.conf " E "real2.service.d/20-r.conf " U
          "real2.service.d/30-s.conf " E "service.d/40-m.conf " U "service.d/87-empty.conf" },
        { "nick2.service", "real2.service", "nick2.service nick4.service nick5.service real2.service",
          U "real2.service", false,
          U "nick2.service.d/10-n.conf " R "service.d/20-b.conf " E "real2.service.d/20-r.conf " U
          "real2.service.d/30-s.conf " E "service.d/40-m.conf " U "service.d/87-empty.conf" },
        { "nick5.service", "real2.service", "nick2.service nick4.service nick5.service real2.service",
          U "real2.service", false,
          U "nick2.service.d/10-n.conf " R "service.d/20-b.conf " E "real2.service.d/20-r.conf " U
          "real2.service.d/30-s.conf " E "service.d/40-m.conf " U "service.d/87-empty.conf" },
        { "prec.service", "prec.service", "prec.service", R "prec.service", false,
          R "service.d/20-b.conf " E "service.d/40-m.conf " U "service.d/87-empty.conf" },
        { "nick3.service", "prec3.service", "nick3.service prec3.service", E "prec3.service", false,
          R "service.d/20-b.conf " E "service.d/40-m.conf " U "service.d/87-empty.conf" },
        { "empty.service", "empty.service", "empty.service", E "empty.service", true, "" },
        { "masked.service", "masked.service", "masked.service", E "masked.service", true, "" },
        { "linked.service", "linked.service", "linked.service", E "linked.service", false,
          E "linked.service.d/10-l.conf " R "service.d/20-b.conf " E "service.d/40-m.conf " U
          "service.d/87-empty.conf" },
        { "symdir.service", "symdir.service", "symdir.service", U "symdir.service", false,
          "/opt/sd/10-sd.conf " R "service.d/20-b.conf " E "service.d/40-m.conf " U "service.d/87-empty.conf" },
        { "foo--bar.service", "foo--bar.service", "foo--bar.service", U "foo--bar.service", false,
          E "foo-.service.d/10-a.conf " E "foo--.service.d/10-dd.conf " E "foo-.service.d/11-d.conf " R
          "service.d/20-b.conf " U "foo-.service.d/30-c.conf " E "service.d/40-m.conf " U
          "foo-.service.d/50-null.conf " L "foo-.service.d/86-local.conf " U "service.d/87-empty.conf" },
        { "x-y-.service", "x-y-.service", "x-y-.service", U "x-y-.service", false,
          E "x-y-.service.d/10.conf " E "x-.service.d/11.conf " R "service.d/20-b.conf " E "service.d/40-m.conf " U
          "service.d/87-empty.conf" },
        { "-lead.service", "-lead.service", "-lead.service", U "-lead.service", false,
          R "service.d/20-b.conf " E "service.d/40-m.conf " U "service.d/87-empty.conf" },
        { "sl-a-b.slice", "sl-a-b.slice", "sl-a-b.slice", U "sl-a-b.slice", false,
          E "sl-.slice.d/10.conf " E "slice.d/11.conf " E "sl-a-.slice.d/12.conf" },
        /* systemd finds no unit (and so shows no DropInPaths) for these. */
        { "deep.service", "deep.service", "deep.service", NULL, false, NULL },
        { "typalias.service", "typalias.service", "typalias.service", NULL, false, NULL },
        { "notmpl@i.service", "notmpl@i.service", "notmpl@i.service", NULL, false, NULL },
};

static char *joined_sorted(char **v, const char *extra) {
        g_autoptr(GPtrArray) a = g_ptr_array_new();
        GString *s = g_string_new(NULL);

        for (char **p = v; p && *p; p++)
                g_ptr_array_add(a, *p);
        if (extra)
                g_ptr_array_add(a, (gpointer) extra);
        g_ptr_array_sort(a, strcmp_ptr);
        for (guint i = 0; i < a->len; i++)
                g_string_append_printf(s, "%s%s", i ? " " : "", (char *) g_ptr_array_index(a, i));
        return g_string_free(s, FALSE);
}

static const char *vm257_root(void) {
        static char *root;

        if (!root) {
                root = g_build_filename(tmpdir, "vm257", NULL);
                build_tree(root, vm257_tree);
        }
        return root;
}

static void check_expected(gconstpointer data) {
        const Expected *x = data;
        g_autoptr(UnitLookup) l = NULL;
        g_autoptr(UnitInfo) u = NULL;

        g_assert_cmpint(unit_lookup_new(vm257_root(), search_path, &l), ==, 0);
        g_assert_cmpint(unit_lookup_unit(l, x->name, 0, &u), ==, 0);

        g_autofree char *names = joined_sorted(u->aliases, u->id);
        g_autofree char *dropins = g_strjoinv(" ", u->dropins);
        g_assert_cmpstr(u->id, ==, x->id);
        g_assert_cmpstr(names, ==, x->names);
        g_assert_cmpstr(u->fragment, ==, x->fragment);
        g_assert_cmpint(u->masked, ==, x->masked);
        if (x->dropins)
                g_assert_cmpstr(dropins, ==, x->dropins);
        g_assert_cmpuint(g_strv_length(u->dropin_files), ==, g_strv_length(u->dropins));
}

/* The files to read are inside the root, whatever the links say. */
static void test_files_resolve_inside_root(void) {
        const char *root = vm257_root();
        g_autoptr(UnitLookup) l = NULL;
        g_autoptr(UnitInfo) linked = NULL, nick = NULL, symdir = NULL, foo = NULL;

        g_assert_cmpint(unit_lookup_new(root, search_path, &l), ==, 0);

        g_assert_cmpint(unit_lookup_unit(l, "linked.service", 0, &linked), ==, 0);
        g_autofree char *want = g_build_filename(root, "opt/units/linked.service", NULL);
        g_assert_cmpstr(linked->fragment_file, ==, want);

        g_assert_cmpint(unit_lookup_unit(l, "nick2.service", 0, &nick), ==, 0);
        g_autofree char *want2 = g_build_filename(root, U "real2.service", NULL);
        g_assert_cmpstr(nick->fragment_file, ==, want2);

        g_assert_cmpint(unit_lookup_unit(l, "symdir.service", 0, &symdir), ==, 0);
        g_autofree char *want3 = g_build_filename(root, "opt/sd/10-sd.conf", NULL);
        g_assert_cmpstr(symdir->dropin_files[0], ==, want3);

        /* A drop-in linked to /dev/null reads as /dev/null, though the root has no /dev. */
        g_assert_cmpint(unit_lookup_unit(l, "foo-bar.service", 0, &foo), ==, 0);
        g_assert_cmpstr(foo->dropins[5], ==, E "foo-bar.service.d/50-null.conf");
        g_assert_cmpstr(foo->dropin_files[5], ==, "/dev/null");
}

/* Absolute links that exist outside the root, and differ inside it: the
 * inside wins at every step, and ".." stops at the root. */
static void test_absolute_links_stay_inside_root(void) {
        g_autofree char *root = g_build_filename(tmpdir, "escape", NULL);
        g_autofree char *outside = g_build_filename(tmpdir, "outside", NULL);
        g_autofree char *out_unit = g_build_filename(outside, "esc.service", NULL);
        g_autofree char *out_conf = g_build_filename(outside, "dropins/10-out.conf", NULL);
        g_autofree char *in_conf = g_strconcat("c ", outside, "/dropins/20-in.conf", NULL);
        g_autofree char *link_unit = g_strconcat("l " E "esc.service ", out_unit, NULL);
        g_autofree char *link_dir = g_strconcat("l " E "esc2.service.d ", outside, "/dropins", NULL);
        g_autofree char *link_hop = g_strconcat("l /hop ", outside, NULL);
        const char *tree[] = {
                link_unit,
                "f " U "esc2.service",
                link_dir,
                in_conf,
                "f " U "dots.service",
                /* ../../../.. from /etc/systemd/system/dots.service.d reaches / and stops there */
                "l " E "dots.service.d ../../../../../../../../opt/dots",
                "c /opt/dots/10-dots.conf",
                /* a link to a link to a directory, both absolute */
                "f " U "hop.service",
                link_hop,
                "l " E "hop.service.d /hop/dropins",
                NULL,
        };
        const char *outside_tree[] = {
                "f /esc.service",
                "c /dropins/10-out.conf",
                NULL,
        };
        g_autoptr(UnitLookup) l = NULL;
        g_autoptr(UnitInfo) esc = NULL, esc2 = NULL, dots = NULL, hop = NULL;

        build_tree(root, tree);
        build_tree(outside, outside_tree);
        g_assert_true(g_file_test(out_unit, G_FILE_TEST_IS_REGULAR));
        g_assert_true(g_file_test(out_conf, G_FILE_TEST_IS_REGULAR));

        g_assert_cmpint(unit_lookup_new(root, search_path, &l), ==, 0);

        /* Linked to a file that exists only outside the root: dangling. */
        g_assert_cmpint(unit_lookup_unit(l, "esc.service", 0, &esc), ==, 0);
        g_assert_cmpstr(esc->fragment, ==, E "esc.service");
        g_assert_null(esc->fragment_file);

        g_assert_cmpint(unit_lookup_unit(l, "esc2.service", 0, &esc2), ==, 0);
        g_autofree char *in = g_strconcat(outside, "/dropins/20-in.conf", NULL);
        g_assert_cmpuint(g_strv_length(esc2->dropins), ==, 1);
        g_assert_cmpstr(esc2->dropins[0], ==, in);

        g_assert_cmpint(unit_lookup_unit(l, "dots.service", 0, &dots), ==, 0);
        g_assert_cmpuint(g_strv_length(dots->dropins), ==, 1);
        g_assert_cmpstr(dots->dropins[0], ==, "/opt/dots/10-dots.conf");

        g_assert_cmpint(unit_lookup_unit(l, "hop.service", 0, &hop), ==, 0);
        g_assert_cmpuint(g_strv_length(hop->dropins), ==, 1);
        g_assert_cmpstr(hop->dropins[0], ==, in);
}

static void test_loops_and_dangling_links(void) {
        g_autofree char *root = g_build_filename(tmpdir, "loops", NULL);
        const char *tree[] = {
                "l " E "loop1.service " U "loop2.service",
                "l " U "loop2.service " E "loop1.service",
                "l " E "self.service self.service",
                "l " E "dangle.service /nowhere/dangle.service",
                "l " E "dir-loop.service.d " E "dir-loop.service.d",
                "f " U "dir-loop.service",
                NULL,
        };
        g_autoptr(UnitLookup) l = NULL;
        g_autoptr(UnitInfo) a = NULL, b = NULL, c = NULL, d = NULL;

        build_tree(root, tree);
        g_assert_cmpint(unit_lookup_new(root, search_path, &l), ==, 0);

        g_assert_cmpint(unit_lookup_unit(l, "loop1.service", 0, &a), ==, 0);
        g_assert_null(a->fragment);
        g_assert_cmpint(unit_lookup_unit(l, "self.service", 0, &b), ==, 0);
        g_assert_null(b->fragment);
        g_assert_cmpint(unit_lookup_unit(l, "dangle.service", 0, &c), ==, 0);
        g_assert_cmpstr(c->fragment, ==, E "dangle.service");
        g_assert_null(c->fragment_file);
        g_assert_false(c->masked);
        g_assert_cmpint(unit_lookup_unit(l, "dir-loop.service", 0, &d), ==, 0);
        g_assert_cmpuint(g_strv_length(d->dropins), ==, 0);
}

/* A template looked up as "any instance" reads what every instance reads,
 * including instance prefix directories, and nothing instance-specific. */
static void test_template_as_any_instance(void) {
        g_autoptr(UnitLookup) l = NULL;
        g_autoptr(UnitInfo) u = NULL;

        g_assert_cmpint(unit_lookup_new(vm257_root(), search_path, &l), ==, 0);
        g_assert_cmpint(unit_lookup_unit(l, "a-b@.service", UNIT_LOOKUP_ANY_INSTANCE, &u), ==, 0);
        g_autofree char *names = g_strjoinv(" ", u->dropin_names);
        g_assert_cmpstr(names, ==, "a-b@.service a-.service a-@.service service");
        g_autofree char *dropins = g_strjoinv(" ", u->dropins);
        /* a-b@y.service without its instance: the same as systemd's list for it */
        g_assert_cmpstr(dropins, ==,
                        E "a-.service.d/10-a-.conf " E "a-@.service.d/10-a-A.conf " E "a-b@.service.d/10-a-bA.conf " R
                          "service.d/20-b.conf " U "a-@.service.d/20-same.conf " E "service.d/40-m.conf " U
                          "service.d/87-empty.conf");
}

static void test_dropin_names(void) {
        static const struct {
                const char *name, *expected;
        } table[] = {
                { "foo.service", "foo.service" },
                { "foo-bar-baz.service", "foo-bar-baz.service foo-bar-.service foo-.service" },
                { "foo-bar@x.service",
                  "foo-bar@x.service foo-bar@.service foo-.service foo-@x.service foo-@.service" },
                { "foo-bar@.service", "foo-bar@.service foo-.service" },
                { "foo-.service", "foo-.service" },
                { "a-b-.service", "a-b-.service a-.service" },
                { "foo--bar.service", "foo--bar.service foo--.service foo-.service" },
                { "-lead.service", "-lead.service" },
                { "a-b-c@i-j.socket", "a-b-c@i-j.socket a-b-c@.socket a-b-.socket a-.socket a-b-@i-j.socket "
                                      "a-b-@.socket a-@i-j.socket a-@.socket" },
                { "not-a-unit", "" },
                { "service", "" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
                g_auto(GStrv) v = unit_name_dropin_names(table[i].name);
                g_autofree char *s = g_strjoinv(" ", v);
                g_assert_cmpstr(s, ==, table[i].expected);
        }
}

static void test_unit_names(void) {
        g_assert_cmpint(unit_name_kind("a.service"), ==, UNIT_NAME_PLAIN);
        g_assert_cmpint(unit_name_kind("a@.service"), ==, UNIT_NAME_TEMPLATE);
        g_assert_cmpint(unit_name_kind("a@b@c.service"), ==, UNIT_NAME_INSTANCE);
        g_assert_cmpint(unit_name_kind("@b.service"), ==, UNIT_NAME_INVALID);
        g_assert_cmpint(unit_name_kind("a.bogus"), ==, UNIT_NAME_INVALID);
        g_assert_cmpint(unit_name_kind(".service"), ==, UNIT_NAME_INVALID);
        g_assert_cmpint(unit_name_kind("a b.service"), ==, UNIT_NAME_INVALID);
        g_autofree char *t = unit_name_to_template("a@b.service");
        g_assert_cmpstr(t, ==, "a@.service");
        g_assert_null(unit_name_to_template("a@.service"));
        g_assert_cmpstr(unit_name_type("x-y.slice"), ==, "slice");
}

/* The case unit_file_find_dropins() got wrong: it walked directory names
 * in the outer loop, so /usr/lib/…/foo-bar.service.d/30-d.conf beat
 * /etc/…/foo-.service.d/30-d.conf. systemd walks the search path first. */
static void test_search_path_is_the_outer_loop(void) {
        g_autofree char *root = g_build_filename(tmpdir, "outer", NULL);
        const char *tree[] = {
                "f " U "foo-bar.service",
                "c " U "foo-bar.service.d/10-a.conf",
                "c " E "foo-.service.d/20-b.conf",
                "c " U "service.d/05-c.conf",
                "c " U "foo-bar.service.d/30-d.conf",
                "c " E "foo-.service.d/30-d.conf",
                "c " E "other.service.d/10-x.conf",
                NULL,
        };
        g_autoptr(UnitLookup) l = NULL;
        g_autoptr(UnitInfo) u = NULL;

        build_tree(root, tree);
        g_assert_cmpint(unit_lookup_new(root, unit_search_dirs, &l), ==, 0);
        g_assert_cmpint(unit_lookup_unit(l, "foo-bar.service", 0, &u), ==, 0);
        g_autofree char *dropins = g_strjoinv(" ", u->dropins);
        g_assert_cmpstr(dropins, ==,
                        U "service.d/05-c.conf " U "foo-bar.service.d/10-a.conf " E "foo-.service.d/20-b.conf " E
                          "foo-.service.d/30-d.conf");
        g_autofree char *dirs = g_strjoinv(" ", u->dropin_dirs);
        g_assert_cmpstr(dirs, ==, E "foo-.service.d " U "foo-bar.service.d " U "service.d");
        g_autofree char *names = g_strjoinv(" ", u->dropin_names);
        g_assert_cmpstr(names, ==, "foo-bar.service foo-.service service");
}

/* A bare type: the type directory alone, across the search path. */
static void test_type_directory_alone(void) {
        g_autoptr(UnitLookup) l = NULL;
        g_autoptr(UnitInfo) u = NULL;

        g_assert_cmpint(unit_lookup_new(vm257_root(), search_path, &l), ==, 0);
        g_assert_cmpint(unit_lookup_unit(l, "service", 0, &u), ==, 0);
        g_assert_null(u->fragment);
        g_autofree char *dropins = g_strjoinv(" ", u->dropins);
        g_assert_cmpstr(dropins, ==, R "service.d/20-b.conf " E "service.d/40-m.conf " U "service.d/87-empty.conf");
        g_assert_cmpint(unit_lookup_unit(l, "bogus", 0, &u), ==, -EINVAL);
}

/* Without a root, paths are the host's own. */
static void test_no_root(void) {
        g_autofree char *dir = g_build_filename(tmpdir, "noroot", NULL);
        g_autofree char *unit = g_strconcat("f ", dir, "/u/x-y.service", NULL);
        g_autofree char *conf = g_strconcat("c ", dir, "/u/x-.service.d/10.conf", NULL);
        g_autofree char *u_dir = g_build_filename(dir, "u", NULL);
        const char *tree[] = { unit, conf, NULL };
        const char *path[] = { u_dir, NULL };
        g_autoptr(UnitLookup) l = NULL;
        g_autoptr(UnitInfo) u = NULL;

        build_tree("/", tree);
        g_assert_cmpint(unit_lookup_new("/", path, &l), ==, 0);
        g_assert_cmpint(unit_lookup_unit(l, "x-y.service", 0, &u), ==, 0);
        g_autofree char *want = g_build_filename(u_dir, "x-y.service", NULL);
        g_assert_cmpstr(u->fragment, ==, want);
        g_assert_cmpstr(u->fragment_file, ==, want);
        g_assert_cmpuint(g_strv_length(u->dropins), ==, 1);
        g_assert_cmpstr(u->dropins[0], ==, u->dropin_files[0]);
}

static void test_user_manager_unit(void) {
        uid_t uid = 0;
        g_assert_cmpint(user_manager_unit_parse("user@1000.service", &uid), ==, 0);
        g_assert_cmpuint(uid, ==, 1000);
        g_assert_cmpint(user_manager_unit_parse("user@.service", NULL), <, 0);
        g_assert_cmpint(user_manager_unit_parse("user-runtime-dir@1000.service", NULL), <, 0);
        g_assert_cmpint(user_manager_unit_parse("user@1000.scope", NULL), <, 0);
        g_assert_cmpint(user_manager_unit_parse("user@1000/x.service", NULL), <, 0);
        g_assert_cmpint(user_manager_unit_parse("user@01000.service", NULL), <, 0);
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        tmpdir = g_dir_make_tmp("unit-lookup-XXXXXX", NULL);
        g_assert_nonnull(tmpdir);

        for (size_t i = 0; i < G_N_ELEMENTS(vm257_expected); i++) {
                g_autofree char *path = g_strconcat("/unit-lookup/systemd-257/", vm257_expected[i].name, NULL);
                g_test_add_data_func(path, &vm257_expected[i], check_expected);
        }
        g_test_add_func("/unit-lookup/files-resolve-inside-root", test_files_resolve_inside_root);
        g_test_add_func("/unit-lookup/absolute-links-stay-inside-root", test_absolute_links_stay_inside_root);
        g_test_add_func("/unit-lookup/loops-and-dangling-links", test_loops_and_dangling_links);
        g_test_add_func("/unit-lookup/template-as-any-instance", test_template_as_any_instance);
        g_test_add_func("/unit-lookup/dropin-names", test_dropin_names);
        g_test_add_func("/unit-lookup/unit-names", test_unit_names);
        g_test_add_func("/unit-lookup/no-root", test_no_root);
        g_test_add_func("/unit-lookup/search-path-is-the-outer-loop", test_search_path_is_the_outer_loop);
        g_test_add_func("/unit-lookup/type-directory-alone", test_type_directory_alone);
        g_test_add_func("/unit-lookup/user-manager-unit", test_user_manager_unit);

        int r = g_test_run();
        const char *argv_rm[] = { "rm", "-rf", tmpdir, NULL };
        (void) g_spawn_sync(NULL, (char **) argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
        g_free(tmpdir);
        return r;
}
