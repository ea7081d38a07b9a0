/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "gather.h"
#include "log.h"
#include "manager.h"
#include "message-ids.h"
#include "policy-values.h"
#include "state-store.h"
#include "systemd-watch.h"
#include "unit-file.h"
#include "unit-lookup.h"
#include "unit-plan.h"
#include "util.h"

void apply_log_action(const char *who, const Action *a, int change_level) {
        switch (a->result) {
        case ACTION_WROTE:
                log_unit_full(who, change_level, "Set %s=%s (was %s)", a->target, strempty(a->new_value),
                              a->old_value ? a->old_value : "unset");
                break;
        case ACTION_WOULD_WRITE:
                log_unit_full(who, change_level, "Would set %s=%s (is %s)", a->target, strempty(a->new_value),
                              a->old_value ? a->old_value : "unset");
                break;
        case ACTION_RESTORED:
        case ACTION_REMOVED:
                log_unit_full(who, change_level, "Undid %s: %s", a->target,
                              a->result == ACTION_REMOVED ? "removed" : strempty(a->new_value));
                break;
        case ACTION_LEFT_FOREIGN:
                log_unit_info(who, "Left %s=%s alone: someone else changed it", a->target, strempty(a->old_value));
                break;
        case ACTION_NO_SPACE:
                break; /* all of them in one message: log_no_space() */
        case ACTION_FAILED:
                if (a->message)
                        log_context_id(MESSAGE_ID_WRITE_REFUSED, LOG_WARNING, a->error, who, NULL, NULL, 0,
                                       "Failed to write %s: %s", a->target, a->message);
                else
                        log_context_id(MESSAGE_ID_WRITE_REFUSED, LOG_WARNING, a->error, who, NULL, NULL, 0,
                                       "Failed to write %s: %m", a->target);
                break;
        case ACTION_VANISHED:
                log_unit_debug_errno(who, a->error, "cgroup vanished while applying");
                break;
        default:
                break;
        }
}

/* One warning for every xattr that did not fit, naming the unit in its
 * text too: a journal line per attribute helps nobody. */
static void log_no_space(Subject *s, const ApplyReport *report) {
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
        if (streq_ptr(s->no_space_logged, n > 0 ? names->str : NULL))
                return;
        g_free(s->no_space_logged);
        s->no_space_logged = n > 0 ? g_strdup(names->str) : NULL;
        if (n == 0)
                return;
        const char *who = subject_name(s);
        log_context_id(MESSAGE_ID_WRITE_REFUSED, LOG_WARNING, -ENOSPC, who, NULL, NULL, 0,
                       "%s: %u extended attributes (%zu bytes) did not fit on %s, whose limits (128 user.* names, "
                       "128 KiB of values) are reached: %s. The other settings are applied.",
                       who, n, bytes, s->cgroup, names->str);
}

/* Writes systemd's value of property to its kernel file, where they differ. */
static void sync_kernel_file(Subject *s, const char *property, const char *value) {
        Manager *m = s->manager;
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autofree char *kernel_value = NULL;
        const char *file;
        int r;

        if (isempty(s->cgroup) || systemd_property_kernel_file(property, value, &file, &kernel_value) < 0)
                return;
        r = cgroup_sync_knob_file(m->cgroup_root, s->cgroup, file, kernel_value, m->dry_run ? APPLY_DRY_RUN : 0,
                                  report);
        for (guint i = 0; i < report->actions->len; i++) {
                const Action *a = g_ptr_array_index(report->actions, i);
                if (a->result == ACTION_WROTE)
                        log_unit_notice(subject_name(s),
                                        "systemd holds %s=%s but did not write it (daemon-reload): set %s=%s (was %s)",
                                        property, value, file, strempty(a->new_value), strempty(a->old_value));
                else
                        apply_log_action(subject_name(s), a, LOG_NOTICE);
                /* The property's row in explain stands for its file too. */
                if (a->result == ACTION_WROTE || a->result == ACTION_UNCHANGED)
                        write_failures_clear(s->write_failures, BACKEND_SYSTEMD_PROPERTY, property);
                else if (a->result == ACTION_FAILED)
                        write_failures_set(s->write_failures, BACKEND_SYSTEMD_PROPERTY, property, value, a->error,
                                           NULL, (uint64_t) g_get_real_time());
        }
        if (r < 0 && !errno_is_vanished(r))
                log_unit_debug_errno(subject_name(s), r, "Failed to bring %s in line with %s: %m", file, property);
}

