/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>

#include "conf-parse.h"
#include "fileio.h"
#include "util.h"

#define WHITESPACE " \t"
#define COMMENTS "#;"

static void conf_section_free(ConfSection *s) {
        if (!s)
                return;
        g_free(s->name);
        g_free(s);
}

static void conf_assignment_free(ConfAssignment *a) {
        if (!a)
                return;
        g_free(a->key);
        g_free(a->value);
        g_free(a);
}

ConfFile *conf_file_free(ConfFile *f) {
        if (!f)
                return NULL;
        g_free(f->path);
        g_ptr_array_unref(f->sections);
        g_ptr_array_unref(f->assignments);
        g_free(f);
        return NULL;
}

/* systemd's WHITESPACE: a line never holds \n or \r, but a continued one
 * is stripped with the same set. */
static char *strip(char *s) {
        while (*s && strchr(WHITESPACE, *s))
                s++;
        size_t n = strlen(s);
        while (n > 0 && strchr(WHITESPACE, s[n - 1]))
                s[--n] = '\0';
        return s;
}

/* ---- UTF-8, with systemd's idea of a valid character ---- */

static bool unichar_valid(uint32_t c) {
        if (c >= 0x110000)
                return false;
        if ((c & 0xFFFFF800) == 0xD800) /* UTF-16 surrogates */
                return false;
        if (c >= 0xFDD0 && c <= 0xFDEF) /* non-characters */
                return false;
        if ((c & 0xFFFE) == 0xFFFE)     /* U+xFFFE and U+xFFFF */
                return false;
        return true;
}

/* systemd's utf8_is_valid(): well-formed, shortest form, and no
 * non-characters; stricter than g_utf8_validate(), which takes U+FFFE. */
bool conf_utf8_is_valid(const char *s, size_t n) {
        const uint8_t *p = (const uint8_t *) s, *end = p + n;

        while (p < end) {
                unsigned len;
                uint32_t c;

                if (*p < 0x80) {
                        p++;
                        continue;
                }
                if ((*p & 0xE0) == 0xC0)
                        len = 2, c = *p & 0x1F;
                else if ((*p & 0xF0) == 0xE0)
                        len = 3, c = *p & 0x0F;
                else if ((*p & 0xF8) == 0xF0)
                        len = 4, c = *p & 0x07;
                else
                        return false;
                if ((size_t) (end - p) < len)
                        return false;
                for (unsigned i = 1; i < len; i++) {
                        if ((p[i] & 0xC0) != 0x80)
                                return false;
                        c = c << 6 | (p[i] & 0x3F);
                }
                unsigned shortest = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
                if (shortest != len || !unichar_valid(c))
                        return false;
                p += len;
        }
        return true;
}

/* ---- lines, as systemd's read_line() cuts them ---- */

enum {
        EOL_NONE = 0,
        EOL_NEWLINE = 1 << 0,
        EOL_RETURN = 1 << 1,
        EOL_ZERO = 1 << 2,
};

static int eol_kind(char c) {
        return c == '\n' ? EOL_NEWLINE : c == '\r' ? EOL_RETURN : c == '\0' ? EOL_ZERO : EOL_NONE;
}

/* Cuts the next line at *pos. \n, \r and NUL end a line, and so does any
 * run of them in which no kind repeats and no NUL is followed by more
 * ("\r\n", "\n\r", "\r\n\0" are one end; "\n\n" are two). Returns the bytes
 * consumed (0 at the end of data), or -ENOBUFS once the line reaches
 * CONF_LINE_MAX characters: systemd's limit is that minus one. */
static ssize_t next_line(const char *data, size_t size, size_t *pos, const char **ret, size_t *ret_len) {
        size_t start = *pos, i = *pos, n = 0;
        int seen = EOL_NONE;

        for (;;) {
                if (n >= CONF_LINE_MAX)
                        return -ENOBUFS;
                if (i >= size)
                        break;
                int eol = eol_kind(data[i]);
                if ((seen & EOL_ZERO) || (eol == EOL_NONE && seen != EOL_NONE) || (eol != EOL_NONE && (seen & eol)))
                        break;
                i++;
                if (eol != EOL_NONE) {
                        seen |= eol;
                        continue;
                }
                n++;
        }

        *ret = data + start;
        *ret_len = n;
        *pos = i;
        return (ssize_t) (i - start);
}

/* ---- one logical line ---- */

/* Refuses the whole file, as systemd refuses to load a unit whose file has
 * such a line; what was read before it stays in f. */
