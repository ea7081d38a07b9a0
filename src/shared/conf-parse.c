/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

#include "conf-parse.h"
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

static char *strip(char *s) {
        while (*s && strchr(WHITESPACE, *s))
                s++;
        size_t n = strlen(s);
        while (n > 0 && strchr(WHITESPACE, s[n - 1]))
                s[--n] = '\0';
        return s;
}

/* One logical line, after continuations are joined. */
/* A rejected section header leaves *section at BAD_SECTION: its lines are
 * skipped without a warning each, since the header error covers them. */
static const char BAD_SECTION[] = "";

static void parse_logical_line(ConfFile *f, const char **section, char *text, unsigned line, Diagnostics *diags) {
        char *l = strip(text);

        if (*l == '\0')
                return;

        if (*l == '[') {
                size_t n = strlen(l);
                if (n < 3 || l[n - 1] != ']') {
                        diagnostics_add(diags, DIAGNOSTIC_ERROR, f->path, line,
                                        "Invalid section header '%s', ignoring the section", l);
                        *section = BAD_SECTION;
                        return;
                }
                g_autofree char *name = g_strndup(l + 1, n - 2);
                if (strpbrk(name, "[]") || *strip(name) == '\0' || strip(name) != name) {
                        diagnostics_add(diags, DIAGNOSTIC_ERROR, f->path, line,
                                        "Invalid section header '%s', ignoring the section", l);
                        *section = BAD_SECTION;
                        return;
                }
                ConfSection *s = g_new0(ConfSection, 1);
                s->name = TAKE_PTR(name);
                s->line = line;
                g_ptr_array_add(f->sections, s);
                *section = s->name;
                return;
        }

        char *eq = strchr(l, '=');
        if (!eq) {
                diagnostics_add(diags, DIAGNOSTIC_ERROR, f->path, line, "Missing '=', ignoring line");
                return;
        }
        *eq = '\0';
        char *key = strip(l), *value = strip(eq + 1);
        if (*key == '\0') {
                diagnostics_add(diags, DIAGNOSTIC_ERROR, f->path, line, "Assignment without a key, ignoring line");
                return;
        }
        if (*section == BAD_SECTION)
                return;
        if (!*section) {
                /* systemd: "Assignment outside of section. Ignoring." */
                diagnostics_add(diags, DIAGNOSTIC_WARNING, f->path, line,
                                "Assignment '%s=' outside of any section, ignoring", key);
                return;
        }

        ConfAssignment *a = g_new0(ConfAssignment, 1);
        a->section = *section;
        a->key = g_strdup(key);
        a->value = g_strdup(value);
        a->line = line;
        g_ptr_array_add(f->assignments, a);
}

/* A line continues when it ends in a backslash that is not itself escaped. */
static bool ends_in_continuation(const char *l, size_t n) {
        bool escaped = false;
        for (size_t i = 0; i < n; i++)
                escaped = escaped ? false : l[i] == '\\';
        return escaped;
}

ConfFile *conf_parse_data(const char *path, const char *data, size_t size, Diagnostics *diags) {
        ConfFile *f = g_new0(ConfFile, 1);
        f->path = g_strdup(path);
        f->sections = g_ptr_array_new_with_free_func((GDestroyNotify) conf_section_free);
        f->assignments = g_ptr_array_new_with_free_func((GDestroyNotify) conf_assignment_free);

        const char *section = NULL;
        g_autoptr(GString) pending = g_string_new(NULL); /* a continued logical line */
        unsigned pending_line = 0;                       /* where it started */
        bool pending_broken = false;                     /* a part was rejected: drop the whole */
        unsigned line = 0;
        size_t pos = 0;

        while (pos < size) {
                const char *start = data + pos;
                const char *nl = memchr(start, '\n', size - pos);
                size_t n = nl ? (size_t) (nl - start) : size - pos;
                pos += n + (nl ? 1 : 0);
                line++;

                if (n > 0 && start[n - 1] == '\r')
                        n--;

                bool broken = false;
                if (memchr(start, '\0', n)) {
                        diagnostics_add(diags, DIAGNOSTIC_ERROR, path, line,
                                        "Line contains a NUL byte, ignoring line");
                        broken = true;
                } else if (n > CONF_LINE_MAX || pending->len + n > CONF_LINE_MAX) {
                        diagnostics_add(diags, DIAGNOSTIC_ERROR, path, line,
                                        "Line is longer than %u bytes, ignoring line", CONF_LINE_MAX);
                        broken = true;
                } else if (!g_utf8_validate(start, (gssize) n, NULL)) {
                        diagnostics_add(diags, DIAGNOSTIC_ERROR, path, line,
                                        "Line is not valid UTF-8, ignoring line");
                        broken = true;
                }

                if (!broken) {
                        /* Comment lines are skipped, even inside a continuation. */
                        size_t lead = 0;
                        while (lead < n && strchr(WHITESPACE, start[lead]))
                                lead++;
                        if (lead < n && strchr(COMMENTS, start[lead]))
                                continue;
                }

                if (pending->len == 0 && !pending_broken)
                        pending_line = line;

                bool continues = ends_in_continuation(start, n);
                if (broken) {
                        /* Drop the whole logical line, continuations included. */
                        pending_broken = true;
                        if (continues && pos < size)
                                continue;
                } else {
                        /* The backslash becomes a space, as in systemd. */
                        g_string_append_len(pending, start, (gssize) (continues ? n - 1 : n));
                        if (continues) {
                                g_string_append_c(pending, ' ');
                                if (pos < size)
                                        continue;
                        }
                }

                if (!pending_broken)
                        parse_logical_line(f, &section, pending->str, pending_line, diags);
                g_string_truncate(pending, 0);
                pending_broken = false;
        }

        return f;
}

int read_full_file(const char *path, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = -1;
        struct stat st;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
                return -EBADFD;
        if (st.st_size > (off_t) CONF_FILE_MAX)
                return -EFBIG;

        g_autoptr(GByteArray) buf = g_byte_array_new();
        uint8_t chunk[16384];
        for (;;) {
                ssize_t k = read(fd, chunk, sizeof(chunk));
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                if (buf->len + (size_t) k > CONF_FILE_MAX)
                        return -EFBIG;
                g_byte_array_append(buf, chunk, (guint) k);
        }

        size_t size = buf->len;
        g_byte_array_append(buf, (const uint8_t *) "", 1); /* NUL-terminate */
        *ret_size = size;
        *ret = (char *) g_byte_array_free(TAKE_PTR(buf), FALSE);
        return 0;
}

int conf_parse_file(const char *path, ConfFile **ret, Diagnostics *diags) {
        g_autofree char *data = NULL;
        size_t size = 0;
        int r;

        r = read_full_file(path, &data, &size);
        if (r < 0) {
                diagnostics_add(diags, DIAGNOSTIC_ERROR, path, 0, "Failed to read file, skipping: %s",
                                r == -EFBIG ? "file is larger than 16 MiB" : g_strerror(-r));
                return r;
        }
        *ret = conf_parse_data(path, data, size, diags);
        return 0;
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
