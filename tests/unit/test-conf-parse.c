/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Parser edge cases that golden files cannot hold comfortably. */

#include <glib.h>

#include "conf-parse.h"

static ConfFile *parse(const char *data, gsize size, Diagnostics *d) {
        return conf_parse_data("t.conf", data, size, d);
}

/* A line of n 'x' after "Key=", as one value. */
static GString *long_line_file(size_t n) {
        GString *s = g_string_new("[A]\nKey=");
        for (size_t i = 0; i < n; i++)
                g_string_append_c(s, 'x');
        g_string_append(s, "\nOther=1\n");
        return s;
}

/* systemd's read_line() takes up to LONG_LINE_MAX - 1 characters and
 * refuses the file beyond that; "Key=" counts. */
static void test_line_limit_is_systemds(void) {
        g_autoptr(Diagnostics) ok = diagnostics_new(), bad = diagnostics_new();
        g_autoptr(GString) longest = long_line_file(CONF_LINE_MAX - 1 - strlen("Key="));
        g_autoptr(GString) over = long_line_file(CONF_LINE_MAX - strlen("Key="));

        g_autoptr(ConfFile) f = parse(longest->str, longest->len, ok);
        g_assert_false(f->refused);
        g_assert_cmpuint(f->assignments->len, ==, 2);
        g_assert_cmpuint(ok->items->len, ==, 0);

        g_autoptr(ConfFile) g = parse(over->str, over->len, bad);
        g_assert_true(g->refused);
        g_assert_cmpuint(g->refused_line, ==, 2);
        g_assert_cmpuint(g->assignments->len, ==, 0); /* Other=1 comes after: never read */
        g_assert_cmpuint(diagnostics_count(bad, DIAGNOSTIC_ERROR), ==, 1);
        const Diagnostic *diag = g_ptr_array_index(bad->items, 0);
        g_assert_cmpuint(diag->line, ==, 2);
        g_assert_nonnull(strstr(diag->message, "longer than"));
}

static void test_overlong_continuation_refuses_the_file(void) {
        g_autoptr(Diagnostics) d = diagnostics_new();
        g_autoptr(GString) s = g_string_new("[A]\nFirst=1\nKey=");
        /* Many short lines that add up to more than the limit. */
        while (s->len < CONF_LINE_MAX + CONF_LINE_MAX / 8)
                g_string_append(s, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\\n");
        g_string_append(s, "end\nOther=1\n");

        g_autoptr(ConfFile) f = parse(s->str, s->len, d);
        g_assert_true(f->refused);
        g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), ==, 1);
        g_assert_cmpuint(f->assignments->len, ==, 1);
        g_assert_cmpstr(((ConfAssignment *) g_ptr_array_index(f->assignments, 0))->key, ==, "First");
}

/* What systemd 257 read from these bytes (checked in the VM): each case is
 * the file and "key=value@line" for every assignment, in order. */
static void test_line_ends_and_continuations(void) {
        static const struct {
                const char *name;
                const char *data;
                size_t size;
                const char *expected;
        } cases[] = {
#define CASE(name, text, expected) { name, text, sizeof(text) - 1, expected }
                CASE("lf", "[A]\nK=1\nL=2\n", "K=1@2 L=2@3"),
                CASE("crlf", "[A]\r\nK=1\r\nL=2\r\n", "K=1@2 L=2@3"),
                CASE("cr only", "[A]\rK=1\rL=2", "K=1@2 L=2@3"),
                CASE("lf-cr is one end", "[A]\n\rK=1\n\rL=2\n\r", "K=1@2 L=2@3"),
                CASE("cr-lf-nul is one end", "[A]\r\n\0K=1", "K=1@2"),
                CASE("two lfs are two ends", "[A]\n\nK=1", "K=1@3"),
                CASE("cr-lf-cr is two ends", "[A]\r\n\rK=1", "K=1@3"),
                CASE("nul ends a line", "[A]\nK=a\0L=b\n", "K=a@2 L=b@3"),
                CASE("nul then more", "[A]\nK=a\0\0L=b\n", "K=a@2 L=b@4"),
                CASE("lone cr in a value", "[A]\nK=a\rb=c\n", "K=a@2 b=c@3"),
                CASE("bom at the start", "\xEF\xBB\xBF[A]\nK=1\n", "K=1@2"),
                CASE("first bom at a later line", "[A]\n\xEF\xBB\xBFK=1\n", "K=1@2"),
                CASE("only the first bom", "[A]\n\xEF\xBB\xBFK=1\n\xEF\xBB\xBFL=2\n", "K=1@2 \xEF\xBB\xBFL=2@3"),
                CASE("bom inside a value", "[A]\nK=\xEF\xBB\xBFx\n", "K=\xEF\xBB\xBFx@2"),
                CASE("continued at its end line", "[A]\nK=a \\\n b\nL=1\n", "K=a   b@3 L=1@4"),
                CASE("comments inside a continuation", "[A]\nK=a\\\n# c\n; d\nb\n", "K=a b@5"),
                CASE("empty line ends a continuation", "[A]\nK=a\\\n\nL=1\n", "K=a@3 L=1@4"),
                CASE("continuation into eof", "[A]\nK=a\\\n# c\n", "K=a@4"),
                CASE("escaped backslash", "[A]\nK=a\\\\\nL=1\n", "K=a\\\\@2 L=1@3"),
                CASE("three backslashes continue", "[A]\nK=a\\\\\\\nb\n", "K=a\\\\ b@3"),
                CASE("whitespace and tabs", "[A]\n \tK \t= \tv v\t \n", "K=v v@2"),
                CASE("quotes stay", "[A]\nK=\"a b\" 'c'\n", "K=\"a b\" 'c'@2"),
                CASE("empty value", "[A]\nK=\n", "K=@2"),
                CASE("duplicate sections", "[A]\nK=1\n[B]\n[A]\nK=2\n", "K=1@2 K=2@5"),
#undef CASE
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autoptr(Diagnostics) d = diagnostics_new();
                g_autoptr(ConfFile) f = parse(cases[i].data, cases[i].size, d);
                g_autoptr(GString) got = g_string_new(NULL);

                for (guint j = 0; j < f->assignments->len; j++) {
                        const ConfAssignment *a = g_ptr_array_index(f->assignments, j);
                        g_string_append_printf(got, "%s%s=%s@%u", j ? " " : "", a->key, a->value, a->line);
                }
                if (!g_str_equal(got->str, cases[i].expected))
                        g_error("%s: expected '%s', got '%s'", cases[i].name, cases[i].expected, got->str);
                g_assert_false(f->refused);
        }
}

