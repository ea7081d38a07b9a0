/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>

#include "cgroup-plan.h"
#include "swap-tier-tree.h"
#include "util.h"

static const char *const backend_table[_BACKEND_MAX] = {
        [BACKEND_XATTR] = "xattr",
        [BACKEND_CGROUP_FILE] = "cgroup-file",
        [BACKEND_SYSTEMD_PROPERTY] = "systemd-property",
        [BACKEND_EXEC_TIME] = "exec-time",
        [BACKEND_NOT_ENFORCEABLE] = "not-enforceable",
        [BACKEND_MIGRATE_PAGES] = "migrate-pages",
};

const char *backend_to_string(Backend b) {
        if ((int) b < 0 || b >= _BACKEND_MAX)
                return NULL;
        return backend_table[b];
}

bool cgroup_plan_numa_by_migration(PlanFlags flags) {
        return (flags & PLAN_NO_CPUSET) && (!(flags & PLAN_SYSTEMD_MANAGED) || (flags & PLAN_USER_MANAGER));
}

static PlanItem *plan_item_free(PlanItem *i) {
        if (!i)
                return NULL;
        g_free(i->target);
        g_free(i->value);
        g_free(i->reason);
        g_free(i);
        return NULL;
}
DEFINE_FREE_NOTIFY(plan_item_free, PlanItem)

CgroupPlan *cgroup_plan_free(CgroupPlan *p) {
        if (!p)
                return NULL;
        if (p->items)
                g_ptr_array_unref(p->items);
        g_free(p);
        return NULL;
}

CgroupPlan *cgroup_plan_new(void) {
        CgroupPlan *p = g_new0(CgroupPlan, 1);
        p->items = g_ptr_array_new_with_free_func(plan_item_free_notify);
        return p;
}

void cgroup_plan_add(CgroupPlan *p, Backend b, int knob, const char *target, char *value, const char *reason) {
        PlanItem *i;

        assert(p);
        assert((unsigned) b < _BACKEND_MAX);
        assert(knob >= -1 && knob < _KNOB_MAX);
        assert(target);

        i = g_new0(PlanItem, 1);

        i->backend = b;
        i->knob = (Knob) knob;
        i->target = g_strdup(target);
        i->value = value;
        i->reason = g_strdup(reason);
        g_ptr_array_add(p->items, i);
}

/* The kernel's spelling for memory.swap.max and friends. The kernel keeps
 * pages and reads back a page multiple, so write one: what we compare later
 * is then what we wrote. NULL when the limit cannot be converted. */
static char *format_limit_for_kernel(const MemoryLimit *l, uint64_t swap_total) {
        uint64_t bytes;

        if (memory_limit_to_bytes(l, swap_total, page_size(), &bytes) < 0)
                return NULL;
        if (bytes == UINT64_MAX)
                return g_strdup("max");
        return g_strdup_printf("%" PRIu64, bytes - bytes % page_size());
}

/* systemd's spelling for MemorySwapMax= and MemoryZSwapMax=, the same
 * conversion as policyd-generator's, so that its drop-in and we agree. */
static char *format_limit_for_systemd(const MemoryLimit *l, uint64_t swap_total) {
        char *s = NULL;

        if (format_memory_limit_for_systemd(l, swap_total, page_size(), &s) < 0)
                return NULL;
        return s;
}

static bool strv_contains_str(char *const *v, const char *s) {
        for (; v && *v; v++)
                if (streq(*v, s))
                        return true;
        return false;
}

/* What SwapTiers= turns into, decided before the other swap knobs because
 * the fallbacks override SwapMax= and ZSwapWriteback=. */
typedef struct TierDecision {
        const char *swap_max_zero;   /* reason, when memory.swap.max must be 0 */
        const char *writeback_off;   /* reason, when memory.zswap.writeback must be 0 */
        const char *zswap_max_zero;  /* reason, when memory.zswap.max must be 0 */
} TierDecision;

