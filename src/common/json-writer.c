/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "json-writer.h"

void json_append_string(GString *out, const char *s) {
        if (!s) {
                g_string_append(out, "null");
                return;
        }
        g_string_append_c(out, '"');
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                switch (*p) {
                case '"':
                        g_string_append(out, "\\\"");
                        break;
                case '\\':
                        g_string_append(out, "\\\\");
                        break;
                case '\n':
                        g_string_append(out, "\\n");
                        break;
                case '\t':
                        g_string_append(out, "\\t");
                        break;
                case '\r':
                        g_string_append(out, "\\r");
                        break;
                default:
                        if (*p < 0x20)
                                g_string_append_printf(out, "\\u%04x", *p);
                        else
                                g_string_append_c(out, (char) *p);
                }
        }
        g_string_append_c(out, '"');
}

void json_append_key(GString *out, const char *key) {
        json_append_string(out, key);
        g_string_append_c(out, ':');
}

void json_append_string_array(GString *out, const char *const *strv, guint n) {
        g_string_append_c(out, '[');
        for (guint i = 0; i < n; i++) {
                if (i > 0)
                        g_string_append_c(out, ',');
                json_append_string(out, strv[i]);
        }
        g_string_append_c(out, ']');
}
