/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>

#include "unit-file.h"
#include "unit-plan.h"
#include "util.h"

static const char *const record_verdict_names[_UNIT_PLAN_RECORD_VERDICT_MAX] = {
        [UNIT_PLAN_RECORD_RESTORE] = "restore",
        [UNIT_PLAN_RECORD_WOULD_RESTORE] = "would restore",
        [UNIT_PLAN_RECORD_DROP_FROM_BEFORE] = "value from before",
        [UNIT_PLAN_RECORD_DROP_CHANGED] = "changed by someone else",
        [UNIT_PLAN_RECORD_DROP_NOTHING_TO_RESTORE] = "nothing to restore to",
};

const char *unit_plan_record_verdict_to_string(UnitPlanRecordVerdict v) {
        return v >= 0 && v < _UNIT_PLAN_RECORD_VERDICT_MAX ? record_verdict_names[v] : NULL;
}

/* The properties policyd may set at runtime, which the generator also
 * writes into its drop-in for the groups unit files name. */
static const char *const runtime_properties[] = {
        "MemorySwapMax", "MemoryZSwapMax", "MemoryZSwapWriteback", "AllowedMemoryNodes", NULL,
};

static void sync_free(UnitPlanSync *x) {
        if (!x)
                return;
        g_free(x->property);
        g_free(x->value);
        g_free(x);
}

static void set_free(UnitPlanSet *x) {
        if (!x)
                return;
        g_free(x->property);
        g_free(x->value);
        g_free(x->current);
        g_free(x->previous);
        g_free(x);
}

static void record_step_free(UnitPlanRecordStep *x) {
        if (!x)
                return;
        g_free(x->property);
        g_free(x->current);
        g_free(x->previous);
        g_free(x->written);
        g_free(x);
}

static void stale_restore_free(UnitPlanStaleRestore *x) {
        if (!x)
                return;
        g_free(x->property);
        g_free(x->current);
        g_free(x->admin);
        g_free(x);
}

static UnitPlan *unit_plan_new(void) {
        UnitPlan *p = g_new0(UnitPlan, 1);
        p->syncs = g_ptr_array_new_with_free_func((GDestroyNotify) sync_free);
        p->sets = g_ptr_array_new_with_free_func((GDestroyNotify) set_free);
        p->records = g_ptr_array_new_with_free_func((GDestroyNotify) record_step_free);
        p->stale_restores = g_ptr_array_new_with_free_func((GDestroyNotify) stale_restore_free);
        return p;
}

UnitPlan *unit_plan_free(UnitPlan *p) {
        if (!p)
                return NULL;
        g_strfreev(p->read_names);
        g_ptr_array_unref(p->syncs);
        g_ptr_array_unref(p->sets);
        g_ptr_array_unref(p->records);
        g_ptr_array_unref(p->stale_restores);
        g_free(p);
        return NULL;
}

bool unit_plan_sets_property(const CgroupPlan *plan, const char *property) {
        assert(plan);
        assert(property);

        for (guint i = 0; i < plan->items->len; i++) {
                const PlanItem *item = g_ptr_array_index(plan->items, i);
                if (item->backend == BACKEND_SYSTEMD_PROPERTY && item->value && streq(item->target, property))
                        return true;
        }
        return false;
}

static const char *current_value(const UnitPlanInput *in, const char *property) {
        assert(in);
        assert(property);
        return in->properties ? g_hash_table_lookup(in->properties, property) : NULL;
}

PropertyRecord *property_record_find(const GPtrArray *records, const char *property) {
        for (guint i = 0; records && i < records->len; i++) {
                PropertyRecord *rec = g_ptr_array_index(records, i);
                if (streq(rec->property, property))
                        return rec;
        }
        return NULL;
}

static const PropertyRecord *find_record(const UnitPlanInput *in, const char *property) {
        return property_record_find(in->records, property);
}

/* Whether the plan may need a call to systemd: a value to set, a record to
 * undo, or a generator drop-in to look behind. */
