/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Exec events from the netlink proc connector (DESIGN §7), for the process
 * layer: a process of a member cgroup that runs another executable may
 * now match a group's Executable=, or no longer match it. Nothing else
 * needs them: KSM and the mempolicy are inherited across fork and exec,
 * and moves are noticed with inotify (process-notice.c).
 *
 * The socket is open only while some loaded group with ApplyToRunning=yes
 * limits KSM= or NUMAPolicy= with Executable=: a connector listener wakes
 * at every exec on the machine. On Linux 6.6+ the kernel filters by event
 * type, so only execs come; before, every event comes and only EXEC is
 * read. Per exec, one read of /proc/PID/cgroup; the process layer does the
 * rest, for member cgroups only. */

#include <stdbool.h>

typedef struct Manager Manager;
typedef struct ExecWatch ExecWatch;

int exec_watch_new(Manager *m, ExecWatch **ret);
/* Says IGNORE to the kernel before closing: closing alone leaves the
 * kernel counting a listener, and sending events to nobody. */
ExecWatch *exec_watch_free(ExecWatch *x);

/* The policy set was swapped in: subscribe or unsubscribe. Where the
 * connector cannot be used, says why once, and the process layer goes on
 * with inotify alone. */
void exec_watch_policies_changed(ExecWatch *x);

/* For status: "exec events: ...". */
char *exec_watch_describe(ExecWatch *x);
