/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "inject-client.h"
#include "log.h"
#include "manager.h"
#include "message-ids.h"
#include "process-watch-internal.h"
#include "rate-limit.h"
#include "util.h"

/* Talking to the injector (inject-client.c is the wire): the queue of
 * calls, a few in flight, their replies, the retries of failed calls and
 * the rate at which a user's moves may cause calls. */

/* Each call in flight has a connection, and so a helper process, of its
 * own (inject-client.c keeps it for the next call): a few at once, the
 * rest wait. */
#define CALLS_IN_FLIGHT_MAX 4
#define INJECT_TIMEOUT_MS 2000

/* A failed call is tried again after these; then it waits for a move, a
 * change of its groups or a reload. */
static const uint64_t retry_delays_usec[] = { 5 * G_USEC_PER_SEC, 60 * G_USEC_PER_SEC, 600 * G_USEC_PER_SEC };

/* Injector requests for the processes of a cgroup a user owns, per owner
 * uid (whatever made policyd look: a move, a fork seen at a read of the
 * cgroup, an exec); root's are free. A user can move, fork and exec as
 * fast as they like, so each owner has two budgets (token buckets), both
 * taken when a request opens a connection:
 * - requests: 20 at once, then 10 a second (the helper stops the process
 *   and injects, policyd decides: CPU of both);
 * - connections: a request that finds no idle one opens a connection,
 *   which is a policyd-inject@ unit PID 1 starts: 4 at once, then 1 every
 *   5 s (systemd's own moves, of a unit it starts, are mostly no writes:
 *   CLONE_INTO_CGROUP).
 * Those over either are held back, and each held process is decided again,
 * as it is then (the latest membership wins), when a token is back. */
static const TokenBucketRate procs_requests_rate = { .burst = 20, .per_sec = 10 };
static const TokenBucketRate procs_starts_rate = { .burst = 4, .per_sec = 1, .period_sec = 5 };

typedef struct OwnerBudget {
        HeldBackBucket requests;
        HeldBackBucket starts;
} OwnerBudget;

/* Owners kept before the full buckets (the idle) are dropped. */
#define PROCS_BUCKETS_KEPT 64

static void start_next_calls(ProcessWatch *w);

static void arm_retry_timer(ProcessWatch *w) {
        uint64_t next = UINT64_MAX;
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const ProcessRecord *r = value;
                if (r->retry_at > 0 && r->retry_at < next)
                        next = r->retry_at;
        }
        if (next == UINT64_MAX) {
                (void) sd_event_source_set_enabled(w->retry_timer, SD_EVENT_OFF);
                return;
        }
        (void) sd_event_source_set_time(w->retry_timer, next);
        (void) sd_event_source_set_enabled(w->retry_timer, SD_EVENT_ONESHOT);
}

/* A call that failed (the helper missing, a timeout) is not the process's
 * fault: it is tried again a few times, further apart each time. */
static void record_failed(ProcessWatch *w, ProcessRecord *r, char *detail) {
        uint64_t now = 0;

        (void) sd_event_now(w->manager->event, CLOCK_MONOTONIC, &now);
        if (r->attempts < G_N_ELEMENTS(retry_delays_usec)) {
                uint64_t delay = retry_delays_usec[r->attempts];
                r->retry_at = now + delay;
                process_record_set_outcome(
                        r, PROCESS_FAILED,
                        g_strdup_printf("%s; try %u of %u, trying again in %" G_GUINT64_FORMAT " s", detail,
                                        r->attempts + 1, (unsigned) G_N_ELEMENTS(retry_delays_usec) + 1,
                                        delay / G_USEC_PER_SEC));
        } else {
                r->retry_at = 0;
                process_record_set_outcome(
                        r, PROCESS_FAILED,
                        g_strdup_printf("%s; gave up after %u tries, until it moves, its groups change or "
                                        "policyd reloads",
                                        detail, r->attempts + 1));
        }
        r->attempts++;
        g_free(detail);
        arm_retry_timer(w);
}

