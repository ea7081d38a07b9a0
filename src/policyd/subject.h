/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A subject of policy: a unit with a cgroup, or a cgroup assigned by path.
 * (Not "target": that is a kind of systemd unit.) The manager's table owns
 * every subject; what systemd says of a unit reaches one only as a
 * UnitSnapshot, through subject_take_snapshot(). */

#include <glib.h>
#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "cgroup-apply.h"
#include "resolve.h"
#include "unit-plan.h"
#include "write-failure.h"

typedef struct Manager Manager;


/* What systemd said of a unit in one refresh, parsed from its replies. */
typedef struct UnitSnapshot {
        char *fragment;
        char **dropins;
        char *active_state;
        char *cgroup;
        char *slice;
        char *user;
        GHashTable *properties; /* systemd property → value as string */
} UnitSnapshot;

UnitSnapshot *unit_snapshot_new(void);
UnitSnapshot *unit_snapshot_free(UnitSnapshot *snap);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(UnitSnapshot, unit_snapshot_free)

typedef struct Subject {
        Manager *manager;
        char *key;           /* in the manager's table (subject_key()) */
        char *unit;          /* as its manager names it; NULL for a cgroup no unit owns */
        bool user_unit;      /* a unit of a user's systemd (user@UID.service), not PID 1's */
        uid_t manager_uid;   /* that user's uid */
        char *object_path;   /* systemd's object for the unit */
        char *cgroup;        /* below the cgroup root; NULL while the unit has none */
        char *cgroup_refused; /* a user unit's cgroup outside its manager's, as last logged */
        char *slice;
        char *user;
        char *fragment;
        char **dropins;
        char *active_state;
        GHashTable *unit_properties; /* systemd property → current value as string */
        bool properties_stale;       /* not read since policyd's reload: check before any call */

        /* The groups the unit's files name, read when its fragment or
         * drop-ins change, or at a reload of either side. */
        char **unit_groups;
        bool unit_groups_read;
        /* The administrator's values the unit plan asked for, from the
         * unit's files: property → GPtrArray* of UnitPropertyAssignment*
         * (unit_file_read_property()); a property whose files could not be
         * read is not kept. Kept, as unit_groups, until the files change (a
         * reload, another fragment or drop-in list); only apply reads them. */
        GHashTable *admin_values;

        /* Of the last resolution, kept without its knobs (explain resolves
         * again): NULL before the first, and while there is no cgroup. */
        GPtrArray *memberships;      /* Membership*, sorted by group */
        GPtrArray *notes;            /* ResolveNote* */
        CgroupRecord *record;        /* what policyd wrote on the cgroup */
        GPtrArray *property_records; /* PropertyRecord*, what policyd set through systemd */
        /* property → the group's value, which systemd held from the unit's
         * files (policyd-generator's drop-in) so that policyd set nothing.
         * When systemd's value moves on after a daemon-reload, its kernel
         * file follows (systemd does not write it for a running unit). */
        GHashTable *relied_properties;

        char *attributes_seen;       /* of the cgroup, at the last resolution (gather_attributes()) */
        /* The text of each record as last saved ("" for no file; NULL: not
         * known yet, or the save failed): an unchanged record is not
         * written again. */
        char *saved_record;
        bool record_in_intent;       /* its newest record is in the intent log only */
        char *saved_properties;
        char *no_space_logged;       /* the xattrs last reported as not fitting */
        /* A write-ahead record that could not be written (apply.c): the
         * change it was for was not made, and is tried again by a timer. */
        int record_error;            /* < 0: the last pass's record failed with it */
        bool record_failed_cgroup;   /* which records failed in that pass */
        bool record_failed_properties;
        unsigned record_retries;
        uint64_t record_retry_at;    /* CLOCK_MONOTONIC µs */
        sd_event_source *record_retry;
        /* WriteFailure*: each knob whose last write failed, until one
         * succeeds or nothing wants it (apply.c); for explain and status. */
        GPtrArray *write_failures;
        PlanFlags plan_flags;        /* of the last apply (gather_plan_flags()) */
        /* SwapTiers= at the last resolution, for the tier pass
         * (swap-tier-pass.h): whether its groups set it, the tiers that
         * allows on this kernel, and whether that came from its user (it
         * then widens no ancestor). tiers_widen: what the pass gave its
         * file beyond that, for the groups below; its plan writes it. */
        bool tiers_requested;
        char **tiers_allowed;
        bool tiers_from_user;
        char **tiers_widen;
        char *tiers_cgroup;          /* the cgroup they were noted for */
        bool needs_daemon_reload;    /* a group its unit file names changed since systemd last ran the generator */
        unsigned refresh_generation; /* drops replies of superseded refreshes */
        bool refresh_queued;
        char **refresh_values;       /* queued read of these properties alone (NULL: the whole unit) */
} Subject;

