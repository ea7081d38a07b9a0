/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "assign.h"
#include "cgroup-apply.h"
#include "exec-watch.h"
#include "fileio.h"
#include "gather.h"
#include "inject-client.h"
#include "inject-proc.h"
#include "log.h"
#include "manager.h"
#include "message-ids.h"
#include "link-trust.h"
#include "process-watch.h"
#include "rate-limit.h"
#include "resolve.h"
#include "state-store.h"
#include "util.h"

/* Each call starts a helper process: a few at once, the rest wait. */
#define CALLS_IN_FLIGHT_MAX 4
#define INJECT_TIMEOUT_MS 2000
/* A cgroup and its children: enough for any unit's own subtree. */
#define PROCS_DEPTH_MAX 16
/* A failed call is tried again after these; then it waits for a move, a
 * change of its groups or a reload. */
static const uint64_t retry_delays_usec[] = { 5 * G_USEC_PER_SEC, 60 * G_USEC_PER_SEC, 600 * G_USEC_PER_SEC };

/* Injector requests that a user's moves cause (a write to cgroup.procs of
 * a cgroup the user owns): each starts a policyd-inject@ unit in PID 1, and
 * a user can move their processes in and out as fast as they like. Per
 * owner uid: 4 at once, then one every 5 s (systemd's own moves, of a unit
 * it starts, are mostly no writes: CLONE_INTO_CGROUP); those over it are
 * held back, and each held process is decided again, as it is then (the
 * latest membership wins), when a token is back. Root's are free. */
static const TokenBucketRate procs_rate = { .burst = 4, .per_sec = 1, .period_sec = 5 };
/* Owners kept before the full buckets (the idle) are dropped. */
#define PROCS_BUCKETS_KEPT 64
/* The owner of a cgroup.procs that could not be read: one bucket for all. */
#define PROCS_OWNER_UNKNOWN ((uid_t) -2)

/* Below a watched subject's cgroup, the cgroups that are no subject's own
 * (a delegated subtree: a container, a user manager's apps) are watched
 * too, up to this many a subject. */
#define BELOW_WATCHES_MAX 512

/* One inotify watch. A subject's main entry is on its cgroup.procs; the
 * others of the subject ("below") are on the directories of its cgroup
 * and of the cgroups below it (IN_CREATE: a new cgroup), and on those
 * cgroups' cgroup.procs. */
typedef struct WatchedCgroup {
        int wd;
        bool main;
        bool directory;
        char *cgroup;
        char *subject;
        char *groups;   /* main: the member groups when last applied, to see a change */
        GArray *below;  /* main: the wds of the subject's other entries */
} WatchedCgroup;

struct ProcessWatch {
        Manager *manager;
        int inotify_fd;
        sd_event_source *inotify_source;
        GHashTable *watch_by_wd;      /* wd → WatchedCgroup*, owns */
        GHashTable *watch_by_subject; /* subject key → WatchedCgroup*, borrowed */
        GHashTable *watch_by_cgroup;  /* cgroup path → WatchedCgroup*, borrowed */
        GHashTable *subject_by_cgroup; /* cgroup path → subject key, of every subject with one, owns both */
        GHashTable *cgroup_by_subject; /* the other way, borrowed, to drop the entry */
        bool watch_mode_dirty;        /* what some record holds changed: see watching_all */
        bool watching_all;            /* some process holds what policyd set: see where it goes */
        NumaNodeMask memory_nodes;    /* the nodes with memory, read at start */
        bool memory_nodes_known;
        sd_event_source *retry_timer;
        GHashTable *records;          /* pid → ProcessRecord*, owns */
        GHashTable *scans;            /* subject keys to read cgroup.procs of → the uid charged, 0: none */
        sd_event_source *scan_defer;
        GQueue *waiting;              /* pids whose record waits for a call slot */
        unsigned calls_in_flight;
        unsigned generation;          /* bumped when what is wanted may have changed */
        bool active;                  /* some loaded group sets KSM= or NUMAPolicy= */
        bool startup_done;            /* units listed and read: records nobody placed can be decided */
        bool check_unplaced;          /* after the scans queued now */
        char *state_path;             /* what policyd set in which process, across its restarts */
        bool injector_missing_logged;
        char *socket_path;
        GHashTable *procs_buckets;    /* charged uid + 1 → HeldBackBucket*, owns */
        GHashTable *held;             /* pids held back for their uid's rate */
        sd_event_source *held_timer;
};

static const char *const method_names[_PROCESS_METHOD_MAX] = {
        [PROCESS_NEW] = "new",
        [PROCESS_PENDING] = "pending",
        [PROCESS_AS_WANTED] = "as-wanted",
        [PROCESS_INJECTED] = "injected",
        [PROCESS_UNDONE] = "undone",
        [PROCESS_SKIPPED] = "skipped",
        [PROCESS_FAILED] = "failed",
        [PROCESS_MIGRATED] = "migrated",
};

const char *process_method_to_string(ProcessMethod m) {
        return (int) m >= 0 && m < _PROCESS_METHOD_MAX ? method_names[m] : NULL;
}

static void watched_cgroup_free(void *p) {
        WatchedCgroup *c = p;
        if (c->below)
                g_array_unref(c->below);
        g_free(c->cgroup);
        g_free(c->subject);
        g_free(c->groups);
        g_free(c);
}