G_GNUC_PRINTF(4, 5)
static int refuse(ConfFile *f, unsigned line, Diagnostics *diags, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        g_autofree char *msg = g_strdup_vprintf(format, ap);
        va_end(ap);
        diagnostics_add_refusal(diags, DIAGNOSTIC_REFUSES_FILE, DIAGNOSTIC_ERROR, f->path, line,
                                "%s; the whole file is refused", msg);
        f->refused = true;
        f->refused_line = line;
        return -EBADMSG;
}

/* Bytes that systemd's string_is_safe() rejects in a section name. */
static bool section_name_safe(const char *s) {
        for (; *s; s++)
                if ((unsigned char) *s < ' ' || *s == 0x7F || strchr("\"'\\", *s))
                        return false;
        return true;
}

static int parse_logical_line(ConfFile *f, const char **section, char *text, unsigned line, Diagnostics *diags) {
        char *l = strip(text);

        if (*l == '\0')
                return 0;
        if (!conf_utf8_is_valid(l, strlen(l)))
                return refuse(f, line, diags, "Line is not valid UTF-8");

        if (*l == '[') {
                size_t n = strlen(l);
                if (l[n - 1] != ']' || n < 2)
                        return refuse(f, line, diags, "Invalid section header '%s'", l);
                /* Verbatim: "[Unit ]" is the unknown section "Unit ". */
                g_autofree char *name = g_strndup(l + 1, n - 2);
                if (!section_name_safe(name))
                        return refuse(f, line, diags, "Bad characters in section header '%s'", l);
                ConfSection *s = g_new0(ConfSection, 1);
                s->name = TAKE_PTR(name);
                s->line = line;
                g_ptr_array_add(f->sections, s);
                *section = s->name;
                return 0;
        }

        char *eq = strchr(l, '=');
        if (!*section) {
                /* systemd: "Assignment outside of section. Ignoring.", with or without a '='. */
                if (eq && eq > l) {
                        *eq = '\0';
                        diagnostics_add(diags, DIAGNOSTIC_WARNING, f->path, line,
                                        "Assignment '%s=' outside of any section, ignoring", strip(l));
                } else
                        diagnostics_add(diags, DIAGNOSTIC_WARNING, f->path, line,
                                        "Line outside of any section, ignoring");
                return 0;
        }
        if (!eq) {
                diagnostics_add(diags, DIAGNOSTIC_ERROR, f->path, line, "Missing '=', ignoring line");
                return 0;
        }
        if (eq == l) {
                diagnostics_add(diags, DIAGNOSTIC_ERROR, f->path, line, "Missing key name before '=', ignoring line");
                return 0;
        }
        *eq = '\0';

        ConfAssignment *a = g_new0(ConfAssignment, 1);
        a->section = *section;
        a->key = g_strdup(strip(l));
        a->value = g_strdup(strip(eq + 1));
        a->line = line;
        g_ptr_array_add(f->assignments, a);
        return 0;
}

/* A line continues when it ends in a backslash that is not itself escaped. */
static bool ends_in_continuation(const char *l, size_t n) {
        bool escaped = false;
        for (size_t i = 0; i < n; i++)
                escaped = escaped ? false : l[i] == '\\';
        return escaped;
}

#define UTF8_BOM "\xEF\xBB\xBF"

ConfFile *conf_parse_data(const char *path, const char *data, size_t size, Diagnostics *diags) {
        ConfFile *f = g_new0(ConfFile, 1);
        f->path = g_strdup(path);
        f->sections = g_ptr_array_new_with_free_func((GDestroyNotify) conf_section_free);
        f->assignments = g_ptr_array_new_with_free_func((GDestroyNotify) conf_assignment_free);

        const char *section = NULL;
        g_autoptr(GString) pending = NULL; /* a continued logical line, NULL when none */
        bool bom_seen = false;
        unsigned line = 0;
        size_t pos = 0;

        for (;;) {
                const char *l;
                size_t n;
                ssize_t k = next_line(data, size, &pos, &l, &n);

                if (k == 0)
                        break;
                if (k < 0) {
                        (void) refuse(f, line + 1, diags, "Line is longer than %u bytes", CONF_LINE_MAX - 1);
                        return f;
                }
                line++;

                /* Comment lines are skipped, even inside a continuation. */
                size_t lead = 0;
                while (lead < n && strchr(WHITESPACE, l[lead]))
                        lead++;
                if (lead < n && strchr(COMMENTS, l[lead]))
                        continue;

                /* systemd strips the first byte-order mark it finds at the
                 * start of a line, normally the file's first. */
                if (!bom_seen && n >= 3 && memcmp(l, UTF8_BOM, 3) == 0) {
                        l += 3;
                        n -= 3;
                        bom_seen = true;
                }

                if (pending) {
                        if (pending->len + n > CONF_LINE_MAX) {
                                (void) refuse(f, line, diags, "Continued line is longer than %u bytes",
                                              CONF_LINE_MAX);
                                return f;
                        }
                        g_string_append_len(pending, l, (gssize) n);
                } else
                        pending = g_string_new_len(l, (gssize) n);

                /* The trailing backslash becomes a space, as in systemd. The
                 * earlier parts end in that space, so only this one is scanned. */
                if (ends_in_continuation(l, n)) {
                        pending->str[pending->len - 1] = ' ';
                        continue;
                }

                /* A continued line counts at the line where it ends. */
                int r = parse_logical_line(f, &section, pending->str, line, diags);
                g_string_free(g_steal_pointer(&pending), TRUE);
                if (r < 0)
                        return f;
        }

        /* A continuation running into the end of the file still counts;
         * systemd numbers it one past the last line. */
        if (pending)
                (void) parse_logical_line(f, &section, pending->str, line + 1, diags);

        return f;
}

