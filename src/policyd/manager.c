/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "bus-api.h"
#include "bus-util.h"
#include "log.h"
#include "manager.h"
#include "state-store.h"
#include "systemd-watch.h"
#include "target-argument.h"
#include "unit-file.h"
#include "util.h"

DEFINE_FREE_NOTIFY(resolution_free, Resolution)

static void property_record_destroy(gpointer p) {
        property_record_free(p);
}

static void ptr_array_destroy(gpointer p) {
        g_ptr_array_unref(p);
}

/* ---- targets ---- */

static Target *target_free(Target *t) {
        if (!t)
                return NULL;
        g_free(t->unit);
        g_free(t->object_path);
        g_free(t->cgroup);
        g_free(t->slice);
        g_free(t->user);
        g_free(t->fragment);
        g_strfreev(t->dropins);
        g_free(t->active_state);
        g_free(t->no_space_logged);
        g_hash_table_unref(t->unit_properties);
        resolution_free(t->resolution);
        cgroup_record_free(t->record);
        g_ptr_array_unref(t->property_records);
        g_hash_table_unref(t->relied_properties);
        if (t->last_report)
                g_ptr_array_unref(t->last_report);
        g_free(t);
        return NULL;
}
DEFINE_FREE_NOTIFY(target_free, Target)

static const char *target_key(const Target *t) {
        return t->unit ? t->unit : t->cgroup;
}

/* Creates a target and adopts what an earlier run recorded for it. */
static Target *target_new(Manager *m, const char *unit, const char *cgroup) {
        Target *t = g_new0(Target, 1);
        t->manager = m;
        t->unit = g_strdup(unit);
        t->cgroup = g_strdup(cgroup);
        t->unit_properties = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        t->property_records = g_ptr_array_new_with_free_func(property_record_destroy);
        t->relied_properties = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

        const char *key = target_key(t);
        if (state_load_cgroup_record(m->state_dir, key, &t->record) < 0)
                t->record = NULL;
        (void) state_load_property_records(m->state_dir, key, t->property_records);
        if (unit)
                (void) sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit, &t->object_path);

        g_hash_table_insert(m->targets, g_strdup(key), t);
        return t;
}

Target *manager_find_target(Manager *m, const char *key) {
        return key ? g_hash_table_lookup(m->targets, key) : NULL;
}

void manager_save_target(Manager *m, Target *t) {
        int r;

        if (m->dry_run)
                return;
        r = state_save_cgroup_record(m->state_dir, target_key(t), t->record);
        if (r < 0)
                log_context(LOG_WARNING, r, t->unit, NULL, NULL, 0, "Failed to save what was applied: %m");
        r = state_save_property_records(m->state_dir, target_key(t), t->property_records);
        if (r < 0)
                log_context(LOG_WARNING, r, t->unit, NULL, NULL, 0, "Failed to save the properties set: %m");
}

/* ---- gathering a candidate (the I/O edge of resolution) ---- */

typedef struct CandidateData {
        Candidate c;
        char **slices;
        GPtrArray *xattrs;
        char **unit_groups;
        GPtrArray *runtime;
        GPtrArray *excluded;
        char **self_requests;
} CandidateData;

static void candidate_data_clear(CandidateData *d) {
        g_strfreev(d->slices);
        if (d->xattrs)
                g_ptr_array_unref(d->xattrs);
        g_strfreev(d->unit_groups);
        if (d->runtime)
                g_ptr_array_unref(d->runtime);
        if (d->excluded)
                g_ptr_array_unref(d->excluded);
        g_strfreev(d->self_requests);
}

/* user.* xattrs of a cgroup as "name=value", through its open directory. */
static GPtrArray *read_user_xattrs(int fd) {
        GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
        char names[65536];
        ssize_t n = flistxattr(fd, names, sizeof(names));

        for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t) strlen(names + i) + 1) {
                const char *name = names + i;
                char value[4096];
                if (!g_str_has_prefix(name, "user."))
                        continue;
                ssize_t k = fgetxattr(fd, name, value, sizeof(value) - 1);
                if (k < 0)
                        continue;
                value[k] = '\0';
                g_ptr_array_add(out, g_strdup_printf("%s=%s", name, value));
        }
        g_ptr_array_add(out, NULL);
        return out;
}

/* NSS is asked once per uid and reload, not on every apply: it may be slow,
 * or fail under the unit's sandbox. */
static const char *user_name_of(Manager *m, uid_t uid) {
        gpointer key = GUINT_TO_POINTER(uid + 1); /* 0 is no key for a direct hash */
        char *name = g_hash_table_lookup(m->user_names, key);

        if (!name && !g_hash_table_contains(m->user_names, key)) {
                struct passwd pw, *result = NULL;
                char buf[4096];
                if (getpwuid_r(uid, &pw, buf, sizeof(buf), &result) == 0 && result)
                        name = g_strdup(pw.pw_name);
                g_hash_table_insert(m->user_names, key, name);
        }
        return name;
}

static GPtrArray *groups_for(GHashTable *table, const char *a, const char *b) {
        GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
        const char *keys[] = { a, b };

        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                GPtrArray *groups = keys[i] ? g_hash_table_lookup(table, keys[i]) : NULL;
                for (guint j = 0; groups && j < groups->len; j++)
                        g_ptr_array_add(out, g_strdup(g_ptr_array_index(groups, j)));
        }
        g_ptr_array_add(out, NULL);
        return out;
}

