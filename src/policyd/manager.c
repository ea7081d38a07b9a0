/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "apply.h"
#include "attr-watch.h"
#include "bus-api.h"
#include "bus-polkit.h"
#include "bus-util.h"
#include "exec-watch.h"
#include "gather.h"
#include "log.h"
#include "manager.h"
#include "message-ids.h"
#include "process-watch.h"
#include "state-store.h"
#include "swap-watch.h"
#include "swap-tier-pass.h"
#include "swap-tier-tree.h"
#include "systemd-watch.h"
#include "user-managers.h"
#include "util.h"

static void ptr_array_destroy(gpointer p) {
        g_ptr_array_unref(p);
}

/* ---- units ---- */

Subject *manager_find_subject(Manager *m, const char *key) {
        return key ? g_hash_table_lookup(m->subjects, key) : NULL;
}

Subject *manager_find_subject_by_cgroup(Manager *m, const char *cgroup) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, m->subjects);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Subject *s = value;
                if (s->cgroup && streq(s->cgroup, cgroup))
                        return s;
        }
        return NULL;
}

static int on_record_retry(sd_event_source *source, uint64_t usec, void *userdata) {
        Subject *s = userdata;
        (void) source;
        (void) usec;
        log_unit_debug(subject_name(s), "Trying again to record and make the changes");
        manager_apply_subject(s->manager, s);
        return 0;
}

/* A pass whose records failed is made again later (apply.c says when). */
static void arm_record_retry(Manager *m, Subject *s) {
        int r;

        if (s->record_retry_at == 0) {
                if (s->record_retry)
                        (void) sd_event_source_set_enabled(s->record_retry, SD_EVENT_OFF);
                return;
        }
        if (s->record_retry) {
                r = sd_event_source_set_time(s->record_retry, s->record_retry_at);
                if (r >= 0)
                        r = sd_event_source_set_enabled(s->record_retry, SD_EVENT_ONESHOT);
        } else
                r = sd_event_add_time(m->event, &s->record_retry, CLOCK_MONOTONIC, s->record_retry_at, 0,
                                      on_record_retry, s);
        if (r < 0)
                log_unit_warning_errno(subject_name(s), r, "Failed to arm the retry: %m");
}

/* What the tier pass needs of the subject's SwapTiers=; a pass when it
 * changed. r NULL: the subject has no cgroup now. */
static void note_swap_tiers(Manager *m, Subject *s, const Resolution *r, const CandidateData *d) {
        const ResolvedKnob *k = r ? &r->knobs[KNOB_SWAP_TIERS] : NULL;
        bool requested = k && k->set;
        g_auto(GStrv) allowed = NULL;
        bool from_user = false;

        if (requested && !swap_tiers_allowed(k->value.tiers, m->facts, &allowed))
                requested = false; /* no tiers here: nothing goes through the tree */
        /* After the apply the subject holds the memberships (subject.c
         * takes them from the resolution). */
        GPtrArray *memberships = r && r->memberships ? r->memberships : s->memberships;
        for (guint i = 0; requested && memberships && i < memberships->len; i++) {
                const Membership *mb = g_ptr_array_index(memberships, i);
                if (!streq(mb->group, k->group))
                        continue;
                /* A user's own: a self-request, or any group on a cgroup
                 * the user owns below a delegation root (their runtime
                 * self-assignment, their unit files, a match on their
                 * xattrs). At the delegation root only root's count. */
                from_user = mb->source == MEMBERSHIP_SELF_REQUEST ||
                            ((!d->c.owner_known || d->c.owner_uid != 0) && !candidate_is_delegation_root(&d->c));
        }
        if (requested == s->tiers_requested && from_user == s->tiers_from_user &&
            tier_set_equal(allowed, s->tiers_allowed) && streq_ptr(requested ? s->cgroup : NULL, s->tiers_cgroup))
                return;
        s->tiers_requested = requested;
        s->tiers_from_user = from_user;
        g_strfreev(s->tiers_allowed);
        s->tiers_allowed = g_steal_pointer(&allowed);
        g_free(s->tiers_cgroup);
        s->tiers_cgroup = requested ? g_strdup(s->cgroup) : NULL;
        swap_tier_pass_schedule(m->swap_tiers);
}

/* The one place a subject is applied, and the one place that tells who
 * must hear of it: the watchers, the bus, and systemd-watch for what to
 * read again. */
