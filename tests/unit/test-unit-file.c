/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <glib.h>
#include <glib/gstdio.h>

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
        g_assert_cmpint(unit_file_read_policy_groups("a.service", f, NULL, &groups, NULL), ==, 0);
        g_autofree char *s = joined(groups);
        g_assert_cmpstr(s, ==, "foreground batch");
}

static void test_other_sections_are_not_read(void) {
        g_autofree char *f = put("u2/a.service", "[Install]\nPolicyGroup=wrong\n[Socket]\nPolicyGroup=wrong2\n"
                                                 "[X-Foo]\nPolicyGroup=wrong3\n");
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("a.service", f, NULL, &groups, NULL), ==, 0);
        g_assert_cmpuint(g_strv_length(groups), ==, 0);
}

static void test_type_section_follows_unit_type(void) {
        g_autofree char *f = put("u3/a.socket", "[Socket]\nPolicyGroup=s\n[Service]\nPolicyGroup=wrong\n");
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("a.socket", f, NULL, &groups, NULL), ==, 0);
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
        g_assert_cmpint(unit_file_read_policy_groups("a.service", f, dropins, &groups, NULL), ==, 0);
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

        g_assert_cmpint(unit_file_read_policy_groups("a.service", bad, dropins, &refused, d), ==, 0);
        g_assert_cmpuint(g_strv_length(refused), ==, 0);
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), ==, 2); /* the line, and the unit */

        g_assert_cmpint(unit_file_read_policy_groups("b.service", good, dropins, &partial, NULL), ==, 0);
        g_autofree char *s = joined(partial);
        g_assert_cmpstr(s, ==, "a c e");
}

/* "[Unit ]" is an unknown section to systemd, not [Unit]. */
static void test_section_names_are_verbatim(void) {
        g_autofree char *f = put("u10/a.service", "[Unit ]\nPolicyGroup=a\n[ Service]\nPolicyGroup=b\n"
                                                  "[Service]\nPolicyGroup=c\n");
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("a.service", f, NULL, &groups, NULL), ==, 0);
        g_autofree char *s = joined(groups);
        g_assert_cmpstr(s, ==, "c");
}

static void test_bad_group_name_is_an_error_with_line(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        g_autofree char *f = put("u5/a.service", "[Unit]\n\nPolicyGroup=ok bad,name\n");
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("a.service", f, NULL, &groups, d), ==, 0);
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
        g_assert_cmpint(unit_file_read_policy_groups("run.scope", NULL, dropins, &a, NULL), ==, 0);
        g_autofree char *s = joined(a);
        g_assert_cmpstr(s, ==, "batch");
        g_assert_cmpint(unit_file_read_policy_groups("m.service", "/dev/null", NULL, &b, NULL), ==, 0);
        g_assert_cmpuint(g_strv_length(b), ==, 0);
}

static void test_missing_fragment_is_a_diagnostic(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        g_auto(GStrv) groups = NULL;
        g_assert_cmpint(unit_file_read_policy_groups("a.service", "/nonexistent/a.service", NULL, &groups, d), ==, 0);
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), ==, 1);
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

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        tmpdir = g_dir_make_tmp("unit-file-XXXXXX", NULL);
        g_assert_nonnull(tmpdir);
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
        g_test_add_func("/unit-file/slice-chain", test_slice_chain);
        g_test_add_func("/unit-file/property-values-compare-by-meaning", test_property_values_compare_by_meaning);
        int r = g_test_run();
        const char *argv_rm[] = { "rm", "-rf", tmpdir, NULL };
        (void) g_spawn_sync(NULL, (char **) argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
        g_free(tmpdir);
        return r;
}