static void record_free(void *p) {
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

static bool record_holds_something(const ProcessRecord *r) {
        return r->applied.ksm == 1 || (r->applied.mempolicy && !streq(r->applied.mempolicy, "default"));
}

/* Holds, or is about to: an injection is in flight (a migration leaves
 * nothing to undo). */
static bool record_matters_elsewhere(const ProcessRecord *r) {
        return record_holds_something(r) || (r->call && !r->call_is_query && !r->migrate_to);
}

/* Watching every cgroup costs a wakeup per scope start, so that is done
 * only while some process holds what policyd set: then a move anywhere
 * may have to be undone. Decided at the end of the next scan pass. */
static void watch_mode_changed(ProcessWatch *w) {
        w->watch_mode_dirty = true;
        (void) sd_event_source_set_enabled(w->scan_defer, SD_EVENT_ONESHOT);
}

/* ---- the record file ---- */

/* "PID STARTTIME KSM MEMPOLICY" per process that holds something policyd
 * set, or is about to: written ahead of each injection, so that a policyd
 * killed in between still knows what to take back. A value the injection
 * never set is no harm there: undo happens only where the process still
 * has what the record says. */
static int save_records(ProcessWatch *w) {
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

                if (ksm != 1 && (!mempolicy || streq(mempolicy, "default")) && !record_holds_something(r))
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

/* ---- which subject a cgroup is ---- */

static void note_subject_cgroup(ProcessWatch *w, const char *key, const char *cgroup) {
        const char *old = g_hash_table_lookup(w->cgroup_by_subject, key);

        if (streq_ptr(old, cgroup))
                return;
        if (old) {
                if (streq_ptr(g_hash_table_lookup(w->subject_by_cgroup, old), key))
                        g_hash_table_remove(w->subject_by_cgroup, old);
                g_hash_table_remove(w->cgroup_by_subject, key);
        }
        if (isempty(cgroup))
                return;
        g_hash_table_replace(w->subject_by_cgroup, g_strdup(cgroup), g_strdup(key));
        g_hash_table_replace(w->cgroup_by_subject, g_strdup(key), g_strdup(cgroup));
}

static bool is_subject_cgroup(ProcessWatch *w, const char *cgroup) {
        return g_hash_table_contains(w->subject_by_cgroup, cgroup);
}

/* The subject whose cgroup is the nearest at or above this one. */
static const char *subject_of_cgroup(ProcessWatch *w, const char *cgroup) {
        g_autofree char *p = g_strdup(cgroup);

        for (;;) {
                const char *key = g_hash_table_lookup(w->subject_by_cgroup, p);
                char *slash;
                if (key)
                        return key;
                slash = strrchr(p, '/');
                if (!slash || slash == p)
                        return NULL;
                *slash = '\0';
        }
}

/* ---- /proc ---- */

/* Field 22, starttime; the comm in field 2 may hold anything but ')'. */
static int read_start_time(pid_t pid, uint64_t *ret) {
        char path[64], buf[1024];
        _cleanup_close_ int fd = -1;
        ssize_t n;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : negative_errno();
        n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return errno == ESRCH ? -ESRCH : negative_errno();
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        if (!p)
                return -EBADMSG;
        /* Fields 3 to 21 lie between the ')' and starttime. */
        for (int field = 3; field <= 22; field++) {
                p = strchr(p, ' ');
                if (!p)
                        return -EBADMSG;
                p++;
        }
        *ret = g_ascii_strtoull(p, NULL, 10);
        return 0;
}

/* Its cgroup below the root, from the unified hierarchy's "0::" line. */
static int read_process_cgroup(pid_t pid, char **ret) {
        g_autofree char *text = NULL, *path = g_strdup_printf("/proc/%d/cgroup", (int) pid);

        if (!g_file_get_contents(path, &text, NULL, NULL))
                return -ESRCH;
        for (char *line = text; line && *line;) {
                char *nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                if (g_str_has_prefix(line, "0::")) {
                        *ret = g_strdup(line + 3);
                        return 0;
                }
                line = nl ? nl + 1 : NULL;
        }
        return -ENODATA;
}

/* The start time of PID, listed in cgroup.procs at or below cgroup a moment
 * ago. Its PID may have been reused since, by a process anywhere: so the
 * process must be at or below cgroup now, and still the same once that is
 * read (issue 23). -ESRCH otherwise. */
static int read_start_time_in(pid_t pid, const char *cgroup, uint64_t *ret) {
        g_autofree char *now = NULL;
        uint64_t t, again;

        if (read_start_time(pid, &t) < 0 || read_process_cgroup(pid, &now) < 0)
                return -ESRCH;
        if (!streq(now, cgroup) && !cgroup_path_strictly_below(now, cgroup))
                return -ESRCH; /* moved out since, or another process */
        if (read_start_time(pid, &again) < 0 || again != t)
                return -ESRCH;
        *ret = t;
        return 0;
}

typedef void (*CgroupVisit)(ProcessWatch *w, int dir_fd, const char *cgroup, void *data);

/* Visits the cgroup at DIR_FD and those below it, except the cgroups of
 * other subjects and what is below them (a slice's units, say): a process
 * belongs to the subject whose cgroup is nearest. */
static void walk_own_subtree(ProcessWatch *w, int dir_fd, const char *cgroup, unsigned depth, CgroupVisit visit,
                             void *data) {
        DIR *d;
        struct dirent *de;
        int dup_fd;

        visit(w, dir_fd, cgroup, data);
        if (depth >= PROCS_DEPTH_MAX)
                return;
        dup_fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
        if (dup_fd < 0)
                return;
        d = fdopendir(dup_fd);
        if (!d) {
                close(dup_fd);
                return;
        }
        while ((de = readdir(d))) {
                if (de->d_type != DT_DIR || de->d_name[0] == '.')
                        continue;
                g_autofree char *child = g_strdup_printf("%s/%s", streq(cgroup, "/") ? "" : cgroup, de->d_name);
                if (is_subject_cgroup(w, child))
                        continue;
                _cleanup_close_ int sub = openat(dir_fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub >= 0)
                        walk_own_subtree(w, sub, child, depth + 1, visit, data);
        }
        closedir(d);
}

static void read_procs(ProcessWatch *w, int dir_fd, const char *cgroup, void *data) {
        GArray *pids = data;
        g_autoptr(GString) text = g_string_new(NULL);
        _cleanup_close_ int fd = -1;
        char buf[4096];
        ssize_t n;
        (void) w;
        (void) cgroup;

        fd = openat(dir_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
                return;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                g_string_append_len(text, buf, n);
        for (char *p = text->str; *p;) {
                char *end;
                unsigned long v = strtoul(p, &end, 10);
                if (end == p)
                        break;
                if (v > 0 && v <= INT32_MAX) {
                        pid_t pid = (pid_t) v;
                        g_array_append_val(pids, pid);
                }
                p = end;
                while (*p == '\n')
                        p++;
        }
}

/* ---- deciding ---- */

static void start_next_calls(ProcessWatch *w);
static void decide(ProcessWatch *w, ProcessRecord *r);
static bool record_is_stale(ProcessRecord *r);
static void update_watch_mode(ProcessWatch *w);

static Subject *record_subject(ProcessWatch *w, const ProcessRecord *r) {
        return r->subject ? manager_find_subject(w->manager, r->subject) : NULL;
}

/* A migration earlier stays told: it has nothing to undo, only to show. */
static char *with_migration(const ProcessRecord *r, char *detail) {
        if (!r->migration || !detail)
                return detail;
        char *both = g_strdup_printf("%s; %s", detail, r->migration);
        g_free(detail);
        return both;
}

static void set_outcome(ProcessRecord *r, ProcessMethod method, char *detail) {
        r->method = method;
        g_free(r->detail);
        r->detail = method == PROCESS_PENDING ? detail : with_migration(r, detail);
}

/* NUMANodes=: the node list the process's pages go to now, or NULL (DESIGN
 * §6: cpuset.mems, then migrate_pages for running processes). In a cpuset
 * too: 6.12 moves pages on attach, and on a change of cpuset.mems, only
 * from the cpuset's old_mems_allowed, which stays empty until a task is
 * attached by a write to cgroup.procs (systemd starts units with
 * CLONE_INTO_CGROUP): a process moved from such a unit keeps its pages
 * where they were. */
static char *migration_wanted(ProcessWatch *w, const ProcessRecord *r, const char *moved_to, const char **ret_group) {
        Subject *s = r->subject ? manager_find_subject(w->manager, r->subject) : NULL;

        if (!s)
                return NULL;
        return process_migration_for(w->manager->policies, s->memberships, moved_to,
                                     w->memory_nodes_known ? &w->memory_nodes : NULL, ret_group);
}

static void forget_record(ProcessWatch *w, ProcessRecord *r) {
        bool held = record_holds_something(r) || (r->call && !r->call_is_query);

        if (r->call) { /* freed with the record, unanswered */
                w->calls_in_flight--;
                manager_call_finished(w->manager);
        }
        g_hash_table_remove(w->records, GINT_TO_POINTER(r->pid));
        if (held) {
                save_records(w);
                watch_mode_changed(w);
        }
}

/* ---- exits and retries ---- */

static int on_process_exit(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        ProcessRecord *r = userdata;
        (void) fd;
        (void) revents;

        (void) sd_event_source_set_enabled(source, SD_EVENT_OFF);
        if (!r->call) /* else its reply says "vanished" */
                forget_record(r->watch, r);
        return 0;
}

/* A process that holds what policyd set is forgotten as soon as it exits,
 * so that the records, and watching_all, do not outlive it. */
static void track_exit(ProcessWatch *w, ProcessRecord *r) {
        uint64_t t;
        int fd;

        if (!record_holds_something(r)) {
                r->exit_source = sd_event_source_disable_unref(r->exit_source);
                return;
        }
        if (r->exit_source)
                return;
        fd = (int) syscall(SYS_pidfd_open, r->pid, 0);
        if (fd < 0)
                return; /* gone: the next scan forgets it */
        if (read_start_time(r->pid, &t) < 0 || t != r->start_time || /* another process now */
            sd_event_add_io(w->manager->event, &r->exit_source, fd, EPOLLIN, on_process_exit, r) < 0) {
                close(fd);
                return;
        }
        (void) sd_event_source_set_io_fd_own(r->exit_source, true);
        (void) sd_event_source_set_description(r->exit_source, "process-exit");
}

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
                set_outcome(r, PROCESS_FAILED,
                            g_strdup_printf("%s; trying again in %" G_GUINT64_FORMAT " s", detail,
                                            delay / G_USEC_PER_SEC));
        } else {
                r->retry_at = 0;
                set_outcome(r, PROCESS_FAILED,
                            g_strdup_printf("%s; gave up after %u tries, until it moves, its groups change or "
                                            "policyd reloads",
                                            detail, r->attempts + 1));
        }
        r->attempts++;
        g_free(detail);
        arm_retry_timer(w);
}

static int on_retry(sd_event_source *source, uint64_t usec, void *userdata) {
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
                if (record_is_stale(r))
                        forget_record(w, r);
                else {
                        r->retrying = true;
                        decide(w, r);
                }
        }
        arm_retry_timer(w);
        return 0;
}

