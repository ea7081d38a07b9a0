/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "manager.h"
#include "process-watch-internal.h"
#include "util.h"

/* The records: one ProcessRecord per process policyd looked at, and the
 * record file that keeps what policyd set, for undo after a restart. */

void process_record_free(void *p) {
        ProcessRecord *r = p;
        sd_event_source_disable_unref(r->exit_source);
        inject_call_free(r->call);
        safe_close(r->pidfd);
        g_free(r->subject);
        g_free(r->exe);
        process_knobs_clear(&r->applied);
        process_step_clear(&r->step);
        g_free(r->detail);
        g_free(r->verified);
        g_free(r->migrated);
        g_free(r->migration);
        g_free(r->migrate_to);
        g_free(r);
}

bool process_record_holds_something(const ProcessRecord *r) {
        return r->applied.ksm == 1 || (r->applied.mempolicy && !streq(r->applied.mempolicy, "default"));
}

/* Holds, or is about to: an injection is in flight (a migration leaves
 * nothing to undo). */
bool process_record_matters_elsewhere(const ProcessRecord *r) {
        return process_record_holds_something(r) || (r->call && !r->call_is_query && !r->migrate_to);
}

/* "PID STARTTIME KSM MEMPOLICY" per process that holds something policyd
 * set, or is about to: written ahead of each injection, so that a policyd
 * killed in between still knows what to take back. A value the injection
 * never set is little harm there: undo happens only where the process still
 * has what the record says. (With ensure=1 that includes a value the
 * process had already, which a policyd killed before the reply then takes
 * back when the process leaves its groups.) */
int process_records_save(ProcessWatch *w) {
        g_autoptr(GString) text = g_string_new(NULL);
        GHashTableIter it;
        gpointer value;
        int k;

        if (w->manager->dry_run)
                return 0;
        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const ProcessRecord *r = value;
                /* pidfd: a call is starting (start_call() saves ahead of it) or in flight. */
                bool injecting = (r->call || r->pidfd >= 0) && !r->call_is_query;
                int ksm = injecting && r->step.ksm >= 0 ? r->step.ksm : r->applied.ksm;
                const char *mempolicy = injecting && r->step.mempolicy ? r->step.mempolicy : r->applied.mempolicy;

                if (ksm != 1 && (!mempolicy || streq(mempolicy, "default")) && !process_record_holds_something(r))
                        continue;
                g_string_append_printf(text, "%d %" G_GUINT64_FORMAT " %d %s\n", (int) r->pid, r->start_time, ksm,
                                       mempolicy ?: "-");
        }
        if (text->len == 0)
                k = unlink(w->state_path) < 0 && errno != ENOENT ? negative_errno() : 0;
        else
                k = write_file_atomic(w->state_path, text->str, 0600, WRITE_FILE_SYNC);
        if (k < 0)
                log_warning_errno(k, "Failed to write %s: %m", w->state_path);
        return k;
}

Subject *process_record_subject(ProcessWatch *w, const ProcessRecord *r) {
        return r->subject ? manager_find_subject(w->manager, r->subject) : NULL;
}

/* A migration earlier stays told: it has nothing to undo, only to show. */
char *process_record_with_migration(const ProcessRecord *r, char *detail) {
        if (!r->migration || !detail)
                return detail;
        char *both = g_strdup_printf("%s; %s", detail, r->migration);
        g_free(detail);
        return both;
}

void process_record_set_outcome(ProcessRecord *r, ProcessMethod method, char *detail) {
        r->method = method;
        g_free(r->detail);
        r->detail = method == PROCESS_PENDING ? detail : process_record_with_migration(r, detail);
}

void process_record_forget(ProcessWatch *w, ProcessRecord *r) {
        bool held = process_record_holds_something(r) || (r->call && !r->call_is_query);

        if (r->call) { /* freed with the record, unanswered */
                assert(w->calls_in_flight > 0);
                w->calls_in_flight--;
                manager_call_finished(w->manager);
        }
        g_hash_table_remove(w->records, GINT_TO_POINTER(r->pid));
        if (held) {
                process_records_save(w);
                process_watch_mode_changed(w);
        }
}

