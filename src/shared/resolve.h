/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* candidates × groups → desired state, with provenance. Pure: no I/O, no
 * clock, no NSS. The caller gathers everything a candidate is matched on. */

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "policy-group.h"

/* Sources of membership, strongest first (DESIGN §5). */
typedef enum MembershipSource {
        MEMBERSHIP_RUNTIME,      /* policyctl assign */
        MEMBERSHIP_UNIT_FILE,    /* PolicyGroup= / X-PolicyGroup= */
        MEMBERSHIP_SELF_REQUEST, /* user.policy.request on a delegated cgroup */
        MEMBERSHIP_MATCH,        /* [Match] rules */
        _MEMBERSHIP_SOURCE_MAX,
} MembershipSource;

typedef struct Candidate {
        const char *unit;         /* NULL for a cgroup no unit owns */
        const char *const *slices; /* the unit's slice, then each ancestor slice; NULL-terminated or NULL */
        const char *cgroup;       /* path below the cgroup root, starting with "/" */
        bool owner_known;
        uint32_t owner_uid;       /* owner of the cgroup directory */
        const char *owner_name;   /* its user name, when the caller could look it up */
        const char *user;         /* the unit's User=, NULL when unset; of a user's unit, its manager's user */
        bool user_manager;        /* a unit of a user's manager (user@UID.service), not PID 1's */
        uint32_t manager_uid;     /* that manager's uid */
        const char *const *xattrs; /* "name=value" of the cgroup's user.* xattrs */
        /* The xattrs are on a cgroup root does not own: its owner's input,
         * which may select only groups with AllowSelfAssign=yes. */
        bool xattrs_untrusted;
        uint64_t now_usec;        /* CLOCK_MONOTONIC, for InactiveFor= */
        const char *const *unit_groups;      /* from the unit file and drop-ins */
        const char *const *runtime_groups;   /* assigned at runtime */
        const char *const *runtime_excluded; /* unassigned at runtime: beats every other source */
        const char *const *self_requests;    /* groups named in user.policy.request */
        bool self_request_trusted; /* the caller checked delegation and ownership */
} Candidate;

typedef struct Membership {
        char *group;
        MembershipSource source; /* the strongest source that named it */
} Membership;

typedef struct ResolvedKnob {
        bool set;
        KnobValue value;
        char *group;          /* the group whose value won */
        Provenance source;    /* file:line of the winning assignment */
        GPtrArray *overridden; /* char* names of groups that set it too, and lost */
} ResolvedKnob;

typedef struct ResolvedAttribute {
        char *name;
        char *value;
        char *group;
        Provenance source;
} ResolvedAttribute;

typedef enum ResolveNoteKind {
        RESOLVE_NOTE_UNKNOWN_GROUP,   /* a source named a group that is not loaded */
        RESOLVE_NOTE_MASKED_GROUP,    /* …or one that is masked */
        RESOLVE_NOTE_SELF_REQUEST_REFUSED,
        /* A user's input (their self-request, their xattrs or focus) named
         * the group at a delegation root: candidate_is_delegation_root(). */
        RESOLVE_NOTE_DELEGATION_ROOT,
} ResolveNoteKind;

typedef struct ResolveNote {
        ResolveNoteKind kind;
        MembershipSource source;
        char *group;
} ResolveNote;

typedef struct Resolution {
        GPtrArray *memberships;        /* Membership*, sorted by group name */
        ResolvedKnob knobs[_KNOB_MAX];
        GPtrArray *attributes;         /* ResolvedAttribute*, sorted by name */
        GPtrArray *notes;              /* ResolveNote* */
        /* CLOCK_MONOTONIC µs at which an InactiveFor= of some group starts
         * to hold for this candidate, for a timer; FOCUS_UNSET: none waits. */
        uint64_t focus_deadline_usec;
} Resolution;

Resolution *resolution_free(Resolution *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Resolution, resolution_free)

/* Always succeeds for valid input; returns -EINVAL for a candidate without a cgroup. */
int resolve_candidate(const PolicySet *set, const Candidate *c, Resolution **ret);

/* Does the group's [Match] select this candidate at cgroup level? A group
 * with no cgroup-level match key matches nothing. Executable= is process
 * level and does not take part. */
bool policy_group_matches(const PolicyGroup *g, const Candidate *c);

/* Whether the group selects c on what PID 1 and the kernel say of it
 * alone: its unit, slices, cgroup path and owner, not the owner's xattrs
 * or focus. */
bool policy_group_matches_on_facts(const PolicyGroup *g, const Candidate *c);

/* Whether c is the own cgroup of a unit of PID 1 (not of a user's
 * manager) that is not root's: systemd chowns a delegated unit's cgroup
 * (user@UID.service's, a Delegate=yes service's with User=) to the user,
 * but its limits are the unit's properties, set by the administrator, and
 * its knob files the administrator's too. An owner not known counts as a
 * user's. */
bool candidate_is_delegation_root(const Candidate *c);

/* Whether a membership of g from source on c is a user's input at a
 * delegation root, and so refused: a self-request there, or a [Match]
 * that selects c only through the owner's xattrs or focus. Runtime
 * assignments (a user's never apply to a system unit: self-assign.h) and
 * unit files are root's. The membership is refused whole, as Assign of
 * the same cgroup is (DELEGATION_ROOT): no knob, no tag, no attribute, no
 * process knob; the user's own cgroups start strictly below. */
bool delegation_root_refuses(const PolicyGroup *g, MembershipSource source, const Candidate *c);

/* Whether some group reads a cgroup's attributes: [Match] XAttr=, or
 * AllowSelfAssign=yes (the user.policy.request attribute). Only then do
 * their changes matter. */
bool policy_set_reads_attributes(const PolicySet *set);
/* Whether the group selects by focus: Focused= or InactiveFor=. */
bool policy_group_reads_focus(const PolicyGroup *g);
/* The names of the attributes some group reads: those its [Match] XAttr=
 * names, and FOCUS_XATTR for Focused= or InactiveFor=; sorted, once each.
 * A cgroup's are read by name, not listed first. */
char **policy_set_xattr_names(const PolicySet *set);

/* Where several member groups set one thing: the highest Priority wins, a
 * tie goes to the name last in lexical order. holder NULL: nothing yet. */
bool policy_group_beats(const PolicyGroup *challenger, const PolicyGroup *holder);

/* The user.policy.group value: member names, comma-separated, sorted. "" for none. */
char *resolution_group_tag(const Resolution *r);
/* The same, of a list of Membership* kept without its resolution. */
char *membership_list_tag(const GPtrArray *memberships);
bool membership_list_has(const GPtrArray *memberships, const char *group);
bool resolution_has_group(const Resolution *r, const char *group);

const char *membership_source_to_string(MembershipSource s);