static int record_pid_compare(const void *a, const void *b) {
        const ProcessRecord *x = *(const ProcessRecord *const *) a, *y = *(const ProcessRecord *const *) b;
        return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The injector's spelling of a mempolicy, as numa_maps shows it. */
static int mempolicy_spec_to_numa_maps(const char *spec, char **ret) {
        Mempolicy p;
        char buf[300];

        if (mempolicy_parse(spec, &p) < 0 || mempolicy_format_numa_maps(&p, buf, sizeof(buf)) < 0)
                return -EINVAL;
        *ret = g_strdup(buf);
        return 0;
}

/* The record's process went away, or is no longer the one recorded. */
static bool record_is_stale(ProcessRecord *r) {
        uint64_t t;
        return read_start_time(r->pid, &t) < 0 || t != r->start_time;
}

static void queue_call(ProcessWatch *w, ProcessRecord *r) {
        set_outcome(r, PROCESS_PENDING, NULL);
        g_queue_push_tail(w->waiting, GINT_TO_POINTER(r->pid));
        start_next_calls(w);
}

static char *groups_detail(const ProcessWant *want) {
        if (want->ksm_group && want->mempolicy_group && !streq(want->ksm_group, want->mempolicy_group))
                return g_strdup_printf("KSM= from '%s', NUMAPolicy= from '%s'", want->ksm_group, want->mempolicy_group);
        if (want->ksm_group || want->mempolicy_group)
                return g_strdup_printf("group '%s'", want->ksm_group ?: want->mempolicy_group);
        return g_strdup("no group sets KSM= or NUMAPolicy= for it now");
}

/* What the query said, in the terms process_step_for() compares: the
 * mempolicy is read in numa_maps' spelling, so it is matched against the
 * spellings that matter here. */
static void current_from_reply(const InjectReply *reply, const ProcessWant *want, const ProcessRecord *r,
                               ProcessKnobs *ret) {
        ProcessKnobs cur = { .ksm = -1 };

        if (streq_ptr(reply->ksm, "yes"))
                cur.ksm = 1;
        else if (streq_ptr(reply->ksm, "no"))
                cur.ksm = 0;
        if (reply->mempolicy && !streq(reply->mempolicy, "-")) {
                const char *candidates[] = { want->knobs.mempolicy, r->applied.mempolicy, "default", "local" };
                for (size_t i = 0; i < ELEMENTSOF(candidates) && !cur.mempolicy; i++) {
                        g_autofree char *spelled = NULL;
                        if (candidates[i] && mempolicy_spec_to_numa_maps(candidates[i], &spelled) >= 0 &&
                            streq(spelled, reply->mempolicy))
                                cur.mempolicy = g_strdup(candidates[i]);
                }
                if (!cur.mempolicy) /* something else: differs from all of them */
                        cur.mempolicy = g_strdup_printf("other:%s", reply->mempolicy);
        }
        *ret = cur;
}

static const GPtrArray *record_memberships(ProcessWatch *w, ProcessRecord *r) {
        Subject *s = record_subject(w, r);
        return s ? s->memberships : NULL;
}

/* Whose input a change that groups (NULL entries skipped) ask for acts
 * for (process_acting_uid()): root's when root's input puts the subject in
 * each of them; else the user whose cgroup it is, and then the helper
 * reaches only that user's own processes. None: 0, as for an undo, which
 * takes back only what policyd set (process_step_for()). */
static uid_t acting_uid_for(ProcessWatch *w, const ProcessRecord *r, const char *const *groups, size_t n) {
        Subject *s = record_subject(w, r);
        CandidateData d = {};
        uid_t acting = 0;
        bool any = false;

        for (size_t i = 0; i < n; i++)
                any |= groups[i] != NULL;
        if (!any)
                return 0;
        if (!s || isempty(s->cgroup))
                return PROCESS_TRUST_UID_NONE;
        gather_candidate(s, &d);
        g_autoptr(GPtrArray) entries = runtime_assignments_for(w->manager->assignments, s, d.c.owner_known,
                                                               d.c.owner_uid);
        for (size_t i = 0; i < n; i++) {
                const PolicyGroup *g = groups[i] ? policy_set_get(w->manager->policies, groups[i]) : NULL;
                bool root_assigned = false;

                if (!groups[i])
                        continue;
                if (!g) {
                        acting = PROCESS_TRUST_UID_NONE;
                        continue;
                }
                for (guint k = 0; k + 1 < entries->len; k++) {
                        const RuntimeAssignment *a = g_ptr_array_index(entries, k);
                        root_assigned |= a->uid == 0 && streq(a->group, groups[i]);
                }
                acting = process_acting_uid_merge(acting, process_acting_uid(g, &d.c, root_assigned));
        }
        candidate_data_clear(&d);
        return acting;
}

/* The query came back: decide the step, and inject when there is one. */
static void decide_from_query(ProcessWatch *w, ProcessRecord *r, const InjectReply *reply) {
        ProcessWant want = { .knobs.ksm = -1 };
        ProcessKnobs cur = { .ksm = -1 };
        ProcessStep step = { .ksm = -1 };

        g_free(r->exe);
        r->exe = reply->exe && !streq(reply->exe, "-") ? g_strdup(reply->exe) : NULL;
        process_want_for(w->manager->policies, record_memberships(w, r), r->exe, &want);
        current_from_reply(reply, &want, r, &cur);
        process_step_for(&want, &cur, &r->applied, &step);

        r->attempts = 0;
        if (process_step_is_empty(&step)) {
                if (want.knobs.ksm < 0 && !want.knobs.mempolicy)
                        set_outcome(r, PROCESS_SKIPPED,
                                    g_strdup(process_knobs_wanted(w->manager->policies, record_memberships(w, r))
                                                     ? "Executable= of its groups does not match"
                                                     : "no group sets KSM= or NUMAPolicy= for it"));
                else if ((want.knobs.ksm >= 0 && want.ksm_at_start_only && cur.ksm != want.knobs.ksm) ||
                         (want.knobs.mempolicy && want.mempolicy_at_start_only &&
                          !streq_ptr(cur.mempolicy, want.knobs.mempolicy)))
                        set_outcome(r, PROCESS_SKIPPED,
                                    g_strdup_printf("ApplyToRunning=no in %s: only at the next start",
                                                    want.ksm_at_start_only ? want.ksm_group : want.mempolicy_group));
                else if (want.mempolicy_problem && !want.knobs.mempolicy)
                        set_outcome(r, PROCESS_SKIPPED, g_strdup(want.mempolicy_problem));
                else
                        set_outcome(r, PROCESS_AS_WANTED, groups_detail(&want));
                g_free(r->verified);
                r->verified = g_strdup_printf("ksm=%s mempolicy=%s", strempty(reply->ksm), strempty(reply->mempolicy));
                if (!record_holds_something(r) && !record_subject(w, r))
                        forget_record(w, r);
        } else {
                const char *groups[] = {
                        step.ksm >= 0 && !step.undo_ksm ? want.ksm_group : NULL,
                        step.mempolicy && !step.undo_mempolicy ? want.mempolicy_group : NULL,
                };
                process_step_clear(&r->step);
                r->step = step;
                step = (ProcessStep) { .ksm = -1 };
                r->acting_uid = acting_uid_for(w, r, groups, ELEMENTSOF(groups));
                set_outcome(r, PROCESS_PENDING, groups_detail(&want));
                r->call_is_query = false;
                g_queue_push_tail(w->waiting, GINT_TO_POINTER(r->pid));
        }
        process_knobs_clear(&cur);
        process_want_clear(&want);
        process_step_clear(&step);
}

static void on_injected(ProcessWatch *w, ProcessRecord *r, const InjectReply *reply) {
        const char *who = r->subject ?: "-";
        bool applied = streq(reply->outcome, "applied");

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
                r->detail = with_migration(r, r->detail);
                r->method = undo ? PROCESS_UNDONE : PROCESS_INJECTED;
                r->attempts = 0;
                log_context_id(MESSAGE_ID_INJECTED, LOG_NOTICE, 0, who, NULL, NULL, 0,
                               "%s PID %d (%s): %s, in %u threads; read back %s", undo ? "Undid in" : "Injected into",
                               (int) r->pid, r->exe ?: "?", r->detail, reply->threads, r->verified);
        } else if (streq(reply->outcome, "vanished")) {
                forget_record(w, r);
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
                        set_outcome(r, PROCESS_SKIPPED, why);
                else
                        record_failed(w, r, why);
                log_context_id(MESSAGE_ID_INJECTION_REFUSED, refused ? LOG_INFO : LOG_WARNING, 0, who, NULL, NULL, 0,
                               "PID %d (%s): %s", (int) r->pid, r->exe ?: "?", r->detail);
        }
        process_step_clear(&r->step);
        save_records(w);
        watch_mode_changed(w);
        if (!record_holds_something(r) && !record_subject(w, r))
                forget_record(w, r);
        else
                track_exit(w, r);
}

