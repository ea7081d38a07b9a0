/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The process-level knobs of a resolution, KSM= and NUMAPolicy= with the
 * NUMANodes= that go with it, as the calls that set them inside a process:
 * prctl(PR_SET_MEMORY_MERGE) and set_mempolicy(). They read the groups as
 * policyd-generator does for MemoryKSM=, NUMAPolicy= and NUMAMask=, which
 * systemd turns into the same two calls. Pure. */

#include <stdbool.h>

#include "mempolicy.h"
#include "policy-values.h"
#include "resolve.h"

/* Whether NUMAPolicy=p takes the node mask of NUMANodes= (nodes; NULL when
 * no group sets it), as systemd's NUMAPolicy= takes NUMAMask=: default and
 * local take none; preferred takes one node, or none for the local node;
 * bind, interleave and weighted-interleave need it. -EINVAL, with why, for
 * a pair that set_mempolicy() would refuse or systemd would not take. */
int numa_policy_takes_nodes(NumaPolicy p, const NumaNodeMask *nodes, bool *ret_with_nodes, const char **ret_why);

/* The set_mempolicy() mode of a NUMAPolicy= value. */
int numa_policy_to_mpol(NumaPolicy p);

typedef struct ProcessKnobs {
        int ksm;               /* -1: no group sets KSM=; 0 or 1: prctl(PR_SET_MEMORY_MERGE, ksm) */
        bool has_mempolicy;    /* set_mempolicy(mempolicy.mode, mempolicy.nodemask, …) */
        Mempolicy mempolicy;
        const char *mempolicy_why; /* NUMAPolicy= is set but cannot be applied: why (static) */
} ProcessKnobs;

void process_knobs_from_resolution(const Resolution *r, ProcessKnobs *ret);

/* "KSM on, mempolicy interleave:0-1", the policy in numa_maps' spelling,
 * as /proc/PID/numa_maps will show it; "" when neither is set. */
char *process_knobs_describe(const ProcessKnobs *k);
