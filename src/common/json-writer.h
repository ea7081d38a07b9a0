/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Just enough JSON output for --json: strings escaped per RFC 8259, and
 * always valid UTF-8. */

#include <glib.h>
#include <stdbool.h>

/* NULL → null; bytes that are not valid UTF-8 → U+FFFD. */
void json_append_string(GString *out, const char *s);
void json_append_key(GString *out, const char *key);   /* "key": */
void json_append_string_array(GString *out, const char *const *strv, guint n);

/* The JSON text compact (as the functions above write it) indented, one
 * member or element a line, for --json=pretty. No trailing newline. */
char *json_pretty(const char *compact);