void manager_apply_subject_gathered(Manager *m, Subject *s, CandidateData *gathered, CgroupHandle *cgroup) {
        _cleanup_(apply_outcome_clear) ApplyOutcome o = {};
        _cleanup_(subject_plan_clear) SubjectPlan p = {};
        SystemdLink *link = manager_link_of(m, s);
        bool was_member = s->memberships && s->memberships->len > 0;
        CandidateData own = {};
        int r;

        /* gather → plan → execute. */
        apply_pass_begin(s, &o);
        if (!apply_subject_is_live(s)) {
                /* --revert: a stopped unit's runtime properties wait in
                 * systemd for its next start; they are undone now. */
                bool undo = m->revert && s->unit && s->property_records->len > 0;
                apply_subject_gone(s, link, undo && gather_revert_plan(s, &p) >= 0 ? &p : NULL, &o);
        } else if (cgroup_path_validate(s->cgroup) < 0)
                log_unit_warning(subject_name(s), "Ignoring invalid cgroup path '%s'", s->cgroup);
        else if ((r = gather_subject_plan(s, gathered ? gathered : &own, 0, &p)) < 0)
                log_unit_warning_errno(subject_name(s), r, "Failed to resolve policy groups: %m");
        else {
                apply_subject(s, &p, cgroup, link, &o);
                note_swap_tiers(m, s, p.resolution, gathered ? gathered : &own);
        }
        candidate_data_clear(&own);
        if (o.forgotten)
                note_swap_tiers(m, s, NULL, NULL);

        if (o.forgotten) {
                process_watch_subject_gone(m->processes, subject_key(s));
                attr_watch_subject_gone(m->attributes, subject_key(s));
        }
        if (o.resolved)
                attr_watch_subject_applied(m->attributes, s, o.focus_deadline_usec, cgroup != NULL);
        if (o.memberships_changed)
                bus_api_emit_membership_changed(m, s, o.memberships_changed);
        if (o.record_retry_set)
                arm_record_retry(m, s);
        if (o.applied)
                process_watch_subject_applied(m->processes, s);
        if (o.read == UNIT_PLAN_READ_UNIT)
                manager_refresh_subject(s);
        else if (o.read == UNIT_PLAN_READ_VALUES)
                manager_read_unit_values(m, s, o.read_names);

        /* Whichever way the pass ended. A move between groups (a focus
         * change) leaves NMembers as it is. */
        bool is_member = s->memberships && s->memberships->len > 0;
        manager_properties_changed(m, (was_member != is_member ? MANAGER_PROPERTY_NMEMBERS : 0) |
                                              (s->record_error != o.record_error_before ? MANAGER_PROPERTY_RECORDS : 0));
}

void manager_apply_subject(Manager *m, Subject *s) {
        manager_apply_subject_gathered(m, s, NULL, NULL);
}

void manager_unit_snapshot(Manager *m, const char *unit, unsigned generation, UnitSnapshot *snap) {
        Subject *s = manager_find_subject(m, unit);

        if (!s || s->refresh_generation != generation)
                return; /* forgotten, or refreshed again since */
        subject_take_snapshot(s, snap);
        manager_apply_subject(m, s);
        user_managers_unit_changed(m, s);
}

void manager_unit_values(Manager *m, const char *unit, unsigned generation, GHashTable *values) {
        Subject *s = manager_find_subject(m, unit);
        GHashTableIter i;
        gpointer k, v;

        if (!s || s->refresh_generation != generation)
                return;
        g_hash_table_iter_init(&i, values);
        while (g_hash_table_iter_next(&i, &k, &v)) {
                if (v)
                        g_hash_table_replace(s->unit_properties, g_strdup(k), g_strdup(v));
                else
                        g_hash_table_remove(s->unit_properties, k);
        }
        s->properties_stale = false;
        manager_apply_subject(m, s);
}

void manager_unit_properties_set(Manager *m, const char *unit, GPtrArray *changes, bool undo,
                                 const sd_bus_error *error) {
        apply_properties_answered(manager_find_subject(m, unit), unit, changes, undo, error);
}

/* dbus-daemon allows 128 pending replies per connection by default: a
 * refresh of every unit at once would overrun it on a busy machine. Each
 * refresh has up to nine calls in flight (systemd_refresh_unit()). */
#define REFRESHES_IN_FLIGHT_MAX 8

static void pump_refreshes(SystemdLink *l) {
        Manager *m = l->manager;

        /* Without a bus the queue waits for the reconnect. */
        while (l->bus && l->refreshes_in_flight < REFRESHES_IN_FLIGHT_MAX && !g_queue_is_empty(l->refresh_queue)) {
                g_autofree char *key = g_queue_pop_head(l->refresh_queue);
                Subject *s = manager_find_subject(m, key);
                if (!s)
                        continue;
                s->refresh_queued = false;
                /* Sent calls count in pending_calls before the one that
                 * ended is uncounted, so --once cannot exit in between. */
                s->refresh_generation = ++m->refresh_generation;
                g_auto(GStrv) values = g_steal_pointer(&s->refresh_values);
                int r = values ? systemd_read_unit_values(l, s->unit, s->object_path, s->refresh_generation, values)
                               : systemd_refresh_unit(l, s->unit, s->object_path, s->refresh_generation);
                if (r >= 0)
                        l->refreshes_in_flight++;
        }
}

void manager_refresh_finished(SystemdLink *l) {
        if (l->refreshes_in_flight > 0)
                l->refreshes_in_flight--;
        pump_refreshes(l);
}

SystemdLink *manager_link_of(Manager *m, const Subject *s) {
        if (!s->unit)
                return NULL;
        if (!s->user_unit)
                return m->system;
        return m->user_links ? g_hash_table_lookup(m->user_links, GUINT_TO_POINTER(s->manager_uid)) : NULL;
}