int process_inject_on_retry(sd_event_source *source, uint64_t usec, void *userdata) {
        ProcessWatch *w = userdata;
        g_autoptr(GPtrArray) due = g_ptr_array_new();
        GHashTableIter it;
        gpointer value;
        (void) source;

        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                ProcessRecord *r = value;
                if (r->retry_at > 0 && r->retry_at <= usec)
                        g_ptr_array_add(due, r);
        }
        for (guint i = 0; i < due->len; i++) {
                ProcessRecord *r = g_ptr_array_index(due, i);
                r->retry_at = 0;
                if (process_record_is_stale(r))
                        process_record_forget(w, r);
                else {
                        r->retrying = true;
                        process_decide(w, r);
                }
        }
        arm_retry_timer(w);
        return 0;
}

void process_inject_start_next(ProcessWatch *w) {
        start_next_calls(w);
}

void process_inject_queue_call(ProcessWatch *w, ProcessRecord *r) {
        process_record_set_outcome(r, PROCESS_PENDING, NULL);
        g_queue_push_tail(w->waiting, GINT_TO_POINTER(r->pid));
        start_next_calls(w);
}

static void on_injected(ProcessWatch *w, ProcessRecord *r, const InjectReply *reply) {
        const char *who = r->subject ?: "-";
        bool applied = streq(reply->outcome, "applied");

        if (r->call_is_ensure) {
                /* ensure=1: the helper set what differed (set=); the rest the
                 * process had already, and is not policyd's to take back. */
                if (!reply->set_ksm) {
                        r->step.ksm = -1;
                        r->step.undo_ksm = false;
                }
                if (!reply->set_mempolicy) {
                        g_clear_pointer(&r->step.mempolicy, g_free);
                        r->step.undo_mempolicy = false;
                }
                if (reply->exe && !streq(reply->exe, "-")) {
                        g_free(r->exe);
                        r->exe = g_strdup(reply->exe);
                }
        }

        g_free(r->verified);
        r->verified = g_strdup_printf("ksm=%s mempolicy=%s", strempty(reply->ksm), strempty(reply->mempolicy));
        if (applied) {
                bool undo = r->step.undo_ksm || r->step.undo_mempolicy;
                if (r->step.ksm >= 0)
                        r->applied.ksm = r->step.ksm;
                if (r->step.mempolicy) {
                        g_free(r->applied.mempolicy);
                        r->applied.mempolicy = g_strdup(r->step.mempolicy);
                }
                g_free(r->detail);
                r->detail = g_strdup_printf("%s%s%s%s%s", r->step.ksm >= 0 ? "KSM " : "",
                                            r->step.ksm == 1 ? "on" : r->step.ksm == 0 ? "off" : "",
                                            r->step.ksm >= 0 && r->step.mempolicy ? ", " : "",
                                            r->step.mempolicy ? "mempolicy " : "", strempty(r->step.mempolicy));
                r->detail = process_record_with_migration(r, r->detail);
                r->method = undo ? PROCESS_UNDONE : PROCESS_INJECTED;
                r->attempts = 0;
                log_context_id(MESSAGE_ID_INJECTED, LOG_NOTICE, 0, who, NULL, NULL, 0,
                               "%s PID %d (%s): %s, in %u threads; read back %s", undo ? "Undid in" : "Injected into",
                               (int) r->pid, r->exe ?: "?", r->detail, reply->threads, r->verified);
        } else if (streq(reply->outcome, "vanished")) {
                process_record_forget(w, r);
                return;
        } else {
                bool refused = streq(reply->outcome, "refused");
                g_autofree char *acting = refused && r->acting_uid != 0
                                                  ? g_strdup_printf(" (the change acts for uid %u)", (unsigned) r->acting_uid)
                                                  : NULL;
                char *why = g_strdup_printf("%s%s%s%s", refused ? "refused: " : "failed: ",
                                            reply->reason ?: reply->error ?: reply->outcome, strempty(acting),
                                            reply->stuck ? " (a thread was stuck; the helper exited to release it)"
                                                         : "");
                if (refused)
                        process_record_set_outcome(r, PROCESS_SKIPPED, why);
                else
                        record_failed(w, r, why);
                log_context_id(MESSAGE_ID_INJECTION_REFUSED, refused ? LOG_INFO : LOG_WARNING, 0, who, NULL, NULL, 0,
                               "PID %d (%s): %s", (int) r->pid, r->exe ?: "?", r->detail);
        }
        process_step_clear(&r->step);
        process_records_save(w);
        process_watch_mode_changed(w);
        if (!process_record_holds_something(r) && !process_record_subject(w, r))
                process_record_forget(w, r);
        else
                process_record_track_exit(w, r);
}