static int on_process_exit(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        ProcessRecord *r = userdata;
        (void) fd;
        (void) revents;

        (void) sd_event_source_set_enabled(source, SD_EVENT_OFF);
        if (!r->call) /* else its reply says "vanished" */
                process_record_forget(r->watch, r);
        return 0;
}

/* A process that holds what policyd set is forgotten as soon as it exits,
 * so that the records, and watching_all, do not outlive it. */
void process_record_track_exit(ProcessWatch *w, ProcessRecord *r) {
        uint64_t t;
        int fd;

        if (!process_record_holds_something(r)) {
                r->exit_source = sd_event_source_disable_unref(r->exit_source);
                return;
        }
        if (r->exit_source)
                return;
        fd = (int) syscall(SYS_pidfd_open, r->pid, 0);
        if (fd < 0)
                return; /* gone: the next scan forgets it */
        if (process_procfs_read_start_time(r->pid, &t) < 0 || t != r->start_time || /* another process now */
            sd_event_add_io(w->manager->event, &r->exit_source, fd, EPOLLIN, on_process_exit, r) < 0) {
                close(fd);
                return;
        }
        (void) sd_event_source_set_io_fd_own(r->exit_source, true);
        (void) sd_event_source_set_description(r->exit_source, "process-exit");
}

/* The record's process went away, or is no longer the one recorded. */
bool process_record_is_stale(ProcessRecord *r) {
        uint64_t t;
        return process_procfs_read_start_time(r->pid, &t) < 0 || t != r->start_time;
}

const GPtrArray *process_record_memberships(ProcessWatch *w, ProcessRecord *r) {
        Subject *s = process_record_subject(w, r);
        return s ? s->memberships : NULL;
}

/* Not decided yet, in the subject key. */
ProcessRecord *process_record_new(ProcessWatch *w, pid_t pid, uint64_t start_time, const char *key) {
        ProcessRecord *r = g_new0(ProcessRecord, 1);

        r->watch = w;
        r->pid = pid;
        r->start_time = start_time;
        r->pidfd = -1;
        r->applied.ksm = -1;
        r->step.ksm = -1;
        r->subject = g_strdup(key);
        r->generation = w->generation - 1;
        g_hash_table_insert(w->records, GINT_TO_POINTER(pid), r);
        return r;
}

/* Nothing says when a process exits, and a scan of the subject may be long
 * in coming: each record made for an exec first takes those of the
 * subject's processes that are gone, so that they cannot pile up. */
void process_records_forget_exited(ProcessWatch *w, const char *key) {
        g_autoptr(GPtrArray) gone = g_ptr_array_new();
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                ProcessRecord *r = value;
                if (streq_ptr(r->subject, key) && !r->call && process_record_is_stale(r))
                        g_ptr_array_add(gone, r);
        }
        for (guint i = 0; i < gone->len; i++)
                process_record_forget(w, g_ptr_array_index(gone, i));
}

void process_records_load(ProcessWatch *w) {
        g_autofree char *text = NULL;
        g_auto(GStrv) lines = NULL;
        unsigned loaded = 0;

        if (!g_file_get_contents(w->state_path, &text, NULL, NULL))
                return;
        lines = g_strsplit(text, "\n", -1);
        for (char **l = lines; *l; l++) {
                g_auto(GStrv) f = g_strsplit(*l, " ", -1);
                uint64_t t;

                if (g_strv_length(f) != 4)
                        continue;
                pid_t pid = (pid_t) g_ascii_strtoll(f[0], NULL, 10);
                uint64_t start = g_ascii_strtoull(f[1], NULL, 10);
                if (pid <= 0 || process_procfs_read_start_time(pid, &t) < 0 || t != start)
                        continue; /* exited while policyd was not running */
                ProcessRecord *r = process_record_new(w, pid, start, NULL);
                r->applied.ksm = (int) g_ascii_strtoll(f[2], NULL, 10) == 1 ? 1 : -1;
                r->applied.mempolicy = streq(f[3], "-") ? NULL : g_strdup(f[3]);
                r->method = PROCESS_INJECTED;
                r->detail = g_strdup("set by policyd before it restarted");
                process_record_track_exit(w, r);
                loaded++;
        }
        if (loaded > 0)
                log_info("%u running processes hold values policyd set before it restarted.", loaded);
}
