/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Changes of the attributes of subjects' cgroups, for [Match] XAttr= and
 * self-requests (user.policy.request): inotify IN_ATTRIB on each cgroup's
 * parent directory, which names the child whose xattrs, owner or mode
 * changed. One watch serves every subject of a slice, so their number is
 * that of the parent directories, not of the units.
 *
 * Armed only while some loaded group reads attributes
 * (policy_set_reads_attributes()). A change is handed to
 * manager_cgroup_attributes_changed(), which reads the attributes again and
 * applies only when they differ from those of the last resolution: policyd's
 * own writes (the group tag, [Attributes]) raise events too, read back in
 * the same wakeup as the apply, and change nothing.
 *
 * A cgroup whose attributes changed is kept open (attr_watch_cgroup()), its
 * next change being likely (focus comes and goes): the same watch's
 * IN_DELETE closes it when the cgroup is removed.
 *
 * InactiveFor= needs time to pass, not a change: one timer, at the earliest
 * time an InactiveFor= starts to hold for a subject (Resolution's
 * focus_deadline_usec), set only while some subject waits for one. */

#include <stdbool.h>
#include <stdint.h>

typedef struct Manager Manager;
typedef struct Subject Subject;
typedef struct AttrWatch AttrWatch;
typedef struct CgroupHandle CgroupHandle;

int attr_watch_new(Manager *m, AttrWatch **ret);
AttrWatch *attr_watch_free(AttrWatch *w);

/* The policy set was swapped in: arm (watching every subject's cgroup) or
 * disarm. */
void attr_watch_policies_changed(AttrWatch *w);
/* The subject was resolved with its cgroup: watch it there, and wake at
 * focus_deadline_usec (the Resolution's; FOCUS_UNSET: no InactiveFor= waits).
 * parent_current: its cgroup was opened through the watched parent
 * (attr_watch_cgroup()), so that watch is still the right one. */
void attr_watch_subject_applied(AttrWatch *w, const Subject *s, uint64_t focus_deadline_usec, bool parent_current);
void attr_watch_subject_gone(AttrWatch *w, const char *key);
/* The watched subject's cgroup, its directory opened with one openat()
 * from the parent directory its watch holds (no walk from the root), or
 * NULL when there is none (not watched, another cgroup now, or gone), and
 * the caller walks. The handle is the watch's: it stays open until the
 * next call, or with keep, while the watch holds the directory (until the
 * subject is gone, applied with another cgroup, or its cgroup removed),
 * with the knob files written through it. keep: only in answer to an
 * event, when every removal before it is known (IN_DELETE is read with
 * it); a directory kept open since would otherwise be a removed one. */
CgroupHandle *attr_watch_cgroup(AttrWatch *w, const char *key, const char *cgroup, bool keep);

/* For status: how attribute changes are noticed. */
char *attr_watch_describe(const AttrWatch *w);
