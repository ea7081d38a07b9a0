/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* policyctl swap-tiers [plan|apply]: argv[0] is "swap-tiers"; root is
 * --root (NULL for /). Returns an exit status. */
int verb_swap_tiers(int argc, char **argv, const char *root);
