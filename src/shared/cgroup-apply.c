/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cgroup-apply.h"
#include "util.h"

/* Knob files are small; anything bigger than this is not a knob file. */
#define KNOB_FILE_MAX (64U * 1024U)

static const char *const action_result_table[] = {
        [ACTION_WROTE] = "wrote",
        [ACTION_UNCHANGED] = "unchanged",
        [ACTION_RESTORED] = "restored",
        [ACTION_REMOVED] = "removed",
        [ACTION_LEFT_FOREIGN] = "left-foreign",
        [ACTION_NO_SPACE] = "no-space",
        [ACTION_VANISHED] = "vanished",
        [ACTION_FAILED] = "failed",
        [ACTION_WOULD_WRITE] = "would-write",
        [ACTION_DEFERRED] = "deferred",
        [ACTION_NOT_ENFORCEABLE] = "not-enforceable",
};

const char *action_result_to_string(ActionResult r) {
        if ((int) r < 0 || (size_t) r >= ELEMENTSOF(action_result_table))
                return NULL;
        return action_result_table[r];
}

/* ---- reports ---- */

static Action *action_free(Action *a) {
        if (!a)
                return NULL;
        g_free(a->target);
        g_free(a->old_value);
        g_free(a->new_value);
        g_free(a->message);
        g_free(a);
        return NULL;
}
DEFINE_FREE_NOTIFY(action_free, Action)

ApplyReport *apply_report_new(void) {
        ApplyReport *r = g_new0(ApplyReport, 1);
        r->actions = g_ptr_array_new_with_free_func(action_free_notify);
        return r;
}

ApplyReport *apply_report_free(ApplyReport *r) {
        if (!r)
                return NULL;
        if (r->actions)
                g_ptr_array_unref(r->actions);
        g_free(r);
        return NULL;
}

static void report_add(ApplyReport *report, ActionResult result, Backend b, const char *target,
                       const char *old_value, const char *new_value, int error) {
        Action *a;

        assert((size_t) result < ELEMENTSOF(action_result_table));
        if (!report)
                return;
        a = g_new0(Action, 1);
        a->result = result;
        a->backend = b;
        a->target = g_strdup(target);
        a->old_value = g_strdup(old_value);
        a->new_value = g_strdup(new_value);
        a->error = error;
        g_ptr_array_add(report->actions, a);
}

/* Gives the last action its message (taken; NULL: none). */
static void report_set_message(ApplyReport *report, char *message) {
        if (!report || report->actions->len == 0) {
                g_free(message);
                return;
        }
        Action *a = g_ptr_array_index(report->actions, report->actions->len - 1);
        g_free(a->message);
        a->message = message;
}

/* ---- I/O on one cgroup directory ---- */

