/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What explain shows, against a fake kernel: a table of "cgroup|file" →
 * value that the reader looks up. Plans and resolutions are built by hand,
 * so that these rows do not depend on what the planner decides. */

#include <glib.h>

#include "explain.h"
#include "util.h"

#define CG "/system.slice/foo.service"

typedef struct Fixture {
        Resolution res;
        CgroupPlan *plan;
        GHashTable *kernel; /* "cgroup|target" → value */
        GPtrArray *rows;
} Fixture;

static void fixture_setup(Fixture *f, gconstpointer data) {
        f->res.attributes = g_ptr_array_new();
        f->plan = cgroup_plan_new();
        f->kernel = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

static void fixture_teardown(Fixture *f, gconstpointer data) {
        for (int k = 0; k < _KNOB_MAX; k++) {
                knob_value_clear(&f->res.knobs[k].value);
                g_free(f->res.knobs[k].group);
                provenance_clear(&f->res.knobs[k].source);
        }
        for (guint i = 0; i < f->res.attributes->len; i++) {
                ResolvedAttribute *a = g_ptr_array_index(f->res.attributes, i);
                g_free(a->name);
                g_free(a->value);
                g_free(a->group);
                provenance_clear(&a->source);
                g_free(a);
        }
        g_ptr_array_unref(f->res.attributes);
        cgroup_plan_free(f->plan);
        g_hash_table_unref(f->kernel);
        if (f->rows)
                g_ptr_array_unref(f->rows);
}

static char *fake_read(const char *cgroup, Backend backend, const char *target, void *userdata) {
        Fixture *f = userdata;
        g_autofree char *key = g_strdup_printf("%s|%s", cgroup, target);
        return g_strdup(g_hash_table_lookup(f->kernel, key));
}

static void kernel_has(Fixture *f, const char *cgroup, const char *target, const char *value) {
        g_hash_table_replace(f->kernel, g_strdup_printf("%s|%s", cgroup, target), g_strdup(value));
}

static void knob_bytes(Fixture *f, Knob k, MemoryLimitKind kind, uint64_t bytes, unsigned permyriad) {
        ResolvedKnob *rk = &f->res.knobs[k];
        rk->set = true;
        rk->group = g_strdup("batch");
        provenance_set(&rk->source, "/etc/policy.d/batch.policy", 7);
        rk->value.limit = (MemoryLimit) { .kind = kind, .bytes = bytes, .permyriad = permyriad };
}

static void knob_bool(Fixture *f, Knob k, bool b) {
        ResolvedKnob *rk = &f->res.knobs[k];
        rk->set = true;
        rk->group = g_strdup("batch");
        provenance_set(&rk->source, "/etc/policy.d/batch.policy", 9);
        rk->value.boolean = b;
}

static const ExplainRow *explain(Fixture *f, bool stale) {
        f->rows = explain_rows(&f->res, f->plan, CG, stale, fake_read, f);
        g_assert_cmpuint(f->rows->len, >, 0);
        return g_ptr_array_index(f->rows, 0);
}

static void test_in_force(Fixture *f, gconstpointer data) {
        knob_bytes(f, KNOB_SWAP_MAX, MEMORY_LIMIT_BYTES, 1073741824, 0);
        cgroup_plan_add(f->plan, BACKEND_SYSTEMD_PROPERTY, KNOB_SWAP_MAX, "MemorySwapMax", g_strdup("1073741824"),
                        NULL);
        kernel_has(f, CG, "memory.swap.max", "1073741824");
        const ExplainRow *row = explain(f, false);
        g_assert_cmpstr(row->name, ==, "SwapMax (MemorySwapMax)");
        g_assert_cmpstr(row->requested, ==, "1G");
        g_assert_cmpstr(row->effective, ==, "1G");
        g_assert_cmpstr(row->group, ==, "batch");
        g_assert_cmpstr(row->where, ==, "/etc/policy.d/batch.policy:7");
        g_assert_null(row->note);
        g_assert_cmpuint(f->rows->len, ==, 1);
}

static void test_parent_caps(Fixture *f, gconstpointer data) {
        knob_bytes(f, KNOB_SWAP_MAX, MEMORY_LIMIT_BYTES, 1073741824, 0);
        cgroup_plan_add(f->plan, BACKEND_SYSTEMD_PROPERTY, KNOB_SWAP_MAX, "MemorySwapMax", g_strdup("1073741824"),
                        NULL);
        kernel_has(f, CG, "memory.swap.max", "1073741824");
        /* The tightest ancestor is named, not the nearest. */
        kernel_has(f, "/system.slice", "memory.swap.max", "536870912");
        kernel_has(f, "/", "memory.swap.max", "1"); /* the root has no such file: never read */
        const ExplainRow *row = explain(f, false);
        g_assert_cmpstr(row->note, ==, "capped by /system.slice: its memory.swap.max is 512M, below the 1G requested");
}

static void test_parent_above_request(Fixture *f, gconstpointer data) {
        knob_bytes(f, KNOB_SWAP_MAX, MEMORY_LIMIT_BYTES, 1073741824, 0);
        cgroup_plan_add(f->plan, BACKEND_SYSTEMD_PROPERTY, KNOB_SWAP_MAX, "MemorySwapMax", g_strdup("1073741824"),
                        NULL);
        kernel_has(f, CG, "memory.swap.max", "1073741824");
        kernel_has(f, "/system.slice", "memory.swap.max", "max");
        g_assert_null(explain(f, false)->note);
}

static void test_kernel_differs(Fixture *f, gconstpointer data) {
        knob_bool(f, KNOB_ZSWAP_WRITEBACK, true);
        cgroup_plan_add(f->plan, BACKEND_SYSTEMD_PROPERTY, KNOB_ZSWAP_WRITEBACK, "MemoryZSwapWriteback",
                        g_strdup("yes"), NULL);
        kernel_has(f, CG, "memory.zswap.writeback", "0");
        const ExplainRow *row = explain(f, false);
        /* Compared in the kernel's spelling: yes is 1 there. */
        g_assert_cmpstr(row->note, ==, "the kernel has 0, not the 1 requested");
        g_assert_cmpstr(row->effective, ==, "0");
}

static void test_percent_shows_what_it_came_to(Fixture *f, gconstpointer data) {
        knob_bytes(f, KNOB_SWAP_MAX, MEMORY_LIMIT_PERCENT, 0, 5000);
        cgroup_plan_add(f->plan, BACKEND_SYSTEMD_PROPERTY, KNOB_SWAP_MAX, "MemorySwapMax", g_strdup("2147483648"),
                        NULL);
        kernel_has(f, CG, "memory.swap.max", "2147483648");
        const ExplainRow *row = explain(f, false);
        g_assert_cmpstr(row->requested, ==, "50% (2G)");
        g_assert_cmpstr(row->effective, ==, "2G");
        g_assert_null(row->note);
}

static void test_file_backend(Fixture *f, gconstpointer data) {
        knob_bytes(f, KNOB_SWAP_HIGH, MEMORY_LIMIT_INFINITY, 0, 0);
        cgroup_plan_add(f->plan, BACKEND_CGROUP_FILE, KNOB_SWAP_HIGH, "memory.swap.high", g_strdup("max"), NULL);
        kernel_has(f, CG, "memory.swap.high", "max");
        const ExplainRow *row = explain(f, false);
        g_assert_cmpstr(row->name, ==, "SwapHigh (memory.swap.high)");
        g_assert_cmpstr(row->effective, ==, "max");
        g_assert_null(row->note);
}

static void test_unreadable(Fixture *f, gconstpointer data) {
        knob_bytes(f, KNOB_SWAP_MAX, MEMORY_LIMIT_BYTES, 1073741824, 0);
        cgroup_plan_add(f->plan, BACKEND_SYSTEMD_PROPERTY, KNOB_SWAP_MAX, "MemorySwapMax", g_strdup("1073741824"),
                        NULL);
        const ExplainRow *row = explain(f, false);
        g_assert_null(row->effective);
        g_assert_null(row->note);
}

static void test_node_list_spelling(Fixture *f, gconstpointer data) {
        cgroup_plan_add(f->plan, BACKEND_SYSTEMD_PROPERTY, KNOB_NUMA_NODES, "AllowedMemoryNodes", g_strdup("0 1"),
                        NULL);
        kernel_has(f, CG, "cpuset.mems.effective", "0-1");
        const ExplainRow *row = explain(f, false);
        g_assert_cmpstr(row->effective, ==, "0-1");
        g_assert_null(row->note);
}

static void test_xattr_and_attribute_origin(Fixture *f, gconstpointer data) {
        ResolvedAttribute *a = g_new0(ResolvedAttribute, 1);
        a->name = g_strdup("user.tier");
        a->value = g_strdup("gold");
        a->group = g_strdup("web");
        provenance_set(&a->source, "/etc/policy.d/web.policy", 12);
        g_ptr_array_add(f->res.attributes, a);
        cgroup_plan_add(f->plan, BACKEND_XATTR, -1, "user.tier", g_strdup("gold"), NULL);
        kernel_has(f, CG, "user.tier", "silver");
        const ExplainRow *row = explain(f, false);
        g_assert_cmpstr(row->name, ==, "user.tier");
        g_assert_cmpstr(row->requested, ==, "gold");
        g_assert_cmpstr(row->effective, ==, "silver");
        g_assert_cmpstr(row->group, ==, "web");
        g_assert_cmpstr(row->where, ==, "/etc/policy.d/web.policy:12");
}

static void test_reason_and_stale_row(Fixture *f, gconstpointer data) {
        cgroup_plan_add(f->plan, BACKEND_NOT_ENFORCEABLE, KNOB_SWAP_TIERS, "memory.swap.tiers.max", g_strdup("fast"),
                        "this kernel has no swap tiers");
        const ExplainRow *row = explain(f, true);
        g_assert_cmpstr(row->note, ==, "this kernel has no swap tiers");
        g_assert_null(row->effective);
        g_assert_cmpuint(f->rows->len, ==, 2);
        const ExplainRow *stale = g_ptr_array_index(f->rows, 1);
        g_assert_cmpint(stale->backend, ==, BACKEND_EXEC_TIME);
        g_assert_nonnull(strstr(stale->note, "systemctl daemon-reload"));
}

/* Tiers: the effective set is walked up from the files, each tier taken
 * away named with the ancestor that took it. */
static void test_swap_tiers_effective(Fixture *f, gconstpointer data) {
        cgroup_plan_add(f->plan, BACKEND_CGROUP_FILE, KNOB_SWAP_TIERS, "memory.swap.tiers.max",
                        g_strdup("fast max\nslow max"), "widened for the groups of cgroups below it, which need slow");
        kernel_has(f, CG, "memory.swap.tiers.max", "fast max\nslow max");
        kernel_has(f, "/system.slice", "memory.swap.tiers.max", "fast 0\nslow max");
        const ExplainRow *row = explain(f, false);
        g_assert_cmpstr(row->effective, ==, "slow");
        g_assert_cmpstr(row->note, ==, "widened for the groups of cgroups below it, which need slow; effective from "
                                       "the ancestors: fast denied by /system.slice");

        /* The file lost what policyd wrote (a tier made again: max). */
        g_ptr_array_unref(f->rows);
        f->rows = NULL;
        kernel_has(f, "/system.slice", "memory.swap.tiers.max", "fast max\nslow max");
        kernel_has(f, CG, "memory.swap.tiers.max", "fast max\nslow 0");
        row = explain(f, false);
        g_assert_cmpstr(row->effective, ==, "fast");
        g_assert_nonnull(strstr(row->note, "its file holds fast max,slow 0, not what policyd wrote"));

        /* Nothing left: none. */
        g_ptr_array_unref(f->rows);
        f->rows = NULL;
        kernel_has(f, "/system.slice", "memory.swap.tiers.max", "fast 0\nslow 0");
        row = explain(f, false);
        g_assert_cmpstr(row->effective, ==, "none");
}

static void test_kernel_file_table(void) {
        static const struct {
                Backend backend;
                const char *target, *value, *file, *want;
        } table[] = {
                { BACKEND_SYSTEMD_PROPERTY, "MemorySwapMax", "infinity", "memory.swap.max", "max" },
                { BACKEND_SYSTEMD_PROPERTY, "MemorySwapMax", "4096", "memory.swap.max", "4096" },
                { BACKEND_SYSTEMD_PROPERTY, "MemoryZSwapMax", "0", "memory.zswap.max", "0" },
                { BACKEND_SYSTEMD_PROPERTY, "MemoryZSwapWriteback", "no", "memory.zswap.writeback", "0" },
                { BACKEND_SYSTEMD_PROPERTY, "AllowedMemoryNodes", "1", "cpuset.mems.effective", "1" },
                /* Not one of policyd's forms: shown as it is. */
                { BACKEND_SYSTEMD_PROPERTY, "MemorySwapMax", "lots", "memory.swap.max", "lots" },
                { BACKEND_SYSTEMD_PROPERTY, "CPUWeight", "100", NULL, NULL },
                { BACKEND_CGROUP_FILE, "memory.swap.high", "max", "memory.swap.high", "max" },
                { BACKEND_XATTR, "user.policy.group", "batch", NULL, NULL },
                { BACKEND_EXEC_TIME, "KSM", "yes", NULL, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                PlanItem item = { .backend = table[i].backend, .knob = -1, .target = (char *) table[i].target,
                                  .value = (char *) table[i].value };
                g_autofree char *want = NULL;
                g_assert_cmpstr(explain_kernel_file(&item, &want), ==, table[i].file);
                g_assert_cmpstr(want, ==, table[i].want);
        }
}

static void test_human_value_table(void) {
        static const struct {
                const char *in, *out;
        } table[] = {
                { "1073741824", "1G" }, { "536870912", "512M" }, { "max", "max" }, { "0", "0" },
                { "-1", "-1" },         { "12abc", "12abc" },     { "", "" },       { " 5", " 5" },
                { NULL, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                g_autofree char *out = explain_human_value(table[i].in);
                g_assert_cmpstr(out, ==, table[i].out);
        }
}

/* NUMANodes= without cpuset: migrate_pages moved the pages; where new ones
 * may go is the nearest ancestor's cpuset, which the row shows. */
static void test_migrate_pages_row(Fixture *f, gconstpointer data) {
        ResolvedKnob *rk = &f->res.knobs[KNOB_NUMA_NODES];
        rk->set = true;
        rk->group = g_strdup("near");
        provenance_set(&rk->source, "/etc/policy.d/near.policy", 3);
        numa_node_mask_set(&rk->value.numa_nodes, 1);
        cgroup_plan_add(f->plan, BACKEND_MIGRATE_PAGES, KNOB_NUMA_NODES, "migrate_pages", g_strdup("1"),
                        "moved with migrate_pages; new allocations are not confined");
        kernel_has(f, "/", "cpuset.mems.effective", "0-1");
        const ExplainRow *row = explain(f, false);
        g_assert_cmpstr(row->name, ==, "NUMANodes (migrate_pages)");
        g_assert_cmpstr(row->requested, ==, "1");
        g_assert_cmpstr(row->effective, ==, "0-1");
        g_assert_cmpint(row->backend, ==, BACKEND_MIGRATE_PAGES);
        g_assert_cmpstr(row->note, ==,
                        "moved with migrate_pages; new allocations are not confined; they may use nodes 0-1, as the "
                        "nearest cpuset (of /) allows");

        /* The nearest ancestor wins; the cgroup's own is never read (it has none). */
        g_ptr_array_unref(f->rows);
        kernel_has(f, "/system.slice", "cpuset.mems.effective", "0");
        kernel_has(f, CG, "cpuset.mems.effective", "1");
        row = explain(f, false);
        g_assert_cmpstr(row->effective, ==, "0");
        g_assert_nonnull(strstr(row->note, "(of /system.slice)"));

        /* No cpuset anywhere: only the reason. */
        g_ptr_array_unref(f->rows);
        g_hash_table_remove_all(f->kernel);
        row = explain(f, false);
        g_assert_null(row->effective);
        g_assert_cmpstr(row->note, ==, "moved with migrate_pages; new allocations are not confined");
}

#define ADD(path, fn) g_test_add(path, Fixture, NULL, fixture_setup, fn, fixture_teardown)

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        ADD("/explain/in-force", test_in_force);
        ADD("/explain/parent-caps", test_parent_caps);
        ADD("/explain/parent-above-request", test_parent_above_request);
        ADD("/explain/kernel-differs", test_kernel_differs);
        ADD("/explain/percent", test_percent_shows_what_it_came_to);
        ADD("/explain/file-backend", test_file_backend);
        ADD("/explain/unreadable", test_unreadable);
        ADD("/explain/node-list-spelling", test_node_list_spelling);
        ADD("/explain/xattr-and-attribute-origin", test_xattr_and_attribute_origin);
        ADD("/explain/reason-and-stale-row", test_reason_and_stale_row);
        ADD("/explain/migrate-pages-row", test_migrate_pages_row);
        ADD("/explain/swap-tiers-effective", test_swap_tiers_effective);
        g_test_add_func("/explain/kernel-file-table", test_kernel_file_table);
        g_test_add_func("/explain/human-value-table", test_human_value_table);
        return g_test_run();
}
