/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "explain.h"
#include "swap-tier-tree.h"
#include "policy-values.h"
#include "util.h"

static void explain_row_free(gpointer p) {
        ExplainRow *row = p;
        g_free(row->name);
        g_free(row->requested);
        g_free(row->effective);
        g_free(row->group);
        g_free(row->where);
        g_free(row->note);
        g_free(row);
}

static bool parse_limit(const char *s, uint64_t *ret) {
        char *end;

        if (!s)
                return false;
        if (streq(s, "max")) {
                *ret = UINT64_MAX;
                return true;
        }
        if (!g_ascii_isdigit(s[0]))
                return false;
        errno = 0;
        *ret = strtoull(s, &end, 10);
        return errno == 0 && *end == '\0';
}

char *explain_human_value(const char *value) {
        uint64_t v;

        if (!value || streq(value, "max") || !parse_limit(value, &v))
                return g_strdup(value);
        return format_size(v);
}

char *explain_parent_cap_note(const char *cgroup, const char *file, const char *requested, ExplainReadFunc read,
                              void *userdata) {
        uint64_t want, lowest = UINT64_MAX;
        g_autofree char *lowest_at = NULL;
        g_autofree char *parent = NULL;

        assert(read);
        if (!cgroup || !file || !parse_limit(requested, &want))
                return NULL;
        parent = g_path_get_dirname(cgroup);
        while (!streq(parent, "/") && !streq(parent, ".")) {
                g_autofree char *v = read(parent, BACKEND_CGROUP_FILE, file, userdata);
                uint64_t limit;
                if (parse_limit(v, &limit) && limit < lowest) {
                        lowest = limit;
                        g_free(lowest_at);
                        lowest_at = g_strdup(parent);
                }
                char *up = g_path_get_dirname(parent);
                g_free(parent);
                parent = up;
        }
        if (!lowest_at || lowest >= want)
                return NULL;
        g_autofree char *have = format_size(lowest), *want_h = explain_human_value(requested);
        return g_strdup_printf("capped by %s: its %s is %s, below the %s requested", lowest_at, file, have,
                               want_h);
}

const char *explain_kernel_file(const PlanItem *item, char **ret_want) {
        const char *file;

        assert(item && ret_want);
        *ret_want = NULL;
        if (item->backend == BACKEND_CGROUP_FILE) {
                *ret_want = g_strdup(item->value);
                return item->target;
        }
        if (item->backend != BACKEND_SYSTEMD_PROPERTY)
                return NULL;
        /* systemd writes cpuset.mems; what the kernel grants shows in the
         * effective file, after the parent's restrictions. */
        if (streq(item->target, "AllowedMemoryNodes")) {
                *ret_want = g_strdup(item->value);
                return "cpuset.mems.effective";
        }
        file = systemd_property_file(item->target);
        if (!file)
                return NULL;
        if (!item->value || systemd_property_kernel_file(item->target, item->value, &file, ret_want) < 0)
                *ret_want = g_strdup(item->value);
        return file;
}

/* Where a cgroup without the cpuset controller may allocate: the nearest
 * ancestor's cpuset.mems.effective (the root has one whenever the kernel
 * has cpuset). The row's effective value, and its place, for the note. */
static char *ancestor_mems(const char *cgroup, ExplainReadFunc read, void *userdata, char **ret_where) {
        g_autofree char *at = NULL;

        assert(cgroup && read && ret_where);
        at = g_path_get_dirname(cgroup);
        for (;;) {
                char *v = read(at, BACKEND_CGROUP_FILE, "cpuset.mems.effective", userdata);
                if (v) {
                        *ret_where = TAKE_PTR(at);
                        return v;
                }
                if (streq(at, "/") || streq(at, "."))
                        return NULL;
                char *up = g_path_get_dirname(at);
                g_free(at);
                at = up;
        }
}

/* The group and line behind an item: its knob's, or its [Attributes] entry's. */
static void item_origin(const Resolution *res, const PlanItem *item, ExplainRow *row) {
        assert(res && item && row);

        const ResolvedKnob *knob = (int) item->knob >= 0 && item->knob < _KNOB_MAX ? &res->knobs[item->knob] : NULL;
        const Provenance *source = NULL;
        const char *group = NULL;

        if (knob && knob->set) {
                g_autofree char *as_written = knob_value_format(item->knob, &knob->value);
                g_autofree char *as_applied = explain_human_value(item->value);
                /* "50%" means little beside an effective "4G" without what it came to. */
                bool came_to = as_applied && knob_type(item->knob) == KNOB_TYPE_MEMORY_LIMIT &&
                               !streq(as_applied, as_written) && !streq(as_applied, "max") &&
                               !streq(as_applied, "infinity");
                row->requested = came_to ? g_strdup_printf("%s (%s)", as_written, as_applied) : g_strdup(as_written);
                row->name = streq(knob_to_string(item->knob), item->target)
                                    ? g_strdup(item->target)
                                    : g_strdup_printf("%s (%s)", knob_to_string(item->knob), item->target);
                group = knob->group;
                source = &knob->source;
        } else {
                row->requested = g_strdup(item->value);
                row->name = g_strdup(item->target);
                for (guint j = 0; res->attributes && j < res->attributes->len; j++) {
                        const ResolvedAttribute *a = g_ptr_array_index(res->attributes, j);
                        if (streq(a->name, item->target)) {
                                group = a->group;
                                source = &a->source;
                        }
                }
        }
        row->group = g_strdup(group);
        row->where = source && source->file ? g_strdup_printf("%s:%u", source->file, source->line) : g_strdup("");
}

