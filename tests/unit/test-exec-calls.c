/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What policyctl exec asks of the kernel for its command: the values the
 * process layer wants for a process of the scope (process-plan.c, tested in
 * test-process-plan) as prctl(PR_SET_MEMORY_MERGE) and set_mempolicy()
 * arguments, shown in numa_maps' spelling; and which rows of Explain it
 * waits for. */
#include <errno.h>

#include <glib.h>

#include "conf-parse.h"
#include "exec-calls.h"
#include "policy-load.h"

/* Groups as policy files: the lines after [PolicyGroup] of groups a, b, c. */
typedef struct Case {
        const char *groups[4];      /* NULL-ended */
        const char *exe;            /* the command's executable, for Executable= */
        int want_ksm;               /* -1, 0 or 1 */
        const char *want_mempolicy; /* numa_maps' spelling, or NULL for no set_mempolicy() */
        unsigned long want_maxnode;
        const char *want_problem;   /* a part of why NUMAPolicy= is not applied */
        const char *want_description;
} Case;

static PolicySet *load_groups(const char *const *texts, GPtrArray *memberships) {
        static const char *const names[] = { "a", "b", "c" };
        PolicySet *set = policy_set_new();
        g_autoptr(Diagnostics) diags = diagnostics_new();

        for (size_t n = 0; n < 3 && texts[n]; n++) {
                g_autofree char *path = g_strdup_printf("%s.policy", names[n]);
                g_autofree char *text = g_strdup_printf("[PolicyGroup]\n%s", texts[n]);
                g_autoptr(ConfFile) f = conf_parse_data(path, text, strlen(text), diags);
                PolicyGroup *g = policy_group_new(names[n]);
                Membership *mb = g_new0(Membership, 1);

                policy_group_apply_conf(g, f, diags);
                policy_group_check(g, diags);
                policy_set_add(set, g);
                mb->group = (char *) names[n];
                mb->source = MEMBERSHIP_RUNTIME;
                g_ptr_array_add(memberships, mb);
        }
        if (diagnostics_count(diags, DIAGNOSTIC_ERROR) + diagnostics_count(diags, DIAGNOSTIC_WARNING) > 0) { /* a notice is advice */
                g_autofree char *first = diagnostic_format(g_ptr_array_index(diags->items, 0));
                g_error("the groups of a case do not load cleanly: %s", first);
        }
        return set;
}

static void check(const Case *c) {
        g_autoptr(GPtrArray) memberships = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(PolicySet) set = load_groups(c->groups, memberships);
        g_autofree char *shown = g_strjoinv(" | ", (char **) c->groups);
        ProcessWant want;
        ExecCalls calls;
        char policy[256];
        size_t words;

        g_strdelimit(shown, "\n", ' ');
        process_want_for(set, memberships, c->exe, &want);
        g_assert_cmpint(exec_calls_for(&want, &calls), ==, 0);

        if (calls.ksm != c->want_ksm)
                g_error("%s: ksm: want %d, got %d", shown, c->want_ksm, calls.ksm);
        if (!c->want_mempolicy && calls.has_mempolicy) {
                g_assert_cmpint(mempolicy_format_numa_maps(&calls.mempolicy, policy, sizeof(policy)), ==, 0);
                g_error("%s: want no set_mempolicy(), got %s", shown, policy);
        }
        if (c->want_mempolicy) {
                if (!calls.has_mempolicy)
                        g_error("%s: want set_mempolicy() for %s, got none (%s)", shown, c->want_mempolicy,
                                calls.mempolicy_problem);
                g_assert_cmpint(mempolicy_format_numa_maps(&calls.mempolicy, policy, sizeof(policy)), ==, 0);
                if (!g_str_equal(policy, c->want_mempolicy))
                        g_error("%s: mempolicy: want %s, got %s", shown, c->want_mempolicy, policy);
                if (mempolicy_maxnode(&calls.mempolicy, &words) != c->want_maxnode)
                        g_error("%s: maxnode: want %lu, got %lu", shown, c->want_maxnode,
                                mempolicy_maxnode(&calls.mempolicy, &words));
        }
        if (c->want_problem && (!calls.mempolicy_problem || !strstr(calls.mempolicy_problem, c->want_problem)))
                g_error("%s: want the problem '%s', got '%s'", shown, c->want_problem, calls.mempolicy_problem);
        if (!c->want_problem && calls.mempolicy_problem)
                g_error("%s: want no problem, got '%s'", shown, calls.mempolicy_problem);

        g_autofree char *description = exec_calls_describe(&calls);
        if (!g_str_equal(description, c->want_description))
                g_error("%s: description: want '%s', got '%s'", shown, c->want_description, description);
        process_want_clear(&want);
}

