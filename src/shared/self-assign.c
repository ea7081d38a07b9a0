/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <inttypes.h>
#include <string.h>

#include <glib.h>

#include "self-assign.h"
#include "target-argument.h"
#include "util.h"

static bool at_or_above(const char *ancestor, const char *cgroup) {
        size_t n;

        assert(ancestor && cgroup);
        n = strlen(ancestor);
        return strncmp(cgroup, ancestor, n) == 0 && (cgroup[n] == '\0' || cgroup[n] == '/');
}

DelegationPlace delegation_place(const char *path, SystemUnitNext next, void *iter, const char **ret_unit) {
        g_autofree char *cgroup = g_strdup(path);
        const char *nearest = NULL, *nearest_cgroup = NULL, *unit, *unit_cgroup;

        assert(path);
        assert(next);
        /* A user manager's -.slice is reported as its cgroup with a "/" at the end. */
        for (size_t n = strlen(cgroup); n > 1 && cgroup[n - 1] == '/';)
                cgroup[--n] = '\0';
        while (next(iter, &unit, &unit_cgroup)) {
                if (!unit || !unit_cgroup || g_str_has_suffix(unit, ".slice"))
                        continue;
                if (at_or_above(unit_cgroup, cgroup) && (!nearest || strlen(unit_cgroup) > strlen(nearest_cgroup))) {
                        nearest = unit;
                        nearest_cgroup = unit_cgroup;
                }
        }
        if (ret_unit)
                *ret_unit = nearest;
        if (!nearest)
                return DELEGATION_OUTSIDE;
        return streq(nearest_cgroup, cgroup) ? DELEGATION_ROOT : DELEGATION_BELOW;
}

/* Only what lies strictly below a system unit's cgroup is a user's; an
 * unknown place is nobody's. */
static SelfAssignVerdict place_verdict(int place) {
        switch (place) {
        case DELEGATION_BELOW:
                return SELF_ASSIGN_ALLOWED;
        case DELEGATION_ROOT:
                return SELF_ASSIGN_DELEGATION_ROOT;
        default:
                return SELF_ASSIGN_NOT_DELEGATED;
        }
}

SelfAssignVerdict self_assign_check(const SelfAssignRequest *req) {
        assert(req);
        if (req->caller == 0)
                return SELF_ASSIGN_ALLOWED;
        if (!req->group_loaded)
                return SELF_ASSIGN_NO_SUCH_GROUP;
        if (!req->group_allows)
                return SELF_ASSIGN_GROUP_REFUSES;

        switch (req->target_kind) {
        case TARGET_ARGUMENT_UNIT:
                /* Its cgroup may be delegated to the caller; then they name
                 * it by its path. The name alone says nothing of the owner. */
                return SELF_ASSIGN_SYSTEM_UNIT;
        case TARGET_ARGUMENT_USER_UNIT:
                if (!req->owner_known || req->owner != req->caller)
                        return SELF_ASSIGN_OTHER_USER;
                /* Its manager says where its cgroup is: below user@UID.service, or nowhere. */
                return req->place < 0 ? SELF_ASSIGN_ALLOWED : place_verdict(req->place);
        case TARGET_ARGUMENT_CGROUP:
        case TARGET_ARGUMENT_PID:
                if (!req->owner_known)
                        return SELF_ASSIGN_NO_CGROUP;
                if (req->owner != req->caller)
                        return SELF_ASSIGN_OTHER_USER;
                return place_verdict(req->place);
        default:
                return SELF_ASSIGN_INVALID_TARGET;
        }
}

char *self_assign_refusal(SelfAssignVerdict v, const SelfAssignRequest *req, bool assign, const char *target,
                          const char *cgroup, const char *group) {
        g_autofree char *what = NULL;
        g_autofree char *action = NULL;

        assert(req);
        assert(target);
        action = assign ? g_strdup_printf("Cannot assign %s to group '%s'", target, group)
                        : g_strdup_printf("Cannot take %s out of group '%s'", target, group);
        const uint32_t caller = (uint32_t) req->caller, owner = (uint32_t) req->owner;

        if (req->target_kind == TARGET_ARGUMENT_PID)
                what = g_strdup_printf("the cgroup of PID %s (%s)", target, strempty(cgroup));
        else
                what = g_strdup_printf("cgroup %s", cgroup ? cgroup : target);

        switch (v) {
        case SELF_ASSIGN_ALLOWED:
                return NULL;
        case SELF_ASSIGN_NO_SUCH_GROUP:
                return g_strdup_printf("%s: no policy group '%s' is loaded, and only root may change "
                                       "assignments other than to a group with AllowSelfAssign=yes.",
                                       action, group);
        case SELF_ASSIGN_GROUP_REFUSES:
                return g_strdup_printf("%s: group '%s' does not allow self-assignment (AllowSelfAssign=no); "
                                       "only root may change its members.",
                                       action, group);
        case SELF_ASSIGN_INVALID_TARGET:
                return g_strdup_printf("'%s' is not a unit name, a cgroup path below the root, or a PID.", target);
        case SELF_ASSIGN_SYSTEM_UNIT:
                return g_strdup_printf("%s: %s is a unit of the system manager, which only root may assign. "
                                       "Name a unit of your own manager as user@%" PRIu32 "/UNIT "
                                       "(policyctl --user), or a cgroup you own by its path.",
                                       action, target, caller);
        case SELF_ASSIGN_OTHER_USER:
                if (req->target_kind == TARGET_ARGUMENT_USER_UNIT)
                        return g_strdup_printf("%s: %s belongs to uid %" PRIu32 ", not to you (uid %" PRIu32 ").",
                                               action, target, owner, caller);
                return g_strdup_printf("%s: %s is owned by uid %" PRIu32 ", not by you (uid %" PRIu32 ").", action,
                                       what, owner, caller);
        case SELF_ASSIGN_NO_CGROUP:
                return g_strdup_printf("%s: there is no %s, so it is nobody's.", action, what);
        case SELF_ASSIGN_DELEGATION_ROOT:
                return g_strdup_printf("%s: %s is the cgroup of %s, a unit of the system manager: its delegation "
                                       "root. systemd lets you use it, but its limits are the administrator's; "
                                       "assign a cgroup below it.",
                                       action, what, req->place_unit ? req->place_unit : "a system unit");
        case SELF_ASSIGN_NOT_DELEGATED:
                return g_strdup_printf("%s: %s lies below no unit of the system manager, so none delegated it to "
                                       "you; only root may assign it.",
                                       action, what);
        default:
                return g_strdup_printf("%s: refused.", action);
        }
}

bool runtime_assignment_applies(uid_t assigner, const char *key, bool system_unit, bool owner_known, uid_t owner) {
        uid_t uid;

        if (assigner == 0)
                return true;
        if (system_unit)
                return false;
        if (target_argument_user_unit(key, &uid, NULL) >= 0)
                return uid == assigner;
        return owner_known && owner == assigner;
}
