/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <fnmatch.h>
#include <string.h>

#include "process-plan.h"
#include "util.h"

void process_knobs_clear(ProcessKnobs *k) {
        assert(k);
        k->ksm = -1;
        g_clear_pointer(&k->mempolicy, g_free);
}

void process_want_clear(ProcessWant *w) {
        assert(w);
        process_knobs_clear(&w->knobs);
        *w = (ProcessWant) { .knobs.ksm = -1 };
}

void process_step_clear(ProcessStep *s) {
        assert(s);
        g_clear_pointer(&s->mempolicy, g_free);
        *s = (ProcessStep) { .ksm = -1 };
}

bool process_step_is_empty(const ProcessStep *s) {
        assert(s);
        return s->ksm < 0 && !s->mempolicy;
}

bool executable_matches(const char *pattern, const char *exe) {
        return streq(pattern, exe) || fnmatch(pattern, exe, 0) == 0;
}

static bool group_takes_process(const PolicyGroup *g, const char *exe) {
        assert(g);
        if (!g->match_executables || g->match_executables->len == 0)
                return true;
        if (!exe)
                return false;
        for (guint i = 0; i < g->match_executables->len; i++)
                if (executable_matches(g_ptr_array_index(g->match_executables, i), exe))
                        return true;
        return false;
}

static const PolicyGroup *winner_of(const PolicySet *set, const GPtrArray *memberships, Knob k, const char *exe,
                                    bool per_process) {
        const PolicyGroup *winner = NULL;

        assert(set);
        assert((unsigned) k < _KNOB_MAX);
        for (guint i = 0; memberships && i < memberships->len; i++) {
                const Membership *mb = g_ptr_array_index(memberships, i);
                const PolicyGroup *g = policy_set_get(set, mb->group);

                if (!g || !g->knobs[k].set)
                        continue;
                if (per_process && !group_takes_process(g, exe))
                        continue;
                if (policy_group_beats(g, winner))
                        winner = g;
        }
        return winner;
}

static unsigned nodes_count(const NumaNodeMask *m) {
        unsigned n = 0;
        for (size_t i = 0; i < G_N_ELEMENTS(m->bits); i++)
                n += (unsigned) __builtin_popcountll(m->bits[i]);
        return n;
}

char *process_mempolicy_spec(NumaPolicy policy, const NumaNodeMask *nodes, const char **ret_problem) {
        g_autofree char *list = nodes && !numa_node_mask_is_empty(nodes) ? format_numa_nodes(nodes) : NULL;

        assert(ret_problem);
        *ret_problem = NULL;
        switch (policy) {
        case NUMA_POLICY_DEFAULT:
                return g_strdup("default");
        case NUMA_POLICY_LOCAL:
                return g_strdup("local");
        case NUMA_POLICY_PREFERRED:
                /* Without nodes, "preferred" is the local node, as in
                 * systemd; with several, the kernel's preferred-many (5.15). */
                if (!list)
                        return g_strdup("local");
                return g_strdup_printf("%s:%s", nodes_count(nodes) == 1 ? "preferred" : "preferred-many", list);
        case NUMA_POLICY_BIND:
        case NUMA_POLICY_INTERLEAVE:
        case NUMA_POLICY_WEIGHTED_INTERLEAVE:
                if (!list) {
                        *ret_problem = "no NUMANodes= to go with NUMAPolicy=";
                        return NULL;
                }
                return g_strdup_printf("%s:%s",
                                       policy == NUMA_POLICY_BIND         ? "bind"
                                       : policy == NUMA_POLICY_INTERLEAVE ? "interleave"
                                                                          : "weighted-interleave",
                                       list);
        default:
                *ret_problem = "unknown NUMAPolicy=";
                return NULL;
        }
}

void process_want_for(const PolicySet *set, const GPtrArray *memberships, const char *exe, ProcessWant *ret) {
        ProcessWant w = { .knobs.ksm = -1 };
        const PolicyGroup *g;

        assert(ret);
        g = winner_of(set, memberships, KNOB_KSM, exe, true);
        if (g) {
                w.knobs.ksm = g->knobs[KNOB_KSM].value.boolean;
                w.ksm_group = g->name;
                w.ksm_at_start_only = !g->apply_to_running;
        }

        g = winner_of(set, memberships, KNOB_NUMA_POLICY, exe, true);
        if (g) {
                /* The group's own NUMANodes= first; else the cgroup's. */
                const PolicyGroup *nodes_group =
                        g->knobs[KNOB_NUMA_NODES].set ? g : winner_of(set, memberships, KNOB_NUMA_NODES, exe, false);
                w.knobs.mempolicy = process_mempolicy_spec(
                        g->knobs[KNOB_NUMA_POLICY].value.numa_policy,
                        nodes_group ? &nodes_group->knobs[KNOB_NUMA_NODES].value.numa_nodes : NULL,
                        &w.mempolicy_problem);
                w.mempolicy_group = g->name;
                w.mempolicy_at_start_only = !g->apply_to_running;
        }
        *ret = w;
}

char *process_migration_for(const PolicySet *set, const GPtrArray *memberships, const char *moved_to,
                            const NumaNodeMask *memory_nodes, const char **ret_group) {
        const PolicyGroup *g = winner_of(set, memberships, KNOB_NUMA_NODES, NULL, false);
        g_autofree char *nodes = NULL;

        if (ret_group)
                *ret_group = g ? g->name : NULL;
        if (!g || numa_node_mask_is_empty(&g->knobs[KNOB_NUMA_NODES].value.numa_nodes))
                return NULL;
        if (memory_nodes) {
                bool covers = true;
                for (unsigned n = 0; n < NUMA_NODES_MAX && covers; n++)
                        covers = !numa_node_mask_test(memory_nodes, n) ||
                                 numa_node_mask_test(&g->knobs[KNOB_NUMA_NODES].value.numa_nodes, n);
                if (covers)
                        return NULL;
        }
        nodes = format_numa_nodes(&g->knobs[KNOB_NUMA_NODES].value.numa_nodes);
        if (streq_ptr(nodes, moved_to))
                return NULL;
        return TAKE_PTR(nodes);
}

