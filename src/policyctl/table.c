/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stdarg.h>
#include <stdio.h>

#include "policyctl-output.h"
#include "table.h"
#include "util.h"

#define ELLIPSIS "\u2026"

struct Table {
        const TableColumn *columns;
        size_t n_columns;
        GPtrArray *cells; /* char*, row after row */
        GString *markers; /* one character per row, when has_markers */
        bool has_markers;
        int widths[16];
        bool dropped[16];
};

static int text_width(const char *s) {
        return (int) g_utf8_strlen(s, -1);
}

/* s cut to width characters, with an ellipsis at the end or at the start. */
static char *ellipsize(const char *s, int width, bool keep_end) {
        int n = text_width(s);

        if (n <= width)
                return g_strdup(s);
        if (width <= 1)
                return g_strdup(ELLIPSIS);
        if (keep_end) {
                g_autofree char *tail = g_utf8_substring(s, n - (width - 1), n);
                return g_strconcat(ELLIPSIS, tail, NULL);
        }
        g_autofree char *head = g_utf8_substring(s, 0, width - 1);
        return g_strconcat(head, ELLIPSIS, NULL);
}

Table *table_new(const TableColumn *columns, size_t n_columns, bool has_markers) {
        Table *t = g_new0(Table, 1);

        g_assert(n_columns <= ELEMENTSOF(t->widths));
        t->columns = columns;
        t->n_columns = n_columns;
        t->cells = g_ptr_array_new_with_free_func(g_free);
        t->markers = g_string_new(NULL);
        t->has_markers = has_markers;
        return t;
}

void table_free(Table *t) {
        if (!t)
                return;
        g_ptr_array_unref(t->cells);
        g_string_free(t->markers, TRUE);
        g_free(t);
}

static guint table_rows(const Table *t) {
        return t->cells->len / t->n_columns;
}

static const char *table_cell(const Table *t, guint row, size_t column) {
        return g_ptr_array_index(t->cells, row * t->n_columns + column);
}

void table_add_row(Table *t, int marker, ...) {
        va_list ap;

        va_start(ap, marker);
        for (size_t i = 0; i < t->n_columns; i++) {
                const char *s = va_arg(ap, const char *);
                /* Widths count characters: a name from a file name may not
                 * be UTF-8, and is shown as JSON shows it (U+FFFD). */
                if (isempty(s))
                        g_ptr_array_add(t->cells, g_strdup("-"));
                else
                        g_ptr_array_add(t->cells, g_utf8_make_valid(s, -1));
        }
        va_end(ap);
        g_string_append_c(t->markers, (char) marker);
}

/* The blanks printed before column c, when it is not the first one printed. */
static int gap_before(const Table *t, size_t c) {
        return t->columns[c].one_blank ? 1 : 2;
}

/* The width of a line: the columns not dropped, and the gaps between them. */
static int table_width(const Table *t) {
        int total = t->has_markers ? 2 : 0;
        bool first = true;

        for (size_t c = 0; c < t->n_columns; c++) {
                if (t->dropped[c])
                        continue;
                total += t->widths[c] + (first ? 0 : gap_before(t, c));
                first = false;
        }
        return total;
}

void table_layout(Table *t, const TableCut *cuts, size_t n_cuts) {
        int total, columns = output_columns();

        for (size_t c = 0; c < t->n_columns; c++) {
                t->widths[c] = text_width(t->columns[c].header);
                for (guint row = 0; row < table_rows(t); row++)
                        t->widths[c] = MAX(t->widths[c], text_width(table_cell(t, row, c)));
        }
        total = table_width(t);
        for (size_t c = 0; columns > 0 && total > columns && c < t->n_columns; c++)
                if (t->columns[c].droppable) {
                        t->dropped[c] = true;
                        total = table_width(t);
                }
        for (size_t i = 0; columns > 0 && total > columns && i < n_cuts; i++) {
                size_t c = cuts[i].column;
                int cut = MIN(total - columns, t->widths[c] - cuts[i].width);
                if (cut > 0) {
                        t->widths[c] -= cut;
                        total -= cut;
                }
        }
}

bool table_dropped(const Table *t, size_t column) {
        return t->dropped[column];
}

char table_marker(const Table *t, guint row) {
        return t->markers->str[row];
}

static void print_row(const Table *t, char marker, const char *const *cells, bool header) {
        g_autoptr(GString) line = g_string_new(NULL);
        bool first = true;

        if (t->has_markers)
                g_string_append_printf(line, "%c ", marker);
        for (size_t c = 0; c < t->n_columns; c++) {
                const TableColumn *col = &t->columns[c];
                if (t->dropped[c])
                        continue;
                g_autofree char *s = ellipsize(cells[c], t->widths[c], col->keep_end);
                int pad = t->widths[c] - text_width(s);
                bool last = c + 1 == t->n_columns;

                if (!first)
                        g_string_append_printf(line, "%*s", gap_before(t, c), "");
                first = false;
                if (col->right)
                        g_string_append_printf(line, "%*s", pad, "");
                g_string_append(line, s);
                if (!col->right && !last)
                        g_string_append_printf(line, "%*s", pad, "");
        }
        /* No trailing blanks. */
        while (line->len > 0 && line->str[line->len - 1] == ' ')
                g_string_truncate(line, line->len - 1);
        if (header)
                printf("%s%s%s\n", ansi_underline(), line->str, ansi_normal());
        else if (marker == '!')
                printf("%s!%s%s\n", ansi_highlight_yellow(), ansi_normal(), line->str + 1);
        else
                puts(line->str);
}

void table_print(const Table *t) {
        g_autofree const char **headers = g_new0(const char *, t->n_columns);

        for (size_t c = 0; c < t->n_columns; c++)
                headers[c] = t->columns[c].header;
        if (!arg_no_legend)
                print_row(t, ' ', headers, true);
        for (guint row = 0; row < table_rows(t); row++)
                print_row(t, t->markers->str[row], (const char *const *) t->cells->pdata + row * t->n_columns, false);
}