static void gather_candidate(Target *t, CandidateData *d) {
        Manager *m = t->manager;
        g_autofree char *path = g_build_filename(m->cgroup_root, t->cgroup, NULL);
        /* One open directory for the owner and every xattr. */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        struct stat st;

        d->slices = unit_slice_chain(t->slice);
        d->c.unit = t->unit;
        d->c.slices = (const char *const *) d->slices;
        d->c.cgroup = t->cgroup;
        d->c.user = t->user;

        if (fd >= 0 && fstat(fd, &st) >= 0) {
                d->c.owner_known = true;
                d->c.owner_uid = st.st_uid;
                d->c.owner_name = user_name_of(m, st.st_uid);
        }

        /* user.* xattrs are policy input only where root owns the cgroup:
         * below a delegation boundary, anyone the cgroup was handed to can
         * write them (as systemd-oomd trusts them only on root's cgroups). */
        if (d->c.owner_known && d->c.owner_uid == 0) {
                d->xattrs = read_user_xattrs(fd);
                d->c.xattrs = (const char *const *) d->xattrs->pdata;
        }

        if (t->unit) {
                g_autoptr(Diagnostics) diags = diagnostics_new();
                (void) unit_file_read_policy_groups(t->unit, t->fragment, (const char *const *) t->dropins,
                                                    &d->unit_groups, diags);
                for (guint i = 0; i < diags->items->len; i++) {
                        const Diagnostic *diag = g_ptr_array_index(diags->items, i);
                        log_context(LOG_WARNING, 0, t->unit, NULL, diag->file, diag->line, "%s:%u: %s",
                                    strempty(diag->file), diag->line, diag->message);
                }
                d->c.unit_groups = (const char *const *) d->unit_groups;
        }

        d->runtime = groups_for(m->assignments, t->unit, t->cgroup);
        d->excluded = groups_for(m->exclusions, t->unit, t->cgroup);
        d->c.runtime_groups = (const char *const *) d->runtime->pdata;
        d->c.runtime_excluded = (const char *const *) d->excluded->pdata;

        /* Self-requests are honoured only on a delegated cgroup, and only as
         * written by its owner: systemd hands the directory to the unit's
         * user when Delegate=yes. */
        char request[1024];
        ssize_t k = fd >= 0 ? fgetxattr(fd, POLICY_REQUEST_XATTR, request, sizeof(request) - 1) : -1;
        if (k > 0) {
                request[k] = '\0';
                d->self_requests = g_strsplit_set(request, ", ", -1);
                d->c.self_requests = (const char *const *) d->self_requests;
                d->c.self_request_trusted =
                        streq_ptr(g_hash_table_lookup(t->unit_properties, "Delegate"), "yes") && d->c.owner_known;
        }
}

/* ---- applying ---- */

static void log_action(Target *t, const Action *a) {
        const char *who = t->unit ? t->unit : t->cgroup;
        switch (a->result) {
        case ACTION_WROTE:
                log_context(LOG_NOTICE, 0, who, NULL, NULL, 0, "Set %s=%s (was %s)", a->target,
                            strempty(a->new_value), a->old_value ? a->old_value : "unset");
                break;
        case ACTION_WOULD_WRITE:
                log_context(LOG_NOTICE, 0, who, NULL, NULL, 0, "Would set %s=%s (is %s)", a->target,
                            strempty(a->new_value), a->old_value ? a->old_value : "unset");
                break;
        case ACTION_RESTORED:
        case ACTION_REMOVED:
                log_context(LOG_NOTICE, 0, who, NULL, NULL, 0, "Undid %s: %s", a->target,
                            a->result == ACTION_REMOVED ? "removed" : strempty(a->new_value));
                break;
        case ACTION_LEFT_FOREIGN:
                log_context(LOG_INFO, 0, who, NULL, NULL, 0, "Left %s=%s alone: someone else changed it",
                            a->target, strempty(a->old_value));
                break;
        case ACTION_NO_SPACE:
                break; /* all of them in one message: log_no_space() */
        case ACTION_FAILED:
                log_context(LOG_WARNING, a->error, who, NULL, NULL, 0, "Failed to write %s: %m", a->target);
                break;
        case ACTION_VANISHED:
                log_context(LOG_DEBUG, a->error, who, NULL, NULL, 0, "cgroup vanished while applying");
                break;
        default:
                break;
        }
}

/* One warning for every xattr that did not fit, naming the unit in its
 * text too: a journal line per attribute helps nobody. */
static void log_no_space(Target *t, const ApplyReport *report) {
        g_autoptr(GString) names = g_string_new(NULL);
        unsigned n = 0;
        size_t bytes = 0;

        for (guint i = 0; i < report->actions->len; i++) {
                const Action *a = g_ptr_array_index(report->actions, i);
                if (a->result != ACTION_NO_SPACE)
                        continue;
                if (n < 8)
                        g_string_append_printf(names, "%s%s", n ? ", " : "", a->target);
                n++;
                bytes += a->new_value ? strlen(a->new_value) : 0;
        }
        if (n > 8)
                g_string_append_printf(names, " and %u more", n - 8);
        /* Once while it stays so: every refresh of the unit meets it again. */
        if (streq_ptr(t->no_space_logged, n > 0 ? names->str : NULL))
                return;
        g_free(t->no_space_logged);
        t->no_space_logged = n > 0 ? g_strdup(names->str) : NULL;
        if (n == 0)
                return;
        const char *who = t->unit ? t->unit : t->cgroup;
        log_context(LOG_WARNING, -ENOSPC, who, NULL, NULL, 0,
                    "%s: %u extended attributes (%zu bytes) did not fit on %s, whose limits (128 user.* names, "
                    "128 KiB of values) are reached: %s. The other settings are applied.",
                    who, n, bytes, t->cgroup, names->str);
}

static PropertyRecord *find_property_record(Target *t, const char *property) {
        for (guint i = 0; i < t->property_records->len; i++) {
                PropertyRecord *p = g_ptr_array_index(t->property_records, i);
                if (streq(p->property, property))
                        return p;
        }
        return NULL;
}

/* The value to restore on undo, read before policyd first sets property.
 * systemd reports the value in force, and that may be our own generator's
 * drop-in: restoring it would pin our value in /run/systemd/system.control
 * until reboot. The administrator's files say what to restore then. */