/* Not O_PATH: f*xattr() refuse O_PATH fds. */
int cgroup_open_dir(const char *root, const char *cgroup, int *ret_fd) {
        _cleanup_close_ int fd = -1;
        g_auto(GStrv) parts = NULL;

        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();

        parts = g_strsplit(cgroup + 1, "/", -1);
        for (char **p = parts; *p; p++) {
                if (**p == '\0')
                        continue; /* only for "/" itself */
                int next = openat(fd, *p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0)
                        return negative_errno();
                closep(&fd);
                fd = next;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* After ENOENT or ENODEV on something inside the directory: is the cgroup
 * itself gone, or only that one file (a controller that is not enabled, a
 * knob this kernel lacks)? */
static bool cgroup_vanished(const char *root, const char *cgroup, int dir_fd) {
        _cleanup_close_ int fd = -1;
        struct stat a, b;

        int r = cgroup_open_dir(root, cgroup, &fd);
        if (r < 0)
                return errno_is_vanished(r);
        if (fstat(fd, &a) < 0 || fstat(dir_fd, &b) < 0)
                return true;
        return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

static int read_knob_file(int dir_fd, const char *name, char **ret) {
        _cleanup_close_ int fd = -1;
        g_autoptr(GString) s = g_string_new(NULL);
        struct stat st;
        char buf[4096];

        /* O_NONBLOCK: never hang on a FIFO someone put in place of a knob. */
        fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EINVAL;

        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                if (s->len + (size_t) n > KNOB_FILE_MAX)
                        return -EFBIG;
                g_string_append_len(s, buf, n);
        }
        if (memchr(s->str, '\0', s->len))
                return -EBADMSG;
        if (s->len > 0 && s->str[s->len - 1] == '\n')
                g_string_truncate(s, s->len - 1);
        *ret = g_string_free(TAKE_PTR(s), FALSE);
        return 0;
}

static int write_all(int fd, const char *p, size_t len, const ApplyHooks *hooks) {
        while (len > 0) {
                ssize_t n = hooks && hooks->knob_write ? hooks->knob_write(fd, p, len, hooks->userdata)
                                                       : write(fd, p, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                p += n;
                len -= (size_t) n;
        }
        return 0;
}

/* What became of a value of several lines, when a line failed. */
typedef struct LinesOutcome {
        char *message; /* the lines refused, each with its error; NULL when all landed or one line only */
        bool landed;   /* some line was written */
} LinesOutcome;

static void lines_outcome_clear(LinesOutcome *o) {
        g_clear_pointer(&o->message, g_free);
        o->landed = false;
}

/* One write() per line, each with its newline, on one open file. The
 * kernel parses every write() of a cgroup file on its own, and
 * memory.swap.tiers.max takes "TIER 0|max" per write; a regular file in a
 * fake tree simply ends up holding all the lines. O_TRUNC is what a shell's
 * ">" does, and cgroupfs accepts it. Every line is tried, even after one
 * failed: the kernel refuses a tier it does not have (EINVAL), and that
 * must not keep the other tiers' lines out. Returns the first error. */
static int write_knob_lines(int fd, const char *value, const ApplyHooks *hooks, LinesOutcome *ret) {
        g_auto(GStrv) lines = g_strsplit(value, "\n", -1);
        g_autoptr(GString) refused = g_string_new(NULL);
        unsigned n_lines = 0;
        bool landed = false;
        int first = 0, r;

        for (char **l = lines; *l; l++) {
                g_autofree char *line = g_strconcat(*l, "\n", NULL);
                if (**l == '\0' && l != lines)
                        continue; /* a blank line after the first means nothing */
                n_lines++;
                r = write_all(fd, line, strlen(line), hooks);
                if (r >= 0) {
                        landed = true;
                        continue;
                }
                if (first == 0)
                        first = r;
                g_string_append_printf(refused, "%s'%s': %s", refused->len > 0 ? "; " : "", *l, g_strerror(-r));
        }
        if (ret && first < 0 && n_lines > 1) {
                ret->landed = landed;
                ret->message = g_strdup_printf("%s%s", refused->str,
                                               landed ? "; the other lines were written" : "");
        }
        return first;
}

static int open_knob_for_write(int dir_fd, const char *name) {
        /* No fstat for the file type, as the read makes: O_WRONLY fails on
         * a directory, O_NONBLOCK on a FIFO without a reader, and cgroupfs
         * holds nothing else (no one can make a device node there). Every
         * syscall counts on the path of a focus change. */
        int fd = openat(dir_fd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_TRUNC);
        return fd < 0 ? negative_errno() : fd;
}

static int write_knob_file(int dir_fd, const char *name, const char *value, const ApplyHooks *hooks,
                           LinesOutcome *ret) {
        _cleanup_close_ int fd = open_knob_for_write(dir_fd, name);

        if (fd < 0)
                return fd;
        return write_knob_lines(fd, value, hooks, ret);
}

CgroupHandle *cgroup_handle_new(int dir_fd) {
        CgroupHandle *h = g_new0(CgroupHandle, 1);
        struct statfs sf;

        h->dir_fd = dir_fd;
        h->keep_files = fstatfs(dir_fd, &sf) >= 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
        for (size_t i = 0; i < ELEMENTSOF(h->files); i++)
                h->files[i].fd = -1;
        return h;
}

static void handle_close_file(CgroupHandle *h, size_t i) {
        assert(h);
        assert(i < ELEMENTSOF(h->files));
        h->files[i].fd = safe_close(h->files[i].fd);
        g_clear_pointer(&h->files[i].name, g_free);
}

CgroupHandle *cgroup_handle_free(CgroupHandle *h) {
        if (!h)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(h->files); i++)
                handle_close_file(h, i);
        safe_close(h->dir_fd);
        g_free(h);
        return NULL;
}

/* Through the file kept open for name, opened now if there is room. */
static int handle_write_knob_file(CgroupHandle *h, const char *name, const char *value, const ApplyHooks *hooks,
                                  LinesOutcome *ret) {
        size_t i, free_slot = ELEMENTSOF(h->files);
        int r;

        assert(h);
        assert(name && value);
        for (i = 0; h->keep_files && i < ELEMENTSOF(h->files); i++) {
                if (h->files[i].fd >= 0 && streq(h->files[i].name, name))
                        break;
                if (h->files[i].fd < 0 && free_slot == ELEMENTSOF(h->files))
                        free_slot = i;
        }
        if (!h->keep_files || (i == ELEMENTSOF(h->files) && free_slot == i))
                return write_knob_file(h->dir_fd, name, value, hooks, ret);
        if (i == ELEMENTSOF(h->files)) {
                int fd = open_knob_for_write(h->dir_fd, name);
                if (fd < 0)
                        return fd;
                i = free_slot;
                assert(i < ELEMENTSOF(h->files));
                h->files[i].fd = fd;
                h->files[i].name = g_strdup(name);
        }
        r = write_knob_lines(h->files[i].fd, value, hooks, ret);
        if (r < 0)
                /* Opened again next time: a file of a removed cgroup fails
                 * for good (ENODEV), and an invalid value costs only that. */
                handle_close_file(h, i);
        return r;
}

static int read_xattr(int dir_fd, const char *name, bool *ret_present, char **ret) {
        /* Most values fit here: one call, not a call for the size first. */
        char small[4096];
        ssize_t k = fgetxattr(dir_fd, name, small, sizeof(small) - 1);
        if (k >= 0) {
                small[k] = '\0';
                *ret_present = true;
                *ret = g_strdup(small);
                return 0;
        }
        if (errno == ENODATA) {
                *ret_present = false;
                *ret = NULL;
                return 0;
        }
        if (errno != ERANGE)
                return negative_errno();

        for (int attempt = 0; attempt < 8; attempt++) {
                ssize_t size = fgetxattr(dir_fd, name, NULL, 0);
                if (size < 0) {
                        if (errno == ENODATA) {
                                *ret_present = false;
                                *ret = NULL;
                                return 0;
                        }
                        return negative_errno();
                }
                g_autofree char *buf = g_malloc((size_t) size + 1);
                ssize_t n = fgetxattr(dir_fd, name, buf, (size_t) size);
                if (n < 0) {
                        if (errno == ERANGE)
                                continue; /* it grew in between */
                        if (errno == ENODATA)
                                continue;
                        return negative_errno();
                }
                /* Values with a NUL byte are cut there: we never write one,
                 * so such a value is foreign, and compares as different. */
                buf[n] = '\0';
                *ret_present = true;
                *ret = TAKE_PTR(buf);
                return 0;
        }
        return -EAGAIN;
}

/* value NULL removes the xattr; an xattr already gone is fine. */
static int write_xattr(int dir_fd, const char *name, const char *value) {
        if (!value) {
                if (fremovexattr(dir_fd, name) < 0 && errno != ENODATA)
                        return negative_errno();
                return 0;
        }
        if (fsetxattr(dir_fd, name, value, strlen(value), 0) < 0)
                return negative_errno();
        return 0;
}

static int read_current(int dir_fd, Backend b, const char *target, bool *ret_present, char **ret) {
        assert(b == BACKEND_XATTR || b == BACKEND_CGROUP_FILE);
        assert(target && ret_present && ret);
        if (b == BACKEND_XATTR)
                return read_xattr(dir_fd, target, ret_present, ret);
        *ret_present = true;
        return read_knob_file(dir_fd, target, ret);
}

/* ret (may be NULL): for a knob value of several lines, what became of
 * them when one failed. */
static int write_value(int dir_fd, CgroupHandle *handle, const ApplyHooks *hooks, Backend b, const char *target,
                       const char *value, LinesOutcome *ret) {
        assert(b == BACKEND_XATTR || b == BACKEND_CGROUP_FILE);
        assert(target);
        if (b == BACKEND_XATTR)
                return write_xattr(dir_fd, target, value);
        if (!value)
                return -EINVAL;
        if (handle)
                return handle_write_knob_file(handle, target, value, hooks, ret);
        return write_knob_file(dir_fd, target, value, hooks, ret);
}

static bool is_byte_file(const char *target) {
        return streq(target, "memory.swap.max") || streq(target, "memory.swap.high") ||
               streq(target, "memory.zswap.max");
}

/* Knob files as the kernel prints them: blanks collapsed, no empty lines,
 * and byte limits as page multiples (the kernel keeps pages). */
static char *normalise_knob(const char *target, const char *value) {
        g_auto(GStrv) lines = g_strsplit(value, "\n", -1);
        GString *out = g_string_new(NULL);

        for (char **l = lines; *l; l++) {
                g_auto(GStrv) words = g_strsplit_set(*l, " \t", -1);
                bool first = true;

                for (char **w = words; *w; w++) {
                        guint64 v;
                        if (**w == '\0')
                                continue;
                        if (first && out->len > 0)
                                g_string_append_c(out, '\n');
                        if (!first)
                                g_string_append_c(out, ' ');
                        if (is_byte_file(target) && g_ascii_string_to_unsigned(*w, 10, 0, UINT64_MAX, &v, NULL))
                                g_string_append_printf(out, "%" PRIu64, (uint64_t) (v - v % page_size()));
                        else
                                g_string_append(out, *w);
                        first = false;
                }
        }
        return g_string_free(out, FALSE);
}

/* memory.swap.tiers.max lists every tier the kernel has; a tier defined
 * after we planned shows up as an extra line. Compare the tiers we name. */
static bool tiers_content_equal(const char *current, const char *wanted) {
        g_auto(GStrv) cur = g_strsplit(current, "\n", -1);
        g_auto(GStrv) want = g_strsplit(wanted, "\n", -1);

        for (char **w = want; *w; w++) {
                bool found = false;
                if (**w == '\0')
                        continue;
                for (char **c = cur; *c && !found; c++)
                        found = streq(*c, *w);
                if (!found)
                        return false;
        }
        return true;
}

static bool values_equal(Backend b, const char *target, bool present, const char *current, const char *wanted) {
        if (!present || !current || !wanted)
                return !present && !wanted;
        if (b == BACKEND_XATTR)
                return streq(current, wanted);

        g_autofree char *c = normalise_knob(target, current);
        g_autofree char *w = normalise_knob(target, wanted);
        if (streq(target, SWAP_TIERS_FILE))
                return tiers_content_equal(c, w);
        return streq(c, w);
}

/* Result of one item's I/O, for the caller's bookkeeping. */
typedef enum Outcome {
        OUTCOME_OK,
        OUTCOME_FAILED,   /* reported; go on with the next item */
        OUTCOME_NO_SPACE, /* reported; go on */
        OUTCOME_VANISHED, /* the cgroup is gone: stop */
} Outcome;

typedef struct Context {
        const char *root;
        const char *cgroup;
        int dir_fd;
        CgroupHandle *handle;   /* of dir_fd, or NULL */
        ApplyFlags flags;
        ApplyReport *report;
        const ApplyHooks *hooks;
        int first_error;
        bool no_space;
} Context;

static bool is_cgroup_item(const PlanItem *item) {
        return item->backend == BACKEND_XATTR || item->backend == BACKEND_CGROUP_FILE;
}

/* Classifies an error from I/O on one item. */
static Outcome fail_item(Context *ctx, Backend b, const char *target, const char *old_value,
                         const char *new_value, int r) {
        if (errno_is_vanished(r) && cgroup_vanished(ctx->root, ctx->cgroup, ctx->dir_fd))
                return OUTCOME_VANISHED;
        if (r == -ENOSPC || r == -EDQUOT) {
                /* cgroupfs: more than 128 user xattrs or 128 KiB of values. */
                report_add(ctx->report, ACTION_NO_SPACE, b, target, old_value, new_value, r);
                ctx->no_space = true;
                return OUTCOME_NO_SPACE;
        }
        report_add(ctx->report, ACTION_FAILED, b, target, old_value, new_value, r);
        if (ctx->first_error == 0)
                /* A knob file missing from a cgroup that is still there is
                 * not a vanished cgroup: do not let the caller think so. */
                ctx->first_error = errno_is_vanished(r) ? -EOPNOTSUPP : r;
        return OUTCOME_FAILED;
}

/* Undoes one recorded item: restores or removes it while it still holds
 * what we wrote, leaves it alone otherwise. OUTCOME_OK means the item can
 * leave the record. */
static Outcome undo_item(Context *ctx, const AppliedItem *it) {
        g_autofree char *current = NULL;
        bool present = false;
        int r;

        assert(ctx && it);
        if (!cgroup_record_target_is_valid(it->backend, it->target)) {
                report_add(ctx->report, ACTION_FAILED, it->backend, it->target, NULL, it->previous, -EINVAL);
                if (ctx->first_error == 0)
                        ctx->first_error = -EINVAL;
                return OUTCOME_FAILED;
        }

        r = read_current(ctx->dir_fd, it->backend, it->target, &present, &current);
        if (r < 0)
                return fail_item(ctx, it->backend, it->target, NULL, it->previous, r);

        if (!values_equal(it->backend, it->target, present, current, it->written)) {
                /* Still what was there before: the write recorded ahead of
                 * time never happened (a crash in between). Nothing to undo. */
                bool never_written = it->previous_is_digest
                                             ? applied_item_previous_is(it, present, current)
                                             : values_equal(it->backend, it->target, present, current,
                                                            it->had_previous ? it->previous : NULL);
                report_add(ctx->report, never_written ? ACTION_UNCHANGED : ACTION_LEFT_FOREIGN, it->backend,
                           it->target, current, it->written, 0);
                return OUTCOME_OK;
        }

        /* Only the digest of a long value was kept (CGROUP_RECORD_PREVIOUS_MAX):
         * policyd's value goes, and the user's is not put back. */
        const char *restore = it->had_previous && applied_item_can_restore(it) ? it->previous : NULL;
        if (ctx->flags & APPLY_DRY_RUN) {
                report_add(ctx->report, ACTION_WOULD_WRITE, it->backend, it->target, current, restore, 0);
                return OUTCOME_OK;
        }

        _cleanup_(lines_outcome_clear) LinesOutcome lines = {};
        r = write_value(ctx->dir_fd, ctx->handle, ctx->hooks, it->backend, it->target, restore, &lines);
        if (r < 0) {
                Outcome o = fail_item(ctx, it->backend, it->target, current, restore, r);
                if (o != OUTCOME_VANISHED)
                        report_set_message(ctx->report, TAKE_PTR(lines.message));
                return o;
        }
        report_add(ctx->report, restore ? ACTION_RESTORED : ACTION_REMOVED, it->backend, it->target, current,
                   restore, 0);
        return OUTCOME_OK;
}

/* An item of the plan, between the read that decides it and its write. */
typedef struct Pending {
        const PlanItem *item;
        bool write;           /* to be written (else decided: nothing more to do) */
        bool undo;            /* a removal: undone in the second pass, in plan order */
        bool present;
        char *current;
        AppliedItem *added;   /* the record's new item for the write */
        AppliedItem *rec;     /* or its existing one, whose written it replaced */
        char *old_written;
} Pending;

static void pending_clear(Pending *p) {
        g_free(p->current);
        g_free(p->old_written);
}

/* Not written after all: the record goes back to the truth, which the
 * caller's next save makes durable. */
static void pending_revert(CgroupRecord *record, Pending *p) {
        assert(record && p);
        /* A write either adds an item to the record or replaces one's written. */
        assert(!(p->added && p->rec));
        if (!p->write)
                return;
        if (p->added)
                g_ptr_array_remove(record->items, p->added);
        else if (p->rec) {
                g_free(p->rec->written);
                p->rec->written = TAKE_PTR(p->old_written);
        }
        p->added = p->rec = NULL;
        p->write = false;
}

/* First pass over one item: reads it, and decides. A write to make enters
 * the record here (write-ahead), and is made in the second pass, after
 * one save of the record for all of them. */
static Outcome prepare_item(Context *ctx, CgroupRecord *record, const PlanItem *item, Pending *p) {
        guint index = 0;
        AppliedItem *rec;
        int r;

        assert(ctx && item && p);
        assert(is_cgroup_item(item));
        p->item = item;
        if (!cgroup_record_target_is_valid(item->backend, item->target) || (item->backend == BACKEND_CGROUP_FILE && !item->value)) {
                report_add(ctx->report, ACTION_FAILED, item->backend, item->target, NULL, item->value, -EINVAL);
                if (ctx->first_error == 0)
                        ctx->first_error = -EINVAL;
                return OUTCOME_FAILED;
        }

        rec = cgroup_record_find(record, item->backend, item->target, &index);

        if (!item->value) {
                /* Remove: only what we set, and only while it is ours. */
                if (!rec) {
                        report_add(ctx->report, ACTION_UNCHANGED, item->backend, item->target, NULL, NULL, 0);
                        return OUTCOME_OK;
                }
                p->undo = true;
                return OUTCOME_OK;
        }

        /* A value policyd wrote, to be changed from what it wrote: the
         * write is made whatever the cgroup holds now, and the record has
         * the value to restore already, so it is not read first (a file
         * read is four syscalls, an xattr's one: each counts on the path
         * of a focus change). The report's old value is then the one
         * policyd wrote last. */
        if (rec && !(ctx->flags & APPLY_DRY_RUN) &&
            !values_equal(item->backend, item->target, true, rec->written, item->value)) {
                p->present = true;
                p->current = g_strdup(rec->written);
                goto write_ahead;
        }

        r = read_current(ctx->dir_fd, item->backend, item->target, &p->present, &p->current);
        if (r < 0)
                return fail_item(ctx, item->backend, item->target, NULL, item->value, r);

        if (values_equal(item->backend, item->target, p->present, p->current, item->value)) {
                /* Not recorded when it was not ours: undo must leave it. */
                if (rec && !(ctx->flags & APPLY_DRY_RUN) && !streq(rec->written, item->value)) {
                        g_free(rec->written);
                        rec->written = g_strdup(item->value);
                }
                report_add(ctx->report, ACTION_UNCHANGED, item->backend, item->target, p->current, item->value, 0);
                return OUTCOME_OK;
        }

        if (ctx->flags & APPLY_DRY_RUN) {
                report_add(ctx->report, ACTION_WOULD_WRITE, item->backend, item->target, p->current, item->value, 0);
                return OUTCOME_OK;
        }

write_ahead:
        /* Write-ahead: the record learns what was there and what is about
         * to be written before the write; a crash in between then still
         * leaves the way back. */
        p->write = true;
        if (!record)
                return OUTCOME_OK;
        if (rec) {
                /* Keep what was there before our first write. */
                p->rec = rec;
                p->old_written = TAKE_PTR(rec->written);
                rec->written = g_strdup(item->value);
        } else {
                p->added = g_new0(AppliedItem, 1);
                p->added->backend = item->backend;
                p->added->target = g_strdup(item->target);
                applied_item_set_previous(p->added, p->present, p->current);
                p->added->written = g_strdup(item->value);
                g_ptr_array_add(record->items, p->added);
        }
        return OUTCOME_OK;
}

/* Some lines of a value of several landed, and others failed: the record
 * keeps the item, with what the file holds now as the value written, so
 * that undo restores the lines that did change (and the next pass, finding
 * another value recorded than the plan's, writes every line again). false
 * when the file cannot be read: the record goes back as for a failed
 * write. */
static bool keep_what_landed(Context *ctx, Pending *p) {
        g_autofree char *now = NULL;
        AppliedItem *it = p->added ?: p->rec;

        if (!it || read_knob_file(ctx->dir_fd, p->item->target, &now) < 0)
                return false;
        g_free(it->written);
        it->written = TAKE_PTR(now);
        p->write = false; /* decided: not reverted at the end */
        p->added = p->rec = NULL;
        return true;
}

/* Second pass over one item: the write decided in the first, or the undo. */
static Outcome finish_item(Context *ctx, CgroupRecord *record, Pending *p) {
        const PlanItem *item = p->item;
        _cleanup_(lines_outcome_clear) LinesOutcome lines = {};
        int r;

        assert(ctx && item);
        assert(is_cgroup_item(item));
        /* prepare_item() decides one of the two, or nothing. */
        assert(!(p->undo && p->write));
        if (p->undo) {
                guint index = 0;
                AppliedItem *rec = cgroup_record_find(record, item->backend, item->target, &index);
                if (!rec)
                        return OUTCOME_OK;
                Outcome o = undo_item(ctx, rec);
                if (o == OUTCOME_OK && !(ctx->flags & APPLY_DRY_RUN))
                        g_ptr_array_remove_index(record->items, index);
                return o;
        }
        if (!p->write)
                return OUTCOME_OK;

        r = write_value(ctx->dir_fd, ctx->handle, ctx->hooks, item->backend, item->target, item->value, &lines);
        if (r < 0) {
                if (record && !(lines.landed && keep_what_landed(ctx, p)))
                        pending_revert(record, p);
                Outcome o = fail_item(ctx, item->backend, item->target, p->current, item->value, r);
                if (o != OUTCOME_VANISHED)
                        report_set_message(ctx->report, TAKE_PTR(lines.message));
                return o;
        }
        p->write = false;
        report_add(ctx->report, ACTION_WROTE, item->backend, item->target, p->current, item->value, 0);
        return OUTCOME_OK;
}

static void pending_free_all(Pending *pending, guint n) {
        for (guint i = 0; i < n; i++)
                pending_clear(&pending[i]);
        g_free(pending);
}

/* The writes not made (a vanished cgroup, a failed record): out of the
 * record again. */
static void pending_revert_all(CgroupRecord *record, Pending *pending, guint n) {
        for (guint i = n; record && i > 0; i--)
                pending_revert(record, &pending[i - 1]);
}

/* The plan's items on the cgroup, in two passes: read and decide all of
 * them, record every write ahead with one call of the hook, then write
 * (and undo) in plan order. Returns OUTCOME_VANISHED when the cgroup went
 * away, after reporting it. */
static Outcome apply_items(Context *ctx, const CgroupPlan *plan, CgroupRecord *record) {
        guint n;
        Pending *pending;
        bool any_write = false;
        Outcome result = OUTCOME_OK;

        assert(ctx && plan);
        n = plan->items->len;
        pending = g_new0(Pending, n);

        for (guint i = 0; i < n; i++) {
                const PlanItem *item = g_ptr_array_index(plan->items, i);

                switch (item->backend) {
                case BACKEND_XATTR:
                case BACKEND_CGROUP_FILE:
                        if (prepare_item(ctx, record, item, &pending[i]) == OUTCOME_VANISHED) {
                                report_add(ctx->report, ACTION_VANISHED, item->backend, item->target, NULL,
                                           item->value, -ENOENT);
                                result = OUTCOME_VANISHED;
                                goto out;
                        }
                        any_write = any_write || pending[i].write;
                        break;
                case BACKEND_SYSTEMD_PROPERTY:
                case BACKEND_EXEC_TIME:
                case BACKEND_MIGRATE_PAGES:
                        report_add(ctx->report, ACTION_DEFERRED, item->backend, item->target, NULL, item->value, 0);
                        break;
                case BACKEND_NOT_ENFORCEABLE:
                default:
                        report_add(ctx->report, ACTION_NOT_ENFORCEABLE, item->backend, item->target, NULL,
                                   item->value, 0);
                        break;
                }
        }

        /* One durable record for all the writes, before the first of them.
         * When it cannot be kept, none is made. */
        if (any_write && record && ctx->hooks && ctx->hooks->before_write) {
                int r = ctx->hooks->before_write(record, ctx->hooks->userdata);
                for (guint i = 0; r < 0 && i < n; i++) {
                        Pending *p = &pending[i];
                        if (!p->write)
                                continue;
                        pending_revert(record, p);
                        Outcome o = fail_item(ctx, p->item->backend, p->item->target, p->current, p->item->value, r);
                        if (o != OUTCOME_VANISHED && ctx->report && ctx->report->actions->len > 0) {
                                Action *a = g_ptr_array_index(ctx->report->actions, ctx->report->actions->len - 1);
                                a->unrecorded = true;
                        }
                        if (o == OUTCOME_VANISHED) {
                                report_add(ctx->report, ACTION_VANISHED, p->item->backend, p->item->target, NULL,
                                           p->item->value, -ENOENT);
                                result = OUTCOME_VANISHED;
                                goto out;
                        }
                }
        }

        for (guint i = 0; i < n; i++) {
                Pending *p = &pending[i];
                if (!p->item || !is_cgroup_item(p->item))
                        continue;
                if (finish_item(ctx, record, p) == OUTCOME_VANISHED) {
                        report_add(ctx->report, ACTION_VANISHED, p->item->backend, p->item->target, NULL,
                                   p->item->value, -ENOENT);
                        result = OUTCOME_VANISHED;
                        goto out;
                }
        }
out:
        pending_revert_all(record, pending, n);
        pending_free_all(pending, n);
        return result;
}

static bool plan_wants(const CgroupPlan *plan, const AppliedItem *it) {
        for (guint i = 0; plan && i < plan->items->len; i++) {
                const PlanItem *p = g_ptr_array_index(plan->items, i);
                if (p->backend == it->backend && streq(p->target, it->target))
                        return true;
        }
        return false;
}

static int open_for_apply(Context *ctx) {
        int r = cgroup_open_dir(ctx->root, ctx->cgroup, &ctx->dir_fd);
        if (r < 0) {
                bool gone = errno_is_vanished(r);
                report_add(ctx->report, gone ? ACTION_VANISHED : ACTION_FAILED, BACKEND_CGROUP_FILE, ctx->cgroup,
                           NULL, NULL, r);
                return gone ? -ENOENT : r;
        }
        return 0;
}

static int finish(Context *ctx) {
        if (ctx->first_error < 0)
                return ctx->first_error;
        return ctx->no_space ? -ENOSPC : 0;
}

int cgroup_apply_plan(const char *cgroupfs_root, const char *cgroup, const CgroupPlan *plan,
                      CgroupRecord *record, ApplyFlags flags, ApplyReport *report) {
        return cgroup_apply_plan_with_hooks(cgroupfs_root, cgroup, plan, record, flags, NULL, report);
}

int cgroup_apply_plan_with_hooks(const char *cgroupfs_root, const char *cgroup, const CgroupPlan *plan,
                                 CgroupRecord *record, ApplyFlags flags, const ApplyHooks *hooks,
                                 ApplyReport *report) {
        return cgroup_apply_plan_at(NULL, cgroupfs_root, cgroup, plan, record, flags, hooks, report);
}

int cgroup_apply_plan_at(CgroupHandle *handle, const char *cgroupfs_root, const char *cgroup, const CgroupPlan *plan,
                         CgroupRecord *record, ApplyFlags flags, const ApplyHooks *hooks, ApplyReport *report) {
        _cleanup_close_ int dir_fd = -1;
        Context ctx = {
                .root = cgroupfs_root,
                .cgroup = cgroup,
                .dir_fd = handle ? handle->dir_fd : -1,
                .handle = handle,
                .flags = flags,
                .report = report,
                .hooks = hooks,
        };
        int r;

        if (!cgroupfs_root || !plan || cgroup_path_validate(cgroup) < 0)
                return -EINVAL;
        /* A record of another cgroup would undo things in the wrong place. */
        if (record && record->cgroup && !streq(record->cgroup, cgroup))
                return -EINVAL;

        if (ctx.dir_fd < 0) {
                r = open_for_apply(&ctx);
                if (r < 0)
                        return r;
                dir_fd = ctx.dir_fd;
        }

        if (apply_items(&ctx, plan, record) == OUTCOME_VANISHED)
                return -ENOENT;

        /* What we set earlier and the plan no longer mentions. */
        for (guint i = record ? record->items->len : 0; i > 0; i--) {
                const AppliedItem *it = g_ptr_array_index(record->items, i - 1);
                if (plan_wants(plan, it))
                        continue;
                Outcome o = undo_item(&ctx, it);
                if (o == OUTCOME_VANISHED) {
                        report_add(report, ACTION_VANISHED, it->backend, it->target, NULL, NULL, -ENOENT);
                        return -ENOENT;
                }
                if (o == OUTCOME_OK && !(flags & APPLY_DRY_RUN))
                        g_ptr_array_remove_index(record->items, i - 1);
        }

        return finish(&ctx);
}

int cgroup_undo(const char *cgroupfs_root, const char *cgroup, CgroupRecord *record, ApplyFlags flags,
                ApplyReport *report) {
        _cleanup_close_ int dir_fd = -1;
        Context ctx = {
                .root = cgroupfs_root,
                .cgroup = cgroup,
                .dir_fd = -1,
                .flags = flags,
                .report = report,
        };
        int r;

        if (!cgroupfs_root || !record || cgroup_path_validate(cgroup) < 0)
                return -EINVAL;
        if (record->cgroup && !streq(record->cgroup, cgroup))
                return -EINVAL;

        r = open_for_apply(&ctx);
        if (r == -ENOENT) {
                /* Gone, and what we set went with it. */
                if (!(flags & APPLY_DRY_RUN))
                        g_ptr_array_set_size(record->items, 0);
                return 0;
        }
        if (r < 0)
                return r;
        dir_fd = ctx.dir_fd;

        for (guint i = record->items->len; i > 0; i--) {
                const AppliedItem *it = g_ptr_array_index(record->items, i - 1);
                Outcome o = undo_item(&ctx, it);

                if (o == OUTCOME_VANISHED) {
                        report_add(report, ACTION_VANISHED, it->backend, it->target, NULL, NULL, -ENOENT);
                        if (!(flags & APPLY_DRY_RUN))
                                g_ptr_array_set_size(record->items, 0);
                        return 0;
                }
                /* A failed restore stays in the record, for a retry. */
                if (o == OUTCOME_OK && !(flags & APPLY_DRY_RUN))
                        g_ptr_array_remove_index(record->items, i - 1);
        }

        return finish(&ctx);
}

int cgroup_sync_knob_file(const char *cgroupfs_root, const char *cgroup, const char *file, const char *value,
                          ApplyFlags flags, ApplyReport *report) {
        g_autoptr(CgroupPlan) plan = NULL;

        if (!file || !value)
                return -EINVAL;
        plan = cgroup_plan_new();
        cgroup_plan_add(plan, BACKEND_CGROUP_FILE, -1, file, g_strdup(value), NULL);
        return cgroup_apply_plan(cgroupfs_root, cgroup, plan, NULL, flags, report);
}

int cgroup_exists(const char *cgroupfs_root, const char *cgroup) {
        _cleanup_close_ int fd = -1;
        int r;

        if (!cgroupfs_root || cgroup_path_validate(cgroup) < 0)
                return -EINVAL;
        r = cgroup_open_dir(cgroupfs_root, cgroup, &fd);
        if (errno_is_vanished(r))
                return 0;
        return r < 0 ? r : 1;
}

int cgroup_read_value(const char *cgroupfs_root, const char *cgroup, Backend b, const char *target, char **ret) {
        _cleanup_close_ int fd = -1;
        bool present = false;
        int r;

        if (!cgroupfs_root || cgroup_path_validate(cgroup) < 0 || !cgroup_record_target_is_valid(b, target) || !ret)
                return -EINVAL;
        r = cgroup_open_dir(cgroupfs_root, cgroup, &fd);
        if (r < 0)
                return r;
        r = read_current(fd, b, target, &present, ret);
        if (r < 0)
                return r;
        if (*ret)
                g_strstrip(*ret);
        return present ? 0 : -ENODATA;
}