/* ---- Write-ahead records that could not be written ----
 *
 * A change is made only after its record is in /run/policyd, so that a
 * restart can take it back. When the record cannot be written (ENOSPC in
 * a full /run), the change is not made: the subject says so (explain,
 * status), and is applied again by a timer, 1 s after the failure and
 * twice as long each time after, up to 30 s, until the record is written
 * or the subject goes. */
#define RECORD_RETRY_FIRST_USEC (1 * G_USEC_PER_SEC)
#define RECORD_RETRY_MAX_USEC (30 * G_USEC_PER_SEC)

static void record_failed(Subject *s, int error, bool properties) {
        if (s->record_error == 0)
                s->record_error = error; /* the first failure of the pass says why */
        if (properties)
                s->record_failed_properties = true;
        else
                s->record_failed_cgroup = true;
}

static const char *record_failed_what(const Subject *s) {
        return s->record_failed_cgroup && s->record_failed_properties ? "cgroup and unit properties"
               : s->record_failed_properties                           ? "unit properties"
                                                                       : "cgroup";
}

/* At the end of a pass: a failed record sets the time of the retry (the
 * manager arms it), a written one after failures says so and clears it. */
static void record_pass_done(Subject *s, int error_before, ApplyOutcome *o) {
        Manager *m = s->manager;
        uint64_t delay, now = 0;

        o->record_retry_set = true;
        if (s->record_error == 0) {
                if (error_before < 0)
                        log_unit_notice(subject_name(s), "Recorded in %s after %u %s: changes made", m->state_dir,
                                        s->record_retries, s->record_retries == 1 ? "retry" : "retries");
                s->record_retries = 0;
                s->record_retry_at = 0;
                return;
        }
        delay = RECORD_RETRY_FIRST_USEC << MIN(s->record_retries, 5U);
        delay = MIN(delay, RECORD_RETRY_MAX_USEC);
        if (error_before == 0)
                log_unit_warning_errno(subject_name(s), s->record_error,
                                       "Failed to record the %s changes ahead in %s, so not making them; trying again in "
                                       "%" G_GUINT64_FORMAT " s: %m", record_failed_what(s), m->state_dir,
                                       delay / G_USEC_PER_SEC);
        s->record_retries++;
        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        s->record_retry_at = now + delay;
}

char *apply_describe_record_failures(Manager *m) {
        GHashTableIter it;
        gpointer value;
        unsigned n = 0;
        int error = 0;

        g_hash_table_iter_init(&it, m->subjects);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const Subject *s = value;
                if (s->record_error < 0) {
                        n++;
                        error = s->record_error;
                }
        }
        if (n == 0)
                return g_strdup_printf("written ahead in %s", m->state_dir);
        return g_strdup_printf("%u %s whose record could not be written ahead in %s (%s): their changes are not "
                               "made, and are tried again",
                               n, n == 1 ? "subject" : "subjects", m->state_dir, g_strerror(-error));
}