static char *property_previous(Target *t, const char *property, const char *current) {
        g_autoptr(GPtrArray) assignments = NULL;
        char *previous = NULL;
        int r;

        r = unit_file_read_property(t->unit, t->fragment, (const char *const *) t->dropins, property, &assignments);
        if (r < 0)
                return g_strdup(strempty(current));
        r = unit_property_previous(property, current, assignments, &previous);
        if (r < 0)
                return g_strdup(strempty(current));
        if (r > 0)
                log_context(LOG_DEBUG, 0, t->unit, NULL, NULL, 0,
                            "%s=%s comes from policyd-generator's drop-in; recording %s as the value to restore",
                            property, strempty(current), isempty(previous) ? "nothing" : previous);
        return previous;
}

/* Writes systemd's value of property to its kernel file, where they differ. */
static void sync_kernel_file(Target *t, const char *property, const char *value) {
        Manager *m = t->manager;
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autofree char *kernel_value = NULL;
        const char *file;
        int r;

        if (isempty(t->cgroup) || systemd_property_kernel_file(property, value, &file, &kernel_value) < 0)
                return;
        r = cgroup_sync_knob_file(m->cgroup_root, t->cgroup, file, kernel_value, m->dry_run ? APPLY_DRY_RUN : 0,
                                  report);
        for (guint i = 0; i < report->actions->len; i++) {
                const Action *a = g_ptr_array_index(report->actions, i);
                if (a->result == ACTION_WROTE)
                        log_context(LOG_NOTICE, 0, t->unit, NULL, NULL, 0,
                                    "systemd holds %s=%s but did not write it (daemon-reload): set %s=%s (was %s)",
                                    property, value, file, strempty(a->new_value), strempty(a->old_value));
                else
                        log_action(t, a);
        }
        if (r < 0 && !errno_is_vanished(r))
                log_context(LOG_DEBUG, r, t->unit, NULL, NULL, 0, "Failed to bring %s in line with %s: %m", file,
                            property);
}

/* systemd's daemon-reload changes a property that comes from the unit's
 * files without writing it to the cgroup of a running unit. policyd relies
 * on the generator's drop-in for what unit files name, so the kernel must
 * follow it both ways: to the group's value, and back to the
 * administrator's once the regenerated drop-in no longer sets it. */
static void sync_relied_properties(Target *t, const CgroupPlan *plan) {
        for (guint i = 0; i < plan->items->len; i++) {
                const PlanItem *item = g_ptr_array_index(plan->items, i);
                if (item->backend != BACKEND_SYSTEMD_PROPERTY || !item->value ||
                    find_property_record(t, item->target))
                        continue;
                const char *current = g_hash_table_lookup(t->unit_properties, item->target);
                if (!systemd_property_value_equal(item->target, current, item->value))
                        continue; /* policyd sets it, and systemd writes it then */
                g_hash_table_replace(t->relied_properties, g_strdup(item->target), g_strdup(item->value));
                sync_kernel_file(t, item->target, item->value);
        }

        GHashTableIter it;
        gpointer key, value;
        g_hash_table_iter_init(&it, t->relied_properties);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                bool wanted = false;
                for (guint j = 0; j < plan->items->len && !wanted; j++) {
                        const PlanItem *item = g_ptr_array_index(plan->items, j);
                        wanted = item->backend == BACKEND_SYSTEMD_PROPERTY && item->value && streq(item->target, key);
                }
                if (wanted)
                        continue;
                const char *current = g_hash_table_lookup(t->unit_properties, key);
                /* Still the group's value: systemd has not reloaded yet. */
                if (!current || systemd_property_value_equal(key, current, value))
                        continue;
                sync_kernel_file(t, key, current);
                g_hash_table_iter_remove(&it);
        }
}

/* The properties policyd may set at runtime, which the generator also
 * writes into its drop-in for the groups unit files name. */
static const char *const runtime_properties[] = {
        "MemorySwapMax", "MemoryZSwapMax", "MemoryZSwapWriteback", "AllowedMemoryNodes", NULL,
};

static bool has_generated_dropin(const Target *t) {
        for (char **d = t->dropins; d && *d; d++)
                if (unit_dropin_is_generated(*d))
                        return true;
        return false;
}

static bool plan_sets_property(const CgroupPlan *plan, const char *property) {
        for (guint i = 0; i < plan->items->len; i++) {
                const PlanItem *item = g_ptr_array_index(plan->items, i);
                if (item->backend == BACKEND_SYSTEMD_PROPERTY && item->value && streq(item->target, property))
                        return true;
        }
        return false;
}

/* A group that the unit no longer has may still reach systemd through the
 * generator's drop-in, until a daemon-reload. Where systemd's value is that
 * drop-in's, the administrator's value goes back at runtime now. */
static void restore_stale_generated(Target *t, const CgroupPlan *plan, GPtrArray *restores) {
        if (!has_generated_dropin(t))
                return;
        for (const char *const *p = runtime_properties; *p; p++) {
                g_autoptr(GPtrArray) assignments = NULL;
                g_autofree char *admin = NULL;
                const char *current = g_hash_table_lookup(t->unit_properties, *p);

                if (!current || plan_sets_property(plan, *p) || find_property_record(t, *p))
                        continue;
                if (unit_file_read_property(t->unit, t->fragment, (const char *const *) t->dropins, *p,
                                            &assignments) < 0 ||
                    unit_property_previous(*p, current, assignments, &admin) <= 0 || isempty(admin) ||
                    systemd_property_value_equal(*p, current, admin))
                        continue;
                log_context(LOG_INFO, 0, t->unit, NULL, NULL, 0,
                            "%s=%s comes from policyd-generator's drop-in for a group the unit no longer has; "
                            "restoring %s at runtime",
                            *p, current, admin);
                if (t->manager->dry_run)
                        continue;
                /* Set through systemd now: nothing left for the kernel-file sync. */
                g_hash_table_remove(t->relied_properties, *p);
                property_changes_add(restores, *p, admin, NULL);
        }
}

