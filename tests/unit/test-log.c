/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journal fields of policyd's messages (log.c): what "journalctl -u",
 * "journalctl --user-unit" and "journalctl MESSAGE_ID=" find, and which
 * MESSAGE_ID= a configuration diagnostic gets. */

#include <errno.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "config-trust.h"
#include "log.h"
#include "message-ids.h"

/* The value of NAME= in fields, NULL if absent; fails if it is there twice. */
static const char *field(char **fields, const char *name) {
        g_autofree char *prefix = g_strconcat(name, "=", NULL);
        const char *found = NULL;
        for (char **f = fields; *f; f++)
                if (g_str_has_prefix(*f, prefix)) {
                        if (found)
                                g_error("%s= is sent twice: '%s' and '%s'", name, found, *f + strlen(prefix));
                        found = *f + strlen(prefix);
                }
        return found;
}

/* The fields' names are what journald keeps from a client: [A-Z0-9_],
 * not starting with '_' (those are journald's own) or a digit. */
static void assert_names_valid(char **fields) {
        for (char **f = fields; *f; f++) {
                const char *eq = strchr(*f, '=');
                g_assert_nonnull(eq);
                g_assert_cmpint(eq - *f, >, 0);
                if (**f == '_' || g_ascii_isdigit(**f))
                        g_error("field '%s' would be dropped by journald", *f);
                for (const char *p = *f; p < eq; p++)
                        if (!g_ascii_isupper(*p) && !g_ascii_isdigit(*p) && *p != '_')
                                g_error("field '%s' has an invalid name", *f);
        }
}

typedef struct UnitCase {
        const char *why;
        const char *unit;                 /* log_context()'s unit: a subject's name */
        const char *object_unit;          /* OBJECT_SYSTEMD_UNIT=, NULL: absent */
        const char *object_user_unit;     /* OBJECT_SYSTEMD_USER_UNIT= */
        const char *object_uid;           /* OBJECT_UID= */
} UnitCase;

