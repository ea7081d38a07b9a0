/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include <glib.h>

#include "process-knobs.h"

static unsigned nodes_count(const NumaNodeMask *m) {
        unsigned count = 0;

        for (unsigned n = 0; n < NUMA_NODES_MAX; n++)
                count += numa_node_mask_test(m, n);
        return count;
}

int numa_policy_takes_nodes(NumaPolicy p, const NumaNodeMask *nodes, bool *ret_with_nodes, const char **ret_why) {
        bool have = nodes && !numa_node_mask_is_empty(nodes);

        switch (p) {
        case NUMA_POLICY_DEFAULT:
        case NUMA_POLICY_LOCAL:
                *ret_with_nodes = false;
                return 0;
        case NUMA_POLICY_PREFERRED:
                /* Without nodes, "preferred" means the local node. systemd
                 * 257 has no preferred-many: one node at most. */
                if (have && nodes_count(nodes) != 1) {
                        if (ret_why)
                                *ret_why = "preferred takes exactly one node in NUMANodes=";
                        return -EINVAL;
                }
                *ret_with_nodes = have;
                return 0;
        case NUMA_POLICY_BIND:
        case NUMA_POLICY_INTERLEAVE:
        case NUMA_POLICY_WEIGHTED_INTERLEAVE:
                if (!have) {
                        if (ret_why)
                                *ret_why = "no NUMANodes= to go with it";
                        return -EINVAL;
                }
                *ret_with_nodes = true;
                return 0;
        default:
                if (ret_why)
                        *ret_why = "unknown NUMAPolicy=";
                return -EINVAL;
        }
}

int numa_policy_to_mpol(NumaPolicy p) {
        switch (p) {
        case NUMA_POLICY_DEFAULT:
                return MPOL_DEFAULT;
        case NUMA_POLICY_PREFERRED:
                return MPOL_PREFERRED;
        case NUMA_POLICY_BIND:
                return MPOL_BIND;
        case NUMA_POLICY_INTERLEAVE:
                return MPOL_INTERLEAVE;
        case NUMA_POLICY_WEIGHTED_INTERLEAVE:
                return MPOL_WEIGHTED_INTERLEAVE;
        case NUMA_POLICY_LOCAL:
                return MPOL_LOCAL;
        default:
                return -EINVAL;
        }
}

void process_knobs_from_resolution(const Resolution *r, ProcessKnobs *ret) {
        const ResolvedKnob *ksm = &r->knobs[KNOB_KSM];
        const ResolvedKnob *policy = &r->knobs[KNOB_NUMA_POLICY];
        const ResolvedKnob *nodes = &r->knobs[KNOB_NUMA_NODES];
        ProcessKnobs k = { .ksm = -1 };
        bool with_nodes;

        if (ksm->set)
                k.ksm = ksm->value.boolean;

        /* NUMANodes= alone is cgroup-wide (AllowedMemoryNodes=, cpuset.mems):
         * no task policy. */
        if (policy->set &&
            numa_policy_takes_nodes(policy->value.numa_policy, nodes->set ? &nodes->value.numa_nodes : NULL,
                                    &with_nodes, &k.mempolicy_why) >= 0) {
                k.has_mempolicy = true;
                k.mempolicy.mode = numa_policy_to_mpol(policy->value.numa_policy);
                /* As the kernel reads preferred without nodes (and numa_maps
                 * then shows): the local node. */
                if (k.mempolicy.mode == MPOL_PREFERRED && !with_nodes)
                        k.mempolicy.mode = MPOL_LOCAL;
                for (unsigned n = 0; with_nodes && n < NUMA_NODES_MAX && n < 8 * sizeof(k.mempolicy.nodemask); n++)
                        if (numa_node_mask_test(&nodes->value.numa_nodes, n))
                                k.mempolicy.nodemask[n / (8 * sizeof(unsigned long))] |=
                                        1UL << (n % (8 * sizeof(unsigned long)));
        }
        *ret = k;
}

char *process_knobs_describe(const ProcessKnobs *k) {
        GString *out = g_string_new(NULL);
        char policy[512];

        if (k->ksm >= 0)
                g_string_append_printf(out, "KSM %s", k->ksm ? "on" : "off");
        if (k->has_mempolicy) {
                if (mempolicy_format_numa_maps(&k->mempolicy, policy, sizeof(policy)) < 0)
                        g_strlcpy(policy, "?", sizeof(policy));
                g_string_append_printf(out, "%smempolicy %s", out->len > 0 ? ", " : "", policy);
        }
        return g_string_free(out, FALSE);
}