static void apply_systemd_properties(Target *t, const CgroupPlan *plan) {
        Manager *m = t->manager;
        g_autoptr(GPtrArray) sets = property_changes_new(), restores = property_changes_new();

        sync_relied_properties(t, plan);
        for (guint i = 0; i < plan->items->len; i++) {
                const PlanItem *item = g_ptr_array_index(plan->items, i);
                if (item->backend != BACKEND_SYSTEMD_PROPERTY || !item->value)
                        continue;

                const char *current = g_hash_table_lookup(t->unit_properties, item->target);
                if (systemd_property_value_equal(item->target, current, item->value))
                        continue;
                g_hash_table_remove(t->relied_properties, item->target);
                if (m->dry_run) {
                        log_context(LOG_NOTICE, 0, t->unit, NULL, NULL, 0, "Would set %s=%s (is %s)", item->target,
                                    item->value, strempty(current));
                        continue;
                }
                const PropertyRecord *rec = find_property_record(t, item->target);
                g_autofree char *previous = rec ? g_strdup(rec->previous) : property_previous(t, item->target, current);
                property_changes_add(sets, item->target, item->value, previous);
        }
        (void) systemd_set_unit_properties(t, sets, false);

        /* Undo what the plan no longer wants, unless someone changed it since. */
        for (guint i = 0; i < t->property_records->len; i++) {
                PropertyRecord *rec = g_ptr_array_index(t->property_records, i);
                bool wanted = false;
                for (guint j = 0; j < plan->items->len && !wanted; j++) {
                        const PlanItem *item = g_ptr_array_index(plan->items, j);
                        wanted = item->backend == BACKEND_SYSTEMD_PROPERTY && item->value &&
                                 streq(item->target, rec->property);
                }
                if (wanted)
                        continue;

                const char *current = g_hash_table_lookup(t->unit_properties, rec->property);
                if (!systemd_property_value_equal(rec->property, current, rec->written)) {
                        /* Still the value from before: the set recorded ahead never
                         * reached systemd (a crash in between), or was undone. */
                        if (systemd_property_value_equal(rec->property, current, rec->previous))
                                log_context(LOG_DEBUG, 0, t->unit, NULL, NULL, 0,
                                            "%s=%s is the value from before; nothing to undo", rec->property,
                                            strempty(current));
                        else
                                log_context(LOG_INFO, 0, t->unit, NULL, NULL, 0,
                                            "Left %s=%s alone: it is no longer the value policyd set (%s)",
                                            rec->property, strempty(current), rec->written);
                        g_ptr_array_remove_index(t->property_records, i--);
                        manager_save_target(m, t);
                        continue;
                }
                if (m->dry_run) {
                        log_context(LOG_NOTICE, 0, t->unit, NULL, NULL, 0, "Would restore %s=%s", rec->property,
                                    rec->previous);
                        continue;
                }
                if (isempty(rec->previous)) {
                        /* Nothing to restore to: the unit never reported a value. */
                        g_ptr_array_remove_index(t->property_records, i--);
                        manager_save_target(m, t);
                        continue;
                }
                property_changes_add(restores, rec->property, rec->previous, NULL);
        }
        restore_stale_generated(t, plan, restores);
        /* The records go when systemd confirms. */
        (void) systemd_set_unit_properties(t, restores, true);
}

static bool same_groups(const Resolution *a, const Resolution *b) {
        g_autofree char *ta = a ? resolution_group_tag(a) : g_strdup("");
        g_autofree char *tb = b ? resolution_group_tag(b) : g_strdup("");
        return streq(ta, tb);
}

static void log_notes(Target *t, const Resolution *r, const Resolution *previous) {
        for (guint i = 0; i < r->notes->len; i++) {
                const ResolveNote *n = g_ptr_array_index(r->notes, i);
                bool seen = false;
                for (guint j = 0; previous && j < previous->notes->len && !seen; j++) {
                        const ResolveNote *p = g_ptr_array_index(previous->notes, j);
                        seen = p->kind == n->kind && streq(p->group, n->group);
                }
                int level = seen ? LOG_DEBUG : LOG_WARNING;
                const char *who = t->unit ? t->unit : t->cgroup;
                switch (n->kind) {
                case RESOLVE_NOTE_UNKNOWN_GROUP:
                        log_context(level, 0, who, n->group, NULL, 0, "%s names unknown policy group '%s', ignoring it",
                                    membership_source_to_string(n->source), n->group);
                        break;
                case RESOLVE_NOTE_MASKED_GROUP:
                        log_context(level, 0, who, n->group, NULL, 0, "Policy group '%s' is masked, ignoring it",
                                    n->group);
                        break;
                case RESOLVE_NOTE_SELF_REQUEST_REFUSED:
                        log_context(level, 0, who, n->group, NULL, 0,
                                    "Refusing self-request for group '%s': not allowed by the group, or not a "
                                    "delegated cgroup",
                                    n->group);
                        break;
                }
        }
}

static void forget_cgroup_record(Target *t) {
        if (!t->record || t->record->items->len == 0)
                return;
        /* The cgroup went away, and with it everything we wrote on it. */
        g_clear_pointer(&t->record, cgroup_record_free);
        manager_save_target(t->manager, t);
}

/* The record reaches /run/policyd before each write it describes. */
static int save_record_ahead(const CgroupRecord *record, void *userdata) {
        Target *t = userdata;
        int r = state_save_cgroup_record(t->manager->state_dir, target_key(t), record);
        if (r < 0)
                return log_context(LOG_WARNING, r, t->unit ? t->unit : t->cgroup, NULL, NULL, 0,
                                   "Failed to record what is about to be written, so not writing it: %m");
        return 0;
}

