/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "bus-util.h"
#include "cgroup-apply.h"
#include "cgroup-plan.h"
#include "fileio.h"
#include "log.h"
#include "manager.h"
#include "subject.h"
#include "swap-tier-pass.h"
#include "swap-tier-tree.h"
#include "util.h"

#define RECORD_NAME "swap-tiers"

struct SwapTierPass {
        Manager *manager;
        sd_event_source *defer;
        int inotify_fd;
        sd_event_source *inotify_source;
        GHashTable *watches;   /* wd → cgroup path (owned) */
        GHashTable *watched;   /* cgroup path → wd, borrowed key */
        TierTree *tree;        /* of the last pass */
        /* cgroup → content policyd wrote there (not a subject's: those are
         * in the subjects' records), as STATE_DIR/swap-tiers holds it. */
        GHashTable *written;
        GHashTable *conflicts; /* cgroup → why its file was left as it is */
        /* cgroup → the widening ("fast,mid") of each widened subject, saved
         * with the record: after a restart, until startup converged, a
         * subject keeps it (its plan writes it) and nothing is undone, so
         * that no cgroup loses a tier while policyd learns the tree again. */
        GHashTable *widenings;
        bool converged;
        sd_event_source *converge_deadline; /* converged by then, whatever else says */
        unsigned widened;      /* subjects widened in the last pass */
        uint64_t passes;
};

static char *record_path(const SwapTierPass *t) {
        return g_build_filename(t->manager->state_dir, RECORD_NAME, NULL);
}