static void on_migrated(ProcessWatch *w, ProcessRecord *r, const InjectReply *reply) {
        const char *who = r->subject ?: "-", *group = NULL;
        g_autofree char *to = TAKE_PTR(r->migrate_to);

        g_free(migration_wanted(w, r, NULL, &group)); /* for the group whose NUMANodes= won */

        if (streq(reply->outcome, "vanished")) {
                forget_record(w, r);
                return;
        }
        /* Once per list, whatever came of it: a retry would meet the same. */
        g_free(r->migrated);
        r->migrated = g_strdup(to);
        g_clear_pointer(&r->migration, g_free);
        g_free(r->verified);
        r->attempts = 0; /* the helper answered */
        if (streq(reply->outcome, "applied")) {
                Subject *s = record_subject(w, r);
                bool cpuset = s && !cgroup_plan_numa_by_migration(s->plan_flags);
                set_outcome(r, PROCESS_MIGRATED,
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
                set_outcome(r, refused ? PROCESS_SKIPPED : PROCESS_FAILED,
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
                log_info("The injector (%s) answers again.", w->socket_path);
                w->injector_missing_logged = false; /* said again if it goes again */
        }
        if (error < 0 || streq(reply->outcome, "error")) {
                process_step_clear(&r->step);
                g_clear_pointer(&r->migrate_to, g_free);
                record_failed(w, r,
                              error < 0 ? g_strdup_printf("the injector did not answer: %s", g_strerror(-error))
                                        : g_strdup_printf("the injector refused the request: %s", strempty(reply->error)));
                save_records(w);
                watch_mode_changed(w);
        } else if (r->migrate_to) {
                on_migrated(w, r, reply);
                /* Then KSM= and NUMAPolicy=, if a group sets them. */
                r = g_hash_table_lookup(w->records, GINT_TO_POINTER(pid));
                if (r)
                        r->again = true;
        } else if (r->call_is_query) {
                if (streq(reply->outcome, "vanished"))
                        forget_record(w, r);
                else if (!streq(reply->outcome, "queried"))
                        set_outcome(r, PROCESS_SKIPPED, g_strdup_printf("refused: %s", reply->reason ?: reply->outcome));
                else
                        decide_from_query(w, r, reply);
        } else
                on_injected(w, r, reply);

        r = g_hash_table_lookup(w->records, GINT_TO_POINTER(pid));
        if (r && r->again && r->method != PROCESS_PENDING) {
                r->again = false;
                decide(w, r);
        } else if (r && r->method != PROCESS_PENDING)
                r->charge_uid = 0; /* the calls a move caused are over */
        start_next_calls(w);
}

static int start_call(ProcessWatch *w, ProcessRecord *r) {
        uint64_t t;
        int k;

        r->pidfd = (int) syscall(SYS_pidfd_open, r->pid, 0);
        if (r->pidfd < 0)
                return -errno;
        /* The pidfd is of the process we looked at, not a later one with its PID. */
        if (read_start_time(r->pid, &t) < 0 || t != r->start_time)
                return -ESRCH;
        /* Write-ahead: without its record, no injection (tried again later). */
        if (!r->call_is_query && !r->migrate_to && (k = save_records(w)) < 0)
                return k;
        if (r->migrate_to)
                k = inject_call_start_migrate(w->manager->event, w->socket_path, r->pidfd, r->pid, r->migrate_to,
                                              r->acting_uid, on_call_done, w, &r->call);
        else
                k = inject_call_start(w->manager->event, w->socket_path, r->pidfd, r->pid, r->call_is_query,
                                      r->step.ksm, r->step.mempolicy, INJECT_TIMEOUT_MS,
                                      r->call_is_query ? 0 : r->acting_uid, on_call_done, w, &r->call);
        if (k < 0)
                return k;
        w->calls_in_flight++;
        manager_call_started(w->manager);
        if (!r->call_is_query && !r->migrate_to)
                watch_mode_changed(w);
        return 0;
}

static int on_held_timer(sd_event_source *source, uint64_t usec, void *userdata) {
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
                set_outcome(r, PROCESS_PENDING, g_strdup("held back, then asked again"));
                g_queue_push_head(w->waiting, GINT_TO_POINTER(r->pid));
        }
        g_hash_table_iter_init(&it, held);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
                ProcessRecord *r = g_hash_table_lookup(w->records, key);
                if (!r || r->call || r->method == PROCESS_PENDING)
                        continue;
                if (record_is_stale(r))
                        forget_record(w, r);
                else
                        decide(w, r); /* as it is now: where it is, its groups */
        }
        start_next_calls(w);
        return 0;
}

/* Takes one of charge_uid's tokens for a call; 0 (root, or no move caused
 * it) takes none. Over the limit: false, with the wait for the next. */