void target_apply(Target *t) {
        Manager *m = t->manager;
        CandidateData d = {};
        g_autoptr(Resolution) r = NULL;
        g_autoptr(CgroupPlan) plan = NULL;
        g_autoptr(ApplyReport) report = NULL;
        const char *who = t->unit ? t->unit : t->cgroup;
        int k;

        if (isempty(t->cgroup) || (t->active_state && (streq(t->active_state, "inactive") ||
                                                       streq(t->active_state, "failed")))) {
                forget_cgroup_record(t);
                g_clear_pointer(&t->resolution, resolution_free);
                return;
        }
        if (cgroup_path_validate(t->cgroup) < 0) {
                log_context(LOG_WARNING, 0, who, NULL, NULL, 0, "Ignoring invalid cgroup path '%s'", t->cgroup);
                return;
        }

        gather_candidate(t, &d);
        k = resolve_candidate(m->policies, &d.c, &r);
        candidate_data_clear(&d);
        if (k < 0) {
                log_context(LOG_WARNING, k, who, NULL, NULL, 0, "Failed to resolve policy groups: %m");
                return;
        }

        log_notes(t, r, t->resolution);
        if (!same_groups(r, t->resolution)) {
                g_autofree char *tag = resolution_group_tag(r);
                log_context(LOG_INFO, 0, who, NULL, NULL, 0, "Policy groups: %s", isempty(tag) ? "(none)" : tag);
                bus_api_emit_membership_changed(m, t, r);
        }

        k = cgroup_plan_build(r, m->facts, t->unit ? PLAN_SYSTEMD_MANAGED : 0, &plan);
        if (k < 0) {
                log_context(LOG_WARNING, k, who, NULL, NULL, 0, "Failed to plan changes: %m");
                return;
        }

        if (t->record && !streq(t->record->cgroup, t->cgroup)) {
                /* The unit moved (another slice, while policyd was down):
                 * undo what was written on the old cgroup, if it is still there. */
                g_autoptr(ApplyReport) old = apply_report_new();
                (void) cgroup_undo(m->cgroup_root, t->record->cgroup, t->record, m->dry_run ? APPLY_DRY_RUN : 0, old);
                g_clear_pointer(&t->record, cgroup_record_free);
        }
        if (!t->record)
                t->record = cgroup_record_new(t->cgroup);
        report = apply_report_new();
        const ApplyHooks hooks = { save_record_ahead, t };
        k = cgroup_apply_plan_with_hooks(m->cgroup_root, t->cgroup, plan, t->record, m->dry_run ? APPLY_DRY_RUN : 0,
                                         &hooks, report);
        for (guint i = 0; i < report->actions->len; i++)
                log_action(t, g_ptr_array_index(report->actions, i));
        log_no_space(t, report);
        if (errno_is_vanished(k)) {
                log_context(LOG_DEBUG, k, who, NULL, NULL, 0, "cgroup %s vanished", t->cgroup);
                forget_cgroup_record(t);
        } else if (k < 0 && k != -ENOSPC)
                log_context(LOG_WARNING, k, who, NULL, NULL, 0, "Failed to apply policy groups: %m");

        if (t->unit)
                apply_systemd_properties(t, plan);

        if (t->last_report)
                g_ptr_array_unref(t->last_report);
        t->last_report = g_ptr_array_ref(report->actions);
        g_clear_pointer(&t->resolution, resolution_free);
        t->resolution = TAKE_PTR(r);
        manager_save_target(m, t);
}

/* ---- units ---- */

/* dbus-daemon allows 128 pending replies per connection by default: a
 * refresh of every unit at once would overrun it on a busy machine. */
#define REFRESHES_IN_FLIGHT_MAX 32

static void pump_refreshes(Manager *m) {
        /* Without a bus the queue waits for the reconnect. */
        while (m->bus && m->refreshes_in_flight < REFRESHES_IN_FLIGHT_MAX && !g_queue_is_empty(m->refresh_queue)) {
                g_autofree char *key = g_queue_pop_head(m->refresh_queue);
                Target *t = manager_find_target(m, key);
                if (!t)
                        continue;
                t->refresh_queued = false;
                /* Sent calls count in pending_calls before the one that
                 * ended is uncounted, so --once cannot exit in between. */
                if (systemd_refresh_unit(t) >= 0)
                        m->refreshes_in_flight++;
        }
}

void manager_refresh_finished(Manager *m) {
        if (m->refreshes_in_flight > 0)
                m->refreshes_in_flight--;
        pump_refreshes(m);
}

void manager_refresh_unit(Manager *m, const char *unit, const char *object_path) {
        Target *t = manager_find_target(m, unit);

        if (!unit_type_has_cgroup(unit))
                return;
        if (!t)
                t = target_new(m, unit, NULL);
        if (object_path && !streq_ptr(t->object_path, object_path)) {
                g_free(t->object_path);
                t->object_path = g_strdup(object_path);
        }
        if (!t->object_path || t->refresh_queued)
                return;
        t->refresh_queued = true;
        g_queue_push_tail(m->refresh_queue, g_strdup(unit));
        pump_refreshes(m);
}

void manager_forget_unit(Manager *m, const char *unit) {
        Target *t = manager_find_target(m, unit);
        if (!t)
                return;
        /* An unloaded unit has no cgroup. Property records stay on disk: the
         * runtime properties live on in systemd for the unit's next load. */
        forget_cgroup_record(t);
        g_hash_table_remove(m->targets, unit);
}

void manager_systemd_reloaded(Manager *m) {
        GHashTableIter it;
        gpointer value;

        /* The generator ran again: its drop-ins follow the groups now. */
        g_hash_table_iter_init(&it, m->targets);
        while (g_hash_table_iter_next(&it, NULL, &value))
                ((Target *) value)->needs_daemon_reload = false;
        /* Unit files and drop-ins may name other groups, and systemd does not
         * write a running unit's cgroup for what its files now say. */
        manager_refresh_all(m);
}

