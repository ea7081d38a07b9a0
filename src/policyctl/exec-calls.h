/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What "policyctl exec" asks of the kernel for its command, and what it
 * waits for first. Pure, table-tested. */

#include <stdbool.h>

#include "mempolicy.h"
#include "process-plan.h"

/* The calls exec makes in its own process before the exec: the values
 * policyd's process layer wants for a process of the scope
 * (process_want_for(), so that the layer finds the command as it wants it
 * and has nothing to change), as the arguments of the system calls. */
typedef struct ExecCalls {
        int ksm;                  /* -1: none; 0 or 1: prctl(PR_SET_MEMORY_MERGE, ksm) */
        bool has_mempolicy;       /* set_mempolicy(mempolicy.mode, mempolicy.nodemask, maxnode) */
        Mempolicy mempolicy;
        const char *ksm_group;       /* whose value; borrowed from want */
        const char *mempolicy_group;
        const char *mempolicy_problem; /* NUMAPolicy= is set but makes no policy: why */
} ExecCalls;

/* -EINVAL when want's mempolicy is not one the injector's parser reads
 * (which would be a bug in process-plan.c); *ret is filled all the same,
 * without it. */
int exec_calls_for(const ProcessWant *want, ExecCalls *ret);

/* "KSM on, mempolicy interleave:0-1", the policy as /proc/PID/numa_maps
 * shows it; "" when there is no call. */
char *exec_calls_describe(const ExecCalls *c);

/* Whether a row of Explain's table (its BACKEND, REQUESTED, EFFECTIVE and
 * NOTE, "" for none) shows the setting in the kernel: an xattr with the
 * requested value; a cgroup file or systemd property with a value and
 * without policyd's note that the kernel has another. A limit that a
 * parent caps is as applied as it gets. Process-level (exec-time) and
 * not-enforceable rows have nothing to wait for. */
bool exec_explain_row_applied(const char *backend, const char *requested, const char *effective, const char *note);
