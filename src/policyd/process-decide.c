/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "assign.h"
#include "gather.h"
#include "inject-proc.h"
#include "process-watch-internal.h"
#include "state-store.h"
#include "util.h"

/* Deciding: what each process should get, from process-plan.c (pure),
 * the subject's memberships, the executable, what the process has and what
 * policyd set in it before; then a query or an injection is queued. */

/* NUMANodes=: the node list the process's pages go to now, or NULL (DESIGN
 * §6: cpuset.mems, then migrate_pages for running processes). In a cpuset
 * too: 6.12 moves pages on attach, and on a change of cpuset.mems, only
 * from the cpuset's old_mems_allowed, which stays empty until a task is
 * attached by a write to cgroup.procs (systemd starts units with
 * CLONE_INTO_CGROUP): a process moved from such a unit keeps its pages
 * where they were. */
char *process_decide_migration_wanted(ProcessWatch *w, const ProcessRecord *r, const char *moved_to,
                                      const char **ret_group) {
        Subject *s = r->subject ? manager_find_subject(w->manager, r->subject) : NULL;

        if (!s)
                return NULL;
        return process_migration_for(w->manager->policies, s->memberships, moved_to,
                                     w->memory_nodes_known ? &w->memory_nodes : NULL, ret_group);
}

/* The injector's spelling of a mempolicy, as numa_maps shows it. */
static int mempolicy_spec_to_numa_maps(const char *spec, char **ret) {
        Mempolicy p;
        char buf[300];

        if (mempolicy_parse(spec, &p) < 0 || mempolicy_format_numa_maps(&p, buf, sizeof(buf)) < 0)
                return -EINVAL;
        *ret = g_strdup(buf);
        return 0;
}

static char *groups_detail(const ProcessWant *want) {
        if (want->ksm_group && want->mempolicy_group && !streq(want->ksm_group, want->mempolicy_group))
                return g_strdup_printf("KSM= from '%s', NUMAPolicy= from '%s'", want->ksm_group, want->mempolicy_group);
        if (want->ksm_group || want->mempolicy_group)
                return g_strdup_printf("group '%s'", want->ksm_group ?: want->mempolicy_group);
        return g_strdup("no group sets KSM= or NUMAPolicy= for it now");
}

/* What the query said, in the terms process_step_for() compares: the
 * mempolicy is read in numa_maps' spelling, so it is matched against the
 * spellings that matter here. */
static void current_from_reply(const InjectReply *reply, const ProcessWant *want, const ProcessRecord *r,
                               ProcessKnobs *ret) {
        ProcessKnobs cur = { .ksm = -1 };

        if (streq_ptr(reply->ksm, "yes"))
                cur.ksm = 1;
        else if (streq_ptr(reply->ksm, "no"))
                cur.ksm = 0;
        if (reply->mempolicy && !streq(reply->mempolicy, "-")) {
                const char *candidates[] = { want->knobs.mempolicy, r->applied.mempolicy, "default", "local" };
                for (size_t i = 0; i < ELEMENTSOF(candidates) && !cur.mempolicy; i++) {
                        g_autofree char *spelled = NULL;
                        if (candidates[i] && mempolicy_spec_to_numa_maps(candidates[i], &spelled) >= 0 &&
                            streq(spelled, reply->mempolicy))
                                cur.mempolicy = g_strdup(candidates[i]);
                }
                if (!cur.mempolicy) /* something else: differs from all of them */
                        cur.mempolicy = g_strdup_printf("other:%s", reply->mempolicy);
        }
        *ret = cur;
}

/* Whose input a change that groups (NULL entries skipped) ask for acts
 * for (process_acting_uid()): root's when root's input puts the subject in
 * each of them; else the user whose cgroup it is, and then the helper
 * reaches only that user's own processes. None: 0, as for an undo, which
 * takes back only what policyd set (process_step_for()). */
static uid_t acting_uid_for(ProcessWatch *w, const ProcessRecord *r, const char *const *groups, size_t n) {
        Subject *s = process_record_subject(w, r);
        CandidateData d = {};
        uid_t acting = 0;
        bool any = false;

        for (size_t i = 0; i < n; i++)
                any |= groups[i] != NULL;
        if (!any)
                return 0;
        if (!s || isempty(s->cgroup))
                return PROCESS_TRUST_UID_NONE;
        gather_candidate(s, &d);
        g_autoptr(GPtrArray) entries = runtime_assignments_for(w->manager->assignments, s, d.c.owner_known,
                                                               d.c.owner_uid);
        for (size_t i = 0; i < n; i++) {
                const PolicyGroup *g = groups[i] ? policy_set_get(w->manager->policies, groups[i]) : NULL;
                bool root_assigned = false;

                if (!groups[i])
                        continue;
                if (!g) {
                        acting = PROCESS_TRUST_UID_NONE;
                        continue;
                }
                for (guint k = 0; k + 1 < entries->len; k++) {
                        const RuntimeAssignment *a = g_ptr_array_index(entries, k);
                        root_assigned |= a->uid == 0 && streq(a->group, groups[i]);
                }
                acting = process_acting_uid_merge(acting, process_acting_uid(g, &d.c, root_assigned));
        }
        candidate_data_clear(&d);
        return acting;
}

