/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "policy-values.h"
#include "swap-tiers-conf.h"
#include "system-facts.h"
#include "util.h"

SwapTier *swap_tier_new(const char *name, int prio, const char *file, unsigned line) {
        SwapTier *t = g_new0(SwapTier, 1);
        t->name = g_strdup(name);
        t->prio = prio;
        t->file = g_strdup(file);
        t->line = line;
        return t;
}

SwapTier *swap_tier_free(SwapTier *t) {
        if (!t)
                return NULL;
        g_free(t->name);
        g_free(t->file);
        g_free(t);
        return NULL;
}

static void swap_tier_free_void(gpointer p) {
        swap_tier_free(p);
}

SwapDevice *swap_device_free(SwapDevice *d) {
        if (!d)
                return NULL;
        g_free(d->path);
        g_free(d);
        return NULL;
}

static void swap_device_free_void(gpointer p) {
        swap_device_free(p);
}

static int fail(const char **ret_why, const char *why, int r) {
        if (ret_why)
                *ret_why = why;
        return r;
}

/* A decimal int in [min, max], no blanks, no "+". */
static int parse_prio(const char *s, int *ret) {
        char *end;
        long v;

        if (isempty(s) || !(g_ascii_isdigit(*s) || (*s == '-' && g_ascii_isdigit(s[1]))))
                return -EINVAL;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno != 0 || *end != '\0')
                return -EINVAL;
        if (v < SWAP_TIER_PRIO_MIN || v > SWAP_TIER_PRIO_MAX)
                return -ERANGE;
        *ret = (int) v;
        return 0;
}

int swap_tier_parse(const char *value, char **ret_name, int *ret_prio, const char **ret_why) {
        const char *colon = value ? strrchr(value, ':') : NULL;
        int prio, r;

        if (!colon)
                return fail(ret_why, "expected NAME:PRIO, the tier's name and its lowest swap priority", -EINVAL);
        g_autofree char *name = g_strndup(value, (gsize) (colon - value));
        r = validate_tier_name(name, ret_why);
        if (r < 0)
                return r;
        if (swap_tier_is_keyword(name))
                return fail(ret_why, "'none' and 'zswap' are SwapTiers= keywords in policy files, not tier names",
                            -EINVAL);
        r = parse_prio(colon + 1, &prio);
        if (r == -ERANGE)
                return fail(ret_why, "the priority must lie in -1..32767 (the kernel's range of swap priorities)", r);
        if (r < 0)
                return fail(ret_why, "the priority is not an integer", r);
        if (ret_name)
                *ret_name = TAKE_PTR(name);
        if (ret_prio)
                *ret_prio = prio;
        return 0;
}

static char *where(const SwapTier *t) {
        return t->line > 0 ? g_strdup_printf("%s:%u", strempty(t->file), t->line) : g_strdup(strempty(t->file));
}

bool swap_tiers_check(GPtrArray *declared, Diagnostics *diags) {
        const SwapTier *lowest = NULL;
        bool ok = true;

        if (!declared || declared->len == 0)
                return true;
        for (guint i = 0; i < declared->len; i++) {
                const SwapTier *t = g_ptr_array_index(declared, i);
                for (guint j = 0; j < i; j++) {
                        const SwapTier *o = g_ptr_array_index(declared, j);
                        g_autofree char *first = where(o);
                        if (streq(o->name, t->name)) {
                                diagnostics_add(diags, DIAGNOSTIC_ERROR, t->file, t->line,
                                                "Swap tier '%s' is declared twice (first at %s); an empty Tier= "
                                                "resets the list",
                                                t->name, first);
                                ok = false;
                        } else if (o->prio == t->prio) {
                                diagnostics_add(diags, DIAGNOSTIC_ERROR, t->file, t->line,
                                                "Swap tiers '%s' and '%s' (%s) both start at priority %d; the "
                                                "kernel takes one tier per start priority",
                                                t->name, o->name, first, t->prio);
                                ok = false;
                        }
                }
                if (!lowest || t->prio < lowest->prio)
                        lowest = t;
        }
        if (lowest->prio != SWAP_TIER_PRIO_MIN) {
                diagnostics_add(diags, DIAGNOSTIC_ERROR, lowest->file, lowest->line,
                                "The lowest swap tier, '%s', starts at %d: the kernel needs the lowest tier to start "
                                "at -1, so that every swap priority has a tier",
                                lowest->name, lowest->prio);
                ok = false;
        }
        return ok;
}

