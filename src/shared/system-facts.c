/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>

#include "policy-values.h"
#include "system-facts.h"
#include "util.h"

bool swap_tier_is_keyword(const char *name) {
        return streq_ptr(name, SWAP_TIER_NONE) || streq_ptr(name, SWAP_TIER_ZSWAP);
}

void system_facts_diagnose(const SystemFacts *f, const char *tiers_path, Diagnostics *d) {
        for (char **t = f && f->swap_tiers ? f->tier_names : NULL; t && *t; t++)
                if (swap_tier_is_keyword(*t))
                        diagnostics_add(d, DIAGNOSTIC_WARNING, tiers_path, 0,
                                        "Swap tier '%s' has the name of a SwapTiers= keyword: no group can allow "
                                        "it, and groups with SwapTiers= deny it; rename the tier to use it",
                                        *t);
}

SystemFacts *system_facts_free(SystemFacts *f) {
        if (!f)
                return NULL;
        g_strfreev(f->tier_names);
        g_free(f->tiers_text);
        g_free(f);
        return NULL;
}

/* The first line of /sys/kernel/mm/swap/tiers, as swap tiers v10 prints it
 * (swap_tiers_sysfs_show(): "%-16s %-5s %-11s %-11s"). Known by all of its
 * columns, not by "Name" alone: a tier may be called Name, or name. */
static bool is_tiers_header(const char *line) {
        static const char *const columns[] = { "Name", "Idx", "PrioStart", "PrioEnd" };
        g_auto(GStrv) words = g_strsplit_set(line, " \t", -1);
        size_t n = 0;

        for (char **w = words; *w; w++) {
                if (**w == '\0')
                        continue;
                if (n >= ELEMENTSOF(columns) || !streq(*w, columns[n]))
                        return false;
                n++;
        }
        return n == ELEMENTSOF(columns);
}

/* Reading /sys/kernel/mm/swap/tiers gives that header and one line per
 * tier, "NAME IDX PRIOSTART PRIOEND", highest first (v10). Take the first
 * column of every line after the header; accept the "+name:prio" spelling
 * of writes too, in case a later revision echoes it back. */
static char **parse_tier_names(const char *text) {
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        bool first = true;

        for (char **l = lines; *l; l++) {
                g_auto(GStrv) cols = g_strsplit_set(g_strstrip(*l), " \t", 2);
                char *name = cols[0];

                if (isempty(name))
                        continue;
                if (first) {
                        first = false;
                        if (is_tiers_header(*l))
                                continue;
                }
                if (*name == '+')
                        name++;
                char *colon = strchr(name, ':');
                if (colon)
                        *colon = '\0';
                if (validate_tier_name(name, NULL) < 0)
                        continue;
                bool dup = false;
                for (guint i = 0; i < names->len; i++)
                        dup = dup || streq(g_ptr_array_index(names, i), name);
                if (!dup)
                        g_ptr_array_add(names, g_strdup(name));
        }
        g_ptr_array_add(names, NULL);
        return (char **) g_ptr_array_free(TAKE_PTR(names), FALSE);
}

/* /proc/swaps: "Filename Type Size Used Priority", Size in KiB. Paths with
 * blanks are escaped by the kernel (\040), so splitting on blanks is safe. */
uint64_t swap_total_parse(const char *text) {
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        uint64_t total = 0;

        for (char **l = lines; *l; l++) {
                g_auto(GStrv) cols = g_strsplit_set(g_strstrip(*l), " \t", -1);
                const char *fields[3] = {};
                guint64 kib;
                size_t n = 0;

                for (char **c = cols; *c && n < ELEMENTSOF(fields); c++)
                        if (**c)
                                fields[n++] = *c;
                if (n < 3 || !g_ascii_string_to_unsigned(fields[2], 10, 0, UINT64_MAX / 1024, &kib, NULL))
                        continue; /* the header, or garbage */
                total = total > UINT64_MAX - kib * 1024 ? UINT64_MAX : total + kib * 1024;
        }
        return total;
}

/* "6.12.38+deb13-amd64" → true when at least major.minor. */
static bool release_at_least(const char *release, unsigned major, unsigned minor) {
        unsigned a = 0, b = 0;

        if (sscanf(release, "%u.%u", &a, &b) != 2)
                return true; /* unknown: do not hide a knob on a guess */
        return a > major || (a == major && b >= minor);
}

static bool strv_equal_or_empty(char *const *a, char *const *b) {
        for (; a && *a; a++, b++)
                if (!b || !*b || !streq(*a, *b))
                        return false;
        return !b || !*b;
}

bool system_facts_equal(const SystemFacts *a, const SystemFacts *b) {
        if (!a || !b)
                return a == b;
        return a->swap_tiers == b->swap_tiers && a->swap_total == b->swap_total &&
               a->zswap_writeback == b->zswap_writeback && streq_ptr(a->tiers_text, b->tiers_text) &&
               strv_equal_or_empty(a->tier_names, b->tier_names);
}

int system_facts_probe(const char *sysfs_root, const char *proc_root, SystemFacts **ret) {
        g_autoptr(SystemFacts) f = g_new0(SystemFacts, 1);
        g_autofree char *tiers_path = g_build_filename(sysfs_root ?: "/sys", "kernel/mm/swap/tiers", NULL);
        g_autofree char *swaps_path = g_build_filename(proc_root ?: "/proc", "swaps", NULL);
        g_autofree char *zswap_path = g_build_filename(sysfs_root ?: "/sys", "module/zswap", NULL);
        g_autofree char *release_path = g_build_filename(proc_root ?: "/proc", "sys/kernel/osrelease", NULL);
        g_autofree char *text = NULL;

        if (!ret)
                return -EINVAL;

        f->swap_tiers = g_file_test(tiers_path, G_FILE_TEST_EXISTS);
        if (f->swap_tiers && g_file_get_contents(tiers_path, &text, NULL, NULL)) {
                f->tier_names = parse_tier_names(text);
                f->tiers_text = TAKE_PTR(text);
        } else
                f->tier_names = g_new0(char *, 1);
        g_clear_pointer(&text, g_free);

        if (g_file_get_contents(swaps_path, &text, NULL, NULL))
                f->swap_total = swap_total_parse(text);
        g_clear_pointer(&text, g_free);

        /* memory.zswap.writeback lives on non-root cgroups only, and probe
         * has no cgroup to look at. It exists when the kernel has zswap
         * (/sys/module/zswap: CONFIG_ZSWAP is built in, never a module) and
         * is 6.8 or newer. An unreadable release counts as new enough. */
        f->zswap_writeback = g_file_test(zswap_path, G_FILE_TEST_IS_DIR);
        if (f->zswap_writeback && g_file_get_contents(release_path, &text, NULL, NULL))
                f->zswap_writeback = release_at_least(g_strstrip(text), 6, 8);

        *ret = TAKE_PTR(f);
        return 0;
}
