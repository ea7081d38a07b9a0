/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One subject, one pass: gather, resolve, plan, then write the cgroup
 * (write-ahead records) and set systemd's properties, and undo what the
 * groups no longer want. */

#include <systemd/sd-bus.h>

#include "subject.h"

typedef struct CandidateData CandidateData;
typedef struct CgroupHandle CgroupHandle;

void subject_apply(Subject *s);
/* The same, with the cgroup's attributes read already (gather_attributes(),
 * into gathered, which the caller clears): not read a second time; and
 * written through cgroup, opened through the watched parent
 * (attr_watch_cgroup(); borrowed), or NULL: walked to from the root. */
void subject_apply_gathered(Subject *s, CandidateData *gathered, CgroupHandle *cgroup);

/* systemd answered a SetUnitProperties call (error NULL: it took it): log
 * it, and settle the records. s is NULL when the subject went away. */
void subject_properties_set(Subject *s, const char *unit, GPtrArray *changes, bool undo, const sd_bus_error *error);

/* The journal line for one write or undo of a plan (who: the unit or
 * cgroup, named in the text and in UNIT=); a change made (or that would
 * be) at change_level, LOG_NOTICE but for routine ones. */
/* For status: how many subjects wait for a record that could not be
 * written ahead (their changes not made), or that all were written. */
char *apply_describe_record_failures(Manager *m);
/* For explain: why the subject's changes are not made, or NULL. */
char *apply_describe_record_failure(const Subject *s);

void apply_log_action(const char *who, const Action *a, int change_level);
