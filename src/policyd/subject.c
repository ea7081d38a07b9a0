/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <systemd/sd-bus.h>

#include "link-trust.h"
#include "log.h"
#include "manager.h"
#include "message-ids.h"
#include "state-store.h"
#include "subject.h"
#include "swap-tier-pass.h"
#include "util.h"

static int write_record_file(Subject *s);
static char *record_text(const Subject *s);

UnitSnapshot *unit_snapshot_new(void) {
        UnitSnapshot *snap = g_new0(UnitSnapshot, 1);
        snap->properties = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        return snap;
}

UnitSnapshot *unit_snapshot_free(UnitSnapshot *snap) {
        if (!snap)
                return NULL;
        g_free(snap->fragment);
        g_strfreev(snap->dropins);
        g_free(snap->active_state);
        g_free(snap->cgroup);
        g_free(snap->slice);
        g_free(snap->user);
        g_hash_table_unref(snap->properties);
        g_free(snap);
        return NULL;
}

static void property_record_destroy(gpointer p) {
        property_record_free(p);
}

Subject *subject_free(Subject *s) {
        if (!s)
                return NULL;
        /* Its request goes from the tier tree: what it widened, narrowed. */
        if (s->tiers_requested)
                swap_tier_pass_schedule(s->manager->swap_tiers);
        /* Its newest record is in the intent log only: into its file now,
         * while the subject is whole. */
        if (s->record_in_intent && write_record_file(s) < 0) {
                s->manager->intents_pending--;
                /* Its line stays, and the next checkpoint writes it. */
                g_hash_table_replace(s->manager->intent_unwritten, state_file_name(s->key), record_text(s));
                log_unit_warning(subject_name(s),
                                 "Failed to write the record of a subject that goes: it stays in %s/cgroups.intent "
                                 "until a checkpoint can write it", s->manager->state_dir);
        }
        if (s->user_unit)
                manager_user_unit_gone(s->manager, s->manager_uid);
        g_free(s->key);
        g_free(s->unit);
        g_free(s->object_path);
        g_free(s->cgroup);
        g_free(s->cgroup_refused);
        g_free(s->slice);
        g_free(s->user);
        g_free(s->fragment);
        g_strfreev(s->dropins);
        g_strfreev(s->refresh_values);
        g_strfreev(s->tiers_allowed);
        g_strfreev(s->tiers_widen);
        g_free(s->tiers_cgroup);
        g_free(s->active_state);
        g_strfreev(s->unit_groups);
        if (s->admin_values)
                g_hash_table_unref(s->admin_values);
        sd_event_source_disable_unref(s->record_retry);
        g_free(s->no_space_logged);
        g_free(s->saved_record);
        g_free(s->saved_properties);
        g_free(s->attributes_seen);
        g_hash_table_unref(s->unit_properties);
        subject_keep_resolution(s, NULL);
        cgroup_record_free(s->record);
        g_ptr_array_unref(s->property_records);
        g_hash_table_unref(s->relied_properties);
        g_ptr_array_unref(s->write_failures);
        g_free(s);
        return NULL;
}

void subject_free_notify(void *p) {
        subject_free(p);
}

const char *subject_key(const Subject *s) {
        return s->key;
}

uid_t subject_file_reader(const Subject *s) {
        return s->user_unit ? s->manager_uid : 0;
}

const char *subject_name(const Subject *s) {
        return s->key;
}

const char *subject_unit_id(const Subject *s) {
        return s->unit ? s->key : NULL;
}

bool subject_is_running(const Subject *s) {
        return !s->active_state || (!streq(s->active_state, "inactive") && !streq(s->active_state, "failed"));
}

static Subject *subject_create(Manager *m, char *key, const char *unit, const char *cgroup) {
        Subject *s = g_new0(Subject, 1);
        s->manager = m;
        s->key = key;
        s->unit = g_strdup(unit);
        s->cgroup = g_strdup(cgroup);
        s->unit_properties = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        s->property_records = g_ptr_array_new_with_free_func(property_record_destroy);
        s->relied_properties = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        s->write_failures = write_failures_new();

        /* What the file holds counts as saved: a start rewrites no record
         * that has not changed. (Not known: a file that would not parse,
         * or one without items, which a save removes.) */
        g_autofree char *name = state_file_name(key);
        g_autofree char *unwritten = NULL, *stolen_name = NULL;
        int r;
        /* Carried from the log at start, but not into its file yet: the log
         * still holds it, and the next checkpoint writes it. */
        if (g_hash_table_steal_extended(m->intent_unwritten, name, (gpointer *) &stolen_name,
                                        (gpointer *) &unwritten)) {
                r = *unwritten ? cgroup_record_parse(unwritten, &s->record) : 0;
                if (r >= 0) {
                        s->saved_record = g_strdup(unwritten);
                        s->record_in_intent = true;
                        m->intents_pending++;
                }
        } else
                r = state_load_cgroup_record(m->state_dir, key, &s->record);
        if (s->record_in_intent)
                ; /* saved_record set above */
        else if (r == -ENOENT)
                s->saved_record = g_strdup("");
        else if (r < 0)
                s->record = NULL;
        else if (s->record->items->len > 0)
                s->saved_record = record_text(s);
        (void) state_load_property_records(m->state_dir, key, s->property_records);
        if (unit)
                (void) sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit, &s->object_path);

        g_hash_table_insert(m->subjects, g_strdup(key), s);
        if (unit) /* counted in Managers */
                manager_properties_changed(m, MANAGER_PROPERTY_MANAGERS);
        return s;
}

