/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Any bytes, as four texts separated by NUL bytes: policyd.conf (its
 * [SwapTiers]), the kernel's tiers file, /proc/swaps, and a cgroup's
 * memory.swap.tiers.max (which a user owns below a delegation root, and
 * policyd and explain read). Nothing may crash, leak or read past the
 * input, and the file comparisons must agree with each other: a file
 * holds its own content, and what policyd would write from what a file
 * allows allows no more than that. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "fuzz.h"
#include "policy-load.h"
#include "swap-tier-tree.h"
#include "swap-tiers-conf.h"

#define check(cond)                                                              \
        do {                                                                     \
                if (!(cond)) {                                                   \
                        fprintf(stderr, "fuzz-swap-tiers: breaks %s\n", #cond); \
                        abort();                                                 \
                }                                                                \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const char *parts[4] = { "", "", "", "" };
        g_autofree char *copy = g_malloc(size + 1);
        size_t n = 0;

        memcpy(copy, data, size);
        copy[size] = '\0';
        parts[n++] = copy;
        for (size_t i = 0; i < size && n < G_N_ELEMENTS(parts); i++)
                if (copy[i] == '\0')
                        parts[n++] = copy + i + 1;

        /* policyd.conf, then its tiers against the kernel's. */
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autoptr(ConfFile) f = conf_parse_data("fuzz.conf", parts[0], strlen(parts[0]), diags);
        DaemonConfig c;
        daemon_config_init(&c);
        daemon_config_load_file(&c, f, diags);
        daemon_config_check(&c, diags);

        g_autoptr(GPtrArray) kernel = NULL;
        g_autoptr(GPtrArray) devices = swap_devices_parse(parts[2]);
        if (swap_tiers_parse_kernel(parts[1], &kernel) >= 0 && c.swap_tiers_valid) {
                g_autoptr(SwapTiersPlan) plan = NULL;
                (void) swap_tiers_plan(c.swap_tiers, kernel, devices, &plan);
        }
        daemon_config_done(&c);

        /* A cgroup's file: what it allows, compared with itself and with
         * the content policyd would write from it. */
        const char *file = parts[3];
        g_auto(GStrv) allowed = tier_file_allowed(file);
        check(tier_file_holds(file, file));
        check(tier_file_within(file, file));
        if (tier_file_unrestricted(file)) {
                g_auto(GStrv) again = tier_file_allowed(file);
                check(tier_set_equal(allowed, again));
        }
        g_auto(GStrv) names = g_strsplit_set(file, " \n\t", -1);
        g_autofree char *content = tier_file_content(names, allowed);
        g_auto(GStrv) back = tier_file_allowed(content);
        for (char **t = back; t && *t; t++)
                check(tier_set_contains(allowed, *t));
        return 0;
}