char *apply_describe_record_failure(const Subject *s) {
        uint64_t now = 0;

        if (s->record_error >= 0)
                return NULL;
        (void) sd_event_now(s->manager->event, CLOCK_MONOTONIC, &now);
        return g_strdup_printf("not made: the %s record could not be written ahead (%s); trying again in %" G_GUINT64_FORMAT
                               " s",
                               record_failed_what(s), g_strerror(-s->record_error),
                               s->record_retry_at > now ? (s->record_retry_at - now + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC
                                                        : 0);
}

/* Write-ahead, before the call: each property to set is recorded with the
 * value to restore and the value about to be written. */
static int record_ahead(Subject *s, GPtrArray *changes) {
        for (guint i = 0; i < changes->len; i++) {
                PropertyChange *c = g_ptr_array_index(changes, i);
                PropertyRecord *rec = subject_find_property_record(s, c->property);
                if (rec) {
                        c->had_record = true;
                        c->recorded_before = TAKE_PTR(rec->written);
                        rec->written = g_strdup(c->value);
                } else {
                        rec = g_new0(PropertyRecord, 1);
                        rec->property = g_strdup(c->property);
                        rec->previous = g_strdup(strempty(c->previous));
                        rec->written = g_strdup(c->value);
                        g_ptr_array_add(s->property_records, rec);
                }
        }
        return subject_save_property_records(s);
}

/* systemd refused, or the records could not be written (save false: the
 * file still says what they said before): they go back to that. */
static void record_revert_in_memory(Subject *s, GPtrArray *changes, bool save) {
        for (guint i = 0; i < changes->len; i++) {
                PropertyChange *c = g_ptr_array_index(changes, i);
                PropertyRecord *rec = subject_find_property_record(s, c->property);
                if (!rec)
                        continue;
                if (c->had_record) {
                        g_free(rec->written);
                        rec->written = g_strdup(c->recorded_before);
                } else
                        g_ptr_array_remove(s->property_records, rec);
        }
        if (save)
                subject_save(s);
}

static void record_revert(Subject *s, GPtrArray *changes) {
        record_revert_in_memory(s, changes, true);
}

static char *changes_to_string(GPtrArray *changes, bool with_values) {
        g_autoptr(GString) s = g_string_new(NULL);
        for (guint i = 0; i < changes->len; i++) {
                const PropertyChange *c = g_ptr_array_index(changes, i);
                g_string_append_printf(s, "%s%s=%s", i ? " " : "", c->property, with_values ? c->value : "");
        }
        return g_string_free(g_steal_pointer(&s), FALSE);
}

/* Each property of a SetUnitProperties call that failed, for explain. */
static void properties_failed(Subject *s, GPtrArray *changes, int error, const char *message) {
        for (guint i = 0; i < changes->len; i++) {
                const PropertyChange *c = g_ptr_array_index(changes, i);
                write_failures_set(s->write_failures, BACKEND_SYSTEMD_PROPERTY, c->property, c->value,
                                   error != 0 ? error : EIO, message, (uint64_t) g_get_real_time());
        }
}

/* --revert: systemd rewrote RUNTIME_CONTROL_DIR/UNIT.d/50-PROPERTY.conf
 * with the value restored. Where the unit's other files give that value,
 * that drop-in only restates them: it goes, so that nothing policyd made
 * is left in /run/systemd. systemd reads its removal at the next
 * daemon-reload (the package's postrm runs it; policyd does not). A user
 * manager's runtime drop-ins live under /run/user/UID, and a transient
 * unit's files go with the unit: both are left alone. */
static void remove_restating_dropin(Subject *s, const char *property, const char *restored) {
        const char *who = subject_name(s);
        g_autoptr(GPtrArray) assignments = NULL;
        g_autofree char *dir = NULL, *name = NULL;
        _cleanup_close_ int control_fd = -1, dir_fd = -1, fd = -1;
        struct stat st, again;
        int r;

        if (!s->manager->revert || s->manager->dry_run || !s->unit || s->user_unit || strchr(s->unit, '/') ||
            streq_ptr(g_hash_table_lookup(s->unit_properties, "Transient"), "yes") ||
            (s->fragment && g_str_has_prefix(s->fragment, "/run/systemd/transient/")))
                return;
        r = unit_file_read_property(s->unit, s->fragment, (const char *const *) s->dropins, 0, property, &assignments);
        if (r < 0 || !unit_property_dropin_restates_files(property, restored, assignments)) {
                log_unit_debug_errno(who, r,
                                     "Keeping the runtime drop-in for %s=%s: the unit's files do not give that value",
                                     property, restored);
                return;
        }
        dir = g_strdup_printf("%s.d", s->unit);
        name = g_strdup_printf("50-%s.conf", property);
        control_fd = open(RUNTIME_CONTROL_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (control_fd >= 0)
                dir_fd = openat(control_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir_fd >= 0)
                fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
                log_unit_full_errno(who, errno == ENOENT ? LOG_DEBUG : LOG_WARNING, -errno,
                                    "Cannot open %s/%s/%s, not removing it: %m", RUNTIME_CONTROL_DIR, dir, name);
                return;
        }
        /* Root's own regular file, and the same one that unlinkat() removes. */
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
            fstatat(dir_fd, name, &again, AT_SYMLINK_NOFOLLOW) < 0 || again.st_dev != st.st_dev ||
            again.st_ino != st.st_ino) {
                log_unit_warning(who, "%s/%s/%s is not a regular file of root's: not removing it", RUNTIME_CONTROL_DIR,
                                 dir, name);
                return;
        }
        if (unlinkat(dir_fd, name, 0) < 0) {
                log_unit_warning_errno(who, -errno, "Failed to remove %s/%s/%s: %m", RUNTIME_CONTROL_DIR, dir, name);
                return;
        }
        log_unit_info(who, "Removed %s/%s/%s: it restated what the unit's files give (%s=%s); systemd reads that at "
                      "the next daemon-reload", RUNTIME_CONTROL_DIR, dir, name, property, restored);
        /* The directory too, when that was its last file. */
        (void) unlinkat(control_fd, dir, AT_REMOVEDIR);
}

