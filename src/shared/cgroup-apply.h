/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* desired state → xattrs and knob files under a given cgroupfs root.
 *
 * Two steps: cgroup_plan_build() is pure and decides, per knob, which backend
 * carries it on this system; cgroup_apply_plan() does the I/O: read, compare,
 * write only what differs, and record what it wrote so that it can undo
 * exactly that later. Values it did not write are never touched. */

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "resolve.h"

#define POLICY_GROUP_XATTR "user.policy.group"
#define POLICY_REQUEST_XATTR "user.policy.request"
/* Swap tiers that could not be enforced are still recorded, for other readers. */
#define POLICY_SWAP_TIERS_XATTR "user.policy.swap_tiers"
#define POLICY_XATTR_PREFIX "user.policy."

/* Special SwapTiers= names (DESIGN §6 fallbacks). */
#define SWAP_TIER_NONE "none"
#define SWAP_TIER_ZSWAP "zswap"

/* What the running kernel offers; gathered by system_facts_probe(). */
typedef struct SystemFacts {
        bool swap_tiers;       /* /sys/kernel/mm/swap/tiers exists (swap tiers v9) */
        char **tier_names;     /* tiers defined there, NULL-terminated */
        uint64_t swap_total;   /* bytes, from /proc/swaps; for percent limits */
        bool zswap_writeback;  /* memory.zswap.writeback exists (6.8+): probed as zswap built in
                                * (SYSFS/module/zswap) and PROC/sys/kernel/osrelease >= 6.8,
                                * since the file is not on the cgroup root */
} SystemFacts;

SystemFacts *system_facts_free(SystemFacts *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SystemFacts, system_facts_free)
/* The total of /proc/swaps in bytes, saturating; policyd-generator reads it
 * too, so that a percentage is of the same total. */
uint64_t swap_total_parse(const char *text);
/* sysfs_root: "/sys" normally; proc_root: "/proc". A test passes a fake tree. */
int system_facts_probe(const char *sysfs_root, const char *proc_root, SystemFacts **ret);

typedef enum Backend {
        BACKEND_XATTR,            /* setxattr on the cgroup directory */
        BACKEND_CGROUP_FILE,      /* write a memory.* file */
        BACKEND_SYSTEMD_PROPERTY, /* SetUnitProperties(runtime=true), done by policyd */
        BACKEND_EXEC_TIME,        /* generator drop-in or policyctl exec */
        BACKEND_NOT_ENFORCEABLE,  /* this kernel cannot do it; tagged and explained */
        _BACKEND_MAX,
} Backend;

const char *backend_to_string(Backend b);

typedef struct PlanItem {
        Backend backend;
        Knob knob;       /* -1 for the group tag and [Attributes] */
        char *target;    /* xattr name, cgroup file name, or systemd property name */
        char *value;     /* the string to write; NULL means remove (xattrs only) */
        char *reason;    /* why this backend, or why not enforceable; may be NULL */
} PlanItem;

typedef struct CgroupPlan {
        GPtrArray *items; /* PlanItem* */
} CgroupPlan;

typedef enum PlanFlags {
        /* The cgroup belongs to a systemd unit: knobs systemd has a property
         * for go to BACKEND_SYSTEMD_PROPERTY instead of files. */
        PLAN_SYSTEMD_MANAGED = 1 << 0,
} PlanFlags;

CgroupPlan *cgroup_plan_free(CgroupPlan *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CgroupPlan, cgroup_plan_free)
/* Pure. */
int cgroup_plan_build(const Resolution *r, const SystemFacts *facts, PlanFlags flags, CgroupPlan **ret);

/* One thing policyd wrote on one cgroup, and what was there before. */
typedef struct AppliedItem {
        Backend backend;   /* BACKEND_XATTR or BACKEND_CGROUP_FILE */
        char *target;
        bool had_previous; /* false: the xattr did not exist */
        char *previous;
        char *written;
} AppliedItem;

typedef struct CgroupRecord {
        char *cgroup;
        GPtrArray *items; /* AppliedItem* */
} CgroupRecord;

CgroupRecord *cgroup_record_new(const char *cgroup);
CgroupRecord *cgroup_record_free(CgroupRecord *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CgroupRecord, cgroup_record_free)
/* A line-based text form, for /run/policyd: "cgroup\tPATH", then one line per
 * item, "xattr|file\tTARGET\tHAD_PREVIOUS\tPREVIOUS\tWRITTEN", fields
 * g_strescape()d. parse rejects malformed input with -EBADMSG, including
 * targets that are not user.* xattrs or plain file names. */
