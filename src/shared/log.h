/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One small logging wrapper. To the journal with structured fields when
 * stderr is connected to it (or when asked), to stderr otherwise. "%m" is
 * expanded from the error passed in, not from errno. */

#include <stdarg.h>
#include <syslog.h>

#include "diagnostics.h"

typedef enum LogTarget {
        LOG_TARGET_AUTO,
        LOG_TARGET_CONSOLE,
        LOG_TARGET_JOURNAL,
} LogTarget;

void log_setup(const char *program, LogTarget target);
void log_set_max_level(int level);
int log_get_max_level(void);

/* Context fields for the journal (UNIT=, POLICY_GROUP=, CONFIG_FILE=,
 * CONFIG_LINE=); any may be NULL/0. unit is a subject's name: a unit of
 * PID 1, "user@UID/UNIT" for a unit of a user's manager, or a cgroup path;
 * a unit's name adds the fields that "journalctl -u" and "--user-unit"
 * match (log_journal_fields()). Returns -abs(error), or 0. */
int log_context(int level, int error, const char *unit, const char *group, const char *file, unsigned line,
                const char *format, ...) __attribute__((format(printf, 7, 8)));

/* The same, with MESSAGE_ID= (message-ids.h): an event the catalog
 * explains. */
int log_context_id(const char *message_id, int level, int error, const char *unit, const char *group,
                   const char *file, unsigned line, const char *format, ...)
        __attribute__((format(printf, 8, 9)));

/* The fields log_context_id() sends to the journal for one message, as
 * "NAME=value" strings in a NULL-terminated list (g_strfreev()). */
char **log_journal_fields(const char *message_id, int level, int error, const char *unit, const char *group,
                          const char *file, unsigned line, const char *message);

#define log_full_errno(level, error, ...) log_context(level, error, NULL, NULL, NULL, 0, __VA_ARGS__)
#define log_debug(...) log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...) log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...) log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...) log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(error, ...) log_full_errno(LOG_DEBUG, error, __VA_ARGS__)
#define log_warning_errno(error, ...) log_full_errno(LOG_WARNING, error, __VA_ARGS__)
#define log_error_errno(error, ...) log_full_errno(LOG_ERR, error, __VA_ARGS__)
#define log_oom() log_error_errno(-ENOMEM, "Out of memory.")

/* The same about one subject, named as log_context()'s unit is: UNIT= and
 * the fields "journalctl -u" matches, no group, no config file. */
#define log_unit_full_errno(unit, level, error, ...) log_context(level, error, unit, NULL, NULL, 0, __VA_ARGS__)
#define log_unit_full(unit, level, ...) log_unit_full_errno(unit, level, 0, __VA_ARGS__)
#define log_unit_debug(unit, ...) log_unit_full(unit, LOG_DEBUG, __VA_ARGS__)
#define log_unit_info(unit, ...) log_unit_full(unit, LOG_INFO, __VA_ARGS__)
#define log_unit_notice(unit, ...) log_unit_full(unit, LOG_NOTICE, __VA_ARGS__)
#define log_unit_warning(unit, ...) log_unit_full(unit, LOG_WARNING, __VA_ARGS__)
#define log_unit_error(unit, ...) log_unit_full(unit, LOG_ERR, __VA_ARGS__)
#define log_unit_debug_errno(unit, error, ...) log_unit_full_errno(unit, LOG_DEBUG, error, __VA_ARGS__)
#define log_unit_warning_errno(unit, error, ...) log_unit_full_errno(unit, LOG_WARNING, error, __VA_ARGS__)
#define log_unit_error_errno(unit, error, ...) log_unit_full_errno(unit, LOG_ERR, error, __VA_ARGS__)

/* Logs every diagnostic at warning level (errors included: the daemon goes
 * on without the input), with CONFIG_FILE= and CONFIG_LINE=, and the
 * MESSAGE_ID= of a refused line or file (log_diagnostic_message_id()). */
void log_diagnostics(const Diagnostics *d);

/* MESSAGE_ID= for a diagnostic about a file: NULL for a notice, else a
 * refused file or a refused line (DiagnosticRefusal). For a file a user
 * wrote (user_input), a refusal for its owner or mode is a trust refusal. */
const char *log_diagnostic_message_id(const Diagnostic *diag, bool user_input);