static void on_migrated(ProcessWatch *w, ProcessRecord *r, const InjectReply *reply) {
        const char *who = r->subject ?: "-", *group = NULL;
        g_autofree char *to = TAKE_PTR(r->migrate_to);

        g_free(process_decide_migration_wanted(w, r, NULL, &group)); /* for the group whose NUMANodes= won */

        if (streq(reply->outcome, "vanished")) {
                process_record_forget(w, r);
                return;
        }
        /* Once per list, whatever came of it: a retry would meet the same. */
        g_free(r->migrated);
        r->migrated = g_strdup(to);
        g_clear_pointer(&r->migration, g_free);
        g_free(r->verified);
        r->attempts = 0; /* the helper answered */
        if (streq(reply->outcome, "applied")) {
                Subject *s = process_record_subject(w, r);
                bool cpuset = s && !cgroup_plan_numa_by_migration(s->plan_flags);
                process_record_set_outcome(
                        r, PROCESS_MIGRATED,
                        g_strdup_printf("pages moved to node%s %s with migrate_pages (NUMANodes= of '%s'; %s)",
                                        strpbrk(to, ",-") ? "s" : "", to, strempty(group),
                                        cpuset ? "the cpuset keeps new allocations there"
                                               : "no cpuset here, so new allocations are not confined"));
                r->verified = g_strdup_printf("migrate_pages: %ld pages not moved", MAX(reply->not_moved, 0L));
                r->migration = g_strdup_printf("pages moved to %s with migrate_pages", to);
                log_context_id(MESSAGE_ID_INJECTED, LOG_NOTICE, 0, who, group, NULL, 0,
                               "Moved the pages of PID %d to NUMA node(s) %s with migrate_pages (%ld not moved)%s",
                               (int) r->pid, to, MAX(reply->not_moved, 0L),
                               cpuset ? "" : ": its cgroup has no cpuset controller");
        } else {
                bool refused = streq(reply->outcome, "refused");
                process_record_set_outcome(r, refused ? PROCESS_SKIPPED : PROCESS_FAILED,
                            g_strdup_printf("migrate_pages to %s %s: %s", to, refused ? "refused" : "failed",
                                            reply->reason ?: reply->error ?: reply->outcome));
                r->verified = NULL;
                log_context_id(MESSAGE_ID_INJECTION_REFUSED, refused ? LOG_INFO : LOG_WARNING, 0, who, group, NULL, 0,
                               "PID %d: %s", (int) r->pid, r->detail);
        }
}