/* Queues the injection of step (taken), toward want. ensure: the step was
 * made without knowing what the process has, and the helper drops what it
 * has already (one request a move). */
static void queue_injection(ProcessWatch *w, ProcessRecord *r, const ProcessWant *want, ProcessStep *step,
                            bool ensure) {
        const char *groups[] = {
                step->ksm >= 0 && !step->undo_ksm ? want->ksm_group : NULL,
                step->mempolicy && !step->undo_mempolicy ? want->mempolicy_group : NULL,
        };

        process_step_clear(&r->step);
        r->step = *step;
        *step = (ProcessStep) { .ksm = -1 };
        r->acting_uid = acting_uid_for(w, r, groups, ELEMENTSOF(groups));
        process_record_set_outcome(r, PROCESS_PENDING, groups_detail(want));
        r->call_is_query = false;
        r->call_is_ensure = ensure;
        g_queue_push_tail(w->waiting, GINT_TO_POINTER(r->pid));
}

/* One request a move: where no member group's Executable= makes the answer
 * depend on the executable, the step from what policyd set toward what the
 * groups want, what the process has taken as unknown, goes out as an
 * injection with ensure=1; the helper reads first and sets only what
 * differs. False: a query first (or nothing to set, which the query's
 * answer explains). Until startup has converged, a step that takes back
 * what policyd set also asks first and decides on the answer: after a
 * restart a process is placed before its cgroup's groups are all known,
 * and an undo decided on that would turn KSM off and on again (seen in
 * bench/run-system's restart pass: two injections into a process already
 * right). An undo with ensure=1 carries mempolicy_if= (process-inject.c):
 * the helper takes back only the policy policyd set. */
static bool decide_without_query(ProcessWatch *w, ProcessRecord *r) {
        const GPtrArray *members = process_record_memberships(w, r);
        ProcessWant want = { .knobs.ksm = -1 };
        ProcessKnobs unknown = { .ksm = -1 };
        ProcessStep step = { .ksm = -1 };
        bool queued = false;

        if (process_knobs_need_exe(w->manager->policies, members))
                return false;
        process_want_for(w->manager->policies, members, NULL, &want);
        process_step_for(&want, &unknown, &r->applied, &step);
        if (!process_step_is_empty(&step) && (w->startup_done || (!step.undo_ksm && !step.undo_mempolicy))) {
                queue_injection(w, r, &want, &step, true);
                queued = true;
        }
        process_step_clear(&step);
        process_want_clear(&want);
        return queued;
}

/* The query came back: decide the step, and inject when there is one. */
void process_decide_from_query(ProcessWatch *w, ProcessRecord *r, const InjectReply *reply) {
        ProcessWant want = { .knobs.ksm = -1 };
        ProcessKnobs cur = { .ksm = -1 };
        ProcessStep step = { .ksm = -1 };

        g_free(r->exe);
        r->exe = reply->exe && !streq(reply->exe, "-") ? g_strdup(reply->exe) : NULL;
        process_want_for(w->manager->policies, process_record_memberships(w, r), r->exe, &want);
        current_from_reply(reply, &want, r, &cur);
        process_step_for(&want, &cur, &r->applied, &step);

        r->attempts = 0;
        if (process_step_is_empty(&step)) {
                if (want.knobs.ksm < 0 && !want.knobs.mempolicy)
                        process_record_set_outcome(
                                r, PROCESS_SKIPPED,
                                g_strdup(process_knobs_wanted(w->manager->policies, process_record_memberships(w, r))
                                                 ? "Executable= of its groups does not match"
                                                 : "no group sets KSM= or NUMAPolicy= for it"));
                else if ((want.knobs.ksm >= 0 && want.ksm_at_start_only && cur.ksm != want.knobs.ksm) ||
                         (want.knobs.mempolicy && want.mempolicy_at_start_only &&
                          !streq_ptr(cur.mempolicy, want.knobs.mempolicy)))
                        process_record_set_outcome(
                                r, PROCESS_SKIPPED,
                                g_strdup_printf("ApplyToRunning=no in %s: only at the next start",
                                                want.ksm_at_start_only ? want.ksm_group : want.mempolicy_group));
                else if (want.mempolicy_problem && !want.knobs.mempolicy)
                        process_record_set_outcome(r, PROCESS_SKIPPED, g_strdup(want.mempolicy_problem));
                else
                        process_record_set_outcome(r, PROCESS_AS_WANTED, groups_detail(&want));
                g_free(r->verified);
                r->verified = g_strdup_printf("ksm=%s mempolicy=%s", strempty(reply->ksm), strempty(reply->mempolicy));
                if (!process_record_holds_something(r) && !process_record_subject(w, r))
                        process_record_forget(w, r);
        } else
                queue_injection(w, r, &want, &step, false);
        process_knobs_clear(&cur);
        process_want_clear(&want);
        process_step_clear(&step);
}

