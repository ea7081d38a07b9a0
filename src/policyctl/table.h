/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* policyctl's tables, for the online and the offline verbs alike: rows of
 * cells in aligned columns, a header underlined on a terminal (none with
 * --no-legend), fitted to the terminal's width (output_columns()). */

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

typedef struct TableColumn {
        const char *header;
        bool right;      /* numbers */
        bool keep_end;   /* paths and file:line: cut at the start */
        bool droppable;  /* left out whole on a terminal too narrow for the table */
        bool one_blank;  /* one blank before it, not two (list's GROUP and PRIORITY) */
} TableColumn;

/* One step of fitting a table to a terminal: cut a column down to a width. */
typedef struct TableCut {
        size_t column;
        int width;
} TableCut;

typedef struct Table Table;

/* columns must outlive the table; at most 16 of them. With has_markers,
 * each row starts with its marker and a blank; a '!' is highlighted. */
Table *table_new(const TableColumn *columns, size_t n_columns, bool has_markers);
void table_free(Table *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Table, table_free)

/* Adds one row: n_columns strings; NULL or "" print as "-", and what is
 * not UTF-8 with U+FFFD in place of the bad bytes. */
void table_add_row(Table *t, int marker, ...);

/* Column widths from the cells. On a terminal too narrow for the table,
 * droppable columns are left out, then the cuts are made in order until it
 * fits; what still does not fit, the terminal wraps, which is better than
 * cutting the values the table is for. Output that is not a terminal is
 * never cut. */
void table_layout(Table *t, const TableCut *cuts, size_t n_cuts);

/* Whether table_layout() left the column out. */
bool table_dropped(const Table *t, size_t column);
/* The marker of a row, as table_add_row() was given it. */
char table_marker(const Table *t, guint row);

/* The header (unless --no-legend), then the rows; no trailing blanks. */
void table_print(const Table *t);
