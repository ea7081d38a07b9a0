/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Pure: which backend carries each resolved knob on this system, and the
 * value in that backend's spelling (cgroup_plan_build()). */

#include <glib.h>
#include <stdbool.h>

#include "resolve.h"
#include "system-facts.h"

#define POLICY_GROUP_XATTR "user.policy.group"
#define POLICY_REQUEST_XATTR "user.policy.request"
/* Swap tiers that could not be enforced are still recorded, for other readers. */
#define POLICY_SWAP_TIERS_XATTR "user.policy.swap_tiers"
#define POLICY_XATTR_PREFIX "user.policy."

#define SWAP_TIERS_FILE "memory.swap.tiers.max"

typedef enum Backend {
        BACKEND_XATTR,            /* setxattr on the cgroup directory */
        BACKEND_CGROUP_FILE,      /* write a memory.* file */
        BACKEND_SYSTEMD_PROPERTY, /* SetUnitProperties(runtime=true), done by policyd */
        BACKEND_EXEC_TIME,        /* generator drop-in or policyctl exec */
        BACKEND_NOT_ENFORCEABLE,  /* this kernel cannot do it; tagged and explained */
        BACKEND_MIGRATE_PAGES,    /* NUMANodes= without cpuset: migrate_pages per process, by the injector */
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
        /* The cgroup has no cpuset controller (its parent does not enable
         * it in cgroup.subtree_control): cpuset.mems cannot be written, and
         * NUMANodes= moves its processes' pages with migrate_pages instead.
         * Not for systemd's units, whose manager enables the controller
         * for AllowedMemoryNodes=. */
        PLAN_NO_CPUSET = 1 << 1,
        /* The unit's manager is a user's (user@UID.service): it can enable
         * only the controllers delegated to it (cpu, memory and pids on
         * Debian 13), so PLAN_NO_CPUSET holds for it too. */
        PLAN_USER_MANAGER = 1 << 2,
        /* The root cgroup ("/", systemd's -.slice): the kernel makes
         * memory.swap.*, memory.zswap.* and cpuset.mems on other cgroups
         * only (CFTYPE_NOT_ON_ROOT), and systemd writes no limit there. */
        PLAN_ROOT_CGROUP = 1 << 3,
} PlanFlags;

/* Whether NUMANodes= reaches a cgroup of these flags only through
 * migrate_pages, process by process. */
bool cgroup_plan_numa_by_migration(PlanFlags flags);

CgroupPlan *cgroup_plan_new(void);
CgroupPlan *cgroup_plan_free(CgroupPlan *p);
/* Adds an item; takes value. knob is -1 for the group tag and [Attributes]. */
void cgroup_plan_add(CgroupPlan *p, Backend b, int knob, const char *target, char *value, const char *reason);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CgroupPlan, cgroup_plan_free)
/* Pure. */
int cgroup_plan_build(const Resolution *r, const SystemFacts *facts, PlanFlags flags, CgroupPlan **ret);
/* The same, with the tiers the cgroup's memory.swap.tiers.max allows beyond
 * its own SwapTiers= because the groups of cgroups below it need them
 * (swap-tier-tree.h: widening); NULL for none. */
int cgroup_plan_build_widened(const Resolution *r, const SystemFacts *facts, PlanFlags flags, char *const *widen,
                              CgroupPlan **ret);

/* The swap tiers a SwapTiers= value lets a cgroup use on this kernel, sorted
 * (none: NULL; zswap only: every tier not named like a keyword), or NULL
 * and false where the kernel has no tiers defined. */
bool swap_tiers_allowed(char *const *tiers, const SystemFacts *facts, char ***ret);

/* The kernel file systemd writes a unit property to, and the value in the
 * kernel's spelling: MemorySwapMax= → memory.swap.max ("infinity" → "max"),
 * MemoryZSwapMax= → memory.zswap.max, MemoryZSwapWriteback= →
 * memory.zswap.writeback (yes → 1). -EOPNOTSUPP for other properties,
 * -EINVAL for a value that is not one of policyd's forms. */
int systemd_property_kernel_file(const char *property, const char *value, const char **ret_file, char **ret_value);
/* The kernel file systemd writes property to, or NULL. */
const char *systemd_property_file(const char *property);
