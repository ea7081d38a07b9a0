/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>

#include "apply.h"
#include "log.h"
#include "manager.h"
#include "state-store.h"
#include "sweep.h"
#include "target-argument.h"
#include "systemd-watch.h"
#include "unit-lookup.h"
#include "user-managers.h"
#include "util.h"

/* Unit checks in flight at once, the rest queued: a boot can leave
 * thousands of records of transient units, and dbus-daemon allows 128
 * pending replies per connection (as for refreshes in manager.c). */
#define SWEEP_CHECKS_IN_FLIGHT_MAX 8

void sweep_state_done(SweepState *s) {
        assert(s);
        if (s->units)
                g_queue_free_full(s->units, g_free);
        s->units = NULL;
}

/* The file names of the records subjects hold: those are theirs. */
static GHashTable *subject_file_names(Manager *m) {
        GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        GHashTableIter it;
        gpointer key;

        g_hash_table_iter_init(&it, m->subjects);
        while (g_hash_table_iter_next(&it, &key, NULL))
                g_hash_table_add(names, state_file_name(key));
        return names;
}

/* The cgroup some subject applies to, or recorded writes on. */
static const Subject *subject_of_cgroup(Manager *m, const char *cgroup) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, m->subjects);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const Subject *s = value;
                if (streq_ptr(s->cgroup, cgroup) || (s->record && streq_ptr(s->record->cgroup, cgroup)))
                        return s;
        }
        return NULL;
}

static bool report_has_vanished(const ApplyReport *report) {
        assert(report);
        for (guint i = 0; i < report->actions->len; i++)
                if (((const Action *) g_ptr_array_index(report->actions, i))->result == ACTION_VANISHED)
                        return true;
        return false;
}

static void sweep_cgroup_record(Manager *m, const char *name) {
        SweepState *st = &m->sweep;
        g_autoptr(CgroupRecord) rec = NULL;
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autofree char *key = state_file_name_to_key(name);
        const char *who;
        const Subject *owner;
        int r;

        r = state_load_cgroup_record_file(m->state_dir, name, &rec);
        if (r < 0) {
                log_warning_errno(r, "Failed to read %s/cgroups/%s, leaving it in place: %m", m->state_dir, name);
                st->kept++;
                return;
        }
        who = key ? key : rec->cgroup;
        uid_t uid;
        if (key && target_argument_user_unit(key, &uid, NULL) >= 0 && user_manager_runs(uid)) {
                /* Its manager's link reads the unit again, and applies or undoes then. */
                log_unit_debug(who, "The systemd of uid %u runs: leaving %s/cgroups/%s for its link", (unsigned) uid,
                               m->state_dir, name);
                st->kept++;
                return;
        }

        r = cgroup_exists(m->cgroup_root, rec->cgroup);
        if (r < 0) {
                log_unit_warning_errno(who, r, "Failed to look for cgroup %s, leaving %s/cgroups/%s in place: %m",
                                       rec->cgroup, m->state_dir, name);
                st->kept++;
                return;
        }
        if (r == 0) {
                /* What it recorded went with the cgroup, as subject_forget_cgroup() knows. */
                log_unit_debug(who, "cgroup %s is gone: %s its record %s", rec->cgroup,
                               m->dry_run ? "would remove" : "removing", name);
                if (!m->dry_run) {
                        r = state_remove_record(m->state_dir, "cgroups", name);
                        if (r < 0) {
                                log_warning_errno(r, "Failed to remove %s/cgroups/%s: %m", m->state_dir, name);
                                st->kept++;
                                return;
                        }
                }
                st->cgroups_gone++;
                return;
        }

        /* Another subject applies to the cgroup now, and records only what
         * it wrote itself: a value it found already right is in no record
         * of its own. Undoing this record could take away what it wants;
         * the record waits for a start at which the cgroup is gone or
         * no subject has it. */
        owner = subject_of_cgroup(m, rec->cgroup);
        if (owner) {
                log_unit_debug(who, "cgroup %s is %s's now: leaving %s/cgroups/%s for a later start", rec->cgroup,
                               subject_name(owner), m->state_dir, name);
                st->kept++;
                return;
        }
        /* A runtime assignment names it: the administrator put it in a group,
         * and the subject made for the assignment when its unit runs again
         * adopts this record (subject_new() reads it by key). Undoing now
         * would take the group's values away until then, and deleting would
         * lose the values to restore when the assignment goes. */
        if ((key && g_hash_table_contains(m->assignments, key)) || g_hash_table_contains(m->assignments, rec->cgroup)) {
                log_unit_debug(who, "A runtime assignment names %s: leaving %s/cgroups/%s for its subject", who,
                               m->state_dir, name);
                st->kept++;
                return;
        }

        log_unit_debug(who, "No unit or assignment has cgroup %s now: undoing %s", rec->cgroup, name);
        r = cgroup_undo(m->cgroup_root, rec->cgroup, rec, m->dry_run ? APPLY_DRY_RUN : 0, report);
        for (guint i = 0; i < report->actions->len; i++)
                apply_log_action(who, g_ptr_array_index(report->actions, i), LOG_NOTICE);
        if (m->dry_run) {
                st->cgroups_undone++;
                return;
        }
        if (rec->items->len > 0) {
                /* A restore failed: its item stays, for the next start. */
                log_unit_warning_errno(who, r,
                                       "Failed to undo all that %s/cgroups/%s records, keeping the rest of it: %m",
                                       m->state_dir, name);
                r = state_save_cgroup_record_file(m->state_dir, name, rec);
                if (r < 0)
                        log_warning_errno(r, "Failed to save %s/cgroups/%s: %m", m->state_dir, name);
                st->kept++;
                return;
        }
        r = state_remove_record(m->state_dir, "cgroups", name);
        if (r < 0) {
                log_warning_errno(r, "Failed to remove %s/cgroups/%s: %m", m->state_dir, name);
                st->kept++;
                return;
        }
        if (report_has_vanished(report))
                st->cgroups_gone++;
        else
                st->cgroups_undone++;
}

