/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Swap devices and swap tiers that change while policyd runs (issue 24):
 * a percentage of swap is of the total that /proc/swaps shows now, and
 * SwapTiers= names the tiers the kernel defines now. The kernel wakes a
 * poll of /proc/swaps (EPOLLPRI) at each swapon and swapoff, as systemd
 * itself uses it; /sys/kernel/mm/swap/tiers tells no one, so where it
 * exists it is read every SWAP_TIERS_POLL_SEC. A change goes to
 * manager_swap_changed() after a short pause, which probes again and
 * applies every subject again if what a plan reads differs. No wakeup on
 * a kernel without tiers while swap stays as it is. */

#include <stdbool.h>

typedef struct Manager Manager;
typedef struct SwapWatch SwapWatch;

#define SWAP_TIERS_POLL_SEC 10

int swap_watch_new(Manager *m, SwapWatch **ret);
SwapWatch *swap_watch_free(SwapWatch *w);

/* For status: "swap: ...". */
char *swap_watch_describe(SwapWatch *w);