static gint compare_strings(gconstpointer a, gconstpointer b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* One line per cgroup: the escaped path, a tab, the content with its lines
 * joined by ';' (tier names have none). */
static int save_record(SwapTierPass *t, GHashTable *table) {
        g_autoptr(GString) s = g_string_new(NULL);
        g_autoptr(GPtrArray) keys = hash_table_keys(table);
        g_autofree char *path = record_path(t);

        if (t->manager->dry_run)
                return 0;
        g_ptr_array_sort(keys, compare_strings);
        for (guint i = 0; i < keys->len; i++) {
                const char *k = g_ptr_array_index(keys, i);
                g_autofree char *esc = g_strescape(k, NULL);
                g_auto(GStrv) lines = g_strsplit(g_hash_table_lookup(table, k), "\n", -1);
                g_autofree char *joined = g_strjoinv(";", lines);
                g_string_append_printf(s, "%s\t%s\n", esc, joined);
        }
        g_autoptr(GPtrArray) wkeys = hash_table_keys(t->widenings);
        g_ptr_array_sort(wkeys, compare_strings);
        for (guint i = 0; i < wkeys->len; i++) {
                const char *k = g_ptr_array_index(wkeys, i);
                g_autofree char *esc = g_strescape(k, NULL);
                g_string_append_printf(s, "%s\t+%s\n", esc, (const char *) g_hash_table_lookup(t->widenings, k));
        }
        if (s->len == 0)
                return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
        return write_file_atomic(path, s->str, 0600, WRITE_FILE_SYNC);
}

static void load_record(SwapTierPass *t) {
        g_autofree char *path = record_path(t), *text = NULL;
        size_t size;
        int r = read_full_file(path, &text, &size);

        if (r < 0) {
                if (r != -ENOENT)
                        log_warning_errno(r, "Failed to read %s: %m", path);
                return;
        }
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        for (char **l = lines; *l; l++) {
                char *tab = strchr(*l, '\t');
                if (!tab)
                        continue;
                *tab = '\0';
                g_autofree char *cgroup = g_strcompress(*l);
                if (cgroup_path_validate(cgroup) < 0)
                        continue;
                if (tab[1] == '+') {
                        g_hash_table_replace(t->widenings, g_steal_pointer(&cgroup), g_strdup(tab + 2));
                        continue;
                }
                g_auto(GStrv) parts = g_strsplit(tab + 1, ";", -1);
                g_hash_table_replace(t->written, g_steal_pointer(&cgroup), g_strjoinv("\n", parts));
        }
}

/* The subjects' requests, as the tree takes them. */
static TierTree *build_tree(Manager *m) {
        TierTree *tree = tier_tree_new();
        GHashTableIter i;
        gpointer v;

        g_hash_table_iter_init(&i, m->subjects);
        while (g_hash_table_iter_next(&i, NULL, &v)) {
                Subject *s = v;
                /* The root cgroup has no file: its group's SwapTiers= is
                 * not enforceable there, and so not its children's either
                 * (membership is not inherited). */
                if (s->tiers_requested && s->cgroup && !streq(s->cgroup, "/") && !tier_tree_find(tree, s->cgroup))
                        tier_tree_add(tree, s->cgroup, s->tiers_allowed, s->tiers_from_user);
        }
        return tree;
}

static char *child_path(const char *parent, const char *name) {
        return streq(parent, "/") ? g_strconcat("/", name, NULL) : g_strconcat(parent, "/", name, NULL);
}

/* Whether the child's memory.swap.tiers.max is root's. A delegation root
 * (user@UID.service, a Delegate=yes unit) has its directory chowned to the
 * user, but not its knob files: the administrator's, narrowed like any
 * other. Below it the user made the cgroups, and owns their files. */
static bool knob_file_is_roots(int dir_fd, const char *child) {
        g_autofree char *file = g_strconcat(child, "/" SWAP_TIERS_FILE, NULL);
        struct stat st;

        return fstatat(dir_fd, file, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISREG(st.st_mode) && st.st_uid == 0;
}

/* The cgroups below a widened one, as far as the tree needs: each child
 * that is not a subject gets a file where what it inherits is wrong, and
 * the way down to the administrator's requests below is followed. Children
 * a user owns are left alone (and not followed). */
static void visit(SwapTierPass *t, const TierTree *tree, const char *cgroup, GHashTable *plan, GPtrArray *dirs,
                  unsigned depth) {
        Manager *m = t->manager;
        _cleanup_close_ int fd = -EBADF;
        DIR *d;
        struct dirent *de;

        if (depth > 64 || cgroup_open_dir(m->cgroup_root, cgroup, &fd) < 0)
                return;
        g_ptr_array_add(dirs, g_strdup(cgroup));
        d = fdopendir(fd);
        if (!d)
                return;
        fd = -EBADF;
        while ((de = readdir(d))) {
                struct stat st;
                if (de->d_type != DT_DIR || streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
                    !knob_file_is_roots(dirfd(d), de->d_name))
                        continue;
                g_autofree char *child = child_path(cgroup, de->d_name);
                if (cgroup_path_validate(child) < 0 || tier_tree_find(tree, child))
                        continue; /* a subject: its own plan writes it */
                bool write;
                g_auto(GStrv) want = NULL;
                tier_tree_child_file(tree, cgroup, child, &write, &want);
                if (write)
                        g_hash_table_replace(plan, g_strdup(child),
                                             tier_file_content(m->facts->tier_names, want));
                if (tier_tree_has_admin_below(tree, child))
                        visit(t, tree, child, plan, dirs, depth + 1);
        }
        closedir(d);
}

/* Writes content in cgroup's file unless someone else restricted it:
 * false, with the conflict noted. */
static bool write_narrowing(SwapTierPass *t, const char *cgroup, const char *content) {
        Manager *m = t->manager;
        g_autofree char *current = NULL;
        const char *ours = g_hash_table_lookup(t->written, cgroup);
        int r;

        r = cgroup_read_value(m->cgroup_root, cgroup, BACKEND_CGROUP_FILE, SWAP_TIERS_FILE, &current);
        if (r < 0) {
                if (r != -ENOENT)
                        log_debug_errno(r, "Failed to read %s of %s: %m", SWAP_TIERS_FILE, cgroup);
                return false;
        }
        /* Ours, or ours with a tier made again since (max), is policyd's
         * to write again; anything else someone else restricted. */
        if (!tier_file_unrestricted(current) && !(ours && tier_file_within(current, ours))) {
                g_autofree char *flat = g_strdelimit(g_strdup(current), "\n", ',');
                g_hash_table_replace(t->conflicts, g_strdup(cgroup),
                                     g_strdup_printf("someone else restricted it (%s): kept, and policyd does not "
                                                     "narrow it to its group above", flat));
                return false;
        }
        g_autoptr(ApplyReport) report = apply_report_new();
        r = cgroup_sync_knob_file(m->cgroup_root, cgroup, SWAP_TIERS_FILE, content,
                                  m->dry_run ? APPLY_DRY_RUN : 0, report);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Failed to write %s of %s: %m", SWAP_TIERS_FILE, cgroup);
        return r >= 0;
}

/* Puts a file policyd narrowed back to every tier, if it still holds what
 * policyd wrote. */
static void undo_narrowing(SwapTierPass *t, const char *cgroup, const char *ours) {
        Manager *m = t->manager;
        g_autofree char *current = NULL, *all = NULL;

        if (cgroup_read_value(m->cgroup_root, cgroup, BACKEND_CGROUP_FILE, SWAP_TIERS_FILE, &current) < 0 ||
            !tier_file_holds(current, ours))
                return;
        all = tier_file_content(m->facts ? m->facts->tier_names : NULL, m->facts ? m->facts->tier_names : NULL);
        g_autoptr(ApplyReport) report = apply_report_new();
        (void) cgroup_sync_knob_file(m->cgroup_root, cgroup, SWAP_TIERS_FILE, all, m->dry_run ? APPLY_DRY_RUN : 0,
                                     report);
}

static void watch_dirs(SwapTierPass *t, GPtrArray *dirs) {
        Manager *m = t->manager;
        g_autoptr(GHashTable) want = g_hash_table_new(g_str_hash, g_str_equal);

        for (guint i = 0; i < dirs->len; i++)
                g_hash_table_add(want, g_ptr_array_index(dirs, i));

        /* Gone from the set: unwatched. */
        g_autoptr(GPtrArray) wds = hash_table_keys(t->watches);
        for (guint i = 0; i < wds->len; i++) {
                int wd = GPOINTER_TO_INT(g_ptr_array_index(wds, i));
                const char *path = g_hash_table_lookup(t->watches, GINT_TO_POINTER(wd));
                if (g_hash_table_contains(want, path))
                        continue;
                (void) inotify_rm_watch(t->inotify_fd, wd);
                g_hash_table_remove(t->watched, path);
                g_hash_table_remove(t->watches, GINT_TO_POINTER(wd));
        }
        for (guint i = 0; i < dirs->len; i++) {
                const char *cgroup = g_ptr_array_index(dirs, i);
                if (g_hash_table_contains(t->watched, cgroup))
                        continue;
                g_autofree char *path = g_strconcat(m->cgroup_root, cgroup, NULL);
                int wd = inotify_add_watch(t->inotify_fd, path, IN_CREATE | IN_DELETE | IN_ONLYDIR | IN_DONT_FOLLOW);
                if (wd < 0) {
                        log_debug_errno(-errno, "Failed to watch %s: %m", path);
                        continue;
                }
                char *key = g_strdup(cgroup);
                g_hash_table_replace(t->watches, GINT_TO_POINTER(wd), key);
                g_hash_table_replace(t->watched, key, GINT_TO_POINTER(wd));
        }
}

/* Writes plan's files (recorded first), and undoes what the last pass
 * wrote that plan no longer wants. */
static void execute(SwapTierPass *t, GHashTable *plan, bool undo_others) {
        g_autoptr(GHashTable) ahead = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        GHashTableIter i;
        gpointer k, v;
        int r;

        /* Ahead: what was written and what will be. */
        g_hash_table_iter_init(&i, t->written);
        while (g_hash_table_iter_next(&i, &k, &v))
                g_hash_table_replace(ahead, g_strdup(k), g_strdup(v));
        g_hash_table_iter_init(&i, plan);
        while (g_hash_table_iter_next(&i, &k, &v))
                if (!g_hash_table_contains(ahead, k))
                        g_hash_table_replace(ahead, g_strdup(k), g_strdup(v));
        r = save_record(t, ahead);
        if (r < 0) {
                log_warning_errno(r, "Failed to record swap tiers ahead in %s: %m; not narrowing",
                                  t->manager->state_dir);
                return;
        }

        g_hash_table_iter_init(&i, plan);
        while (g_hash_table_iter_next(&i, &k, &v)) {
                g_hash_table_remove(t->conflicts, k);
                if (write_narrowing(t, k, v))
                        g_hash_table_replace(t->written, g_strdup(k), g_strdup(v));
        }
        if (undo_others) {
                g_autoptr(GPtrArray) old = hash_table_keys(t->written);
                for (guint j = 0; j < old->len; j++) {
                        const char *c = g_ptr_array_index(old, j);
                        if (g_hash_table_contains(plan, c))
                                continue;
                        /* In a group with SwapTiers= now: its own plan wrote it. */
                        if (!t->tree || !tier_tree_find(t->tree, c))
                                undo_narrowing(t, c, g_hash_table_lookup(t->written, c));
                        g_hash_table_remove(t->conflicts, c);
                        g_hash_table_remove(t->written, c);
                }
        }
        r = save_record(t, t->written);
        if (r < 0)
                log_warning_errno(r, "Failed to save %s/" RECORD_NAME ": %m", t->manager->state_dir);
}

static bool any_widened(Manager *m) {
        GHashTableIter i;
        gpointer v;

        g_hash_table_iter_init(&i, m->subjects);
        while (g_hash_table_iter_next(&i, NULL, &v))
                if (((Subject *) v)->tiers_widen)
                        return true;
        return false;
}

static void run_pass(SwapTierPass *t) {
        Manager *m = t->manager;
        g_autoptr(GHashTable) plan = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) reapply = g_ptr_array_new_with_free_func(g_free);
        bool tiers = m->facts && m->facts->swap_tiers && m->facts->tier_names && *m->facts->tier_names;
        GHashTableIter i;
        gpointer v;

        /* Nothing asked, nothing of ours left: nothing to do. */
        if (!tiers && g_hash_table_size(t->written) == 0 && g_hash_table_size(t->widenings) == 0 && !any_widened(m))
                return;
        t->passes++;
        tier_tree_free(t->tree);
        t->tree = tiers ? build_tree(m) : tier_tree_new();
        t->widened = 0;

        /* Each subject's widening; the cgroups below the widened ones. */
        g_hash_table_iter_init(&i, m->subjects);
        while (g_hash_table_iter_next(&i, NULL, &v)) {
                Subject *s = v;
                g_auto(GStrv) widen = s->tiers_requested && s->cgroup && !streq(s->cgroup, "/")
                                              ? tier_tree_widening(t->tree, s->cgroup) : NULL;
                if (s->tiers_requested && s->cgroup && !t->converged) {
                        g_auto(GStrv) hint = swap_tier_pass_startup_widening(t, s->cgroup);
                        g_auto(GStrv) both = tier_set_union(widen, hint);
                        g_strfreev(widen);
                        widen = g_steal_pointer(&both);
                }
                if (widen) {
                        t->widened++;
                        visit(t, t->tree, s->cgroup, plan, dirs, 0);
                }
                if (!tier_set_equal(widen, s->tiers_widen)) {
                        g_strfreev(s->tiers_widen);
                        s->tiers_widen = g_steal_pointer(&widen);
                        g_ptr_array_add(reapply, g_strdup(subject_key(s)));
                }
        }

        /* Narrow before widening, so that no other child has a moment of
         * the wider set; undo what is no longer wanted after. */
        execute(t, plan, false);
        for (guint j = 0; j < reapply->len; j++) {
                Subject *s = manager_find_subject(m, g_ptr_array_index(reapply, j));
                if (s) {
                        g_autofree char *w = s->tiers_widen ? g_strjoinv(",", s->tiers_widen) : NULL;
                        if (w)
                                log_info("%s: memory.swap.tiers.max widened with %s, for the groups of cgroups "
                                         "below it", subject_name(s), w);
                        else
                                log_info("%s: memory.swap.tiers.max no longer widened", subject_name(s));
                        manager_apply_subject(m, s);
                }
        }
        /* What the subjects have now, for a restart; while starting, what
         * was there before stays too. */
        if (t->converged)
                g_hash_table_remove_all(t->widenings);
        g_hash_table_iter_init(&i, m->subjects);
        while (g_hash_table_iter_next(&i, NULL, &v)) {
                Subject *s = v;
                if (s->tiers_widen && s->cgroup)
                        g_hash_table_replace(t->widenings, g_strdup(s->cgroup), g_strjoinv(",", s->tiers_widen));
        }
        execute(t, plan, t->converged);
        watch_dirs(t, dirs);
}

char **swap_tier_pass_startup_widening(const SwapTierPass *t, const char *cgroup) {
        const char *w;

        if (!t || t->converged || !cgroup || !(w = g_hash_table_lookup(t->widenings, cgroup)))
                return NULL;
        g_auto(GStrv) v = g_strsplit(w, ",", -1);
        return tier_set_union(v, NULL);
}

void swap_tier_pass_startup_converged(SwapTierPass *t) {
        if (!t || t->converged)
                return;
        t->converged = true;
        /* No wakeup for it later: policyd is idle when nothing changes. */
        t->converge_deadline = sd_event_source_disable_unref(t->converge_deadline);
        swap_tier_pass_schedule(t);
}

static int on_defer(sd_event_source *s, void *userdata) {
        SwapTierPass *t = userdata;
        (void) s;

        run_pass(t);
        return 0;
}

void swap_tier_pass_schedule(SwapTierPass *t) {
        if (!t)
                return;
        if (!t->defer) {
                if (sd_event_add_defer(t->manager->event, &t->defer, on_defer, t) < 0) {
                        run_pass(t);
                        return;
                }
        }
        (void) sd_event_source_set_enabled(t->defer, SD_EVENT_ONESHOT);
}

/* A child made in a watched cgroup: narrowed now, without a whole pass. */
static void child_made(SwapTierPass *t, const char *parent, const char *name) {
        Manager *m = t->manager;
        g_autofree char *child = child_path(parent, name);
        g_autoptr(GHashTable) plan = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        bool write;
        g_auto(GStrv) want = NULL;

        if (!t->tree || cgroup_path_validate(child) < 0 || tier_tree_find(t->tree, child))
                return;
        if (cgroup_open_dir(m->cgroup_root, child, &fd) < 0 || fstat(fd, &st) < 0 ||
            !knob_file_is_roots(fd, "."))
                return;
        tier_tree_child_file(t->tree, parent, child, &write, &want);
        if (!write)
                return;
        g_hash_table_replace(plan, g_strdup(child), tier_file_content(m->facts->tier_names, want));
        execute(t, plan, false);
        log_debug("%s: made in a widened cgroup, narrowed", child);
}

/* A child removed: what policyd wrote there goes from the record, which
 * would otherwise grow with every unit started and stopped in a widened
 * slice. */
static void child_removed(SwapTierPass *t, const char *parent, const char *name) {
        g_autofree char *child = child_path(parent, name);
        bool had = g_hash_table_remove(t->written, child);

        had |= g_hash_table_remove(t->conflicts, child);
        if (had) {
                int r = save_record(t, t->written);
                if (r < 0)
                        log_warning_errno(r, "Failed to save %s/" RECORD_NAME ": %m", t->manager->state_dir);
        }
}

static int on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        SwapTierPass *t = userdata;
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        bool overflow = false;
        (void) s;
        (void) revents;

        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n <= 0)
                        break;
                for (char *p = buf; p < buf + n;) {
                        const struct inotify_event *e = (const struct inotify_event *) p;
                        p += sizeof(*e) + e->len;
                        if (e->mask & IN_Q_OVERFLOW)
                                overflow = true;
                        const char *parent = g_hash_table_lookup(t->watches, GINT_TO_POINTER(e->wd));
                        if (parent && (e->mask & IN_CREATE) && (e->mask & IN_ISDIR) && e->len > 0)
                                child_made(t, parent, e->name);
                        else if (parent && (e->mask & IN_DELETE) && (e->mask & IN_ISDIR) && e->len > 0)
                                child_removed(t, parent, e->name);
                }
        }
        if (overflow)
                swap_tier_pass_schedule(t);
        return 0;
}