static void sweep_finish_if_done(Manager *m) {
        SweepState *st = &m->sweep;
        unsigned swept = st->cgroups_gone + st->cgroups_undone + st->units_gone;

        if (!st->running || st->checks_in_flight > 0 || !g_queue_is_empty(st->units))
                return;
        st->running = false;
        log_full_errno(swept + st->units_refreshed > 0 ? LOG_INFO : LOG_DEBUG, 0,
                       "%s %u records of units and cgroups gone while policyd was not running: %u of vanished "
                       "cgroups, %u undone on cgroups nothing has now, %u of units systemd no longer has; %u units "
                       "read again for their records, %u records left in place.",
                       m->dry_run ? "Would sweep" : "Swept", swept, st->cgroups_gone, st->cgroups_undone,
                       st->units_gone, st->units_refreshed, st->kept);
}

static void sweep_user_unit_record(Manager *m, const char *kind, const char *name, const char *key, uid_t uid);

static void pump_checks(Manager *m) {
        SweepState *st = &m->sweep;

        while (st->checks_in_flight < SWEEP_CHECKS_IN_FLIGHT_MAX && !g_queue_is_empty(st->units)) {
                g_autofree char *unit = g_queue_pop_head(st->units);
                int r;

                /* Started meanwhile (JobRemoved): the subject holds its records. */
                if (manager_find_subject(m, unit))
                        continue;
                r = manager_check_unit(m, unit);
                if (r < 0) {
                        log_unit_warning_errno(unit, r,
                                               "Failed to ask systemd about the unit, leaving its property records in place: %m");
                        st->kept++;
                        continue;
                }
                st->checks_in_flight++;
        }
        sweep_finish_if_done(m);
}

static void sweep_property_record(Manager *m, const char *name) {
        SweepState *st = &m->sweep;
        g_autofree char *unit = state_file_name_to_key(name);
        uid_t uid;

        if (unit && target_argument_user_unit(unit, &uid, NULL) >= 0) {
                sweep_user_unit_record(m, "properties", name, unit, uid);
                return;
        }

        if (!unit || !unit_type_has_cgroup(unit)) {
                /* A hashed name does not say which unit. */
                log_debug("%s/properties/%s names no unit policyd can ask systemd about; leaving it in place",
                          m->state_dir, name);
                st->kept++;
                return;
        }
        g_queue_push_tail(st->units, TAKE_PTR(unit));
}

/* A user's unit: while its manager runs, the link adopts the record when it
 * lists the unit; when the manager is gone, so are the runtime properties
 * it held (they live under /run/user/UID), and there is nothing to undo. */
static void sweep_user_unit_record(Manager *m, const char *kind, const char *name, const char *key, uid_t uid) {
        SweepState *st = &m->sweep;
        int r;

        if (user_manager_runs(uid)) {
                log_unit_debug(key, "The systemd of uid %u runs: leaving %s/%s/%s for its link", (unsigned) uid,
                               m->state_dir, kind, name);
                st->kept++;
                return;
        }
        log_unit_debug(key, "The systemd of uid %u is gone, and so is what it held: %s %s/%s/%s", (unsigned) uid,
                       m->dry_run ? "would remove" : "removing", m->state_dir, kind, name);
        r = m->dry_run ? 0 : state_remove_record(m->state_dir, kind, name);
        if (r < 0) {
                log_warning_errno(r, "Failed to remove %s/%s/%s: %m", m->state_dir, kind, name);
                st->kept++;
        } else
                st->units_gone++;
}