/* Looks at one process again: one injection that sets only what differs
 * (decide_without_query()), or where the executable matters a query first
 * (its exe and what it has), then perhaps an injection. */
void process_decide(ProcessWatch *w, ProcessRecord *r) {
        if (r->call || r->method == PROCESS_PENDING) {
                r->again = true;
                return;
        }
        r->generation = w->generation;
        r->retry_at = 0;
        r->held_injection = false; /* what it was to do is decided anew */
        /* A move, a change of its groups, a reload: a new series of tries. */
        if (!r->retrying)
                r->attempts = 0;
        r->retrying = false;
        if (w->manager->dry_run) {
                process_record_set_outcome(r, PROCESS_SKIPPED, g_strdup("dry run"));
                return;
        }
        /* The pages first: that needs no query. */
        g_free(r->migrate_to);
        const char *migration_group = NULL;
        r->migrate_to = process_decide_migration_wanted(w, r, r->migrated, &migration_group);
        if (r->migrate_to) {
                r->acting_uid = acting_uid_for(w, r, &migration_group, 1);
                process_step_clear(&r->step);
                r->call_is_query = false;
                r->call_is_ensure = false;
                process_inject_queue_call(w, r);
                return;
        }
        /* Nothing to set and nothing to take back: no helper to start. */
        if (!process_record_holds_something(r) &&
            !process_knobs_reach_running(w->manager->policies, process_record_memberships(w, r))) {
                if (r->migrated && !process_knobs_wanted(w->manager->policies, process_record_memberships(w, r)))
                        return; /* NUMANodes= alone: the migration's outcome stands */
                process_record_set_outcome(r, PROCESS_SKIPPED,
                                           g_strdup("ApplyToRunning=no in the groups that set KSM= or "
                                                    "NUMAPolicy=: only at the next start"));
                return;
        }
        process_step_clear(&r->step);
        if (decide_without_query(w, r)) {
                process_inject_start_next(w);
                return;
        }
        r->call_is_query = true;
        r->call_is_ensure = false;
        process_inject_queue_call(w, r);
}

static bool subject_wants_migration(ProcessWatch *w, const Subject *s) {
        g_autofree char *nodes = NULL;

        nodes = process_migration_for(w->manager->policies, s->memberships, NULL,
                                      w->memory_nodes_known ? &w->memory_nodes : NULL, NULL);
        return nodes != NULL;
}

/* Its processes matter: a group sets KSM=, NUMAPolicy= or NUMANodes=. */
bool process_decide_subject_wanted(ProcessWatch *w, const Subject *s) {
        return w->active && (process_knobs_wanted(w->manager->policies, s->memberships) || subject_wants_migration(w, s));
}

/* Where policyd can read /proc/PID/exe itself and no group takes that
 * executable, no helper needs to start. That read needs ptrace access, which
 * policyd, without CAP_SYS_PTRACE, has only to processes of its own user
 * with no capabilities beyond its own: a root shell has more, so for most
 * processes the read fails and the helper is asked (hence the settling
 * delay in exec-watch.c). */
bool process_decide_exe_wants_nothing(ProcessWatch *w, pid_t pid, const GPtrArray *memberships, char **ret_exe) {
        char path[64], buf[4096];
        ProcessWant want = { .knobs.ksm = -1 };
        ssize_t n;
        bool nothing;

        snprintf(path, sizeof(path), "/proc/%d/exe", (int) pid);
        n = readlink(path, buf, sizeof(buf) - 1);
        if (n <= 0)
                return false; /* the helper will see */
        buf[n] = '\0';
        process_want_for(w->manager->policies, memberships, buf, &want);
        nothing = want.knobs.ksm < 0 && !want.knobs.mempolicy;
        process_want_clear(&want);
        if (nothing)
                *ret_exe = g_strdup(buf);
        return nothing;
}
