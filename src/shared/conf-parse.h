/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* systemd's INI dialect: text → sections and assignments with file:line.
 * Knows nothing about keys; conf_table_apply() hands each assignment to the
 * parser a caller's table names. */

#include <glib.h>
#include <stddef.h>

#include "diagnostics.h"
#include "fileio.h"

/* systemd's LONG_LINE_MAX: a line must stay below it, a continued one may
 * reach it. */
#define CONF_LINE_MAX (1024U * 1024U)
#define CONF_FILE_MAX (16U * 1024U * 1024U)

typedef struct ConfAssignment {
        const char *section; /* points into ConfFile.sections */
        char *key;
        char *value;
        unsigned line;
} ConfAssignment;

typedef struct ConfSection {
        char *name;
        unsigned line;
} ConfSection;

typedef struct ConfFile {
        char *path;
        GPtrArray *sections;    /* ConfSection*, in file order */
        GPtrArray *assignments; /* ConfAssignment*, in file order */
        /* systemd stops at a line it cannot read (over-long, invalid
         * UTF-8, a bad section header) and refuses the whole file; what
         * came before that line is still here, as systemd had applied it. */
        bool refused;
        unsigned refused_line;
} ConfFile;

ConfFile *conf_file_free(ConfFile *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ConfFile, conf_file_free)

/* Parses size bytes of data exactly as systemd's config_parse() reads a
 * unit file: lines end at \n, \r, NUL or a mix of them; a leading UTF-8
 * BOM is dropped; comment lines are skipped even inside a continuation; a
 * continued line is numbered where it ends. A line systemd ignores becomes a
 * diagnostic naming path:line, and parsing goes on; a line that makes
 * systemd refuse the file ends the parse with f->refused set. Never fails. */
ConfFile *conf_parse_data(const char *path, const char *data, size_t size, Diagnostics *diags);

/* systemd's utf8_is_valid(): RFC 3629 UTF-8 without non-characters. */
bool conf_utf8_is_valid(const char *s, size_t n);

/* Splits a value into words as systemd 257 splits Documentation= (checked
 * in the VM): whitespace separates, quotes group and go, adjacent quoted
 * parts join, and a backslash is an ordinary character. Appends each word
 * to words (char*, owned); -EINVAL at an unbalanced quote, appending
 * nothing, since systemd then ignores the whole assignment. */
int conf_extract_words(const char *s, GPtrArray *words);

/* Reads and parses path. -errno when it cannot be read (with a diagnostic). */
int conf_parse_file(const char *path, ConfFile **ret, Diagnostics *diags);
/* The same from a descriptor opened on path, which stays open. */
int conf_parse_fd(int fd, const char *path, ConfFile **ret, Diagnostics *diags);
/* The diagnostic of a file that could not be read (r: -errno). */
void conf_read_failed(Diagnostics *diags, const char *path, int r);


typedef struct ConfContext {
        const char *file;
        unsigned line;
        const char *section;
        const char *key;
        int ltype; /* from the table item */
        Diagnostics *diags;
} ConfContext;

/* Parses value into target + offset. An empty value usually resets. On a bad
 * value it adds an error naming ctx->file:ctx->line and leaves the target
 * as it was. */
typedef void (*ConfParser)(const ConfContext *ctx, const char *value, void *data);

typedef struct ConfTableItem {
        const char *section;
        const char *key;
        ConfParser parse;
        size_t offset; /* added to the target pointer given to conf_table_apply */
        int ltype;     /* free for the parser's own use */
} ConfTableItem;

/* Applies every assignment of f through table. Unknown sections and keys are
 * warnings; sections and keys starting with "X-" are ignored silently, as
 * systemd does. table ends with an item whose section is NULL. */
void conf_table_apply(const ConfTableItem *table, const ConfFile *f, void *target, Diagnostics *diags);