Subject *subject_new(Manager *m, const char *unit, const char *cgroup) {
        return subject_create(m, g_strdup(unit ? unit : cgroup), unit, cgroup);
}

Subject *subject_new_user_unit(Manager *m, uid_t uid, const char *unit) {
        Subject *s = subject_create(m, g_strdup_printf("user@%u/%s", (unsigned) uid, unit), unit, NULL);
        s->user_unit = true;
        s->manager_uid = uid;
        return s;
}

static bool strv_equal(char **a, char **b) {
        for (; a && *a && b && *b; a++, b++)
                if (!streq(*a, *b))
                        return false;
        return !(a && *a) && !(b && *b);
}

void subject_invalidate_unit_groups(Subject *s) {
        g_clear_pointer(&s->unit_groups, g_strfreev);
        s->unit_groups_read = false;
        g_clear_pointer(&s->admin_values, g_hash_table_unref);
}

static void take_string(char **field, char **value) {
        g_free(*field);
        *field = isempty(*value) ? NULL : g_strdup(*value);
        g_clear_pointer(value, g_free);
}

/* A user's manager speaks for its own subtree only: the cgroup of each of
 * its units must be strictly below its user@UID.service's, as PID 1 last
 * reported that. Anything else (a root service's, another user's, its own
 * root) is dropped from the snapshot: the unit has no cgroup to apply to,
 * so no xattr, no knob and no injection. Said once per unit and path. */
static void confine_user_unit(Subject *s, UnitSnapshot *snap) {
        if (!s->user_unit || isempty(snap->cgroup))
                return; /* "": no cgroup (yet), nothing to confine */
        g_autofree char *manager_unit = g_strdup_printf("user@%u.service", (unsigned) s->manager_uid);
        const Subject *owner = manager_find_subject(s->manager, manager_unit);
        const char *root = owner ? owner->cgroup : NULL;

        if (root && cgroup_path_strictly_below(snap->cgroup, root)) {
                g_clear_pointer(&s->cgroup_refused, g_free);
                return;
        }
        if (!streq_ptr(s->cgroup_refused, snap->cgroup)) {
                /* The manager's own -.slice is its root: expected, and the
                 * administrator's (a delegation root), so quietly. */
                log_context_id(MESSAGE_ID_TRUST_REFUSED, streq_ptr(snap->cgroup, root) ? LOG_DEBUG : LOG_WARNING, 0,
                               subject_name(s), NULL, NULL, 0,
                               "Refusing cgroup %s that the systemd of uid %u reports: not below %s%s", snap->cgroup,
                               (unsigned) s->manager_uid, root ? root : manager_unit,
                               root ? "" : " (whose cgroup PID 1 has not reported)");
                g_free(s->cgroup_refused);
                s->cgroup_refused = g_strdup(snap->cgroup);
        }
        g_clear_pointer(&snap->cgroup, g_free);
        g_hash_table_remove(snap->properties, "ControlGroup");
}

void subject_take_snapshot(Subject *s, UnitSnapshot *snap) {
        confine_user_unit(s, snap);
        if (!streq_ptr(s->fragment, snap->fragment) || !strv_equal(s->dropins, snap->dropins))
                subject_invalidate_unit_groups(s);
        take_string(&s->fragment, &snap->fragment);
        g_strfreev(s->dropins);
        s->dropins = g_steal_pointer(&snap->dropins);
        take_string(&s->active_state, &snap->active_state);
        take_string(&s->cgroup, &snap->cgroup);
        take_string(&s->slice, &snap->slice);
        take_string(&s->user, &snap->user);
        g_hash_table_unref(s->unit_properties);
        s->unit_properties = g_hash_table_ref(snap->properties);
        s->properties_stale = false;
}

PropertyRecord *subject_find_property_record(Subject *s, const char *property) {
        return property_record_find(s->property_records, property);
}

static char *record_text(const Subject *s) {
        return s->record && s->record->items->len > 0 ? cgroup_record_serialize(s->record) : g_strdup("");
}