/* memory.swap.tiers.max: the kernel lets the cgroup use a tier only where
 * its own file and every ancestor's allow it, and no file shows that
 * (swap tiers v10 has no .effective): computed here, walking up, with the
 * ancestor that takes away each tier the cgroup's file allows. */
static void swap_tiers_effective(ExplainRow *row, const char *cgroup, const char *written, const char *reason,
                                 ExplainReadFunc read, void *userdata) {
        g_autofree char *own = read(cgroup, BACKEND_CGROUP_FILE, SWAP_TIERS_FILE, userdata);
        g_auto(GStrv) effective = tier_file_allowed(own ?: written);
        g_autoptr(GString) denied = g_string_new(NULL);
        g_autofree char *parent = g_path_get_dirname(cgroup);

        while (!streq(parent, "/") && !streq(parent, ".")) {
                g_autofree char *v = read(parent, BACKEND_CGROUP_FILE, SWAP_TIERS_FILE, userdata);
                if (v) {
                        g_auto(GStrv) up = tier_file_allowed(v);
                        g_auto(GStrv) lost = tier_set_minus(effective, up);
                        if (lost) {
                                g_autofree char *names = g_strjoinv(",", lost);
                                g_string_append_printf(denied, "%s%s denied by %s", denied->len ? "; " : "", names,
                                                       parent);
                                g_auto(GStrv) kept = tier_set_minus(effective, lost);
                                g_strfreev(effective);
                                effective = g_steal_pointer(&kept);
                        }
                }
                char *next = g_path_get_dirname(parent);
                g_free(parent);
                parent = next;
        }
        row->effective = effective ? g_strjoinv(",", effective) : g_strdup("none");
        if (!own)
                row->note = g_strdup_printf("%s cannot be read", SWAP_TIERS_FILE);
        else if (!isempty(written) && !tier_file_holds(own, written))
                row->note = g_strdup_printf("its file holds %s, not what policyd wrote", own);
        if (reason)
                explain_row_add_note(row, reason);
        if (denied->len > 0) {
                g_autofree char *d = g_strdup_printf("effective from the ancestors: %s", denied->str);
                explain_row_add_note(row, d);
        }
        if (row->note)
                g_strdelimit(row->note, "\n", ',');
}

ExplainRow *explain_swap_tiers_row(const char *cgroup, const char *written, const char *reason, ExplainReadFunc read,
                                   void *userdata) {
        ExplainRow *row = g_new0(ExplainRow, 1);

        row->name = g_strdup("SwapTiers (" SWAP_TIERS_FILE ")");
        row->requested = g_strdup("");
        row->backend = BACKEND_CGROUP_FILE;
        row->group = g_strdup("");
        row->where = g_strdup("");
        swap_tiers_effective(row, cgroup, written, reason, read, userdata);
        return row;
}

GPtrArray *explain_rows(const Resolution *res, const CgroupPlan *plan, const char *cgroup, bool exec_time_stale,
                        ExplainReadFunc read, void *userdata) {
        GPtrArray *rows = g_ptr_array_new_with_free_func(explain_row_free);

        assert(plan && read);
        for (guint i = 0; i < plan->items->len; i++) {
                const PlanItem *item = g_ptr_array_index(plan->items, i);
                ExplainRow *row = g_new0(ExplainRow, 1);
                g_autofree char *want = NULL;
                const char *file;

                row->backend = item->backend;
                item_origin(res, item, row);
                if (item->backend == BACKEND_XATTR)
                        row->effective = read(cgroup, BACKEND_XATTR, item->target, userdata);
                else if (item->backend == BACKEND_MIGRATE_PAGES && cgroup) {
                        g_autofree char *where = NULL;
                        row->effective = ancestor_mems(cgroup, read, userdata, &where);
                        if (row->effective)
                                row->note = g_strdup_printf("%s; they may use nodes %s, as the nearest cpuset "
                                                            "(of %s) allows",
                                                            item->reason, row->effective, where);
                }
                else if (item->backend == BACKEND_CGROUP_FILE && streq(item->target, SWAP_TIERS_FILE) && cgroup)
                        swap_tiers_effective(row, cgroup, item->value, item->reason, read, userdata);
                else if ((file = explain_kernel_file(item, &want))) {
                        g_autofree char *raw = read(cgroup, BACKEND_CGROUP_FILE, file, userdata);
                        row->effective = explain_human_value(raw);
                        row->note = explain_parent_cap_note(cgroup, file, want, read, userdata);
                        /* cpuset.mems.effective spells a list its own way ("0-1"). */
                        if (!row->note && raw && want && !streq(raw, want) && !streq(file, "cpuset.mems.effective"))
                                row->note = g_strdup_printf("the kernel has %s, not the %s requested", raw, want);
                }
                if (!row->note && item->reason)
                        row->note = g_strdup(item->reason);
                g_ptr_array_add(rows, row);
        }

        /* A user's input named a group here, at a delegation root: say why
         * none of its knobs show (resolve.h, delegation_root_refuses()). */
        for (guint i = 0; res && res->notes && i < res->notes->len; i++) {
                const ResolveNote *n = g_ptr_array_index(res->notes, i);
                if (n->kind != RESOLVE_NOTE_DELEGATION_ROOT)
                        continue;
                ExplainRow *row = g_new0(ExplainRow, 1);
                row->name = g_strdup_printf("group %s", n->group);
                row->backend = BACKEND_SYSTEMD_PROPERTY;
                row->group = g_strdup(n->group);
                row->where = g_strdup("");
                row->note = g_strdup_printf(
                        "not applied: %s on a system unit's own cgroup, delegated to its user; that delegation root's "
                        "limits and knob files are the administrator's: the user's own cgroups start below it",
                        n->source == MEMBERSHIP_SELF_REQUEST ? "user.policy.request" : "matched by the owner's xattrs");
                g_ptr_array_add(rows, row);
        }

        if (exec_time_stale) {
                ExplainRow *row = g_new0(ExplainRow, 1);
                row->name = g_strdup("exec-time settings");
                row->backend = BACKEND_EXEC_TIME;
                row->where = g_strdup("");
                row->note = g_strdup("stale: a group the unit file names changed; run 'systemctl daemon-reload' and "
                                     "restart the unit");
                g_ptr_array_add(rows, row);
        }
        return rows;
}

