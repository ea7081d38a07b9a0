/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The I/O edge of resolution: everything resolve_candidate() needs to
 * know about a subject, read from its cgroup (owner, xattrs), its unit's
 * files, and the runtime assignments. */

#include "resolve.h"
#include "subject.h"

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

/* Gathers, then resolves: the subject's groups and desired state now, and
 * (ret_attributes_seen not NULL) what its cgroup's attributes said. */
int subject_resolve(Subject *s, Resolution **ret, char **ret_attributes_seen);
/* The same, with d empty or holding what gather_attributes() read (then not
 * read again); the caller clears d. */
int subject_resolve_gathered(Subject *s, CandidateData *d, Resolution **ret, char **ret_attributes_seen);