void manager_refresh_all(Manager *m) {
        g_autoptr(GPtrArray) keys = hash_table_keys(m->targets);
        g_autoptr(SystemFacts) facts = NULL;

        /* Swap devices come and go (percent limits), so look again. */
        if (system_facts_probe("/sys", "/proc", &facts) >= 0) {
                system_facts_free(m->facts);
                m->facts = TAKE_PTR(facts);
        }

        for (guint i = 0; i < keys->len; i++) {
                Target *t = manager_find_target(m, g_ptr_array_index(keys, i));
                if (!t)
                        continue;
                if (t->unit)
                        manager_refresh_unit(m, t->unit, t->object_path);
                else
                        target_apply(t);
        }
}

/* ---- runtime assignments ---- */

static Target *find_target_by_cgroup(Manager *m, const char *cgroup) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, m->targets);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Target *t = value;
                if (t->cgroup && streq(t->cgroup, cgroup))
                        return t;
        }
        return NULL;
}

static int cgroup_of_pid(const char *pid_str, char **ret) {
        g_autofree char *path = g_strdup_printf("/proc/%s/cgroup", pid_str);
        g_autofree char *data = NULL;
        size_t size;
        int r = read_full_file(path, &data, &size);

        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        /* cgroup v2: one line "0::/path". */
        g_auto(GStrv) lines = g_strsplit(data, "\n", -1);
        for (char **l = lines; *l; l++)
                if (g_str_has_prefix(*l, "0::")) {
                        *ret = g_strdup(*l + 3);
                        return 0;
                }
        return -ENOMEDIUM;
}

int manager_resolve_target_argument(Manager *m, const char *arg, char **ret_key, char **ret_cgroup) {
        g_autofree char *cgroup = NULL;
        int kind = target_argument_classify(arg, NULL), r;

        if (kind < 0)
                return kind;
        if (kind == TARGET_ARGUMENT_PID) {
                r = cgroup_of_pid(arg, &cgroup);
                if (r < 0)
                        return r;
        } else if (kind == TARGET_ARGUMENT_CGROUP) {
                cgroup = g_strdup(arg);
        } else {
                *ret_key = g_strdup(arg);
                Target *t = manager_find_target(m, arg);
                *ret_cgroup = t && t->cgroup ? g_strdup(t->cgroup) : NULL;
                return 0;
        }

        r = cgroup_path_validate(cgroup);
        if (r < 0)
                return r;
        Target *t = find_target_by_cgroup(m, cgroup);
        *ret_key = g_strdup(t && t->unit ? t->unit : cgroup);
        *ret_cgroup = TAKE_PTR(cgroup);
        return 0;
}

static bool table_remove(GHashTable *table, const char *key, const char *group) {
        GPtrArray *groups = g_hash_table_lookup(table, key);
        for (guint i = 0; groups && i < groups->len; i++)
                if (streq(g_ptr_array_index(groups, i), group)) {
                        g_ptr_array_remove_index(groups, i);
                        if (groups->len == 0)
                                g_hash_table_remove(table, key);
                        return true;
                }
        return false;
}


int manager_assign(Manager *m, const char *key, const char *group, bool assign) {
        Target *t;
        int r;

        if (assign) {
                table_remove(m->exclusions, key, group);
                assignment_table_add(m->assignments, key, group);
        } else {
                bool was_runtime = table_remove(m->assignments, key, group);
                t = manager_find_target(m, key);
                bool member = t && t->resolution && resolution_has_group(t->resolution, group);
                if (!was_runtime && !member)
                        return -ENOENT;
                /* Unassign means "not in this group": if another source
                 * (unit file, [Match]) would still put it there, exclude it. */
                if (t && was_runtime) {
                        target_apply(t);
                        member = t->resolution && resolution_has_group(t->resolution, group);
                }
                if (member)
                        assignment_table_add(m->exclusions, key, group);
        }

        if (!m->dry_run) {
                r = state_save_assignments(m->state_dir, m->assignments, m->exclusions);
                if (r < 0)
                        log_warning_errno(r, "Failed to save runtime assignments to %s: %m", m->state_dir);
        }

        t = manager_find_target(m, key);
        if (!t && key[0] == '/')
                t = target_new(m, NULL, key);
        if (t)
                target_apply(t);
        return 0;
}

/* ---- reload ---- */

/* A group whose file is still there but no longer loads (unreadable, or
 * refused for its owner or mode) keeps its last good version: a broken
 * edit must not undo what the group applies. Groups whose files were
 * removed or masked go, as they should. */
static void keep_last_good_groups(PolicySet *old, PolicySet *new) {
        g_autoptr(GPtrArray) names = policy_set_sorted_names(old);

        for (guint i = 0; i < names->len; i++) {
                const char *name = g_ptr_array_index(names, i);
                const PolicyGroup *g = policy_set_get(old, name);
                bool masked = false;

                if (policy_set_get(new, name))
                        continue;
                for (guint j = 0; j < new->masked->len && !masked; j++)
                        masked = streq(g_ptr_array_index(new->masked, j), name);
                if (masked || !g->file || access(g->file, F_OK) < 0)
                        continue;

                log_context(LOG_WARNING, 0, NULL, name, g->file, 0,
                            "%s could not be loaded; keeping the last good version of group '%s'", g->file, name);
                gpointer key, value;
                if (g_hash_table_steal_extended(old->groups, name, &key, &value))
                        policy_set_add(new, value);
        }
}

/* policyd-generator turned the groups that unit files name into drop-ins
 * at the last daemon-reload. When such a group changed, those drop-ins are
 * stale until systemd runs the generator again: the runtime settings
 * policyd can set now (SetUnitProperties), but the exec-time ones (KSM=,
 * NUMAPolicy=) reach the unit only at its next start after a daemon-reload.
 * policyd never runs one behind the administrator's back: it marks and
 * reports the units, and "policyctl reload --daemon-reload" asks for it. */
