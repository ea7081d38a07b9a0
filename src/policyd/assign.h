/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Runtime assignments: Assign and Unassign over the bus, kept under the
 * state directory across restarts. */

#include "manager.h"
#include "self-assign.h"

/* A unit name, user@UID/UNIT, a cgroup path, or a PID as a string → the key
 * of a subject, and its cgroup where known. */
int assign_resolve_target_argument(Manager *m, const char *arg, char **ret_key, char **ret_cgroup);

/* The owner of a cgroup directory (a path below the root), as the xattr
 * trust rule reads it (gather.c). -ENOENT when it is not there. */
int assign_cgroup_owner(Manager *m, const char *cgroup, uid_t *ret);

/* Where cgroup lies among the units PID 1 has told policyd of
 * (delegation_place()); *ret_unit, borrowed, is the unit that decided. */
DelegationPlace assign_delegation_place(Manager *m, const char *cgroup, const char **ret_unit);

/* Puts key into group (assign), or takes it out: where another source would
 * still put it there, by an exclusion. uid made the change (self-assign.h:
 * a user's holds only while the target is theirs). -ENOENT when it was not
 * a member; -ENXIO when a cgroup to assign is not there. */
int assign_set(Manager *m, const char *key, const char *group, bool assign, uid_t uid);

/* The entries of table (m->assignments or m->exclusions) for subject s that
 * apply now: under its key and under its cgroup path, each group once, a
 * root's entry before a user's, and a user's only while the target is still
 * theirs and s is no unit of PID 1 (runtime_assignment_applies(), with the
 * owner of s's cgroup).
 * RuntimeAssignment* borrowed from the table, NULL-terminated. */
GPtrArray *runtime_assignments_for(GHashTable *table, const Subject *s, bool owner_known, uid_t owner);

/* Whether key has an assignment or exclusion to group that uid made. */
bool assign_has_runtime_entry(Manager *m, const char *key, const char *group, uid_t uid);

/* How many entries of the assignments and exclusions uid made. */
unsigned assign_count_runtime_entries(Manager *m, uid_t uid);