#define NO_ZSWAP_REASON \
        "SwapTiers= does not list zswap: no zswap (memory.zswap.max=0; zswap is not a swap tier, swap tiers v10)"
#define ZSWAP_ONLY_REASON "SwapTiers=zswap: zswap only, no writeback to swap devices"
#define ZSWAP_NEEDS_A_TIER_REASON \
        "zswap needs a swap tier the cgroup may use for the slots of its pages, and every tier the kernel " \
        "defines has the name of a SwapTiers= keyword"

bool swap_tiers_allowed(char *const *tiers, const SystemFacts *facts, char ***ret) {
        char *const *defined = facts ? facts->tier_names : NULL;
        guint n = tiers ? g_strv_length((char **) tiers) : 0;
        bool zswap_only = n == 1 && streq(tiers[0], SWAP_TIER_ZSWAP);
        g_autoptr(GPtrArray) v = g_ptr_array_new();

        *ret = NULL;
        if (!facts || !facts->swap_tiers || !defined || !*defined)
                return false;
        for (char *const *t = defined; *t; t++)
                if (!swap_tier_is_keyword(*t) && (zswap_only || strv_contains_str(tiers, *t)))
                        g_ptr_array_add(v, *t);
        g_ptr_array_add(v, NULL);
        *ret = tier_set_union((char *const *) v->pdata, NULL);
        return true;
}

#define WIDENED_REASON "widened for the groups of cgroups below it, which need "

