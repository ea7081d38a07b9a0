/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who may Assign and Unassign over D-Bus, and which runtime assignments a
 * user made still hold (self-assign.c). The daemon reads the owner and the
 * group; these tables are the rule itself. */
#include <glib.h>

#include "self-assign.h"
#include "target-argument.h"

#define ME 1000
#define OTHER 1001
#define NONE (-1) /* no such target */

typedef struct Case {
        const char *name;
        uid_t caller;
        int kind;
        bool owner_known;
        uid_t owner;
        bool group_loaded;
        bool group_allows;
        SelfAssignVerdict want;
} Case;

static const char *const verdict_names[_SELF_ASSIGN_VERDICT_MAX] = {
        [SELF_ASSIGN_ALLOWED] = "allowed",
        [SELF_ASSIGN_NO_SUCH_GROUP] = "no such group",
        [SELF_ASSIGN_GROUP_REFUSES] = "group refuses",
        [SELF_ASSIGN_INVALID_TARGET] = "invalid target",
        [SELF_ASSIGN_SYSTEM_UNIT] = "system unit",
        [SELF_ASSIGN_OTHER_USER] = "another user's",
        [SELF_ASSIGN_NO_CGROUP] = "no cgroup",
};

static void test_check(void) {
        static const Case cases[] = {
                /* Root keeps full access, whatever the group and owner. */
                { "root, system unit, group without AllowSelfAssign", 0, TARGET_ARGUMENT_UNIT, false, 0, true, false,
                  SELF_ASSIGN_ALLOWED },
                { "root, another user's user unit", 0, TARGET_ARGUMENT_USER_UNIT, true, ME, true, false,
                  SELF_ASSIGN_ALLOWED },
                { "root, a cgroup a user owns", 0, TARGET_ARGUMENT_CGROUP, true, ME, true, false, SELF_ASSIGN_ALLOWED },
                { "root, a PID", 0, TARGET_ARGUMENT_PID, true, OTHER, true, true, SELF_ASSIGN_ALLOWED },
                { "root, a group not loaded (the daemon answers that itself)", 0, TARGET_ARGUMENT_UNIT, false, 0,
                  false, false, SELF_ASSIGN_ALLOWED },
                /* A user, their own things, a group that allows it. */
                { "own user unit, AllowSelfAssign=yes", ME, TARGET_ARGUMENT_USER_UNIT, true, ME, true, true,
                  SELF_ASSIGN_ALLOWED },
                { "own cgroup path, AllowSelfAssign=yes", ME, TARGET_ARGUMENT_CGROUP, true, ME, true, true,
                  SELF_ASSIGN_ALLOWED },
                { "PID in an own cgroup, AllowSelfAssign=yes", ME, TARGET_ARGUMENT_PID, true, ME, true, true,
                  SELF_ASSIGN_ALLOWED },
                /* The group must allow it, for their own things too. */
                { "own user unit, AllowSelfAssign=no", ME, TARGET_ARGUMENT_USER_UNIT, true, ME, true, false,
                  SELF_ASSIGN_GROUP_REFUSES },
                { "own cgroup, AllowSelfAssign=no", ME, TARGET_ARGUMENT_CGROUP, true, ME, true, false,
                  SELF_ASSIGN_GROUP_REFUSES },
                { "own user unit, group not loaded", ME, TARGET_ARGUMENT_USER_UNIT, true, ME, false, false,
                  SELF_ASSIGN_NO_SUCH_GROUP },
                /* Never another's, nor the system's. */
                { "another user's user unit", ME, TARGET_ARGUMENT_USER_UNIT, true, OTHER, true, true,
                  SELF_ASSIGN_OTHER_USER },
                { "root's user unit", ME, TARGET_ARGUMENT_USER_UNIT, true, 0, true, true, SELF_ASSIGN_OTHER_USER },
                { "a user unit of unknown uid", ME, TARGET_ARGUMENT_USER_UNIT, false, ME, true, true,
                  SELF_ASSIGN_OTHER_USER },
                { "system unit name", ME, TARGET_ARGUMENT_UNIT, false, 0, true, true, SELF_ASSIGN_SYSTEM_UNIT },
                { "system unit name, even one delegated to the caller", ME, TARGET_ARGUMENT_UNIT, true, ME, true, true,
                  SELF_ASSIGN_SYSTEM_UNIT },
                { "root-owned cgroup", ME, TARGET_ARGUMENT_CGROUP, true, 0, true, true, SELF_ASSIGN_OTHER_USER },
                { "another user's cgroup", ME, TARGET_ARGUMENT_CGROUP, true, OTHER, true, true,
                  SELF_ASSIGN_OTHER_USER },
                { "PID of another user's process", ME, TARGET_ARGUMENT_PID, true, OTHER, true, true,
                  SELF_ASSIGN_OTHER_USER },
                { "PID of a root process", ME, TARGET_ARGUMENT_PID, true, 0, true, true, SELF_ASSIGN_OTHER_USER },
                { "a cgroup that is not there", ME, TARGET_ARGUMENT_CGROUP, false, 0, true, true,
                  SELF_ASSIGN_NO_CGROUP },
                { "not a target", ME, NONE, false, 0, true, true, SELF_ASSIGN_INVALID_TARGET },
                /* The group is checked first: what a user may not do to a
                 * group, they learn before anything about the target. */
                { "another user's unit in a group that refuses", ME, TARGET_ARGUMENT_USER_UNIT, true, OTHER, true,
                  false, SELF_ASSIGN_GROUP_REFUSES },
                { "not a target, group that refuses", ME, NONE, false, 0, true, false, SELF_ASSIGN_GROUP_REFUSES },
                /* The overflow uid is a user like any other. */
                { "nobody's own cgroup", 65534, TARGET_ARGUMENT_CGROUP, true, 65534, true, true, SELF_ASSIGN_ALLOWED },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const Case *c = &cases[i];
                SelfAssignRequest req = {
                        .caller = c->caller,
                        .target_kind = c->kind,
                        .owner_known = c->owner_known,
                        .owner = c->owner,
                        .group_loaded = c->group_loaded,
                        .group_allows = c->group_allows,
                };
                SelfAssignVerdict got = self_assign_check(&req);
                if (got != c->want)
                        g_error("%s: want %s, got %s", c->name, verdict_names[c->want], verdict_names[got]);
                g_autofree char *why = self_assign_refusal(got, &req, true, "x", "/x", "g");
                if ((got == SELF_ASSIGN_ALLOWED) != (why == NULL))
                        g_error("%s: a reason %s", c->name, why ? "for an allowed call" : "is missing");
        }
}