/* policyd's own injector runs one instance a request: followed as a unit,
 * each would be read, applied and watched as it comes and goes, at about
 * twice the cost of the request itself (bench/RESULTS.md, process layer). */
static bool unit_is_own_helper(const char *unit) {
        return g_str_has_prefix(unit, "policyd-inject@") && g_str_has_suffix(unit, ".service");
}

void manager_refresh_unit(SystemdLink *l, const char *unit, const char *object_path) {
        Manager *m = l->manager;
        g_autofree char *key = systemd_link_key(l, unit);
        Subject *s = manager_find_subject(m, key);

        if (!unit_type_has_cgroup(unit) || (!l->user && unit_is_own_helper(unit)))
                return;
        if (!s && l->user && l->units >= USER_LINK_UNITS_MAX) {
                if (!l->units_capped_logged)
                        log_warning("The systemd of uid %u has more than %u units; not following %s, nor any "
                                    "more of its units until some go.",
                                    (unsigned) l->uid, USER_LINK_UNITS_MAX, unit);
                l->units_capped_logged = true;
                return;
        }
        if (!s && l->user) {
                s = subject_new_user_unit(m, l->uid, unit);
                l->units++;
        } else if (!s)
                s = subject_new(m, unit, NULL);
        if (object_path && !streq_ptr(s->object_path, object_path)) {
                g_free(s->object_path);
                s->object_path = g_strdup(object_path);
        }
        g_clear_pointer(&s->refresh_values, g_strfreev); /* the whole unit, then */
        if (!s->object_path || s->refresh_queued)
                return;
        s->refresh_queued = true;
        g_queue_push_tail(l->refresh_queue, g_steal_pointer(&key));
        pump_refreshes(l);
}

void manager_user_unit_gone(Manager *m, uid_t uid) {
        SystemdLink *l = m->user_links ? g_hash_table_lookup(m->user_links, GUINT_TO_POINTER(uid)) : NULL;

        if (l && l->units > 0 && --l->units < USER_LINK_UNITS_MAX)
                l->units_capped_logged = false;
}

void manager_refresh_subject(Subject *s) {
        SystemdLink *l = manager_link_of(s->manager, s);
        if (l)
                manager_refresh_unit(l, s->unit, s->object_path);
}

void manager_read_unit_values(Manager *m, Subject *s, char *const *properties) {
        SystemdLink *l = manager_link_of(m, s);

        if (!l || !s->object_path || !properties || !properties[0])
                return;
        if (s->refresh_queued) {
                /* A whole refresh queued covers these; a values read gets them added. */
                if (!s->refresh_values)
                        return;
                g_autoptr(GStrvBuilder) b = g_strv_builder_new();
                g_strv_builder_addv(b, (const char **) s->refresh_values);
                for (char *const *p = properties; *p; p++)
                        if (!g_strv_contains((const char *const *) s->refresh_values, *p))
                                g_strv_builder_add(b, *p);
                g_strfreev(s->refresh_values);
                s->refresh_values = g_strv_builder_end(b);
                return;
        }
        s->refresh_values = g_strdupv((char **) properties);
        s->refresh_queued = true;
        g_queue_push_tail(l->refresh_queue, g_strdup(subject_key(s)));
        pump_refreshes(l);
}

void manager_forget_unit(Manager *m, const char *unit) {
        /* unit: the subject key, "user@UID/UNIT" for a user's unit. */
        Subject *s = manager_find_subject(m, unit);
        if (!s)
                return;
        user_managers_unit_gone(m, unit);
        /* An unloaded unit has no cgroup. Property records stay on disk: the
         * runtime properties live on in systemd for the unit's next load;
         * except a transient unit's, which systemd keeps in its transient
         * directory and removes with the unit (so /run/policyd would only
         * grow with units that never come back). */
        /* What the subject counted in goes with it. */
        manager_properties_changed(m, MANAGER_PROPERTY_MANAGERS |
                                              (s->memberships && s->memberships->len > 0 ? MANAGER_PROPERTY_NMEMBERS : 0) |
                                              (s->record_error < 0 ? MANAGER_PROPERTY_RECORDS : 0) |
                                              (s->needs_daemon_reload ? MANAGER_PROPERTY_UNITS_NEED_DAEMON_RELOAD : 0));
        subject_forget_cgroup(s);
        process_watch_subject_gone(m->processes, unit);
        attr_watch_subject_gone(m->attributes, unit);
        bool transient = streq_ptr(g_hash_table_lookup(s->unit_properties, "Transient"), "yes");
        if (transient && s->property_records->len > 0) {
                log_unit_debug(unit, "Transient unit gone, and its runtime properties with it: dropping their records");
                g_ptr_array_set_size(s->property_records, 0);
                subject_save(s);
        }
        /* A transient unit never comes back: a unit of the same name later
         * is another one (policyctl exec names its scopes after its PID),
         * and must not inherit this one's runtime groups. */
        bool had_assignments = transient && g_hash_table_remove(m->assignments, unit);
        bool had_exclusions = transient && g_hash_table_remove(m->exclusions, unit);
        if (had_assignments || had_exclusions) {
                log_unit_debug(unit, "Transient unit gone: dropping its runtime assignments");
                if (!m->dry_run && !m->revert) {
                        int r = state_save_assignments(m->state_dir, m->assignments, m->exclusions);
                        if (r < 0)
                                log_warning_errno(r, "Failed to save runtime assignments to %s: %m", m->state_dir);
                }
        }
        g_hash_table_remove(m->subjects, unit);
}