/* systemd answered a SetUnitProperties call (error NULL: it took it). s
 * is NULL when the subject went away meanwhile. */
void apply_properties_answered(Subject *s, const char *unit, GPtrArray *changes, bool undo, const sd_bus_error *error) {
        if (error) {
                g_autofree char *what = changes_to_string(changes, true);
                log_context_id(MESSAGE_ID_WRITE_REFUSED, bus_error_is_vanished(error) ? LOG_DEBUG : LOG_WARNING, 0,
                               unit, NULL, NULL, 0, "Failed to %s %s: %s", undo ? "restore" : "set", what,
                               error->message);
                if (s && !bus_error_is_vanished(error))
                        properties_failed(s, changes, sd_bus_error_get_errno(error), error->message);
                if (s && !undo)
                        record_revert(s, changes);
                return;
        }

        for (guint i = 0; i < changes->len; i++) {
                const PropertyChange *ch = g_ptr_array_index(changes, i);
                int level = ch->focus_move ? LOG_DEBUG : LOG_NOTICE;
                if (undo)
                        log_unit_full(unit, level, "Undid %s: restored %s", ch->property, ch->value);
                else
                        log_unit_full(unit, level, "Set %s=%s (was %s)", ch->property, ch->value,
                                      isempty(ch->previous) ? "unset" : ch->previous);
                if (!s)
                        continue;
                write_failures_clear(s->write_failures, BACKEND_SYSTEMD_PROPERTY, ch->property);
                if (undo) {
                        PropertyRecord *rec = subject_find_property_record(s, ch->property);
                        if (rec)
                                g_ptr_array_remove(s->property_records, rec);
                        remove_restating_dropin(s, ch->property, ch->value);
                }
                g_hash_table_replace(s->unit_properties, g_strdup(ch->property), g_strdup(ch->value));
        }
        if (s && undo)
                subject_save(s);
}

/* An undo keeps its records until systemd confirms; a set records first,
 * so that a crash after the call still knows the way back. */
static void set_unit_properties(Subject *s, SystemdLink *l, GPtrArray *changes, bool undo, bool focus_move) {
        if (changes->len == 0)
                return;
        for (guint i = 0; i < changes->len; i++)
                ((PropertyChange *) g_ptr_array_index(changes, i))->focus_move = focus_move;
        if (!undo) {
                int r = record_ahead(s, changes);
                if (r < 0) {
                        /* Without its record a restart could not take it back. */
                        record_revert_in_memory(s, changes, false);
                        record_failed(s, r, true);
                        return;
                }
        }
        int r = l ? systemd_set_unit_properties(l, s->unit, changes, undo) : -ENOTCONN;
        if (r < 0) {
                properties_failed(s, changes, r, NULL);
                if (!undo)
                        record_revert(s, changes);
        }
}

/* A knob whose failure explain still shows: the plan wants it, or a record
 * holds it (an undo to finish, or to try again). */
typedef struct KnobsInPlay {
        const Subject *s;
        const CgroupPlan *plan;
} KnobsInPlay;

static bool knob_in_play(Backend backend, const char *target, void *userdata) {
        const KnobsInPlay *k = userdata;

        for (guint i = 0; i < k->plan->items->len; i++) {
                const PlanItem *item = g_ptr_array_index(k->plan->items, i);
                if (item->backend == backend && streq(item->target, target))
                        return true;
        }
        if (backend == BACKEND_SYSTEMD_PROPERTY)
                return subject_find_property_record((Subject *) k->s, target) != NULL;
        guint index = 0;
        return k->s->record && cgroup_record_find(k->s->record, backend, target, &index) != NULL;
}

/* Executes the unit plan (unit-plan.h; gather_unit_plan() made it
 * against plan, or failed with r), in its order; or asks, in o, for what
 * to read from systemd first. */
