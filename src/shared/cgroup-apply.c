/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cgroup-apply.h"
#include "util.h"

/* Knob files are small; anything bigger than this is not a knob file. */
#define KNOB_FILE_MAX (64U * 1024U)
#define NAME_MAX_LEN 255U

#define SWAP_TIERS_FILE "memory.swap.tiers.max"

static const char *const backend_table[_BACKEND_MAX] = {
        [BACKEND_XATTR] = "xattr",
        [BACKEND_CGROUP_FILE] = "cgroup-file",
        [BACKEND_SYSTEMD_PROPERTY] = "systemd-property",
        [BACKEND_EXEC_TIME] = "exec-time",
        [BACKEND_NOT_ENFORCEABLE] = "not-enforceable",
};

const char *backend_to_string(Backend b) {
        if ((int) b < 0 || b >= _BACKEND_MAX)
                return NULL;
        return backend_table[b];
}

static const char *const action_result_table[] = {
        [ACTION_WROTE] = "wrote",
        [ACTION_UNCHANGED] = "unchanged",
        [ACTION_RESTORED] = "restored",
        [ACTION_REMOVED] = "removed",
        [ACTION_LEFT_FOREIGN] = "left-foreign",
        [ACTION_NO_SPACE] = "no-space",
        [ACTION_VANISHED] = "vanished",
        [ACTION_FAILED] = "failed",
        [ACTION_WOULD_WRITE] = "would-write",
        [ACTION_DEFERRED] = "deferred",
        [ACTION_NOT_ENFORCEABLE] = "not-enforceable",
};

const char *action_result_to_string(ActionResult r) {
        if ((int) r < 0 || (size_t) r >= ELEMENTSOF(action_result_table))
                return NULL;
        return action_result_table[r];
}

/* ---- system facts ---- */

SystemFacts *system_facts_free(SystemFacts *f) {
        if (!f)
                return NULL;
        g_strfreev(f->tier_names);
        g_free(f);
        return NULL;
}

/* Reading /sys/kernel/mm/swap/tiers gives a header "Name Idx PrioStart
 * PrioEnd" and one line per tier (swap tiers v9). Take the first column of
 * every other line; accept the "+name:prio" spelling of writes too, in case
 * a later revision echoes it back. */
