/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The process layer's decisions (process-plan.c), as tables: which groups'
 * KSM= and NUMAPolicy= a process gets, Executable= and ApplyToRunning=, and
 * the step from what it has and what policyd set, undo included. */

#include <glib.h>

#include "process-plan.h"
#include "util.h"

typedef struct GroupSpec {
        const char *name;
        unsigned priority;
        bool apply_to_running;
        const char *ksm;        /* "yes", "no" or NULL */
        const char *numa_policy;
        const char *numa_nodes;
        const char *executables; /* space-separated globs, or NULL */
} GroupSpec;

static PolicySet *build_set(const GroupSpec *specs, size_t n) {
        PolicySet *set = policy_set_new();

        for (size_t i = 0; i < n; i++) {
                const GroupSpec *sp = &specs[i];
                PolicyGroup *g = policy_group_new(sp->name);
                g->priority = sp->priority;
                g->apply_to_running = sp->apply_to_running;
                if (sp->ksm) {
                        g->knobs[KNOB_KSM].set = true;
                        g->knobs[KNOB_KSM].value.boolean = streq(sp->ksm, "yes");
                }
                if (sp->numa_policy) {
                        g->knobs[KNOB_NUMA_POLICY].set = true;
                        g_assert_cmpint(parse_numa_policy(sp->numa_policy, &g->knobs[KNOB_NUMA_POLICY].value.numa_policy,
                                                          NULL),
                                        ==, 0);
                }
                if (sp->numa_nodes) {
                        g->knobs[KNOB_NUMA_NODES].set = true;
                        g_assert_cmpint(parse_numa_nodes(sp->numa_nodes, &g->knobs[KNOB_NUMA_NODES].value.numa_nodes,
                                                         NULL),
                                        ==, 0);
                }
                if (sp->executables) {
                        g_auto(GStrv) words = g_strsplit(sp->executables, " ", -1);
                        for (char **w = words; *w; w++)
                                g_ptr_array_add(g->match_executables, g_strdup(*w));
                }
                policy_set_add(set, g);
        }
        return set;
}

static GPtrArray *memberships_of(const char *names) {
        GPtrArray *a = g_ptr_array_new();
        g_auto(GStrv) words = g_strsplit(names, " ", -1);

        for (char **w = words; *w; w++) {
                if (**w == '\0')
                        continue;
                Membership *m = g_new0(Membership, 1);
                m->group = g_strdup(*w);
                m->source = MEMBERSHIP_MATCH;
                g_ptr_array_add(a, m);
        }
        return a;
}

static void memberships_free(GPtrArray *a) {
        for (guint i = 0; i < a->len; i++) {
                Membership *m = g_ptr_array_index(a, i);
                g_free(m->group);
                g_free(m);
        }
        g_ptr_array_unref(a);
}

/* "ksm=1@g mempolicy=interleave:0-1@g" with "!start" after a value that
 * only reaches processes at their start. */
static char *want_string(const ProcessWant *w) {
        GString *s = g_string_new(NULL);

        if (w->knobs.ksm >= 0)
                g_string_append_printf(s, "ksm=%d@%s%s", w->knobs.ksm, w->ksm_group,
                                       w->ksm_at_start_only ? "!start" : "");
        if (w->knobs.mempolicy)
                g_string_append_printf(s, "%smempolicy=%s@%s%s", s->len ? " " : "", w->knobs.mempolicy,
                                       w->mempolicy_group, w->mempolicy_at_start_only ? "!start" : "");
        if (w->mempolicy_problem)
                g_string_append_printf(s, "%sproblem=%s", s->len ? " " : "", w->mempolicy_problem);
        return g_string_free(s, false);
}

static const GroupSpec groups[] = {
        { "batch", 10, true, "yes", "interleave", "0-1", NULL },
        { "python", 20, true, "no", NULL, NULL, "*/python3* /opt/*/bin/py" },
        { "pinned", 5, true, NULL, "preferred", "1", NULL },
        { "many", 5, true, NULL, "preferred", "0-1", NULL },
        { "startonly", 50, false, "yes", NULL, NULL, NULL },
        { "nonodes", 1, true, NULL, "bind", NULL, NULL },
        { "tie-a", 7, true, "yes", NULL, NULL, NULL },
        { "tie-b", 7, true, "no", NULL, NULL, NULL },
        { "local", 1, true, NULL, "local", NULL, NULL },
        { "weighted", 1, true, NULL, "weighted-interleave", "0,1", NULL },
};