bool manager_cgroup_attributes_changed(Manager *m, const char *key, bool deadline) {
        Subject *s = manager_find_subject(m, key);
        CandidateData d = {};

        if (!s || isempty(s->cgroup) || !subject_is_running(s))
                return false;
        /* One directory for the read and the writes, the watch's: a focus
         * change is on the path of the user's every click, and a walk from
         * the root is five syscalls. A deadline comes with no event, so
         * with no news of a removal: the directory is opened again. */
        CgroupHandle *cgroup = attr_watch_cgroup(m->attributes, key, s->cgroup, !deadline);
        gather_attributes(s, cgroup ? cgroup->dir_fd : -1, &d);
        if (!deadline && streq_ptr(d.attributes_seen, s->attributes_seen)) {
                candidate_data_clear(&d);
                return false;
        }
        log_unit_debug(subject_name(s), "%s of cgroup %s: resolving again",
                       deadline ? "InactiveFor= reached" : "Attributes changed", s->cgroup);
        /* What was just read is what the apply resolves with. */
        manager_apply_subject_gathered(m, s, &d, cgroup);
        candidate_data_clear(&d);
        return true;
}

void manager_systemd_reloaded(SystemdLink *l) {
        Manager *m = l->manager;
        GHashTableIter it;
        gpointer value;

        if (l->user) {
                /* Its units may have other settings now; policyd-generator
                 * runs for PID 1 only. */
                g_autoptr(GPtrArray) keys = hash_table_keys(m->subjects);
                for (guint i = 0; i < keys->len; i++) {
                        Subject *s = manager_find_subject(m, g_ptr_array_index(keys, i));
                        if (s && s->user_unit && s->manager_uid == l->uid)
                                manager_refresh_unit(l, s->unit, s->object_path);
                }
                return;
        }
        /* The generator ran again: its drop-ins follow the groups now. */
        g_hash_table_iter_init(&it, m->subjects);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Subject *s = value;
                if (s->needs_daemon_reload)
                        manager_properties_changed(m, MANAGER_PROPERTY_UNITS_NEED_DAEMON_RELOAD);
                s->needs_daemon_reload = false;
        }
        /* Unit files and drop-ins may name other groups, and systemd does not
         * write a running unit's cgroup for what its files now say. */
        manager_refresh_all(m);
}

/* Every subject again, its unit files read again: they may have changed
 * with the reload that got us here. read_units: from systemd too. */
static void resolve_all(Manager *m, bool read_units) {
        g_autoptr(GPtrArray) keys = hash_table_keys(m->subjects);

        for (guint i = 0; i < keys->len; i++) {
                Subject *s = manager_find_subject(m, g_ptr_array_index(keys, i));
                if (!s)
                        continue;
                subject_invalidate_unit_groups(s);
                if (s->unit && read_units)
                        manager_refresh_subject(s);
                else {
                        s->properties_stale = s->unit != NULL;
                        manager_apply_subject(m, s);
                }
        }
}

void manager_refresh_all(Manager *m) {
        g_autoptr(SystemFacts) facts = NULL;

        /* Swap devices come and go (percent limits), so look again. */
        if (system_facts_probe("/sys", "/proc", &facts) >= 0) {
                system_facts_free(m->facts);
                m->facts = TAKE_PTR(facts);
        }

        resolve_all(m, true);
}

void manager_swap_changed(Manager *m) {
        g_autoptr(SystemFacts) facts = NULL;
        int r;

        r = system_facts_probe("/sys", "/proc", &facts);
        if (r < 0) {
                log_warning_errno(r, "Failed to probe swap facilities: %m");
                return;
        }
        if (system_facts_equal(m->facts, facts))
                return;
        log_info("Swap changed (%" PRIu64 " MiB of swap%s%s): applying every subject again.",
                 facts->swap_total >> 20, facts->swap_tiers ? ", tiers " : "",
                 facts->swap_tiers ? (facts->tier_names[0] ? "defined" : "none defined") : "");
        system_facts_free(m->facts);
        m->facts = TAKE_PTR(facts);
        resolve_all(m, false);
        swap_tier_pass_schedule(m->swap_tiers);
}