static char **parse_tier_names(const char *text) {
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);

        for (char **l = lines; *l; l++) {
                g_auto(GStrv) cols = g_strsplit_set(g_strstrip(*l), " \t", 2);
                char *name = cols[0];

                if (isempty(name) || g_ascii_strcasecmp(name, "Name") == 0)
                        continue;
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
        if (f->swap_tiers && g_file_get_contents(tiers_path, &text, NULL, NULL))
                f->tier_names = parse_tier_names(text);
        else
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

/* ---- plans ---- */

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

/* Takes value. */
static void plan_add(CgroupPlan *p, Backend b, int knob, const char *target, char *value, const char *reason) {
        PlanItem *i = g_new0(PlanItem, 1);

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
} TierDecision;

static void plan_swap_tiers(CgroupPlan *p, const ResolvedKnob *k, const SystemFacts *facts, TierDecision *d) {
        char *const *tiers = k->value.tiers;
        char *const *defined = facts ? facts->tier_names : NULL;
        guint n = tiers ? g_strv_length((char **) tiers) : 0;
        bool none = n == 0 || (n == 1 && streq(tiers[0], SWAP_TIER_NONE));
        bool zswap_only = n == 1 && streq(tiers[0], SWAP_TIER_ZSWAP);

        if (facts && facts->swap_tiers && defined && *defined) {
                /* memory.swap.tiers.max: "TIER max|0", one line per tier the
                 * kernel defines, so that the file says all of it. */
                if (zswap_only) {
                        /* zswap still needs a slot on some device: keep
                         * every tier, forbid writeback. */
                        d->writeback_off = "SwapTiers=zswap: zswap only, no writeback to swap devices";
                        return;
                }
                GString *content = g_string_new(NULL);
                for (char *const *t = defined; *t; t++)
                        g_string_append_printf(content, "%s%s %s", content->len > 0 ? "\n" : "", *t,
                                               !none && strv_contains_str(tiers, *t) ? "max" : "0");
                plan_add(p, BACKEND_CGROUP_FILE, KNOB_SWAP_TIERS, SWAP_TIERS_FILE, g_string_free(content, FALSE),
                         NULL);

                for (guint i = 0; i < n; i++) {
                        if (streq(tiers[i], SWAP_TIER_NONE) || streq(tiers[i], SWAP_TIER_ZSWAP) ||
                            strv_contains_str(defined, tiers[i]))
                                continue;
                        g_autofree char *reason = g_strdup_printf(
                                "swap tier '%s' is not defined by the kernel (/sys/kernel/mm/swap/tiers)", tiers[i]);
                        plan_add(p, BACKEND_NOT_ENFORCEABLE, KNOB_SWAP_TIERS, SWAP_TIERS_FILE,
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

        plan_add(p, BACKEND_XATTR, KNOB_SWAP_TIERS, POLICY_SWAP_TIERS_XATTR, g_strjoinv(",", (char **) tiers),
                 "swap tiers that cannot be enforced are tagged for other readers");
        plan_add(p, BACKEND_NOT_ENFORCEABLE, KNOB_SWAP_TIERS, SWAP_TIERS_FILE, g_strjoinv(",", (char **) tiers),
                 facts && facts->swap_tiers
                         ? "swap tiers not usable: none is defined in /sys/kernel/mm/swap/tiers"
                 : zswap_only
                         ? "zswap-only needs memory.zswap.writeback (Linux 6.8 with zswap), which this kernel lacks"
                         : "swap tiers not supported by this kernel (no /sys/kernel/mm/swap/tiers)");
}

#define SYSTEMD_REASON "systemd holds this for its units: SetUnitProperties(runtime=true)"
#define EXEC_TIME_REASON \
        "process-level: applied when the unit starts, by policyd-generator, for units whose files name the group"

int cgroup_plan_build(const Resolution *r, const SystemFacts *facts, PlanFlags flags, CgroupPlan **ret) {
        g_autoptr(CgroupPlan) p = NULL;
        bool systemd = flags & PLAN_SYSTEMD_MANAGED;
        uint64_t swap_total = facts ? facts->swap_total : 0;
        TierDecision tiers = {};
        const ResolvedKnob *k;

        if (!r || !ret)
                return -EINVAL;

        p = g_new0(CgroupPlan, 1);
        p->items = g_ptr_array_new_with_free_func(plan_item_free_notify);

        /* The tag: NULL when in no group, which removes what we set. */
        plan_add(p, BACKEND_XATTR, -1, POLICY_GROUP_XATTR,
                 r->memberships && r->memberships->len > 0 ? resolution_group_tag(r) : NULL, NULL);

        for (guint i = 0; r->attributes && i < r->attributes->len; i++) {
                const ResolvedAttribute *a = g_ptr_array_index(r->attributes, i);
                plan_add(p, BACKEND_XATTR, -1, a->name, g_strdup(strempty(a->value)), NULL);
        }

        /* SwapTiers= first: its fallbacks override SwapMax= and ZSwapWriteback=. */
        g_autoptr(CgroupPlan) tier_items = g_new0(CgroupPlan, 1);
        tier_items->items = g_ptr_array_new_with_free_func(plan_item_free_notify);
        if (r->knobs[KNOB_SWAP_TIERS].set)
                plan_swap_tiers(tier_items, &r->knobs[KNOB_SWAP_TIERS], facts, &tiers);

        k = &r->knobs[KNOB_SWAP_MAX];
        if (tiers.swap_max_zero) {
                if (systemd)
                        plan_add(p, BACKEND_SYSTEMD_PROPERTY, KNOB_SWAP_MAX, "MemorySwapMax", g_strdup("0"),
                                 tiers.swap_max_zero);
                else
                        plan_add(p, BACKEND_CGROUP_FILE, KNOB_SWAP_MAX, "memory.swap.max", g_strdup("0"),
                                 tiers.swap_max_zero);
        } else if (k->set) {
                if (systemd)
                        plan_add(p, BACKEND_SYSTEMD_PROPERTY, KNOB_SWAP_MAX, "MemorySwapMax",
                                 format_limit_for_systemd(&k->value.limit, swap_total), SYSTEMD_REASON);
                else
                        plan_add(p, BACKEND_CGROUP_FILE, KNOB_SWAP_MAX, "memory.swap.max",
                                 format_limit_for_kernel(&k->value.limit, swap_total), NULL);
        }

        k = &r->knobs[KNOB_SWAP_HIGH];
        if (k->set)
                plan_add(p, BACKEND_CGROUP_FILE, KNOB_SWAP_HIGH, "memory.swap.high",
                         format_limit_for_kernel(&k->value.limit, swap_total),
                         systemd ? "systemd has no property for memory.swap.high" : NULL);

        k = &r->knobs[KNOB_ZSWAP_MAX];
        if (k->set) {
                if (systemd)
                        plan_add(p, BACKEND_SYSTEMD_PROPERTY, KNOB_ZSWAP_MAX, "MemoryZSwapMax",
                                 format_limit_for_systemd(&k->value.limit, swap_total), SYSTEMD_REASON);
                else
                        plan_add(p, BACKEND_CGROUP_FILE, KNOB_ZSWAP_MAX, "memory.zswap.max",
                                 format_limit_for_kernel(&k->value.limit, swap_total), NULL);
        }

        k = &r->knobs[KNOB_ZSWAP_WRITEBACK];
        if (tiers.writeback_off || k->set) {
                bool on = tiers.writeback_off ? false : k->value.boolean;
                const char *reason = tiers.writeback_off ?: (systemd ? SYSTEMD_REASON : NULL);

                if (facts && !facts->zswap_writeback)
                        plan_add(p, BACKEND_NOT_ENFORCEABLE, KNOB_ZSWAP_WRITEBACK,
                                 systemd ? "MemoryZSwapWriteback" : "memory.zswap.writeback",
                                 g_strdup(on ? "1" : "0"),
                                 "memory.zswap.writeback needs Linux 6.8 with zswap, which this kernel lacks");
                else if (systemd)
                        plan_add(p, BACKEND_SYSTEMD_PROPERTY, KNOB_ZSWAP_WRITEBACK, "MemoryZSwapWriteback",
                                 g_strdup(on ? "yes" : "no"), reason);
                else
                        plan_add(p, BACKEND_CGROUP_FILE, KNOB_ZSWAP_WRITEBACK, "memory.zswap.writeback",
                                 g_strdup(on ? "1" : "0"), reason);
        }

        for (guint i = 0; i < tier_items->items->len; i++)
                g_ptr_array_add(p->items, g_ptr_array_index(tier_items->items, i));
        g_ptr_array_set_free_func(tier_items->items, NULL);

        k = &r->knobs[KNOB_KSM];
        if (k->set)
                plan_add(p, BACKEND_EXEC_TIME, KNOB_KSM, "MemoryKSM", g_strdup(k->value.boolean ? "yes" : "no"),
                         EXEC_TIME_REASON);

        k = &r->knobs[KNOB_NUMA_POLICY];
        if (k->set)
                plan_add(p, BACKEND_EXEC_TIME, KNOB_NUMA_POLICY, "NUMAPolicy",
                         g_strdup(numa_policy_to_string(k->value.numa_policy)), EXEC_TIME_REASON);

        k = &r->knobs[KNOB_NUMA_NODES];
        if (k->set) {
                if (systemd)
                        plan_add(p, BACKEND_SYSTEMD_PROPERTY, KNOB_NUMA_NODES, "AllowedMemoryNodes",
                                 format_numa_nodes(&k->value.numa_nodes), SYSTEMD_REASON);
                else
                        plan_add(p, BACKEND_CGROUP_FILE, KNOB_NUMA_NODES, "cpuset.mems",
                                 format_numa_nodes(&k->value.numa_nodes), NULL);
        }

        *ret = TAKE_PTR(p);
        return 0;
}

/* ---- records ---- */

static AppliedItem *applied_item_free(AppliedItem *i) {
        if (!i)
                return NULL;
        g_free(i->target);
        g_free(i->previous);
        g_free(i->written);
        g_free(i);
        return NULL;
}
DEFINE_FREE_NOTIFY(applied_item_free, AppliedItem)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AppliedItem, applied_item_free)

CgroupRecord *cgroup_record_new(const char *cgroup) {
        CgroupRecord *r = g_new0(CgroupRecord, 1);
        r->cgroup = g_strdup(cgroup);
        r->items = g_ptr_array_new_with_free_func(applied_item_free_notify);
        return r;
}

CgroupRecord *cgroup_record_free(CgroupRecord *r) {
        if (!r)
                return NULL;
        g_free(r->cgroup);
        if (r->items)
                g_ptr_array_unref(r->items);
        g_free(r);
        return NULL;
}

static AppliedItem *record_find(const CgroupRecord *r, Backend b, const char *target, guint *ret_index) {
        for (guint i = 0; r && i < r->items->len; i++) {
                AppliedItem *it = g_ptr_array_index(r->items, i);
                if (it->backend == b && streq(it->target, target)) {
                        if (ret_index)
                                *ret_index = i;
                        return it;
                }
        }
        return NULL;
}

int cgroup_path_validate(const char *cgroup) {
        if (isempty(cgroup) || cgroup[0] != '/' || strlen(cgroup) >= 4096)
                return -EINVAL;
        if (streq(cgroup, "/"))
                return 0;

        for (const char *p = cgroup + 1;;) {
                const char *slash = strchrnul(p, '/');
                size_t len = (size_t) (slash - p);

                if (len == 0 || len > NAME_MAX_LEN)
                        return -EINVAL; /* "//", a trailing "/", or too long */
                if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
                        return -EINVAL;
                for (const char *c = p; c < slash; c++)
                        if ((unsigned char) *c < 0x20 || *c == 0x7f)
                                return -EINVAL;
                if (*slash == '\0')
                        return 0;
                p = slash + 1;
        }
}

/* Targets come from plans and from records read back from /run: an xattr
 * must be user.*, a file a plain name in the cgroup directory. */
static bool target_is_valid(Backend b, const char *target) {
        size_t len;

        if (isempty(target) || (len = strlen(target)) > NAME_MAX_LEN)
                return false;
        if (b == BACKEND_XATTR) {
                if (!g_str_has_prefix(target, "user.") || len == strlen("user."))
                        return false;
                for (const char *c = target; *c; c++)
                        if ((unsigned char) *c < 0x20 || *c == 0x7f)
                                return false;
                return true;
        }
        if (b == BACKEND_CGROUP_FILE) {
                if (target[0] == '.')
                        return false;
                for (const char *c = target; *c; c++)
                        if (!g_ascii_isalnum(*c) && !strchr("._-", *c))
                                return false;
                return true;
        }
        return false;
}

/* The escapes g_strescape() produces, and nothing else: g_strcompress()
 * warns on a trailing backslash, and this text may be corrupted. */
static int unescape(const char *s, char **ret) {
        g_autoptr(GString) out = g_string_new(NULL);

        for (const char *p = s; *p; p++) {
                if (*p != '\\') {
                        if ((unsigned char) *p < 0x20)
                                return -EBADMSG;
                        g_string_append_c(out, *p);
                        continue;
                }
                p++;
                switch (*p) {
                case 'b': g_string_append_c(out, '\b'); break;
                case 'f': g_string_append_c(out, '\f'); break;
                case 'n': g_string_append_c(out, '\n'); break;
                case 'r': g_string_append_c(out, '\r'); break;
                case 't': g_string_append_c(out, '\t'); break;
                case 'v': g_string_append_c(out, '\v'); break;
                case '\\': g_string_append_c(out, '\\'); break;
                case '"': g_string_append_c(out, '"'); break;
                case '0' ... '7': {
                        unsigned v = 0;
                        for (int n = 0; n < 3 && *p >= '0' && *p <= '7'; n++, p++)
                                v = v * 8 + (unsigned) (*p - '0');
                        p--;
                        if (v == 0 || v > 0xff)
                                return -EBADMSG; /* no NUL inside a C string */
                        g_string_append_c(out, (char) v);
                        break;
                }
                default:
                        return -EBADMSG; /* includes a trailing backslash */
                }
        }
        *ret = g_string_free(TAKE_PTR(out), FALSE);
        return 0;
}

static const char *record_kind(Backend b) {
        return b == BACKEND_XATTR ? "xattr" : "file";
}

char *cgroup_record_serialize(const CgroupRecord *r) {
        GString *out = g_string_new(NULL);
        g_autofree char *cgroup = NULL;

        if (!r)
                return g_string_free(out, FALSE);

        cgroup = g_strescape(strempty(r->cgroup), NULL);
        g_string_append_printf(out, "cgroup\t%s\n", cgroup);
        for (guint i = 0; r->items && i < r->items->len; i++) {
                const AppliedItem *it = g_ptr_array_index(r->items, i);
                g_autofree char *target = g_strescape(strempty(it->target), NULL);
                g_autofree char *previous = g_strescape(it->had_previous ? strempty(it->previous) : "", NULL);
                g_autofree char *written = g_strescape(strempty(it->written), NULL);

                g_string_append_printf(out, "%s\t%s\t%d\t%s\t%s\n", record_kind(it->backend), target,
                                       it->had_previous, previous, written);
        }
        return g_string_free(out, FALSE);
}

static int parse_item_line(const char *line, AppliedItem **ret) {
        g_auto(GStrv) f = g_strsplit(line, "\t", -1);
        g_autoptr(AppliedItem) it = g_new0(AppliedItem, 1);
        int r;

        if (g_strv_length(f) != 5)
                return -EBADMSG;

        if (streq(f[0], "xattr"))
                it->backend = BACKEND_XATTR;
        else if (streq(f[0], "file"))
                it->backend = BACKEND_CGROUP_FILE;
        else
                return -EBADMSG;

        if (streq(f[2], "1"))
                it->had_previous = true;
        else if (!streq(f[2], "0"))
                return -EBADMSG;
        /* A knob file always has a value before ours. */
        if (it->backend == BACKEND_CGROUP_FILE && !it->had_previous)
                return -EBADMSG;
        if (!it->had_previous && !streq(f[3], ""))
                return -EBADMSG;

        r = unescape(f[1], &it->target);
        if (r < 0)
                return r;
        if (!target_is_valid(it->backend, it->target))
                return -EBADMSG;
        if (it->had_previous) {
                r = unescape(f[3], &it->previous);
                if (r < 0)
                        return r;
        }
        r = unescape(f[4], &it->written);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(it);
        return 0;
}

int cgroup_record_parse(const char *text, CgroupRecord **ret) {
        g_autoptr(CgroupRecord) rec = NULL;
        g_auto(GStrv) lines = NULL;
        g_autofree char *cgroup = NULL;
        guint n;
        int r;

        if (!text || !ret)
                return -EBADMSG;

        lines = g_strsplit(text, "\n", -1);
        n = g_strv_length(lines);
        if (n > 0 && streq(lines[n - 1], ""))
                n--; /* the final newline */
        if (n == 0 || !g_str_has_prefix(lines[0], "cgroup\t"))
                return -EBADMSG;

        r = unescape(lines[0] + strlen("cgroup\t"), &cgroup);
        if (r < 0)
                return r;
        if (cgroup_path_validate(cgroup) < 0)
                return -EBADMSG;
        rec = cgroup_record_new(cgroup);

        for (guint i = 1; i < n; i++) {
                g_autoptr(AppliedItem) it = NULL;

                r = parse_item_line(lines[i], &it);
                if (r < 0)
                        return r;
                if (record_find(rec, it->backend, it->target, NULL))
                        return -EBADMSG;
                g_ptr_array_add(rec->items, TAKE_PTR(it));
        }

        *ret = TAKE_PTR(rec);
        return 0;
}

/* ---- reports ---- */

static Action *action_free(Action *a) {
        if (!a)
                return NULL;
        g_free(a->target);
        g_free(a->old_value);
        g_free(a->new_value);
        g_free(a);
        return NULL;
}
DEFINE_FREE_NOTIFY(action_free, Action)

ApplyReport *apply_report_new(void) {
        ApplyReport *r = g_new0(ApplyReport, 1);
        r->actions = g_ptr_array_new_with_free_func(action_free_notify);
        return r;
}

ApplyReport *apply_report_free(ApplyReport *r) {
        if (!r)
                return NULL;
        if (r->actions)
                g_ptr_array_unref(r->actions);
        g_free(r);
        return NULL;
}

static void report_add(ApplyReport *report, ActionResult result, Backend b, const char *target,
                       const char *old_value, const char *new_value, int error) {
        Action *a;

        if (!report)
                return;
        a = g_new0(Action, 1);
        a->result = result;
        a->backend = b;
        a->target = g_strdup(target);
        a->old_value = g_strdup(old_value);
        a->new_value = g_strdup(new_value);
        a->error = error;
        g_ptr_array_add(report->actions, a);
}

/* ---- I/O on one cgroup directory ---- */

/* Walks root/cgroup one component at a time with O_NOFOLLOW, so that no
 * symlink inside the tree leads out of it. The result is a plain O_RDONLY
 * directory fd: f*xattr() refuse O_PATH fds. */
static int cgroup_open(const char *root, const char *cgroup, int *ret_fd) {
        _cleanup_close_ int fd = -1;
        g_auto(GStrv) parts = NULL;

        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();

        parts = g_strsplit(cgroup + 1, "/", -1);
        for (char **p = parts; *p; p++) {
                if (**p == '\0')
                        continue; /* only for "/" itself */
                int next = openat(fd, *p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0)
                        return negative_errno();
                closep(&fd);
                fd = next;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* After ENOENT or ENODEV on something inside the directory: is the cgroup
 * itself gone, or only that one file (a controller that is not enabled, a
 * knob this kernel lacks)? */
static bool cgroup_vanished(const char *root, const char *cgroup, int dir_fd) {
        _cleanup_close_ int fd = -1;
        struct stat a, b;

        int r = cgroup_open(root, cgroup, &fd);
        if (r < 0)
                return errno_is_vanished(r);
        if (fstat(fd, &a) < 0 || fstat(dir_fd, &b) < 0)
                return true;
        return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

static int read_knob_file(int dir_fd, const char *name, char **ret) {
        _cleanup_close_ int fd = -1;
        g_autoptr(GString) s = g_string_new(NULL);
        struct stat st;
        char buf[4096];

        /* O_NONBLOCK: never hang on a FIFO someone put in place of a knob. */
        fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EINVAL;

        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                if (s->len + (size_t) n > KNOB_FILE_MAX)
                        return -EFBIG;
                g_string_append_len(s, buf, n);
        }
        if (memchr(s->str, '\0', s->len))
                return -EBADMSG;
        if (s->len > 0 && s->str[s->len - 1] == '\n')
                g_string_truncate(s, s->len - 1);
        *ret = g_string_free(TAKE_PTR(s), FALSE);
        return 0;
}

static int write_all(int fd, const char *p, size_t len) {
        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                p += n;
                len -= (size_t) n;
        }
        return 0;
}

/* One write() per line, each with its newline, on one open file. The
 * kernel parses every write() of a cgroup file on its own, and
 * memory.swap.tiers.max takes "TIER 0|max" per write; a regular file in a
 * fake tree simply ends up holding all the lines. O_TRUNC is what a shell's
 * ">" does, and cgroupfs accepts it. */
static int write_knob_file(int dir_fd, const char *name, const char *value) {
        _cleanup_close_ int fd = -1;
        g_auto(GStrv) lines = NULL;
        struct stat st;
        int r;

        fd = openat(dir_fd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_TRUNC);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EINVAL;

        lines = g_strsplit(value, "\n", -1);
        for (char **l = lines; *l; l++) {
                g_autofree char *line = g_strconcat(*l, "\n", NULL);
                if (**l == '\0' && l != lines)
                        continue; /* a blank line after the first means nothing */
                r = write_all(fd, line, strlen(line));
                if (r < 0)
                        return r;
        }
        return 0;
}

static int read_xattr(int dir_fd, const char *name, bool *ret_present, char **ret) {
        for (int attempt = 0; attempt < 8; attempt++) {
                ssize_t size = fgetxattr(dir_fd, name, NULL, 0);
                if (size < 0) {
                        if (errno == ENODATA) {
                                *ret_present = false;
                                *ret = NULL;
                                return 0;
                        }
                        return negative_errno();
                }
                g_autofree char *buf = g_malloc((size_t) size + 1);
                ssize_t n = fgetxattr(dir_fd, name, buf, (size_t) size);
                if (n < 0) {
                        if (errno == ERANGE)
                                continue; /* it grew in between */
                        if (errno == ENODATA)
                                continue;
                        return negative_errno();
                }
                /* Values with a NUL byte are cut there: we never write one,
                 * so such a value is foreign, and compares as different. */
                buf[n] = '\0';
                *ret_present = true;
                *ret = TAKE_PTR(buf);
                return 0;
        }
        return -EAGAIN;
}

/* value NULL removes the xattr; an xattr already gone is fine. */
static int write_xattr(int dir_fd, const char *name, const char *value) {
        if (!value) {
                if (fremovexattr(dir_fd, name) < 0 && errno != ENODATA)
                        return negative_errno();
                return 0;
        }
        if (fsetxattr(dir_fd, name, value, strlen(value), 0) < 0)
                return negative_errno();
        return 0;
}

static int read_current(int dir_fd, Backend b, const char *target, bool *ret_present, char **ret) {
        if (b == BACKEND_XATTR)
                return read_xattr(dir_fd, target, ret_present, ret);
        *ret_present = true;
        return read_knob_file(dir_fd, target, ret);
}

static int write_value(int dir_fd, Backend b, const char *target, const char *value) {
        if (b == BACKEND_XATTR)
                return write_xattr(dir_fd, target, value);
        if (!value)
                return -EINVAL;
        return write_knob_file(dir_fd, target, value);
}

static bool is_byte_file(const char *target) {
        return streq(target, "memory.swap.max") || streq(target, "memory.swap.high") ||
               streq(target, "memory.zswap.max");
}

/* Knob files as the kernel prints them: blanks collapsed, no empty lines,
 * and byte limits as page multiples (the kernel keeps pages). */
static char *normalise_knob(const char *target, const char *value) {
        g_auto(GStrv) lines = g_strsplit(value, "\n", -1);
        GString *out = g_string_new(NULL);

        for (char **l = lines; *l; l++) {
                g_auto(GStrv) words = g_strsplit_set(*l, " \t", -1);
                bool first = true;

                for (char **w = words; *w; w++) {
                        guint64 v;
                        if (**w == '\0')
                                continue;
                        if (first && out->len > 0)
                                g_string_append_c(out, '\n');
                        if (!first)
                                g_string_append_c(out, ' ');
                        if (is_byte_file(target) && g_ascii_string_to_unsigned(*w, 10, 0, UINT64_MAX, &v, NULL))
                                g_string_append_printf(out, "%" PRIu64, (uint64_t) (v - v % page_size()));
                        else
                                g_string_append(out, *w);
                        first = false;
                }
        }
        return g_string_free(out, FALSE);
}

/* memory.swap.tiers.max lists every tier the kernel has; a tier defined
 * after we planned shows up as an extra line. Compare the tiers we name. */
static bool tiers_content_equal(const char *current, const char *wanted) {
        g_auto(GStrv) cur = g_strsplit(current, "\n", -1);
        g_auto(GStrv) want = g_strsplit(wanted, "\n", -1);

        for (char **w = want; *w; w++) {
                bool found = false;
                if (**w == '\0')
                        continue;
                for (char **c = cur; *c && !found; c++)
                        found = streq(*c, *w);
                if (!found)
                        return false;
        }
        return true;
}

static bool values_equal(Backend b, const char *target, bool present, const char *current, const char *wanted) {
        if (!present || !current || !wanted)
                return !present && !wanted;
        if (b == BACKEND_XATTR)
                return streq(current, wanted);

        g_autofree char *c = normalise_knob(target, current);
        g_autofree char *w = normalise_knob(target, wanted);
        if (streq(target, SWAP_TIERS_FILE))
                return tiers_content_equal(c, w);
        return streq(c, w);
}

/* Result of one item's I/O, for the caller's bookkeeping. */
typedef enum Outcome {
        OUTCOME_OK,
        OUTCOME_FAILED,   /* reported; go on with the next item */
        OUTCOME_NO_SPACE, /* reported; go on */
        OUTCOME_VANISHED, /* the cgroup is gone: stop */
} Outcome;

typedef struct Context {
        const char *root;
        const char *cgroup;
        int dir_fd;
        ApplyFlags flags;
        ApplyReport *report;
        const ApplyHooks *hooks;
        int first_error;
        bool no_space;
} Context;

/* Classifies an error from I/O on one item. */
static Outcome fail_item(Context *ctx, Backend b, const char *target, const char *old_value,
                         const char *new_value, int r) {
        if (errno_is_vanished(r) && cgroup_vanished(ctx->root, ctx->cgroup, ctx->dir_fd))
                return OUTCOME_VANISHED;
        if (r == -ENOSPC || r == -EDQUOT) {
                /* cgroupfs: more than 128 user xattrs or 128 KiB of values. */
                report_add(ctx->report, ACTION_NO_SPACE, b, target, old_value, new_value, r);
                ctx->no_space = true;
                return OUTCOME_NO_SPACE;
        }
        report_add(ctx->report, ACTION_FAILED, b, target, old_value, new_value, r);
        if (ctx->first_error == 0)
                /* A knob file missing from a cgroup that is still there is
                 * not a vanished cgroup: do not let the caller think so. */
                ctx->first_error = errno_is_vanished(r) ? -EOPNOTSUPP : r;
        return OUTCOME_FAILED;
}

/* Undoes one recorded item: restores or removes it while it still holds
 * what we wrote, leaves it alone otherwise. OUTCOME_OK means the item can
 * leave the record. */
static Outcome undo_item(Context *ctx, const AppliedItem *it) {
        g_autofree char *current = NULL;
        bool present = false;
        int r;

        if (!target_is_valid(it->backend, it->target)) {
                report_add(ctx->report, ACTION_FAILED, it->backend, it->target, NULL, it->previous, -EINVAL);
                if (ctx->first_error == 0)
                        ctx->first_error = -EINVAL;
                return OUTCOME_FAILED;
        }

        r = read_current(ctx->dir_fd, it->backend, it->target, &present, &current);
        if (r < 0)
                return fail_item(ctx, it->backend, it->target, NULL, it->previous, r);

        if (!values_equal(it->backend, it->target, present, current, it->written)) {
                /* Still what was there before: the write recorded ahead of
                 * time never happened (a crash in between). Nothing to undo. */
                bool never_written = values_equal(it->backend, it->target, present, current,
                                                  it->had_previous ? it->previous : NULL);
                report_add(ctx->report, never_written ? ACTION_UNCHANGED : ACTION_LEFT_FOREIGN, it->backend,
                           it->target, current, it->written, 0);
                return OUTCOME_OK;
        }

        const char *restore = it->had_previous ? it->previous : NULL;
        if (ctx->flags & APPLY_DRY_RUN) {
                report_add(ctx->report, ACTION_WOULD_WRITE, it->backend, it->target, current, restore, 0);
                return OUTCOME_OK;
        }

        r = write_value(ctx->dir_fd, it->backend, it->target, restore);
        if (r < 0)
                return fail_item(ctx, it->backend, it->target, current, restore, r);
        report_add(ctx->report, it->had_previous ? ACTION_RESTORED : ACTION_REMOVED, it->backend, it->target,
                   current, restore, 0);
        return OUTCOME_OK;
}

static Outcome apply_item(Context *ctx, CgroupRecord *record, const PlanItem *item) {
        g_autofree char *current = NULL;
        bool present = false;
        guint index = 0;
        AppliedItem *rec;
        int r;

        if (!target_is_valid(item->backend, item->target) || (item->backend == BACKEND_CGROUP_FILE && !item->value)) {
                report_add(ctx->report, ACTION_FAILED, item->backend, item->target, NULL, item->value, -EINVAL);
                if (ctx->first_error == 0)
                        ctx->first_error = -EINVAL;
                return OUTCOME_FAILED;
        }

        rec = record_find(record, item->backend, item->target, &index);

        if (!item->value) {
                /* Remove: only what we set, and only while it is ours. */
                if (!rec) {
                        report_add(ctx->report, ACTION_UNCHANGED, item->backend, item->target, NULL, NULL, 0);
                        return OUTCOME_OK;
                }
                Outcome o = undo_item(ctx, rec);
                if (o == OUTCOME_OK && !(ctx->flags & APPLY_DRY_RUN))
                        g_ptr_array_remove_index(record->items, index);
                return o;
        }

        r = read_current(ctx->dir_fd, item->backend, item->target, &present, &current);
        if (r < 0)
                return fail_item(ctx, item->backend, item->target, NULL, item->value, r);

        if (values_equal(item->backend, item->target, present, current, item->value)) {
                /* Not recorded when it was not ours: undo must leave it. */
                if (rec && !(ctx->flags & APPLY_DRY_RUN) && !streq(rec->written, item->value)) {
                        g_free(rec->written);
                        rec->written = g_strdup(item->value);
                }
                report_add(ctx->report, ACTION_UNCHANGED, item->backend, item->target, current, item->value, 0);
                return OUTCOME_OK;
        }

        if (ctx->flags & APPLY_DRY_RUN) {
                report_add(ctx->report, ACTION_WOULD_WRITE, item->backend, item->target, current, item->value, 0);
                return OUTCOME_OK;
        }

        /* Write-ahead: the record learns what was there and what is about
         * to be written, and the hook makes that durable, before the write;
         * a crash in between then still leaves the way back. */
        g_autofree char *old_written = NULL;
        AppliedItem *added = NULL;
        if (record) {
                if (rec) {
                        /* Keep what was there before our first write. */
                        old_written = TAKE_PTR(rec->written);
                        rec->written = g_strdup(item->value);
                } else {
                        added = g_new0(AppliedItem, 1);
                        added->backend = item->backend;
                        added->target = g_strdup(item->target);
                        added->had_previous = present;
                        added->previous = g_strdup(current);
                        added->written = g_strdup(item->value);
                        g_ptr_array_add(record->items, added);
                }
                r = ctx->hooks && ctx->hooks->before_write ? ctx->hooks->before_write(record, ctx->hooks->userdata)
                                                           : 0;
                if (r >= 0)
                        r = write_value(ctx->dir_fd, item->backend, item->target, item->value);
        } else
                r = write_value(ctx->dir_fd, item->backend, item->target, item->value);
        if (r < 0) {
                /* Not written after all: the record goes back to the truth,
                 * which the caller's next save makes durable. */
                if (added)
                        g_ptr_array_remove(record->items, added);
                else if (rec) {
                        g_free(rec->written);
                        rec->written = TAKE_PTR(old_written);
                }
                return fail_item(ctx, item->backend, item->target, current, item->value, r);
        }
        report_add(ctx->report, ACTION_WROTE, item->backend, item->target, current, item->value, 0);
        return OUTCOME_OK;
}

static bool plan_wants(const CgroupPlan *plan, const AppliedItem *it) {
        for (guint i = 0; plan && i < plan->items->len; i++) {
                const PlanItem *p = g_ptr_array_index(plan->items, i);
                if (p->backend == it->backend && streq(p->target, it->target))
                        return true;
        }
        return false;
}

static int open_for_apply(Context *ctx) {
        int r = cgroup_open(ctx->root, ctx->cgroup, &ctx->dir_fd);
        if (r < 0) {
                bool gone = errno_is_vanished(r);
                report_add(ctx->report, gone ? ACTION_VANISHED : ACTION_FAILED, BACKEND_CGROUP_FILE, ctx->cgroup,
                           NULL, NULL, r);
                return gone ? -ENOENT : r;
        }
        return 0;
}

static int finish(Context *ctx) {
        if (ctx->first_error < 0)
                return ctx->first_error;
        return ctx->no_space ? -ENOSPC : 0;
}

int cgroup_apply_plan(const char *cgroupfs_root, const char *cgroup, const CgroupPlan *plan,
                      CgroupRecord *record, ApplyFlags flags, ApplyReport *report) {
        return cgroup_apply_plan_with_hooks(cgroupfs_root, cgroup, plan, record, flags, NULL, report);
}

int cgroup_apply_plan_with_hooks(const char *cgroupfs_root, const char *cgroup, const CgroupPlan *plan,
                                 CgroupRecord *record, ApplyFlags flags, const ApplyHooks *hooks,
                                 ApplyReport *report) {
        _cleanup_close_ int dir_fd = -1;
        Context ctx = {
                .root = cgroupfs_root,
                .cgroup = cgroup,
                .dir_fd = -1,
                .flags = flags,
                .report = report,
                .hooks = hooks,
        };
        int r;

        if (!cgroupfs_root || !plan || cgroup_path_validate(cgroup) < 0)
                return -EINVAL;
        /* A record of another cgroup would undo things in the wrong place. */
        if (record && record->cgroup && !streq(record->cgroup, cgroup))
                return -EINVAL;

        r = open_for_apply(&ctx);
        if (r < 0)
                return r;
        dir_fd = ctx.dir_fd;

        for (guint i = 0; i < plan->items->len; i++) {
                const PlanItem *item = g_ptr_array_index(plan->items, i);

                switch (item->backend) {
                case BACKEND_XATTR:
                case BACKEND_CGROUP_FILE:
                        if (apply_item(&ctx, record, item) == OUTCOME_VANISHED) {
                                report_add(report, ACTION_VANISHED, item->backend, item->target, NULL, item->value,
                                           -ENOENT);
                                return -ENOENT;
                        }
                        break;
                case BACKEND_SYSTEMD_PROPERTY:
                case BACKEND_EXEC_TIME:
                        report_add(report, ACTION_DEFERRED, item->backend, item->target, NULL, item->value, 0);
                        break;
                case BACKEND_NOT_ENFORCEABLE:
                default:
                        report_add(report, ACTION_NOT_ENFORCEABLE, item->backend, item->target, NULL, item->value, 0);
                        break;
                }
        }

        /* What we set earlier and the plan no longer mentions. */
        for (guint i = record ? record->items->len : 0; i > 0; i--) {
                const AppliedItem *it = g_ptr_array_index(record->items, i - 1);
                if (plan_wants(plan, it))
                        continue;
                Outcome o = undo_item(&ctx, it);
                if (o == OUTCOME_VANISHED) {
                        report_add(report, ACTION_VANISHED, it->backend, it->target, NULL, NULL, -ENOENT);
                        return -ENOENT;
                }
                if (o == OUTCOME_OK && !(flags & APPLY_DRY_RUN))
                        g_ptr_array_remove_index(record->items, i - 1);
        }

        return finish(&ctx);
}

int cgroup_undo(const char *cgroupfs_root, const char *cgroup, CgroupRecord *record, ApplyFlags flags,
                ApplyReport *report) {
        _cleanup_close_ int dir_fd = -1;
        Context ctx = {
                .root = cgroupfs_root,
                .cgroup = cgroup,
                .dir_fd = -1,
                .flags = flags,
                .report = report,
        };
        int r;

        if (!cgroupfs_root || !record || cgroup_path_validate(cgroup) < 0)
                return -EINVAL;
        if (record->cgroup && !streq(record->cgroup, cgroup))
                return -EINVAL;

        r = open_for_apply(&ctx);
        if (r == -ENOENT) {
                /* Gone, and what we set went with it. */
                if (!(flags & APPLY_DRY_RUN))
                        g_ptr_array_set_size(record->items, 0);
                return 0;
        }
        if (r < 0)
                return r;
        dir_fd = ctx.dir_fd;

        for (guint i = record->items->len; i > 0; i--) {
                const AppliedItem *it = g_ptr_array_index(record->items, i - 1);
                Outcome o = undo_item(&ctx, it);

                if (o == OUTCOME_VANISHED) {
                        report_add(report, ACTION_VANISHED, it->backend, it->target, NULL, NULL, -ENOENT);
                        if (!(flags & APPLY_DRY_RUN))
                                g_ptr_array_set_size(record->items, 0);
                        return 0;
                }
                /* A failed restore stays in the record, for a retry. */
                if (o == OUTCOME_OK && !(flags & APPLY_DRY_RUN))
                        g_ptr_array_remove_index(record->items, i - 1);
        }

        return finish(&ctx);
}

int systemd_property_kernel_file(const char *property, const char *value, const char **ret_file, char **ret_value) {
        static const struct {
                const char *property, *file;
        } table[] = {
                { "MemorySwapMax", "memory.swap.max" },
                { "MemoryZSwapMax", "memory.zswap.max" },
                { "MemoryZSwapWriteback", "memory.zswap.writeback" },
        };
        guint64 bytes;
        bool b;

        if (!property || !value || !ret_file || !ret_value)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                if (!streq(property, table[i].property))
                        continue;
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
                *ret_file = table[i].file;
                return 0;
        }
        return -EOPNOTSUPP;
}

int cgroup_sync_knob_file(const char *cgroupfs_root, const char *cgroup, const char *file, const char *value,
                          ApplyFlags flags, ApplyReport *report) {
        g_autoptr(CgroupPlan) plan = g_new0(CgroupPlan, 1);

        if (!file || !value)
                return -EINVAL;
        plan->items = g_ptr_array_new_with_free_func(plan_item_free_notify);
        plan_add(plan, BACKEND_CGROUP_FILE, -1, file, g_strdup(value), NULL);
        return cgroup_apply_plan(cgroupfs_root, cgroup, plan, NULL, flags, report);
}
