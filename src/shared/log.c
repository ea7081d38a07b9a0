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

int log_context(int level, int error, const char *unit, const char *group, const char *file, unsigned line,
                const char *format, ...) {
        int ret = error > 0 ? -error : error;

        if (level > log_max_level)
                return ret;

        g_autofree char *fmt = expand_errno(format, error);
        g_autofree char *message = NULL;
        va_list ap;
        va_start(ap, format);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        message = g_strdup_vprintf(fmt, ap);
#pragma GCC diagnostic pop
        va_end(ap);

        if (log_target == LOG_TARGET_JOURNAL) {
                g_autoptr(GPtrArray) fields = g_ptr_array_new_with_free_func(g_free);
                g_ptr_array_add(fields, g_strdup_printf("MESSAGE=%s", message));
                g_ptr_array_add(fields, g_strdup_printf("PRIORITY=%d", level));
                g_ptr_array_add(fields, g_strdup_printf("SYSLOG_IDENTIFIER=%s", log_program));
                if (unit)
                        g_ptr_array_add(fields, g_strdup_printf("UNIT=%s", unit));
                if (group)
                        g_ptr_array_add(fields, g_strdup_printf("POLICY_GROUP=%s", group));
                if (file)
                        g_ptr_array_add(fields, g_strdup_printf("CONFIG_FILE=%s", file));
                if (line)
                        g_ptr_array_add(fields, g_strdup_printf("CONFIG_LINE=%u", line));
                if (error)
                        g_ptr_array_add(fields, g_strdup_printf("ERRNO=%d", error > 0 ? error : -error));

                struct iovec iov[8];
                for (guint i = 0; i < fields->len; i++)
                        iov[i] = (struct iovec) { .iov_base = g_ptr_array_index(fields, i),
                                                  .iov_len = strlen(g_ptr_array_index(fields, i)) };
                sd_journal_sendv(iov, (int) fields->len);
        } else {
                if (unit)
                        fprintf(stderr, "%s: %s\n", unit, message);
                else
                        fprintf(stderr, "%s\n", message);
        }
        return ret;
}

void log_diagnostics(const Diagnostics *d) {
        for (guint i = 0; d && i < d->items->len; i++) {
                const Diagnostic *diag = g_ptr_array_index(d->items, i);
                g_autofree char *text = diagnostic_format(diag);
                log_context(diag->severity == DIAGNOSTIC_NOTICE ? LOG_NOTICE : LOG_WARNING, 0, NULL, NULL,
                            diag->file, diag->line, "%s", text);
        }
}