/* The header: the four column names, as swap_tiers_sysfs_show() prints them. */
static bool is_header(char **cols) {
        static const char *const names[] = { "Name", "Idx", "PrioStart", "PrioEnd" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (!cols[i] || !streq(cols[i], names[i]))
                        return false;
        return !cols[ELEMENTSOF(names)];
}

/* Splits on blanks, dropping empty words. */
static char **words(const char *line) {
        g_auto(GStrv) all = g_strsplit_set(line, " \t", -1);
        g_autoptr(GPtrArray) w = g_ptr_array_new();
        for (char **p = all; *p; p++)
                if (**p)
                        g_ptr_array_add(w, g_strdup(*p));
        g_ptr_array_add(w, NULL);
        return (char **) g_ptr_array_free(TAKE_PTR(w), FALSE);
}

int swap_tiers_parse_kernel(const char *text, GPtrArray **ret) {
        g_autoptr(GPtrArray) tiers = g_ptr_array_new_with_free_func(swap_tier_free_void);
        g_auto(GStrv) lines = g_strsplit(strempty(text), "\n", -1);
        bool first = true;

        for (char **l = lines; *l; l++) {
                g_auto(GStrv) cols = words(*l);
                int start;

                if (!cols[0])
                        continue;
                if (first) {
                        first = false;
                        if (is_header(cols))
                                continue;
                }
                if (g_strv_length(cols) != 4 || validate_tier_name(cols[0], NULL) < 0 ||
                    parse_prio(cols[2], &start) < 0)
                        return -EBADMSG;
                g_ptr_array_add(tiers, swap_tier_new(cols[0], start, NULL, 0));
        }
        *ret = TAKE_PTR(tiers);
        return 0;
}

GPtrArray *swap_devices_parse(const char *text) {
        GPtrArray *devices = g_ptr_array_new_with_free_func(swap_device_free_void);
        g_auto(GStrv) lines = g_strsplit(strempty(text), "\n", -1);

        for (char **l = lines; *l; l++) {
                g_auto(GStrv) cols = words(*l);
                char *end;
                long prio;

                /* Filename Type Size Used Priority */
                if (g_strv_length(cols) != 5)
                        continue;
                errno = 0;
                prio = strtol(cols[4], &end, 10);
                if (errno != 0 || *end != '\0' || end == cols[4] || prio < -32768 || prio > 32767)
                        continue;
                SwapDevice *d = g_new0(SwapDevice, 1);
                d->path = g_strdup(cols[0]);
                d->prio = (int) prio;
                g_ptr_array_add(devices, d);
        }
        return devices;
}

SwapTiersPlan *swap_tiers_plan_free(SwapTiersPlan *p) {
        if (!p)
                return NULL;
        g_free(p->write);
        g_clear_pointer(&p->notes, g_ptr_array_unref);
        g_free(p->refusal);
        g_free(p);
        return NULL;
}

/* ---- a model of the kernel's tiers (swap tiers v10, mm/swap_tier.c) ---- */

typedef struct ModelTier {
        char name[SWAP_TIER_NAME_MAX + 1];
        int prio;
} ModelTier;

/* Tiers sorted by start, highest first, as the kernel's active list. */
typedef struct Model {
        GArray *tiers; /* ModelTier */
} Model;

static int model_find(const Model *m, const char *name) {
        for (guint i = 0; i < m->tiers->len; i++)
                if (streq(g_array_index(m->tiers, ModelTier, i).name, name))
                        return (int) i;
        return -1;
}

/* The tier whose range holds prio: the first (highest) starting at or below it. */
static int model_tier_of(const Model *m, int prio) {
        for (guint i = 0; i < m->tiers->len; i++)
                if (g_array_index(m->tiers, ModelTier, i).prio <= prio)
                        return (int) i;
        return -1;
}

static void model_insert(Model *m, const char *name, int prio) {
        ModelTier t = { .prio = prio };
        guint i = 0;

        g_strlcpy(t.name, name, sizeof(t.name));
        while (i < m->tiers->len && g_array_index(m->tiers, ModelTier, i).prio > prio)
                i++;
        g_array_insert_val(m->tiers, i, t);
}

/* Each active device sits in the tier it got at swapon (or when tiers were
 * first defined), by name; a device swapped on while no tier existed has
 * none until then, and never blocks. */
typedef struct ModelDevice {
        const SwapDevice *device;
        char tier[SWAP_TIER_NAME_MAX + 1];
} ModelDevice;

/* swap_tier_can_split_range(): EBUSY when a device sits in the tier that
 * spans new_prio at or above it. */
static const ModelDevice *model_blocking_device(const Model *m, GArray *devices, int new_prio) {
        int i = model_tier_of(m, new_prio);
        if (i < 0)
                return NULL;
        const char *tier = g_array_index(m->tiers, ModelTier, i).name;
        for (guint d = 0; d < devices->len; d++) {
                const ModelDevice *md = &g_array_index(devices, ModelDevice, d);
                if (streq(md->tier, tier) && md->device->prio >= new_prio)
                        return md;
        }
        return NULL;
}

static char *busy_reason(const ModelDevice *md, const char *what) {
        return g_strdup_printf("%s would move the active swap device %s (priority %d, in tier '%s') to another "
                               "tier, and the kernel refuses that (EBUSY): tiers are defined before swapon. Turn "
                               "it off (swapoff %s), apply, and turn it on again, or let "
                               "policyd-swap-tiers.service apply them at boot",
                               what, md->device->path, md->device->prio, md->tier, md->device->path);
}

/* Runs "-NAME" and "+NAME:PRIO" as swap_tiers_remove() and
 * swap_tiers_add() do; a refusal is the reason. */
static char *model_remove(Model *m, GArray *devices, const char *name) {
        int i = model_find(m, name);
        if (i < 0)
                return g_strdup_printf("-%s: no such tier (EINVAL)", name);
        ModelTier *t = &g_array_index(m->tiers, ModelTier, i);
        g_autofree char *what = g_strdup_printf("Removing tier '%s'", name);
        const ModelDevice *md = model_blocking_device(m, devices, t->prio);
        if (md)
                return busy_reason(md, what);
        /* Removing the lowest moves the one above down to -1. */
        if (m->tiers->len > 1 && t->prio == SWAP_TIER_PRIO_MIN && i > 0)
                g_array_index(m->tiers, ModelTier, i - 1).prio = SWAP_TIER_PRIO_MIN;
        g_array_remove_index(m->tiers, (guint) i);
        return NULL;
}

static const SwapTier *find_tier(GPtrArray *tiers, const char *name);

/* kernel: the tiers before the write, to tell a tier the model moved. */
static char *model_add(Model *m, GArray *devices, GPtrArray *kernel, const char *name, int prio) {
        if (model_find(m, name) >= 0)
                return g_strdup_printf("+%s:%d: tier '%s' exists already (EEXIST)", name, prio, name);
        for (guint i = 0; i < m->tiers->len; i++) {
                const ModelTier *t = &g_array_index(m->tiers, ModelTier, i);
                const SwapTier *before = find_tier(kernel, t->name);
                if (t->prio != prio)
                        continue;
                if (before && before->prio != t->prio)
                        return g_strdup_printf("Defining tier '%s' at %d: removing the lowest tier first moves "
                                               "tier '%s' down to %d (the kernel merges upwards), so the start is "
                                               "in use (EBUSY); turn swap off, remove the tiers by hand and apply "
                                               "again",
                                               name, prio, t->name, t->prio);
                return g_strdup_printf("Defining tier '%s' at %d: tier '%s' starts there already, and the kernel "
                                       "takes one tier per start priority (EBUSY); remove '%s' first (echo -%s > "
                                       "/sys/kernel/mm/swap/tiers) or declare it",
                                       name, prio, t->name, t->name, t->name);
        }
        g_autofree char *what = g_strdup_printf("Defining tier '%s' at %d", name, prio);
        const ModelDevice *md = model_blocking_device(m, devices, prio);
        if (md)
                return busy_reason(md, what);
        model_insert(m, name, prio);
        return NULL;
}

static const SwapTier *find_tier(GPtrArray *tiers, const char *name) {
        for (guint i = 0; tiers && i < tiers->len; i++) {
                const SwapTier *t = g_ptr_array_index(tiers, i);
                if (streq(t->name, name))
                        return t;
        }
        return NULL;
}

static gint compare_prio_descending(gconstpointer a, gconstpointer b) {
        const SwapTier *x = *(const SwapTier *const *) a, *y = *(const SwapTier *const *) b;
        return x->prio < y->prio ? 1 : x->prio > y->prio ? -1 : 0;
}

int swap_tiers_plan(GPtrArray *declared, GPtrArray *kernel, GPtrArray *devices, SwapTiersPlan **ret) {
        g_autoptr(SwapTiersPlan) p = g_new0(SwapTiersPlan, 1);
        g_autoptr(GPtrArray) ops = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) adds = g_ptr_array_new();
        g_autoptr(GArray) model_devices = g_array_new(FALSE, TRUE, sizeof(ModelDevice));
        Model m = { .tiers = g_array_new(FALSE, TRUE, sizeof(ModelTier)) };

        if (!ret)
                return -EINVAL;
        p->notes = g_ptr_array_new_with_free_func(g_free);

        for (guint i = 0; kernel && i < kernel->len; i++) {
                const SwapTier *t = g_ptr_array_index(kernel, i);
                model_insert(&m, t->name, t->prio);
        }
        /* Devices get a tier only once tiers exist. */
        for (guint i = 0; devices && i < devices->len && m.tiers->len > 0; i++) {
                ModelDevice md = { .device = g_ptr_array_index(devices, i) };
                int t = model_tier_of(&m, md.device->prio);
                if (t < 0)
                        continue;
                g_strlcpy(md.tier, g_array_index(m.tiers, ModelTier, t).name, sizeof(md.tier));
                g_array_append_val(model_devices, md);
        }

        /* What each tier needs, in the kernel's order, then the declared
         * ones it lacks. */
        for (guint i = 0; kernel && i < kernel->len; i++) {
                const SwapTier *k = g_ptr_array_index(kernel, i);
                const SwapTier *d = find_tier(declared, k->name);
                if (!d)
                        g_ptr_array_add(p->notes, g_strdup_printf("%s %d: left alone (not in [SwapTiers])", k->name,
                                                                  k->prio));
                else if (d->prio == k->prio)
                        g_ptr_array_add(p->notes, g_strdup_printf("%s %d: as declared", d->name, d->prio));
                else {
                        g_ptr_array_add(p->notes,
                                        g_strdup_printf("%s %d: removed and defined again (the kernel has it at %d); "
                                                        "every cgroup's memory.swap.tiers.max goes back to max for it",
                                                        d->name, d->prio, k->prio));
                        g_ptr_array_add(ops, g_strdup_printf("-%s", k->name));
                        g_ptr_array_add(adds, (gpointer) d);
                }
        }
        for (guint i = 0; declared && i < declared->len; i++) {
                const SwapTier *d = g_ptr_array_index(declared, i);
                if (find_tier(kernel, d->name))
                        continue;
                g_ptr_array_add(p->notes, g_strdup_printf("%s %d: defined (the kernel has no such tier)", d->name,
                                                          d->prio));
                g_ptr_array_add(adds, (gpointer) d);
        }
        g_ptr_array_sort(adds, compare_prio_descending);
        for (guint i = 0; i < adds->len; i++) {
                const SwapTier *d = g_ptr_array_index(adds, i);
                g_ptr_array_add(ops, g_strdup_printf("+%s:%d", d->name, d->prio));
        }

        /* Through the model, in order, as the kernel runs one write. */
        for (guint i = 0; i < ops->len && !p->refusal; i++) {
                const char *op = g_ptr_array_index(ops, i);
                if (op[0] == '-')
                        p->refusal = model_remove(&m, model_devices, op + 1);
                else {
                        const char *colon = strrchr(op, ':');
                        g_autofree char *name = g_strndup(op + 1, (gsize) (colon - op - 1));
                        p->refusal = model_add(&m, model_devices, kernel, name, atoi(colon + 1));
                }
        }
        if (!p->refusal && m.tiers->len > 0 &&
            g_array_index(m.tiers, ModelTier, m.tiers->len - 1).prio != SWAP_TIER_PRIO_MIN)
                p->refusal = g_strdup_printf("the lowest tier would start at %d, and the kernel needs -1 (EINVAL)",
                                             g_array_index(m.tiers, ModelTier, m.tiers->len - 1).prio);
        /* Where the kernel would end: every declared tier as declared, the
         * others where they were. */
        for (guint i = 0; i < m.tiers->len && !p->refusal; i++) {
                const ModelTier *t = &g_array_index(m.tiers, ModelTier, i);
                const SwapTier *want = find_tier(declared, t->name) ?: find_tier(kernel, t->name);
                if (want && want->prio != t->prio)
                        p->refusal = g_strdup_printf("the kernel would then start tier '%s' at %d, not %d: removing "
                                                     "the lowest tier moves the one above it down to -1",
                                                     t->name, t->prio, want->prio);
        }
        g_array_unref(m.tiers);

        if (!p->refusal && ops->len > 0) {
                g_ptr_array_add(ops, NULL);
                p->write = g_strjoinv(" ", (char **) ops->pdata);
        }
        *ret = TAKE_PTR(p);
        return 0;
}