static ExplainRow *property_row(GPtrArray *rows, const char *property) {
        g_autofree char *suffix = g_strdup_printf("(%s)", property);

        for (guint i = 0; i < rows->len; i++) {
                ExplainRow *row = g_ptr_array_index(rows, i);
                if (row->backend == BACKEND_SYSTEMD_PROPERTY && (streq(row->name, property) || g_str_has_suffix(row->name, suffix)))
                        return row;
        }
        return NULL;
}

void explain_row_add_note(ExplainRow *row, const char *note) {
        char *joined = isempty(row->note) ? g_strdup(note) : g_strconcat(row->note, "; ", note, NULL);
        g_free(row->note);
        row->note = joined;
}

static void add_property_row(GPtrArray *rows, const char *property, const char *requested, const char *effective,
                             const char *note) {
        ExplainRow *row = g_new0(ExplainRow, 1);
        row->name = g_strdup(property);
        row->requested = g_strdup(requested);
        row->effective = g_strdup(effective);
        row->backend = BACKEND_SYSTEMD_PROPERTY;
        row->where = g_strdup("");
        row->note = g_strdup(note);
        g_ptr_array_add(rows, row);
}

void explain_add_unit_plan(GPtrArray *rows, const UnitPlan *up) {
        if (!up)
                return;
        if (up->read != UNIT_PLAN_READ_NOTHING) {
                /* Its lists are empty until what it asks for is read. */
                g_autofree char *names = up->read_names ? g_strjoinv(", ", up->read_names) : NULL;
                g_autofree char *note = g_strdup_printf(
                        "policyd reads %s from %s before it sets or restores any property",
                        isempty(names) ? "the unit" : names,
                        up->read == UNIT_PLAN_READ_ADMIN ? "the unit's files at its next pass" : "systemd again");
                add_property_row(rows, "unit properties", NULL, NULL, note);
                return;
        }
        for (guint i = 0; i < up->syncs->len; i++) {
                const UnitPlanSync *x = g_ptr_array_index(up->syncs, i);
                ExplainRow *row = x->relied ? property_row(rows, x->property) : NULL;
                if (row)
                        explain_row_add_note(row, "systemd has this value already (the unit's files, or policyd-generator's "
                                          "drop-in): policyd sets nothing, and keeps the kernel file in line");
        }
        for (guint i = 0; i < up->records->len; i++) {
                const UnitPlanRecordStep *x = g_ptr_array_index(up->records, i);
                if (x->verdict == UNIT_PLAN_RECORD_RESTORE || x->verdict == UNIT_PLAN_RECORD_WOULD_RESTORE)
                        add_property_row(rows, x->property, x->previous, x->current,
                                         x->verdict == UNIT_PLAN_RECORD_RESTORE
                                                 ? "no group sets it now: policyd restores the value from before it set it"
                                                 : "no group sets it now: policyd would restore the value from before "
                                                   "it set it (dry run)");
        }
        for (guint i = 0; i < up->stale_restores->len; i++) {
                const UnitPlanStaleRestore *x = g_ptr_array_index(up->stale_restores, i);
                add_property_row(rows, x->property, x->admin, x->current,
                                 x->would ? "policyd-generator's drop-in has it for a group the unit no longer has: "
                                            "policyd would restore the unit files' value at runtime (dry run)"
                                          : "policyd-generator's drop-in has it for a group the unit no longer has: "
                                            "policyd restores the unit files' value at runtime");
        }
}
