/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The command line of "policyctl exec": what is the group, the unit, the
 * slice and the command, and which usage errors name which argument. */
#include <errno.h>

#include <glib.h>

#include "exec-arguments.h"

#define END NULL

typedef struct Case {
        const char *argv[12];    /* after "exec", NULL-terminated */
        const char *error;       /* a part of the usage error, or NULL for success */
        const char *group;
        const char *unit;
        const char *slice;
        const char *description;
        bool quiet;
        const char *command;     /* CMD ARGS joined with "|" */
} Case;

static char *joined(char **argv) {
        return argv ? g_strjoinv("|", argv) : g_strdup("(none)");
}

static void check(const Case *c) {
        g_autoptr(GPtrArray) argv = g_ptr_array_new();
        ExecArguments a = { .group = "untouched" };
        g_autofree char *error = NULL, *shown = NULL;
        int r;

        g_ptr_array_add(argv, (char *) "exec");
        for (size_t i = 0; c->argv[i]; i++)
                g_ptr_array_add(argv, (char *) c->argv[i]);
        g_ptr_array_add(argv, NULL);
        shown = g_strjoinv(" ", (char **) argv->pdata);

        r = exec_arguments_parse((int) argv->len - 1, (char **) argv->pdata, &a, &error);
        if (c->error) {
                if (r != -EINVAL)
                        g_error("'%s': want a usage error with '%s', got %d", shown, c->error, r);
                if (!error || !strstr(error, c->error))
                        g_error("'%s': want an error with '%s', got '%s'", shown, c->error, error);
                if (!g_str_equal(a.group, "untouched") || a.unit || a.slice)
                        g_error("'%s': the result was written on failure", shown);
                return;
        }
        if (r != 0)
                g_error("'%s': want success, got %d: %s", shown, r, error);
        g_autofree char *command = joined(a.command);
        if (g_strcmp0(a.group, c->group) != 0)
                g_error("'%s': group: want %s, got %s", shown, c->group, a.group);
        if (g_strcmp0(a.unit, c->unit) != 0)
                g_error("'%s': unit: want %s, got %s", shown, c->unit, a.unit);
        if (g_strcmp0(a.slice, c->slice) != 0)
                g_error("'%s': slice: want %s, got %s", shown, c->slice, a.slice);
        if (g_strcmp0(a.description, c->description) != 0)
                g_error("'%s': description: want %s, got %s", shown, c->description, a.description);
        if (a.quiet != c->quiet)
                g_error("'%s': quiet: want %d, got %d", shown, c->quiet, a.quiet);
        if (g_strcmp0(command, c->command) != 0)
                g_error("'%s': command: want %s, got %s", shown, c->command, command);
        exec_arguments_done(&a);
}

static void check_table(const Case *cases, size_t n) {
        for (size_t i = 0; i < n; i++)
                check(&cases[i]);
}

static void test_accepted(void) {
        static const Case cases[] = {
                { { "--group=batch", "--", "sleep", "1", END }, .group = "batch", .command = "sleep|1" },
                { { "--group", "batch", "--", "sleep", END }, .group = "batch", .command = "sleep" },
                /* The command's own options stay its own. */
                { { "--group=g", "--", "ls", "-l", "--quiet", "--", "x", END }, .group = "g",
                  .command = "ls|-l|--quiet|--|x" },
                { { "-q", "--group=g", "--", "sh", "-c", "exit 3", END }, .group = "g", .quiet = true,
                  .command = "sh|-c|exit 3" },
                { { "--quiet", "--group=g", "--", "true", END }, .group = "g", .quiet = true, .command = "true" },
                /* A suffix is added as systemd-run adds it. */
                { { "--group=g", "--unit=job1", "--", "true", END }, .group = "g", .unit = "job1.scope",
                  .command = "true" },
                { { "--group=g", "--unit", "job1.scope", "--", "true", END }, .group = "g", .unit = "job1.scope",
                  .command = "true" },
                { { "--group=g", "--unit=a.b", "--", "true", END }, .group = "g", .unit = "a.b.scope",
                  .command = "true" },
                { { "--group=g", "--unit=job@1", "--", "true", END }, .group = "g", .unit = "job@1.scope",
                  .command = "true" },
                { { "--group=g", "--slice=batch", "--", "true", END }, .group = "g", .slice = "batch.slice",
                  .command = "true" },
                { { "--group=g", "--slice=batch-jobs.slice", "--", "true", END }, .group = "g",
                  .slice = "batch-jobs.slice", .command = "true" },
                { { "--group=g", "--description=nightly build", "--", "make", END }, .group = "g",
                  .description = "nightly build", .command = "make" },
                /* An empty description is the default one. */
                { { "--group=g", "--description=", "--", "make", END }, .group = "g", .command = "make" },
                /* The last of a repeated option wins, as with getopt everywhere. */
                { { "--group=a", "--group=b", "--", "true", END }, .group = "b", .command = "true" },
                /* Abbreviated long options, as getopt_long allows them. */
                { { "--gr=g", "--", "true", END }, .group = "g", .command = "true" },
        };
        check_table(cases, G_N_ELEMENTS(cases));
}