static void plan_swap_tiers(CgroupPlan *p, const ResolvedKnob *k, const SystemFacts *facts, char *const *widen,
                            TierDecision *d) {
        assert(p && k && k->set && d);

        char *const *tiers = k->value.tiers;
        char *const *defined = facts ? facts->tier_names : NULL;
        guint n = tiers ? g_strv_length((char **) tiers) : 0;
        bool none = n == 0 || (n == 1 && streq(tiers[0], SWAP_TIER_NONE));
        bool zswap_only = n == 1 && streq(tiers[0], SWAP_TIER_ZSWAP);

        if (facts && facts->swap_tiers && defined && *defined) {
                /* memory.swap.tiers.max: "TIER max|0", one line per tier the
                 * kernel defines, so that the file says all of it. zswap is
                 * not a tier: it stores a page only where a tier the cgroup
                 * may use has a slot for it, and writes back there. So zswap
                 * only is every tier allowed with writeback off, and a list
                 * without zswap is memory.zswap.max=0. */
                bool any_allowed = false;
                GString *content = g_string_new(NULL);
                for (char *const *t = defined; *t; t++) {
                        /* A kernel tier named none or zswap: in SwapTiers= those
                         * are keywords, so no group allows it (and it is denied
                         * like any tier not listed). */
                        bool allowed = !swap_tier_is_keyword(*t) &&
                                       ((!none && (zswap_only || strv_contains_str(tiers, *t))) ||
                                        tier_set_contains(widen, *t));
                        any_allowed |= allowed;
                        g_string_append_printf(content, "%s%s %s", content->len > 0 ? "\n" : "", *t,
                                               allowed ? "max" : "0");
                }
                g_autofree char *widen_list = widen && *widen ? g_strjoinv(",", (char **) widen) : NULL;
                g_autofree char *widened = widen_list ? g_strconcat(WIDENED_REASON, widen_list, NULL) : NULL;
                cgroup_plan_add(p, BACKEND_CGROUP_FILE, KNOB_SWAP_TIERS, SWAP_TIERS_FILE, g_string_free(content, FALSE),
                                widened);
                if (zswap_only) {
                        d->writeback_off = ZSWAP_ONLY_REASON;
                        if (!any_allowed)
                                cgroup_plan_add(p, BACKEND_NOT_ENFORCEABLE, KNOB_SWAP_TIERS, SWAP_TIERS_FILE,
                                                g_strdup(SWAP_TIER_ZSWAP), ZSWAP_NEEDS_A_TIER_REASON);
                } else if (!strv_contains_str(tiers, SWAP_TIER_ZSWAP))
                        d->zswap_max_zero = NO_ZSWAP_REASON;
                for (char *const *t = defined; *t; t++)
                        if (swap_tier_is_keyword(*t)) {
                                g_autofree char *reason = g_strdup_printf(
                                        "the kernel's swap tier '%s' has the name of a SwapTiers= keyword: no group "
                                        "can allow it (rename it in /sys/kernel/mm/swap/tiers)", *t);
                                cgroup_plan_add(p, BACKEND_NOT_ENFORCEABLE, KNOB_SWAP_TIERS, SWAP_TIERS_FILE,
                                                g_strdup(*t), reason);
                        }

                for (guint i = 0; i < n; i++) {
                        if (streq(tiers[i], SWAP_TIER_NONE) || streq(tiers[i], SWAP_TIER_ZSWAP) ||
                            strv_contains_str(defined, tiers[i]))
                                continue;
                        g_autofree char *reason = g_strdup_printf(
                                "swap tier '%s' is not defined by the kernel (/sys/kernel/mm/swap/tiers)", tiers[i]);
                        cgroup_plan_add(p, BACKEND_NOT_ENFORCEABLE, KNOB_SWAP_TIERS, SWAP_TIERS_FILE,
                                        g_strdup(tiers[i]), reason);
                }
                return;
        }

        /* No swap tiers here (DESIGN §6): only what can be done honestly. */
        if (none) {
                d->swap_max_zero = "SwapTiers=none on a kernel without swap tiers";
                return;
        }
        if (zswap_only && (!facts || facts->zswap_writeback)) {
                d->writeback_off = "SwapTiers=zswap on a kernel without swap tiers";
                return;
        }

        cgroup_plan_add(p, BACKEND_XATTR, KNOB_SWAP_TIERS, POLICY_SWAP_TIERS_XATTR, g_strjoinv(",", (char **) tiers),
                        "swap tiers that cannot be enforced are tagged for other readers");
        cgroup_plan_add(p, BACKEND_NOT_ENFORCEABLE, KNOB_SWAP_TIERS, SWAP_TIERS_FILE, g_strjoinv(",", (char **) tiers),
                        facts && facts->swap_tiers
                                ? "swap tiers not usable: none is defined in /sys/kernel/mm/swap/tiers"
                        : zswap_only
                                ? "zswap-only needs memory.zswap.writeback (Linux 6.8 with zswap), which this kernel lacks"
                                : "swap tiers not supported by this kernel (no /sys/kernel/mm/swap/tiers)");
}

#define SYSTEMD_REASON "systemd holds this for its units: SetUnitProperties(runtime=true)"
#define EXEC_TIME_REASON \
        "process-level: at a start, by policyd-generator (units whose files name the group) or policyctl exec; " \
        "with ApplyToRunning=yes also in running processes (listed under Processes)"

#define MIGRATE_REASON \
        "no cpuset controller here (the parent does not enable it in cgroup.subtree_control): the pages its " \
        "processes have are moved with migrate_pages (see Processes)"

#define NO_SWAP_REASON "a share of swap, and no swap was active (/proc/swaps) when policyd last looked: left alone"

/* A share of swap when no swap is active: 0 would forbid swap for good
 * once swap comes on (issue 24: SwapMax=50% became MemorySwapMax=0), so
 * there is no number to write. 0% is 0 of any total. */
static bool percent_without_swap(const MemoryLimit *l, uint64_t swap_total) {
        return l->kind == MEMORY_LIMIT_PERCENT && l->permyriad > 0 && swap_total == 0;
}

/* A memory limit: the unit's systemd property where systemd holds the
 * cgroup, else the kernel file. */