static unsigned mark_stale_generator_dropins(Manager *m, const PolicySet *new) {
        GHashTableIter it;
        gpointer value;
        unsigned n = 0;

        g_hash_table_iter_init(&it, m->targets);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Target *t = value;
                for (guint i = 0; t->resolution && i < t->resolution->memberships->len; i++) {
                        const Membership *mb = g_ptr_array_index(t->resolution->memberships, i);
                        if (mb->source != MEMBERSHIP_UNIT_FILE)
                                continue;
                        const PolicyGroup *a = policy_set_get(m->policies, mb->group);
                        const PolicyGroup *b = policy_set_get(new, mb->group);
                        g_autofree char *fa = a ? policy_group_format(a) : NULL;
                        g_autofree char *fb = b ? policy_group_format(b) : NULL;
                        if (fa && fb && streq(fa, fb))
                                continue;
                        if (!t->needs_daemon_reload)
                                log_context(LOG_NOTICE, 0, t->unit, mb->group, NULL, 0,
                                            "Group '%s', which the unit file names, changed: its runtime settings "
                                            "are applied now; its exec-time settings (KSM=, NUMAPolicy=) need "
                                            "'systemctl daemon-reload' and a restart of the unit",
                                            mb->group);
                        t->needs_daemon_reload = true;
                        n++;
                        break;
                }
        }
        return n;
}

int manager_reload(Manager *m) {
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autoptr(PolicySet) set = NULL;
        g_autoptr(SystemFacts) facts = NULL;
        DaemonConfig config;
        struct timespec ts;
        int r;

        if (m->started) {
                /* systemd 253+ matches the reload to this timestamp. */
                struct timespec mono;
                clock_gettime(CLOCK_MONOTONIC, &mono);
                (void) sd_notifyf(false, "RELOADING=1\nMONOTONIC_USEC=%" PRIu64 "\nSTATUS=Reloading policy groups...",
                                  (uint64_t) mono.tv_sec * 1000000 + (uint64_t) mono.tv_nsec / 1000);
        }

        daemon_config_init(&config);
        (void) daemon_config_load(NULL, &config, diags);
        r = policy_set_load(NULL, NULL, &set, diags);
        diagnostics_sort(diags);
        log_diagnostics(diags);
        if (r < 0) {
                daemon_config_done(&config);
                if (m->started)
                        (void) sd_notify(false, "READY=1\nSTATUS=Reload failed, keeping the previous policy groups.");
                return log_error_errno(r, "Failed to load policy groups, keeping the previous ones: %m");
        }

        r = system_facts_probe("/sys", "/proc", &facts);
        if (r < 0)
                log_warning_errno(r, "Failed to probe swap facilities: %m");

        keep_last_good_groups(m->policies, set);
        g_hash_table_remove_all(m->user_names); /* users come and go too */
        unsigned stale = m->started ? mark_stale_generator_dropins(m, set) : 0;

        /* Swap in whole; the old set goes only now. */
        policy_set_free(m->policies);
        m->policies = TAKE_PTR(set);
        diagnostics_free(m->diagnostics);
        m->diagnostics = TAKE_PTR(diags);
        if (facts) {
                system_facts_free(m->facts);
                m->facts = TAKE_PTR(facts);
        }
        daemon_config_done(&m->config);
        m->config = config;
        m->dry_run = m->dry_run_argument || m->config.dry_run;
        clock_gettime(CLOCK_REALTIME, &ts);
        m->last_reload_usec = (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;

        log_info("Loaded %u policy groups (%u errors, %u warnings in the files).", policy_set_size(m->policies),
                 diagnostics_count(m->diagnostics, DIAGNOSTIC_ERROR),
                 diagnostics_count(m->diagnostics, DIAGNOSTIC_WARNING));

        manager_update_rescan_timer(m);
        if (!m->started)
                return 0;
        bus_api_emit_reloaded(m);
        if (stale > 0)
                log_notice("%u units name changed groups in their unit files; 'systemctl daemon-reload' (or "
                           "'policyctl reload --daemon-reload') updates policyd-generator's drop-ins.",
                           stale);
        /* Unit files may name groups that just appeared or went away. */
        manager_refresh_all(m);
        (void) sd_notifyf(false, "READY=1\nSTATUS=Applying %u policy groups to %u units and cgroups.",
                          policy_set_size(m->policies), g_hash_table_size(m->targets));
        return 0;
}

/* ---- bus connection ---- */

static int connect_bus(Manager *m);
static void announce_ready(Manager *m);

static int on_reconnect_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        m->reconnect_timer = sd_event_source_unref(m->reconnect_timer);
        if (connect_bus(m) < 0) {
                m->reconnect_attempt++;
                uint64_t delay = MIN(UINT64_C(1) << MIN(m->reconnect_attempt, 5u), 30) * 1000000;
                log_warning("Reconnecting to the system bus in %u s.", (unsigned) (delay / 1000000));
                (void) sd_event_add_time_relative(m->event, &m->reconnect_timer, CLOCK_MONOTONIC, delay, 0,
                                                  on_reconnect_timer, m);
        }
        return 0;
}

static int on_disconnected(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        Manager *m = userdata;

        log_warning("Lost the system bus connection; policies already applied stay in place.");
        manager_reconnect_later(m);
        return 0;
}

void manager_reconnect_later(Manager *m) {
        m->bus = sd_bus_flush_close_unref(m->bus);
        /* Calls still pending went with the bus; the next ListUnits reads
         * every unit again. */
        m->refreshes_in_flight = 0;
        m->subscribed = false;
        m->reconnect_attempt = 0;
        if (m->once) {
                m->exit_code = EXIT_FAILURE;
                (void) sd_event_exit(m->event, EXIT_FAILURE);
                return;
        }
        if (!m->reconnect_timer)
                (void) sd_event_add_time_relative(m->event, &m->reconnect_timer, CLOCK_MONOTONIC, 1000000, 0,
                                                  on_reconnect_timer, m);
}