static bool may_need_systemd_call(const UnitPlanInput *in) {
        assert(in && in->plan);

        if (in->flags & UNIT_PLAN_GENERATED_DROPIN)
                return true;
        for (guint i = 0; i < in->plan->items->len; i++) {
                const PlanItem *item = g_ptr_array_index(in->plan->items, i);
                if (item->backend == BACKEND_SYSTEMD_PROPERTY && item->value &&
                    !systemd_property_value_equal(item->target, current_value(in, item->target), item->value))
                        return true;
        }
        for (guint i = 0; in->records && i < in->records->len; i++) {
                const PropertyRecord *rec = g_ptr_array_index(in->records, i);
                if (!unit_plan_sets_property(in->plan, rec->property))
                        return true;
        }
        return false;
}

/* The properties the plan sets through systemd, and those recorded to undo. */
static char **systemd_properties_involved(const UnitPlanInput *in) {
        g_autoptr(GStrvBuilder) b = g_strv_builder_new();
        g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

        assert(in && in->plan);
        for (guint i = 0; i < in->plan->items->len; i++) {
                const PlanItem *item = g_ptr_array_index(in->plan->items, i);
                if (item->backend == BACKEND_SYSTEMD_PROPERTY && item->value &&
                    g_hash_table_add(seen, (char *) item->target))
                        g_strv_builder_add(b, item->target);
        }
        for (guint i = 0; in->records && i < in->records->len; i++) {
                const PropertyRecord *rec = g_ptr_array_index(in->records, i);
                if (g_hash_table_add(seen, rec->property))
                        g_strv_builder_add(b, rec->property);
        }
        return g_strv_builder_end(b);
}

static void add_sync(UnitPlan *p, const char *property, const char *value, bool relied) {
        UnitPlanSync *x;

        assert(p);
        assert(property);
        x = g_new0(UnitPlanSync, 1);
        x->property = g_strdup(property);
        x->value = g_strdup(value);
        x->relied = relied;
        g_ptr_array_add(p->syncs, x);
}

/* systemd's daemon-reload changes a property that comes from the unit's
 * files without writing it to the cgroup of a running unit. policyd relies
 * on the generator's drop-in for what unit files name, so the kernel must
 * follow it both ways: to the group's value, and back to the
 * administrator's once the regenerated drop-in no longer sets it. */
static void plan_relied(const UnitPlanInput *in, UnitPlan *p) {
        assert(in && in->plan);
        assert(p);

        for (guint i = 0; i < in->plan->items->len; i++) {
                const PlanItem *item = g_ptr_array_index(in->plan->items, i);
                if (item->backend != BACKEND_SYSTEMD_PROPERTY || !item->value || find_record(in, item->target))
                        continue;
                if (!systemd_property_value_equal(item->target, current_value(in, item->target), item->value))
                        continue; /* policyd sets it, and systemd writes it then */
                add_sync(p, item->target, item->value, true);
        }

        if (!in->relied)
                return;
        GHashTableIter it;
        gpointer key, value;
        g_hash_table_iter_init(&it, in->relied);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                if (unit_plan_sets_property(in->plan, key))
                        continue;
                const char *current = current_value(in, key);
                /* Still the group's value: systemd has not reloaded yet. */
                if (!current || systemd_property_value_equal(key, current, value))
                        continue;
                add_sync(p, key, current, false);
        }
}

/* An administrator's value was asked for: from in->admin, or noted in
 * wanted to be read first. Returns the assignments, or NULL (not read, or
 * unreadable). */
static const GPtrArray *admin_assignments(const UnitPlanInput *in, GPtrArray *wanted, const char *property) {
        assert(in);
        assert(wanted);
        assert(property);

        if (!in->admin) {
                g_ptr_array_add(wanted, g_strdup(property));
                return NULL;
        }
        return g_hash_table_lookup(in->admin, property);
}

