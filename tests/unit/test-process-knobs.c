/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The process-level knobs of a resolution as the calls that set them:
 * KSM= → prctl(PR_SET_MEMORY_MERGE), NUMAPolicy= with NUMANodes= →
 * set_mempolicy(). policyctl exec makes the calls; policyd-generator takes
 * the same pairs for systemd's NUMAPolicy= and NUMAMask=. */
#include <errno.h>

#include <glib.h>

#include "conf-parse.h"
#include "policy-load.h"
#include "process-knobs.h"

/* Groups as policy files; they are all the subject's, as if assigned. */
typedef struct Case {
        const char *groups[4];  /* the lines after [PolicyGroup] of groups a, b, c; NULL-ended */
        int want_ksm;           /* -1, 0 or 1 */
        const char *want_mempolicy; /* numa_maps' spelling, or NULL for no set_mempolicy() */
        const char *want_why;   /* a part of why NUMAPolicy= is not applied */
        const char *want_description;
} Case;

/* The knobs of a resolution of the groups, as policyd resolves a subject's. */
static Resolution *resolve_groups(const char *const *texts) {
        static const char *const names[] = { "a", "b", "c", NULL };
        g_autoptr(PolicySet) set = policy_set_new();
        g_autoptr(Diagnostics) diags = diagnostics_new();
        Resolution *r = NULL;
        size_t n = 0;

        for (; n < 3 && texts[n]; n++) {
                g_autofree char *path = g_strdup_printf("%s.policy", names[n]);
                g_autofree char *text = g_strdup_printf("[PolicyGroup]\n%s", texts[n]);
                g_autoptr(ConfFile) f = conf_parse_data(path, text, strlen(text), diags);
                PolicyGroup *g = policy_group_new(names[n]);
                policy_group_apply_conf(g, f, diags);
                policy_group_check(g, diags);
                policy_set_add(set, g);
        }
        if (diagnostics_count(diags, DIAGNOSTIC_ERROR) + diagnostics_count(diags, DIAGNOSTIC_WARNING) > 0) {
                g_autofree char *first = diagnostic_format(g_ptr_array_index(diags->items, 0));
                g_error("the groups of a case do not load cleanly: %s", first);
        }
        g_autofree const char **runtime = g_new0(const char *, n + 1);
        for (size_t i = 0; i < n; i++)
                runtime[i] = names[i];
        const Candidate c = { .cgroup = "/pgt.scope", .runtime_groups = runtime };
        g_assert_cmpint(resolve_candidate(set, &c, &r), ==, 0);
        return r;
}

static void check(const Case *c) {
        g_autoptr(Resolution) r = resolve_groups(c->groups);
        g_autofree char *shown = g_strjoinv(" | ", (char **) c->groups);
        ProcessKnobs k;
        char policy[256];

        g_strdelimit(shown, "\n", ' ');
        process_knobs_from_resolution(r, &k);

        if (k.ksm != c->want_ksm)
                g_error("%s: ksm: want %d, got %d", shown, c->want_ksm, k.ksm);
        if (!c->want_mempolicy && k.has_mempolicy) {
                g_assert_cmpint(mempolicy_format_numa_maps(&k.mempolicy, policy, sizeof(policy)), ==, 0);
                g_error("%s: want no set_mempolicy(), got %s", shown, policy);
        }
        if (c->want_mempolicy) {
                if (!k.has_mempolicy)
                        g_error("%s: want set_mempolicy() for %s, got none (%s)", shown, c->want_mempolicy,
                                k.mempolicy_why);
                g_assert_cmpint(mempolicy_format_numa_maps(&k.mempolicy, policy, sizeof(policy)), ==, 0);
                if (!g_str_equal(policy, c->want_mempolicy))
                        g_error("%s: mempolicy: want %s, got %s", shown, c->want_mempolicy, policy);
        }
        if (c->want_why && (!k.mempolicy_why || !strstr(k.mempolicy_why, c->want_why)))
                g_error("%s: want the reason '%s', got '%s'", shown, c->want_why, k.mempolicy_why);
        if (!c->want_why && k.mempolicy_why)
                g_error("%s: want no reason, got '%s'", shown, k.mempolicy_why);

        g_autofree char *description = process_knobs_describe(&k);
        if (!g_str_equal(description, c->want_description))
                g_error("%s: description: want '%s', got '%s'", shown, c->want_description, description);
}