static int connect_bus(Manager *m) {
        g_autoptr(sd_bus) bus = NULL;
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0)
                return log_error_errno(r, "Failed to connect to the system bus: %m");
        r = sd_bus_set_exit_on_disconnect(bus, false);
        if (r < 0)
                return r;
        r = sd_bus_attach_event(bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Failed to attach the bus to the event loop: %m");
        r = sd_bus_match_signal(bus, NULL, NULL, "/org/freedesktop/DBus/Local", "org.freedesktop.DBus.Local",
                                "Disconnected", on_disconnected, m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch for disconnection: %m");

        m->bus = TAKE_PTR(bus);
        r = bus_api_attach(m);
        if (r < 0)
                goto fail;
        r = systemd_watch_attach(m);
        if (r < 0)
                goto fail;
        manager_call_started(m); /* until the name is ours: --once must not exit before */
        m->reconnect_attempt = 0;
        return 0;
fail:
        m->bus = sd_bus_flush_close_unref(m->bus);
        return r;
}

void manager_name_acquired(Manager *m) {
        if (systemd_watch_start(m) < 0) {
                m->exit_code = EXIT_FAILURE;
                (void) sd_event_exit(m->event, EXIT_FAILURE);
        }
        if (!m->started)
                announce_ready(m);
        manager_call_finished(m);
}

/* ---- lifecycle ---- */

void manager_call_started(Manager *m) {
        m->pending_calls++;
}

void manager_call_finished(Manager *m) {
        if (m->pending_calls > 0)
                m->pending_calls--;
        if (m->once && m->startup_listed && m->pending_calls == 0) {
                log_info("Applied policy groups to %u units and cgroups; exiting (--once).",
                         g_hash_table_size(m->targets));
                (void) sd_event_exit(m->event, m->exit_code);
        }
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        (void) manager_reload(userdata);
        return 0;
}

static int on_rescan_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        manager_refresh_all(m);
        manager_update_rescan_timer(m);
        return 0;
}

/* The safety-net rescan, off by default: when idle, policyd sleeps. */
void manager_update_rescan_timer(Manager *m) {
        uint64_t interval = (uint64_t) m->config.rescan_interval_sec * 1000000;

        if (interval == 0 || m->once) {
                m->rescan_timer = sd_event_source_disable_unref(m->rescan_timer);
                return;
        }
        if (!m->rescan_timer) {
                if (sd_event_add_time_relative(m->event, &m->rescan_timer, CLOCK_MONOTONIC, interval, 1000000,
                                               on_rescan_timer, m) < 0)
                        log_warning("Failed to set up the rescan timer; rescans are off.");
                return;
        }
        (void) sd_event_source_set_time_relative(m->rescan_timer, interval);
        (void) sd_event_source_set_enabled(m->rescan_timer, SD_EVENT_ONESHOT);
}

int manager_new(const char *cgroup_root, bool dry_run, bool once, Manager **ret) {
        g_autoptr(Manager) m = g_new0(Manager, 1);
        const char *state = getenv("POLICYD_STATE_DIRECTORY");
        int r;

        m->cgroup_root = g_strdup(cgroup_root);
        m->state_dir = g_strdup(state ? state : POLICYD_STATE_DIR);
        m->dry_run = m->dry_run_argument = dry_run;
        m->once = once;
        m->targets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, target_free_notify);
        m->refresh_queue = g_queue_new();
        m->user_names = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
        m->assignments = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, ptr_array_destroy);
        m->exclusions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, ptr_array_destroy);
        m->policies = policy_set_new();
        m->diagnostics = diagnostics_new();
        daemon_config_init(&m->config);

        r = sd_event_default(&m->event);
        if (r < 0)
                return log_error_errno(r, "Failed to allocate the event loop: %m");
        (void) sd_event_set_watchdog(m->event, true);

        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return log_error_errno(-errno, "Failed to block signals: %m");
        r = sd_event_add_signal(m->event, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(m->event, NULL, SIGINT, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(m->event, NULL, SIGHUP, on_sighup, m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch signals: %m");

        r = state_load_assignments(m->state_dir, m->assignments, m->exclusions);
        if (r < 0)
                log_warning_errno(r, "Failed to load runtime assignments: %m");

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        /* The bus first, as systemd-oomd does: closing it frees the pending
         * calls, which must not find the tables below already gone. */
        m->bus = sd_bus_flush_close_unref(m->bus);
        g_queue_free_full(m->refresh_queue, g_free);
        g_hash_table_unref(m->user_names);
        g_hash_table_unref(m->targets);
        g_hash_table_unref(m->assignments);
        g_hash_table_unref(m->exclusions);
        policy_set_free(m->policies);
        diagnostics_free(m->diagnostics);
        system_facts_free(m->facts);
        daemon_config_done(&m->config);
        sd_event_source_unref(m->reconnect_timer);
        sd_event_source_unref(m->rescan_timer);
        sd_event_unref(m->event);
        g_free(m->cgroup_root);
        g_free(m->state_dir);
        g_free(m);
        return NULL;
}

int manager_start(Manager *m) {
        int r;

        r = manager_reload(m);
        if (r < 0)
                return r;

        return connect_bus(m);
}

static void announce_ready(Manager *m) {
        /* Cgroups assigned by path at runtime, which no unit owns. */
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, m->assignments);
        while (g_hash_table_iter_next(&it, &key, NULL))
                if (((const char *) key)[0] == '/' && !manager_find_target(m, key))
                        target_apply(target_new(m, NULL, key));

        manager_update_rescan_timer(m);
        m->started = true;
        (void) sd_notifyf(false, "READY=1\nSTATUS=Watching systemd with %u policy groups%s.",
                          policy_set_size(m->policies), m->dry_run ? " (dry run: changing nothing)" : "");
}

int manager_run(Manager *m) {
        int r = sd_event_loop(m->event);
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");
        (void) sd_notify(false, "STOPPING=1\nSTATUS=Shutting down.");
        return r;
}
