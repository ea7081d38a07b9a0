/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "policy-group.h"
#include "util.h"

static const struct {
        const char *key;
        const char *section;
        KnobType type;
} knob_table[_KNOB_MAX] = {
        [KNOB_SWAP_MAX] = { "SwapMax", "Swap", KNOB_TYPE_MEMORY_LIMIT },
        [KNOB_SWAP_HIGH] = { "SwapHigh", "Swap", KNOB_TYPE_MEMORY_LIMIT },
        [KNOB_ZSWAP_MAX] = { "ZSwapMax", "Swap", KNOB_TYPE_MEMORY_LIMIT },
        [KNOB_ZSWAP_WRITEBACK] = { "ZSwapWriteback", "Swap", KNOB_TYPE_BOOLEAN },
        [KNOB_SWAP_TIERS] = { "SwapTiers", "Swap", KNOB_TYPE_TIERS },
        [KNOB_KSM] = { "KSM", "Memory", KNOB_TYPE_BOOLEAN },
        [KNOB_NUMA_POLICY] = { "NUMAPolicy", "Memory", KNOB_TYPE_NUMA_POLICY },
        [KNOB_NUMA_NODES] = { "NUMANodes", "Memory", KNOB_TYPE_NUMA_NODES },
};

const char *knob_to_string(Knob k) {
        if ((int) k < 0 || k >= _KNOB_MAX)
                return NULL;
        return knob_table[k].key;
}

Knob knob_from_string(const char *s) {
        for (int k = 0; k < _KNOB_MAX; k++)
                if (streq(s, knob_table[k].key))
                        return (Knob) k;
        return (Knob) -1;
}

KnobType knob_type(Knob k) {
        return knob_table[k].type;
}

const char *knob_section(Knob k) {
        return knob_table[k].section;
}

void knob_value_clear(KnobValue *v) {
        g_strfreev(v->tiers);
        *v = (KnobValue) {};
}

void knob_value_copy(KnobValue *dst, const KnobValue *src) {
        *dst = *src;
        dst->tiers = g_strdupv(src->tiers);
}

bool knob_value_equal(Knob k, const KnobValue *a, const KnobValue *b) {
        switch (knob_type(k)) {
        case KNOB_TYPE_MEMORY_LIMIT:
                return memory_limit_equal(&a->limit, &b->limit);
        case KNOB_TYPE_BOOLEAN:
                return a->boolean == b->boolean;
        case KNOB_TYPE_TIERS: {
                guint na = a->tiers ? g_strv_length(a->tiers) : 0;
                guint nb = b->tiers ? g_strv_length(b->tiers) : 0;
                if (na != nb)
                        return false;
                for (guint i = 0; i < na; i++)
                        if (!streq(a->tiers[i], b->tiers[i]))
                                return false;
                return true;
        }
        case KNOB_TYPE_NUMA_POLICY:
                return a->numa_policy == b->numa_policy;
        case KNOB_TYPE_NUMA_NODES:
                return numa_node_mask_equal(&a->numa_nodes, &b->numa_nodes);
        }
        return false;
}

char *knob_value_format(Knob k, const KnobValue *v) {
        switch (knob_type(k)) {
        case KNOB_TYPE_MEMORY_LIMIT:
                return format_memory_limit(&v->limit);
        case KNOB_TYPE_BOOLEAN:
                return g_strdup(v->boolean ? "yes" : "no");
        case KNOB_TYPE_TIERS:
                return v->tiers ? g_strjoinv(" ", v->tiers) : g_strdup("");
        case KNOB_TYPE_NUMA_POLICY:
                return g_strdup(numa_policy_to_string(v->numa_policy));
        case KNOB_TYPE_NUMA_NODES:
                return format_numa_nodes(&v->numa_nodes);
        }
        return g_strdup("?");
}

void provenance_set(Provenance *p, const char *file, unsigned line) {
        g_free(p->file);
        p->file = g_strdup(file);
        p->line = line;
}

void provenance_clear(Provenance *p) {
        g_clear_pointer(&p->file, g_free);
        p->line = 0;
}

static void attribute_setting_free(AttributeSetting *a) {
        if (!a)
                return;
        g_free(a->name);
        g_free(a->value);
        provenance_clear(&a->source);
        g_free(a);
}

static const char *const match_manager_names[_MATCH_MANAGER_MAX] = {
        [MATCH_MANAGER_SYSTEM] = "system",
        [MATCH_MANAGER_USER] = "user",
        [MATCH_MANAGER_ANY] = "any",
};

const char *match_manager_to_string(MatchManager m) {
        return (int) m >= 0 && m < _MATCH_MANAGER_MAX ? match_manager_names[m] : NULL;
}

int match_manager_from_string(const char *s) {
        for (int i = 0; i < _MATCH_MANAGER_MAX; i++)
                if (streq_ptr(s, match_manager_names[i]))
                        return i;
        return -EINVAL;
}

PolicyGroup *policy_group_new(const char *name) {
        PolicyGroup *g = g_new0(PolicyGroup, 1);

        g->name = g_strdup(name);
        g->dropins = g_ptr_array_new_with_free_func(g_free);
        g->match_units = g_ptr_array_new_with_free_func(g_free);
        g->match_slices = g_ptr_array_new_with_free_func(g_free);
        g->match_cgroups = g_ptr_array_new_with_free_func(g_free);
        g->match_users = g_ptr_array_new_with_free_func(g_free);
        g->match_xattrs = g_ptr_array_new_with_free_func(g_free);
        g->match_executables = g_ptr_array_new_with_free_func(g_free);
        g->match_focused = -1;
        g->match_inactive_usec = FOCUS_UNSET;
        g->documentation = g_ptr_array_new_with_free_func(g_free);
        g->attributes = g_ptr_array_new_with_free_func((GDestroyNotify) attribute_setting_free);
        return g;
}