static void plan_limit(CgroupPlan *p, Knob knob, const ResolvedKnob *k, bool systemd, uint64_t swap_total) {
        bool swap = knob == KNOB_SWAP_MAX;

        assert(knob == KNOB_SWAP_MAX || knob == KNOB_ZSWAP_MAX);
        assert(k && k->set);
        if (percent_without_swap(&k->value.limit, swap_total))
                cgroup_plan_add(p, BACKEND_NOT_ENFORCEABLE, knob,
                                systemd ? (swap ? "MemorySwapMax" : "MemoryZSwapMax")
                                        : (swap ? "memory.swap.max" : "memory.zswap.max"),
                                format_memory_limit(&k->value.limit), NO_SWAP_REASON);
        else if (systemd)
                cgroup_plan_add(p, BACKEND_SYSTEMD_PROPERTY, knob, swap ? "MemorySwapMax" : "MemoryZSwapMax",
                                format_limit_for_systemd(&k->value.limit, swap_total), SYSTEMD_REASON);
        else
                cgroup_plan_add(p, BACKEND_CGROUP_FILE, knob, swap ? "memory.swap.max" : "memory.zswap.max",
                                format_limit_for_kernel(&k->value.limit, swap_total), NULL);
}

/* A limit of 0 that SwapTiers= decided (reason), over what the group's
 * SwapMax= or ZSwapMax= says. */
static void plan_zero_limit(CgroupPlan *p, Knob knob, bool systemd, const char *reason) {
        bool swap = knob == KNOB_SWAP_MAX;

        assert(knob == KNOB_SWAP_MAX || knob == KNOB_ZSWAP_MAX);
        if (systemd)
                cgroup_plan_add(p, BACKEND_SYSTEMD_PROPERTY, knob, swap ? "MemorySwapMax" : "MemoryZSwapMax",
                                g_strdup("0"), reason);
        else
                cgroup_plan_add(p, BACKEND_CGROUP_FILE, knob, swap ? "memory.swap.max" : "memory.zswap.max",
                                g_strdup("0"), reason);
}

/* The root cgroup has none of the knob files a plan writes: each is
 * CFTYPE_NOT_ON_ROOT in the kernel (memory.swap.tiers.max too, swap tiers
 * v10), and systemd writes no limit for -.slice. What would go there is
 * not enforceable, with the reason, rather than an ENOENT at every pass.
 * xattrs stay: the root cgroup has them. */
static void plan_root_cgroup(CgroupPlan *p) {
        for (guint i = 0; i < p->items->len; i++) {
                PlanItem *it = g_ptr_array_index(p->items, i);
                const char *file = NULL;

                if (it->backend == BACKEND_CGROUP_FILE)
                        file = it->target;
                else if (it->backend == BACKEND_SYSTEMD_PROPERTY)
                        file = streq(it->target, "AllowedMemoryNodes") ? "cpuset.mems"
                                                                        : systemd_property_file(it->target);
                if (!file)
                        continue;

                g_free(it->reason);
                it->reason = streq(file, SWAP_TIERS_FILE)
                                     ? g_strdup("the root cgroup takes no swap tiers: it has no " SWAP_TIERS_FILE
                                                " (the kernel makes it below the root only)")
                                     : g_strdup_printf("the root cgroup has no %s (the kernel makes it below the "
                                                       "root only)", file);
                it->backend = BACKEND_NOT_ENFORCEABLE;
        }
}

int cgroup_plan_build(const Resolution *r, const SystemFacts *facts, PlanFlags flags, CgroupPlan **ret) {
        return cgroup_plan_build_widened(r, facts, flags, NULL, ret);
}