static void test_messages(void) {
        SelfAssignRequest req = {
                .caller = ME, .target_kind = TARGET_ARGUMENT_USER_UNIT, .owner_known = true, .owner = OTHER,
                .group_loaded = true, .group_allows = true,
        };
        g_autofree char *other = self_assign_refusal(SELF_ASSIGN_OTHER_USER, &req, true, "user@1001/foo.scope", NULL,
                                                     "background");
        g_assert_cmpstr(other, ==,
                        "Cannot assign user@1001/foo.scope to group 'background': user@1001/foo.scope belongs to uid "
                        "1001, not to you (uid 1000).");

        req.group_allows = false;
        g_autofree char *refuses = self_assign_refusal(SELF_ASSIGN_GROUP_REFUSES, &req, false, "user@1000/a.scope",
                                                       NULL, "x");
        g_assert_cmpstr(refuses, ==,
                        "Cannot take user@1000/a.scope out of group 'x': group 'x' does not allow self-assignment "
                        "(AllowSelfAssign=no); only root may change its members.");

        req = (SelfAssignRequest) { .caller = ME, .target_kind = TARGET_ARGUMENT_PID, .owner_known = true, .owner = 0 };
        g_autofree char *pid = self_assign_refusal(SELF_ASSIGN_OTHER_USER, &req, true, "1", "/init.scope", "g");
        g_assert_cmpstr(pid, ==,
                        "Cannot assign 1 to group 'g': the cgroup of PID 1 (/init.scope) is owned by uid 0, not by you "
                        "(uid 1000).");

        req.target_kind = TARGET_ARGUMENT_CGROUP;
        g_autofree char *cgroup = self_assign_refusal(SELF_ASSIGN_OTHER_USER, &req, true, "/system.slice", "/system.slice",
                                                      "g");
        g_assert_cmpstr(cgroup, ==,
                        "Cannot assign /system.slice to group 'g': cgroup /system.slice is owned by uid 0, not by you "
                        "(uid 1000).");

        req.target_kind = TARGET_ARGUMENT_UNIT;
        g_autofree char *unit = self_assign_refusal(SELF_ASSIGN_SYSTEM_UNIT, &req, true, "cron.service", NULL, "g");
        g_assert_true(g_str_has_prefix(unit, "Cannot assign cron.service to group 'g': cron.service is a unit of the "
                                             "system manager, which only root may assign."));
        g_assert_nonnull(strstr(unit, "user@1000/UNIT"));
}

static void test_applies(void) {
        static const struct {
                const char *name;
                uid_t assigner;
                const char *key;
                bool owner_known;
                uid_t owner;
                bool want;
        } cases[] = {
                { "root's assignment, any target", 0, "foo.service", false, 0, true },
                { "root's assignment of a cgroup a user owns", 0, "/a/b", true, ME, true },
                { "root's assignment of a user unit", 0, "user@1000/a.scope", true, OTHER, true },
                { "a user's, of their own user unit", ME, "user@1000/a.scope", true, ME, true },
                { "a user's, of their own user unit, owner unread", ME, "user@1000/a.scope", false, 0, true },
                { "a user's, of another user's unit (never made; never applies)", ME, "user@1001/a.scope", true, ME,
                  false },
                { "a user's, of a cgroup they still own", ME, "/a/b", true, ME, true },
                { "a user's, of a cgroup now owned by another", ME, "/a/b", true, OTHER, false },
                { "a user's, of a cgroup now owned by root", ME, "/a/b", true, 0, false },
                { "a user's, of a cgroup that is gone", ME, "/a/b", false, ME, false },
                { "a user's, of a delegated unit they still own", ME, "foo.service", true, ME, true },
                { "a user's, of a unit now run by another", ME, "foo.service", true, OTHER, false },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                bool got = runtime_assignment_applies(cases[i].assigner, cases[i].key, cases[i].owner_known,
                                                      cases[i].owner);
                if (got != cases[i].want)
                        g_error("%s: want %s, got %s", cases[i].name, cases[i].want ? "applies" : "does not apply",
                                got ? "applies" : "does not apply");
        }
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/self-assign/check", test_check);
        g_test_add_func("/self-assign/messages", test_messages);
        g_test_add_func("/self-assign/applies", test_applies);
        return g_test_run();
}