/* Startup normally converges when every unit systemd listed was applied
 * (sweep.c); without systemd nothing says so. */
#define CONVERGE_DEADLINE_USEC (60 * G_USEC_PER_SEC)

static int on_converge_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        (void) s;
        (void) usec;
        swap_tier_pass_startup_converged(userdata);
        return 0;
}

int swap_tier_pass_new(Manager *m, SwapTierPass **ret) {
        g_autofree SwapTierPass *t = g_new0(SwapTierPass, 1);
        int r;

        assert(m && ret);
        t->manager = m;
        t->watches = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
        t->watched = g_hash_table_new(g_str_hash, g_str_equal);
        t->written = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        t->conflicts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        t->widenings = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        t->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (t->inotify_fd < 0)
                return log_warning_errno(-errno, "Failed to create an inotify instance for swap tiers: %m");
        r = sd_event_add_io(m->event, &t->inotify_source, t->inotify_fd, EPOLLIN, on_inotify, t);
        if (r < 0) {
                close(t->inotify_fd);
                return r;
        }
        load_record(t);
        (void) sd_event_add_time_relative(m->event, &t->converge_deadline, CLOCK_MONOTONIC, CONVERGE_DEADLINE_USEC,
                                          G_USEC_PER_SEC, on_converge_deadline, t);
        /* What an earlier run narrowed is looked at once, even when no
         * group asks for tiers any more (--revert, a group removed). */
        if (g_hash_table_size(t->written) > 0 || g_hash_table_size(t->widenings) > 0)
                swap_tier_pass_schedule(t);
        *ret = TAKE_PTR(t);
        return 0;
}