PolicyGroup *policy_group_free(PolicyGroup *g) {
        if (!g)
                return NULL;
        g_free(g->name);
        g_free(g->description);
        g_ptr_array_unref(g->documentation);
        g_free(g->file);
        g_ptr_array_unref(g->dropins);
        g_ptr_array_unref(g->match_units);
        g_ptr_array_unref(g->match_slices);
        g_ptr_array_unref(g->match_cgroups);
        g_ptr_array_unref(g->match_users);
        g_ptr_array_unref(g->match_xattrs);
        g_ptr_array_unref(g->match_executables);
        for (int k = 0; k < _KNOB_MAX; k++) {
                knob_value_clear(&g->knobs[k].value);
                provenance_clear(&g->knobs[k].source);
        }
        g_ptr_array_unref(g->attributes);
        g_free(g);
        return NULL;
}

static void format_list(GString *out, const char *key, const GPtrArray *list) {
        if (list->len == 0)
                return;
        g_string_append_printf(out, "%s=", key);
        for (guint i = 0; i < list->len; i++)
                g_string_append_printf(out, "%s%s", i > 0 ? " " : "", (const char *) g_ptr_array_index(list, i));
        g_string_append_c(out, '\n');
}

char *policy_group_format(const PolicyGroup *g) {
        GString *out = g_string_new(NULL);
        const char *section = NULL;

        g_string_append_printf(out, "# %s\n[PolicyGroup]\n", g->name);
        if (g->description)
                g_string_append_printf(out, "Description=%s\n", g->description);
        format_list(out, "Documentation", g->documentation);
        g_string_append_printf(out, "Priority=%u\nAllowSelfAssign=%s\nApplyToRunning=%s\n", g->priority,
                               g->allow_self_assign ? "yes" : "no", g->apply_to_running ? "yes" : "no");

        if (g->match_units->len + g->match_slices->len + g->match_cgroups->len + g->match_users->len +
                            g->match_xattrs->len + g->match_executables->len >
                    0 ||
            g->match_focused >= 0 || g->match_inactive_usec != FOCUS_UNSET || g->match_manager != MATCH_MANAGER_SYSTEM)
                g_string_append(out, "[Match]\n");
        if (g->match_manager != MATCH_MANAGER_SYSTEM)
                g_string_append_printf(out, "Manager=%s\n", match_manager_to_string(g->match_manager));
        format_list(out, "Unit", g->match_units);
        format_list(out, "Slice", g->match_slices);
        format_list(out, "ControlGroup", g->match_cgroups);
        format_list(out, "User", g->match_users);
        format_list(out, "XAttr", g->match_xattrs);
        if (g->match_focused >= 0)
                g_string_append_printf(out, "Focused=%s\n", g->match_focused ? "yes" : "no");
        if (g->match_inactive_usec != FOCUS_UNSET) {
                g_autofree char *span = format_timespan(g->match_inactive_usec);
                g_string_append_printf(out, "InactiveFor=%s\n", span);
        }
        format_list(out, "Executable", g->match_executables);

        for (int k = 0; k < _KNOB_MAX; k++) {
                const KnobSetting *s = &g->knobs[k];
                if (!s->set)
                        continue;
                if (!streq_ptr(section, knob_section((Knob) k))) {
                        section = knob_section((Knob) k);
                        g_string_append_printf(out, "[%s]\n", section);
                }
                g_autofree char *v = knob_value_format((Knob) k, &s->value);
                /* Comments on lines of their own: the output is a valid policy file. */
                g_string_append_printf(out, "# %s:%u\n%s=%s\n", strempty(s->source.file), s->source.line,
                                       knob_to_string((Knob) k), v);
        }

        if (g->attributes->len > 0)
                g_string_append(out, "[Attributes]\n");
        for (guint i = 0; i < g->attributes->len; i++) {
                const AttributeSetting *a = g_ptr_array_index(g->attributes, i);
                g_string_append_printf(out, "# %s:%u\nXAttr=%s=%s\n", strempty(a->source.file), a->source.line,
                                       a->name, a->value);
        }
        return g_string_free(out, FALSE);
}

DEFINE_FREE_NOTIFY(policy_group_free, PolicyGroup)

PolicySet *policy_set_new(void) {
        PolicySet *s = g_new0(PolicySet, 1);
        s->groups = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, policy_group_free_notify);
        s->masked = g_ptr_array_new_with_free_func(g_free);
        return s;
}

PolicySet *policy_set_free(PolicySet *s) {
        if (!s)
                return NULL;
        g_hash_table_unref(s->groups);
        g_ptr_array_unref(s->masked);
        g_free(s);
        return NULL;
}

void policy_set_add(PolicySet *s, PolicyGroup *g) {
        /* The key is the group's own name, freed with the group. */
        g_hash_table_replace(s->groups, g->name, g);
}

const PolicyGroup *policy_set_get(const PolicySet *s, const char *name) {
        return g_hash_table_lookup(s->groups, name);
}

GPtrArray *policy_set_sorted_names(const PolicySet *s) {
        GPtrArray *names = g_ptr_array_new();
        GHashTableIter it;
        gpointer key;

        g_hash_table_iter_init(&it, s->groups);
        while (g_hash_table_iter_next(&it, &key, NULL))
                g_ptr_array_add(names, key);
        g_ptr_array_sort(names, strcmp_ptr);
        return names;
}

guint policy_set_size(const PolicySet *s) {
        return g_hash_table_size(s->groups);
}