static void on_call_done(InjectCall *call, const InjectReply *reply, int error, void *userdata) {
        ProcessWatch *w = userdata;
        ProcessRecord *r = NULL;
        GHashTableIter it;
        gpointer value;
        pid_t pid;

        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value))
                if (((ProcessRecord *) value)->call == call) {
                        r = value;
                        break;
                }
        assert(w->calls_in_flight > 0);
        w->calls_in_flight--;
        manager_call_finished(w->manager);
        if (!r) { /* cannot happen: a record frees its call */
                inject_call_free(call);
                start_next_calls(w);
                return;
        }
        r->call = inject_call_free(r->call);
        r->pidfd = safe_close(r->pidfd);
        pid = r->pid;

        if (error >= 0 && w->injector_missing_logged) {
                log_info("The injector (%s) answers again.", inject_pool_socket_path(w->injector));
                w->injector_missing_logged = false; /* said again if it goes again */
        }
        if (error < 0 || streq(reply->outcome, "error")) {
                process_step_clear(&r->step);
                g_clear_pointer(&r->migrate_to, g_free);
                record_failed(w, r,
                              error < 0 ? g_strdup_printf("the injector did not answer: %s", g_strerror(-error))
                                        : g_strdup_printf("the injector refused the request: %s", strempty(reply->error)));
                process_records_save(w);
                process_watch_mode_changed(w);
        } else if (r->migrate_to) {
                on_migrated(w, r, reply);
                /* Then KSM= and NUMAPolicy=, if a group sets them. */
                r = g_hash_table_lookup(w->records, GINT_TO_POINTER(pid));
                if (r)
                        r->again = true;
        } else if (r->call_is_query || (r->call_is_ensure && streq(reply->outcome, "queried"))) {
                /* ensure=1 answered as a query: the process had it all, and
                 * the query's path says so (or, where policyd reads the
                 * answer otherwise, injects what is left). */
                if (streq(reply->outcome, "vanished"))
                        process_record_forget(w, r);
                else if (!streq(reply->outcome, "queried"))
                        process_record_set_outcome(r, PROCESS_SKIPPED,
                                                   g_strdup_printf("refused: %s", reply->reason ?: reply->outcome));
                else
                        process_decide_from_query(w, r, reply);
        } else
                on_injected(w, r, reply);

        r = g_hash_table_lookup(w->records, GINT_TO_POINTER(pid));
        if (r && r->again && r->method != PROCESS_PENDING) {
                r->again = false;
                process_decide(w, r);
        } else if (r && r->method != PROCESS_PENDING)
                r->charge_uid = 0; /* the calls a move caused are over */
        start_next_calls(w);
}

static int start_call(ProcessWatch *w, ProcessRecord *r) {
        uint64_t t;
        int k;

        assert(!r->call); /* start_next_calls() skips a record with a call */
        r->pidfd = (int) syscall(SYS_pidfd_open, r->pid, 0);
        if (r->pidfd < 0)
                return -errno;
        /* The pidfd is of the process we looked at, not a later one with its PID. */
        if (process_procfs_read_start_time(r->pid, &t) < 0 || t != r->start_time)
                return -ESRCH;
        /* Write-ahead: without its record, no injection (tried again later). */
        if (!r->call_is_query && !r->migrate_to && (k = process_records_save(w)) < 0)
                return k;
        if (r->migrate_to)
                k = inject_call_start_migrate(w->injector, r->pidfd, r->pid, r->migrate_to,
                                              r->acting_uid, on_call_done, w, &r->call);
        else {
                InjectAsk ask = {
                        .query = r->call_is_query,
                        .ksm = r->step.ksm,
                        .mempolicy = r->step.mempolicy,
                        .ensure = !r->call_is_query && r->call_is_ensure,
                        /* An undo takes back only what policyd set. */
                        .mempolicy_if = !r->call_is_query && r->call_is_ensure && r->step.undo_mempolicy
                                                ? r->applied.mempolicy
                                                : NULL,
                        .timeout_ms = INJECT_TIMEOUT_MS,
                        .for_uid = r->call_is_query ? 0 : r->acting_uid,
                };
                k = inject_call_start(w->injector, r->pidfd, r->pid, &ask, on_call_done, w, &r->call);
        }
        if (k < 0)
                return k;
        w->calls_in_flight++;
        manager_call_started(w->manager);
        if (!r->call_is_query && !r->migrate_to)
                process_watch_mode_changed(w);
        return 0;
}

