/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The pure half of the injector: parsers for /proc text and the decisions
 * made from it. No I/O here; inject.c reads the files and calls these. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Mempolicy, its parser and its numa_maps spelling, and the MPOL_* and
 * PR_SET_MEMORY_MERGE values Debian 12's headers lack, live in
 * src/shared/mempolicy.h: policyctl exec sets the same policies itself. */
#include "mempolicy.h"
/* Which processes a request that acts for a user may reach. */
#include "process-trust.h"

#define INJECT_NODEMASK_WORDS MEMPOLICY_NODEMASK_WORDS
/* A policy spelled out, the longest node list included ("0,2,...,1022"). */
#define INJECT_POLICY_TEXT_MAX 2600

typedef struct ProcStatus {
        char state;           /* the letter of State:, or 0 when absent */
        pid_t tgid;
        pid_t pid;
        pid_t ppid;
        pid_t tracer_pid;
        int seccomp;          /* Seccomp: 0, 1 (strict) or 2 (filter); -1 when absent */
        int kthread;          /* Kthread: (6.x), -1 when absent */
} ProcStatus;

typedef enum InjectRefusal {
        INJECT_REFUSAL_NONE,
        INJECT_REFUSAL_KERNEL_THREAD,
        INJECT_REFUSAL_INIT,
        INJECT_REFUSAL_SELF,
        INJECT_REFUSAL_EXITING,
        INJECT_REFUSAL_TRACED,
        INJECT_REFUSAL_STOPPED,
        INJECT_REFUSAL_SECCOMP,
        INJECT_REFUSAL_PTRACE_FORBIDDEN,   /* EPERM from PTRACE_SEIZE, or Yama ptrace_scope 3 */
        INJECT_REFUSAL_UNSUPPORTED_ARCH,   /* not x86_64, or a 32-bit task on x86_64 */
        /* Stopped, then changed under us: released without a register
         * written back (inject.c says why). */
        INJECT_REFUSAL_EXECUTED,           /* it ran execve: a new image, not the one we stopped */
        INJECT_REFUSAL_CHANGED,            /* it ran code other than our syscall, or a thread vanished */
        /* The request acts for a user (for_uid=), and the process is not
         * theirs: process_trust_check()'s verdicts, in its words. */
        INJECT_REFUSAL_NO_USER,
        INJECT_REFUSAL_OTHER_UID,
        INJECT_REFUSAL_SETGID,
        INJECT_REFUSAL_CAPABILITIES,
        INJECT_REFUSAL_NOT_DUMPABLE,
        _INJECT_REFUSAL_MAX,
} InjectRefusal;

typedef struct MapsEntry {
        uint64_t start;
        uint64_t end;
        char perms[5];
        const char *path;     /* points into the parsed line; "" for anonymous */
} MapsEntry;

int proc_status_parse(const char *text, ProcStatus *ret);
int proc_maps_parse_line(const char *line, MapsEntry *ret);

/* The policy column of a numa_maps line: "default", "prefer:1", "interleave:0-1". */
int numa_maps_policy(const char *line, char *buf, size_t size);

/* Whether a smaps "VmFlags:" line has the two-letter flag (e.g. "mg");
 * -EINVAL when the line is not a VmFlags line. */
int smaps_vmflags_has(const char *line, const char *flag);

/* A single task's refusal, from its status. is_leader: the thread group
 * leader, which also decides for the process (kernel thread, PID 1, us). */
InjectRefusal inject_refusal_for_status(const ProcStatus *st, pid_t self, bool is_leader);
const char *inject_refusal_to_string(InjectRefusal r);

/* The Pid: line of a pidfd's /proc/self/fdinfo/FD: the process's PID in
 * our namespace, -1 once it has exited (and been reaped), 0 when it is
 * outside our PID namespace. -ENOENT: no Pid: line, so not a pidfd. */
int fdinfo_pidfd_pid(const char *text, pid_t *ret);

/* The node list of a sysfs file such as /sys/devices/system/node/possible
 * ("0-1\n"), one line, into a mask of MEMPOLICY_NODEMASK_WORDS words. */
int inject_parse_sysfs_nodes(const char *text, unsigned long *mask);

/* x86_64 restart rule, for reporting: is this RAX an in-syscall restart code? */
bool syscall_return_is_restart(long rax);