static void test_want(void) {
        static const struct {
                const char *members, *exe, *expected;
        } cases[] = {
                { "", "/usr/bin/x", "" },
                { "batch", "/usr/bin/make", "ksm=1@batch mempolicy=interleave:0-1@batch" },
                { "batch", NULL, "ksm=1@batch mempolicy=interleave:0-1@batch" },
                /* Executable= limits the group to matching processes; '*' crosses '/'. */
                { "batch python", "/usr/bin/python3.11", "ksm=0@python mempolicy=interleave:0-1@batch" },
                { "batch python", "/usr/bin/make", "ksm=1@batch mempolicy=interleave:0-1@batch" },
                { "batch python", "/opt/x/y/bin/py", "ksm=0@python mempolicy=interleave:0-1@batch" },
                { "batch python", NULL, "ksm=1@batch mempolicy=interleave:0-1@batch" },
                { "python", "/usr/bin/perl", "" },
                { "pinned", "/bin/a", "mempolicy=preferred:1@pinned" },
                { "many", "/bin/a", "mempolicy=preferred-many:0-1@many" },
                { "startonly batch", "/bin/a", "ksm=1@startonly!start mempolicy=interleave:0-1@batch" },
                { "nonodes", "/bin/a", "problem=no NUMANodes= to go with NUMAPolicy=" },
                /* Without its own NUMANodes=, the cgroup's. */
                { "nonodes batch", "/bin/a", "ksm=1@batch mempolicy=interleave:0-1@batch" },
                { "tie-a tie-b", "/bin/a", "ksm=0@tie-b" },
                { "local", "/bin/a", "mempolicy=local@local" },
                { "weighted", "/bin/a", "mempolicy=weighted-interleave:0-1@weighted" },
                { "nosuchgroup", "/bin/a", "" },
        };
        g_autoptr(PolicySet) set = build_set(groups, G_N_ELEMENTS(groups));

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                GPtrArray *members = memberships_of(cases[i].members);
                ProcessWant w;

                process_want_for(set, members, cases[i].exe, &w);
                g_autofree char *got = want_string(&w);
                if (!streq(got, cases[i].expected))
                        g_error("members '%s', exe %s: got '%s', expected '%s'", cases[i].members,
                                cases[i].exe ?: "NULL", got, cases[i].expected);
                process_want_clear(&w);
                memberships_free(members);
        }
}

static void test_knobs_wanted(void) {
        g_autoptr(PolicySet) set = build_set(groups, G_N_ELEMENTS(groups));
        g_autoptr(PolicySet) none = build_set((const GroupSpec[]) { { "swap", 1, true, NULL, NULL, "0", NULL } }, 1);
        GPtrArray *a = memberships_of("batch"), *b = memberships_of("swap nosuch");

        g_assert_true(process_knobs_wanted(set, a));
        g_assert_false(process_knobs_wanted(none, b));
        g_assert_false(process_knobs_wanted(set, NULL));
        g_assert_true(process_knobs_reach_running(set, a));
        GPtrArray *c = memberships_of("startonly nonodes"), *d = memberships_of("startonly");
        g_assert_true(process_knobs_reach_running(set, c));
        g_assert_false(process_knobs_reach_running(set, d));
        g_assert_false(process_knobs_reach_running(none, b));
        memberships_free(c);
        memberships_free(d);
        g_assert_true(policy_set_has_process_knobs(set));
        /* NUMANodes= alone is cgroup-level (cpuset.mems). */
        g_assert_false(policy_set_has_process_knobs(none));
        memberships_free(a);
        memberships_free(b);
}

