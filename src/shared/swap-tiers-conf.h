/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Declared swap tiers ([SwapTiers] in policyd.conf) and the one write to
 * /sys/kernel/mm/swap/tiers that brings the kernel's tiers to them. Pure:
 * the caller reads the tiers file and /proc/swaps and does the write. */

#include <glib.h>
#include <stdbool.h>

#include "diagnostics.h"

/* The kernel's range for a tier's start priority (swap tiers v10: a s16,
 * at least DEF_SWAP_PRIO). */
#define SWAP_TIER_PRIO_MIN (-1)
#define SWAP_TIER_PRIO_MAX 32767

typedef struct SwapTier {
        char *name;
        int prio;     /* the tier's start (lowest) priority */
        char *file;   /* where it was declared; NULL for the kernel's */
        unsigned line;
} SwapTier;

SwapTier *swap_tier_new(const char *name, int prio, const char *file, unsigned line);
SwapTier *swap_tier_free(SwapTier *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SwapTier, swap_tier_free)

/* "NAME:PRIO", as the kernel takes "+NAME:PRIO". NAME is a valid tier name
 * that is not a SwapTiers= keyword (none, zswap). */
int swap_tier_parse(const char *value, char **ret_name, int *ret_prio, const char **ret_why);

/* Checks the declared list as a whole, the way the kernel would take it:
 * names and start priorities unique, and the lowest at -1. Each problem is
 * an error naming the file and line. Returns true when the list can be
 * applied. An empty list is valid (nothing is declared). */
bool swap_tiers_check(GPtrArray *declared, Diagnostics *diags);

/* The tiers file as v10 prints it: a "Name Idx PrioStart PrioEnd" header,
 * then "NAME IDX START END" per tier. Returns SwapTier* (file NULL), or
 * -EBADMSG for a line that is not one. */
int swap_tiers_parse_kernel(const char *text, GPtrArray **ret);

/* An active swap device, from /proc/swaps. */
typedef struct SwapDevice {
        char *path;
        int prio;
} SwapDevice;

SwapDevice *swap_device_free(SwapDevice *d);
/* /proc/swaps → SwapDevice*; the header and unreadable lines are skipped. */
GPtrArray *swap_devices_parse(const char *text);

typedef struct SwapTiersPlan {
        char *write;       /* the one write ("-a +a:5 +b:-1"), NULL when nothing is to be done */
        GPtrArray *notes;  /* char*: one line per tier, what happens to it and why */
        char *refusal;     /* non-NULL: the kernel would refuse the write (or it would do
                            * other than declared); nothing must be written */
} SwapTiersPlan;

SwapTiersPlan *swap_tiers_plan_free(SwapTiersPlan *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SwapTiersPlan, swap_tiers_plan_free)

/* From the declared tiers (checked), the kernel's and the active swap
 * devices: define a declared tier that is missing; remove and define again
 * one declared with another start priority; leave alone the tiers not
 * declared. The write is then run through a model of the kernel (v10's
 * swap_tiers_add/remove: all or none, a removed lowest tier moves the one
 * above down to -1, a start in use is EBUSY, a device would change tier is
 * EBUSY), and refused when the kernel would refuse it or end elsewhere
 * than declared. */
int swap_tiers_plan(GPtrArray *declared, GPtrArray *kernel, GPtrArray *devices, SwapTiersPlan **ret);
