/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Who may change runtime assignments over D-Bus (policyd(8), SECURITY;
 * policy.d(5), TRUST), and when an assignment a user made still holds.
 * Pure: the caller reads the owner of the cgroup and the group's
 * AllowSelfAssign=. */

#include <stdbool.h>
#include <sys/types.h>

/* Where a cgroup lies among the units of the system manager. systemd
 * chowns a delegated unit's own cgroup (user@UID.service's, a Delegate=yes
 * service's with User=) to the user, but that cgroup is the delegation
 * root: its limits are the unit's properties, set by the administrator.
 * The user owns only what lies strictly below it. */
typedef enum DelegationPlace {
        DELEGATION_OUTSIDE, /* below no system unit but slices: the administrator's */
        DELEGATION_ROOT,    /* a system unit's own cgroup */
        DELEGATION_BELOW,   /* strictly below the cgroup of a system unit */
        _DELEGATION_PLACE_MAX,
} DelegationPlace;

/* The next unit of the system manager (PID 1's, not a user manager's) that
 * policyd knows, any type, and its cgroup, both borrowed; false at the end.
 * policyd's unit table, or a test's. */
typedef bool (*SystemUnitNext)(void *iter, const char **ret_unit, const char **ret_cgroup);

/* The place of cgroup (a path below the root, "/" the root itself): the
 * nearest of it and its ancestors that is a system unit's cgroup decides,
 * slices skipped (they hold no processes, and systemd delegates none): the
 * deepest unit cgroup at or above it, in one pass over the units (a caller
 * names cgroup, up to 2000 components deep: no walk up with a look-up at
 * each level). *ret_unit (when not NULL) is that unit, borrowed, or NULL. */
DelegationPlace delegation_place(const char *cgroup, SystemUnitNext next, void *iter, const char **ret_unit);

/* How many runtime assignments and exclusions one user may hold at once:
 * they are kept in memory and under /run, and a user could otherwise make
 * cgroups, assign them and remove them without end. Root has no limit. */
#define SELF_ASSIGN_MAX_ENTRIES 256

typedef enum SelfAssignVerdict {
        SELF_ASSIGN_ALLOWED,
        SELF_ASSIGN_NO_SUCH_GROUP,   /* not loaded: so none that allows it */
        SELF_ASSIGN_GROUP_REFUSES,   /* AllowSelfAssign=no */
        SELF_ASSIGN_INVALID_TARGET,  /* not a target at all */
        SELF_ASSIGN_SYSTEM_UNIT,     /* a unit of the system manager, by name */
        SELF_ASSIGN_OTHER_USER,      /* another uid's user@UID/ unit, or a cgroup another uid owns */
        SELF_ASSIGN_NO_CGROUP,       /* the cgroup is not there: no owner to check */
        SELF_ASSIGN_DELEGATION_ROOT, /* a system unit's own cgroup, even one chowned to the caller */
        SELF_ASSIGN_NOT_DELEGATED,   /* below no system unit: no delegation at all */
        _SELF_ASSIGN_VERDICT_MAX,
} SelfAssignVerdict;

typedef struct SelfAssignRequest {
        uid_t caller;       /* the sender's effective uid */
        int target_kind;    /* a TargetArgumentKind, or < 0 for none */
        /* user@UID/UNIT: UID. A cgroup path, or a PID: the owner of the
         * cgroup directory (of the PID's cgroup), when it could be read. */
        bool owner_known;
        uid_t owner;
        /* A cgroup path, or a PID: the DelegationPlace of the cgroup. A
         * user@UID/ unit: that of its cgroup when known, else -1 (a unit
         * not running has no cgroup yet). */
        int place;
        const char *place_unit; /* the system unit that decided place, for the message; or NULL */
        bool group_loaded;
        bool group_allows;  /* AllowSelfAssign=yes */
} SelfAssignRequest;

/* Root may do anything. Anyone else only with a loaded group that has
 * AllowSelfAssign=yes, and a target that is theirs: user@UID/UNIT with
 * their own UID, or a cgroup (a PID's cgroup) whose directory they own,
 * and that lies strictly below a system unit's cgroup (a delegation root
 * is the administrator's, so a user's request never becomes
 * SetUnitProperties on a system unit). A system unit by name is never
 * theirs. The checks go in the order of the enum, and the first that
 * fails is the answer. */
SelfAssignVerdict self_assign_check(const SelfAssignRequest *req);

/* The sentence that says why, for the D-Bus error; NULL for
 * SELF_ASSIGN_ALLOWED. target as the caller gave it; cgroup (NULL when not
 * known) is the cgroup it stands for. */
char *self_assign_refusal(SelfAssignVerdict v, const SelfAssignRequest *req, bool assign, const char *target,
                          const char *cgroup, const char *group);

/* Whether a runtime assignment (or exclusion) of key that uid assigner made
 * applies: one of root's always; a user's only while the target is still
 * theirs (user@UID/ with their UID, or else a cgroup they own), and never
 * to a unit of the system manager (system_unit: the subject is one; an
 * assignment made by path before this rule, or kept across an upgrade,
 * stops there). owner is that of the subject's cgroup directory, when
 * known. */
bool runtime_assignment_applies(uid_t assigner, const char *key, bool system_unit, bool owner_known, uid_t owner);