static bool procs_token_take(ProcessWatch *w, uid_t charge_uid, uint64_t *ret_wait_usec) {
        gpointer key = GUINT_TO_POINTER((guint) charge_uid + 1);
        uint64_t now = 0;
        HeldBackBucket *h;
        bool say;

        *ret_wait_usec = 0;
        if (charge_uid == 0)
                return true;
        (void) sd_event_now(w->manager->event, CLOCK_MONOTONIC, &now);
        h = g_hash_table_lookup(w->procs_buckets, key);
        if (!h) {
                if (g_hash_table_size(w->procs_buckets) >= PROCS_BUCKETS_KEPT) {
                        GHashTableIter it;
                        gpointer value;
                        g_hash_table_iter_init(&it, w->procs_buckets);
                        while (g_hash_table_iter_next(&it, NULL, &value))
                                if (token_bucket_full(&((HeldBackBucket *) value)->bucket, &procs_rate, now))
                                        g_hash_table_iter_remove(&it);
                }
                h = g_new0(HeldBackBucket, 1);
                g_hash_table_insert(w->procs_buckets, key, h);
        }
        if (held_back_take(h, &procs_rate, now, &say))
                return true;
        if (say) { /* once a burst, not per event */
                char owner[32] = "an unknown owner";
                if (charge_uid != PROCS_OWNER_UNKNOWN)
                        snprintf(owner, sizeof(owner), "uid %u", (unsigned) charge_uid);
                log_notice("Processes of cgroups owned by %s move faster than policyd asks the injector for them "
                           "(%u at once, then %u every %u s): requests held back; each process is decided again, "
                           "where it is then, as the rate allows.",
                           owner, procs_rate.burst, procs_rate.per_sec, procs_rate.period_sec);
        }
        *ret_wait_usec = token_bucket_wait_usec(&h->bucket, &procs_rate, now);
        *ret_wait_usec = MAX(*ret_wait_usec, (uint64_t) 1);
        return false;
}

/* Not now: said in explain; once a token is back, an injection whose
 * query is made goes on, anything else is decided again from scratch. A
 * move meanwhile decides it again anyway (decide()): the latest wins. */
static void hold_back(ProcessWatch *w, ProcessRecord *r, uint64_t wait_usec) {
        uint64_t now = 0, at, armed = UINT64_MAX;
        int enabled = SD_EVENT_OFF;

        r->held_injection = !r->call_is_query && !r->migrate_to;
        if (!r->held_injection)
                process_step_clear(&r->step);
        g_clear_pointer(&r->migrate_to, g_free);
        set_outcome(r, PROCESS_SKIPPED,
                    g_strdup_printf("held back: its cgroup's owner moves processes faster than %u injector request(s) "
                                    "every %u s (%u at once); decided again when the rate allows",
                                    procs_rate.per_sec, procs_rate.period_sec, procs_rate.burst));
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
                        set_outcome(r, PROCESS_SKIPPED,
                                    g_strdup("refused: no user to act for (a group of a user's input is not loaded, "
                                             "or its cgroup has no known owner)"));
                        continue;
                }
                uint64_t wait_usec;
                if (!procs_token_take(w, r->charge_uid, &wait_usec)) {
                        hold_back(w, r, wait_usec);
                        continue;
                }
                k = start_call(w, r);
                if (k == 0)
                        continue;
                r->pidfd = safe_close(r->pidfd);
                /* ESRCH alone says the process is gone (start_call()): an
                 * ENOENT is the injector's socket, and the record must stay. */
                if (k == -ESRCH) {
                        forget_record(w, r);
                        continue;
                }
                /* A socket that is not there (ENOENT) or not listening: said once. */
                if ((k == -ENOENT || k == -ECONNREFUSED) && !w->injector_missing_logged) {
                        log_warning("The injector (%s) is not there: KSM= and NUMAPolicy= reach no running process. "
                                    "Is policyd-inject.socket enabled?",
                                    w->socket_path);
                        w->injector_missing_logged = true;
                }
                process_step_clear(&r->step);
                g_clear_pointer(&r->migrate_to, g_free);
                record_failed(w, r, g_strdup_printf("the injector could not be reached: %s", g_strerror(-k)));
        }
}

/* Looks at one process again: a query first (its exe and what it has),
 * then perhaps an injection. */
static void decide(ProcessWatch *w, ProcessRecord *r) {
        if (r->call || r->method == PROCESS_PENDING) {
                r->again = true;
                return;
        }
        r->generation = w->generation;
        r->retry_at = 0;
        r->held_injection = false; /* what it was to do is decided anew */
        /* A move, a change of its groups, a reload: a new series of tries. */
        if (!r->retrying)
                r->attempts = 0;
        r->retrying = false;
        if (w->manager->dry_run) {
                set_outcome(r, PROCESS_SKIPPED, g_strdup("dry run"));
                return;
        }
        /* The pages first: that needs no query. */
        g_free(r->migrate_to);
        const char *migration_group = NULL;
        r->migrate_to = migration_wanted(w, r, r->migrated, &migration_group);
        if (r->migrate_to) {
                r->acting_uid = acting_uid_for(w, r, &migration_group, 1);
                process_step_clear(&r->step);
                r->call_is_query = false;
                queue_call(w, r);
                return;
        }
        /* Nothing to set and nothing to take back: no helper to start. */
        if (!record_holds_something(r) &&
            !process_knobs_reach_running(w->manager->policies, record_memberships(w, r))) {
                if (r->migrated && !process_knobs_wanted(w->manager->policies, record_memberships(w, r)))
                        return; /* NUMANodes= alone: the migration's outcome stands */
                set_outcome(r, PROCESS_SKIPPED, g_strdup("ApplyToRunning=no in the groups that set KSM= or "
                                                         "NUMAPolicy=: only at the next start"));
                return;
        }
        process_step_clear(&r->step);
        r->call_is_query = true;
        queue_call(w, r);
}

/* ---- scanning ---- */

static bool subject_wants_migration(ProcessWatch *w, const Subject *s) {
        g_autofree char *nodes = NULL;

        nodes = process_migration_for(w->manager->policies, s->memberships, NULL,
                                      w->memory_nodes_known ? &w->memory_nodes : NULL, NULL);
        return nodes != NULL;
}

/* Its processes matter: a group sets KSM=, NUMAPolicy= or NUMANodes=. */
static bool subject_wanted(ProcessWatch *w, const Subject *s) {
        return w->active && (process_knobs_wanted(w->manager->policies, s->memberships) || subject_wants_migration(w, s));
}

/* Not decided yet, in the subject key. */
static ProcessRecord *record_new(ProcessWatch *w, pid_t pid, uint64_t start_time, const char *key) {
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

static void scan_add(ProcessWatch *w, const char *key, uid_t charge_uid);

/* charge_uid: the owner of a cgroup.procs written to (0: none, root's, or
 * not a move); the calls for the processes it decides are charged to it. */
static void scan_subject(ProcessWatch *w, const char *key, uid_t charge_uid) {
        Subject *s = manager_find_subject(w->manager, key);
        g_autoptr(GArray) pids = g_array_new(false, false, sizeof(pid_t));
        g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);
        _cleanup_close_ int dir_fd = -1;
        bool wanted;
        GHashTableIter it;
        gpointer value;

        if (!s || isempty(s->cgroup))
                return;
        wanted = subject_wanted(w, s);
        if (cgroup_open_dir(w->manager->cgroup_root, s->cgroup, &dir_fd) >= 0)
                walk_own_subtree(w, dir_fd, s->cgroup, 0, read_procs, pids);

        for (guint i = 0; i < pids->len; i++) {
                pid_t pid = g_array_index(pids, pid_t, i);
                ProcessRecord *r = g_hash_table_lookup(w->records, GINT_TO_POINTER(pid));
                uint64_t t;

                if (pid == getpid() || read_start_time(pid, &t) < 0)
                        continue;
                /* A process first seen here: is it the one listed? */
                if ((!r || r->start_time != t) && read_start_time_in(pid, s->cgroup, &t) < 0)
                        continue;
                g_hash_table_add(seen, GINT_TO_POINTER(pid));
                if (r && r->start_time != t) {
                        forget_record(w, r);
                        r = NULL;
                }
                if (!r) {
                        if (!wanted)
                                continue; /* nothing to do, nor to undo */
                        r = record_new(w, pid, t, key);
                }
                if (!streq_ptr(r->subject, key)) {
                        g_free(r->subject);
                        r->subject = g_strdup(key);
                        r->generation = w->generation - 1;
                        /* Pages it placed elsewhere meanwhile move again. */
                        g_clear_pointer(&r->migrated, g_free);
                }
                if (r->generation != w->generation) {
                        if (charge_uid != 0)
                                r->charge_uid = charge_uid;
                        decide(w, r);
                }
        }

        /* Recorded here, and gone: exited, or moved somewhere not watched. */
        g_autoptr(GPtrArray) left = g_ptr_array_new();
        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                ProcessRecord *r = value;
                if (streq_ptr(r->subject, key) && !g_hash_table_contains(seen, GINT_TO_POINTER(r->pid)))
                        g_ptr_array_add(left, r);
        }
        for (guint i = 0; i < left->len; i++) {
                ProcessRecord *r = g_ptr_array_index(left, i);
                g_autofree char *cgroup = NULL;

                if (r->call)
                        continue; /* its reply decides */
                if (record_is_stale(r) || read_process_cgroup(r->pid, &cgroup) < 0) {
                        forget_record(w, r);
                        continue;
                }
                const char *there = subject_of_cgroup(w, cgroup);
                Subject *ts = there ? manager_find_subject(w->manager, there) : NULL;
                g_clear_pointer(&r->subject, g_free);
                if (ts && (record_holds_something(r) || subject_wanted(w, ts)))
                        scan_add(w, there, charge_uid);
                else if (record_holds_something(r)) {
                        if (charge_uid != 0)
                                r->charge_uid = charge_uid;
                        decide(w, r); /* no groups where it went: undo */
                }
                else
                        forget_record(w, r);
        }
}

