/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What policyd takes from the systemd managers it follows (link-trust.c):
 * a user's manager speaks only for cgroups below its own unit's, only its
 * own systemd is that manager, and PID 1's signals come from its name's
 * owner. These tables are the rule itself. */
#include <glib.h>

#include "link-trust.h"

#define ROOT "/user.slice/user-1000.slice/user@1000.service"

static void test_below(void) {
        static const struct {
                const char *path, *root;
                bool want;
        } cases[] = {
                /* What a user's manager reports for its units. */
                { ROOT "/app.slice/foo.service", ROOT, true },
                { ROOT "/app.slice", ROOT, true },
                { ROOT "/init.scope", ROOT, true },
                { ROOT "/app.slice/app-a@b.service/sub", ROOT, true },
                { ROOT "/app.slice/foo.service", ROOT "/", true },
                { ROOT "/app.slice/foo.service", ROOT "//", true },
                /* Strictly below: never the root itself. */
                { ROOT, ROOT, false },
                { ROOT "/", ROOT, false },
                { ROOT "//", ROOT, false },
                /* Outside: a root service, the parents, another user's, "/". */
                { "/system.slice/root.service", ROOT, false },
                { "/user.slice/user-1000.slice", ROOT, false },
                { "/user.slice", ROOT, false },
                { "/", ROOT, false },
                { "/user.slice/user-1001.slice/user@1001.service/app.slice/x.service", ROOT, false },
                /* Prefix tricks. */
                { ROOT "-evil", ROOT, false },
                { ROOT "-evil/app.slice/x.service", ROOT, false },
                { ROOT ".d/x", ROOT, false },
                { "/user.slice/user-1000.slice/user@1000.servic", ROOT, false },
                /* Dot components: ".." climbs out; "." and "//" are not how systemd names cgroups. */
                { ROOT "/..", ROOT, false },
                { ROOT "/../../../system.slice/root.service", ROOT, false },
                { ROOT "/app.slice/../../user@1001.service/x", ROOT, false },
                { ROOT "/app.slice/..", ROOT, false },
                { ROOT "/.", ROOT, false },
                { ROOT "/./x", ROOT, false },
                { ROOT "//x", ROOT, false },
                { ROOT "/app.slice//x", ROOT, false },
                { ROOT "/app.slice/x/", ROOT, false },
                /* Names that only look like dots are names. */
                { ROOT "/...", ROOT, true },
                { ROOT "/..x", ROOT, true },
                { ROOT "/.x", ROOT, true },
                /* Not absolute, empty, missing. */
                { "", ROOT, false },
                { "user.slice/user-1000.slice/user@1000.service/x", ROOT, false },
                { NULL, ROOT, false },
                { ROOT "/x", NULL, false },
                /* A bad root confines to nothing. */
                { ROOT "/x", "", false },
                { "/x", "relative", false },
                { "/a/../b/x", "/a/../b", false },
                { "/a//b/x", "/a//b", false },
                /* The cgroup mount's root: everything below it. */
                { "/system.slice", "/", true },
                { "/", "/", false },
                { "//", "/", false },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                bool got = cgroup_path_strictly_below(cases[i].path, cases[i].root);
                if (got != cases[i].want)
                        g_error("%s below %s: want %s, got %s", cases[i].path ?: "(null)", cases[i].root ?: "(null)",
                                cases[i].want ? "yes" : "no", got ? "yes" : "no");
        }
}

static void test_peer(void) {
        static const struct {
                const char *name;
                uid_t uid;
                pid_t main_pid;
                uid_t peer_uid;
                pid_t peer_pid;
                UserManagerPeerVerdict want;
        } cases[] = {
                { "the user's systemd", 1000, 812, 1000, 812, USER_MANAGER_PEER_OK },
                { "PID 1 (a symlink to /run/systemd/private)", 1000, 812, 0, 1, USER_MANAGER_PEER_WRONG_UID },
                { "root, with the right pid", 1000, 812, 0, 812, USER_MANAGER_PEER_WRONG_UID },
                { "another user's systemd", 1000, 812, 1001, 913, USER_MANAGER_PEER_WRONG_UID },
                { "another of the user's processes", 1000, 812, 1000, 4000, USER_MANAGER_PEER_WRONG_PID },
                { "MainPID not known", 1000, 0, 1000, 812, USER_MANAGER_PEER_NO_MAIN_PID },
                { "MainPID not known, another uid", 1000, 0, 0, 1, USER_MANAGER_PEER_WRONG_UID },
                { "root's own manager is not a user's", 0, 1, 0, 1, USER_MANAGER_PEER_OK },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                UserManagerPeerVerdict got = user_manager_peer_check(cases[i].uid, cases[i].main_pid,
                                                                     cases[i].peer_uid, cases[i].peer_pid);
                if (got != cases[i].want)
                        g_error("%s: want %s, got %s", cases[i].name,
                                user_manager_peer_verdict_to_string(cases[i].want),
                                user_manager_peer_verdict_to_string(got));
        }
        for (int v = 0; v < _USER_MANAGER_PEER_VERDICT_MAX; v++)
                g_assert_nonnull(user_manager_peer_verdict_to_string(v));
}

static void test_sender(void) {
        static const struct {
                const char *sender, *owner;
                bool want;
        } cases[] = {
                { ":1.5", ":1.5", true },
                { ":1.66", ":1.5", false },            /* anyone else, busctl emit --destination= */
                { "org.freedesktop.systemd1", ":1.5", false },
                { "org.freedesktop.systemd1", "org.freedesktop.systemd1", false },
                { ":1.5", NULL, false },               /* owner not known yet, or systemd off the bus */
                { NULL, ":1.5", false },               /* no sender */
                { NULL, NULL, false },
                { "", "", false },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
                if (systemd_signal_sender_trusted(cases[i].sender, cases[i].owner) != cases[i].want)
                        g_error("sender %s, owner %s: want %s", cases[i].sender ?: "(null)",
                                cases[i].owner ?: "(null)", cases[i].want ? "trusted" : "refused");
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/link-trust/cgroup-below", test_below);
        g_test_add_func("/link-trust/user-manager-peer", test_peer);
        g_test_add_func("/link-trust/systemd-sender", test_sender);
        return g_test_run();
}
