/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What `policyctl explain` shows for a subject: for each item of its plan,
 * what was requested, by which group and line, and what the kernel has.
 * Pure: the caller reads the kernel through read(), so that the rules are
 * table-tested against a fake tree. */

#include <glib.h>
#include <stdbool.h>

#include "cgroup-plan.h"
#include "resolve.h"
#include "unit-plan.h"

/* The value of an xattr (BACKEND_XATTR) or a knob file (BACKEND_CGROUP_FILE)
 * of cgroup, stripped; NULL when it cannot be read or is absent. */
typedef char *(*ExplainReadFunc)(const char *cgroup, Backend backend, const char *target, void *userdata);

typedef struct ExplainRow {
        char *name;      /* "SwapMax (MemorySwapMax)", or the target alone */
        char *requested; /* as the policy file wrote it, with what a percentage came to */
        char *effective; /* what the kernel has, sizes as policy files write them */
        Backend backend;
        char *group;     /* the group whose value won */
        char *where;     /* "file:line" of that value, or "" */
        char *note;      /* why it differs (a parent's cap), or why this backend */
} ExplainRow;

/* One row per plan item, then one for stale exec-time settings when
 * exec_time_stale (a group the unit file names changed since systemd last
 * ran policyd-generator). */
GPtrArray *explain_rows(const Resolution *res, const CgroupPlan *plan, const char *cgroup, bool exec_time_stale,
                        ExplainReadFunc read, void *userdata);

/* The row of a memory.swap.tiers.max that holds written (policyd's value,
 * with why in reason): the effective tiers, computed from the ancestors'
 * files through read(), and which ancestor took each away. */
ExplainRow *explain_swap_tiers_row(const char *cgroup, const char *written, const char *reason, ExplainReadFunc read,
                                   void *userdata);

/* Appends note to the row's, after "; " when it has one. */
void explain_row_add_note(ExplainRow *row, const char *note);

/* What the unit plan (unit-plan.h) does beyond the cgroup plan's rows:
 * a note on each property systemd has already, whose kernel file policyd
 * keeps in line, and a row for each value it restores. up NULL: nothing. */
void explain_add_unit_plan(GPtrArray *rows, const UnitPlan *up);

/* The knob file that shows what item achieved, and the value the plan wants
 * there in the kernel's spelling; NULL when no file shows it. */
const char *explain_kernel_file(const PlanItem *item, char **ret_want);

/* The kernel caps a child by its ancestors whatever the child asks: a note
 * naming the tightest ancestor below requested, or NULL. */
char *explain_parent_cap_note(const char *cgroup, const char *file, const char *requested, ExplainReadFunc read,
                              void *userdata);

/* Byte counts as policy files write them ("64M"); anything else as it is. */
char *explain_human_value(const char *value);
