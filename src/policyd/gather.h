/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The I/O edge of resolution: everything resolve_candidate() needs to
 * know about a subject, read from its cgroup (owner, xattrs), its unit's
 * files, and the runtime assignments. */

#include "cgroup-plan.h"
#include "resolve.h"
#include "subject.h"
#include "unit-plan.h"

typedef struct CandidateData {
        Candidate c;        /* borrows from the fields below and from the subject */
        char **slices;
        GPtrArray *xattrs;
        GPtrArray *runtime;
        GPtrArray *excluded;
        char **self_requests;
        char *attributes_seen; /* owner, the xattrs read and the self-request, to compare */
} CandidateData;

/* Reads what d lacks: all of it, or what is not in the cgroup directory
 * when gather_attributes() filled d already (attributes_seen is set). */
void gather_candidate(Subject *s, CandidateData *d);
/* Only the part read from the cgroup directory: owner, xattrs and
 * self-request (attr-watch.c compares it with the last apply's), through
 * cgroup_fd, the directory opened already (borrowed), or -1: opened here. */
void gather_attributes(Subject *s, int cgroup_fd, CandidateData *d);
void candidate_data_clear(CandidateData *d);

/* How cgroup_plan_build() must treat the subject's cgroup: systemd's unit,
 * and whether it lacks the cpuset controller (read from its
 * cgroup.controllers; unreadable counts as having it). */
PlanFlags gather_plan_flags(Subject *s);

typedef enum GatherFlags {
        /* For Explain, which any local user may call: read no unit file the
         * unit plan asks for, use only what apply read (s->admin_values);
         * where that is not enough, the unit plan says what it would read
         * (UNIT_PLAN_READ_ADMIN). */
        GATHER_NO_FILE_READS = 1 << 0,
} GatherFlags;

/* What a pass over the subject would do, planned from what gather read:
 * the resolution, the cgroup plan (cgroup_error: it could not be made, and
 * cgroup is NULL) and, for a unit, the unit plan (unit_error likewise).
 * Whether the inputs are fresh enough is the unit plan's read: anything but
 * UNIT_PLAN_READ_NOTHING means systemd's values must be read first, and
 * the plan made again. apply.c executes it; Explain shows it. */
typedef struct SubjectPlan SubjectPlan;
struct SubjectPlan {
        Resolution *resolution;
        char *attributes_seen;  /* what the cgroup's attributes said (attr-watch.c compares) */
        PlanFlags flags;
        CgroupPlan *cgroup;
        int cgroup_error;
        UnitPlan *unit;
        int unit_error;
};

void subject_plan_clear(SubjectPlan *p);
/* Gathers what d lacks (d empty, or holding what gather_attributes() read,
 * then not read again; the caller clears it), resolves and plans. Fails
 * only when it cannot resolve. */
int gather_subject_plan(Subject *s, CandidateData *d, GatherFlags flags, SubjectPlan *ret);
/* --revert, for a unit that is not running: no groups, an empty cgroup plan,
 * and the unit plan that undoes its runtime properties. */
int gather_revert_plan(Subject *s, SubjectPlan *ret);
/* The unit plan of s's unit against plan, with the administrator's values
 * read from the unit's files when the plan asks for them (UNIT_PLAN_READ_ADMIN). */
int gather_unit_plan(Subject *s, const CgroupPlan *plan, GatherFlags flags, UnitPlan **ret);