/* NUMANodes= where the cgroup has no cpuset: whose list, and only once. */
static void test_migration(void) {
        static const GroupSpec specs[] = {
                { "near", 10, false, NULL, NULL, "1", NULL },
                { "far", 20, true, NULL, NULL, "0,2-3", "/usr/bin/*" },
                { "ksmonly", 30, true, "yes", NULL, NULL, NULL },
                { "spread", 5, true, NULL, "interleave", "0-1", NULL },
        };
        static const struct {
                const char *members, *moved_to, *expected, *group;
        } cases[] = {
                /* ApplyToRunning=no does not matter: nothing is injected. */
                { "near", NULL, "1", "near" },
                { "near", "1", NULL, "near" },
                /* Moved elsewhere before: the list changed, so again. */
                { "near", "0", "1", "near" },
                /* The winner by Priority; Executable= does not filter a cgroup-level knob. */
                { "near far", NULL, "0,2-3", "far" },
                { "near far", "0,2-3", NULL, "far" },
                { "ksmonly", NULL, NULL, NULL },
                { "ksmonly near", NULL, "1", "near" },
                { "spread", NULL, "0-1", "spread" },
                { "", NULL, NULL, NULL },
                { "nosuch", NULL, NULL, NULL },
        };
        g_autoptr(PolicySet) set = build_set(specs, G_N_ELEMENTS(specs));
        g_autoptr(PolicySet) none = build_set(specs + 2, 1);

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                GPtrArray *members = memberships_of(cases[i].members);
                const char *group = "unset";
                g_autofree char *got = process_migration_for(set, members, cases[i].moved_to, NULL, &group);
                if (!streq_ptr(got, cases[i].expected) || !streq_ptr(group, cases[i].group))
                        g_error("members '%s', moved to %s: got %s from %s, expected %s from %s", cases[i].members,
                                cases[i].moved_to ?: "NULL", got ?: "NULL", group ?: "NULL",
                                cases[i].expected ?: "NULL", cases[i].group ?: "NULL");
                memberships_free(members);
        }
        g_assert_null(process_migration_for(set, NULL, NULL, NULL, NULL));
        /* Every node with memory already allowed: nothing can be elsewhere. */
        {
                NumaNodeMask two = {}, three = {};
                GPtrArray *members = memberships_of("spread");
                numa_node_mask_set(&two, 0);
                numa_node_mask_set(&two, 1);
                three = two;
                numa_node_mask_set(&three, 2);
                g_assert_null(process_migration_for(set, members, NULL, &two, NULL));
                g_autofree char *got = process_migration_for(set, members, NULL, &three, NULL);
                g_assert_cmpstr(got, ==, "0-1");
                memberships_free(members);
        }
        g_assert_true(policy_set_has_numa_nodes(set));
        g_assert_false(policy_set_has_numa_nodes(none));
}

/* Exec events matter only where an exec can change the answer: a member
 * group with ApplyToRunning=yes, KSM= or NUMAPolicy=, and Executable=. */
static void test_follow_exec(void) {
        static const GroupSpec specs[] = {
                { "py-running", 1, true, "yes", NULL, NULL, "/usr/bin/python3*" },
                { "py-numa", 1, true, NULL, "interleave", "0-1", "/usr/bin/python3*" },
                { "py-start", 1, false, "yes", NULL, NULL, "/usr/bin/python3*" },
                { "py-nodes", 1, true, NULL, NULL, "0", "/usr/bin/python3*" },
                { "all", 1, true, "yes", NULL, NULL, NULL },
        };
        static const struct {
                const char *set;     /* the groups loaded */
                const char *members; /* the cgroup's groups */
                bool set_follows, members_follow;
                bool need_exe;       /* process_knobs_need_exe(): no ensure=1 without the exe */
        } cases[] = {
                { "py-running all", "py-running", true, true, true },
                { "py-numa", "py-numa", true, true, true },
                { "py-running all", "all", true, false, false },       /* every exe alike */
                { "py-running all", "", true, false, false },          /* not a member */
                { "py-start", "py-start", false, false, true },        /* at start only, yet it may win */
                { "py-start all", "py-start all", false, false, true },
                { "py-nodes", "py-nodes", false, false, false },       /* NUMANodes= alone: cgroup-level */
                { "all", "all", false, false, false },
                { "py-start all py-numa", "all py-start py-numa", true, true, true },
                { "py-running", "nosuch", true, false, false },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_auto(GStrv) names = g_strsplit(cases[i].set, " ", -1);
                g_autoptr(GArray) chosen = g_array_new(false, false, sizeof(GroupSpec));
                for (char **n = names; *n; n++)
                        for (size_t j = 0; j < G_N_ELEMENTS(specs); j++)
                                if (streq(specs[j].name, *n))
                                        g_array_append_val(chosen, specs[j]);
                g_autoptr(PolicySet) set = build_set((const GroupSpec *) chosen->data, chosen->len);
                GPtrArray *members = memberships_of(cases[i].members);

                if (policy_set_has_knobs_following_exec(set) != cases[i].set_follows)
                        g_error("set '%s': policy_set_has_knobs_following_exec is %s", cases[i].set,
                                cases[i].set_follows ? "false" : "true");
                if (process_knobs_follow_exec(set, members) != cases[i].members_follow)
                        g_error("set '%s', members '%s': process_knobs_follow_exec is %s", cases[i].set,
                                cases[i].members, cases[i].members_follow ? "false" : "true");
                if (process_knobs_need_exe(set, members) != cases[i].need_exe)
                        g_error("set '%s', members '%s': process_knobs_need_exe is %s", cases[i].set,
                                cases[i].members, cases[i].need_exe ? "false" : "true");
                memberships_free(members);
        }
}