static void test_unit_fields(void) {
        static const UnitCase cases[] = {
                { "a unit of PID 1: journalctl -u matches it from root", "pgt-one.service", "pgt-one.service" },
                { "a template's instance", "getty@tty1.service", "getty@tty1.service" },
                { "a slice", "user-1000.slice", "user-1000.slice" },
                { "a scope with escapes", "run-u7\\x2dx.scope", "run-u7\\x2dx.scope" },
                { "the user manager's own unit is PID 1's", "user@1000.service", "user@1000.service" },
                { "a user's unit: PID 1's user@UID.service, the user's unit and the uid, as journald for OBJECT_PID=",
                  "user@1000/app-firefox.scope", "user@1000.service", "app-firefox.scope", "1000" },
                { "a user's service", "user@4242/pgt-app.service", "user@4242.service", "pgt-app.service", "4242" },
                { "a cgroup path is no unit", "/system.slice/pgt-one.service" },
                { "no subject", "-" },
                { "a PID", "1234" },
                { "no type", "pgt-one" },
                { "an unknown type", "pgt-one.policy" },
                { "a type alone", ".service" },
                { "a space", "pgt one.service" },
                { "a user's unit without a uid", "user@/app.service" },
                { "a uid that is not a number", "user@me/app.service" },
                { "a signed uid", "user@+1000/app.service" },
                { "a user's unit that is no unit", "user@1000/app" },
                { "a user's path", "user@1000/app.slice/app.service" },
                { "a user's empty unit", "user@1000/" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const UnitCase *c = &cases[i];
                g_auto(GStrv) fields = log_journal_fields(NULL, LOG_NOTICE, 0, c->unit, NULL, NULL, 0, "text");
                g_test_message("%s: %s", c->why, c->unit);
                assert_names_valid(fields);
                /* The subject's name, as policygroups has always sent it. */
                g_assert_cmpstr(field(fields, "UNIT"), ==, c->unit);
                g_assert_cmpstr(field(fields, "OBJECT_SYSTEMD_UNIT"), ==, c->object_unit);
                g_assert_cmpstr(field(fields, "OBJECT_SYSTEMD_USER_UNIT"), ==, c->object_user_unit);
                g_assert_cmpstr(field(fields, "OBJECT_UID"), ==, c->object_uid);
        }
}

static void test_message_id(void) {
        g_auto(GStrv) with = log_journal_fields(MESSAGE_ID_GROUPS_APPLIED, LOG_INFO, 0, "pgt-one.service", NULL, NULL,
                                                0, "Policy groups: pgt-fg");
        g_auto(GStrv) without = log_journal_fields(NULL, LOG_INFO, 0, "pgt-one.service", NULL, NULL, 0, "Policy groups");

        g_assert_cmpstr(field(with, "MESSAGE_ID"), ==, MESSAGE_ID_GROUPS_APPLIED);
        g_assert_cmpstr(field(with, "MESSAGE"), ==, "Policy groups: pgt-fg");
        g_assert_cmpstr(field(with, "OBJECT_SYSTEMD_UNIT"), ==, "pgt-one.service");
        g_assert_null(field(without, "MESSAGE_ID"));
}

static void test_other_fields(void) {
        g_auto(GStrv) all = log_journal_fields(MESSAGE_ID_CONFIG_VALUE_REFUSED, LOG_WARNING, -EINVAL, NULL, "pgt-fg",
                                               "/etc/policy.d/pgt-fg.policy", 7, "bad");
        g_auto(GStrv) none = log_journal_fields(NULL, LOG_DEBUG, 0, NULL, NULL, NULL, 0, "plain");

        assert_names_valid(all);
        g_assert_cmpstr(field(all, "PRIORITY"), ==, "4");
        g_assert_cmpstr(field(all, "POLICY_GROUP"), ==, "pgt-fg");
        g_assert_cmpstr(field(all, "CONFIG_FILE"), ==, "/etc/policy.d/pgt-fg.policy");
        g_assert_cmpstr(field(all, "CONFIG_LINE"), ==, "7");
        g_assert_cmpstr(field(all, "ERRNO"), ==, "22");
        g_assert_nonnull(field(all, "SYSLOG_IDENTIFIER"));
        g_assert_null(field(all, "UNIT"));
        g_assert_null(field(all, "OBJECT_SYSTEMD_UNIT"));

        g_assert_cmpstr(field(none, "MESSAGE"), ==, "plain");
        g_assert_cmpstr(field(none, "PRIORITY"), ==, "7");
        g_assert_cmpuint(g_strv_length(none), ==, 3); /* MESSAGE, PRIORITY, SYSLOG_IDENTIFIER */
}

/* The MESSAGE_ID= of a diagnostic, as policyd logs the policy files' and
 * a unit's files'. */
static void test_diagnostic_ids(void) {
        static const struct {
                DiagnosticSeverity severity;
                DiagnosticRefusal refuses;
                bool user_input;
                const char *want;
        } cases[] = {
                { DIAGNOSTIC_NOTICE, DIAGNOSTIC_REFUSES_SETTING, false, NULL },
                { DIAGNOSTIC_NOTICE, DIAGNOSTIC_REFUSES_FILE_TRUST, true, NULL },
                { DIAGNOSTIC_ERROR, DIAGNOSTIC_REFUSES_SETTING, false, MESSAGE_ID_CONFIG_VALUE_REFUSED },
                { DIAGNOSTIC_WARNING, DIAGNOSTIC_REFUSES_SETTING, true, MESSAGE_ID_CONFIG_VALUE_REFUSED },
                { DIAGNOSTIC_ERROR, DIAGNOSTIC_REFUSES_FILE, false, MESSAGE_ID_CONFIG_FILE_REFUSED },
                { DIAGNOSTIC_ERROR, DIAGNOSTIC_REFUSES_FILE, true, MESSAGE_ID_CONFIG_FILE_REFUSED },
                { DIAGNOSTIC_WARNING, DIAGNOSTIC_REFUSES_FILE_TRUST, false, MESSAGE_ID_CONFIG_FILE_REFUSED },
                { DIAGNOSTIC_WARNING, DIAGNOSTIC_REFUSES_FILE_TRUST, true, MESSAGE_ID_TRUST_REFUSED },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                Diagnostic d = { .severity = cases[i].severity, .refuses = cases[i].refuses };
                g_assert_cmpstr(log_diagnostic_message_id(&d, cases[i].user_input), ==, cases[i].want);
        }
}

static const Diagnostic *only_diagnostic(const Diagnostics *d) {
        for (guint i = 0; i < d->items->len; i++)
                g_test_message("diagnostic: %s", ((const Diagnostic *) g_ptr_array_index(d->items, i))->message);
        g_assert_cmpuint(d->items->len, ==, 1);
        return g_ptr_array_index(d->items, 0);
}

static char *write_file(const char *dir, const char *name, const char *text, mode_t mode) {
        g_autoptr(GError) error = NULL;
        char *p = g_build_filename(dir, name, NULL);
        g_file_set_contents(p, text, -1, &error);
        g_assert_no_error(error);
        g_assert_cmpint(chmod(p, mode), ==, 0);
        return p;
}

/* Where the loaders say what a diagnostic refuses: a setting, a file, or
 * a file for its owner or mode. */
static void test_diagnostic_refusals(void) {
        g_autoptr(GError) error = NULL;
        g_autofree char *dir = g_dir_make_tmp("test-log-XXXXXX", &error);
        g_assert_no_error(error);

        g_autofree char *writable = write_file(dir, "writable.policy", "[PolicyGroup]\n", 0666);
        g_autofree char *broken = write_file(dir, "broken.policy", "[PolicyGroup\n", 0644);
        g_autofree char *line = write_file(dir, "line.policy", "[PolicyGroup]\nno equals sign\n", 0644);
        g_autofree char *secret = write_file(dir, "secret.service", "[Unit]\nX-PolicyGroup=pgt-fg\n", 0600);

        {
                g_autoptr(Diagnostics) d = diagnostics_new();
                g_autoptr(ConfFile) f = NULL;
                g_assert_cmpint(config_file_parse_trusted(writable, &f, d), ==, -EPERM);
                const Diagnostic *diag = only_diagnostic(d);
                g_assert_cmpint(diag->refuses, ==, DIAGNOSTIC_REFUSES_FILE_TRUST);
                g_assert_cmpstr(log_diagnostic_message_id(diag, false), ==, MESSAGE_ID_CONFIG_FILE_REFUSED);
        }
        {
                g_autoptr(Diagnostics) d = diagnostics_new();
                g_autoptr(ConfFile) f = NULL;
                g_assert_cmpint(config_file_parse_trusted(broken, &f, d), ==, 0);
                g_assert_true(f->refused);
                g_assert_cmpint(only_diagnostic(d)->refuses, ==, DIAGNOSTIC_REFUSES_FILE);
        }
        {
                g_autoptr(Diagnostics) d = diagnostics_new();
                g_autoptr(ConfFile) f = NULL;
                g_assert_cmpint(config_file_parse_trusted(line, &f, d), ==, 0);
                g_assert_false(f->refused);
                g_assert_cmpint(only_diagnostic(d)->refuses, ==, DIAGNOSTIC_REFUSES_SETTING);
        }
        {
                /* A user's unit file the user cannot read (a uid that is not
                 * the one running the test): a trust refusal of user input. */
                g_autoptr(Diagnostics) d = diagnostics_new();
                g_autoptr(ConfFile) f = NULL;
                uid_t stranger = getuid() == 4242 ? 4243 : 4242;
                g_assert_cmpint(config_file_parse_as_user(secret, stranger, &f, d), ==, -EPERM);
                const Diagnostic *diag = only_diagnostic(d);
                g_assert_cmpint(diag->refuses, ==, DIAGNOSTIC_REFUSES_FILE_TRUST);
                g_assert_cmpstr(log_diagnostic_message_id(diag, true), ==, MESSAGE_ID_TRUST_REFUSED);
        }

        g_unlink(writable);
        g_unlink(broken);
        g_unlink(line);
        g_unlink(secret);
        g_rmdir(dir);
}

/* log_unit_*() say log_context(LEVEL, ERROR, UNIT, NULL, NULL, 0, ...)
 * once: the unit before the message, %m from the error passed, the
 * error's -abs() returned, and the level filtered as log_context()'s. */
static void test_unit_family(void) {
        if (g_test_subprocess()) {
                log_setup("test-log", LOG_TARGET_CONSOLE);
                log_set_max_level(LOG_INFO);
                g_assert_cmpint(log_unit_warning_errno("pgt-one.service", -ENOENT, "Failed to read: %m"), ==, -ENOENT);
                g_assert_cmpint(log_unit_full_errno("user@1000/a.service", LOG_NOTICE, EPERM, "Refused: %m"), ==,
                                -EPERM);
                g_assert_cmpint(log_unit_info("b.scope", "Set %s=%s (was %s)", "MemoryHigh", "1G", "unset"), ==, 0);
                g_assert_cmpint(log_unit_debug_errno("c.service", -ESRCH, "not at this level: %m"), ==, -ESRCH);
                g_assert_cmpint(log_unit_full("/x.slice/y", LOG_ERR, "Ignoring invalid cgroup path"), ==, 0);
                return;
        }
        g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
        g_test_trap_assert_passed();
        g_test_trap_assert_stderr("pgt-one.service: Failed to read: No such file or directory\n"
                                  "user@1000/a.service: Refused: Operation not permitted\n"
                                  "b.scope: Set MemoryHigh=1G (was unset)\n"
                                  "/x.slice/y: Ignoring invalid cgroup path\n");
}

/* On a terminal, what a user controls (an executable's path, here with an
 * escape sequence that would clear root's screen) shows as \xNN. */
static void test_console_escapes_controls(void) {
        if (g_test_subprocess()) {
                log_setup("test-log", LOG_TARGET_CONSOLE);
                log_set_max_level(LOG_INFO);
                log_unit_info("app\x1b[2J.scope", "Undid in PID 7 (/tmp/\x1b]0;x\x07" "evil\x7f): KSM off\tdone");
                return;
        }
        g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
        g_test_trap_assert_passed();
        g_test_trap_assert_stderr("app\\x1b[2J.scope: Undid in PID 7 (/tmp/\\x1b]0;x\\x07evil\\x7f): KSM off\tdone\n");
}

int main(int argc, char *argv[]) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/log/unit-fields", test_unit_fields);
        g_test_add_func("/log/message-id", test_message_id);
        g_test_add_func("/log/unit-family", test_unit_family);
        g_test_add_func("/log/console-escapes-controls", test_console_escapes_controls);
        g_test_add_func("/log/other-fields", test_other_fields);
        g_test_add_func("/log/diagnostic-message-ids", test_diagnostic_ids);
        g_test_add_func("/log/diagnostic-refusals", test_diagnostic_refusals);
        return g_test_run();
}