static void plan_sets(const UnitPlanInput *in, UnitPlan *p, GPtrArray *wanted) {
        bool dry_run;

        assert(in && in->plan);
        assert(p);
        dry_run = in->flags & UNIT_PLAN_DRY_RUN;
        for (guint i = 0; i < in->plan->items->len; i++) {
                const PlanItem *item = g_ptr_array_index(in->plan->items, i);
                if (item->backend != BACKEND_SYSTEMD_PROPERTY || !item->value)
                        continue;
                const char *current = current_value(in, item->target);
                if (systemd_property_value_equal(item->target, current, item->value))
                        continue;

                UnitPlanSet *x = g_new0(UnitPlanSet, 1);
                x->property = g_strdup(item->target);
                x->value = g_strdup(item->value);
                x->current = g_strdup(current);
                x->would = dry_run;
                g_ptr_array_add(p->sets, x);
                if (dry_run)
                        continue;

                const PropertyRecord *rec = find_record(in, item->target);
                if (rec) {
                        x->previous = g_strdup(rec->previous);
                        continue;
                }
                /* The value to restore on undo, read before policyd first
                 * sets property. systemd reports the value in force, and that
                 * may be our own generator's drop-in: restoring it would pin
                 * our value in /run/systemd/system.control until reboot. The
                 * administrator's files say what to restore then. */
                const GPtrArray *assignments = admin_assignments(in, wanted, item->target);
                g_autofree char *previous = NULL;
                int r = assignments ? unit_property_previous(item->target, current, assignments, &previous) : -ENOENT;
                if (r < 0)
                        x->previous = g_strdup(strempty(current));
                else {
                        x->previous = TAKE_PTR(previous);
                        x->previous_from_generated = r > 0;
                }
        }
}

/* Undo what the plan no longer wants, unless someone changed it since. */
static void plan_records(const UnitPlanInput *in, UnitPlan *p) {
        assert(in && in->plan);
        assert(p);

        for (guint i = 0; in->records && i < in->records->len; i++) {
                const PropertyRecord *rec = g_ptr_array_index(in->records, i);
                if (unit_plan_sets_property(in->plan, rec->property))
                        continue;

                const char *current = current_value(in, rec->property);
                UnitPlanRecordVerdict v;
                if (!systemd_property_value_equal(rec->property, current, rec->written))
                        /* Still the value from before: the set recorded ahead never
                         * reached systemd (a crash in between), or was undone. */
                        v = systemd_property_value_equal(rec->property, current, rec->previous)
                                    ? UNIT_PLAN_RECORD_DROP_FROM_BEFORE
                                    : UNIT_PLAN_RECORD_DROP_CHANGED;
                else if (in->flags & UNIT_PLAN_DRY_RUN)
                        v = UNIT_PLAN_RECORD_WOULD_RESTORE;
                else if (isempty(rec->previous) && !systemd_property_empty_is_value(rec->property))
                        /* Nothing to restore to: the unit never reported a value,
                         * or its files give one that cannot be told here. */
                        v = UNIT_PLAN_RECORD_DROP_NOTHING_TO_RESTORE;
                else
                        v = UNIT_PLAN_RECORD_RESTORE;
                assert(unit_plan_record_verdict_to_string(v));

                UnitPlanRecordStep *x = g_new0(UnitPlanRecordStep, 1);
                x->property = g_strdup(rec->property);
                x->verdict = v;
                x->current = g_strdup(current);
                x->previous = g_strdup(rec->previous);
                x->written = g_strdup(rec->written);
                g_ptr_array_add(p->records, x);
        }
}

/* Whether a record of property is still there after plan_records(). */
static bool record_kept(const UnitPlanInput *in, const UnitPlan *p, const char *property) {
        assert(p);
        if (!find_record(in, property))
                return false;
        for (guint i = 0; i < p->records->len; i++) {
                const UnitPlanRecordStep *x = g_ptr_array_index(p->records, i);
                if (streq(x->property, property))
                        return !unit_plan_record_verdict_drops(x->verdict);
        }
        return true;
}

/* A group that the unit no longer has may still reach systemd through the
 * generator's drop-in, until a daemon-reload. Where systemd's value is that
 * drop-in's, the administrator's value goes back at runtime now. */