/* Lines that make systemd refuse the file, and where it stops. */
static void test_refusals(void) {
        static const struct {
                const char *name;
                const char *data;
                unsigned line;
                size_t kept;
        } cases[] = {
                { "unclosed section", "[A]\nK=1\n[B\nL=2\n", 3, 1 },
                { "quote in a section name", "[A]\nK=1\n[B\"]\nL=2\n", 3, 1 },
                { "tab in a section name", "[A\tB]\nK=1\n", 1, 0 },
                { "backslash in a section name", "[A]\n[A\\B]\n", 2, 0 },
                { "invalid utf-8", "[A]\nK=1\nL=\xff\nM=3\n", 3, 1 },
                { "overlong form", "[A]\nK=\xC0\xAF\n", 2, 0 },
                { "surrogate", "[A]\nK=\xED\xA0\x80\n", 2, 0 },
                { "non-character U+FDD0", "[A]\nK=\xEF\xB7\x90\n", 2, 0 },
                { "non-character U+1FFFF", "[A]\nK=\xF0\x9F\xBF\xBF\n", 2, 0 },
                { "beyond U+10FFFF", "[A]\nK=\xF4\x90\x80\x80\n", 2, 0 },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autoptr(Diagnostics) d = diagnostics_new();
                g_autoptr(ConfFile) f = parse(cases[i].data, strlen(cases[i].data), d);

                if (!f->refused || f->refused_line != cases[i].line || f->assignments->len != cases[i].kept)
                        g_error("%s: expected refusal at line %u keeping %zu, got refused=%d at %u keeping %u",
                                cases[i].name, cases[i].line, cases[i].kept, f->refused, f->refused_line,
                                f->assignments->len);
                g_assert_cmpuint(diagnostics_count(d, DIAGNOSTIC_ERROR), ==, 1);
        }
}

static void test_not_refused(void) {
        /* An unknown or empty section, a comment with bad UTF-8, valid
         * 4-byte UTF-8: read on, as systemd does. */
        const char *texts[] = {
                "[A ]\nK=1\n[]\n",
                "[A]\n# \xff\xfe\nK=1\n",
                "[A]\nK=\xF0\x9F\x98\x80 \xE2\x82\xAC \xC3\xA9\n",
        };
        for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
                g_autoptr(Diagnostics) d = diagnostics_new();
                g_autoptr(ConfFile) f = parse(texts[i], strlen(texts[i]), d);
                g_assert_false(f->refused);
                g_assert_cmpuint(f->assignments->len, ==, 1);
        }
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
        g_test_add_func("/conf-parse/line-limit-is-systemds", test_line_limit_is_systemds);
        g_test_add_func("/conf-parse/overlong-continuation-refuses-the-file", test_overlong_continuation_refuses_the_file);
        g_test_add_func("/conf-parse/line-ends-and-continuations", test_line_ends_and_continuations);
        g_test_add_func("/conf-parse/refusals", test_refusals);
        g_test_add_func("/conf-parse/not-refused", test_not_refused);
        g_test_add_func("/conf-parse/empty-and-whitespace-input", test_empty_and_whitespace_input);
        g_test_add_func("/conf-parse/no-trailing-newline", test_no_trailing_newline);
        g_test_add_func("/conf-parse/value-keeps-inner-equals-and-hash", test_value_keeps_inner_equals_and_hash);
        g_test_add_func("/conf-parse/table-warns-unknown-skips-x", test_table_warns_unknown_and_skips_x_prefixed);
        g_test_add_func("/conf-parse/unreadable-file-is-a-diagnostic", test_unreadable_file_is_a_diagnostic);
        g_test_add_func("/conf-parse/directory-is-not-a-file", test_directory_is_not_a_file);
        return g_test_run();
}