/* Creates a subject in the manager's table, adopting what an earlier run
 * recorded for it under the state directory. */
Subject *subject_new(Manager *m, const char *unit, const char *cgroup);
/* The same for a unit of a user's systemd, keyed "user@UID/UNIT". */
Subject *subject_new_user_unit(Manager *m, uid_t uid, const char *unit);
Subject *subject_free(Subject *s);
void subject_free_notify(void *p);

/* The key in the manager's table: the unit name, "user@UID/UNIT" for a
 * user's unit, or the cgroup path. */
const char *subject_key(const Subject *s);
/* For messages, D-Bus and policyctl: the same, which names the manager. */
const char *subject_name(const Subject *s);
/* Whose unit files a subject's are: its manager's user, 0 for PID 1's. */
uid_t subject_file_reader(const Subject *s);
/* The unit as policyd names it to others (D-Bus, policyctl): "user@UID/UNIT"
 * for a user's unit, which names its manager; NULL for a cgroup no unit owns. */
const char *subject_unit_id(const Subject *s);
/* Whether the unit is in a state that has a cgroup to apply to. */
bool subject_is_running(const Subject *s);

/* Moves what the snapshot holds into the subject. */
void subject_take_snapshot(Subject *s, UnitSnapshot *snap);
/* The unit's files must be read again (a reload of policyd or systemd). */
void subject_invalidate_unit_groups(Subject *s);

PropertyRecord *subject_find_property_record(Subject *s, const char *property);

/* Writes the subject's records under the state directory (not in dry run),
 * those that changed since the last save. */
void subject_save(Subject *s);
/* Saves the property records now (write-ahead of a SetUnitProperties
 * call): a negative errno when they could not be written. */
int subject_save_property_records(Subject *s);
/* Writes the subject's cgroup record if it changed since the last save:
 * to the intent log while that holds lines, else to its file. */
int subject_save_cgroup_record(Subject *s);
/* The same, ahead of the writes it describes: to the intent log, in one
 * write(). Its file follows at the log's checkpoint (subject.c), a moment
 * later. < 0: it is saved nowhere, and the writes must not be made. */
int subject_record_ahead(Subject *s);
/* The cgroup went away, and with it everything policyd wrote on it. */
void subject_forget_cgroup(Subject *s);
/* Keeps the memberships and notes of r (taking them), or forgets them (NULL). */
void subject_keep_resolution(Subject *s, Resolution *r);

/* One property for SetUnitProperties: the value to set, in the string forms
 * policyd compares ("infinity", bytes, yes/no, node lists), and for a set
 * the value to restore on undo. */
typedef struct PropertyChange {
        char *property;
        char *value;
        char *previous;
        /* Filled by the call: what the record held before it. */
        bool had_record;
        char *recorded_before;
        bool focus_move;        /* logged at debug level (unit_plan_classify()) */
} PropertyChange;

PropertyChange *property_change_free(PropertyChange *c);
GPtrArray *property_changes_new(void);
void property_changes_add(GPtrArray *changes, const char *property, const char *value, const char *previous);
