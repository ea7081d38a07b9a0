/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sys/inotify.h>

#include "log.h"
#include "manager.h"
#include "process-watch-internal.h"
#include "resolve.h"
#include "util.h"

/* The process layer's entry points (process-watch.h), which the manager
 * calls: start and stop, the policy set and subjects changing, startup,
 * and whether it is busy. The jobs are in the other process-*.c files
 * (process-watch-internal.h lists them). */

static void watched_cgroup_free(void *p) {
        WatchedCgroup *c = p;
        if (c->below)
                g_array_unref(c->below);
        g_free(c->cgroup);
        g_free(c->subject);
        g_free(c->groups);
        g_free(c);
}

/* Watching every cgroup costs a wakeup per scope start, so that is done
 * only while some process holds what policyd set: then a move anywhere
 * may have to be undone. Decided at the end of the next scan pass. */
void process_watch_mode_changed(ProcessWatch *w) {
        w->watch_mode_dirty = true;
        (void) sd_event_source_set_enabled(w->scan_defer, SD_EVENT_ONESHOT);
}

/* Watched: the cgroups of members whose groups set the knobs, to see
 * processes move in; and, while some process holds what policyd set, every
 * running subject's cgroup, to see it move on. Scanned: members of such
 * groups, and where records are. */
void process_watch_subject_applied(ProcessWatch *w, Subject *s) {
        const char *key;
        WatchedCgroup *c;
        bool wanted;

        if (!w)
                return;
        key = subject_key(s);
        process_scan_note_subject_cgroup(w, key, s->cgroup);
        c = g_hash_table_lookup(w->watch_by_subject, key);
        if (c && !streq_ptr(c->cgroup, s->cgroup)) {
                process_notice_unwatch(w, c);
                c = NULL;
        }
        wanted = process_decide_subject_wanted(w, s);
        if (isempty(s->cgroup) || (!wanted && !w->watching_all)) {
                if (c)
                        process_notice_unwatch(w, c);
                /* Nothing to set here and nothing held anywhere: what is
                 * left of it is history. */
                g_autoptr(GPtrArray) idle = g_ptr_array_new();
                GHashTableIter it;
                gpointer value;
                g_hash_table_iter_init(&it, w->records);
                while (g_hash_table_iter_next(&it, NULL, &value)) {
                        ProcessRecord *r = value;
                        if (streq_ptr(r->subject, key) && !r->call && !process_record_matters_elsewhere(r))
                                g_ptr_array_add(idle, r);
                }
                for (guint i = 0; i < idle->len; i++)
                        process_record_forget(w, g_ptr_array_index(idle, i));
                return;
        }
        if (!c && process_notice_watch(w, s, &c) < 0)
                return; /* gone already: UnitRemoved follows */

        g_autofree char *groups = membership_list_tag(s->memberships);
        bool changed = !streq_ptr(groups, c->groups), stale = false;
        GHashTableIter it;
        gpointer value;
        if (changed) {
                g_free(c->groups);
                c->groups = TAKE_PTR(groups);
        }
        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                ProcessRecord *r = value;
                if (!streq_ptr(r->subject, key))
                        continue;
                if (changed)
                        r->generation = w->generation - 1;
                /* A reload may have changed the values under the same names. */
                stale |= r->generation != w->generation;
        }
        if (changed || stale || wanted)
                process_scan_queue(w, key);
}

/* At the end of a scan pass: start or stop watching every cgroup. */
void process_watch_update_mode(ProcessWatch *w) {
        bool all = false;
        GHashTableIter it;
        gpointer value;

        w->watch_mode_dirty = false;
        g_hash_table_iter_init(&it, w->records);
        while (!all && g_hash_table_iter_next(&it, NULL, &value))
                all = process_record_matters_elsewhere(value);
        if (all == w->watching_all)
                return;
        w->watching_all = all;
        log_debug("Process layer: %s", all ? "a process holds what policyd set: watching every running cgroup"
                                            : "no process holds what policyd set: watching member cgroups only");
        g_hash_table_iter_init(&it, w->manager->subjects);
        while (g_hash_table_iter_next(&it, NULL, &value))
                process_watch_subject_applied(w, value);
        if (!all)
                return;
        /* A move before the watches were there: the scan of where the
         * process was sees it gone, and follows it. */
        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                ProcessRecord *r = value;
                if (r->subject && process_record_matters_elsewhere(r))
                        process_scan_queue(w, r->subject);
        }
}

void process_watch_subject_gone(ProcessWatch *w, const char *key) {
        WatchedCgroup *c;

        if (!w)
                return;
        c = g_hash_table_lookup(w->watch_by_subject, key);
        if (c)
                process_notice_unwatch(w, c);
        process_scan_note_subject_cgroup(w, key, NULL);
        g_hash_table_remove(w->scans, key);
        /* Its processes left before the cgroup could go: a scan of where
         * they went has them, or they exited. */
        GHashTableIter it;
        gpointer value;
        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                ProcessRecord *r = value;
                if (!streq_ptr(r->subject, key))
                        continue;
                g_clear_pointer(&r->subject, g_free);
                if (!r->call && process_record_is_stale(r))
                        g_hash_table_iter_remove(&it);
        }
}

void process_watch_policies_changed(ProcessWatch *w) {
        GHashTableIter it;
        gpointer value;

        if (!w)
                return;
        /* NUMANodes= too: migrate_pages for the processes that enter. */
        w->active = policy_set_has_process_knobs(w->manager->policies) || policy_set_has_numa_nodes(w->manager->policies);
        w->generation++;
        if (!w->startup_done)
                return; /* the units are not known yet */
        /* Every subject is applied after a reload; records without one are
         * looked at here. */
        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                ProcessRecord *r = value;
                if (!r->subject && !process_record_is_stale(r))
                        process_decide(w, r);
        }
}

