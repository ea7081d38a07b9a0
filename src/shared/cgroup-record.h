/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What policyd wrote on one cgroup, and what was there before: enough to
 * undo exactly that, and nothing else. */

#include <glib.h>
#include <stdbool.h>

#include "cgroup-plan.h"

/* The longest previous value of an xattr kept whole. An xattr on a cgroup
 * its user owns holds what that user wrote, up to 64 KiB, and each record
 * of it goes to /run, which everyone shares (issue 23): a longer one is
 * kept as its digest, and not restored. 4 KiB is one page, the buffer of
 * the first read, and far more than a tag or flag a person or a desktop
 * writes. Knob files are not capped: the kernel bounds their values. */
#define CGROUP_RECORD_PREVIOUS_MAX 4096U
#define CGROUP_RECORD_DIGEST_PREFIX "sha256:"

/* One thing policyd wrote on one cgroup, and what was there before. */
typedef struct AppliedItem {
        Backend backend;   /* BACKEND_XATTR or BACKEND_CGROUP_FILE */
        char *target;
        bool had_previous; /* false: the xattr did not exist */
        bool previous_is_digest; /* previous is "sha256:HEX" of a longer value: compared, never restored */
        char *previous;
        char *written;
} AppliedItem;

/* Sets what was there before policyd's first write (present false: no
 * xattr), as a digest when it is an xattr's value over
 * CGROUP_RECORD_PREVIOUS_MAX bytes. */
void applied_item_set_previous(AppliedItem *it, bool present, const char *value);
/* Whether present/value is what was there before (for a digest: the same
 * digest). */
bool applied_item_previous_is(const AppliedItem *it, bool present, const char *value);
/* Whether undo can put the previous value back: not when only its digest
 * was kept. */
bool applied_item_can_restore(const AppliedItem *it);

typedef struct CgroupRecord {
        char *cgroup;
        GPtrArray *items; /* AppliedItem* */
} CgroupRecord;

CgroupRecord *cgroup_record_new(const char *cgroup);
CgroupRecord *cgroup_record_free(CgroupRecord *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CgroupRecord, cgroup_record_free)
/* A line-based text form, for /run/policyd: "cgroup\tPATH", then one line per
 * item, "xattr|file\tTARGET\tHAD_PREVIOUS\tPREVIOUS\tWRITTEN", fields
 * g_strescape()d; HAD_PREVIOUS is 1, 0, or d (PREVIOUS is a digest). parse rejects malformed input with -EBADMSG, including
 * targets that are not user.* xattrs or plain file names. */
char *cgroup_record_serialize(const CgroupRecord *r);
int cgroup_record_parse(const char *text, CgroupRecord **ret);
/* One item's line of that form, without its newline; and one parsed. */
char *applied_item_serialize(const AppliedItem *it);
int applied_item_parse(const char *line, AppliedItem **ret);
AppliedItem *applied_item_free(AppliedItem *it);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AppliedItem, applied_item_free)

/* The item for backend and target, and its index; NULL if there is none. */
AppliedItem *cgroup_record_find(const CgroupRecord *r, Backend b, const char *target, guint *ret_index);
/* What [Match] XAttr= sees of the xattr name, whose value is current: while
 * it holds what policyd wrote, the value from before policyd wrote it (NULL:
 * there was none, or only its digest was kept), since policyd's output is no input (a group that matches
 * x=a and writes x=b must not leave by its own write, and come back when
 * the undo puts a back); otherwise current, someone else's value. */
const char *cgroup_record_xattr_input(const CgroupRecord *r, const char *name, const char *current);
/* Whether target is something policyd may write for backend: a user.*
 * xattr, or a plain file name, within NAME_MAX. */
bool cgroup_record_target_is_valid(Backend b, const char *target);

/* Rejects "." and "..", empty components, control characters and paths not
 * starting with "/". "/" itself is the root, and valid. */
int cgroup_path_validate(const char *cgroup);
