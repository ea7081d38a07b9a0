/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* desired state → xattrs and knob files under a given cgroupfs root.
 *
 * Two steps: cgroup_plan_build() (cgroup-plan.h) is pure and decides, per knob, which backend
 * carries it on this system; cgroup_apply_plan() does the I/O: read, compare,
 * write only what differs, and record what it wrote so that it can undo
 * exactly that later. Values it did not write are never touched. (A value
 * it wrote, which the plan changes, is written without a read: the record
 * knows what to restore, and the write is made anyway.) */

#include <glib.h>
#include <stdbool.h>
#include <sys/types.h>

#include "cgroup-plan.h"
#include "cgroup-record.h"

typedef enum ActionResult {
        ACTION_WROTE,
        ACTION_UNCHANGED,        /* already had the desired value: nothing written */
        ACTION_RESTORED,         /* undo put the previous value back */
        ACTION_REMOVED,          /* undo removed an xattr that had not existed */
        ACTION_LEFT_FOREIGN,     /* undo found a value someone else wrote, and left it */
        ACTION_NO_SPACE,         /* ENOSPC from the xattr limits */
        ACTION_VANISHED,         /* the cgroup is gone */
        ACTION_FAILED,
        ACTION_WOULD_WRITE,      /* dry run */
        ACTION_DEFERRED,         /* another backend carries it (systemd, exec time) */
        ACTION_NOT_ENFORCEABLE,
} ActionResult;

typedef struct Action {
        ActionResult result;
        Backend backend;
        char *target;
        char *old_value; /* may be NULL */
        char *new_value; /* may be NULL */
        int error;       /* negative errno for FAILED/NO_SPACE/VANISHED */
        bool unrecorded; /* FAILED: not attempted, as its record could not be kept (ApplyHooks) */
        char *message;   /* FAILED: what failed, where strerror(error) does not say all; may be NULL.
                          * A value of several lines (memory.swap.tiers.max): the lines refused, each
                          * with its error, and whether the others were written. */
} Action;

typedef struct ApplyReport {
        GPtrArray *actions; /* Action* */
} ApplyReport;

ApplyReport *apply_report_new(void);
ApplyReport *apply_report_free(ApplyReport *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ApplyReport, apply_report_free)
const char *action_result_to_string(ActionResult r);

typedef enum ApplyFlags {
        APPLY_DRY_RUN = 1 << 0,
} ApplyFlags;

/* Applies plan to cgroupfs_root/cgroup. Items the record holds that the plan
 * no longer wants are undone. Returns 0, or -ENOENT when the cgroup
 * vanished (the caller logs at debug level), or the first other error
 * (-EOPNOTSUPP when a knob file is missing from a cgroup that is still
 * there: a controller not enabled, a knob this kernel lacks), or -ENOSPC
 * when the only trouble was the xattr limits; the report says what happened
 * to every item either way. record may be NULL (nothing is recorded); a
 * record of another cgroup is refused with -EINVAL. The path is walked
 * without following symlinks. */
int cgroup_apply_plan(const char *cgroupfs_root, const char *cgroup, const CgroupPlan *plan,
                      CgroupRecord *record, ApplyFlags flags, ApplyReport *report);

/* Brings one knob file of cgroup in line with value: read, compare, write
 * only when it differs, record nothing. For what systemd already holds but
 * did not write: a daemon-reload changes unit properties without writing
 * them to the cgroups of running units (seen with systemd 257). */
int cgroup_sync_knob_file(const char *cgroupfs_root, const char *cgroup, const char *file, const char *value,
                          ApplyFlags flags, ApplyReport *report);

/* Reads one xattr (BACKEND_XATTR) or knob file (BACKEND_CGROUP_FILE) of
 * cgroup, through the same walk as the writes (no symlinks followed).
 * -ENODATA for an absent xattr. */
int cgroup_read_value(const char *cgroupfs_root, const char *cgroup, Backend b, const char *target, char **ret);

/* Opens root/cgroup one component at a time with O_NOFOLLOW, so that no
 * symlink inside the tree leads out of it: a plain O_RDONLY directory fd. */
int cgroup_open_dir(const char *root, const char *cgroup, int *ret_fd);

/* Whether cgroup is there: 1, 0 when it is gone, or a negative errno (a
 * symlink on the way: ELOOP, ENOTDIR), through the same walk as the writes. */
int cgroup_exists(const char *cgroupfs_root, const char *cgroup);

/* Called with the record after it learnt of a write and before the write
 * is made: it returns < 0 when it cannot keep the record (the write is then
 * not made, and the item fails with that error). */
typedef struct ApplyHooks {
        int (*before_write)(const CgroupRecord *record, void *userdata);
        void *userdata;
        /* write(2) of a knob file's line, for a test to stand in for the
         * kernel's refusals (a regular file takes anything); NULL: write(2).
         * Returns what write(2) returns, with errno set. */
        ssize_t (*knob_write)(int fd, const void *buf, size_t len, void *userdata);
} ApplyHooks;

/* cgroup_apply_plan(), with the record kept ahead of every write (a
 * write-ahead record): a crash between the hook and the write leaves a
 * record whose "written" never reached the kernel, which undo recognises
 * by the previous value still being there. */
int cgroup_apply_plan_with_hooks(const char *cgroupfs_root, const char *cgroup, const CgroupPlan *plan,
                                 CgroupRecord *record, ApplyFlags flags, const ApplyHooks *hooks,
                                 ApplyReport *report);
/* A cgroup's directory, and the knob files written there kept open, for a
 * caller that writes the same cgroup again and again (attr-watch.c: focus
 * changes): a write is then one syscall, where an open, a write and a close
 * are three. Only on cgroupfs, which takes each write() of a cgroup file
 * whole, wherever the file offset is; elsewhere (a test's tree of plain
 * files) every write opens its file. The caller owns it, and frees it when
 * the directory may be another one (removed, made again). */
typedef struct CgroupHandle {
        int dir_fd;
        bool keep_files;
        struct {
                char *name;
                int fd; /* -1: a free slot */
        } files[2];
} CgroupHandle;

/* Takes dir_fd: cgroupfs_root/cgroup reached without a symlink, as
 * cgroup_open_dir() does. */
CgroupHandle *cgroup_handle_new(int dir_fd);
CgroupHandle *cgroup_handle_free(CgroupHandle *h);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CgroupHandle, cgroup_handle_free)

/* The same, through handle, the cgroup opened already (borrowed; NULL:
 * walked to here): a caller that holds the parent directory opens it with
 * one openat() rather than a walk from the root, or holds it open. cgroup
 * still names it in the report and for the vanished check. */
int cgroup_apply_plan_at(CgroupHandle *handle, const char *cgroupfs_root, const char *cgroup, const CgroupPlan *plan,
                         CgroupRecord *record, ApplyFlags flags, const ApplyHooks *hooks, ApplyReport *report);

/* Undoes everything in record: restores previous values where the current
 * value is still the one we wrote, leaves foreign values alone, and empties
 * the record. A vanished cgroup took our values with it: returns 0. An item
 * whose restore failed stays in the record, for a retry. */
int cgroup_undo(const char *cgroupfs_root, const char *cgroup, CgroupRecord *record, ApplyFlags flags,
                ApplyReport *report);
