/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup-apply.h"
#include "manager.h"
#include "process-watch-internal.h"
#include "util.h"

/* Scanning: which subject a cgroup is, and which processes a subject's
 * cgroup and those below it hold now; each is recorded and decided. */

/* A cgroup and its children: enough for any unit's own subtree. */
#define PROCS_DEPTH_MAX 16

void process_scan_note_subject_cgroup(ProcessWatch *w, const char *key, const char *cgroup) {
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

bool process_scan_is_subject_cgroup(ProcessWatch *w, const char *cgroup) {
        return g_hash_table_contains(w->subject_by_cgroup, cgroup);
}

/* The subject whose cgroup is the nearest at or above this one. */
const char *process_scan_subject_of_cgroup(ProcessWatch *w, const char *cgroup) {
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

/* Visits the cgroup at DIR_FD and those below it, except the cgroups of
 * other subjects and what is below them (a slice's units, say): a process
 * belongs to the subject whose cgroup is nearest. */
void process_scan_walk_own_subtree(ProcessWatch *w, int dir_fd, const char *cgroup, unsigned depth, CgroupVisit visit,
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
                if (process_scan_is_subject_cgroup(w, child))
                        continue;
                _cleanup_close_ int sub = openat(dir_fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub >= 0)
                        process_scan_walk_own_subtree(w, sub, child, depth + 1, visit, data);
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

/* charge_uid: the owner of a cgroup.procs written to (0: none, root's, or
 * not a move); the calls for the processes it decides are charged to it.
 * Without one, to the owner of the subject's cgroup.procs: whatever made
 * policyd look (a new cgroup below, an assignment, a reload), the calls for
 * a user's processes cost that user's budget, or a user could fork in their
 * cgroup and have policyd look with a mkdir there, uncharged. */
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
        wanted = process_decide_subject_wanted(w, s);
        if (cgroup_open_dir(w->manager->cgroup_root, s->cgroup, &dir_fd) >= 0) {
                struct stat st;
                if (charge_uid == 0 && fstatat(dir_fd, "cgroup.procs", &st, AT_SYMLINK_NOFOLLOW) == 0)
                        charge_uid = st.st_uid;
                process_scan_walk_own_subtree(w, dir_fd, s->cgroup, 0, read_procs, pids);
        }

        for (guint i = 0; i < pids->len; i++) {
                pid_t pid = g_array_index(pids, pid_t, i);
                ProcessRecord *r = g_hash_table_lookup(w->records, GINT_TO_POINTER(pid));
                uint64_t t;

                if (pid == getpid() || process_procfs_read_start_time(pid, &t) < 0)
                        continue;
                /* A process first seen here: is it the one listed? */
                if ((!r || r->start_time != t) && process_procfs_read_start_time_in(pid, s->cgroup, &t) < 0)
                        continue;
                g_hash_table_add(seen, GINT_TO_POINTER(pid));
                if (r && r->start_time != t) {
                        process_record_forget(w, r);
                        r = NULL;
                }
                if (!r) {
                        if (!wanted)
                                continue; /* nothing to do, nor to undo */
                        r = process_record_new(w, pid, t, key);
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
                        process_decide(w, r);
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
                if (process_record_is_stale(r) || process_procfs_read_cgroup(r->pid, &cgroup) < 0) {
                        process_record_forget(w, r);
                        continue;
                }
                const char *there = process_scan_subject_of_cgroup(w, cgroup);
                Subject *ts = there ? manager_find_subject(w->manager, there) : NULL;
                g_clear_pointer(&r->subject, g_free);
                if (ts && (process_record_holds_something(r) || process_decide_subject_wanted(w, ts)))
                        process_scan_add(w, there, charge_uid);
                else if (process_record_holds_something(r)) {
                        if (charge_uid != 0)
                                r->charge_uid = charge_uid;
                        process_decide(w, r); /* no groups where it went: undo */
                }
                else
                        process_record_forget(w, r);
        }
}

int process_scan_on_defer(sd_event_source *source, void *userdata) {
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
                        if (process_record_is_stale(r))
                                process_record_forget(w, r);
                        else
                                process_decide(w, r);
                }
        }
        if (w->watch_mode_dirty && w->startup_done)
                process_watch_update_mode(w);
        return 0;
}

/* A scan of key; charge_uid as scan_subject() takes it. A move's charge
 * stays when the same scan is queued again for another reason. */
void process_scan_add(ProcessWatch *w, const char *key, uid_t charge_uid) {
        gpointer old = NULL;

        if (g_hash_table_lookup_extended(w->scans, key, NULL, &old) && GPOINTER_TO_UINT(old) != 0 &&
            charge_uid == 0)
                return;
        g_hash_table_insert(w->scans, g_strdup(key), GUINT_TO_POINTER((guint) charge_uid));
        (void) sd_event_source_set_enabled(w->scan_defer, SD_EVENT_ONESHOT);
}

void process_scan_queue(ProcessWatch *w, const char *key) {
        process_scan_add(w, key, 0);
}