char *cgroup_record_serialize(const CgroupRecord *r);
int cgroup_record_parse(const char *text, CgroupRecord **ret);

typedef enum ActionResult {
        ACTION_WROTE,
        ACTION_UNCHANGED,        /* already had the desired value: nothing written */
        ACTION_RESTORED,         /* undo put the previous value back */
        ACTION_REMOVED,          /* undo removed an xattr that had not existed */
        ACTION_LEFT_FOREIGN,     /* undo found a value someone else wrote, and left it */
        ACTION_NO_SPACE,         /* ENOSPC from the xattr limits */
        ACTION_VANISHED,         /* the cgroup is gone */
        ACTION_FAILED,
        ACTION_WOULD_WRITE,      /* dry run */
        ACTION_DEFERRED,         /* another backend carries it (systemd, exec time) */
        ACTION_NOT_ENFORCEABLE,
} ActionResult;

typedef struct Action {
        ActionResult result;
        Backend backend;
        char *target;
        char *old_value; /* may be NULL */
        char *new_value; /* may be NULL */
        int error;       /* negative errno for FAILED/NO_SPACE/VANISHED */
} Action;

typedef struct ApplyReport {
        GPtrArray *actions; /* Action* */
} ApplyReport;

ApplyReport *apply_report_new(void);
ApplyReport *apply_report_free(ApplyReport *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ApplyReport, apply_report_free)
const char *action_result_to_string(ActionResult r);

typedef enum ApplyFlags {
        APPLY_DRY_RUN = 1 << 0,
} ApplyFlags;

/* Applies plan to cgroupfs_root/cgroup. Items the record holds that the plan
 * no longer wants are undone. Returns 0, or -ENOENT when the cgroup
 * vanished (the caller logs at debug level), or the first other error
 * (-EOPNOTSUPP when a knob file is missing from a cgroup that is still
 * there: a controller not enabled, a knob this kernel lacks), or -ENOSPC
 * when the only trouble was the xattr limits; the report says what happened
 * to every item either way. record may be NULL (nothing is recorded); a
 * record of another cgroup is refused with -EINVAL. The path is walked
 * without following symlinks. */
int cgroup_apply_plan(const char *cgroupfs_root, const char *cgroup, const CgroupPlan *plan,
                      CgroupRecord *record, ApplyFlags flags, ApplyReport *report);

/* The kernel file systemd writes a unit property to, and the value in the
 * kernel's spelling: MemorySwapMax= → memory.swap.max ("infinity" → "max"),
 * MemoryZSwapMax= → memory.zswap.max, MemoryZSwapWriteback= →
 * memory.zswap.writeback (yes → 1). -EOPNOTSUPP for other properties,
 * -EINVAL for a value that is not one of policyd's forms. */
int systemd_property_kernel_file(const char *property, const char *value, const char **ret_file, char **ret_value);

/* Brings one knob file of cgroup in line with value: read, compare, write
 * only when it differs, record nothing. For what systemd already holds but
 * did not write: a daemon-reload changes unit properties without writing
 * them to the cgroups of running units (seen with systemd 257). */
int cgroup_sync_knob_file(const char *cgroupfs_root, const char *cgroup, const char *file, const char *value,
                          ApplyFlags flags, ApplyReport *report);

/* Called with the record after it learnt of a write and before the write
 * is made: it returns < 0 when it cannot keep the record (the write is then
 * not made, and the item fails with that error). */
typedef struct ApplyHooks {
        int (*before_write)(const CgroupRecord *record, void *userdata);
        void *userdata;
} ApplyHooks;

/* cgroup_apply_plan(), with the record kept ahead of every write (a
 * write-ahead record): a crash between the hook and the write leaves a
 * record whose "written" never reached the kernel, which undo recognises
 * by the previous value still being there. */
int cgroup_apply_plan_with_hooks(const char *cgroupfs_root, const char *cgroup, const CgroupPlan *plan,
                                 CgroupRecord *record, ApplyFlags flags, const ApplyHooks *hooks,
                                 ApplyReport *report);

/* Undoes everything in record: restores previous values where the current
 * value is still the one we wrote, leaves foreign values alone, and empties
 * the record. A vanished cgroup took our values with it: returns 0. An item
 * whose restore failed stays in the record, for a retry. */
int cgroup_undo(const char *cgroupfs_root, const char *cgroup, CgroupRecord *record, ApplyFlags flags,
                ApplyReport *report);

/* Rejects "." and "..", empty components, control characters and paths not
 * starting with "/". "/" itself is the root, and valid. */
int cgroup_path_validate(const char *cgroup);