static bool group_has_process_knobs(const PolicyGroup *g) {
        return g && (g->knobs[KNOB_KSM].set || g->knobs[KNOB_NUMA_POLICY].set);
}

typedef bool (*GroupTest)(const PolicyGroup *g);

/* Whether the group of some membership passes the test. */
static bool some_member_group(const PolicySet *set, const GPtrArray *memberships, GroupTest test) {
        assert(set);
        assert(test);

        for (guint i = 0; memberships && i < memberships->len; i++) {
                const Membership *mb = g_ptr_array_index(memberships, i);
                const PolicyGroup *g = policy_set_get(set, mb->group);
                if (g && test(g))
                        return true;
        }
        return false;
}

/* Whether some loaded group passes the test. */
static bool some_group(const PolicySet *set, GroupTest test) {
        GHashTableIter it;
        gpointer value;

        assert(set);
        assert(test);
        g_hash_table_iter_init(&it, set->groups);
        while (g_hash_table_iter_next(&it, NULL, &value))
                if (test(value))
                        return true;
        return false;
}

static bool group_reaches_running(const PolicyGroup *g) {
        return group_has_process_knobs(g) && g->apply_to_running;
}

static bool group_follows_exec(const PolicyGroup *g) {
        return group_reaches_running(g) && g->match_executables && g->match_executables->len > 0;
}

static bool group_knobs_name_exe(const PolicyGroup *g) {
        return group_has_process_knobs(g) && g->match_executables && g->match_executables->len > 0;
}

static bool group_sets_numa_nodes(const PolicyGroup *g) {
        return g->knobs[KNOB_NUMA_NODES].set;
}

bool policy_set_has_numa_nodes(const PolicySet *set) {
        return some_group(set, group_sets_numa_nodes);
}

bool process_knobs_wanted(const PolicySet *set, const GPtrArray *memberships) {
        return some_member_group(set, memberships, group_has_process_knobs);
}

bool process_knobs_reach_running(const PolicySet *set, const GPtrArray *memberships) {
        return some_member_group(set, memberships, group_reaches_running);
}

bool policy_set_has_process_knobs(const PolicySet *set) {
        return some_group(set, group_has_process_knobs);
}

bool process_knobs_follow_exec(const PolicySet *set, const GPtrArray *memberships) {
        return some_member_group(set, memberships, group_follows_exec);
}

bool process_knobs_need_exe(const PolicySet *set, const GPtrArray *memberships) {
        return some_member_group(set, memberships, group_knobs_name_exe);
}

bool policy_set_has_knobs_following_exec(const PolicySet *set) {
        return some_group(set, group_follows_exec);
}

void process_step_for(const ProcessWant *want, const ProcessKnobs *current, const ProcessKnobs *applied,
                      ProcessStep *ret) {
        ProcessStep s = { .ksm = -1 };

        assert(want && current && applied && ret);
        /* process_want_for() makes -1, 0 or 1; current and applied are read. */
        assert(want->knobs.ksm >= -1 && want->knobs.ksm <= 1);
        if (want->knobs.ksm >= 0 && !want->ksm_at_start_only) {
                if (current->ksm != want->knobs.ksm)
                        s.ksm = want->knobs.ksm;
        } else if (applied->ksm == 1 && want->knobs.ksm != 1 && current->ksm != 0) {
                /* policyd turned it on, and no group wants it now. A 0 read
                 * back means someone else turned it off: nothing to undo. */
                s.ksm = 0;
                s.undo_ksm = true;
        }

        if (want->knobs.mempolicy && !want->mempolicy_at_start_only) {
                if (!streq_ptr(current->mempolicy, want->knobs.mempolicy))
                        s.mempolicy = g_strdup(want->knobs.mempolicy);
        } else if (applied->mempolicy && !streq(applied->mempolicy, "default") &&
                   !streq_ptr(want->knobs.mempolicy, applied->mempolicy) &&
                   (!current->mempolicy || streq(current->mempolicy, applied->mempolicy))) {
                /* Only while it still holds what policyd set. */
                s.mempolicy = g_strdup("default");
                s.undo_mempolicy = true;
        }
        *ret = s;
}

uid_t process_acting_uid(const PolicyGroup *g, const Candidate *c, bool root_assigned) {
        assert(g);
        assert(c);

        /* Whoever put a user's cgroup in g, its processes are what the user
         * put there: setuid programs they started, another user's after su.
         * So a change there acts for the user, even for root's membership,
         * and reaches only the user's own processes (issue 23). */
        if (c->user_manager)
                return c->manager_uid;
        if (c->owner_known)
                return c->owner_uid;
        /* An owner not known: only root's own input is root's. */
        if (root_assigned)
                return 0;
        if (c->unit_groups && g_strv_contains((const char *const *) c->unit_groups, g->name))
                return 0;
        if (c->unit && policy_group_matches_on_facts(g, c))
                return 0;
        return PROCESS_TRUST_UID_NONE;
}

uid_t process_acting_uid_merge(uid_t a, uid_t b) {
        if (a == 0)
                return b;
        if (b == 0 || a == b)
                return a;
        return PROCESS_TRUST_UID_NONE;
}
