/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What policyd takes from the systemd managers it follows (policyd(8)):
 * PID 1's signals only from the bus name that owns org.freedesktop.systemd1,
 * a user's manager only when its peer is that user's systemd, and from it
 * only cgroups below its own unit's. Pure: the caller reads the facts. */

#include <stdbool.h>
#include <sys/types.h>

/* Whether path is a cgroup strictly below root (both as systemd names
 * them: absolute, below the cgroup mount). path must be root, "/", and one
 * or more components, none empty, "." or ".."; a trailing "/" on root is
 * ignored, one on path refuses it. A root that is not absolute, or that
 * has such components itself, confines to nothing. */
bool cgroup_path_strictly_below(const char *path, const char *root);

typedef enum UserManagerPeerVerdict {
        USER_MANAGER_PEER_OK,
        USER_MANAGER_PEER_WRONG_UID,  /* the socket's peer is not the user */
        USER_MANAGER_PEER_NO_MAIN_PID, /* PID 1 named no MainPID for user@UID.service (yet) */
        USER_MANAGER_PEER_WRONG_PID,  /* the user's, but not their systemd: another of their processes */
        _USER_MANAGER_PEER_VERDICT_MAX,
} UserManagerPeerVerdict;

/* The peer of /run/user/UID/systemd/private (SO_PEERCRED) is that user's
 * systemd only when its uid is UID and its pid the MainPID PID 1 reports
 * for user@UID.service. main_pid 0: unknown. */
UserManagerPeerVerdict user_manager_peer_check(uid_t uid, pid_t main_pid, uid_t peer_uid, pid_t peer_pid);
const char *user_manager_peer_verdict_to_string(UserManagerPeerVerdict v);

/* Whether a signal on the system bus comes from systemd: its sender (set by
 * the bus daemon, never by the sending client) is the unique name that owns
 * org.freedesktop.systemd1, as last seen (NULL: not known, or nobody owns
 * it). The well-known name itself, or any other, is refused. */
bool systemd_signal_sender_trusted(const char *sender, const char *owner);
