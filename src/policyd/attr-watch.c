/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "attr-watch.h"
#include "cgroup-apply.h"
#include "log.h"
#include "manager.h"
#include "util.h"

/* One parent directory, watched for all its children that are subjects. */
typedef struct WatchedParent {
        int wd;
        int dir_fd;      /* its directory, for openat() of a child that changed */
        char *cgroup;
        ino_t ino;       /* of the directory watched: a new one under the same name needs a new watch */
        /* child's name → WatchedChild*, borrowed: the first of those with
         * that cgroup (same_name links the others) */
        GHashTable *children;
} WatchedParent;

/* One subject's cgroup, and the parent that reports it. */
typedef struct WatchedChild {
        char *key;
        char *cgroup;
        const char *name;       /* in cgroup: its last component */
        WatchedParent *parent;
        /* Its directory and knob files, kept open once its attributes
         * changed (a focus change comes again): closed when the parent says
         * it was removed (IN_DELETE), so that one made again under the name
         * is opened. */
        CgroupHandle *handle;
        bool changed;           /* listed for the manager in this wakeup */
        /* The next subject of the same cgroup, such as user@UID.service and
         * its manager's -.slice. */
        struct WatchedChild *same_name;
} WatchedChild;

/* Kept open at most: each holds up to three file descriptors (its directory
 * and two knob files) while its unit runs; the soft limit is 1024. */
#define OPEN_CHILDREN_MAX 128

struct AttrWatch {
        Manager *manager;
        int inotify_fd;
        sd_event_source *source;
        bool armed;
        char *unavailable;      /* why a watch failed, said once; NULL: none failed */
        GHashTable *children;   /* subject key → WatchedChild*, owned */
        GHashTable *parents;    /* parent cgroup → WatchedParent*, owned */
        unsigned open_children; /* with a handle */
        CgroupHandle *spare;    /* a child opened past OPEN_CHILDREN_MAX, or for once, until the next open */
        GHashTable *by_wd;      /* wd → WatchedParent*, borrowed */
        /* InactiveFor=: subject key → its deadline (uint64_t*), for those
         * that wait for one; one timer, at the earliest. */
        GHashTable *waiting;
        sd_event_source *deadline_timer;
};

static void watched_parent_free(void *p) {
        WatchedParent *parent = p;
        safe_close(parent->dir_fd);
        g_hash_table_unref(parent->children);
        g_free(parent->cgroup);
        g_free(parent);
}

static void watched_child_free(void *p) {
        WatchedChild *c = p;
        cgroup_handle_free(c->handle);
        g_free(c->key);
        g_free(c->cgroup);
        g_free(c);
}

static void close_child(AttrWatch *w, WatchedChild *c) {
        if (!c->handle)
                return;
        /* Counted when attr_watch_cgroup() kept it. */
        assert(w->open_children > 0);
        c->handle = cgroup_handle_free(c->handle);
        w->open_children--;
}

/* The directories under it may be other ones now. */
static void close_children_of(AttrWatch *w, WatchedParent *parent) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, parent->children);
        while (g_hash_table_iter_next(&it, NULL, &value))
                for (WatchedChild *c = value; c; c = c->same_name)
                        close_child(w, c);
}

static void parent_add_child(WatchedParent *parent, WatchedChild *c) {
        /* A new child, in no parent's list yet. */
        assert(parent && c && c->name);
        assert(!c->parent && !c->same_name);
        c->parent = parent;
        c->same_name = g_hash_table_lookup(parent->children, c->name);
        /* replace: the key is the new first one's name */
        g_hash_table_replace(parent->children, (char *) c->name, c);
}

static void parent_remove_child(WatchedParent *parent, WatchedChild *c) {
        WatchedChild *first = g_hash_table_lookup(parent->children, c->name);

        /* parent_add_child() put c in this parent's list, under its name. */
        assert(c->parent == parent && first);
        if (first == c) {
                if (c->same_name)
                        g_hash_table_replace(parent->children, (char *) c->same_name->name, c->same_name);
                else
                        g_hash_table_remove(parent->children, c->name);
        } else
                for (WatchedChild *p = first; p; p = p->same_name)
                        if (p->same_name == c) {
                                p->same_name = c->same_name;
                                break;
                        }
        c->same_name = NULL;
        c->parent = NULL;
}

