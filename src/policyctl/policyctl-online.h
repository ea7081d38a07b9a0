/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The online verbs of policyctl: they ask the running policyd over the
 * system bus (org.policygroups.PolicyGroups1) and print its answers. */

#include <stdbool.h>

#include <glib.h>
#include <systemd/sd-bus.h>

/* Exit codes, documented in --help and policyctl(1). */
enum {
        EXIT_OK = 0,
        EXIT_ERRORS = 1,        /* errors found, or the operation failed */
        EXIT_USAGE = 2,
        EXIT_NOT_RUNNING = 3,   /* policyd is not on the system bus, or does not answer */
        EXIT_ACCESS_DENIED = 4, /* the call was refused: changes need root, or (assign, unassign) self-assignment */
        /* exec: the command could not be run, as sh(1) and env(1) say it. */
        EXIT_CANNOT_EXECUTE = 126,
        EXIT_COMMAND_NOT_FOUND = 127,
};

/* --json, --daemon-reload and --user, set by policyctl.c. */
extern bool arg_json;
extern bool arg_daemon_reload;
extern bool arg_user; /* assign, unassign, explain: a unit name is one of the caller's own manager */

int verb_status(int argc, char **argv);
int verb_show(int argc, char **argv);
int verb_explain(int argc, char **argv);
int verb_assign(int argc, char **argv);
int verb_unassign(int argc, char **argv);
int verb_reload(int argc, char **argv);
int verb_exec(int argc, char **argv);

/* ---- for the online verbs in other files (policyctl-exec.c) ---- */

/* An exit code: EXIT_OK with a connection, or EXIT_NOT_RUNNING, said. */
int connect_system_bus(sd_bus **ret);
/* Calls a method of policyd. Returns 0 with the reply, or a negative errno
 * with *error set; prints nothing. */
int call_raw(sd_bus *bus, const char *interface, const char *method, sd_bus_error *error, sd_bus_message **ret_reply,
             const char *types, ...);
/* Calls a method of policyd, and reports a failure. Returns an exit code. */
int call(sd_bus *bus, const char *verb, const char *interface, const char *method, sd_bus_message **ret_reply,
         const char *types, ...);
/* Prints what went wrong with a call, once, and returns the exit code. */
int report_call_error(const char *verb, const char *method, const sd_bus_error *error, int r);
int bad_reply(const char *method, int r);

/* The fields of one row of Explain's table, in order. */
enum { KNOB_NAME, KNOB_REQUESTED, KNOB_EFFECTIVE, KNOB_BACKEND, KNOB_GROUP, KNOB_SOURCE, KNOB_NOTE, _KNOB_FIELDS };
/* Explain's reply: groups gets group and source of each, knobs the
 * _KNOB_FIELDS strings of each row (all copies). The strings returned point
 * into reply. */
int read_explain_reply(sd_bus_message *reply, const char **ret_unit, const char **ret_cgroup, GPtrArray *groups,
                       GPtrArray *knobs);
