/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Faster or slower than the parent, with swap tiers (DESIGN §6). The
 * kernel lets a cgroup use a tier only where its own memory.swap.tiers.max
 * and every ancestor's allow it: a child can only narrow. So that a
 * group's cgroup gets its tiers whatever its ancestors' groups asked,
 * policyd widens each ancestor with a request to what the administrator's
 * requests below it need, and narrows every other child of a widened
 * cgroup to what the nearest request above it asked for.
 *
 * Pure: the manager hands in every subject's request and the cgroups the
 * kernel lists; this says what each file must allow. A set of tiers is a
 * sorted, NULL-terminated strv; NULL in a request means none allowed. */

#include <glib.h>
#include <stdbool.h>

typedef struct TierRequest {
        const char *cgroup;  /* below the cgroup root: "/a.slice/b.service" */
        char **allowed;      /* the tiers its SwapTiers= allows (swap_tiers_allowed()) */
        /* A user's own request (self-assigned, or matched on a cgroup the
         * user owns): it is bounded by its ancestors, and widens none. */
        bool from_user;
} TierRequest;

typedef struct TierTree {
        GPtrArray *requests; /* TierRequest*, owned */
} TierTree;

TierTree *tier_tree_new(void);
TierTree *tier_tree_free(TierTree *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TierTree, tier_tree_free)
/* Copies cgroup and allowed. */
void tier_tree_add(TierTree *t, const char *cgroup, char *const *allowed, bool from_user);
const TierRequest *tier_tree_find(const TierTree *t, const char *cgroup);
/* The request of the nearest of cgroup and its ancestors that has one. */
const TierRequest *tier_tree_nearest(const TierTree *t, const char *cgroup);

/* What cgroup's file must allow for itself and below: the request of the
 * nearest of it and its ancestors that has one, with every administrator's
 * request strictly below it. *ret NULL (and false): no request at or above
 * it, so nothing to restrict. */
bool tier_tree_desired(const TierTree *t, const char *cgroup, char ***ret);

/* The tiers cgroup's own request does not name that requests below it need
 * (its file allows them too), or NULL when there are none or cgroup has no
 * request: then it is not widened. from_user requests widen nothing. */
char **tier_tree_widening(const TierTree *t, const char *cgroup);

/* Whether some administrator's request lies strictly below cgroup. */
bool tier_tree_has_admin_below(const TierTree *t, const char *cgroup);

/* For a cgroup without a request of its own, below a widened one: the
 * tiers to write in its file, or NULL when what it inherits from parent is
 * right already (its file must then allow everything). *ret_write says
 * which. */
void tier_tree_child_file(const TierTree *t, const char *parent, const char *cgroup, bool *ret_write, char ***ret);

/* Set helpers, on sorted NULL-terminated strvs (NULL: empty). */
char **tier_set_union(char *const *a, char *const *b);
bool tier_set_equal(char *const *a, char *const *b);
bool tier_set_contains(char *const *a, const char *tier);
/* a without b, or NULL when empty. */
char **tier_set_minus(char *const *a, char *const *b);

/* memory.swap.tiers.max content: "TIER max|0" per defined tier, one per
 * line, with max where allowed (keyword-named tiers are never allowed). */
char *tier_file_content(char *const *defined, char *const *allowed);
/* The tiers a file's content allows ("TIER max" lines; anything but 0 is
 * taken as allowed), sorted; NULL when it allows none. */
char **tier_file_allowed(const char *content);
/* Whether current (a file as read) still holds what ours (policyd's
 * content) says of each tier ours names; tiers only current lists must be
 * allowed (a tier made since comes in as max). */
bool tier_file_holds(const char *current, const char *ours);
/* Whether every tier current denies, ours denies too: current is ours,
 * or ours with tiers set back to max (the kernel does that to a tier made
 * again), and no one else restricted it further. */
bool tier_file_within(const char *current, const char *ours);
/* Whether content allows every tier it lists: a file no one restricted. */
bool tier_file_unrestricted(const char *content);
