/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "link-trust.h"
#include "util.h"

/* Each component of p (after its leading "/") up to end: not empty, not
 * "." and not "..". */
static bool components_valid(const char *p, const char *end) {
        while (p < end) {
                const char *slash = memchr(p, '/', (size_t) (end - p));
                size_t n = slash ? (size_t) (slash - p) : (size_t) (end - p);
                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                p += n + 1;
        }
        return true;
}

bool cgroup_path_strictly_below(const char *path, const char *root) {
        if (!path || !root || root[0] != '/' || path[0] != '/')
                return false;
        size_t n = strlen(root);
        while (n > 0 && root[n - 1] == '/')
                n--;
        /* root itself: "/" (n == 0), or valid components. */
        if (!components_valid(root + 1, root + n))
                return false;
        /* Prefix tricks: "/a/b-evil" is not below "/a/b"; the next byte must be "/". */
        if (strncmp(path, root, n) != 0 || path[n] != '/')
                return false;
        const char *rest = path + n + 1;
        size_t m = strlen(rest);
        /* At least one component; a trailing "/" would be an empty one. */
        return m > 0 && components_valid(rest, rest + m) && rest[m - 1] != '/';
}

UserManagerPeerVerdict user_manager_peer_check(uid_t uid, pid_t main_pid, uid_t peer_uid, pid_t peer_pid) {
        if (peer_uid != uid)
                return USER_MANAGER_PEER_WRONG_UID;
        if (main_pid <= 0)
                return USER_MANAGER_PEER_NO_MAIN_PID;
        if (peer_pid != main_pid)
                return USER_MANAGER_PEER_WRONG_PID;
        return USER_MANAGER_PEER_OK;
}

const char *user_manager_peer_verdict_to_string(UserManagerPeerVerdict v) {
        static const char *const names[_USER_MANAGER_PEER_VERDICT_MAX] = {
                [USER_MANAGER_PEER_OK] = "its systemd",
                [USER_MANAGER_PEER_WRONG_UID] = "another user's process",
                [USER_MANAGER_PEER_NO_MAIN_PID] = "not known yet: no MainPID for user@UID.service",
                [USER_MANAGER_PEER_WRONG_PID] = "the user's, but not the MainPID of user@UID.service",
        };
        return v >= 0 && v < _USER_MANAGER_PEER_VERDICT_MAX ? names[v] : NULL;
}

bool systemd_signal_sender_trusted(const char *sender, const char *owner) {
        /* Unique names start with ":"; only the bus daemon hands them out. */
        return sender && owner && owner[0] == ':' && streq(sender, owner);
}