int conf_extract_words(const char *s, GPtrArray *words) {
        g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func(g_free);
        const char *p = s;

        for (;;) {
                while (*p && strchr(WHITESPACE, *p))
                        p++;
                if (*p == '\0')
                        break;

                g_autoptr(GString) w = g_string_new(NULL);
                char quote = 0;
                for (; *p; p++) {
                        if (quote) {
                                if (*p == quote)
                                        quote = 0;
                                else
                                        g_string_append_c(w, *p);
                        } else if (*p == '"' || *p == '\'')
                                quote = *p;
                        else if (strchr(WHITESPACE, *p))
                                break;
                        else
                                g_string_append_c(w, *p); /* a backslash too: it escapes nothing */
                }
                if (quote)
                        return -EINVAL; /* systemd drops the whole assignment */
                g_ptr_array_add(found, g_string_free(g_steal_pointer(&w), FALSE));
        }
        for (guint i = 0; i < found->len; i++)
                g_ptr_array_add(words, g_strdup(g_ptr_array_index(found, i)));
        return 0;
}

void conf_read_failed(Diagnostics *diags, const char *path, int r) {
        diagnostics_add_refusal(diags, DIAGNOSTIC_REFUSES_FILE, DIAGNOSTIC_ERROR, path, 0,
                                "Failed to read file, skipping: %s",
                                r == -EFBIG ? "file is larger than 16 MiB" : g_strerror(-r));
}

int conf_parse_fd(int fd, const char *path, ConfFile **ret, Diagnostics *diags) {
        g_autofree char *data = NULL;
        size_t size = 0;
        int r;

        r = read_full_fd(fd, &data, &size);
        if (r < 0) {
                conf_read_failed(diags, path, r);
                return r;
        }
        *ret = conf_parse_data(path, data, size, diags);
        return 0;
}

int conf_parse_file(const char *path, ConfFile **ret, Diagnostics *diags) {
        /* O_NONBLOCK: a FIFO in a file's place is refused, not waited on. */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

        if (fd < 0) {
                int r = -errno;
                conf_read_failed(diags, path, r);
                return r;
        }
        return conf_parse_fd(fd, path, ret, diags);
}

static bool section_known(const ConfTableItem *table, const char *section) {
        for (const ConfTableItem *i = table; i->section; i++)
                if (streq(i->section, section))
                        return true;
        return false;
}

void conf_table_apply(const ConfTableItem *table, const ConfFile *f, void *target, Diagnostics *diags) {
        for (guint i = 0; i < f->sections->len; i++) {
                const ConfSection *s = g_ptr_array_index(f->sections, i);
                if (!g_str_has_prefix(s->name, "X-") && !section_known(table, s->name))
                        diagnostics_add(diags, DIAGNOSTIC_WARNING, f->path, s->line,
                                        "Unknown section '%s', ignoring", s->name);
        }

        for (guint i = 0; i < f->assignments->len; i++) {
                const ConfAssignment *a = g_ptr_array_index(f->assignments, i);
                const ConfTableItem *item = NULL;

                if (g_str_has_prefix(a->section, "X-") || !section_known(table, a->section))
                        continue; /* already warned about, once */
                if (g_str_has_prefix(a->key, "X-"))
                        continue;

                for (const ConfTableItem *t = table; t->section; t++)
                        if (t->key && streq(t->section, a->section) && streq(t->key, a->key)) {
                                item = t;
                                break;
                        }
                if (!item) {
                        diagnostics_add(diags, DIAGNOSTIC_WARNING, f->path, a->line,
                                        "Unknown key '%s' in section [%s], ignoring", a->key, a->section);
                        continue;
                }

                const ConfContext ctx = {
                        .file = f->path,
                        .line = a->line,
                        .section = a->section,
                        .key = a->key,
                        .ltype = item->ltype,
                        .diags = diags,
                };
                item->parse(&ctx, a->value, (uint8_t *) target + item->offset);
        }
}
