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
#define BELOW DELEGATION_BELOW
#define ROOT DELEGATION_ROOT
#define OUTSIDE DELEGATION_OUTSIDE
#define UNKNOWN (-1) /* a user@UID/ unit with no cgroup yet */

typedef struct Case {
        const char *name;
        uid_t caller;
        int kind;
        bool owner_known;
        uid_t owner;
        int place;
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
        [SELF_ASSIGN_DELEGATION_ROOT] = "delegation root",
        [SELF_ASSIGN_NOT_DELEGATED] = "not delegated",
};

static void test_check(void) {
        static const Case cases[] = {
                /* Root keeps full access, whatever the group, owner and place. */
                { "root, system unit, group without AllowSelfAssign", 0, TARGET_ARGUMENT_UNIT, false, 0, UNKNOWN, true,
                  false, SELF_ASSIGN_ALLOWED },
                { "root, another user's user unit", 0, TARGET_ARGUMENT_USER_UNIT, true, ME, UNKNOWN, true, false,
                  SELF_ASSIGN_ALLOWED },
                { "root, a cgroup a user owns", 0, TARGET_ARGUMENT_CGROUP, true, ME, BELOW, true, false,
                  SELF_ASSIGN_ALLOWED },
                { "root, a delegation root", 0, TARGET_ARGUMENT_CGROUP, true, ME, ROOT, true, false,
                  SELF_ASSIGN_ALLOWED },
                { "root, a PID", 0, TARGET_ARGUMENT_PID, true, OTHER, OUTSIDE, true, true, SELF_ASSIGN_ALLOWED },
                { "root, a group not loaded (the daemon answers that itself)", 0, TARGET_ARGUMENT_UNIT, false, 0,
                  UNKNOWN, false, false, SELF_ASSIGN_ALLOWED },
                /* A user, their own things below a delegation root, a group that allows it. */
                { "own user unit, not running, AllowSelfAssign=yes", ME, TARGET_ARGUMENT_USER_UNIT, true, ME, UNKNOWN,
                  true, true, SELF_ASSIGN_ALLOWED },
                { "own user unit, running below user@UID.service", ME, TARGET_ARGUMENT_USER_UNIT, true, ME, BELOW,
                  true, true, SELF_ASSIGN_ALLOWED },
                { "own cgroup path below a delegation root", ME, TARGET_ARGUMENT_CGROUP, true, ME, BELOW, true, true,
                  SELF_ASSIGN_ALLOWED },
                { "PID in an own cgroup below a delegation root", ME, TARGET_ARGUMENT_PID, true, ME, BELOW, true,
                  true, SELF_ASSIGN_ALLOWED },
                /* A delegation root is the administrator's, though systemd
                 * chowned it to the user (issue 23, attack 6). */
                { "user@UID.service's own cgroup, owned by the user", ME, TARGET_ARGUMENT_CGROUP, true, ME, ROOT, true,
                  true, SELF_ASSIGN_DELEGATION_ROOT },
                { "a PID in a Delegate=yes service's own cgroup", ME, TARGET_ARGUMENT_PID, true, ME, ROOT, true, true,
                  SELF_ASSIGN_DELEGATION_ROOT },
                { "a cgroup the user owns, below no system unit", ME, TARGET_ARGUMENT_CGROUP, true, ME, OUTSIDE, true,
                  true, SELF_ASSIGN_NOT_DELEGATED },
                { "a cgroup the user owns, place not known", ME, TARGET_ARGUMENT_CGROUP, true, ME, UNKNOWN, true, true,
                  SELF_ASSIGN_NOT_DELEGATED },
                { "own user unit whose manager reports a system unit's cgroup", ME, TARGET_ARGUMENT_USER_UNIT, true, ME,
                  ROOT, true, true, SELF_ASSIGN_DELEGATION_ROOT },
                { "own user unit whose manager reports a cgroup below no unit", ME, TARGET_ARGUMENT_USER_UNIT, true, ME,
                  OUTSIDE, true, true, SELF_ASSIGN_NOT_DELEGATED },
                /* The group must allow it, for their own things too. */
                { "own user unit, AllowSelfAssign=no", ME, TARGET_ARGUMENT_USER_UNIT, true, ME, UNKNOWN, true, false,
                  SELF_ASSIGN_GROUP_REFUSES },
                { "own cgroup, AllowSelfAssign=no", ME, TARGET_ARGUMENT_CGROUP, true, ME, BELOW, true, false,
                  SELF_ASSIGN_GROUP_REFUSES },
                { "own user unit, group not loaded", ME, TARGET_ARGUMENT_USER_UNIT, true, ME, UNKNOWN, false, false,
                  SELF_ASSIGN_NO_SUCH_GROUP },
                /* Never another's, nor the system's. */
                { "another user's user unit", ME, TARGET_ARGUMENT_USER_UNIT, true, OTHER, BELOW, true, true,
                  SELF_ASSIGN_OTHER_USER },
                { "root's user unit", ME, TARGET_ARGUMENT_USER_UNIT, true, 0, UNKNOWN, true, true,
                  SELF_ASSIGN_OTHER_USER },
                { "a user unit of unknown uid", ME, TARGET_ARGUMENT_USER_UNIT, false, ME, UNKNOWN, true, true,
                  SELF_ASSIGN_OTHER_USER },
                { "system unit name", ME, TARGET_ARGUMENT_UNIT, false, 0, UNKNOWN, true, true, SELF_ASSIGN_SYSTEM_UNIT },
                { "system unit name, even one delegated to the caller", ME, TARGET_ARGUMENT_UNIT, true, ME, ROOT, true,
                  true, SELF_ASSIGN_SYSTEM_UNIT },
                { "root-owned cgroup", ME, TARGET_ARGUMENT_CGROUP, true, 0, ROOT, true, true, SELF_ASSIGN_OTHER_USER },
                { "root-owned cgroup below a unit", ME, TARGET_ARGUMENT_CGROUP, true, 0, BELOW, true, true,
                  SELF_ASSIGN_OTHER_USER },
                { "another user's cgroup", ME, TARGET_ARGUMENT_CGROUP, true, OTHER, BELOW, true, true,
                  SELF_ASSIGN_OTHER_USER },
                { "PID of another user's process", ME, TARGET_ARGUMENT_PID, true, OTHER, BELOW, true, true,
                  SELF_ASSIGN_OTHER_USER },
                { "PID of a root process", ME, TARGET_ARGUMENT_PID, true, 0, ROOT, true, true, SELF_ASSIGN_OTHER_USER },
                { "a cgroup that is not there", ME, TARGET_ARGUMENT_CGROUP, false, 0, UNKNOWN, true, true,
                  SELF_ASSIGN_NO_CGROUP },
                { "not a target", ME, NONE, false, 0, UNKNOWN, true, true, SELF_ASSIGN_INVALID_TARGET },
                /* The group is checked first: what a user may not do to a
                 * group, they learn before anything about the target. */
                { "another user's unit in a group that refuses", ME, TARGET_ARGUMENT_USER_UNIT, true, OTHER, UNKNOWN,
                  true, false, SELF_ASSIGN_GROUP_REFUSES },
                { "not a target, group that refuses", ME, NONE, false, 0, UNKNOWN, true, false,
                  SELF_ASSIGN_GROUP_REFUSES },
                { "a delegation root, group that refuses", ME, TARGET_ARGUMENT_CGROUP, true, ME, ROOT, true, false,
                  SELF_ASSIGN_GROUP_REFUSES },
                /* The overflow uid is a user like any other. */
                { "nobody's own cgroup", 65534, TARGET_ARGUMENT_CGROUP, true, 65534, BELOW, true, true,
                  SELF_ASSIGN_ALLOWED },
                { "nobody's user@65534.service cgroup", 65534, TARGET_ARGUMENT_CGROUP, true, 65534, ROOT, true, true,
                  SELF_ASSIGN_DELEGATION_ROOT },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const Case *c = &cases[i];
                SelfAssignRequest req = {
                        .caller = c->caller,
                        .target_kind = c->kind,
                        .owner_known = c->owner_known,
                        .owner = c->owner,
                        .place = c->place,
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

/* A system manager's units, as policyd's table knows them. */
static const char *const fake_units[][2] = {
        { "/", "-.slice" },
        { "/init.scope", "init.scope" },
        { "/system.slice", "system.slice" },
        { "/system.slice/cron.service", "cron.service" },
        { "/system.slice/build.service", "build.service" }, /* Delegate=yes, User=builder */
        { "/user.slice", "user.slice" },
        { "/user.slice/user-1000.slice", "user-1000.slice" },
        { "/user.slice/user-1000.slice/user@1000.service", "user@1000.service" },
        { "/user.slice/user-1000.slice/session-2.scope", "session-2.scope" },
};

/* delegation_place()'s iterator over fake_units: the index of the next. */
static bool fake_next(void *iter, const char **ret_unit, const char **ret_cgroup) {
        size_t *i = iter;
        if (*i >= G_N_ELEMENTS(fake_units))
                return false;
        *ret_cgroup = fake_units[*i][0];
        *ret_unit = fake_units[*i][1];
        (*i)++;
        return true;
}

static void test_place(void) {
        static const struct {
                const char *cgroup;
                DelegationPlace want;
                const char *unit;
        } cases[] = {
                { "/", DELEGATION_OUTSIDE, NULL },
                { "/system.slice", DELEGATION_OUTSIDE, NULL },
                { "/user.slice/user-1000.slice", DELEGATION_OUTSIDE, NULL },
                { "/init.scope", DELEGATION_ROOT, "init.scope" },
                { "/system.slice/cron.service", DELEGATION_ROOT, "cron.service" },
                { "/system.slice/build.service", DELEGATION_ROOT, "build.service" },
                { "/system.slice/build.service/", DELEGATION_ROOT, "build.service" },
                { "/system.slice/build.service/job", DELEGATION_BELOW, "build.service" },
                { "/system.slice/build.service/job/deeper", DELEGATION_BELOW, "build.service" },
                /* A user may name their own cgroups after slices: below a unit, still. */
                { "/system.slice/build.service/x.slice", DELEGATION_BELOW, "build.service" },
                { "/user.slice/user-1000.slice/user@1000.service", DELEGATION_ROOT, "user@1000.service" },
                { "/user.slice/user-1000.slice/user@1000.service/app.slice/app-x.scope", DELEGATION_BELOW,
                  "user@1000.service" },
                { "/user.slice/user-1000.slice/user@1000.service/init.scope", DELEGATION_BELOW, "user@1000.service" },
                { "/user.slice/user-1000.slice/session-2.scope", DELEGATION_ROOT, "session-2.scope" },
                /* A directory made below a slice, or the root, by hand: no unit delegated it. */
                { "/system.slice/handmade", DELEGATION_OUTSIDE, NULL },
                { "/handmade/deeper", DELEGATION_OUTSIDE, NULL },
                /* A unit systemd has not told policyd of is no delegation. */
                { "/system.slice/unknown.service", DELEGATION_OUTSIDE, NULL },
                { "/system.slice/unknown.service/sub", DELEGATION_OUTSIDE, NULL },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const char *unit = "unset";
                size_t iter = 0;
                DelegationPlace got = delegation_place(cases[i].cgroup, fake_next, &iter, &unit);
                if (got != cases[i].want || g_strcmp0(unit, cases[i].unit) != 0)
                        g_error("%s: want place %d (%s), got %d (%s)", cases[i].cgroup, cases[i].want,
                                cases[i].unit ? cases[i].unit : "no unit", got, unit ? unit : "no unit");
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

        req = (SelfAssignRequest) { .caller = 65534, .target_kind = TARGET_ARGUMENT_CGROUP, .owner_known = true,
                                    .owner = 65534, .place = DELEGATION_ROOT, .place_unit = "user@65534.service",
                                    .group_loaded = true, .group_allows = true };
        const char *root_path = "/user.slice/user-65534.slice/user@65534.service";
        g_autofree char *droot = self_assign_refusal(self_assign_check(&req), &req, true, root_path, root_path, "g");
        g_assert_cmpstr(droot, ==,
                        "Cannot assign /user.slice/user-65534.slice/user@65534.service to group 'g': cgroup "
                        "/user.slice/user-65534.slice/user@65534.service is the cgroup of user@65534.service, a unit "
                        "of the system manager: its delegation root. systemd lets you use it, but its limits are the "
                        "administrator's; assign a cgroup below it.");
        req.place = DELEGATION_OUTSIDE;
        req.place_unit = NULL;
        g_autofree char *outside = self_assign_refusal(self_assign_check(&req), &req, true, "/handmade", "/handmade",
                                                       "g");
        g_assert_cmpstr(outside, ==,
                        "Cannot assign /handmade to group 'g': cgroup /handmade lies below no unit of the system "
                        "manager, so none delegated it to you; only root may assign it.");

        req = (SelfAssignRequest) { .caller = ME, .target_kind = TARGET_ARGUMENT_UNIT, .owner_known = true, .owner = 0 };
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
                bool system_unit;
                bool owner_known;
                uid_t owner;
                bool want;
        } cases[] = {
                { "root's assignment, any target", 0, "foo.service", true, false, 0, true },
                { "root's assignment of a cgroup a user owns", 0, "/a/b", false, true, ME, true },
                { "root's assignment of a user unit", 0, "user@1000/a.scope", false, true, OTHER, true },
                { "root's assignment of a delegated system unit", 0, "/a/user@1000.service", true, true, ME, true },
                { "a user's, of their own user unit", ME, "user@1000/a.scope", false, true, ME, true },
                { "a user's, of their own user unit, owner unread", ME, "user@1000/a.scope", false, false, 0, true },
                { "a user's, of another user's unit (never made; never applies)", ME, "user@1001/a.scope", false, true,
                  ME, false },
                { "a user's, of a cgroup they still own", ME, "/a/b", false, true, ME, true },
                { "a user's, of a cgroup now owned by another", ME, "/a/b", false, true, OTHER, false },
                { "a user's, of a cgroup now owned by root", ME, "/a/b", false, true, 0, false },
                { "a user's, of a cgroup that is gone", ME, "/a/b", false, false, ME, false },
                /* A delegation root is the administrator's: an assignment
                 * made by path before that rule, kept under /run, stops. */
                { "a user's, of a delegated system unit they own", ME, "foo.service", true, true, ME, false },
                { "a user's, by path, of user@UID.service's cgroup", ME, "/a/user@1000.service", true, true, ME,
                  false },
                { "a user's, of a unit now run by another", ME, "foo.service", true, true, OTHER, false },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                bool got = runtime_assignment_applies(cases[i].assigner, cases[i].key, cases[i].system_unit,
                                                      cases[i].owner_known, cases[i].owner);
                if (got != cases[i].want)
                        g_error("%s: want %s, got %s", cases[i].name, cases[i].want ? "applies" : "does not apply",
                                got ? "applies" : "does not apply");
        }
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/self-assign/check", test_check);
        g_test_add_func("/self-assign/place", test_place);
        g_test_add_func("/self-assign/messages", test_messages);
        g_test_add_func("/self-assign/applies", test_applies);
        return g_test_run();
}
