/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* policyctl swap-tiers [apply]: the swap tiers of policyd.conf's
 * [SwapTiers], brought to the kernel in one write. Works without policyd:
 * policyd-swap-tiers.service runs it at boot, before swap goes on. The
 * decision is swap_tiers_plan() (pure); here are only the reads and the
 * write. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <glib.h>

#include "diagnostics.h"
#include "policy-load.h"
#include "policyctl-online.h"
#include "policyctl-swap-tiers.h"
#include "swap-tiers-conf.h"
#include "util.h"

static void print_diagnostics_stderr(const Diagnostics *d) {
        for (guint i = 0; i < d->items->len; i++) {
                g_autofree char *line = diagnostic_format(g_ptr_array_index(d->items, i));
                fprintf(stderr, "%s\n", line);
        }
}

/* The kernel's tiers and the active swap devices, under root. */
static int read_kernel(const char *tiers_path, const char *swaps_path, GPtrArray **ret_tiers,
                       GPtrArray **ret_devices) {
        g_autofree char *text = NULL, *swaps = NULL;
        g_autoptr(GError) error = NULL;
        int r;

        if (!g_file_get_contents(tiers_path, &text, NULL, &error)) {
                fprintf(stderr, "Cannot read %s: %s\n", tiers_path, error->message);
                return -EIO;
        }
        r = swap_tiers_parse_kernel(text, ret_tiers);
        if (r < 0) {
                fprintf(stderr, "Cannot parse %s (not as swap tiers v10 prints it):\n%s", tiers_path, text);
                return r;
        }
        /* Without /proc/swaps the kernel still refuses what would move a
         * device; the plan then cannot say so beforehand. */
        (void) g_file_get_contents(swaps_path, &swaps, NULL, NULL);
        *ret_devices = swap_devices_parse(swaps);
        return 0;
}

static const char *write_error_reason(int e) {
        switch (e) {
        case EBUSY:
                return "a tier would take or lose an active swap device, or a start priority is in use. Tiers "
                       "are defined before swapon: turn the devices in the way off (swapoff), apply, and turn them "
                       "on again, or let policyd-swap-tiers.service apply them at boot";
        case ENOSPC:
                return "the kernel holds no more tiers (CONFIG_NR_SWAP_TIERS)";
        case EEXIST:
                return "a tier of that name exists already";
        case EINVAL:
                return "the kernel refused the write as a whole (a name, a priority, or a lowest tier not at -1)";
        default:
                return g_strerror(e);
        }
}

int verb_swap_tiers(int argc, char **argv, const char *root) {
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autoptr(GPtrArray) kernel = NULL, devices = NULL;
        g_autoptr(SwapTiersPlan) plan = NULL;
        g_autofree char *tiers_path = g_build_filename(root ?: "/", "sys/kernel/mm/swap/tiers", NULL);
        g_autofree char *swaps_path = g_build_filename(root ?: "/", "proc/swaps", NULL);
        DaemonConfig config;
        bool apply;
        int r, rc = EXIT_OK;

        if (argc > 2 || (argc == 2 && !streq(argv[1], "apply") && !streq(argv[1], "plan"))) {
                fprintf(stderr, "Usage: policyctl swap-tiers [plan|apply]\n");
                return EXIT_USAGE;
        }
        apply = argc == 2 && streq(argv[1], "apply");

        daemon_config_init(&config);
        (void) daemon_config_load(root, &config, diags);
        diagnostics_sort(diags);
        print_diagnostics_stderr(diags);

        if (config.swap_tiers->len == 0) {
                printf("No swap tiers declared ([SwapTiers] Tier= in policyd.conf): nothing to do.\n");
                goto done;
        }
        if (!config.swap_tiers_valid) {
                fprintf(stderr, "The declared swap tiers cannot be applied as they stand (see above); nothing "
                                "written.\n");
                rc = EXIT_ERRORS;
                goto done;
        }
        if (access(tiers_path, F_OK) < 0) {
                printf("This kernel has no swap tiers (no %s): the %u declared tiers have no effect here.\n",
                       tiers_path, config.swap_tiers->len);
                goto done;
        }
        if (read_kernel(tiers_path, swaps_path, &kernel, &devices) < 0) {
                rc = EXIT_ERRORS;
                goto done;
        }
        r = swap_tiers_plan(config.swap_tiers, kernel, devices, &plan);
        if (r < 0) {
                fprintf(stderr, "Cannot plan the swap tiers: %s\n", g_strerror(-r));
                rc = EXIT_ERRORS;
                goto done;
        }

        printf("Swap tiers, declared and in the kernel (%s):\n", tiers_path);
        for (guint i = 0; i < plan->notes->len; i++)
                printf("  %s\n", (const char *) g_ptr_array_index(plan->notes, i));
        if (plan->refusal) {
                fprintf(stderr, "Not applied, nothing written: %s.\n", plan->refusal);
                rc = EXIT_ERRORS;
                goto done;
        }
        if (!plan->write) {
                printf("The kernel's tiers are as declared: nothing to write.\n");
                goto done;
        }
        if (!apply) {
                printf("Would write '%s' to %s ('policyctl swap-tiers apply' does).\n", plan->write, tiers_path);
                goto done;
        }

        {
                /* One write(): the kernel takes it all or none. */
                _cleanup_close_ int fd = open(tiers_path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
                size_t n = strlen(plan->write);
                ssize_t w;

                if (fd < 0) {
                        fprintf(stderr, "Cannot open %s: %s; nothing written.\n", tiers_path, g_strerror(errno));
                        rc = EXIT_ERRORS;
                        goto done;
                }
                w = write(fd, plan->write, n);
                if (w < 0 || (size_t) w != n) {
                        int e = w < 0 ? errno : EIO;
                        fprintf(stderr, "Writing '%s' to %s failed (%s): %s. The kernel changed nothing.\n",
                                plan->write, tiers_path, g_strerror(e), write_error_reason(e));
                        rc = EXIT_ERRORS;
                        goto done;
                }
        }
        printf("Wrote '%s' to %s.\n", plan->write, tiers_path);

        /* What the kernel holds now, read back. */
        if (!root) {
                g_autoptr(GPtrArray) after = NULL, after_devices = NULL;
                g_autoptr(SwapTiersPlan) again = NULL;
                if (read_kernel(tiers_path, swaps_path, &after, &after_devices) < 0 ||
                    swap_tiers_plan(config.swap_tiers, after, after_devices, &again) < 0) {
                        rc = EXIT_ERRORS;
                        goto done;
                }
                if (again->write || again->refusal) {
                        fprintf(stderr, "The kernel's tiers are still not as declared after the write (it would "
                                        "take '%s').\n",
                                strempty(again->write));
                        rc = EXIT_ERRORS;
                }
        }
done:
        daemon_config_done(&config);
        return rc;
}
