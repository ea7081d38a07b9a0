/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The target that Explain, Assign and Unassign take over D-Bus (policyctl(1),
 * TARGET): a unit name, a cgroup path below the cgroupfs root, or a PID. Only
 * the string is read; whether the unit, cgroup or process exists is the
 * caller's question. */

#include <sys/types.h>

/* Longer than any valid target: a cgroup path is shorter than PATH_MAX. */
#define TARGET_ARGUMENT_MAX 4096

typedef enum TargetArgumentKind {
        TARGET_ARGUMENT_UNIT,   /* foo.service, foo@bar.scope: of a type that has a cgroup */
        TARGET_ARGUMENT_CGROUP, /* /system.slice/foo.service: no ".", "..", "//" or control characters */
        TARGET_ARGUMENT_PID,    /* 1234: 1 to INT32_MAX, with no sign, space or leading zero */
        _TARGET_ARGUMENT_KIND_MAX,
} TargetArgumentKind;

/* Returns the kind of arg, or -EINVAL when it is none of them. For a PID,
 * *ret_pid is set when ret_pid is not NULL. */
int target_argument_classify(const char *arg, pid_t *ret_pid);
