/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* systemd's INI dialect: text → sections and assignments with file:line.
 * Knows nothing about keys; conf_table_apply() hands each assignment to the
 * parser a caller's table names. */

#include <glib.h>
#include <stddef.h>

#include "diagnostics.h"

#define CONF_LINE_MAX (1024U * 1024U) /* systemd's LONG_LINE_MAX */
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
} ConfFile;

ConfFile *conf_file_free(ConfFile *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ConfFile, conf_file_free)

/* Parses size bytes of data. Syntax problems become diagnostics naming
 * path:line; the line is skipped and parsing goes on. Never fails. */
ConfFile *conf_parse_data(const char *path, const char *data, size_t size, Diagnostics *diags);

/* Reads and parses path. -errno when it cannot be read (with a diagnostic). */
int conf_parse_file(const char *path, ConfFile **ret, Diagnostics *diags);

/* Reads a whole file, refusing one larger than CONF_FILE_MAX. */
int read_full_file(const char *path, char **ret, size_t *ret_size);

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
