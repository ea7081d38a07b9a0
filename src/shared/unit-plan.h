/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Pure: what to do with a unit's systemd properties.
 *
 * Where it sits in the flow (DESIGN §12): gather → resolve → cgroup plan
 * (cgroup-plan.h) → unit plan (here) → apply (policyd's apply.c, which
 * gathers the inputs below, calls unit_plan_build() and executes the
 * outcome in the order given: kernel-file syncs, sets, the records, the
 * stale generated restores). No I/O, no logging: the reasons are in the
 * plan, and the executor says them. */

#include <glib.h>
#include <stdbool.h>

#include "cgroup-plan.h"
#include "policy-group.h"
#include "resolve.h"

/* One systemd property policyd set on a unit, and what was there before. */
typedef struct PropertyRecord {
        char *property;  /* "MemorySwapMax" */
        char *previous;  /* as the unit reported it before the first write */
        char *written;
} PropertyRecord;

/* The record of property in records (PropertyRecord*), or NULL. */
PropertyRecord *property_record_find(const GPtrArray *records, const char *property);

typedef enum UnitPlanFlags {
        UNIT_PLAN_DRY_RUN = 1 << 0,
        /* The unit's properties are those policyd last read (a reload of
         * policyd), not systemd's of now. */
        UNIT_PLAN_PROPERTIES_STALE = 1 << 1,
        /* One of the unit's drop-ins is policyd-generator's. */
        UNIT_PLAN_GENERATED_DROPIN = 1 << 2,
} UnitPlanFlags;

typedef struct UnitPlanInput {
        const CgroupPlan *plan;
        GHashTable *properties;   /* property → value, systemd's as last read */
        const GPtrArray *records; /* PropertyRecord* */
        GHashTable *relied;       /* property → the group's value, which the generator's drop-in gives */
        /* property → GPtrArray of UnitPropertyAssignment* (unit_file_read_property()),
         * for the names a first build asked for (UNIT_PLAN_READ_ADMIN); a
         * name missing: its files could not be read. NULL: not read. */
        GHashTable *admin;
        UnitPlanFlags flags;
} UnitPlanInput;

typedef enum UnitPlanRead {
        UNIT_PLAN_READ_NOTHING,
        /* Stale, and a call to systemd may be needed: read read_names of
         * systemd first, then plan again. */
        UNIT_PLAN_READ_VALUES,
        /* Stale, with a generator drop-in involved: refresh the whole unit. */
        UNIT_PLAN_READ_UNIT,
        /* Read the administrator's files for read_names (UnitPlanInput.admin), then plan again. */
        UNIT_PLAN_READ_ADMIN,
} UnitPlanRead;

/* Bring a kernel file in line with systemd's value of property. */
typedef struct UnitPlanSync {
        char *property;
        char *value;
        bool relied; /* true: the group's value is relied on from now; false: no longer */
} UnitPlanSync;

/* Set property to value through systemd (would: dry run, only say so). */
typedef struct UnitPlanSet {
        char *property;
        char *value;
        char *current;  /* NULL: unset */
        char *previous; /* the value to record for undo (NULL when would) */
        bool previous_from_generated; /* current is the generator drop-in's; previous is the administrator's */
        bool would;
} UnitPlanSet;

typedef enum UnitPlanRecordVerdict {
        UNIT_PLAN_RECORD_RESTORE,            /* undo: restore previous */
        UNIT_PLAN_RECORD_WOULD_RESTORE,      /* dry run */
        UNIT_PLAN_RECORD_DROP_FROM_BEFORE,   /* still the value from before: nothing to undo */
        UNIT_PLAN_RECORD_DROP_CHANGED,       /* someone else changed it since: left alone */
        UNIT_PLAN_RECORD_DROP_NOTHING_TO_RESTORE, /* an empty previous that is no value */
        _UNIT_PLAN_RECORD_VERDICT_MAX,
} UnitPlanRecordVerdict;

const char *unit_plan_record_verdict_to_string(UnitPlanRecordVerdict v);

/* A record of a property the plan no longer sets, in the records' order. */
typedef struct UnitPlanRecordStep {
        char *property;
        UnitPlanRecordVerdict verdict;
        char *current;
        char *previous;
        char *written;
} UnitPlanRecordStep;

/* A group the unit no longer has reaches systemd through the generator's
 * drop-in: restore the administrator's value at runtime (would: dry run). */
typedef struct UnitPlanStaleRestore {
        char *property;
        char *current;
        char *admin;
        bool would;
} UnitPlanStaleRestore;

typedef struct UnitPlan {
        UnitPlanRead read;
        char **read_names;     /* for UNIT_PLAN_READ_VALUES and UNIT_PLAN_READ_ADMIN */
        GPtrArray *syncs;      /* UnitPlanSync*, in order */
        GPtrArray *sets;       /* UnitPlanSet* */
        GPtrArray *records;    /* UnitPlanRecordStep* */
        GPtrArray *stale_restores; /* UnitPlanStaleRestore* */
} UnitPlan;

UnitPlan *unit_plan_free(UnitPlan *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(UnitPlan, unit_plan_free)

/* Whether the cgroup plan sets property through systemd. */
bool unit_plan_sets_property(const CgroupPlan *plan, const char *property);

/* Whether a record's verdict drops it now. */
static inline bool unit_plan_record_verdict_drops(UnitPlanRecordVerdict v) {
        return v == UNIT_PLAN_RECORD_DROP_FROM_BEFORE || v == UNIT_PLAN_RECORD_DROP_CHANGED ||
               v == UNIT_PLAN_RECORD_DROP_NOTHING_TO_RESTORE;
}

/* Pure. When *ret's read is not UNIT_PLAN_READ_NOTHING, its lists are
 * empty: read what it says, then build again. */
int unit_plan_build(const UnitPlanInput *in, UnitPlan **ret);

/* How a resolution changes the unit's groups. before: the memberships
 * last applied (NULL: none yet). */
typedef enum UnitPlanChange {
        UNIT_PLAN_GROUPS_CHANGED = 1 << 0,
        /* A move between groups that select by focus, and only such groups
         * (not the first resolution, which is a join). */
        UNIT_PLAN_FOCUS_MOVE = 1 << 1,
} UnitPlanChange;

UnitPlanChange unit_plan_classify(const GPtrArray *before, const Resolution *r, const PolicySet *set);