static void test_refused(void) {
        static const Case cases[] = {
                { { END }, "needs --group=GROUP" },
                { { "--", "true", END }, "needs --group=GROUP" },
                { { "--group=g", END }, "needs '--' and a command" },
                { { "--group=g", "--", END }, "needs a command after '--'" },
                { { "--group=g", "--", "", END }, "needs a command after '--'" },
                /* Without "--", the command is taken for a mistake. */
                { { "--group=g", "sleep", "1", END }, "needs '--' before the command" },
                /* "--" as the value of --group is not the end of the options. */
                { { "--group", "--", "true", END }, "--group=--" },
                { { "--group", END }, "option '--group' needs a value" },
                { { "--group=g", "--unit", END }, "option '--unit' needs a value" },
                { { "--group=g", "--frobnicate", "--", "true", END }, "unknown option '--frobnicate'" },
                { { "--group=g", "-x", "--", "true", END }, "unknown option '-x'" },
                /* policyctl's own options belong before "exec". */
                { { "--json", "--group=g", "--", "true", END }, "unknown option '--json'" },
                { { "--group=", "--", "true", END }, "--group=: empty group name" },
                { { "--group=../x", "--", "true", END }, "--group=../x: group name must start" },
                { { "--group=a b", "--", "true", END }, "--group=a b: group name may only contain" },
                { { "--group=g", "--unit=job.service", "--", "true", END }, "--unit=job.service: must be a .scope" },
                { { "--group=g", "--unit=job@.scope", "--", "true", END }, "--unit=job@.scope: not a valid unit" },
                { { "--group=g", "--unit=a/b", "--", "true", END }, "--unit=a/b: not a valid unit name" },
                { { "--group=g", "--unit=", "--", "true", END }, "--unit=: not a valid unit name" },
                { { "--group=g", "--slice=x.scope", "--", "true", END }, "--slice=x.scope: must be a .slice" },
                { { "--group=g", "--slice=a b", "--", "true", END }, "--slice=a b: not a valid unit name" },
                { { "--group=g", "--description=two\nlines", "--", "true", END },
                  "--description= must not contain control characters" },
        };
        check_table(cases, G_N_ELEMENTS(cases));
}

static void test_help(void) {
        const char *argv[] = { "exec", "--help", NULL };
        ExecArguments a = {};
        g_autofree char *error = NULL;

        /* --help needs nothing else. */
        g_assert_cmpint(exec_arguments_parse(2, (char **) argv, &a, &error), ==, 0);
        g_assert_true(a.help);
        g_assert_null(error);
}

static void test_parsed_twice(void) {
        /* getopt's state is global: a second parse starts afresh. */
        for (int i = 0; i < 2; i++)
                check(&(Case) { { "--group=g", "--", "true", END }, .group = "g", .command = "true" });
}

static void test_default_names(void) {
        g_autofree char *first = exec_default_unit_name(1234, 1);
        g_autofree char *third = exec_default_unit_name(1234, 3);
        char *command[] = { (char *) "sh", (char *) "-c", (char *) "exit 3", NULL };
        char *script[] = { (char *) "sh", (char *) "-c", (char *) "echo a\n\techo b", NULL };
        g_autofree char *description = exec_default_description(command);
        g_autofree char *one_line = exec_default_description(script);

        g_assert_cmpstr(first, ==, "policyctl-exec-1234.scope");
        g_assert_cmpstr(third, ==, "policyctl-exec-1234-3.scope");
        g_assert_cmpstr(description, ==, "sh -c exit 3");
        g_assert_cmpstr(one_line, ==, "sh -c echo a  echo b");
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/exec-arguments/accepted", test_accepted);
        g_test_add_func("/exec-arguments/refused", test_refused);
        g_test_add_func("/exec-arguments/help", test_help);
        g_test_add_func("/exec-arguments/parsed-twice", test_parsed_twice);
        g_test_add_func("/exec-arguments/default-names", test_default_names);
        return g_test_run();
}
