/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Runtime assignments: Assign and Unassign over the bus, kept under the
 * state directory across restarts. */

#include "manager.h"

/* A unit name, a cgroup path, or a PID as a string → the key of a subject,
 * and its cgroup where known. */
int manager_resolve_target_argument(Manager *m, const char *arg, char **ret_key, char **ret_cgroup);

/* Puts key into group (assign), or takes it out: where another source would
 * still put it there, by an exclusion. -ENOENT when it was not a member;
 * -ENXIO when a cgroup to assign is not there. */
int manager_assign(Manager *m, const char *key, const char *group, bool assign);