int process_inject_on_held_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        ProcessWatch *w = userdata;
        g_autoptr(GHashTable) held = w->held;
        GHashTableIter it;
        gpointer key;
        (void) source;
        (void) usec;

        w->held = g_hash_table_new(NULL, NULL);
        /* Injections whose query was made first, so that the tokens end
         * chains rather than start new ones; they wait at the head. */
        g_hash_table_iter_init(&it, held);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
                ProcessRecord *r = g_hash_table_lookup(w->records, key);
                if (!r || r->call || r->method == PROCESS_PENDING || !r->held_injection)
                        continue;
                r->held_injection = false;
                process_record_set_outcome(r, PROCESS_PENDING, g_strdup("held back, then asked again"));
                g_queue_push_head(w->waiting, GINT_TO_POINTER(r->pid));
        }
        g_hash_table_iter_init(&it, held);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
                ProcessRecord *r = g_hash_table_lookup(w->records, key);
                if (!r || r->call || r->method == PROCESS_PENDING)
                        continue;
                if (process_record_is_stale(r))
                        process_record_forget(w, r);
                else
                        process_decide(w, r); /* as it is now: where it is, its groups */
        }
        start_next_calls(w);
        return 0;
}

/* Takes charge_uid's tokens for a call: a request's, and a connection's
 * when it opens one (a guess made now, as call_start() will choose: an
 * idle link that turns out dead opens one untaken). 0 (root's cgroups, or
 * a call no move, scan or exec began) takes none. Over the limit: false, with the wait for the next
 * token and which budget ran out. */
static bool procs_token_take(ProcessWatch *w, uid_t charge_uid, bool opens, uint64_t *ret_wait_usec,
                             bool *ret_starts) {
        gpointer key = GUINT_TO_POINTER((guint) charge_uid + 1);
        const TokenBucketRate *rate = NULL;
        HeldBackBucket *refused = NULL;
        uint64_t now = 0;
        OwnerBudget *b;
        bool say = false;

        *ret_wait_usec = 0;
        *ret_starts = false;
        if (charge_uid == 0)
                return true;
        (void) sd_event_now(w->manager->event, CLOCK_MONOTONIC, &now);
        b = g_hash_table_lookup(w->procs_buckets, key);
        if (!b) {
                if (g_hash_table_size(w->procs_buckets) >= PROCS_BUCKETS_KEPT) {
                        GHashTableIter it;
                        gpointer value;
                        g_hash_table_iter_init(&it, w->procs_buckets);
                        while (g_hash_table_iter_next(&it, NULL, &value)) {
                                const OwnerBudget *o = value;
                                if (token_bucket_full(&o->requests.bucket, &procs_requests_rate, now) &&
                                    token_bucket_full(&o->starts.bucket, &procs_starts_rate, now))
                                        g_hash_table_iter_remove(&it);
                        }
                }
                b = g_new0(OwnerBudget, 1);
                g_hash_table_insert(w->procs_buckets, key, b);
        }
        if (opens && !held_back_take(&b->starts, &procs_starts_rate, now, &say)) {
                refused = &b->starts;
                rate = &procs_starts_rate;
                *ret_starts = true;
        } else if (!held_back_take(&b->requests, &procs_requests_rate, now, &say)) {
                refused = &b->requests;
                rate = &procs_requests_rate;
        }
        if (!refused)
                return true;
        if (say) { /* once a burst, not per event */
                char owner[32] = "an unknown owner";
                if (charge_uid != PROCS_OWNER_UNKNOWN)
                        snprintf(owner, sizeof(owner), "uid %u", (unsigned) charge_uid);
                log_notice("Processes of cgroups owned by %s need the injector faster than policyd asks it for them "
                           "(%u %s at once, then %u every %u s): requests held back; each process is decided "
                           "again, where it is then, as the rate allows.",
                           owner, rate->burst, *ret_starts ? "new helper connections" : "requests", rate->per_sec,
                           MAX(rate->period_sec, 1u));
        }
        *ret_wait_usec = token_bucket_wait_usec(&refused->bucket, rate, now);
        *ret_wait_usec = MAX(*ret_wait_usec, (uint64_t) 1);
        return false;
}