SwapTierPass *swap_tier_pass_free(SwapTierPass *t) {
        if (!t)
                return NULL;
        sd_event_source_disable_unref(t->defer);
        sd_event_source_disable_unref(t->converge_deadline);
        sd_event_source_disable_unref(t->inotify_source);
        if (t->inotify_fd >= 0)
                close(t->inotify_fd);
        g_hash_table_unref(t->watched);
        g_hash_table_unref(t->watches);
        g_hash_table_unref(t->written);
        g_hash_table_unref(t->conflicts);
        g_hash_table_unref(t->widenings);
        tier_tree_free(t->tree);
        g_free(t);
        return NULL;
}

bool swap_tier_pass_describe_cgroup(const SwapTierPass *t, const char *cgroup, char **ret_written, char **ret_why) {
        const char *why, *written;

        *ret_written = *ret_why = NULL;
        if (!t || !cgroup)
                return false;
        why = g_hash_table_lookup(t->conflicts, cgroup);
        if (why) {
                *ret_why = g_strdup(why);
                return true;
        }
        written = g_hash_table_lookup(t->written, cgroup);
        if (!written)
                return false;
        const TierRequest *near = t->tree ? tier_tree_nearest(t->tree, cgroup) : NULL;
        g_autofree char *tiers = near && near->allowed ? g_strjoinv(",", near->allowed) : g_strdup("none");
        *ret_written = g_strdup(written);
        *ret_why = near ? g_strdup_printf("narrowed by policyd to %s, what the group of %s allows: a cgroup above "
                                          "allows more, for the groups of cgroups below it", tiers, near->cgroup)
                        : g_strdup("narrowed by policyd earlier; no longer needed, put back at the next pass");
        return true;
}

char *swap_tier_pass_describe(const SwapTierPass *t) {
        if (!t || t->passes == 0)
                return NULL;
        return g_strdup_printf("%u widened for groups below, %u other cgroups narrowed, %u left as someone else set "
                               "them; %u cgroups watched for new children",
                               t->widened, g_hash_table_size(t->written), g_hash_table_size(t->conflicts),
                               g_hash_table_size(t->watched));
}
