/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Faster or slower than the parent (swap-tier-tree.h): after the subjects'
 * passes, one pass over the tree. It gives each subject the tiers the
 * administrator's requests below it need (Subject.tiers_widen, which its
 * plan writes), and writes the file of every other child of a widened
 * cgroup, and of the cgroups on the way down to those requests, so that
 * each gets what the nearest request above it asked for. Those files are
 * policyd's own: recorded ahead in STATE_DIR/swap-tiers, written back to
 * max when no longer needed, while they still hold what policyd wrote. A
 * file someone else restricted is never written: that is reported.
 *
 * A child made later (a unit started in a widened slice) is seen with
 * inotify IN_CREATE on the widened cgroups and narrowed when the event is
 * read: until then it has its parent's wider set (policy.d(5) says how long
 * that was measured to be). Cgroups a user owns (below a delegation root)
 * are not written: the user owns their files. A delegation root is: its
 * knob files are root's, though its directory is the user's. */

#include <stdbool.h>

typedef struct Manager Manager;
typedef struct SwapTierPass SwapTierPass;

int swap_tier_pass_new(Manager *m, SwapTierPass **ret);
SwapTierPass *swap_tier_pass_free(SwapTierPass *t);

/* A subject's request, cgroup or the tiers changed: a pass when the loop
 * is idle (several changes are one pass). */
void swap_tier_pass_schedule(SwapTierPass *t);

/* For explain: what policyd wrote in cgroup's memory.swap.tiers.max
 * (*ret_written) and why, or why it did not (someone else's value:
 * *ret_written NULL); false when neither. */
bool swap_tier_pass_describe_cgroup(const SwapTierPass *t, const char *cgroup, char **ret_written, char **ret_why);
/* After a restart, until startup converged: the widening a subject's
 * cgroup had (the record's), which its plan keeps meanwhile; NULL after. */
char **swap_tier_pass_startup_widening(const SwapTierPass *t, const char *cgroup);
/* Every unit and cgroup is known again: from now on a pass undoes too. */
void swap_tier_pass_startup_converged(SwapTierPass *t);

/* For status: how many cgroups were narrowed, widened and left in conflict. */
char *swap_tier_pass_describe(const SwapTierPass *t);