static void apply_systemd_properties(Subject *s, SystemdLink *link, const CgroupPlan *plan, UnitPlan *up, int r,
                                     bool focus_move, ApplyOutcome *o) {
        g_autoptr(GPtrArray) sets = property_changes_new(), restores = property_changes_new();
        const char *who = subject_name(s);

        if (r < 0) {
                log_unit_warning_errno(who, r, "Failed to plan the unit's properties: %m");
                return;
        }
        if (up->read == UNIT_PLAN_READ_UNIT || up->read == UNIT_PLAN_READ_VALUES) {
                o->read = up->read;
                o->read_names = g_steal_pointer(&up->read_names);
                return;
        }

        for (guint i = 0; i < up->syncs->len; i++) {
                const UnitPlanSync *x = g_ptr_array_index(up->syncs, i);
                if (x->relied)
                        g_hash_table_replace(s->relied_properties, g_strdup(x->property), g_strdup(x->value));
                sync_kernel_file(s, x->property, x->value);
                if (!x->relied)
                        g_hash_table_remove(s->relied_properties, x->property);
        }

        for (guint i = 0; i < up->sets->len; i++) {
                const UnitPlanSet *x = g_ptr_array_index(up->sets, i);
                g_hash_table_remove(s->relied_properties, x->property);
                if (x->would) {
                        log_unit_notice(who, "Would set %s=%s (is %s)", x->property, x->value, strempty(x->current));
                        continue;
                }
                if (x->previous_from_generated)
                        log_unit_debug(who, "%s=%s comes from policyd-generator's drop-in; recording %s as the value "
                                       "to restore", x->property, strempty(x->current),
                                       isempty(x->previous) ? "nothing" : x->previous);
                property_changes_add(sets, x->property, x->value, x->previous);
        }
        set_unit_properties(s, link, sets, false, focus_move);

        for (guint i = 0; i < up->records->len; i++) {
                const UnitPlanRecordStep *x = g_ptr_array_index(up->records, i);
                switch (x->verdict) {
                case UNIT_PLAN_RECORD_RESTORE:
                        property_changes_add(restores, x->property, x->previous, NULL);
                        continue;
                case UNIT_PLAN_RECORD_WOULD_RESTORE:
                        log_unit_notice(who, "Would restore %s=%s", x->property, x->previous);
                        continue;
                case UNIT_PLAN_RECORD_DROP_FROM_BEFORE:
                        log_unit_debug(who, "%s=%s is the value from before; nothing to undo", x->property,
                                       strempty(x->current));
                        break;
                case UNIT_PLAN_RECORD_DROP_CHANGED:
                        log_unit_info(who, "Left %s=%s alone: it is no longer the value policyd set (%s)", x->property,
                                      strempty(x->current), x->written);
                        break;
                default:
                        break;
                }
                PropertyRecord *rec = subject_find_property_record(s, x->property);
                if (rec)
                        g_ptr_array_remove(s->property_records, rec);
                subject_save(s);
        }

        for (guint i = 0; i < up->stale_restores->len; i++) {
                const UnitPlanStaleRestore *x = g_ptr_array_index(up->stale_restores, i);
                log_unit_info(who,
                              "%s=%s comes from policyd-generator's drop-in for a group the unit no longer has; "
                              "restoring %s at runtime", x->property, x->current, x->admin);
                if (x->would)
                        continue;
                /* Set through systemd now: nothing left for the kernel-file sync. */
                g_hash_table_remove(s->relied_properties, x->property);
                property_changes_add(restores, x->property, x->admin, NULL);
        }
        /* The records go when systemd confirms. */
        set_unit_properties(s, link, restores, true, focus_move);

        const KnobsInPlay in_play = { s, plan };
        write_failures_prune(s->write_failures, BACKEND_SYSTEMD_PROPERTY, knob_in_play, (void *) &in_play);
}

