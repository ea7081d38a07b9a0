/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Parser edge cases that golden files cannot hold comfortably. */

#include <glib.h>

#include "conf-parse.h"

static ConfFile *parse(const char *data, gsize size, Diagnostics *d) {
        return conf_parse_data("t.conf", data, size, d);
}

static void test_overlong_line_is_an_error_not_a_crash(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        g_autoptr(GString) s = g_string_new("[A]\nKey=");
        for (guint i = 0; i < CONF_LINE_MAX + 10; i++)
                g_string_append_c(s, 'x');
        g_string_append(s, "\nOther=1\n");

        g_autoptr(ConfFile) f = parse(s->str, s->len, d);
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), ==, 1);
        const Diagnostic *diag = g_ptr_array_index(d->items, 0);
        g_assert_cmpuint(diag->line, ==, 2);
        g_assert_nonnull(strstr(diag->message, "longer than"));
        g_assert_cmpuint(f->assignments->len, ==, 1); /* Other=1 survives */
}

static void test_overlong_continuation_is_an_error(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        g_autoptr(GString) s = g_string_new("[A]\nKey=");
        /* Many short lines that add up to more than the limit. */
        while (s->len < CONF_LINE_MAX + CONF_LINE_MAX / 8)
                g_string_append(s, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\\n");
        g_string_append(s, "end\nOther=1\n");

        g_autoptr(ConfFile) f = parse(s->str, s->len, d);
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), >=, 1);
        gboolean other = FALSE;
        for (guint i = 0; i < f->assignments->len; i++) {
                const ConfAssignment *a = g_ptr_array_index(f->assignments, i);
                g_assert_cmpuint(strlen(a->value), <=, CONF_LINE_MAX);
                other |= g_str_equal(a->key, "Other");
        }
        g_assert_true(other);
}

static void test_empty_and_whitespace_input(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        g_autoptr(ConfFile) a = parse("", 0, d);
        g_autoptr(ConfFile) b = parse("\n\n   \n\t\n", 6, d);
        g_assert_cmpuint(a->assignments->len + b->assignments->len, ==, 0);
        g_assert_cmpuint(d->items->len, ==, 0);
}

static void test_no_trailing_newline(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        g_autoptr(ConfFile) f = parse("[A]\nKey=v", 9, d);
        g_assert_cmpuint(f->assignments->len, ==, 1);
        const ConfAssignment *a = g_ptr_array_index(f->assignments, 0);
        g_assert_cmpstr(a->value, ==, "v");
        g_assert_cmpuint(a->line, ==, 2);
}

static void test_continuation_reports_first_line(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        const char text[] = "[A]\nKey=a \\\n b \\\n c\nNext=1\n";
        g_autoptr(ConfFile) f = parse(text, sizeof(text) - 1, d);
        g_assert_cmpuint(f->assignments->len, ==, 2);
        const ConfAssignment *a = g_ptr_array_index(f->assignments, 0);
        const ConfAssignment *b = g_ptr_array_index(f->assignments, 1);
        g_assert_cmpstr(a->value, ==, "a   b   c");
        g_assert_cmpuint(a->line, ==, 2);
        g_assert_cmpuint(b->line, ==, 5);
}

static void test_value_keeps_inner_equals_and_hash(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        const char text[] = "[A]\nKey = a=b # not a comment\n";
        g_autoptr(ConfFile) f = parse(text, sizeof(text) - 1, d);
        const ConfAssignment *a = g_ptr_array_index(f->assignments, 0);
        g_assert_cmpstr(a->key, ==, "Key");
        g_assert_cmpstr(a->value, ==, "a=b # not a comment");
}

typedef struct Target {
        char *seen;
        int count;
} Target;

static void record(const ConfContext *ctx, const char *value, void *data) {
        Target *t = data;
        g_free(t->seen);
        t->seen = g_strdup(value);
        t->count++;
}

static void test_table_warns_unknown_and_skips_x_prefixed(void) {
        static const ConfTableItem table[] = {
                { "A", "Known", record, 0, 0 },
                {},
        };
        g_autoptr(Diagnostics) d = diagnostics_new();
        const char text[] = "[A]\nKnown=1\nUnknown=2\nX-Mine=3\n[B]\nK=4\n[X-Vendor]\nK=5\n";
        g_autoptr(ConfFile) f = parse(text, sizeof(text) - 1, d);
        Target t = {};

        conf_table_apply(table, f, &t, d);
        g_assert_cmpint(t.count, ==, 1);
        g_assert_cmpstr(t.seen, ==, "1");
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_WARNING), ==, 2);
        g_autofree char *first = diagnostic_format(g_ptr_array_index(d->items, 0));
        g_autofree char *second = diagnostic_format(g_ptr_array_index(d->items, 1));
        g_assert_cmpstr(first, ==, "t.conf:5: warning: Unknown section 'B', ignoring");
        g_assert_cmpstr(second, ==, "t.conf:3: warning: Unknown key 'Unknown' in section [A], ignoring");
        g_free(t.seen);
}

static void test_unreadable_file_is_a_diagnostic(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        ConfFile *f = NULL;
        g_assert_cmpint(conf_parse_file("/nonexistent/x.policy", &f, d), ==, -ENOENT);
        g_assert_null(f);
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), ==, 1);
        g_autofree char *line = diagnostic_format(g_ptr_array_index(d->items, 0));
        g_assert_true(g_str_has_prefix(line, "/nonexistent/x.policy: error: Failed to read file"));
}

static void test_directory_is_not_a_file(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        ConfFile *f = NULL;
        g_assert_cmpint(conf_parse_file("/", &f, d), ==, -EISDIR);
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/conf-parse/overlong-line-is-an-error", test_overlong_line_is_an_error_not_a_crash);
        g_test_add_func("/conf-parse/overlong-continuation-is-an-error", test_overlong_continuation_is_an_error);
        g_test_add_func("/conf-parse/empty-and-whitespace-input", test_empty_and_whitespace_input);
        g_test_add_func("/conf-parse/no-trailing-newline", test_no_trailing_newline);
        g_test_add_func("/conf-parse/continuation-reports-first-line", test_continuation_reports_first_line);
        g_test_add_func("/conf-parse/value-keeps-inner-equals-and-hash", test_value_keeps_inner_equals_and_hash);
        g_test_add_func("/conf-parse/table-warns-unknown-skips-x", test_table_warns_unknown_and_skips_x_prefixed);
        g_test_add_func("/conf-parse/unreadable-file-is-a-diagnostic", test_unreadable_file_is_a_diagnostic);
        g_test_add_func("/conf-parse/directory-is-not-a-file", test_directory_is_not_a_file);
        return g_test_run();
}
