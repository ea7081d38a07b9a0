/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One request of policyd-inject.socket (Accept=yes): fd is the connection.
 * Checks that the peer is root, reads the request line and its pidfd
 * (inject-wire.h), checks that the pidfd is the request's PID, injects,
 * verifies, and writes the one reply line. Each request and its reply are
 * logged to stderr. Returns 0 once a reply was written, whatever its
 * outcome, or a negative errno when none could be. */
int inject_serve(int fd);

/* Drops CAP_SYS_NICE from every set of this process (all but a root
 * migration go without it), and reads it back: 0 when it is gone. */
int inject_drop_cap_sys_nice(void);