/* "/a/b" → "/a"; "/a" → "/". */
static char *cgroup_parent(const char *cgroup) {
        const char *slash = strrchr(cgroup, '/');
        return slash == cgroup ? g_strdup("/") : g_strndup(cgroup, (size_t) (slash - cgroup));
}

/* Its children stay, without a parent, until they are applied again. */
static void drop_parent(AttrWatch *w, WatchedParent *parent, bool remove_watch) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, parent->children);
        while (g_hash_table_iter_next(&it, NULL, &value))
                for (WatchedChild *c = value, *next; c; c = next) {
                        next = c->same_name;
                        close_child(w, c);
                        c->parent = NULL;
                        c->same_name = NULL;
                }
        if (remove_watch)
                (void) inotify_rm_watch(w->inotify_fd, parent->wd);
        g_hash_table_remove(w->by_wd, GINT_TO_POINTER(parent->wd));
        g_hash_table_remove(w->parents, parent->cgroup); /* frees it */
}

static void unwatch_child(AttrWatch *w, const char *key) {
        WatchedChild *c = g_hash_table_lookup(w->children, key);

        if (!c)
                return;
        close_child(w, c);
        if (c->parent) {
                WatchedParent *parent = c->parent;
                parent_remove_child(parent, c);
                if (g_hash_table_size(parent->children) == 0)
                        drop_parent(w, parent, true);
        }
        g_hash_table_remove(w->children, key); /* frees it */
}

static void say_unavailable(AttrWatch *w, const char *cgroup, int error) {
        if (w->unavailable)
                return;
        w->unavailable = g_strdup_printf("cannot watch %s: %s", cgroup, g_strerror(-error));
        log_warning("Cannot watch cgroup %s for attribute changes (%s): changes of [Match] XAttr= attributes and "
                    "self-requests there are seen only when the unit is read again%s.",
                    cgroup, g_strerror(-error), error == -ENOSPC ? "; raise fs.inotify.max_user_watches" : "");
}

/* A watch on the directory dir_fd (the cgroup's parent, opened by the
 * careful walk: no symlink on the way), reused while it is the same one.
 * It takes dir_fd when it makes a watch. */
static WatchedParent *watch_parent(AttrWatch *w, const char *cgroup, int *dir_fd, ino_t ino) {
        WatchedParent *parent = g_hash_table_lookup(w->parents, cgroup);
        char path[64];
        int wd;

        if (parent && parent->ino == ino)
                return parent;
        snprintf(path, sizeof(path), "/proc/self/fd/%d", *dir_fd);
        /* IN_DELETE: a child's open directory is then one removed. (cgroup2
         * has no rename.) */
        wd = inotify_add_watch(w->inotify_fd, path, IN_ATTRIB | IN_DELETE | IN_ONLYDIR);
        if (wd < 0) {
                say_unavailable(w, cgroup, negative_errno());
                return NULL;
        }
        if (parent) {
                /* Removed and made again (a cgroup assigned by path): the old
                 * watch is on a directory that is gone. Its children keep the
                 * entry, now on the new one. */
                (void) inotify_rm_watch(w->inotify_fd, parent->wd);
                g_hash_table_remove(w->by_wd, GINT_TO_POINTER(parent->wd));
                safe_close(parent->dir_fd);
                close_children_of(w, parent);
        } else {
                parent = g_new0(WatchedParent, 1);
                parent->cgroup = g_strdup(cgroup);
                parent->children = g_hash_table_new(g_str_hash, g_str_equal);
                g_hash_table_insert(w->parents, parent->cgroup, parent);
        }
        parent->wd = wd;
        parent->dir_fd = TAKE_FD(*dir_fd);
        parent->ino = ino;
        g_hash_table_insert(w->by_wd, GINT_TO_POINTER(wd), parent);
        return parent;
}

static int on_deadline(sd_event_source *source, uint64_t usec, void *userdata);

static void arm_deadline_timer(AttrWatch *w) {
        GHashTableIter it;
        gpointer value;
        uint64_t next = FOCUS_UNSET;
        int k;

        g_hash_table_iter_init(&it, w->waiting);
        while (g_hash_table_iter_next(&it, NULL, &value))
                next = MIN(next, *(uint64_t *) value);
        if (next == FOCUS_UNSET) {
                (void) sd_event_source_set_enabled(w->deadline_timer, SD_EVENT_OFF);
                return;
        }
        if (w->deadline_timer) {
                k = sd_event_source_set_time(w->deadline_timer, next);
                if (k >= 0)
                        k = sd_event_source_set_enabled(w->deadline_timer, SD_EVENT_ONESHOT);
        } else
                k = sd_event_add_time(w->manager->event, &w->deadline_timer, CLOCK_MONOTONIC, next, 0, on_deadline, w);
        if (k < 0)
                log_warning_errno(k, "Cannot set a timer for InactiveFor=: its groups are joined only when a unit "
                                     "is read again: %m");
}

