/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the running kernel offers for swap: read once per reload (and per
 * rescan), so that plans stay pure. */

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "diagnostics.h"

/* What the running kernel offers; gathered by system_facts_probe(). */
typedef struct SystemFacts {
        bool swap_tiers;       /* /sys/kernel/mm/swap/tiers exists (swap tiers v10) */
        char **tier_names;     /* tiers defined there, NULL-terminated */
        uint64_t swap_total;   /* bytes, from /proc/swaps; for percent limits */
        char *tiers_text;      /* the tiers file as read (NULL: none), to see a tier redefined */
        bool zswap_writeback;  /* memory.zswap.writeback exists (6.8+): probed as zswap built in
                                * (SYSFS/module/zswap) and PROC/sys/kernel/osrelease >= 6.8,
                                * since the file is not on the cgroup root */
} SystemFacts;

/* SwapTiers= keywords (policy.d(5)): no swap at all, and zswap only. Both
 * are legal kernel tier names too; in SwapTiers= the keywords win. */
#define SWAP_TIER_NONE "none"
#define SWAP_TIER_ZSWAP "zswap"
bool swap_tier_is_keyword(const char *name);

SystemFacts *system_facts_free(SystemFacts *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SystemFacts, system_facts_free)
/* The total of /proc/swaps in bytes, saturating; policyd-generator reads it
 * too, so that a percentage is of the same total. */
uint64_t swap_total_parse(const char *text);
/* sysfs_root: "/sys" normally; proc_root: "/proc". A test passes a fake tree. */
int system_facts_probe(const char *sysfs_root, const char *proc_root, SystemFacts **ret);
/* Whether two probes differ in what a plan may read of them: the swap
 * total, the tiers (as the kernel prints them: a tier redefined too), and
 * the knobs the kernel has. NULL equals only NULL. */
bool system_facts_equal(const SystemFacts *a, const SystemFacts *b);
/* A warning for each tier the kernel defines under a keyword's name, which
 * no SwapTiers= can allow; tiers_path names the file in it. */
void system_facts_diagnose(const SystemFacts *f, const char *tiers_path, Diagnostics *d);