int cgroup_plan_build_widened(const Resolution *r, const SystemFacts *facts, PlanFlags flags, char *const *widen,
                              CgroupPlan **ret) {
        g_autoptr(CgroupPlan) p = NULL;
        bool systemd = flags & PLAN_SYSTEMD_MANAGED;
        uint64_t swap_total = facts ? facts->swap_total : 0;
        TierDecision tiers = {};
        const ResolvedKnob *k;

        if (!r || !ret)
                return -EINVAL;

        p = cgroup_plan_new();

        /* The tag: NULL when in no group, which removes what we set. */
        cgroup_plan_add(p, BACKEND_XATTR, -1, POLICY_GROUP_XATTR,
                        r->memberships && r->memberships->len > 0 ? resolution_group_tag(r) : NULL, NULL);

        for (guint i = 0; r->attributes && i < r->attributes->len; i++) {
                const ResolvedAttribute *a = g_ptr_array_index(r->attributes, i);
                cgroup_plan_add(p, BACKEND_XATTR, -1, a->name, g_strdup(strempty(a->value)), NULL);
        }

        /* SwapTiers= first: its fallbacks override SwapMax= and ZSwapWriteback=. */
        g_autoptr(CgroupPlan) tier_items = g_new0(CgroupPlan, 1);
        tier_items->items = g_ptr_array_new_with_free_func(plan_item_free_notify);
        if (r->knobs[KNOB_SWAP_TIERS].set)
                plan_swap_tiers(tier_items, &r->knobs[KNOB_SWAP_TIERS], facts, widen, &tiers);

        k = &r->knobs[KNOB_SWAP_MAX];
        if (tiers.swap_max_zero)
                plan_zero_limit(p, KNOB_SWAP_MAX, systemd, tiers.swap_max_zero);
        else if (k->set)
                plan_limit(p, KNOB_SWAP_MAX, k, systemd, swap_total);

        k = &r->knobs[KNOB_SWAP_HIGH];
        if (k->set && percent_without_swap(&k->value.limit, swap_total))
                cgroup_plan_add(p, BACKEND_NOT_ENFORCEABLE, KNOB_SWAP_HIGH, "memory.swap.high",
                                format_memory_limit(&k->value.limit), NO_SWAP_REASON);
        else if (k->set)
                cgroup_plan_add(p, BACKEND_CGROUP_FILE, KNOB_SWAP_HIGH, "memory.swap.high",
                                format_limit_for_kernel(&k->value.limit, swap_total),
                                systemd ? "systemd has no property for memory.swap.high" : NULL);

        k = &r->knobs[KNOB_ZSWAP_MAX];
        if (tiers.zswap_max_zero)
                plan_zero_limit(p, KNOB_ZSWAP_MAX, systemd, tiers.zswap_max_zero);
        else if (k->set)
                plan_limit(p, KNOB_ZSWAP_MAX, k, systemd, swap_total);

        k = &r->knobs[KNOB_ZSWAP_WRITEBACK];
        if (tiers.writeback_off || k->set) {
                bool on = tiers.writeback_off ? false : k->value.boolean;
                const char *reason = tiers.writeback_off ?: (systemd ? SYSTEMD_REASON : NULL);

                if (facts && !facts->zswap_writeback)
                        cgroup_plan_add(p, BACKEND_NOT_ENFORCEABLE, KNOB_ZSWAP_WRITEBACK,
                                        systemd ? "MemoryZSwapWriteback" : "memory.zswap.writeback",
                                        g_strdup(on ? "1" : "0"),
                                        "memory.zswap.writeback needs Linux 6.8 with zswap, which this kernel lacks");
                else if (systemd)
                        cgroup_plan_add(p, BACKEND_SYSTEMD_PROPERTY, KNOB_ZSWAP_WRITEBACK, "MemoryZSwapWriteback",
                                        g_strdup(on ? "yes" : "no"), reason);
                else
                        cgroup_plan_add(p, BACKEND_CGROUP_FILE, KNOB_ZSWAP_WRITEBACK, "memory.zswap.writeback",
                                        g_strdup(on ? "1" : "0"), reason);
        }

        for (guint i = 0; i < tier_items->items->len; i++)
                g_ptr_array_add(p->items, g_ptr_array_index(tier_items->items, i));
        g_ptr_array_set_free_func(tier_items->items, NULL);

        k = &r->knobs[KNOB_KSM];
        if (k->set)
                cgroup_plan_add(p, BACKEND_EXEC_TIME, KNOB_KSM, "MemoryKSM", g_strdup(k->value.boolean ? "yes" : "no"),
                                EXEC_TIME_REASON);

        k = &r->knobs[KNOB_NUMA_POLICY];
        if (k->set)
                cgroup_plan_add(p, BACKEND_EXEC_TIME, KNOB_NUMA_POLICY, "NUMAPolicy",
                                g_strdup(numa_policy_to_string(k->value.numa_policy)), EXEC_TIME_REASON);

        k = &r->knobs[KNOB_NUMA_NODES];
        if (k->set) {
                if (cgroup_plan_numa_by_migration(flags)) {
                        /* Only cpuset.mems confines another process's future
                         * allocations; a bind mempolicy in the process itself
                         * does too, where NUMAPolicy= puts one. */
                        const ResolvedKnob *policy = &r->knobs[KNOB_NUMA_POLICY];
                        bool bind = policy->set && policy->value.numa_policy == NUMA_POLICY_BIND;
                        cgroup_plan_add(p, BACKEND_MIGRATE_PAGES, KNOB_NUMA_NODES, "migrate_pages",
                                        format_numa_nodes(&k->value.numa_nodes),
                                        bind ? MIGRATE_REASON "; new allocations are confined only by the bind "
                                               "mempolicy that NUMAPolicy=bind sets in each process (with "
                                               "ApplyToRunning=yes, see Processes)"
                                             : MIGRATE_REASON "; new allocations are not confined: only cpuset.mems "
                                               "could do that from outside the process");
                } else if (systemd)
                        cgroup_plan_add(p, BACKEND_SYSTEMD_PROPERTY, KNOB_NUMA_NODES, "AllowedMemoryNodes",
                                        format_numa_nodes(&k->value.numa_nodes), SYSTEMD_REASON);
                else
                        cgroup_plan_add(p, BACKEND_CGROUP_FILE, KNOB_NUMA_NODES, "cpuset.mems",
                                        format_numa_nodes(&k->value.numa_nodes), NULL);
        }

        if (flags & PLAN_ROOT_CGROUP)
                plan_root_cgroup(p);

        *ret = TAKE_PTR(p);
        return 0;
}