void manager_swap_tiers_verify(Manager *m) {
        g_autoptr(GPtrArray) keys = hash_table_keys(m->subjects);

        /* In a dry run nothing was written: nothing to find changed. */
        if (!m->facts || !m->facts->swap_tiers || m->dry_run)
                return;
        for (guint i = 0; i < keys->len; i++) {
                Subject *s = manager_find_subject(m, g_ptr_array_index(keys, i));
                g_autofree char *current = NULL, *want = NULL;
                /* tiers_allowed NULL: none allowed (SwapTiers=none), every line 0. */
                if (!s || !s->tiers_requested || !s->cgroup || !apply_subject_is_live(s))
                        continue;
                if (cgroup_read_value(m->cgroup_root, s->cgroup, BACKEND_CGROUP_FILE, SWAP_TIERS_FILE, &current) < 0)
                        continue;
                g_auto(GStrv) allowed = tier_set_union(s->tiers_allowed, s->tiers_widen);
                want = tier_file_content(m->facts->tier_names, allowed);
                /* A tier made again is max: what looks like that is
                 * written again; a tier someone else denied is theirs. */
                if (tier_file_holds(current, want) || !tier_file_within(current, want))
                        continue;
                log_notice("%s: %s no longer holds what policyd wrote (a swap tier made again?): applying again",
                           subject_name(s), SWAP_TIERS_FILE);
                manager_apply_subject(m, s);
        }
        swap_tier_pass_schedule(m->swap_tiers);
}

/* After policyd's own reload: every subject resolved again from what policyd
 * knows of it, without asking systemd; a unit is read again only where
 * its plan may need a call (apply_systemd_properties()). */
