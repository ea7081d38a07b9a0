/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The process-level knobs, KSM= and NUMAPolicy= (with NUMANodes=), for one
 * process of a member cgroup: which groups' values it should carry, and the
 * one step that gets it there from what policyd already set in it. Pure:
 * the caller reads the executable and the process's current state. */

#include <glib.h>
#include <stdbool.h>

#include "policy-group.h"
#include "process-trust.h"
#include "resolve.h"

/* What a process carries, or should. ksm: -1 unknown or not wanted, 0 or 1.
 * mempolicy: NULL for none wanted (or unknown), else in the injector's
 * spelling: "default", "local", "preferred:1", "preferred-many:0-1",
 * "bind:0-1", "interleave:0-1", "weighted-interleave:0-1". */
typedef struct ProcessKnobs {
        int ksm;
        char *mempolicy;
} ProcessKnobs;

void process_knobs_clear(ProcessKnobs *k);

typedef struct ProcessWant {
        ProcessKnobs knobs;
        const char *ksm_group;        /* the group whose KSM= won; borrowed from the set */
        const char *mempolicy_group;
        /* The winning group has ApplyToRunning=no: the value reaches the
         * process only when it starts (policyd-generator, policyctl exec). */
        bool ksm_at_start_only;
        bool mempolicy_at_start_only;
        const char *mempolicy_problem; /* why NUMAPolicy= cannot become a mempolicy, or NULL */
} ProcessWant;

void process_want_clear(ProcessWant *w);

/* Executable=: a glob on the absolute path, where '*' also matches '/', as
 * in Unit= (fnmatch() without FNM_PATHNAME). */
bool executable_matches(const char *pattern, const char *exe);

/* Among the member groups (Membership*), the winner of each knob as
 * resolve.c picks it (highest Priority, a tie to the name last in lexical
 * order), counting only groups whose Executable= is empty or matches exe.
 * exe NULL: unknown, and only groups without Executable= count. */
void process_want_for(const PolicySet *set, const GPtrArray *memberships, const char *exe, ProcessWant *ret);

/* Whether any member group sets KSM= or NUMAPolicy=: only then do the
 * processes of a cgroup matter. */
bool process_knobs_wanted(const PolicySet *set, const GPtrArray *memberships);
/* Whether one of those also has ApplyToRunning=yes: only then is a running
 * process worth asking about. */
bool process_knobs_reach_running(const PolicySet *set, const GPtrArray *memberships);
/* Whether any group of the set does. */
bool policy_set_has_process_knobs(const PolicySet *set);
/* Whether one of the member groups with ApplyToRunning=yes sets KSM= or
 * NUMAPolicy= for only the processes its Executable= names: only then can
 * an exec change what a running process of the cgroup should carry (both
 * values are inherited across fork and exec). */
bool process_knobs_follow_exec(const PolicySet *set, const GPtrArray *memberships);
/* Whether what the processes of the cgroup should carry depends on their
 * executable: a member group that sets KSM= or NUMAPolicy= has Executable=
 * (whatever its ApplyToRunning=, since it may win over a group that reaches
 * running processes). Without one, process_want_for() needs no exe, and one
 * request a move can do it all (ensure=1). */
bool process_knobs_need_exe(const PolicySet *set, const GPtrArray *memberships);
/* Whether any group of the set is such a group: only then are exec events
 * worth listening to. */
bool policy_set_has_knobs_following_exec(const PolicySet *set);

/* NUMANodes= of a member cgroup: the node list that the pages each of its
 * processes already placed go to with migrate_pages(2), where cpuset.mems
 * cannot be set (cgroup_plan_numa_by_migration()) and where the kernel did
 * not move them on attach: every process, whatever its executable, and
 * whatever ApplyToRunning= says, as nothing is injected. NULL when no member group
 * sets NUMANodes=, or when moved_to (the list policyd last moved this
 * process's pages to, NULL for none) is that list already: once per
 * process and list, since pages it allocates later are not confined, and
 * moving them again and again would only hide that. *ret_group (or NULL):
 * the group whose NUMANodes= won, borrowed from the set. NULL as well when
 * the list holds every node in memory_nodes (the nodes with memory; NULL:
 * not known): no page can be elsewhere. */
char *process_migration_for(const PolicySet *set, const GPtrArray *memberships, const char *moved_to,
                            const NumaNodeMask *memory_nodes, const char **ret_group);
/* Whether any group of the set sets NUMANodes=. */
bool policy_set_has_numa_nodes(const PolicySet *set);

/* The mempolicy spelling of a NUMAPolicy= and NUMANodes= pair, or NULL with
 * *ret_problem set when the pair does not make one. */
char *process_mempolicy_spec(NumaPolicy policy, const NumaNodeMask *nodes, const char **ret_problem);

typedef struct ProcessStep {
        int ksm;           /* -1: leave alone; 0 or 1 */
        char *mempolicy;   /* NULL: leave alone */
        bool undo_ksm;     /* the step takes back what policyd set */
        bool undo_mempolicy;
} ProcessStep;

void process_step_clear(ProcessStep *s);
bool process_step_is_empty(const ProcessStep *s);

/* From what the process has now (current; -1/NULL where unknown) and what
 * policyd set in it earlier (applied; -1/NULL for nothing), the step toward
 * want. A value policyd did not set is never taken back: leaving a group
 * turns KSM off and the mempolicy back to default only where policyd had
 * turned them on. */
void process_step_for(const ProcessWant *want, const ProcessKnobs *current, const ProcessKnobs *applied,
                      ProcessStep *ret);

/* Whose input a change to the processes of candidate c acts for, when it
 * comes from group g, one of c's member groups (process-trust.h). The
 * processes of a user's cgroup are what that user put there, whoever put
 * the cgroup in g: so the user manager's uid for a unit of theirs, else
 * the cgroup's owner (0 for root's cgroups). Where the owner is not known,
 * 0 for root's own input (root's runtime assignment, a PID 1 unit's files,
 * g's [Match] on what PID 1 says of the unit alone), and
 * PROCESS_TRUST_UID_NONE otherwise. */
uid_t process_acting_uid(const PolicyGroup *g, const Candidate *c, bool root_assigned);
/* One request carries several knobs: it acts for root only when each does,
 * for a user when each knob acts for root or for that user, and for nobody
 * (PROCESS_TRUST_UID_NONE) when two users disagree. */
uid_t process_acting_uid_merge(uid_t a, uid_t b);
