/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The online verbs of policyctl: they ask the running policyd over the
 * system bus (org.policygroups.PolicyGroups1) and print its answers. */

#include <stdbool.h>

/* Exit codes, documented in --help and policyctl(1). */
enum {
        EXIT_OK = 0,
        EXIT_ERRORS = 1,        /* errors found, or the operation failed */
        EXIT_USAGE = 2,
        EXIT_NOT_RUNNING = 3,   /* policyd is not on the system bus, or does not answer */
        EXIT_ACCESS_DENIED = 4, /* the call was refused: changes need root */
};

/* --json and --daemon-reload, set by policyctl.c. */
extern bool arg_json;
extern bool arg_daemon_reload;

int verb_status(int argc, char **argv);
int verb_show(int argc, char **argv);
int verb_explain(int argc, char **argv);
int verb_assign(int argc, char **argv);
int verb_unassign(int argc, char **argv);
int verb_reload(int argc, char **argv);
