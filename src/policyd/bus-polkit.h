/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* polkit, for callers other than root: asked only where policyd's own rule
 * (root, or a user's self-assignment) refuses, so that without polkit (not
 * installed, not running) nothing changes. The action ids are in
 * org.policygroups.PolicyGroups1.policy. */

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#define POLKIT_ACTION_ASSIGN "org.policygroups.PolicyGroups1.assign"
#define POLKIT_ACTION_RELOAD "org.policygroups.PolicyGroups1.reload"

/* What polkit said of a method call: run it again with this. */
typedef enum PolkitVerdict {
        POLKIT_UNASKED,    /* the first run: ask where the rule refuses */
        POLKIT_AUTHORIZED, /* the caller may, as an administrator */
        POLKIT_DENIED,     /* polkit said no, or is not there: the rule's refusal */
} PolkitVerdict;

/* Runs the method again for msg (its arguments rewound), with the verdict;
 * sets error to refuse, or replies itself. */
typedef int (*PolkitRerun)(sd_bus_message *msg, void *userdata, PolkitVerdict verdict, sd_bus_error *error);

/* At most this many questions of one caller's wait for polkit at once,
 * and this many in all (each holds its method call, and a user's
 * subordinate uids are each a caller): a refused call is cheap for policyd,
 * but not for polkitd. */
#define POLKIT_QUERIES_PER_UID 4U
#define POLKIT_QUERIES_MAX 64U

/* Asks polkit, asynchronously, whether msg's sender (caller, its uid) may
 * do action; an agent may ask them for a password when the message allows
 * interactive authorization. Then calls rerun and replies with its error,
 * if it set one. Returns 1 (the method call is answered later), -EBUSY
 * when caller has POLKIT_QUERIES_PER_UID waiting already, or all callers
 * POLKIT_QUERIES_MAX, or another
 * negative errno when the question could not be sent: then the caller
 * refuses as its own rule says. */
int bus_polkit_check_async(sd_bus_message *msg, uid_t caller, const char *action, PolkitRerun rerun, void *userdata);

/* Drops the questions still waiting, without their answers: at teardown,
 * before the bus goes. */
void bus_polkit_forget_all(void);