static void set_deadline(AttrWatch *w, const char *key, uint64_t deadline) {
        if (deadline == FOCUS_UNSET) {
                g_hash_table_remove(w->waiting, key);
                return;
        }
        uint64_t *at = g_hash_table_lookup(w->waiting, key);
        if (at && *at == deadline)
                return;
        at = g_new(uint64_t, 1);
        *at = deadline;
        g_hash_table_replace(w->waiting, g_strdup(key), at);
        arm_deadline_timer(w);
}

/* The subjects whose InactiveFor= time has come are resolved again (they
 * leave the table there, and come back only with a new deadline). */
static int on_deadline(sd_event_source *source, uint64_t usec, void *userdata) {
        AttrWatch *w = userdata;
        g_autoptr(GPtrArray) due = g_ptr_array_new_with_free_func(g_free);
        GHashTableIter it;
        gpointer key, value;

        g_hash_table_iter_init(&it, w->waiting);
        while (g_hash_table_iter_next(&it, &key, &value))
                if (*(uint64_t *) value <= usec) {
                        g_ptr_array_add(due, g_strdup(key));
                        g_hash_table_iter_remove(&it);
                }
        for (guint i = 0; i < due->len; i++)
                (void) manager_cgroup_attributes_changed(w->manager, g_ptr_array_index(due, i), true);
        arm_deadline_timer(w);
        return 0;
}

void attr_watch_subject_applied(AttrWatch *w, const Subject *s, uint64_t focus_deadline_usec, bool parent_current) {
        const char *key = subject_key(s);
        _cleanup_close_ int dir_fd = -1;
        WatchedChild *c;
        struct stat st;
        int k;

        if (!w || !w->armed || isempty(s->cgroup) || streq(s->cgroup, "/"))
                return;
        set_deadline(w, key, focus_deadline_usec);

        g_autofree char *parent_cgroup = cgroup_parent(s->cgroup);
        /* Every apply comes here, and the usual case is that nothing
         * changed: one stat says so. (Its path may cross a symlink, which
         * cgroupfs has none of; the watch itself goes through the careful
         * walk below.) */
        c = g_hash_table_lookup(w->children, key);
        if (c && c->parent && streq(c->cgroup, s->cgroup)) {
                if (parent_current)
                        return;
                g_autofree char *path = g_build_filename(w->manager->cgroup_root, parent_cgroup, NULL);
                if (stat(path, &st) >= 0 && st.st_ino == c->parent->ino)
                        return;
        }

        k = cgroup_open_dir(w->manager->cgroup_root, parent_cgroup, &dir_fd);
        if (k >= 0 && fstat(dir_fd, &st) < 0)
                k = negative_errno();
        if (k < 0) {
                if (!errno_is_vanished(k))
                        say_unavailable(w, parent_cgroup, k);
                unwatch_child(w, key);
                return;
        }
        c = g_hash_table_lookup(w->children, key);
        if (c && c->parent && streq(c->cgroup, s->cgroup) && c->parent->ino == st.st_ino)
                return;
        unwatch_child(w, key);

        WatchedParent *parent = watch_parent(w, parent_cgroup, &dir_fd, st.st_ino);
        if (!parent)
                return;
        c = g_new0(WatchedChild, 1);
        c->key = g_strdup(key);
        c->cgroup = g_strdup(s->cgroup);
        c->name = strrchr(c->cgroup, '/') + 1;
        g_hash_table_insert(w->children, c->key, c);
        parent_add_child(parent, c);
}