static void test_step(void) {
        /* want: ksm, mempolicy, at-start flags; current; applied → step */
        static const struct {
                int want_ksm;
                const char *want_mpol;
                bool start_only;
                int cur_ksm;
                const char *cur_mpol;
                int applied_ksm;
                const char *applied_mpol;
                const char *expected; /* "ksm=N mempolicy=S undo" */
        } cases[] = {
                { 1, NULL, false, 0, NULL, -1, NULL, "ksm=1" },
                { 1, NULL, false, 1, NULL, -1, NULL, "" },         /* already on: at start */
                { 1, NULL, false, -1, NULL, -1, NULL, "ksm=1" },   /* unknown: apply */
                { 0, NULL, false, 1, NULL, -1, NULL, "ksm=0" },    /* KSM=no is a value too */
                { 1, NULL, true, 0, NULL, -1, NULL, "" },          /* ApplyToRunning=no */
                { -1, NULL, false, 1, NULL, 1, NULL, "ksm=0 undo" }, /* left the group */
                { -1, NULL, false, 1, NULL, -1, NULL, "" },        /* not ours: left alone */
                { -1, NULL, false, 0, NULL, 1, NULL, "" },         /* someone turned it off */
                { 1, NULL, true, 1, NULL, 1, NULL, "" },           /* still wanted, at start only */
                { -1, "interleave:0-1", false, -1, "default", -1, NULL, "mempolicy=interleave:0-1" },
                { -1, "interleave:0-1", false, -1, "interleave:0-1", -1, NULL, "" },
                { -1, "bind:1", false, -1, "interleave:0-1", -1, "interleave:0-1", "mempolicy=bind:1" },
                { -1, NULL, false, -1, "interleave:0-1", -1, "interleave:0-1", "mempolicy=default undo" },
                { -1, NULL, false, -1, "other:bind:0", -1, "interleave:0-1", "" }, /* changed since */
                { -1, NULL, false, -1, NULL, -1, "interleave:0-1", "mempolicy=default undo" },
                { -1, NULL, false, -1, "default", -1, "default", "" },
                { 1, "local", false, 0, "default", 1, "local", "ksm=1 mempolicy=local" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                ProcessWant w = { .knobs.ksm = cases[i].want_ksm, .knobs.mempolicy = (char *) cases[i].want_mpol,
                                  .ksm_at_start_only = cases[i].start_only,
                                  .mempolicy_at_start_only = cases[i].start_only };
                ProcessKnobs cur = { cases[i].cur_ksm, (char *) cases[i].cur_mpol };
                ProcessKnobs applied = { cases[i].applied_ksm, (char *) cases[i].applied_mpol };
                ProcessStep s;
                g_autoptr(GString) got = g_string_new(NULL);

                process_step_for(&w, &cur, &applied, &s);
                g_assert_cmpint(process_step_is_empty(&s), ==, s.ksm < 0 && !s.mempolicy);
                if (s.ksm >= 0)
                        g_string_append_printf(got, "ksm=%d", s.ksm);
                if (s.mempolicy)
                        g_string_append_printf(got, "%smempolicy=%s", got->len ? " " : "", s.mempolicy);
                if (s.undo_ksm || s.undo_mempolicy)
                        g_string_append(got, " undo");
                if (!streq(got->str, cases[i].expected))
                        g_error("case %zu: got '%s', expected '%s'", i, got->str, cases[i].expected);
                process_step_clear(&s);
        }
}

static void test_executable_matches(void) {
        g_assert_true(executable_matches("/usr/bin/*", "/usr/bin/make"));
        g_assert_true(executable_matches("/usr/bin/*", "/usr/bin/x/y")); /* '*' crosses '/' */
        g_assert_true(executable_matches("*/firefox", "/usr/lib/firefox/firefox"));
        g_assert_false(executable_matches("*/firefox", "/usr/lib/firefox/firefox-bin"));
        g_assert_true(executable_matches("/opt/a\\x2db", "/opt/a\\x2db")); /* exact first */
        g_assert_false(executable_matches("/usr/bin/?", "/usr/bin/ab"));
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/process-plan/want", test_want);
        g_test_add_func("/process-plan/knobs-wanted", test_knobs_wanted);
        g_test_add_func("/process-plan/follow-exec", test_follow_exec);
        g_test_add_func("/process-plan/step", test_step);
        g_test_add_func("/process-plan/migration", test_migration);
        g_test_add_func("/process-plan/executable", test_executable_matches);
        return g_test_run();
}
