/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Just enough JSON output for --json: strings escaped per RFC 8259. */

#include <glib.h>
#include <stdbool.h>

void json_append_string(GString *out, const char *s); /* NULL → null */
void json_append_key(GString *out, const char *key);   /* "key": */
void json_append_string_array(GString *out, const char *const *strv, guint n);
