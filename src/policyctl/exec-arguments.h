/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The command line of "policyctl exec", read without side effects, so that
 * it is table-tested: what was asked, or a usage error in words; and the
 * default names it gives. */

#include <stdbool.h>
#include <sys/types.h>

typedef struct ExecArguments {
        bool help;
        bool quiet;
        const char *group;       /* points into argv */
        char *unit;              /* NULL: the default name; otherwise with ".scope" */
        char *slice;             /* NULL: systemd's default for scopes; otherwise with ".slice" */
        const char *description; /* NULL: made from the command line */
        char **command;          /* CMD ARGS..., into argv; NULL-terminated as argv is */
} ExecArguments;

/* argv[0] is "exec". Returns 0, or -EINVAL with *ret_error set to a
 * sentence for the user (free it). Uses getopt_long(), and resets it. */
int exec_arguments_parse(int argc, char **argv, ExecArguments *ret, char **ret_error);
void exec_arguments_done(ExecArguments *a);

/* The scope's name when --unit is not given: policyctl-exec-PID.scope, and
 * policyctl-exec-PID-N.scope for the attempt N > 1 after a name taken (a
 * scope whose first process had our PID may still hold processes). */
char *exec_default_unit_name(pid_t pid, unsigned attempt);

/* "CMD ARGS..." for the scope's Description=, as systemd-run makes it, with
 * control characters as spaces. */
char *exec_default_description(char *const *command);
