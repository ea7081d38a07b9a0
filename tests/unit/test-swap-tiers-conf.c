/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* [SwapTiers] in policyd.conf (swap-tiers-conf.c): Tier= values, the
 * declared list as a whole, and the one write that brings the kernel's
 * tiers to it, with what a swap tiers v10 kernel would make of that write. */
#include <glib.h>

#include "swap-tiers-conf.h"
#include "util.h"

static void tier_free(gpointer p) {
        swap_tier_free(p);
}

static void device_free(gpointer p) {
        swap_device_free(p);
}

#define HEADER "Name             Idx   PrioStart   PrioEnd\n"

static void test_parse_value(void) {
        static const struct {
                const char *value;
                const char *name; /* NULL: refused */
                int prio;
        } cases[] = {
                { "fast:100", "fast", 100 },
                { "slow:-1", "slow", -1 },
                { "A_9:32767", "A_9", 32767 },
                { "abcdefghijklmno:5", "abcdefghijklmno", 5 },  /* 15 characters: the kernel's most */
                { "abcdefghijklmnop:5", NULL, 0 },              /* 16 */
                { "fast:-2", NULL, 0 },                         /* below DEF_SWAP_PRIO */
                { "fast:32768", NULL, 0 },                      /* past a s16 */
                { "fast:+5", NULL, 0 },
                { "fast: 5", NULL, 0 },
                { "fast:5x", NULL, 0 },
                { "fast:", NULL, 0 },
                { "fast", NULL, 0 },
                { ":5", NULL, 0 },
                { "a-b:5", NULL, 0 },
                { "none:5", NULL, 0 },   /* keywords of SwapTiers= */
                { "zswap:5", NULL, 0 },
                { "None:5", "None", 5 }, /* keywords are case-sensitive, as the kernel's names */
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                g_autofree char *name = NULL;
                const char *why = NULL;
                int prio = 12345;
                int r = swap_tier_parse(cases[i].value, &name, &prio, &why);
                if (cases[i].name) {
                        g_assert_cmpint(r, ==, 0);
                        g_assert_cmpstr(name, ==, cases[i].name);
                        g_assert_cmpint(prio, ==, cases[i].prio);
                } else {
                        if (r >= 0)
                                g_error("'%s' was accepted as %s:%d", cases[i].value, name, prio);
                        g_assert_nonnull(why);
                        g_assert_null(name);
                        g_assert_cmpint(prio, ==, 12345);
                }
        }
}

/* "name:prio name:prio …" → SwapTier* declared in f.conf, line = position. */
static GPtrArray *tiers(const char *spec) {
        GPtrArray *a = g_ptr_array_new_with_free_func(tier_free);
        g_auto(GStrv) words = g_strsplit(spec, " ", -1);
        unsigned line = 1;

        for (char **w = words; *w; w++) {
                g_autofree char *name = NULL;
                int prio;
                if (!**w)
                        continue;
                g_assert_cmpint(swap_tier_parse(*w, &name, &prio, NULL), ==, 0);
                g_ptr_array_add(a, swap_tier_new(name, prio, "f.conf", line++));
        }
        return a;
}