static int on_scan(sd_event_source *source, void *userdata) {
        ProcessWatch *w = userdata;
        (void) source;

        /* Scans may queue more scans: take the set first. */
        g_autoptr(GHashTable) scans = w->scans;
        w->scans = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        GHashTableIter it;
        gpointer key, value;
        g_hash_table_iter_init(&it, scans);
        while (g_hash_table_iter_next(&it, &key, &value))
                scan_subject(w, key, (uid_t) GPOINTER_TO_UINT(value));

        /* Records from before a restart that no scan placed: their process
         * is where no group wants anything now, or gone. */
        if (w->check_unplaced && g_hash_table_size(w->scans) == 0) {
                w->check_unplaced = false;
                g_autoptr(GPtrArray) unplaced = g_ptr_array_new();
                g_hash_table_iter_init(&it, w->records);
                while (g_hash_table_iter_next(&it, NULL, &value))
                        if (!((ProcessRecord *) value)->subject && !((ProcessRecord *) value)->call)
                                g_ptr_array_add(unplaced, value);
                for (guint i = 0; i < unplaced->len; i++) {
                        ProcessRecord *r = g_ptr_array_index(unplaced, i);
                        if (record_is_stale(r))
                                forget_record(w, r);
                        else
                                decide(w, r);
                }
        }
        if (w->watch_mode_dirty && w->startup_done)
                update_watch_mode(w);
        return 0;
}

/* A scan of key; charge_uid as scan_subject() takes it. A move's charge
 * stays when the same scan is queued again for another reason. */
static void scan_add(ProcessWatch *w, const char *key, uid_t charge_uid) {
        gpointer old = NULL;

        if (g_hash_table_lookup_extended(w->scans, key, NULL, &old) && GPOINTER_TO_UINT(old) != 0 &&
            charge_uid == 0)
                return;
        g_hash_table_insert(w->scans, g_strdup(key), GUINT_TO_POINTER((guint) charge_uid));
        (void) sd_event_source_set_enabled(w->scan_defer, SD_EVENT_ONESHOT);
}

static void queue_scan(ProcessWatch *w, const char *key) {
        scan_add(w, key, 0);
}

/* Who wrote to cgroup's cgroup.procs: its owner (root's are root's own and
 * systemd's moves; a delegated one's, the user's). */
static uid_t procs_owner(ProcessWatch *w, const char *cgroup) {
        _cleanup_close_ int dir_fd = -1;
        struct stat st;

        if (cgroup_open_dir(w->manager->cgroup_root, cgroup, &dir_fd) < 0 ||
            fstatat(dir_fd, "cgroup.procs", &st, AT_SYMLINK_NOFOLLOW) < 0)
                return PROCS_OWNER_UNKNOWN;
        return st.st_uid;
}

/* ---- watching ---- */

/* Takes an entry out of the tables; the watch itself stays or goes with
 * the caller. */
static void forget_watch(ProcessWatch *w, WatchedCgroup *c) {
        if (c->main) {
                if (g_hash_table_lookup(w->watch_by_cgroup, c->cgroup) == c)
                        g_hash_table_remove(w->watch_by_cgroup, c->cgroup);
                if (g_hash_table_lookup(w->watch_by_subject, c->subject) == c)
                        g_hash_table_remove(w->watch_by_subject, c->subject);
        } else {
                WatchedCgroup *owner = g_hash_table_lookup(w->watch_by_subject, c->subject);
                for (guint i = 0; owner && owner->below && i < owner->below->len; i++)
                        if (g_array_index(owner->below, int, i) == c->wd) {
                                g_array_remove_index_fast(owner->below, i);
                                break;
                        }
        }
        g_hash_table_remove(w->watch_by_wd, GINT_TO_POINTER(c->wd));
}

static void unwatch(ProcessWatch *w, WatchedCgroup *c) {
        g_autoptr(GArray) below = c->below ? g_array_ref(c->below) : NULL;

        for (guint i = 0; below && i < below->len; i++) {
                int wd = g_array_index(below, int, i);
                WatchedCgroup *b = g_hash_table_lookup(w->watch_by_wd, GINT_TO_POINTER(wd));
                if (b && !b->main && streq(b->subject, c->subject)) {
                        (void) inotify_rm_watch(w->inotify_fd, wd);
                        g_hash_table_remove(w->watch_by_wd, GINT_TO_POINTER(wd));
                }
        }
        (void) inotify_rm_watch(w->inotify_fd, c->wd);
        forget_watch(w, c);
}

/* A watch on DIR_FD's directory, or its cgroup.procs. The kernel gives the
 * same wd for the same file: an entry there already, of another subject or
 * kind, is taken over. */
static WatchedCgroup *add_watch(ProcessWatch *w, int dir_fd, const char *cgroup, const char *subject, bool main,
                                bool directory) {
        char path[64];
        int wd;

        /* Through the fd of the careful walk: no symlink on the way. The
         * directory is the fd's magic link itself, to be followed (with
         * IN_DONT_FOLLOW the watch would be on the link in /proc). */
        snprintf(path, sizeof(path), "/proc/self/fd/%d%s", dir_fd, directory ? "" : "/cgroup.procs");
        wd = inotify_add_watch(w->inotify_fd, path,
                               directory ? IN_CREATE | IN_ONLYDIR : IN_MODIFY | IN_DONT_FOLLOW);
        if (wd < 0)
                return NULL;
        WatchedCgroup *c = g_hash_table_lookup(w->watch_by_wd, GINT_TO_POINTER(wd));
        if (c)
                forget_watch(w, c);
        c = g_new0(WatchedCgroup, 1);
        c->wd = wd;
        c->main = main;
        c->directory = directory;
        c->cgroup = g_strdup(cgroup);
        c->subject = g_strdup(subject);
        g_hash_table_insert(w->watch_by_wd, GINT_TO_POINTER(wd), c);
        if (main) {
                c->below = g_array_new(false, false, sizeof(int));
                g_hash_table_insert(w->watch_by_subject, c->subject, c);
                g_hash_table_insert(w->watch_by_cgroup, c->cgroup, c);
        }
        return c;
}

static void add_below(ProcessWatch *w, WatchedCgroup *owner, int dir_fd, const char *cgroup, bool directory) {
        WatchedCgroup *b;

        if (owner->below->len >= BELOW_WATCHES_MAX) {
                log_debug("%s: more than %u cgroups below; moves into the others are seen at the next scan.",
                          owner->subject, BELOW_WATCHES_MAX);
                return;
        }
        b = add_watch(w, dir_fd, cgroup, owner->subject, false, directory);
        if (b)
                g_array_append_val(owner->below, b->wd);
}

