/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "json-writer.h"

void json_append_string(GString *out, const char *s) {
        if (!s) {
                g_string_append(out, "null");
                return;
        }
        g_string_append_c(out, '"');
        for (const char *p = s; *p;) {
                unsigned char c = (unsigned char) *p;
                gunichar u;

                switch (c) {
                case '"':
                        g_string_append(out, "\\\"");
                        p++;
                        continue;
                case '\\':
                        g_string_append(out, "\\\\");
                        p++;
                        continue;
                case '\n':
                        g_string_append(out, "\\n");
                        p++;
                        continue;
                case '\t':
                        g_string_append(out, "\\t");
                        p++;
                        continue;
                case '\r':
                        g_string_append(out, "\\r");
                        p++;
                        continue;
                }
                if (c < 0x20) {
                        g_string_append_printf(out, "\\u%04x", c);
                        p++;
                        continue;
                }
                if (c < 0x80) {
                        g_string_append_c(out, (char) c);
                        p++;
                        continue;
                }
                /* JSON text is UTF-8 (RFC 8259 §8.1): a byte that is not part
                 * of a valid sequence, as in a file name in another encoding,
                 * becomes U+FFFD, as g_utf8_make_valid() does. */
                u = g_utf8_get_char_validated(p, -1);
                if (u == (gunichar) -1 || u == (gunichar) -2) {
                        g_string_append(out, "\\ufffd");
                        p++;
                        continue;
                }
                const char *next = g_utf8_next_char(p);
                g_string_append_len(out, p, next - p);
                p = next;
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

static void append_newline_indent(GString *out, unsigned depth) {
        g_string_append_c(out, '\n');
        for (unsigned i = 0; i < depth; i++)
                g_string_append(out, "  ");
}

char *json_pretty(const char *compact) {
        GString *out = g_string_new(NULL);
        unsigned depth = 0;
        bool in_string = false;

        for (const char *p = compact; *p; p++) {
                char c = *p;

                if (in_string) {
                        g_string_append_c(out, c);
                        if (c == '\\' && p[1])
                                g_string_append_c(out, *++p);
                        else if (c == '"')
                                in_string = false;
                        continue;
                }
                switch (c) {
                case '"':
                        in_string = true;
                        g_string_append_c(out, c);
                        break;
                case '{':
                case '[':
                        g_string_append_c(out, c);
                        if (p[1] == (c == '{' ? '}' : ']')) /* {} and [] stay on one line */
                                g_string_append_c(out, *++p);
                        else
                                append_newline_indent(out, ++depth);
                        break;
                case '}':
                case ']':
                        append_newline_indent(out, depth > 0 ? --depth : 0);
                        g_string_append_c(out, c);
                        break;
                case ',':
                        g_string_append_c(out, c);
                        append_newline_indent(out, depth);
                        break;
                case ':':
                        g_string_append(out, ": ");
                        break;
                case ' ':
                case '\n':
                case '\t':
                case '\r':
                        break;
                default:
                        g_string_append_c(out, c);
                }
        }
        return g_string_free(out, FALSE);
}
