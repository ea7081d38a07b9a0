/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Parser golden files: tests/unit/golden/NAME.policy (with an optional
 * NAME.policy.d/) sits next to NAME.expected, which holds the diagnostics and
 * then the group as loaded. Set POLICYGROUPS_UPDATE_GOLDEN=1 to rewrite the
 * expected files after a deliberate change, and review the diff. */

#include <stdlib.h>
#include <unistd.h>

#include <glib.h>

#include "diagnostics.h"
#include "policy-load.h"
#include "util.h"

static char *render(const char *policy_file) {
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autoptr(PolicyGroup) g = NULL;
        GString *out = g_string_new(NULL);

        (void) policy_group_load_file(policy_file, &g, diags);
        diagnostics_sort(diags);
        for (guint i = 0; i < diags->items->len; i++) {
                g_autofree char *line = diagnostic_format(g_ptr_array_index(diags->items, i));
                g_string_append_printf(out, "%s\n", line);
        }
        g_string_append(out, "---\n");
        if (g) {
                g_autofree char *dump = policy_group_format(g);
                g_string_append(out, dump);
        } else
                g_string_append(out, "(no group)\n");
        return g_string_free(out, FALSE);
}

static void test_golden_case(gconstpointer data) {
        const char *policy_file = data;
        g_autofree char *stem = g_strndup(policy_file, strlen(policy_file) - strlen(".policy"));
        g_autofree char *expected_file = g_strconcat(stem, ".expected", NULL);
        g_autofree char *actual = render(policy_file);
        g_autofree char *expected = NULL;
        g_autoptr(GError) error = NULL;

        if (g_strcmp0(g_getenv("POLICYGROUPS_UPDATE_GOLDEN"), "1") == 0) {
                g_assert_true(g_file_set_contents(expected_file, actual, -1, &error));
                return;
        }
        if (!g_file_get_contents(expected_file, &expected, NULL, &error)) {
                g_test_message("missing %s; actual output was:\n%s", expected_file, actual);
                g_test_fail();
                return;
        }
        if (!g_str_equal(expected, actual))
                g_test_message("%s differs from what the loader produced", expected_file);
        g_assert_cmpstr(actual, ==, expected);
}

int main(int argc, char **argv) {
        const char *data = g_getenv("POLICYGROUPS_TEST_DATA");
        g_autofree char *dir = g_build_filename(data ? data : ".", "unit", "golden", NULL);
        g_autoptr(GPtrArray) cases = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GDir) d = NULL;
        const char *e;

        g_test_init(&argc, &argv, NULL);

        /* Paths in diagnostics are relative, so expected files do not depend
         * on where the tree is checked out. */
        if (chdir(dir) < 0)
                g_error("cannot enter %s", dir);
        d = g_dir_open(".", 0, NULL);
        while (d && (e = g_dir_read_name(d)))
                if (g_str_has_suffix(e, ".policy"))
                        g_ptr_array_add(cases, g_strdup(e));
        g_ptr_array_sort(cases, strcmp_ptr);
        if (cases->len == 0)
                g_error("no golden cases in %s", dir);

        for (guint i = 0; i < cases->len; i++) {
                const char *c = g_ptr_array_index(cases, i);
                g_autofree char *name = g_strdup_printf("/golden/%s", c);
                g_test_add_data_func(name, c, test_golden_case);
        }
        return g_test_run();
}