static void log_notes(Subject *s, const Resolution *r, const GPtrArray *previous) {
        for (guint i = 0; i < r->notes->len; i++) {
                const ResolveNote *n = g_ptr_array_index(r->notes, i);
                bool seen = false;
                for (guint j = 0; previous && j < previous->len && !seen; j++) {
                        const ResolveNote *p = g_ptr_array_index(previous, j);
                        seen = p->kind == n->kind && streq(p->group, n->group);
                }
                int level = seen ? LOG_DEBUG : LOG_WARNING;
                const char *who = subject_name(s);
                switch (n->kind) {
                case RESOLVE_NOTE_UNKNOWN_GROUP:
                        log_context_id(MESSAGE_ID_CONFIG_VALUE_REFUSED, level, 0, who, n->group, NULL, 0,
                                       "%s names unknown policy group '%s', ignoring it",
                                       membership_source_to_string(n->source), n->group);
                        break;
                case RESOLVE_NOTE_MASKED_GROUP:
                        log_context_id(MESSAGE_ID_CONFIG_VALUE_REFUSED, level, 0, who, n->group, NULL, 0,
                                       "Policy group '%s' is masked, ignoring it", n->group);
                        break;
                case RESOLVE_NOTE_SELF_REQUEST_REFUSED:
                        log_context_id(MESSAGE_ID_TRUST_REFUSED, level, 0, who, n->group, NULL, 0,
                                       "Refusing self-request for group '%s': not allowed by the group, or not a "
                                       "delegated cgroup",
                                       n->group);
                        break;
                case RESOLVE_NOTE_DELEGATION_ROOT:
                        log_context_id(MESSAGE_ID_TRUST_REFUSED, level, 0, who, n->group, NULL, 0,
                                       "Refusing %s for group '%s' on the cgroup of a system unit delegated to its "
                                       "user: that delegation root's limits are the administrator's; the user's "
                                       "own cgroups are below it",
                                       n->source == MEMBERSHIP_SELF_REQUEST ? "self-request" : "the owner's attributes",
                                       n->group);
                        break;
                }
        }
}

/* The journal and the bus hear of the groups when they change: one line
 * with the groups before, which says all that the group tag's write says
 * (that one is logged at debug level). */
static void announce_resolution(Subject *s, const Resolution *r, UnitPlanChange change, ApplyOutcome *o) {
        bool focus_move = change & UNIT_PLAN_FOCUS_MOVE;

        log_notes(s, r, s->notes);
        if (!(change & UNIT_PLAN_GROUPS_CHANGED))
                return;
        g_autofree char *tag = resolution_group_tag(r);
        g_autofree char *was = s->memberships ? membership_list_tag(s->memberships) : NULL;
        log_context_id(MESSAGE_ID_GROUPS_APPLIED, focus_move ? LOG_DEBUG : LOG_INFO, 0, subject_name(s), NULL, NULL, 0,
                       "Policy groups: %s%s%s%s",
                       isempty(tag) ? "(none)" : tag, was ? " (was " : "", was ? (isempty(was) ? "none" : was) : "",
                       was ? ")" : "");
        o->memberships_changed = g_ptr_array_ref(r->memberships);
}

/* The tag's write, and a focus move's writes, at debug level: the groups
 * line says the first, and a focus move is routine (unit_plan_classify()). */
static void log_apply_action(const char *who, const Action *a, bool focus_move) {
        bool tag_write = a->result == ACTION_WROTE && a->backend == BACKEND_XATTR &&
                         streq(a->target, POLICY_GROUP_XATTR);

        bool routine = tag_write || (focus_move && a->result != ACTION_WOULD_WRITE);

        apply_log_action(who, a, routine ? LOG_DEBUG : LOG_NOTICE);
}

/* The record reaches /run/policyd before the writes it describes: once
 * for all of them (cgroup_apply_plan_at()), in the intent log; its own
 * file follows at the log's checkpoint. */
static int save_record_ahead(const CgroupRecord *record, void *userdata) {
        Subject *s = userdata;
        int r = subject_record_ahead(s);
        if (r < 0) {
                /* Said once: record_pass_done() sums each failing pass up. */
                log_unit_full_errno(subject_name(s), s->record_retries > 0 ? LOG_DEBUG : LOG_WARNING, r,
                                    "Failed to record what is about to be written, so not writing it: %m");
                record_failed(s, r, false);
                /* A full /run is not the xattr limits that ENOSPC means to the report. */
                return r == -ENOSPC ? -EIO : r;
        }
        return 0;
}

void apply_outcome_clear(ApplyOutcome *o) {
        g_clear_pointer(&o->memberships_changed, g_ptr_array_unref);
        g_clear_pointer(&o->read_names, g_strfreev);
        *o = (ApplyOutcome) {};
}

