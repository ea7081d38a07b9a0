/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <glib.h>
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "log.h"
#include "message-ids.h"
#include "util.h"

static const char *log_program = "policygroups";
static LogTarget log_target = LOG_TARGET_AUTO;
static int log_max_level = LOG_INFO;

/* systemd sets JOURNAL_STREAM=dev:ino when stderr goes to the journal. */
static bool stderr_is_journal(void) {
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;

        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return st.st_dev == (dev_t) dev && st.st_ino == (ino_t) ino;
}

void log_setup(const char *program, LogTarget target) {
        log_program = program;
        log_target = target;
        if (log_target == LOG_TARGET_AUTO)
                log_target = stderr_is_journal() ? LOG_TARGET_JOURNAL : LOG_TARGET_CONSOLE;
}

void log_set_max_level(int level) {
        log_max_level = level;
}

int log_get_max_level(void) {
        return log_max_level;
}

/* Replaces %m in format with the error's text; "%%m" stays literal. */
static char *expand_errno(const char *format, int error) {
        GString *s = g_string_new(NULL);
        for (const char *p = format; *p; p++) {
                if (p[0] == '%' && p[1] == '%') {
                        g_string_append(s, "%%");
                        p++;
                } else if (p[0] == '%' && p[1] == 'm') {
                        const char *msg = g_strerror(error > 0 ? error : -error);
                        for (const char *q = msg; *q; q++) {
                                if (*q == '%')
                                        g_string_append_c(s, '%');
                                g_string_append_c(s, *q);
                        }
                        p++;
                } else
                        g_string_append_c(s, *p);
        }
        return g_string_free(s, FALSE);
}

/* A name systemd could give a unit: NAME.TYPE, of the characters unit
 * names may hold (systemd.unit(5)). Enough to tell a unit from a cgroup
 * path or a PID, which subjects' names may also be. */
static bool is_unit_name(const char *s) {
        static const char *const types[] = { ".service", ".socket", ".device", ".mount", ".automount", ".swap",
                                             ".target",  ".path",   ".timer",  ".slice", ".scope" };
        size_t n = strlen(s);

        if (n == 0 || n > 255 || s[0] == '.')
                return false;
        for (const char *p = s; *p; p++)
                if (!g_ascii_isalnum(*p) && !strchr(":-_.\\@", *p))
                        return false;
        for (size_t i = 0; i < ELEMENTSOF(types); i++)
                if (g_str_has_suffix(s, types[i]) && n > strlen(types[i]))
                        return true;
        return false;
}

/* What "journalctl -u" and "--user-unit" match of a message that a root
 * daemon logs about a unit (systemd.journal-fields(7); journalctl takes
 * OBJECT_SYSTEMD_UNIT= and OBJECT_SYSTEMD_USER_UNIT= from _UID=0 only).
 * For a user's unit "user@UID/UNIT", the fields journald itself adds for
 * OBJECT_PID= of a process in it: PID 1's unit, user@UID.service, the
 * user's unit, and OBJECT_UID=, which tells one user's app.service from
 * another's ("journalctl --user-unit" does not). A cgroup path or a PID
 * gets none. */
static void add_unit_fields(GPtrArray *fields, const char *unit) {
        const char *slash;
        guint64 uid;

        if (is_unit_name(unit)) {
                g_ptr_array_add(fields, g_strdup_printf("OBJECT_SYSTEMD_UNIT=%s", unit));
                return;
        }
        if (!g_str_has_prefix(unit, "user@") || !(slash = strchr(unit, '/')) || !is_unit_name(slash + 1))
                return;
        g_autofree char *number = g_strndup(unit + strlen("user@"), (gsize) (slash - unit) - strlen("user@"));
        if (!g_ascii_string_to_unsigned(number, 10, 0, UINT32_MAX - 1, &uid, NULL))
                return;
        g_ptr_array_add(fields, g_strdup_printf("OBJECT_SYSTEMD_UNIT=user@%s.service", number));
        g_ptr_array_add(fields, g_strdup_printf("OBJECT_SYSTEMD_USER_UNIT=%s", slash + 1));
        g_ptr_array_add(fields, g_strdup_printf("OBJECT_UID=%s", number));
}