/* Each directory, for new cgroups, and each cgroup.procs but the owner's
 * own, which is its main watch. */
static void watch_one_below(ProcessWatch *w, int dir_fd, const char *cgroup, void *data) {
        WatchedCgroup *owner = data;

        add_below(w, owner, dir_fd, cgroup, true);
        if (!streq(cgroup, owner->cgroup))
                add_below(w, owner, dir_fd, cgroup, false);
}

/* A slice's children are units, which are subjects: a slice has nothing of
 * its own below it to watch, and would wake at every unit start. */
static bool has_own_subtree(const Subject *s) {
        return !s->unit || !g_str_has_suffix(s->unit, ".slice");
}

static int watch(ProcessWatch *w, Subject *s, WatchedCgroup **ret) {
        _cleanup_close_ int dir_fd = -1;
        WatchedCgroup *c;
        int k;

        k = cgroup_open_dir(w->manager->cgroup_root, s->cgroup, &dir_fd);
        if (k < 0)
                return k;
        c = add_watch(w, dir_fd, s->cgroup, subject_key(s), true, false);
        if (!c)
                return negative_errno();
        if (has_own_subtree(s))
                walk_own_subtree(w, dir_fd, s->cgroup, 0, watch_one_below, c);
        *ret = c;
        return 0;
}

/* A new cgroup below a watched one: watch it and what may already be below
 * it, then read the subject again, for what moved in before the watch. */
static void new_cgroup_below(ProcessWatch *w, const WatchedCgroup *parent, const char *name) {
        g_autofree char *child = g_strdup_printf("%s/%s", streq(parent->cgroup, "/") ? "" : parent->cgroup, name);
        g_autofree char *subject = g_strdup(parent->subject);
        WatchedCgroup *owner = g_hash_table_lookup(w->watch_by_subject, subject);
        _cleanup_close_ int dir_fd = -1;

        if (!owner || is_subject_cgroup(w, child) ||
            cgroup_open_dir(w->manager->cgroup_root, child, &dir_fd) < 0)
                return;
        walk_own_subtree(w, dir_fd, child, 1, watch_one_below, owner);
        queue_scan(w, subject);
}

static int on_inotify(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        ProcessWatch *w = userdata;
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        ssize_t n;
        (void) source;
        (void) revents;

        n = read(fd, buf, sizeof(buf));
        if (n <= 0)
                return 0;
        for (char *p = buf; p < buf + n;) {
                const struct inotify_event *e = (const struct inotify_event *) p;
                WatchedCgroup *c = g_hash_table_lookup(w->watch_by_wd, GINT_TO_POINTER(e->wd));

                if (e->mask & IN_Q_OVERFLOW) {
                        log_info("Missed cgroup.procs events (inotify queue overflow): reading every watched cgroup.");
                        GHashTableIter it;
                        gpointer value;
                        g_hash_table_iter_init(&it, w->watch_by_subject);
                        while (g_hash_table_iter_next(&it, NULL, &value))
                                queue_scan(w, ((WatchedCgroup *) value)->subject);
                } else if (c && (e->mask & IN_IGNORED))
                        forget_watch(w, c); /* the cgroup is gone; the kernel dropped the watch */
                else if (c && c->directory && (e->mask & IN_CREATE) && (e->mask & IN_ISDIR) && e->len > 0)
                        new_cgroup_below(w, c, e->name);
                else if (c && !c->directory)
                        scan_add(w, c->subject, procs_owner(w, c->cgroup));
                p += sizeof(struct inotify_event) + e->len;
        }
        return 0;
}

/* ---- exec events (exec-watch.c) ---- */

/* Where policyd can read /proc/PID/exe itself and no group takes that
 * executable, no helper needs to start. That read needs ptrace access, which
 * policyd, without CAP_SYS_PTRACE, has only to processes of its own user
 * with no capabilities beyond its own: a root shell has more, so for most
 * processes the read fails and the helper is asked (hence the settling
 * delay in exec-watch.c). */
static bool exe_wants_nothing(ProcessWatch *w, pid_t pid, const GPtrArray *memberships, char **ret_exe) {
        char path[64], buf[4096];
        ProcessWant want = { .knobs.ksm = -1 };
        ssize_t n;
        bool nothing;

        snprintf(path, sizeof(path), "/proc/%d/exe", (int) pid);
        n = readlink(path, buf, sizeof(buf) - 1);
        if (n <= 0)
                return false; /* the helper will see */
        buf[n] = '\0';
        process_want_for(w->manager->policies, memberships, buf, &want);
        nothing = want.knobs.ksm < 0 && !want.knobs.mempolicy;
        process_want_clear(&want);
        if (nothing)
                *ret_exe = g_strdup(buf);
        return nothing;
}

/* Nothing says when a process exits, and a scan of the subject may be long
 * in coming: each record made for an exec first takes those of the
 * subject's processes that are gone, so that they cannot pile up. */
static void forget_exited(ProcessWatch *w, const char *key) {
        g_autoptr(GPtrArray) gone = g_ptr_array_new();
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                ProcessRecord *r = value;
                if (streq_ptr(r->subject, key) && !r->call && record_is_stale(r))
                        g_ptr_array_add(gone, r);
        }
        for (guint i = 0; i < gone->len; i++)
                forget_record(w, g_ptr_array_index(gone, i));
}

/* The subject whose cgroup is nearest, as read_procs_of() has it, where
 * its processes' knobs follow exec. */
static Subject *exec_subject(ProcessWatch *w, const char *cgroup, const char **ret_key) {
        const char *key;
        Subject *s;

        if (!w || !w->active)
                return NULL;
        key = subject_of_cgroup(w, cgroup);
        s = key ? manager_find_subject(w->manager, key) : NULL;
        /* Without Executable=, the new program inherits what the old had. */
        if (!s || !process_knobs_follow_exec(w->manager->policies, s->memberships))
                return NULL;
        if (ret_key)
                *ret_key = key;
        return s;
}

bool process_watch_exec_matters(ProcessWatch *w, const char *cgroup) {
        return exec_subject(w, cgroup, NULL);
}

void process_watch_process_exec(ProcessWatch *w, pid_t pid, const char *cgroup) {
        const char *key = NULL;
        Subject *s;
        ProcessRecord *r;
        uint64_t t;

        if (pid == getpid())
                return;
        s = exec_subject(w, cgroup, &key);
        if (!s)
                return;
        if (read_start_time(pid, &t) < 0)
                return; /* exited already */
        g_autofree char *subject = g_strdup(key); /* borrowed from a table */

        r = g_hash_table_lookup(w->records, GINT_TO_POINTER(pid));
        if (r && r->start_time != t) {
                forget_record(w, r);
                r = NULL;
        }
        g_autofree char *exe = NULL;
        if ((!r || (!record_holds_something(r) && !r->call && r->method != PROCESS_PENDING)) &&
            exe_wants_nothing(w, pid, s->memberships, &exe)) {
                if (r) {
                        g_free(r->exe);
                        r->exe = TAKE_PTR(exe);
                        set_outcome(r, PROCESS_SKIPPED, g_strdup("Executable= of its groups does not match"));
                        r->generation = w->generation;
                }
                return;
        }
        if (!r) {
                forget_exited(w, subject);
                r = record_new(w, pid, t, subject);
        }
        if (!streq_ptr(r->subject, subject)) {
                g_free(r->subject);
                r->subject = g_strdup(subject);
        }
        log_debug("PID %d exec'd in %s: looking at it again.", (int) pid, subject);
        decide(w, r); /* the query reads the new executable */
}

