/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The execute step of one subject's pass: with the plan gather.c made,
 * write the cgroup (write-ahead records), set systemd's properties, and
 * undo what the groups no longer want. It tells no one: it returns an
 * outcome, and manager_apply_subject(), which gathered and planned, tells
 * the watchers, the bus and systemd-watch. */

#include <systemd/sd-bus.h>

#include "subject.h"
#include "unit-plan.h"

typedef struct SubjectPlan SubjectPlan;
typedef struct CgroupHandle CgroupHandle;
typedef struct SystemdLink SystemdLink;

typedef struct ApplyOutcome {
        bool forgotten;             /* no cgroup, or not running: it has nothing to watch */
        bool resolved;              /* its groups were resolved: watch its cgroup's attributes */
        uint64_t focus_deadline_usec; /* the next InactiveFor= deadline then (resolve.h) */
        GPtrArray *memberships_changed; /* Membership*: its groups, when they changed; or NULL */
        bool applied;               /* a whole pass: its processes follow its groups */
        UnitPlanRead read;          /* read from systemd first, then the pass again */
        char **read_names;          /* UNIT_PLAN_READ_VALUES: these properties */
        bool record_retry_set;      /* s->record_retry_at is what the retry timer waits for (0: none) */
        int record_error_before;    /* s->record_error when the pass began */
} ApplyOutcome;

void apply_outcome_clear(ApplyOutcome *o);

/* A pass, as manager_apply_subject() makes it: apply_pass_begin() starts
 * the outcome (and forgets the last pass's record failure); then, for a
 * subject that is not live (no cgroup, or not running),
 * apply_subject_gone() forgets its cgroup and, with undo (--revert: a
 * plan of no groups, gather_revert_plan()), undoes its unit's runtime
 * properties; for a live one, apply_subject() executes p
 * (gather_subject_plan(); its attributes_seen is taken). cgroup: written
 * through, opened through the watched parent (attr_watch_cgroup();
 * borrowed), or NULL: walked to from the root. link: the manager of s's
 * unit (manager_link_of()), or NULL. */
void apply_pass_begin(Subject *s, ApplyOutcome *o);
bool apply_subject_is_live(const Subject *s);
void apply_subject_gone(Subject *s, SystemdLink *link, SubjectPlan *undo, ApplyOutcome *o);
void apply_subject(Subject *s, SubjectPlan *p, CgroupHandle *cgroup, SystemdLink *link, ApplyOutcome *o);

/* systemd answered a SetUnitProperties call (error NULL: it took it): log
 * it, and settle the records. s is NULL when the subject went away. */
void apply_properties_answered(Subject *s, const char *unit, GPtrArray *changes, bool undo, const sd_bus_error *error);

/* For status: how many subjects wait for a record that could not be
 * written ahead (their changes not made), or that all were written. */
char *apply_describe_record_failures(Manager *m);
/* For explain: why the subject's changes are not made, or NULL. */
char *apply_describe_record_failure(const Subject *s);

/* The journal line for one write or undo of a plan (who: the unit or
 * cgroup, named in the text and in UNIT=); a change made (or that would
 * be) at change_level, LOG_NOTICE but for routine ones. */
void apply_log_action(const char *who, const Action *a, int change_level);