char **log_journal_fields(const char *message_id, int level, int error, const char *unit, const char *group,
                          const char *file, unsigned line, const char *message) {
        GPtrArray *fields = g_ptr_array_new();

        g_ptr_array_add(fields, g_strdup_printf("MESSAGE=%s", message));
        g_ptr_array_add(fields, g_strdup_printf("PRIORITY=%d", level));
        g_ptr_array_add(fields, g_strdup_printf("SYSLOG_IDENTIFIER=%s", log_program));
        if (message_id)
                g_ptr_array_add(fields, g_strdup_printf("MESSAGE_ID=%s", message_id));
        if (unit) {
                g_ptr_array_add(fields, g_strdup_printf("UNIT=%s", unit));
                add_unit_fields(fields, unit);
        }
        if (group)
                g_ptr_array_add(fields, g_strdup_printf("POLICY_GROUP=%s", group));
        if (file)
                g_ptr_array_add(fields, g_strdup_printf("CONFIG_FILE=%s", file));
        if (line)
                g_ptr_array_add(fields, g_strdup_printf("CONFIG_LINE=%u", line));
        if (error)
                g_ptr_array_add(fields, g_strdup_printf("ERRNO=%d", error > 0 ? error : -error));
        g_ptr_array_add(fields, NULL);
        return (char **) g_ptr_array_free(fields, FALSE);
}

/* A message may carry what a user controls (an executable's path, a unit
 * name): on a terminal, its control characters would be the terminal's
 * commands. The journal keeps bytes as they are; the console gets \xNN. */
static char *console_escape(const char *s) {
        GString *out = g_string_sized_new(strlen(s));
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
                        g_string_append_printf(out, "\\x%02x", *p);
                else
                        g_string_append_c(out, (char) *p);
        return g_string_free(out, FALSE);
}

G_GNUC_PRINTF(8, 0)
static int log_contextv(const char *message_id, int level, int error, const char *unit, const char *group,
                        const char *file, unsigned line, const char *format, va_list ap) {
        int ret = error > 0 ? -error : error;

        if (level > log_max_level)
                return ret;

        g_autofree char *fmt = expand_errno(format, error);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        g_autofree char *message = g_strdup_vprintf(fmt, ap);
#pragma GCC diagnostic pop

        if (log_target == LOG_TARGET_JOURNAL) {
                g_auto(GStrv) fields = log_journal_fields(message_id, level, error, unit, group, file, line, message);
                guint n = g_strv_length(fields);
                g_autofree struct iovec *iov = g_new(struct iovec, n);
                for (guint i = 0; i < n; i++)
                        iov[i] = (struct iovec) { .iov_base = fields[i], .iov_len = strlen(fields[i]) };
                sd_journal_sendv(iov, (int) n);
        } else {
                g_autofree char *shown = console_escape(message);
                if (unit) {
                        g_autofree char *shown_unit = console_escape(unit);
                        fprintf(stderr, "%s: %s\n", shown_unit, shown);
                } else
                        fprintf(stderr, "%s\n", shown);
        }
        return ret;
}

int log_context(int level, int error, const char *unit, const char *group, const char *file, unsigned line,
                const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        int r = log_contextv(NULL, level, error, unit, group, file, line, format, ap);
        va_end(ap);
        return r;
}

int log_context_id(const char *message_id, int level, int error, const char *unit, const char *group,
                   const char *file, unsigned line, const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        int r = log_contextv(message_id, level, error, unit, group, file, line, format, ap);
        va_end(ap);
        return r;
}

const char *log_diagnostic_message_id(const Diagnostic *diag, bool user_input) {
        if (diag->severity == DIAGNOSTIC_NOTICE)
                return NULL;
        switch (diag->refuses) {
        case DIAGNOSTIC_REFUSES_FILE_TRUST:
                return user_input ? MESSAGE_ID_TRUST_REFUSED : MESSAGE_ID_CONFIG_FILE_REFUSED;
        case DIAGNOSTIC_REFUSES_FILE:
                return MESSAGE_ID_CONFIG_FILE_REFUSED;
        default:
                return MESSAGE_ID_CONFIG_VALUE_REFUSED;
        }
}

void log_diagnostics(const Diagnostics *d) {
        for (guint i = 0; d && i < d->items->len; i++) {
                const Diagnostic *diag = g_ptr_array_index(d->items, i);
                g_autofree char *text = diagnostic_format(diag);
                log_context_id(log_diagnostic_message_id(diag, false),
                               diag->severity == DIAGNOSTIC_NOTICE ? LOG_NOTICE : LOG_WARNING, 0, NULL, NULL, diag->file,
                               diag->line, "%s", text);
        }
}