static void manager_reapply_all(Manager *m) {
        resolve_all(m, false);
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

                log_context_id(MESSAGE_ID_CONFIG_FILE_REFUSED, LOG_WARNING, 0, NULL, name, g->file, 0,
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

        g_hash_table_iter_init(&it, m->subjects);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Subject *s = value;
                for (guint i = 0; s->memberships && i < s->memberships->len; i++) {
                        const Membership *mb = g_ptr_array_index(s->memberships, i);
                        if (mb->source != MEMBERSHIP_UNIT_FILE)
                                continue;
                        const PolicyGroup *a = policy_set_get(m->policies, mb->group);
                        const PolicyGroup *b = policy_set_get(new, mb->group);
                        g_autofree char *fa = a ? policy_group_format(a) : NULL;
                        g_autofree char *fb = b ? policy_group_format(b) : NULL;
                        if (fa && fb && streq(fa, fb))
                                continue;
                        if (!s->needs_daemon_reload) {
                                log_context(LOG_NOTICE, 0, subject_name(s), mb->group, NULL, 0,
                                            "Group '%s', which the unit file names, changed: its runtime settings "
                                            "are applied now; its exec-time settings (KSM=, NUMAPolicy=) need "
                                            "'systemctl daemon-reload' and a restart of the unit",
                                            mb->group);
                                manager_properties_changed(m, MANAGER_PROPERTY_UNITS_NEED_DAEMON_RELOAD);
                        }
                        s->needs_daemon_reload = true;
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
        if (m->revert) {
                /* As if no group were defined: every record is undone.
                 * policyd.conf neither (its DryRun= would undo nothing). */
                set = policy_set_new();
                r = 0;
        } else {
                (void) daemon_config_load(NULL, &config, diags);
                r = policy_set_load(NULL, NULL, &set, diags);
        }
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
        else {
                /* A tier no SwapTiers= can name: counted in status, as
                 * policyctl verify says it. */
                g_autoptr(Diagnostics) facts_diags = diagnostics_new();
                system_facts_diagnose(facts, "/sys/kernel/mm/swap/tiers", facts_diags);
                log_diagnostics(facts_diags);
                diagnostics_take_all(diags, facts_diags);
        }

        keep_last_good_groups(m->policies, set);
        g_hash_table_remove_all(m->user_names); /* users come and go too */
        unsigned stale = m->started ? mark_stale_generator_dropins(m, set) : 0;

        /* Swap in whole; the old set goes only now. */
        policy_set_free(m->policies);
        m->policies = TAKE_PTR(set);
        g_strfreev(m->xattr_names);
        m->xattr_names = policy_set_xattr_names(m->policies);
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
        process_watch_policies_changed(m->processes);
        exec_watch_policies_changed(m->exec_events);
        attr_watch_policies_changed(m->attributes);
        if (!m->started)
                return 0;
        bus_api_emit_reloaded(m);
        if (stale > 0)
                log_notice("%u units name changed groups in their unit files; 'systemctl daemon-reload' (or "
                           "'policyctl reload --daemon-reload') updates policyd-generator's drop-ins.",
                           stale);
        /* Unit files may name groups that just appeared or went away. */
        manager_reapply_all(m);
        (void) sd_notifyf(false, "READY=1\nSTATUS=Applying %u policy groups to %u units and cgroups.",
                          policy_set_size(m->policies), g_hash_table_size(m->subjects));
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
                uint64_t delay = reconnect_delay_usec(m->reconnect_attempt);
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
        /* Calls still pending go with the bus; the next ListUnits reads
         * every unit again. */
        systemd_link_close(m->system);
        m->subscribed = sd_bus_track_unref(m->subscribed); /* they were on this bus */
        bus_polkit_forget_all(); /* so were their questions */
        m->bus = sd_bus_flush_close_unref(m->bus);
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
        m->system->bus = m->bus;
        r = bus_api_attach(m);
        if (r < 0)
                goto fail;
        r = systemd_watch_attach(m->system);
        if (r < 0)
                goto fail;
        manager_call_started(m); /* until the name is ours: --once must not exit before */
        m->reconnect_attempt = 0;
        return 0;
fail:
        systemd_link_close(m->system);
        m->subscribed = sd_bus_track_unref(m->subscribed); /* they were on this bus */
        bus_polkit_forget_all(); /* so were their questions */
        m->bus = sd_bus_flush_close_unref(m->bus);
        return r;
}

void manager_name_acquired(Manager *m) {
        if (systemd_watch_start(m->system) < 0) {
                m->exit_code = EXIT_FAILURE;
                (void) sd_event_exit(m->event, EXIT_FAILURE);
        }
        if (!m->started)
                announce_ready(m);
        manager_call_finished(m);
}

/* ---- lifecycle ---- */

void manager_units_listed(SystemdLink *l, GHashTable *listed) {
        Manager *m = l->manager;

        l->listed = listed != NULL;
        if (l->user) {
                if (listed)
                        user_managers_listed(m, l, listed);
                return;
        }
        m->startup_listed = true;
        /* A failed listing left running units without a subject: their
         * records would look stale. A later listing (reconnect) may do. */
        if (listed && !m->sweep.done)
                m->sweep.due = true;
}

void manager_call_started(Manager *m) {
        m->pending_calls++;
}

/* --revert waits this long for the process layer (the injector's undo of
 * KSM= and NUMAPolicy=) once everything else is answered: a call that
 * fails is tried again 5 s later (then after 60 and 600 s, which it does
 * not wait for), and each call times out after 2 s. */
#define REVERT_PROCESS_WAIT_USEC (40 * G_USEC_PER_SEC)
/* And the whole of it this long: a systemd that never answers (a user's own
 * server behind their manager's socket, policyd(8) THREAT MODEL) or keeps
 * announcing new units must not hold a package's removal for ever. */
#define REVERT_LIMIT_USEC (120 * G_USEC_PER_SEC)
#define REVERT_POLL_USEC (100 * 1000)

/* What --revert could not undo is what is still recorded: the files
 * under the state directory (after a checkpoint of the intent log), and
 * the processes that hold a value policyd set. Each is logged. */
static unsigned revert_count_left(Manager *m) {
        static const char *const kinds[] = { "cgroups", "properties" };
        unsigned left = 0;

        manager_checkpoint_records(m);
        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                g_autoptr(GPtrArray) names = NULL;
                int r = state_list_records(m->state_dir, kinds[k], &names);
                if (r < 0) {
                        log_warning_errno(r, "Failed to list %s/%s: %m", m->state_dir, kinds[k]);
                        left++;
                        continue;
                }
                for (guint i = 0; i < names->len; i++) {
                        g_autofree char *key = state_file_name_to_key(g_ptr_array_index(names, i));
                        log_unit_warning(key, "Not undone: what %s/%s/%s records stays, and so does that record",
                                         m->state_dir, kinds[k], (const char *) g_ptr_array_index(names, i));
                        left++;
                }
        }
        return left + process_watch_count_holding(m->processes);
}

static void revert_finish(Manager *m) {
        unsigned left = m->dry_run ? 0 : revert_count_left(m);

        if (m->exit_code == 0 && left > 0) {
                log_error("%u record%s of what policyd set could not be undone (see above); kept in %s. Exiting "
                          "with status %d (--revert).",
                          left, left == 1 ? "" : "s", m->state_dir, EXIT_NOT_UNDONE);
                m->exit_code = EXIT_NOT_UNDONE;
        } else if (m->exit_code == 0)
                log_info("%s; exiting (--revert).",
                         m->dry_run ? "Dry run: said what would be undone, undid nothing"
                                    : "Undid everything policyd had recorded");
        (void) sd_event_exit(m->event, m->exit_code);
}

static int on_revert_poll(sd_event_source *source, uint64_t usec, void *userdata);

static int on_revert_limit(sd_event_source *source, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        (void) source;
        (void) usec;

        log_warning("--revert did not finish in %u s (%u calls to systemd unanswered); not waiting any longer.",
                    (unsigned) (REVERT_LIMIT_USEC / G_USEC_PER_SEC), m->pending_calls);
        revert_finish(m);
        return 0;
}

/* SIGTERM or SIGINT (a timeout(1) around it, Ctrl-C at dpkg's prompt):
 * what is left is told as at the end, and makes the exit status. */
static int on_revert_signal(sd_event_source *source, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;
        (void) source;

        log_warning("Stopped by %s before --revert finished.", strsignal((int) si->ssi_signo));
        revert_finish(m);
        return 0;
}

bool manager_has_records_of_user(Manager *m, uid_t uid) {
        static const char *const kinds[] = { "cgroups", "properties" };
        g_autofree char *prefix = g_strdup_printf("user@%u/", (unsigned) uid);

        manager_checkpoint_records(m);
        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                g_autoptr(GPtrArray) names = NULL;
                if (state_list_records(m->state_dir, kinds[k], &names) < 0)
                        return true; /* cannot tell: follow it */
                for (guint i = 0; i < names->len; i++) {
                        g_autofree char *key = state_file_name_to_key(g_ptr_array_index(names, i));
                        if (key && g_str_has_prefix(key, prefix))
                                return true;
                }
        }
        return false;
}