/* Not now: said in explain; once a token is back, an injection whose
 * query is made goes on, anything else is decided again from scratch. A
 * move meanwhile decides it again anyway (process_decide()): the latest wins. */
static void hold_back(ProcessWatch *w, ProcessRecord *r, uint64_t wait_usec, bool starts) {
        const TokenBucketRate *rate = starts ? &procs_starts_rate : &procs_requests_rate;
        uint64_t now = 0, at, armed = UINT64_MAX;
        int enabled = SD_EVENT_OFF;

        r->held_injection = !r->call_is_query && !r->migrate_to;
        if (!r->held_injection)
                process_step_clear(&r->step);
        g_clear_pointer(&r->migrate_to, g_free);
        process_record_set_outcome(
                r, PROCESS_SKIPPED,
                g_strdup_printf("held back: its cgroup's owner's processes need more than %u %s every %u s "
                                "(%u at once); decided again when the rate allows",
                                rate->per_sec, starts ? "new injector connection(s)" : "injector request(s)",
                                MAX(rate->period_sec, 1u), rate->burst));
        g_hash_table_add(w->held, GINT_TO_POINTER(r->pid));
        (void) sd_event_now(w->manager->event, CLOCK_MONOTONIC, &now);
        at = now + wait_usec;
        (void) sd_event_source_get_enabled(w->held_timer, &enabled);
        if (enabled != SD_EVENT_OFF)
                (void) sd_event_source_get_time(w->held_timer, &armed);
        if (at < armed) {
                (void) sd_event_source_set_time(w->held_timer, at);
                (void) sd_event_source_set_enabled(w->held_timer, SD_EVENT_ONESHOT);
        }
}

static void start_next_calls(ProcessWatch *w) {
        while (w->calls_in_flight < CALLS_IN_FLIGHT_MAX && !g_queue_is_empty(w->waiting)) {
                pid_t pid = GPOINTER_TO_INT(g_queue_pop_head(w->waiting));
                ProcessRecord *r = g_hash_table_lookup(w->records, GINT_TO_POINTER(pid));
                int k;

                if (!r || r->call || r->method != PROCESS_PENDING)
                        continue;
                if (!r->call_is_query && r->acting_uid == PROCESS_TRUST_UID_NONE) {
                        /* Sent, the helper would refuse it: say so without. */
                        process_step_clear(&r->step);
                        g_clear_pointer(&r->migrate_to, g_free);
                        process_record_set_outcome(
                                r, PROCESS_SKIPPED,
                                g_strdup("refused: no user to act for (a group of a user's input is not loaded, "
                                         "or its cgroup has no known owner)"));
                        continue;
                }
                uint64_t wait_usec;
                bool starts;
                bool opens = !inject_pool_has_idle(w->injector) || (r->migrate_to && r->acting_uid == 0);
                if (!procs_token_take(w, r->charge_uid, opens, &wait_usec, &starts)) {
                        hold_back(w, r, wait_usec, starts);
                        continue;
                }
                k = start_call(w, r);
                if (k == 0)
                        continue;
                r->pidfd = safe_close(r->pidfd);
                /* ESRCH alone says the process is gone (start_call()): an
                 * ENOENT is the injector's socket, and the record must stay. */
                if (k == -ESRCH) {
                        process_record_forget(w, r);
                        continue;
                }
                /* A socket that is not there (ENOENT) or not listening: said once. */
                if ((k == -ENOENT || k == -ECONNREFUSED) && !w->injector_missing_logged) {
                        log_warning("The injector (%s) is not there: KSM= and NUMAPolicy= reach no running process. "
                                    "Is policyd-inject.socket enabled?",
                                    inject_pool_socket_path(w->injector));
                        w->injector_missing_logged = true;
                }
                process_step_clear(&r->step);
                g_clear_pointer(&r->migrate_to, g_free);
                record_failed(w, r, g_strdup_printf("the injector could not be reached: %s", g_strerror(-k)));
        }
}
