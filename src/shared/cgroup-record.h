/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What policyd wrote on one cgroup, and what was there before: enough to
 * undo exactly that, and nothing else. */

#include <glib.h>
#include <stdbool.h>

#include "cgroup-plan.h"

/* One thing policyd wrote on one cgroup, and what was there before. */
typedef struct AppliedItem {
        Backend backend;   /* BACKEND_XATTR or BACKEND_CGROUP_FILE */
        char *target;
        bool had_previous; /* false: the xattr did not exist */
        char *previous;
        char *written;
} AppliedItem;

typedef struct CgroupRecord {
        char *cgroup;
        GPtrArray *items; /* AppliedItem* */
} CgroupRecord;

CgroupRecord *cgroup_record_new(const char *cgroup);
CgroupRecord *cgroup_record_free(CgroupRecord *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CgroupRecord, cgroup_record_free)
/* A line-based text form, for /run/policyd: "cgroup\tPATH", then one line per
 * item, "xattr|file\tTARGET\tHAD_PREVIOUS\tPREVIOUS\tWRITTEN", fields
 * g_strescape()d. parse rejects malformed input with -EBADMSG, including
 * targets that are not user.* xattrs or plain file names. */
char *cgroup_record_serialize(const CgroupRecord *r);
int cgroup_record_parse(const char *text, CgroupRecord **ret);

/* The item for backend and target, and its index; NULL if there is none. */
AppliedItem *cgroup_record_find(const CgroupRecord *r, Backend b, const char *target, guint *ret_index);
/* What [Match] XAttr= sees of the xattr name, whose value is current: while
 * it holds what policyd wrote, the value from before policyd wrote it (NULL:
 * there was none), since policyd's output is no input (a group that matches
 * x=a and writes x=b must not leave by its own write, and come back when
 * the undo puts a back); otherwise current, someone else's value. */
const char *cgroup_record_xattr_input(const CgroupRecord *r, const char *name, const char *current);
/* Whether target is something policyd may write for backend: a user.*
 * xattr, or a plain file name, within NAME_MAX. */
bool cgroup_record_target_is_valid(Backend b, const char *target);

/* Rejects "." and "..", empty components, control characters and paths not
 * starting with "/". "/" itself is the root, and valid. */
int cgroup_path_validate(const char *cgroup);