void apply_pass_begin(Subject *s, ApplyOutcome *o) {
        *o = (ApplyOutcome) { .record_error_before = s->record_error };
        /* Said again by this pass if its records fail again. */
        s->record_error = 0;
        s->record_failed_cgroup = s->record_failed_properties = false;
}

bool apply_subject_is_live(const Subject *s) {
        return !isempty(s->cgroup) && subject_is_running(s);
}

void apply_subject_gone(Subject *s, SystemdLink *link, SubjectPlan *undo, ApplyOutcome *o) {
        g_ptr_array_set_size(s->write_failures, 0);
        record_pass_done(s, 0, o);
        subject_forget_cgroup(s);
        subject_keep_resolution(s, NULL);
        o->forgotten = true;
        if (undo)
                apply_systemd_properties(s, link, undo->cgroup, undo->unit, undo->unit_error, false, o);
}

void apply_subject(Subject *s, SubjectPlan *p, CgroupHandle *cgroup, SystemdLink *link, ApplyOutcome *o) {
        Manager *m = s->manager;
        g_autoptr(ApplyReport) report = NULL;
        const char *who = subject_name(s);
        int k;

        assert(p && p->resolution);
        g_free(s->attributes_seen);
        s->attributes_seen = TAKE_PTR(p->attributes_seen);
        s->plan_flags = p->flags;
        Resolution *r = p->resolution;
        const CgroupPlan *plan = p->cgroup;
        /* A move between groups that select by focus, and only such groups:
         * it follows the user's every click on another window, and a journal
         * line for each would drown the rest (and cost journald more than the
         * move costs policyd). Logged at debug level, with its writes;
         * subscribers hear of it on the bus as of any change, and explain
         * says where the app is and why. */
        UnitPlanChange change = unit_plan_classify(s->memberships, r, m->policies);
        bool focus_move = change & UNIT_PLAN_FOCUS_MOVE;
        o->resolved = true;
        o->focus_deadline_usec = r->focus_deadline_usec;
        if (p->cgroup_error < 0) {
                announce_resolution(s, r, change, o);
                log_unit_warning_errno(who, p->cgroup_error, "Failed to plan changes: %m");
                return;
        }

        if (s->record && !streq(s->record->cgroup, s->cgroup)) {
                /* The unit moved (another slice, while policyd was down):
                 * undo what was written on the old cgroup, if it is still there. */
                g_autoptr(ApplyReport) old = apply_report_new();
                (void) cgroup_undo(m->cgroup_root, s->record->cgroup, s->record, m->dry_run ? APPLY_DRY_RUN : 0, old);
                g_clear_pointer(&s->record, cgroup_record_free);
        }
        if (!s->record)
                s->record = cgroup_record_new(s->cgroup);
        report = apply_report_new();
        const ApplyHooks hooks = { save_record_ahead, s };
        k = cgroup_apply_plan_at(cgroup, m->cgroup_root, s->cgroup, plan, s->record,
                                 m->dry_run ? APPLY_DRY_RUN : 0, &hooks, report);
        /* Said after the writes, which wait for nothing but the record. */
        announce_resolution(s, r, change, o);
        for (guint i = 0; i < report->actions->len; i++)
                log_apply_action(who, g_ptr_array_index(report->actions, i), focus_move);
        log_no_space(s, report);
        if (!m->dry_run) {
                const KnobsInPlay in_play = { s, plan };
                write_failures_update(s->write_failures, report, (uint64_t) g_get_real_time());
                write_failures_prune(s->write_failures, BACKEND_XATTR, knob_in_play, (void *) &in_play);
                write_failures_prune(s->write_failures, BACKEND_CGROUP_FILE, knob_in_play, (void *) &in_play);
        }
        if (errno_is_vanished(k)) {
                log_unit_debug_errno(who, k, "cgroup %s vanished", s->cgroup);
                subject_forget_cgroup(s);
        } else if (k < 0 && k != -ENOSPC)
                log_unit_warning_errno(who, k, "Failed to apply policy groups: %m");

        if (s->unit)
                apply_systemd_properties(s, link, plan, p->unit, p->unit_error, focus_move, o);

        subject_keep_resolution(s, r);
        subject_save(s);
        record_pass_done(s, o->record_error_before, o);
        o->applied = true;
}
