/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "swap-tier-tree.h"

#include <string.h>

#include "system-facts.h"
#include "util.h"

static void tier_request_free(void *p) {
        TierRequest *r = p;

        if (!r)
                return;
        g_free((char *) r->cgroup);
        g_strfreev(r->allowed);
        g_free(r);
}

TierTree *tier_tree_new(void) {
        TierTree *t = g_new0(TierTree, 1);

        t->requests = g_ptr_array_new_with_free_func(tier_request_free);
        return t;
}

TierTree *tier_tree_free(TierTree *t) {
        if (!t)
                return NULL;
        g_ptr_array_unref(t->requests);
        g_free(t);
        return NULL;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* A sorted copy without duplicates; NULL when empty. */
static char **tier_set_new(char *const *v) {
        g_autoptr(GPtrArray) a = g_ptr_array_new();

        for (; v && *v; v++)
                g_ptr_array_add(a, *v);
        if (a->len == 0)
                return NULL;
        g_ptr_array_sort(a, cmp_str);
        char **r = g_new0(char *, a->len + 1);
        size_t n = 0;
        for (guint i = 0; i < a->len; i++) {
                const char *s = g_ptr_array_index(a, i);
                if (n == 0 || !streq(r[n - 1], s))
                        r[n++] = g_strdup(s);
        }
        return r;
}

void tier_tree_add(TierTree *t, const char *cgroup, char *const *allowed, bool from_user) {
        TierRequest *r = g_new0(TierRequest, 1);

        r->cgroup = g_strdup(cgroup);
        r->allowed = tier_set_new(allowed);
        r->from_user = from_user;
        g_ptr_array_add(t->requests, r);
}

const TierRequest *tier_tree_find(const TierTree *t, const char *cgroup) {
        for (guint i = 0; t && i < t->requests->len; i++) {
                const TierRequest *r = g_ptr_array_index(t->requests, i);
                if (streq(r->cgroup, cgroup))
                        return r;
        }
        return NULL;
}

/* Whether d lies strictly below a ("/" is the root, above everything). */
static bool path_strictly_below(const char *d, const char *a) {
        size_t n = strlen(a);

        if (streq(a, "/"))
                return !streq(d, "/");
        return strncmp(d, a, n) == 0 && d[n] == '/';
}

bool tier_set_contains(char *const *a, const char *tier) {
        for (; a && *a; a++)
                if (streq(*a, tier))
                        return true;
        return false;
}

char **tier_set_union(char *const *a, char *const *b) {
        g_autoptr(GPtrArray) v = g_ptr_array_new();

        for (; a && *a; a++)
                g_ptr_array_add(v, *a);
        for (; b && *b; b++)
                g_ptr_array_add(v, *b);
        g_ptr_array_add(v, NULL);
        return tier_set_new((char *const *) v->pdata);
}

char **tier_set_minus(char *const *a, char *const *b) {
        g_autoptr(GPtrArray) v = g_ptr_array_new();

        for (; a && *a; a++)
                if (!tier_set_contains(b, *a))
                        g_ptr_array_add(v, *a);
        g_ptr_array_add(v, NULL);
        return tier_set_new((char *const *) v->pdata);
}

bool tier_set_equal(char *const *a, char *const *b) {
        for (; a && *a && b && *b; a++, b++)
                if (!streq(*a, *b))
                        return false;
        return !(a && *a) && !(b && *b);
}

const TierRequest *tier_tree_nearest(const TierTree *t, const char *cgroup) {
        const TierRequest *best = NULL;

        for (guint i = 0; i < t->requests->len; i++) {
                const TierRequest *r = g_ptr_array_index(t->requests, i);
                if (!streq(r->cgroup, cgroup) && !path_strictly_below(cgroup, r->cgroup))
                        continue;
                if (!best || strlen(r->cgroup) > strlen(best->cgroup))
                        best = r;
        }
        return best;
}

/* The union of the administrator's requests strictly below cgroup. */
static char **admin_below(const TierTree *t, const char *cgroup, bool *ret_any) {
        char **u = NULL;
        bool any = false;

        for (guint i = 0; i < t->requests->len; i++) {
                const TierRequest *r = g_ptr_array_index(t->requests, i);
                if (r->from_user || !path_strictly_below(r->cgroup, cgroup))
                        continue;
                char **n = tier_set_union(u, r->allowed);
                g_strfreev(u);
                u = n;
                any = true;
        }
        if (ret_any)
                *ret_any = any;
        return u;
}

bool tier_tree_has_admin_below(const TierTree *t, const char *cgroup) {
        bool any;

        g_strfreev(admin_below(t, cgroup, &any));
        return any;
}

bool tier_tree_desired(const TierTree *t, const char *cgroup, char ***ret) {
        const TierRequest *r = tier_tree_nearest(t, cgroup);

        *ret = NULL;
        if (!r)
                return false;
        g_auto(GStrv) below = admin_below(t, cgroup, NULL);
        *ret = tier_set_union(r->allowed, below);
        return true;
}

char **tier_tree_widening(const TierTree *t, const char *cgroup) {
        const TierRequest *r = tier_tree_find(t, cgroup);

        if (!r)
                return NULL;
        g_auto(GStrv) below = admin_below(t, cgroup, NULL);
        return tier_set_minus(below, r->allowed);
}

void tier_tree_child_file(const TierTree *t, const char *parent, const char *cgroup, bool *ret_write, char ***ret) {
        g_auto(GStrv) mine = NULL, theirs = NULL;
        bool restricted = tier_tree_desired(t, cgroup, &mine);
        bool parent_restricted = tier_tree_desired(t, parent, &theirs);

        /* A file left as the kernel makes it (all max) passes on the
         * parent's: write only where that is not what this one needs. */
        *ret_write = restricted && (!parent_restricted || !tier_set_equal(mine, theirs));
        *ret = *ret_write ? g_steal_pointer(&mine) : NULL;
}

char *tier_file_content(char *const *defined, char *const *allowed) {
        GString *s = g_string_new(NULL);

        for (; defined && *defined; defined++)
                g_string_append_printf(s, "%s%s %s", s->len > 0 ? "\n" : "", *defined,
                                       !swap_tier_is_keyword(*defined) && tier_set_contains(allowed, *defined)
                                               ? "max" : "0");
        return g_string_free(s, FALSE);
}

/* Calls f for each "NAME VALUE" line of a memory.swap.tiers.max content. */
static void for_each_line(const char *content, void (*f)(const char *name, const char *value, void *u), void *u) {
        g_auto(GStrv) lines = g_strsplit(content ?: "", "\n", -1);

        for (char **l = lines; *l; l++) {
                g_auto(GStrv) w = g_strsplit_set(g_strstrip(*l), " \t", -1);
                size_t n = 0;
                const char *name = NULL, *value = NULL;
                for (char **x = w; *x; x++) {
                        if (**x == '\0')
                                continue;
                        if (n == 0)
                                name = *x;
                        else if (n == 1)
                                value = *x;
                        n++;
                }
                if (n == 2)
                        f(name, value, u);
        }
}

static void add_allowed(const char *name, const char *value, void *u) {
        if (!streq(value, "0"))
                g_ptr_array_add(u, g_strdup(name));
}

char **tier_file_allowed(const char *content) {
        g_autoptr(GPtrArray) v = g_ptr_array_new_with_free_func(g_free);

        for_each_line(content, add_allowed, v);
        g_ptr_array_add(v, NULL);
        return tier_set_new((char *const *) v->pdata);
}

static void find_denied(const char *name, const char *value, void *u) {
        (void) name;
        if (streq(value, "0"))
                *(bool *) u = true;
}

bool tier_file_unrestricted(const char *content) {
        bool denied = false;

        for_each_line(content, find_denied, &denied);
        return !denied;
}

static void collect_values(const char *name, const char *value, void *u) {
        g_hash_table_replace(u, g_strdup(name), GINT_TO_POINTER(!streq(value, "0") + 1));
}

/* Each file's tiers: name → 1 (denied) or 2 (allowed). */
static void read_pair(const char *current, const char *ours, GHashTable **ret_cur, GHashTable **ret_want) {
        *ret_cur = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        *ret_want = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        for_each_line(current, collect_values, *ret_cur);
        for_each_line(ours, collect_values, *ret_want);
}

bool tier_file_holds(const char *current, const char *ours) {
        g_autoptr(GHashTable) cur = NULL, want = NULL;
        GHashTableIter i;
        gpointer k, v;

        read_pair(current, ours, &cur, &want);
        g_hash_table_iter_init(&i, cur);
        while (g_hash_table_iter_next(&i, &k, &v)) {
                gpointer w = g_hash_table_lookup(want, k);
                if (w ? w != v : GPOINTER_TO_INT(v) != 2)
                        return false;
        }
        g_hash_table_iter_init(&i, want);
        while (g_hash_table_iter_next(&i, &k, NULL))
                if (!g_hash_table_contains(cur, k))
                        return false;
        return true;
}

bool tier_file_within(const char *current, const char *ours) {
        g_autoptr(GHashTable) cur = NULL, want = NULL;
        GHashTableIter i;
        gpointer k, v;

        read_pair(current, ours, &cur, &want);
        g_hash_table_iter_init(&i, cur);
        while (g_hash_table_iter_next(&i, &k, &v))
                if (GPOINTER_TO_INT(v) == 1 && GPOINTER_TO_INT(g_hash_table_lookup(want, k)) != 1)
                        return false;
        return true;
}