static void test_calls(void) {
        static const Case cases[] = {
                /* Nothing process-level; NUMANodes= alone is cgroup-wide. */
                { { "[Memory]\n" }, NULL, -1, NULL, 0, NULL, "" },
                { { "[Memory]\nNUMANodes=0-1\n" }, NULL, -1, NULL, 0, NULL, "" },
                { { "[Memory]\nKSM=yes\n" }, NULL, 1, NULL, 0, NULL, "KSM on" },
                /* KSM=no is a call too, as systemd's MemoryKSM=no is. */
                { { "[Memory]\nKSM=no\n" }, NULL, 0, NULL, 0, NULL, "KSM off" },
                /* ApplyToRunning= is about running processes: at start, it is wanted. */
                { { "ApplyToRunning=no\n[Memory]\nKSM=yes\nNUMAPolicy=interleave\nNUMANodes=0-1\n" }, NULL, 1,
                  "interleave:0-1", 65, NULL, "KSM on, mempolicy interleave:0-1" },
                { { "[Memory]\nNUMAPolicy=interleave\nNUMANodes=0 2-3\n" }, NULL, -1, "interleave:0,2-3", 65, NULL,
                  "mempolicy interleave:0,2-3" },
                /* The kernel reads maxnode - 1 bits: node 1000 needs 16 words. */
                { { "[Memory]\nNUMAPolicy=bind\nNUMANodes=1000\n" }, NULL, -1, "bind:1000", 16 * 64 + 1, NULL,
                  "mempolicy bind:1000" },
                { { "[Memory]\nNUMAPolicy=weighted-interleave\nNUMANodes=0-1\n" }, NULL, -1,
                  "weighted interleave:0-1", 65, NULL, "mempolicy weighted interleave:0-1" },
                { { "[Memory]\nNUMAPolicy=preferred\nNUMANodes=1\n" }, NULL, -1, "prefer:1", 65, NULL,
                  "mempolicy prefer:1" },
                /* Several nodes: the kernel's preferred-many (5.15), which systemd lacks. */
                { { "[Memory]\nNUMAPolicy=preferred\nNUMANodes=0-1\n" }, NULL, -1, "prefer (many):0-1", 65, NULL,
                  "mempolicy prefer (many):0-1" },
                /* preferred without nodes: the local node, as the kernel reads it. */
                { { "[Memory]\nNUMAPolicy=preferred\n" }, NULL, -1, "local", 0, NULL, "mempolicy local" },
                { { "[Memory]\nNUMAPolicy=default\nNUMANodes=0-1\n" }, NULL, -1, "default", 0, NULL,
                  "mempolicy default" },
                { { "[Memory]\nKSM=no\nNUMAPolicy=local\n" }, NULL, 0, "local", 0, NULL, "KSM off, mempolicy local" },
                /* Several groups: each knob from the highest Priority=; the
                 * policy with its own group's nodes. */
                { { "[Memory]\nKSM=yes\n", "Priority=10\n[Memory]\nKSM=no\n" }, NULL, 0, NULL, 0, NULL, "KSM off" },
                { { "Priority=10\n[Memory]\nNUMAPolicy=interleave\nNUMANodes=0-1\n",
                    "Priority=20\n[Memory]\nNUMANodes=1\n" },
                  NULL, -1, "interleave:0-1", 65, NULL, "mempolicy interleave:0-1" },
                /* Executable=: only for the command it names. */
                { { "[Match]\nExecutable=/usr/bin/make\n[Memory]\nKSM=yes\n" }, "/usr/bin/make", 1, NULL, 0, NULL,
                  "KSM on" },
                { { "[Match]\nExecutable=/usr/bin/make\n[Memory]\nKSM=yes\n" }, "/usr/bin/dash", -1, NULL, 0, NULL, "" },
                { { "[Match]\nExecutable=/usr/bin/make\n[Memory]\nKSM=yes\n" }, NULL, -1, NULL, 0, NULL, "" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
                check(&cases[i]);
}

/* What no group that loads can ask for, but process-plan.c may say. */
static void test_problem(void) {
        ProcessWant want = { .knobs.ksm = 1, .ksm_group = "a", .mempolicy_group = "b",
                             .mempolicy_problem = "no NUMANodes= to go with NUMAPolicy=" };
        ExecCalls calls;

        g_assert_cmpint(exec_calls_for(&want, &calls), ==, 0);
        g_assert_cmpint(calls.ksm, ==, 1);
        g_assert_false(calls.has_mempolicy);
        g_assert_cmpstr(calls.mempolicy_group, ==, "b");
        g_assert_cmpstr(calls.mempolicy_problem, ==, "no NUMANodes= to go with NUMAPolicy=");

        /* A spelling the injector's parser does not read. */
        want.mempolicy_problem = NULL;
        want.knobs.mempolicy = (char *) "sideways:1";
        g_assert_cmpint(exec_calls_for(&want, &calls), ==, -EINVAL);
        g_assert_false(calls.has_mempolicy);
        g_assert_cmpint(calls.ksm, ==, 1);
}

static void test_explain_rows(void) {
        /* As policyd's Explain sends them: "" for none. */
        static const struct {
                const char *backend, *requested, *effective, *note;
                bool applied;
        } rows[] = {
                { "xattr", "batch", "batch", "", true },
                { "xattr", "batch", "", "", false },            /* not written yet */
                { "xattr", "a,batch", "batch", "", false },     /* the tag of before */
                { "systemd-property", "48M", "48M", "systemd holds this for its units", true },
                { "systemd-property", "48M", "max", "the kernel has max, not the 50331648 requested", false },
                { "systemd-property", "0-1", "", "", false },   /* cpuset.mems.effective not there yet */
                { "systemd-property", "0-1", "0-1", "", true },
                { "systemd-property", "50% (1G)", "256M", "capped by /build.slice: its memory.swap.max is 256M", true },
                { "cgroup-file", "128M", "128M", "systemd has no property for memory.swap.high", true },
                { "cgroup-file", "128M", "", "", false },
                { "cgroup-file", "128M", "max", "the kernel has max, not the 134217728 requested", false },
                { "exec-time", "yes", "", "process-level", true },
                { "not-enforceable", "zswap slow", "", "swap tiers not supported", true },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(rows); i++)
                if (exec_explain_row_applied(rows[i].backend, rows[i].requested, rows[i].effective, rows[i].note) !=
                    rows[i].applied)
                        g_error("%s %s → %s (%s): want %s", rows[i].backend, rows[i].requested, rows[i].effective,
                                rows[i].note, rows[i].applied ? "applied" : "not applied");
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/exec-calls/calls", test_calls);
        g_test_add_func("/exec-calls/problem", test_problem);
        g_test_add_func("/exec-calls/explain-rows", test_explain_rows);
        return g_test_run();
}