static void sweep_records(Manager *m) {
        SweepState *st = &m->sweep;
        g_autoptr(GHashTable) owned = subject_file_names(m);
        g_autoptr(GPtrArray) cgroups = NULL, properties = NULL;
        int r;

        /* Once per run (sweep_start_if_due()). */
        assert(!st->done && !st->running);
        st->done = true;
        st->running = true;
        if (!st->units)
                st->units = g_queue_new();
        /* The files are what it reads, and a record it removes must not
         * come back from the intent log at the next start. */
        manager_checkpoint_records(m);

        r = state_list_records(m->state_dir, "cgroups", &cgroups);
        if (r < 0)
                log_warning_errno(r, "Failed to list %s/cgroups, not sweeping it: %m", m->state_dir);
        for (guint i = 0; cgroups && i < cgroups->len; i++)
                if (!g_hash_table_contains(owned, g_ptr_array_index(cgroups, i)))
                        sweep_cgroup_record(m, g_ptr_array_index(cgroups, i));

        r = state_list_records(m->state_dir, "properties", &properties);
        if (r < 0)
                log_warning_errno(r, "Failed to list %s/properties, not sweeping it: %m", m->state_dir);
        for (guint i = 0; properties && i < properties->len; i++)
                if (!g_hash_table_contains(owned, g_ptr_array_index(properties, i)))
                        sweep_property_record(m, g_ptr_array_index(properties, i));

        pump_checks(m);
}

void sweep_start_if_due(Manager *m) {
        /* Once per run, and never again: loading a unit to ask about it has
         * systemd unload it later, with a UnitRemoved that forgets the unit
         * (manager_forget_unit()); a sweep run again from there would load
         * it again, round and round. */
        if (!m->sweep.due || m->sweep.done || m->system->refreshes_in_flight > 0 ||
            !g_queue_is_empty(m->system->refresh_queue))
                return;
        m->sweep.due = false;
        manager_startup_converged(m);
        sweep_records(m);
}

void sweep_unit_checked(Manager *m, const char *unit, const char *object_path, const char *load_state,
                        const sd_bus_error *error) {
        SweepState *st = &m->sweep;
        g_autofree char *name = state_file_name(unit);
        int r;

        if (st->checks_in_flight > 0)
                st->checks_in_flight--;

        if (manager_find_subject(m, unit)) {
                /* Started meanwhile: its subject read the records, and holds them. */
                log_unit_debug(unit, "Unit seen meanwhile; its subject holds its records");
                st->kept++;
        } else if (error && !(sd_bus_error_has_name(error, "org.freedesktop.systemd1.NoSuchUnit") ||
                              sd_bus_error_has_name(error, "org.freedesktop.DBus.Error.UnknownObject"))) {
                log_unit_warning(unit, "Failed to ask systemd about the unit, leaving %s/properties/%s in place: %s",
                                 m->state_dir, name, error->message);
                st->kept++;
        } else if (error || streq_ptr(load_state, "not-found")) {
                /* A transient unit that ended took its runtime properties
                 * with it; a unit whose file is gone takes none
                 * (SetUnitProperties wants a loaded unit): nothing to undo. */
                log_unit_debug(unit, "Unit not found: %s %s/properties/%s", m->dry_run ? "would remove" : "removing",
                               m->state_dir, name);
                r = m->dry_run ? 0 : state_remove_record(m->state_dir, "properties", name);
                if (r < 0) {
                        log_warning_errno(r, "Failed to remove %s/properties/%s: %m", m->state_dir, name);
                        st->kept++;
                } else
                        st->units_gone++;
        } else if (streq_ptr(load_state, "loaded")) {
                /* Read as any unit: a running one is applied, and what no
                 * group wants is undone; a stopped one keeps its records
                 * for its next start, as systemd keeps its runtime
                 * properties. */
                log_unit_debug(unit, "Unit exists: reading it for its property records");
                manager_refresh_unit(m->system, unit, object_path);
                st->units_refreshed++;
        } else {
                /* masked, error, bad-setting: it may load again later. */
                log_unit_debug(unit, "Unit is %s: leaving %s/properties/%s in place", strempty(load_state),
                               m->state_dir, name);
                st->kept++;
        }
        pump_checks(m);
}