static int on_revert_check(sd_event_source *source, void *userdata) {
        Manager *m = userdata;
        (void) source;

        /* A call still to be answered checks again when it is. */
        if (!m->startup_listed || m->pending_calls > 0)
                return 0;
        if (process_watch_busy(m->processes)) {
                if (!m->revert_deadline) {
                        log_debug("Waiting up to %u s for the process layer to undo KSM= and NUMAPolicy= "
                                  "through the injector.",
                                  (unsigned) (REVERT_PROCESS_WAIT_USEC / G_USEC_PER_SEC));
                        if (sd_event_add_time_relative(m->event, &m->revert_deadline, CLOCK_MONOTONIC,
                                                       REVERT_PROCESS_WAIT_USEC, 0, on_revert_poll, m) < 0)
                                m->revert_timed_out = true;
                }
                if (!m->revert_timed_out) {
                        /* Its scans and retries end in no call of the manager's: look again. */
                        int r = m->revert_poll ? sd_event_source_set_time_relative(m->revert_poll, REVERT_POLL_USEC)
                                               : sd_event_add_time_relative(m->event, &m->revert_poll, CLOCK_MONOTONIC,
                                                                            REVERT_POLL_USEC, 0, on_revert_poll, m);
                        if (r >= 0)
                                r = sd_event_source_set_enabled(m->revert_poll, SD_EVENT_ONESHOT);
                        if (r >= 0)
                                return 0;
                }
                log_warning("The process layer is not done after %u s; not waiting for it any longer.",
                            (unsigned) (REVERT_PROCESS_WAIT_USEC / G_USEC_PER_SEC));
        }
        revert_finish(m);
        return 0;
}

static void revert_check_later(Manager *m) {
        if (!m->revert_check) {
                if (sd_event_add_defer(m->event, &m->revert_check, on_revert_check, m) < 0) {
                        revert_finish(m);
                        return;
                }
                /* After every other source that is ready: scans, replies. */
                (void) sd_event_source_set_priority(m->revert_check, SD_EVENT_PRIORITY_IDLE);
        }
        (void) sd_event_source_set_enabled(m->revert_check, SD_EVENT_ONESHOT);
}

static int on_revert_poll(sd_event_source *source, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        (void) usec;

        if (source == m->revert_deadline)
                m->revert_timed_out = true;
        revert_check_later(m);
        return 0;
}

/* ---- between the watchers: each tells the manager, which tells the one
 * whose business it is ---- */

bool manager_exec_matters(Manager *m, const char *cgroup) {
        return process_watch_exec_matters(m->processes, cgroup);
}

void manager_process_exec(Manager *m, pid_t pid, const char *cgroup) {
        process_watch_process_exec(m->processes, pid, cgroup);
}

void manager_exec_events_lost(Manager *m) {
        process_watch_rescan(m->processes);
}

void manager_startup_converged(Manager *m) {
        process_watch_startup_converged(m->processes);
        swap_tier_pass_startup_converged(m->swap_tiers);
}

int manager_check_unit(Manager *m, const char *unit) {
        return m->bus ? systemd_check_unit(m->system, unit) : -ENOTCONN;
}

void manager_unit_checked(Manager *m, const char *unit, const char *object_path, const char *load_state,
                          const sd_bus_error *error) {
        sweep_unit_checked(m, unit, object_path, load_state, error);
}