const char *systemd_property_file(const char *property) {
        static const struct {
                const char *property, *file;
        } table[] = {
                { "MemorySwapMax", "memory.swap.max" },
                { "MemoryZSwapMax", "memory.zswap.max" },
                { "MemoryZSwapWriteback", "memory.zswap.writeback" },
        };

        for (size_t i = 0; property && i < ELEMENTSOF(table); i++)
                if (streq(property, table[i].property))
                        return table[i].file;
        return NULL;
}

int systemd_property_kernel_file(const char *property, const char *value, const char **ret_file, char **ret_value) {
        const char *file = systemd_property_file(property);
        guint64 bytes;
        bool b;

        if (!property || !value || !ret_file || !ret_value)
                return -EINVAL;
        if (!file)
                return -EOPNOTSUPP;
        if (streq(property, "MemoryZSwapWriteback")) {
                if (parse_boolean(value, &b, NULL) < 0)
                        return -EINVAL;
                *ret_value = g_strdup(b ? "1" : "0");
        } else if (streq(value, "infinity"))
                *ret_value = g_strdup("max");
        else if (g_ascii_string_to_unsigned(value, 10, 0, G_MAXUINT64 - 1, &bytes, NULL))
                *ret_value = g_strdup_printf("%" PRIu64, (uint64_t) bytes);
        else
                return -EINVAL;
        *ret_file = file;
        return 0;
}