static void test_check(void) {
        static const struct {
                const char *declared;
                bool ok;
                const char *message; /* a part of the one error, when not ok */
        } cases[] = {
                { "", true, NULL },
                { "fast:100 slow:-1", true, NULL },
                { "slow:-1 fast:100", true, NULL },
                { "only:-1", true, NULL },
                { "fast:100 slow:0", false, "f.conf:2 lowest" },
                { "fast:100 slow:-1 fast:50", false, "f.conf:3 declared twice" },
                { "fast:100 slow:-1 mid:100", false, "f.conf:3 both start at priority 100" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                g_autoptr(GPtrArray) d = tiers(cases[i].declared);
                g_autoptr(Diagnostics) diags = diagnostics_new();
                bool ok = swap_tiers_check(d, diags);

                if (ok != cases[i].ok)
                        g_error("'%s': check said %s", cases[i].declared, ok ? "ok" : "refused");
                if (ok) {
                        g_assert_cmpuint(diags->items->len, ==, 0);
                        continue;
                }
                g_assert_cmpuint(diags->items->len, ==, 1);
                const Diagnostic *diag = g_ptr_array_index(diags->items, 0);
                g_autofree char *text = g_strdup_printf("%s:%u %s", diag->file, diag->line, diag->message);
                g_auto(GStrv) parts = g_strsplit(cases[i].message, " ", 2);
                g_autofree char *where = g_strdup_printf("%s:%u", diag->file, diag->line);
                if (!streq(where, parts[0]) || !strstr(diag->message, parts[1]))
                        g_error("'%s': expected '%s', got '%s'", cases[i].declared, cases[i].message, text);
                g_assert_true(diag->severity == DIAGNOSTIC_ERROR);
        }
}

static void test_parse_kernel(void) {
        g_autoptr(GPtrArray) t = NULL;

        g_assert_cmpint(swap_tiers_parse_kernel(HEADER, &t), ==, 0);
        g_assert_cmpuint(t->len, ==, 0);
        g_clear_pointer(&t, g_ptr_array_unref);

        /* A tier called "Name" is a tier, not the header. */
        g_assert_cmpint(swap_tiers_parse_kernel(HEADER "fast             3     100         32767\n"
                                                       "Name             2     -1          99\n",
                                                &t),
                        ==, 0);
        g_assert_cmpuint(t->len, ==, 2);
        g_assert_cmpstr(((SwapTier *) g_ptr_array_index(t, 1))->name, ==, "Name");
        g_assert_cmpint(((SwapTier *) g_ptr_array_index(t, 1))->prio, ==, -1);
        g_clear_pointer(&t, g_ptr_array_unref);

        g_assert_cmpint(swap_tiers_parse_kernel(HEADER "fast 3 100\n", &t), ==, -EBADMSG);
        g_assert_null(t);
}

static void test_devices(void) {
        g_autoptr(GPtrArray) d = swap_devices_parse(
                "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                "/dev/zram0                              partition\t524284\t\t0\t\t100\n"
                "/swap\\040file                           file\t\t1048572\t\t0\t\t-2\n");
        g_assert_cmpuint(d->len, ==, 2);
        g_assert_cmpstr(((SwapDevice *) g_ptr_array_index(d, 0))->path, ==, "/dev/zram0");
        g_assert_cmpint(((SwapDevice *) g_ptr_array_index(d, 1))->prio, ==, -2);
}

/* The table of plans. kernel: "name:prio …" as the kernel has them;
 * devices: "prio prio …" of active swap devices (/dev/dN). */
typedef struct PlanCase {
        const char *name;
        const char *declared;
        const char *kernel;
        const char *devices;
        const char *write;   /* NULL: nothing to write */
        const char *refusal; /* a part of it; NULL: none */
} PlanCase;

static void test_plan(void) {
        static const PlanCase cases[] = {
                { "boot: no tier yet, swap off", "fast:100 slow:-1", "", "", "+fast:100 +slow:-1", NULL },
                { "no tier yet, swap on: devices have no tier, the first write places them",
                  "fast:100 slow:-1", "", "100 10", "+fast:100 +slow:-1", NULL },
                { "declared order does not matter: highest first", "slow:-1 fast:100", "", "",
                  "+fast:100 +slow:-1", NULL },
                { "as declared: nothing to write (idempotent)", "fast:100 slow:-1", "fast:100 slow:-1", "100 10",
                  NULL, NULL },
                { "one missing above the others", "fast:100 slow:-1 mid:50", "fast:100 slow:-1", "", "+mid:50",
                  NULL },
                { "one missing, but a device would move into it", "fast:100 slow:-1 mid:50", "fast:100 slow:-1",
                  "100 60", NULL, "/dev/d1 (priority 60, in tier 'slow')" },
                { "one missing, the device below it stays", "fast:100 slow:-1 mid:50", "fast:100 slow:-1",
                  "100 10", "+mid:50", NULL },
                { "redefined, swap off: removed and added", "fast:50 slow:-1", "fast:100 slow:-1", "",
                  "-fast +fast:50", NULL },
                { "redefined while its device is on", "fast:50 slow:-1", "fast:100 slow:-1", "100",
                  NULL, "Removing tier 'fast'" },
                { "an undeclared tier is left alone", "fast:100 slow:-1", "fast:100 slow:-1 other:200", "",
                  NULL, NULL },
                { "an undeclared tier holds a declared start", "fast:100 slow:-1", "disk:-1", "",
                  NULL, "tier 'disk' starts there already" },
                { "the lowest tier renamed: the tier above would move down to -1", "fast:100 low:-1",
                  "fast:100 slow:-1", "", NULL, "already" },
                { "the lowest redefined upwards, the other one redefined too", "a:-1 b:10",
                  "b:-1 a:10", "", "-b -a +b:10 +a:-1", NULL },
                { "the lowest redefined, the one above kept: it would move", "a:-1 b:10 c:100",
                  "c:100 b:-1", "", NULL, "moves tier 'c' down to -1" },
                { "all redefined, the lowest first", "a:-1 b:10", "b:-1 a:10 c:100", "", NULL,
                  "moves tier 'c' down to -1" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const PlanCase *c = &cases[i];
                g_autoptr(GPtrArray) declared = tiers(c->declared);
                g_autoptr(GPtrArray) kernel = tiers(c->kernel);
                g_autoptr(GPtrArray) devices = g_ptr_array_new_with_free_func(device_free);
                g_auto(GStrv) prios = g_strsplit(c->devices, " ", -1);
                g_autoptr(SwapTiersPlan) p = NULL;
                unsigned n = 0;

                for (char **w = prios; *w; w++) {
                        if (!**w)
                                continue;
                        SwapDevice *d = g_new0(SwapDevice, 1);
                        d->path = g_strdup_printf("/dev/d%u", n++);
                        d->prio = atoi(*w);
                        g_ptr_array_add(devices, d);
                }
                g_assert_true(swap_tiers_check(declared, NULL));
                g_assert_cmpint(swap_tiers_plan(declared, kernel, devices, &p), ==, 0);
                if (!streq_ptr(p->write, c->write))
                        g_error("%s: wrote '%s', expected '%s' (refusal: %s)", c->name, strempty(p->write),
                                strempty(c->write), strempty(p->refusal));
                if (!c->refusal != !p->refusal || (c->refusal && !strstr(p->refusal, c->refusal)))
                        g_error("%s: refusal '%s', expected one with '%s'", c->name, strempty(p->refusal),
                                strempty(c->refusal));
                g_assert_cmpuint(p->notes->len, >, 0);
                if (g_test_verbose())
                        g_test_message("%s: %s%s", c->name, strempty(p->write), strempty(p->refusal));
        }
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/swap-tiers-conf/parse-value", test_parse_value);
        g_test_add_func("/swap-tiers-conf/check", test_check);
        g_test_add_func("/swap-tiers-conf/parse-kernel", test_parse_kernel);
        g_test_add_func("/swap-tiers-conf/devices", test_devices);
        g_test_add_func("/swap-tiers-conf/plan", test_plan);
        return g_test_run();
}