static void plan_stale_generated(const UnitPlanInput *in, UnitPlan *p, GPtrArray *wanted) {
        assert(in && in->plan);
        assert(p);

        if (!(in->flags & UNIT_PLAN_GENERATED_DROPIN))
                return;
        for (const char *const *prop = runtime_properties; *prop; prop++) {
                g_autofree char *admin = NULL;
                const char *current = current_value(in, *prop);

                if (!current || unit_plan_sets_property(in->plan, *prop) || record_kept(in, p, *prop))
                        continue;
                const GPtrArray *assignments = admin_assignments(in, wanted, *prop);
                if (!assignments || unit_property_previous(*prop, current, assignments, &admin) <= 0 ||
                    isempty(admin) || systemd_property_value_equal(*prop, current, admin))
                        continue;

                UnitPlanStaleRestore *x = g_new0(UnitPlanStaleRestore, 1);
                x->property = g_strdup(*prop);
                x->current = g_strdup(current);
                x->admin = TAKE_PTR(admin);
                x->would = in->flags & UNIT_PLAN_DRY_RUN;
                g_ptr_array_add(p->stale_restores, x);
        }
}

int unit_plan_build(const UnitPlanInput *in, UnitPlan **ret) {
        g_autoptr(UnitPlan) p = unit_plan_new();
        g_autoptr(GPtrArray) wanted = g_ptr_array_new_with_free_func(g_free);

        if (!in || !in->plan || !ret)
                return -EINVAL;

        /* Re-resolved from what policyd last read of the unit (a reload of
         * policyd): enough to see that nothing is to be done. What is to be
         * done is decided on systemd's values of now, which it announces in
         * no signal: read them first. Only those, unless a generator drop-in
         * is involved (its logic reads the unit's files too). */
        if ((in->flags & UNIT_PLAN_PROPERTIES_STALE) && may_need_systemd_call(in)) {
                if (in->flags & UNIT_PLAN_GENERATED_DROPIN)
                        p->read = UNIT_PLAN_READ_UNIT;
                else {
                        p->read = UNIT_PLAN_READ_VALUES;
                        p->read_names = systemd_properties_involved(in);
                }
                *ret = TAKE_PTR(p);
                return 0;
        }

        plan_relied(in, p);
        plan_sets(in, p, wanted);
        plan_records(in, p);
        plan_stale_generated(in, p, wanted);

        /* Each pass reads either the administrator's files or nothing more. */
        assert(p->read == UNIT_PLAN_READ_NOTHING);
        if (wanted->len > 0) {
                g_autoptr(UnitPlan) first = unit_plan_new();
                assert(in->admin == NULL);
                first->read = UNIT_PLAN_READ_ADMIN;
                g_ptr_array_add(wanted, NULL);
                first->read_names = (char **) g_ptr_array_steal(wanted, NULL);
                *ret = TAKE_PTR(first);
                return 0;
        }
        *ret = TAKE_PTR(p);
        return 0;
}

UnitPlanChange unit_plan_classify(const GPtrArray *before, const Resolution *r, const PolicySet *set) {
        UnitPlanChange change = 0;
        g_autofree char *tag = resolution_group_tag(r);
        g_autofree char *was = membership_list_tag(before);
        guint moved = 0;

        assert(r);
        if (!streq(tag, was))
                change |= UNIT_PLAN_GROUPS_CHANGED;

        /* A move between groups that select by focus, and only such groups:
         * it follows the user's every click on another window. */
        if (!before)
                return change; /* the first resolution: a join, not a move */
        for (int side = 0; side < 2; side++) {
                const GPtrArray *from = side ? before : r->memberships;
                const GPtrArray *other = side ? r->memberships : before;
                for (guint i = 0; i < from->len; i++) {
                        const char *name = ((const Membership *) g_ptr_array_index(from, i))->group;
                        if (membership_list_has(other, name))
                                continue;
                        const PolicyGroup *g = policy_set_get(set, name);
                        if (!g || !policy_group_reads_focus(g))
                                return change;
                        moved++;
                }
        }
        if (moved > 0)
                change |= UNIT_PLAN_FOCUS_MOVE;
        return change;
}
