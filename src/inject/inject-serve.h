/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One connection of policyd-inject.socket (Accept=yes): fd. Checks that
 * the peer is root; then, one request at a time, reads the request line
 * and its pidfd (inject-wire.h), checks that the pidfd is the request's
 * PID, injects, verifies, and writes the reply line, until the client
 * closes the connection or stays idle, a request is refused as malformed
 * (the stream may be out of step), or a job leaves a thread attached (only
 * this process's exit lets it go). Each request and its reply are logged
 * to stderr. Returns 0 once the last reply was written, whatever its
 * outcome, or a negative errno when one could not be. */
int inject_serve(int fd);

/* Drops CAP_SYS_NICE from every set of this process (all but a root
 * migration go without it), and reads it back: 0 when it is gone. */
int inject_drop_cap_sys_nice(void);