CgroupHandle *attr_watch_cgroup(AttrWatch *w, const char *key, const char *cgroup, bool keep) {
        WatchedChild *c = w ? g_hash_table_lookup(w->children, key) : NULL;
        int fd;

        if (!c || !c->parent || c->parent->dir_fd < 0 || !streq(c->cgroup, cgroup))
                return NULL;
        if (keep && c->handle)
                return c->handle;
        w->spare = cgroup_handle_free(w->spare);
        /* The parent removed and made again: its fd is of the old one,
         * where nothing is found; the caller walks then. */
        fd = openat(c->parent->dir_fd, c->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        if (!keep || w->open_children >= OPEN_CHILDREN_MAX)
                return (w->spare = cgroup_handle_new(fd));
        w->open_children++;
        return (c->handle = cgroup_handle_new(fd));
}

void attr_watch_subject_gone(AttrWatch *w, const char *key) {
        if (!w)
                return;
        unwatch_child(w, key);
        g_hash_table_remove(w->waiting, key); /* the timer fires for nothing at most once */
}

static void unwatch_all(AttrWatch *w) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, w->parents);
        while (g_hash_table_iter_next(&it, NULL, &value))
                (void) inotify_rm_watch(w->inotify_fd, ((WatchedParent *) value)->wd);
        g_hash_table_remove_all(w->children); /* closes their directories */
        w->open_children = 0;
        w->spare = cgroup_handle_free(w->spare);
        g_hash_table_remove_all(w->by_wd);
        g_hash_table_remove_all(w->parents);
        g_hash_table_remove_all(w->waiting);
        (void) sd_event_source_set_enabled(w->deadline_timer, SD_EVENT_OFF);
}

/* Reads at most this many buffers of events per wakeup: a user who rewrites
 * an attribute of theirs in a loop must not keep policyd reading. */
#define READS_PER_WAKEUP 16
#define ATTRIBUTE_WAKEUPS_INTERVAL_USEC 1000000
#define ATTRIBUTE_WAKEUPS_BURST 20

/* Reads at most max_reads buffers of events, and lists each changed
 * child's key once in changed. */
static void read_events(AttrWatch *w, int fd, unsigned max_reads, GPtrArray *changed, bool *overflow) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

        for (unsigned i = 0; i < max_reads; i++) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n <= 0)
                        break;
                /* Room for another event left over: the queue was empty
                 * (what comes after wakes the loop again), and a read
                 * to hear EAGAIN is a syscall at every change. */
                bool drained = (size_t) n <= sizeof(buf) - sizeof(struct inotify_event) - NAME_MAX - 1;
                for (char *p = buf; p < buf + n;) {
                        const struct inotify_event *e = (const struct inotify_event *) p;
                        WatchedParent *parent = g_hash_table_lookup(w->by_wd, GINT_TO_POINTER(e->wd));
                        WatchedChild *c;

                        p += sizeof(struct inotify_event) + e->len;
                        if (e->mask & IN_Q_OVERFLOW)
                                *overflow = true;
                        else if (!parent)
                                continue;
                        else if (e->mask & IN_IGNORED)
                                /* The directory is gone: its children are watched
                                 * again when they are applied again. */
                                drop_parent(w, parent, false);
                        else if (e->len == 0 || !(c = g_hash_table_lookup(parent->children, e->name)))
                                continue;
                        else
                                for (; c; c = c->same_name)
                                        if (e->mask & IN_DELETE)
                                                /* Read before the events after it: a cgroup
                                                 * made again under the name is opened anew. */
                                                close_child(w, c);
                                        else if ((e->mask & IN_ATTRIB) && !c->changed) {
                                                c->changed = true;
                                                g_ptr_array_add(changed, g_strdup(c->key));
                                        }
                }
                if (drained)
                        break;
        }
}

/* Each changed cgroup's subject once, to the manager, after all events are
 * read. Applying may drop or replace entries of the tables, so the keys
 * are copies. Returns whether any was applied. */
static bool hand_over(AttrWatch *w, GPtrArray *changed, bool overflow) {
        bool applied = false;

        if (overflow) {
                GHashTableIter it;
                gpointer value;

                log_info("Missed cgroup attribute changes (inotify queue overflow): reading every watched cgroup's "
                         "attributes again.");
                g_hash_table_iter_init(&it, w->children);
                while (g_hash_table_iter_next(&it, NULL, &value)) {
                        WatchedChild *c = value;
                        /* A removal may be among the events missed. */
                        close_child(w, c);
                        if (!c->changed) {
                                c->changed = true;
                                g_ptr_array_add(changed, g_strdup(c->key));
                        }
                }
        }
        for (guint i = 0; i < changed->len; i++) {
                WatchedChild *c = g_hash_table_lookup(w->children, g_ptr_array_index(changed, i));
                c->changed = false;
        }
        for (guint i = 0; i < changed->len; i++)
                applied |= manager_cgroup_attributes_changed(w->manager, g_ptr_array_index(changed, i), false);
        return applied;
}

