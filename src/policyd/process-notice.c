/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup-apply.h"
#include "log.h"
#include "manager.h"
#include "process-watch-internal.h"
#include "util.h"

/* Noticing: inotify on the cgroup.procs of watched subjects and of the
 * cgroups below them, and exec events that exec-watch.c hands in. What is
 * noticed becomes a scan (process-scan.c) or a record decided again. */

/* Below a watched subject's cgroup, the cgroups that are no subject's own
 * (a delegated subtree: a container, a user manager's apps) are watched
 * too, up to this many a subject. */
#define BELOW_WATCHES_MAX 512

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

void process_notice_unwatch(ProcessWatch *w, WatchedCgroup *c) {
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

        assert(owner->main && owner->below);
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

int process_notice_watch(ProcessWatch *w, Subject *s, WatchedCgroup **ret) {
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
                process_scan_walk_own_subtree(w, dir_fd, s->cgroup, 0, watch_one_below, c);
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

        if (!owner || process_scan_is_subject_cgroup(w, child) ||
            cgroup_open_dir(w->manager->cgroup_root, child, &dir_fd) < 0)
                return;
        process_scan_walk_own_subtree(w, dir_fd, child, 1, watch_one_below, owner);
        process_scan_queue(w, subject);
}

int process_notice_on_inotify(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
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
                                process_scan_queue(w, ((WatchedCgroup *) value)->subject);
                } else if (c && (e->mask & IN_IGNORED))
                        forget_watch(w, c); /* the cgroup is gone; the kernel dropped the watch */
                else if (c && c->directory && (e->mask & IN_CREATE) && (e->mask & IN_ISDIR) && e->len > 0)
                        new_cgroup_below(w, c, e->name);
                else if (c && !c->directory)
                        process_scan_add(w, c->subject, procs_owner(w, c->cgroup));
                p += sizeof(struct inotify_event) + e->len;
        }
        return 0;
}

/* The subject whose cgroup is nearest, as read_procs_of() has it, where
 * its processes' knobs follow exec. */
static Subject *exec_subject(ProcessWatch *w, const char *cgroup, const char **ret_key) {
        const char *key;
        Subject *s;

        if (!w || !w->active)
                return NULL;
        key = process_scan_subject_of_cgroup(w, cgroup);
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
        if (process_procfs_read_start_time(pid, &t) < 0)
                return; /* exited already */
        g_autofree char *subject = g_strdup(key); /* borrowed from a table */

        r = g_hash_table_lookup(w->records, GINT_TO_POINTER(pid));
        if (r && r->start_time != t) {
                process_record_forget(w, r);
                r = NULL;
        }
        g_autofree char *exe = NULL;
        if ((!r || (!process_record_holds_something(r) && !r->call && r->method != PROCESS_PENDING)) &&
            process_decide_exe_wants_nothing(w, pid, s->memberships, &exe)) {
                if (r) {
                        g_free(r->exe);
                        r->exe = TAKE_PTR(exe);
                        process_record_set_outcome(r, PROCESS_SKIPPED,
                                                   g_strdup("Executable= of its groups does not match"));
                        r->generation = w->generation;
                }
                return;
        }
        if (!r) {
                process_records_forget_exited(w, subject);
                r = process_record_new(w, pid, t, subject);
        }
        if (!streq_ptr(r->subject, subject)) {
                g_free(r->subject);
                r->subject = g_strdup(subject);
        }
        log_debug("PID %d exec'd in %s: looking at it again.", (int) pid, subject);
        /* A user's execs cost that user's budget, as their moves do. */
        uid_t owner = procs_owner(w, cgroup);
        if (owner != 0)
                r->charge_uid = owner;
        process_decide(w, r); /* the query reads the new executable */
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
                Subject *s = process_record_subject(w, r);
                if (s && process_knobs_follow_exec(w->manager->policies, s->memberships))
                        r->generation = w->generation - 1;
        }
        g_hash_table_iter_init(&it, w->watch_by_wd);
        while (g_hash_table_iter_next(&it, NULL, &value))
                process_scan_queue(w, ((WatchedCgroup *) value)->subject);
}