void process_watch_rescan(ProcessWatch *w) {
        GHashTableIter it;
        gpointer value;

        if (!w)
                return;
        /* A process that exec'd unseen keeps its PID: decide it again where
         * Executable= matters. New PIDs get records in the scan anyway. */
        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                ProcessRecord *r = value;
                Subject *s = record_subject(w, r);
                if (s && process_knobs_follow_exec(w->manager->policies, s->memberships))
                        r->generation = w->generation - 1;
        }
        g_hash_table_iter_init(&it, w->watch_by_wd);
        while (g_hash_table_iter_next(&it, NULL, &value))
                queue_scan(w, ((WatchedCgroup *) value)->subject);
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
        note_subject_cgroup(w, key, s->cgroup);
        c = g_hash_table_lookup(w->watch_by_subject, key);
        if (c && !streq_ptr(c->cgroup, s->cgroup)) {
                unwatch(w, c);
                c = NULL;
        }
        wanted = subject_wanted(w, s);
        if (isempty(s->cgroup) || (!wanted && !w->watching_all)) {
                if (c)
                        unwatch(w, c);
                /* Nothing to set here and nothing held anywhere: what is
                 * left of it is history. */
                g_autoptr(GPtrArray) idle = g_ptr_array_new();
                GHashTableIter it;
                gpointer value;
                g_hash_table_iter_init(&it, w->records);
                while (g_hash_table_iter_next(&it, NULL, &value)) {
                        ProcessRecord *r = value;
                        if (streq_ptr(r->subject, key) && !r->call && !record_matters_elsewhere(r))
                                g_ptr_array_add(idle, r);
                }
                for (guint i = 0; i < idle->len; i++)
                        forget_record(w, g_ptr_array_index(idle, i));
                return;
        }
        if (!c && watch(w, s, &c) < 0)
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
                queue_scan(w, key);
}

/* At the end of a scan pass: start or stop watching every cgroup. */
static void update_watch_mode(ProcessWatch *w) {
        bool all = false;
        GHashTableIter it;
        gpointer value;

        w->watch_mode_dirty = false;
        g_hash_table_iter_init(&it, w->records);
        while (!all && g_hash_table_iter_next(&it, NULL, &value))
                all = record_matters_elsewhere(value);
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
                if (r->subject && record_matters_elsewhere(r))
                        queue_scan(w, r->subject);
        }
}

void process_watch_subject_gone(ProcessWatch *w, const char *key) {
        WatchedCgroup *c;

        if (!w)
                return;
        c = g_hash_table_lookup(w->watch_by_subject, key);
        if (c)
                unwatch(w, c);
        note_subject_cgroup(w, key, NULL);
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
                if (!r->call && record_is_stale(r))
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
                if (!r->subject && !record_is_stale(r))
                        decide(w, r);
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

static void load_records(ProcessWatch *w) {
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
                if (pid <= 0 || read_start_time(pid, &t) < 0 || t != start)
                        continue; /* exited while policyd was not running */
                ProcessRecord *r = record_new(w, pid, start, NULL);
                r->applied.ksm = (int) g_ascii_strtoll(f[2], NULL, 10) == 1 ? 1 : -1;
                r->applied.mempolicy = streq(f[3], "-") ? NULL : g_strdup(f[3]);
                r->method = PROCESS_INJECTED;
                r->detail = g_strdup("set by policyd before it restarted");
                track_exit(w, r);
                loaded++;
        }
        if (loaded > 0)
                log_info("%u running processes hold values policyd set before it restarted.", loaded);
}

GPtrArray *process_watch_records(ProcessWatch *w, const char *key) {
        GPtrArray *out = g_ptr_array_new();
        g_autoptr(GPtrArray) exited = g_ptr_array_new();
        GHashTableIter it;
        gpointer value;

        /* Records of processes that exited since their cgroup was read. */
        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value))
                if (!((ProcessRecord *) value)->call && record_is_stale(value))
                        g_ptr_array_add(exited, value);
        for (guint i = 0; i < exited->len; i++)
                forget_record(w, g_ptr_array_index(exited, i));

        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value))
                if (!key || streq_ptr(((ProcessRecord *) value)->subject, key))
                        g_ptr_array_add(out, value);
        g_ptr_array_sort(out, record_pid_compare);
        return out;
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

unsigned process_watch_count_holding(ProcessWatch *w) {
        g_autoptr(GPtrArray) records = NULL;
        unsigned n = 0;

        if (!w)
                return 0;
        records = process_watch_records(w, NULL);
        for (guint i = 0; i < records->len; i++) {
                const ProcessRecord *r = g_ptr_array_index(records, i);
                if (record_holds_something(r)) {
                        bool both = r->applied.ksm == 1 && r->applied.mempolicy;
                        log_warning("PID %i still holds what policyd set (%s%s%s): %s", (int) r->pid,
                                    r->applied.ksm == 1 ? "KSM=yes" : "", both ? ", " : "",
                                    r->applied.mempolicy ? r->applied.mempolicy : "", strempty(r->detail));
                        n++;
                }
        }
        return n;
}

char *process_watch_describe(ProcessWatch *w) {
        if (!w->active && g_hash_table_size(w->records) == 0)
                return g_strdup("off: no group sets KSM=, NUMAPolicy= or NUMANodes=");
        unsigned mains = g_hash_table_size(w->watch_by_subject);
        g_autofree char *execs = exec_watch_describe(w->manager->exec_events);
        return g_strdup_printf("inotify on %u cgroups (%s) and %u watches below them; %s; injector %s%s", mains,
                               w->watching_all ? "all running units: some process holds what policyd set"
                                               : "members whose groups set KSM=, NUMAPolicy= or NUMANodes=",
                               g_hash_table_size(w->watch_by_wd) - mains, execs, w->socket_path,
                               w->injector_missing_logged ? " (not reachable)" : "");
}

int process_watch_new(Manager *m, ProcessWatch **ret) {
        g_autofree ProcessWatch *w = g_new0(ProcessWatch, 1);
        int k;

        w->manager = m;
        w->socket_path = g_strdup(getenv("POLICYD_INJECT_SOCKET") ?: INJECT_SOCKET_PATH);
        w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->inotify_fd < 0) {
                k = negative_errno();
                g_free(w->socket_path);
                return k;
        }
        w->watch_by_wd = g_hash_table_new_full(NULL, NULL, NULL, watched_cgroup_free);
        w->watch_by_subject = g_hash_table_new(g_str_hash, g_str_equal);
        w->watch_by_cgroup = g_hash_table_new(g_str_hash, g_str_equal);
        w->subject_by_cgroup = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        w->cgroup_by_subject = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        w->records = g_hash_table_new_full(NULL, NULL, NULL, record_free);
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

        k = sd_event_add_io(m->event, &w->inotify_source, w->inotify_fd, EPOLLIN, on_inotify, w);
        if (k >= 0)
                k = sd_event_add_defer(m->event, &w->scan_defer, on_scan, w);
        if (k >= 0)
                k = sd_event_source_set_enabled(w->scan_defer, SD_EVENT_OFF);
        if (k >= 0)
                k = sd_event_add_time(m->event, &w->retry_timer, CLOCK_MONOTONIC, UINT64_MAX, 0, on_retry, w);
        if (k >= 0)
                k = sd_event_source_set_enabled(w->retry_timer, SD_EVENT_OFF);
        if (k >= 0)
                k = sd_event_add_time(m->event, &w->held_timer, CLOCK_MONOTONIC, UINT64_MAX, 0, on_held_timer, w);
        if (k >= 0)
                k = sd_event_source_set_enabled(w->held_timer, SD_EVENT_OFF);
        if (k >= 0) {
                load_records(w);
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
        /* Records first: their calls hold event sources. */
        g_clear_pointer(&w->records, g_hash_table_unref);
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
        g_free(w->socket_path);
        g_free(w->state_path);
        g_free(w);
        return NULL;
}