/* ---- The cgroup records: their files, and the write-ahead log ----
 *
 * A record is saved ahead of the writes it describes. Replacing its file
 * is four syscalls (create, write, rename, close); appending a line to
 * cgroups.intent is one, and that is on the path of every focus change.
 * While the log holds lines, every save goes there, so that a key's last
 * line is its newest record; a checkpoint, a moment after the last line,
 * writes the files of the subjects in it and empties it. A run killed
 * before that leaves the log to the next start (state_intent_replay()). */

#define CHECKPOINT_DELAY_USEC (1 * 1000 * 1000)
#define CHECKPOINT_MAX_DELAY_USEC (30 * 1000 * 1000)
/* Lines are changes, an item at most about 4 KiB (CGROUP_RECORD_PREVIOUS_MAX):
 * hundreds of lines, and a checkpoint (a file per subject in it) well
 * before the log costs /run much. */
#define CHECKPOINT_MAX_SIZE (256U * 1024U)

static int on_checkpoint(sd_event_source *source, uint64_t usec, void *userdata);

/* A moment after the last line, and at most a while after the first: a
 * stream of focus changes must not keep the log from its files. Set once
 * for a burst of lines, not moved at each (a syscall each time): when it
 * fires early, it is set again for the rest. After a checkpoint that
 * failed, the longer delay. */
static void set_checkpoint_timer(Manager *m, uint64_t at) {
        int r;

        if (m->intent_checkpoint) {
                r = sd_event_source_set_time(m->intent_checkpoint, at);
                if (r >= 0)
                        r = sd_event_source_set_enabled(m->intent_checkpoint, SD_EVENT_ONESHOT);
        } else
                r = sd_event_add_time(m->event, &m->intent_checkpoint, CLOCK_MONOTONIC, at, 0, on_checkpoint, m);
        if (r < 0)
                log_warning_errno(r, "Failed to arm the checkpoint of %s/cgroups.intent: it grows until policyd "
                                     "stops: %m",
                                  m->state_dir);
}

static void arm_checkpoint(Manager *m) {
        int enabled = SD_EVENT_OFF;
        uint64_t now;

        if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        m->intent_last = now;
        if (m->intent_since == 0)
                m->intent_since = now;
        if (m->intent_checkpoint && sd_event_source_get_enabled(m->intent_checkpoint, &enabled) >= 0 &&
            enabled != SD_EVENT_OFF)
                return;
        set_checkpoint_timer(m, now + (m->intent_failing ? CHECKPOINT_MAX_DELAY_USEC : CHECKPOINT_DELAY_USEC));
}

static int write_record_file(Subject *s) {
        Manager *m = s->manager;
        g_autofree char *text = record_text(s);
        int r = state_save_cgroup_record(m->state_dir, subject_key(s), s->record);

        g_free(s->saved_record);
        s->saved_record = r < 0 ? NULL : TAKE_PTR(text);
        if (r >= 0 && s->record_in_intent) {
                s->record_in_intent = false;
                m->intents_pending--;
        }
        return r;
}

/* Returns whether the log is empty now. */
static bool checkpoint(Manager *m) {
        GHashTableIter it;
        gpointer name, value;
        int r;

        if (!m->intent_dirty)
                return true;
        g_hash_table_iter_init(&it, m->subjects);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Subject *s = value;
                if (!s->record_in_intent)
                        continue;
                r = write_record_file(s);
                if (r < 0)
                        log_unit_full_errno(subject_name(s), m->intent_failing ? LOG_DEBUG : LOG_WARNING, r,
                                            "Failed to write the record, which stays in %s/cgroups.intent: %m",
                                            m->state_dir);
        }
        /* Records of no subject of this run, which no file holds yet. */
        g_hash_table_iter_init(&it, m->intent_unwritten);
        while (g_hash_table_iter_next(&it, &name, &value)) {
                g_autoptr(CgroupRecord) rec = NULL;
                if (*(const char *) value && cgroup_record_parse(value, &rec) < 0)
                        r = 0; /* cannot happen: serialized by policyd; nothing to write */
                else
                        r = state_save_cgroup_record_file(m->state_dir, name, rec);
                if (r >= 0)
                        g_hash_table_iter_remove(&it);
        }
        if (m->intents_pending > 0 || g_hash_table_size(m->intent_unwritten) > 0) {
                m->intent_failing = true;
                arm_checkpoint(m);
                return false;
        }
        r = state_intent_clear(m->state_dir, m->intent_fd);
        if (r < 0) {
                log_warning_errno(r, "Failed to empty %s/cgroups.intent: %m", m->state_dir);
                return false;
        }
        m->intent_dirty = m->intent_failing = false;
        m->intent_bytes = 0;
        m->intent_since = 0;
        return true;
}