void manager_call_finished(Manager *m) {
        if (m->pending_calls > 0)
                m->pending_calls--;
        /* Before --once looks: the sweep's calls count too. */
        sweep_start_if_due(m);
        if (m->revert && m->startup_listed && m->pending_calls == 0) {
                revert_check_later(m);
                return;
        }
        if (m->once && m->startup_listed && m->pending_calls == 0) {
                log_info("Applied policy groups to %u units and cgroups; exiting (--once).",
                         g_hash_table_size(m->subjects));
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

static int on_properties_changed(sd_event_source *source, void *userdata) {
        Manager *m = userdata;
        unsigned changed = m->properties_changed;

        (void) source;
        m->properties_changed = 0;
        bus_api_emit_properties_changed(m, changed);
        return 0;
}

/* Idle priority: a burst (a reload, a boot's worth of units) is one signal. */
void manager_properties_changed(Manager *m, unsigned properties) {
        if (properties == 0 || !m->event)
                return;
        if (!m->properties_event) {
                if (sd_event_add_defer(m->event, &m->properties_event, on_properties_changed, m) < 0)
                        return;
                (void) sd_event_source_set_priority(m->properties_event, SD_EVENT_PRIORITY_IDLE);
        }
        m->properties_changed |= properties;
        (void) sd_event_source_set_enabled(m->properties_event, SD_EVENT_ONESHOT);
}

int manager_new(const char *cgroup_root, bool dry_run, bool once, bool revert, Manager **ret) {
        g_autoptr(Manager) m = g_new0(Manager, 1);
        const char *state = getenv("POLICYD_STATE_DIRECTORY");
        int r;

        m->cgroup_root = g_strdup(cgroup_root);
        m->state_dir = g_strdup(state ? state : POLICYD_STATE_DIR);
        m->intent_fd = -1;
        m->intent_unwritten = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        m->dry_run = m->dry_run_argument = dry_run;
        m->once = once || revert;
        m->revert = revert;
        m->subjects = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, subject_free_notify);
        m->system = systemd_link_new(m, false, 0);
        m->user_links = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, user_link_free_notify);
        m->user_names = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
        m->write_buckets = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
        m->assignments = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, ptr_array_destroy);
        m->exclusions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, ptr_array_destroy);
        m->policies = policy_set_new();
        m->xattr_names = policy_set_xattr_names(m->policies);
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
        /* Without a handler, sd-event exits with the userdata as the status. */
        r = sd_event_add_signal(m->event, NULL, SIGTERM, revert ? on_revert_signal : NULL, revert ? m : NULL);
        if (r >= 0)
                r = sd_event_add_signal(m->event, NULL, SIGINT, revert ? on_revert_signal : NULL, revert ? m : NULL);
        if (r >= 0 && revert)
                r = sd_event_add_time_relative(m->event, &m->revert_limit, CLOCK_MONOTONIC, REVERT_LIMIT_USEC, 0,
                                               on_revert_limit, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, NULL, SIGHUP, on_sighup, m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch signals: %m");
        r = process_watch_new(m, &m->processes);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the process layer: %m");
        r = exec_watch_new(m, &m->exec_events);
        if (r < 0)
                return log_error_errno(r, "Failed to set up exec events: %m");
        r = attr_watch_new(m, &m->attributes);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the attribute watch: %m");
        r = swap_watch_new(m, &m->swap);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the swap watch: %m");
        r = swap_tier_pass_new(m, &m->swap_tiers);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the swap tier pass: %m");

        if (revert)
                /* Left as they are: a reinstall finds them again. */
                log_info("Undoing everything policyd recorded in %s, as if no group were defined; runtime "
                         "assignments in %s/assignments are ignored, and kept.",
                         m->state_dir, m->state_dir);
        else {
                r = state_load_assignments(m->state_dir, m->assignments, m->exclusions);
                if (r < 0)
                        log_warning_errno(r, "Failed to load runtime assignments: %m");
        }
        /* Before any subject reads its record: a run killed between its
         * write-ahead and the record's own file left the newer one there.
         * A dry run leaves the log, and reads the files as they are. */
        if (dry_run) {
                if (state_intent_holds_lines(m->state_dir))
                        log_notice("%s/cgroups.intent holds records written ahead by the last run; a dry run "
                                   "leaves them there, and reads the older files.",
                                   m->state_dir);
        } else {
                r = state_intent_replay(m->state_dir, m->intent_unwritten);
                if (r > 0)
                        log_info("Carried %i record%s written ahead by the last run into %s/cgroups.", r,
                                 r == 1 ? "" : "s", m->state_dir);
                /* What it could not write stays there, appended to (each save
                 * goes to the log while it holds lines), until a checkpoint
                 * writes it; a log it could not read at all is emptied then. */
                m->intent_dirty = r < 0 && state_intent_holds_lines(m->state_dir);
        }

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        /* The bus first, as systemd-oomd does: closing it frees the pending
         * calls, which must not find the tables below already gone. */
        /* each closes its own bus first; NULL: the subjects freed below look it up */
        g_clear_pointer(&m->user_links, g_hash_table_unref);
        systemd_link_close(m->system);
        m->subscribed = sd_bus_track_unref(m->subscribed); /* they were on this bus */
        bus_polkit_forget_all(); /* so were their questions */
        m->bus = sd_bus_flush_close_unref(m->bus);
        m->system = systemd_link_free(m->system);
        sweep_state_done(&m->sweep);
        /* Before the process layer, which it feeds. */
        m->exec_events = exec_watch_free(m->exec_events);
        /* Before the subjects, which tell both when they go. */
        m->processes = process_watch_free(m->processes);
        m->attributes = attr_watch_free(m->attributes);
        m->swap = swap_watch_free(m->swap);
        m->swap_tiers = swap_tier_pass_free(m->swap_tiers);
        g_hash_table_unref(m->user_names);
        g_hash_table_unref(m->write_buckets);
        manager_checkpoint_records(m);
        g_hash_table_unref(m->subjects);
        g_hash_table_unref(m->assignments);
        g_hash_table_unref(m->exclusions);
        policy_set_free(m->policies);
        g_strfreev(m->xattr_names);
        diagnostics_free(m->diagnostics);
        system_facts_free(m->facts);
        daemon_config_done(&m->config);
        sd_event_source_unref(m->reconnect_timer);
        sd_event_source_unref(m->rescan_timer);
        sd_event_source_unref(m->properties_event);
        sd_event_source_unref(m->revert_check);
        sd_event_source_unref(m->revert_deadline);
        sd_event_source_unref(m->revert_poll);
        sd_event_source_unref(m->revert_limit);
        sd_event_source_unref(m->intent_checkpoint);
        g_hash_table_unref(m->intent_unwritten);
        sd_event_unref(m->event);
        g_free(m->cgroup_root);
        safe_close(m->intent_fd);
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
                if (((const char *) key)[0] == '/' && !manager_find_subject(m, key))
                        manager_apply_subject(m, subject_new(m, NULL, key));

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