static int on_inotify(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        AttrWatch *w = userdata;
        g_autoptr(GPtrArray) changed = g_ptr_array_new_with_free_func(g_free);
        bool overflow = false;

        read_events(w, fd, READS_PER_WAKEUP, changed, &overflow);
        if (!hand_over(w, changed, overflow))
                return 0;
        /* The applies wrote xattrs (the group tag), whose events are queued
         * already: fsnotify is synchronous. They are read now rather than
         * after another turn of the loop, the cost of every focus change.
         * Once: what that applies again waits for the next wakeup. */
        g_ptr_array_set_size(changed, 0);
        overflow = false;
        read_events(w, fd, 1, changed, &overflow);
        (void) hand_over(w, changed, overflow);
        return 0;
}

void attr_watch_policies_changed(AttrWatch *w) {
        Manager *m;
        bool armed;

        if (!w)
                return;
        m = w->manager;
        /* --once applies and exits: no later change could matter. */
        armed = w->inotify_fd >= 0 && !m->once && policy_set_reads_attributes(m->policies);
        if (armed == w->armed)
                return;
        w->armed = armed;
        g_clear_pointer(&w->unavailable, g_free);
        if (!armed) {
                unwatch_all(w);
                (void) sd_event_source_set_enabled(w->source, SD_EVENT_OFF);
                return;
        }
        (void) sd_event_source_set_enabled(w->source, SD_EVENT_ON);

        GHashTableIter it;
        gpointer value;
        g_hash_table_iter_init(&it, m->subjects);
        while (g_hash_table_iter_next(&it, NULL, &value))
                if (subject_is_running(value))
                        attr_watch_subject_applied(w, value, FOCUS_UNSET, false);
}

char *attr_watch_describe(const AttrWatch *w) {
        if (!w || w->inotify_fd < 0)
                return g_strdup("unavailable (no inotify): seen when a unit is read again");
        if (!w->armed)
                return g_strdup("not watched: no group has [Match] XAttr=, Focused=, InactiveFor= or AllowSelfAssign=yes");
        return g_strdup_printf("inotify IN_ATTRIB on %u directories, for %u cgroups; %u waiting for InactiveFor=%s%s%s%s",
                               g_hash_table_size(w->parents), g_hash_table_size(w->children),
                               g_hash_table_size(w->waiting),
                               sd_event_source_is_ratelimited(w->source) > 0
                                       ? "; paused for a moment: attributes change too fast"
                                       : "",
                               w->unavailable ? "; unavailable in places (" : "", strempty(w->unavailable),
                               w->unavailable ? "): seen there when a unit is read again" : "");
}

int attr_watch_new(Manager *m, AttrWatch **ret) {
        g_autofree AttrWatch *w = g_new0(AttrWatch, 1);
        int k;

        w->manager = m;
        w->children = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, watched_child_free);
        w->parents = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, watched_parent_free);
        w->by_wd = g_hash_table_new(g_direct_hash, g_direct_equal);
        w->waiting = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->inotify_fd < 0)
                log_warning_errno(negative_errno(), "Cannot watch cgroup attributes (inotify: %m): their changes "
                                                    "are seen only when a unit is read again.");
        else {
                k = sd_event_add_io(m->event, &w->source, w->inotify_fd, EPOLLIN, on_inotify, w);
                /* Users write attributes of their own cgroups at will: at most
                 * this many wakeups a second; what comes faster waits in the
                 * kernel's queue (or overflows it: then every cgroup is read). */
                if (k >= 0)
                        k = sd_event_source_set_ratelimit(w->source, ATTRIBUTE_WAKEUPS_INTERVAL_USEC,
                                                          ATTRIBUTE_WAKEUPS_BURST);
                if (k < 0) {
                        attr_watch_free(TAKE_PTR(w));
                        return k;
                }
                (void) sd_event_source_set_enabled(w->source, SD_EVENT_OFF);
        }
        *ret = TAKE_PTR(w);
        return 0;
}

AttrWatch *attr_watch_free(AttrWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->source);
        sd_event_source_disable_unref(w->deadline_timer);
        g_hash_table_unref(w->waiting);
        g_hash_table_unref(w->children);
        g_hash_table_unref(w->by_wd);
        g_hash_table_unref(w->parents);
        safe_close(w->inotify_fd);
        cgroup_handle_free(w->spare);
        g_free(w->unavailable);
        g_free(w);
        return NULL;
}