void manager_checkpoint_records(Manager *m) {
        (void) checkpoint(m);
}

static int on_checkpoint(sd_event_source *source, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        uint64_t due = MIN(m->intent_last + CHECKPOINT_DELAY_USEC, m->intent_since + CHECKPOINT_MAX_DELAY_USEC);

        if (usec < due && !m->intent_failing) {
                set_checkpoint_timer(m, due);
                return 0;
        }
        manager_checkpoint_records(m);
        return 0;
}

static int append_record(Subject *s, char **text) {
        Manager *m = s->manager;
        int r = state_intent_append(m->state_dir, &m->intent_fd, subject_key(s), s->saved_record, *text);

        if (r < 0)
                return r;
        m->intent_bytes += (uint64_t) r;
        g_free(s->saved_record);
        s->saved_record = TAKE_PTR(*text);
        m->intent_dirty = true;
        if (!s->record_in_intent) {
                s->record_in_intent = true;
                m->intents_pending++;
        }
        /* By size too: a flood of changes within the delay must not fill /run. */
        if (m->intent_bytes >= CHECKPOINT_MAX_SIZE)
                (void) checkpoint(m);
        else
                arm_checkpoint(m);
        return 0;
}

/* While the log holds lines, a record is saved there, so that the last
 * line of each key is its newest record. When that fails, the log is
 * emptied into the files first: the file written then would be newer than
 * a line a restart would carry over it. When even that fails, the record
 * is not saved, and a write ahead of it is not made. */
static int save_record(Subject *s, bool ahead) {
        Manager *m = s->manager;
        g_autofree char *text = record_text(s);
        int r;

        if (streq_ptr(s->saved_record, text))
                return 0;
        if (ahead || m->intent_dirty) {
                r = append_record(s, &text);
                if (r >= 0)
                        return 0;
                log_unit_debug_errno(subject_name(s), r,
                                     "Failed to append to %s/cgroups.intent, writing the records' files: %m",
                                     m->state_dir);
                if (!checkpoint(m))
                        return r;
        }
        return write_record_file(s);
}

int subject_save_cgroup_record(Subject *s) {
        return save_record(s, false);
}

int subject_record_ahead(Subject *s) {
        return save_record(s, true);
}

static int save_property_records(Subject *s) {
        Manager *m = s->manager;
        g_autofree char *text = property_records_serialize(s->property_records);
        int r;

        if (streq_ptr(s->saved_properties, text))
                return 0;
        r = state_save_property_records(m->state_dir, subject_key(s), s->property_records);
        g_free(s->saved_properties);
        s->saved_properties = r < 0 ? NULL : TAKE_PTR(text);
        return r;
}

int subject_save_property_records(Subject *s) {
        return s->manager->dry_run ? 0 : save_property_records(s);
}

void subject_save(Subject *s) {
        int r;

        if (s->manager->dry_run)
                return;
        r = subject_save_cgroup_record(s);
        if (r < 0)
                log_unit_warning_errno(subject_name(s), r, "Failed to save what was applied: %m");
        r = save_property_records(s);
        if (r < 0)
                log_unit_warning_errno(subject_name(s), r, "Failed to save the properties set: %m");
}

static bool is_property_failure(Backend backend, const char *target, void *userdata) {
        (void) target;
        (void) userdata;
        return backend == BACKEND_SYSTEMD_PROPERTY;
}

void subject_forget_cgroup(Subject *s) {
        /* What failed on it went with it. */
        write_failures_prune(s->write_failures, -1, is_property_failure, NULL);
        if (!s->record || s->record->items->len == 0)
                return;
        g_clear_pointer(&s->record, cgroup_record_free);
        subject_save(s);
}

PropertyChange *property_change_free(PropertyChange *c) {
        if (!c)
                return NULL;
        g_free(c->property);
        g_free(c->value);
        g_free(c->previous);
        g_free(c->recorded_before);
        g_free(c);
        return NULL;
}

static void property_change_destroy(gpointer p) {
        property_change_free(p);
}

GPtrArray *property_changes_new(void) {
        return g_ptr_array_new_with_free_func(property_change_destroy);
}

void property_changes_add(GPtrArray *changes, const char *property, const char *value, const char *previous) {
        PropertyChange *c = g_new0(PropertyChange, 1);
        c->property = g_strdup(property);
        c->value = g_strdup(value);
        c->previous = g_strdup(previous);
        g_ptr_array_add(changes, c);
}

void subject_keep_resolution(Subject *s, Resolution *r) {
        g_clear_pointer(&s->memberships, g_ptr_array_unref);
        g_clear_pointer(&s->notes, g_ptr_array_unref);
        if (!r)
                return;
        s->memberships = g_steal_pointer(&r->memberships);
        s->notes = g_steal_pointer(&r->notes);
}