void process_watch_startup_converged(ProcessWatch *w) {
        if (!w || w->startup_done)
                return;
        w->startup_done = true;
        w->check_unplaced = true;
        w->watch_mode_dirty = true; /* the restored records are placed now */
        (void) sd_event_source_set_enabled(w->scan_defer, SD_EVENT_ONESHOT);
}

bool process_watch_busy(ProcessWatch *w) {
        GHashTableIter it;
        gpointer value;
        int enabled = SD_EVENT_OFF;

        if (!w)
                return false;
        if (!w->startup_done || w->check_unplaced || w->calls_in_flight > 0 || !g_queue_is_empty(w->waiting) ||
            g_hash_table_size(w->scans) > 0 || g_hash_table_size(w->held) > 0)
                return true;
        if (sd_event_source_get_enabled(w->scan_defer, &enabled) >= 0 && enabled != SD_EVENT_OFF)
                return true;
        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const ProcessRecord *r = value;
                if (r->call || r->method == PROCESS_PENDING || r->retry_at > 0)
                        return true;
        }
        return false;
}

int process_watch_new(Manager *m, ProcessWatch **ret) {
        g_autofree ProcessWatch *w = g_new0(ProcessWatch, 1);
        int k;

        w->manager = m;
        w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->inotify_fd < 0)
                return negative_errno();
        k = inject_pool_new(m->event, getenv("POLICYD_INJECT_SOCKET") ?: INJECT_SOCKET_PATH, &w->injector);
        if (k < 0) {
                safe_close(w->inotify_fd);
                return k;
        }
        w->watch_by_wd = g_hash_table_new_full(NULL, NULL, NULL, watched_cgroup_free);
        w->watch_by_subject = g_hash_table_new(g_str_hash, g_str_equal);
        w->watch_by_cgroup = g_hash_table_new(g_str_hash, g_str_equal);
        w->subject_by_cgroup = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        w->cgroup_by_subject = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        w->records = g_hash_table_new_full(NULL, NULL, NULL, process_record_free);
        w->scans = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        w->procs_buckets = g_hash_table_new_full(NULL, NULL, NULL, g_free);
        w->held = g_hash_table_new(NULL, NULL);
        w->waiting = g_queue_new();
        w->generation = 1;
        w->state_path = g_build_filename(m->state_dir, "processes", NULL);
        {
                g_autofree char *has_memory = NULL;
                if (g_file_get_contents("/sys/devices/system/node/has_memory", &has_memory, NULL, NULL))
                        w->memory_nodes_known = parse_numa_nodes(g_strstrip(has_memory), &w->memory_nodes, NULL) >= 0;
        }

        k = sd_event_add_io(m->event, &w->inotify_source, w->inotify_fd, EPOLLIN, process_notice_on_inotify, w);
        if (k >= 0)
                k = sd_event_add_defer(m->event, &w->scan_defer, process_scan_on_defer, w);
        if (k >= 0)
                k = sd_event_source_set_enabled(w->scan_defer, SD_EVENT_OFF);
        if (k >= 0)
                k = sd_event_add_time(m->event, &w->retry_timer, CLOCK_MONOTONIC, UINT64_MAX, 0,
                                      process_inject_on_retry, w);
        if (k >= 0)
                k = sd_event_source_set_enabled(w->retry_timer, SD_EVENT_OFF);
        if (k >= 0)
                k = sd_event_add_time(m->event, &w->held_timer, CLOCK_MONOTONIC, UINT64_MAX, 0,
                                      process_inject_on_held_timer, w);
        if (k >= 0)
                k = sd_event_source_set_enabled(w->held_timer, SD_EVENT_OFF);
        if (k >= 0) {
                process_records_load(w);
                /* Until the units are read, as if a process held something:
                 * one restored from the record file may already be elsewhere. */
                w->watching_all = g_hash_table_size(w->records) > 0;
        }
        if (k < 0) {
                process_watch_free(TAKE_PTR(w));
                return k;
        }
        *ret = TAKE_PTR(w);
        return 0;
}

ProcessWatch *process_watch_free(ProcessWatch *w) {
        if (!w)
                return NULL;
        /* Records first: their calls hold event sources and connections. */
        g_clear_pointer(&w->records, g_hash_table_unref);
        w->injector = inject_pool_free(w->injector);
        sd_event_source_disable_unref(w->inotify_source);
        sd_event_source_disable_unref(w->scan_defer);
        sd_event_source_disable_unref(w->retry_timer);
        sd_event_source_disable_unref(w->held_timer);
        g_clear_pointer(&w->procs_buckets, g_hash_table_unref);
        g_clear_pointer(&w->held, g_hash_table_unref);
        g_clear_pointer(&w->subject_by_cgroup, g_hash_table_unref);
        g_clear_pointer(&w->cgroup_by_subject, g_hash_table_unref);
        g_clear_pointer(&w->watch_by_subject, g_hash_table_unref);
        g_clear_pointer(&w->watch_by_cgroup, g_hash_table_unref);
        g_clear_pointer(&w->watch_by_wd, g_hash_table_unref);
        g_clear_pointer(&w->scans, g_hash_table_unref);
        if (w->waiting)
                g_queue_free(w->waiting);
        safe_close(w->inotify_fd);
        g_free(w->state_path);
        g_free(w);
        return NULL;
}