static void test_table(void) {
        static const Case cases[] = {
                /* Nothing process-level. */
                { { "[Memory]\n" }, -1, NULL, NULL, "" },
                /* NUMANodes= alone is cgroup-wide (AllowedMemoryNodes=): no task policy. */
                { { "[Memory]\nNUMANodes=0-1\n" }, -1, NULL, NULL, "" },
                { { "[Memory]\nKSM=yes\n" }, 1, NULL, NULL, "KSM on" },
                /* KSM=no is a call too, as systemd's MemoryKSM=no is. */
                { { "[Memory]\nKSM=no\n" }, 0, NULL, NULL, "KSM off" },
                { { "[Memory]\nKSM=yes\nNUMAPolicy=interleave\nNUMANodes=0-1\n" }, 1, "interleave:0-1", NULL,
                  "KSM on, mempolicy interleave:0-1" },
                { { "[Memory]\nNUMAPolicy=interleave\nNUMANodes=0 2-3\n" }, -1, "interleave:0,2-3", NULL,
                  "mempolicy interleave:0,2-3" },
                { { "[Memory]\nNUMAPolicy=bind\nNUMANodes=1\n" }, -1, "bind:1", NULL, "mempolicy bind:1" },
                { { "[Memory]\nNUMAPolicy=bind\nNUMANodes=1000\n" }, -1, "bind:1000", NULL, "mempolicy bind:1000" },
                /* systemd has no weighted-interleave; set_mempolicy() has (6.9). */
                { { "[Memory]\nNUMAPolicy=weighted-interleave\nNUMANodes=0-1\n" }, -1, "weighted interleave:0-1",
                  NULL, "mempolicy weighted interleave:0-1" },
                { { "[Memory]\nNUMAPolicy=preferred\nNUMANodes=1\n" }, -1, "prefer:1", NULL, "mempolicy prefer:1" },
                /* preferred without nodes: the local node, as the kernel reads it. */
                { { "[Memory]\nNUMAPolicy=preferred\n" }, -1, "local", NULL, "mempolicy local" },
                /* default and local take no nodes, even where the group sets some. */
                { { "[Memory]\nNUMAPolicy=default\nNUMANodes=0-1\n" }, -1, "default", NULL, "mempolicy default" },
                { { "[Memory]\nKSM=no\nNUMAPolicy=local\n" }, 0, "local", NULL, "KSM off, mempolicy local" },
                { { "[Memory]\nNUMAPolicy=local\nNUMANodes=1\n" }, -1, "local", NULL, "mempolicy local" },
                /* set_mempolicy() would refuse it, and systemd's NUMAMask= too. */
                { { "[Memory]\nKSM=yes\nNUMAPolicy=preferred\nNUMANodes=0-1\n" }, 1, NULL,
                  "preferred takes exactly one node", "KSM on" },
                /* Several groups: each knob from the highest Priority=, and the
                 * nodes may come from another group than the policy. */
                { { "[Memory]\nKSM=yes\n", "Priority=10\n[Memory]\nKSM=no\n" }, 0, NULL, NULL, "KSM off" },
                { { "Priority=10\n[Memory]\nKSM=yes\n", "[Memory]\nKSM=no\n" }, 1, NULL, NULL, "KSM on" },
                { { "Priority=10\n[Memory]\nNUMAPolicy=interleave\nNUMANodes=0-1\n",
                    "Priority=20\n[Memory]\nNUMANodes=1\n" },
                  -1, "interleave:1", NULL, "mempolicy interleave:1" },
                { { "Priority=10\n[Memory]\nNUMAPolicy=preferred\n", "[Memory]\nNUMANodes=0-1\n",
                    "[Memory]\nKSM=yes\n" },
                  1, NULL, "preferred takes exactly one node", "KSM on" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
                check(&cases[i]);
}

/* What no group that loads can ask for (the loader drops NUMAPolicy=bind
 * without NUMANodes=), but the pairing refuses all the same. */
static void test_takes_nodes(void) {
        NumaNodeMask one = {}, two = {};
        const char *why = NULL;
        bool with = true;

        numa_node_mask_set(&one, 1);
        numa_node_mask_set(&two, 0);
        numa_node_mask_set(&two, 1);
        g_assert_cmpint(numa_policy_takes_nodes(NUMA_POLICY_BIND, NULL, &with, &why), ==, -EINVAL);
        g_assert_cmpstr(why, ==, "no NUMANodes= to go with it");
        g_assert_cmpint(numa_policy_takes_nodes(NUMA_POLICY_INTERLEAVE, &(NumaNodeMask) {}, &with, NULL), ==, -EINVAL);
        g_assert_cmpint(numa_policy_takes_nodes(NUMA_POLICY_WEIGHTED_INTERLEAVE, NULL, &with, NULL), ==, -EINVAL);
        g_assert_cmpint(numa_policy_takes_nodes(NUMA_POLICY_PREFERRED, &two, &with, &why), ==, -EINVAL);
        g_assert_cmpstr(why, ==, "preferred takes exactly one node in NUMANodes=");
        g_assert_cmpint(numa_policy_takes_nodes(NUMA_POLICY_PREFERRED, &one, &with, NULL), ==, 0);
        g_assert_true(with);
        g_assert_cmpint(numa_policy_takes_nodes(NUMA_POLICY_PREFERRED, NULL, &with, NULL), ==, 0);
        g_assert_false(with);
        g_assert_cmpint(numa_policy_takes_nodes(NUMA_POLICY_LOCAL, &two, &with, NULL), ==, 0);
        g_assert_false(with);
        g_assert_cmpint(numa_policy_takes_nodes(_NUMA_POLICY_MAX, NULL, &with, NULL), ==, -EINVAL);
}

static void test_mpol_modes(void) {
        g_assert_cmpint(numa_policy_to_mpol(NUMA_POLICY_DEFAULT), ==, MPOL_DEFAULT);
        g_assert_cmpint(numa_policy_to_mpol(NUMA_POLICY_PREFERRED), ==, MPOL_PREFERRED);
        g_assert_cmpint(numa_policy_to_mpol(NUMA_POLICY_BIND), ==, MPOL_BIND);
        g_assert_cmpint(numa_policy_to_mpol(NUMA_POLICY_INTERLEAVE), ==, MPOL_INTERLEAVE);
        g_assert_cmpint(numa_policy_to_mpol(NUMA_POLICY_WEIGHTED_INTERLEAVE), ==, 6);
        g_assert_cmpint(numa_policy_to_mpol(NUMA_POLICY_LOCAL), ==, MPOL_LOCAL);
        g_assert_cmpint(numa_policy_to_mpol(_NUMA_POLICY_MAX), ==, -EINVAL);
}

static void test_maxnode(void) {
        /* The kernel reads maxnode - 1 bits: node 1000 needs 16 words. */
        const char *const groups[] = { "[Memory]\nNUMAPolicy=bind\nNUMANodes=1000\n", NULL };
        g_autoptr(Resolution) r = resolve_groups(groups);
        ProcessKnobs k;
        size_t words;

        process_knobs_from_resolution(r, &k);
        g_assert_true(k.has_mempolicy);
        g_assert_cmpuint(mempolicy_maxnode(&k.mempolicy, &words), ==, 16 * 64 + 1);
        g_assert_cmpuint(words, ==, 16);
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/process-knobs/table", test_table);
        g_test_add_func("/process-knobs/takes-nodes", test_takes_nodes);
        g_test_add_func("/process-knobs/mpol-modes", test_mpol_modes);
        g_test_add_func("/process-knobs/maxnode", test_maxnode);
        return g_test_run();
}
