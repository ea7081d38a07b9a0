/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The target that Explain, Assign and Unassign take over D-Bus (policyctl(1),
 * TARGET): a unit name, a unit of a user's manager (user@UID/UNIT), a cgroup
 * path below the cgroupfs root, or a PID. Only
 * the string is read; whether the unit, cgroup or process exists is the
 * caller's question. */

#include <stdbool.h>
#include <sys/types.h>

/* Longer than any valid target: a cgroup path is shorter than PATH_MAX. */
#define TARGET_ARGUMENT_MAX 4096

typedef enum TargetArgumentKind {
        TARGET_ARGUMENT_UNIT,   /* foo.service, foo@bar.scope: of a type that has a cgroup */
        TARGET_ARGUMENT_CGROUP, /* /system.slice/foo.service: no ".", "..", "//" or control characters */
        TARGET_ARGUMENT_PID,    /* 1234: 1 to INT32_MAX, with no sign, space or leading zero */
        /* user@1000/app-x.scope: a unit of the manager of uid 1000. '/' is in
         * no unit name, and a cgroup path starts with it: the form is unambiguous.
         * UID as PID, but 0 to 4294967294 and not 65535; UNIT as TARGET_ARGUMENT_UNIT. */
        TARGET_ARGUMENT_USER_UNIT,
        _TARGET_ARGUMENT_KIND_MAX,
} TargetArgumentKind;

/* Returns the kind of arg, or -EINVAL when it is none of them. For a PID,
 * *ret_pid is set when ret_pid is not NULL. */
int target_argument_classify(const char *arg, pid_t *ret_pid);

/* For a TARGET_ARGUMENT_USER_UNIT argument: its uid, and (ret_unit not NULL)
 * a pointer to the unit name inside arg. -EINVAL for any other argument. */
int target_argument_user_unit(const char *arg, uid_t *ret_uid, const char **ret_unit);
