/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What policyd keeps under /run/policyd so that a restart re-adopts its own
 * writes instead of mistaking them for the administrator's:
 *
 *   assignments          runtime Assign/Unassign, one "+|-<TAB>KEY<TAB>GROUP[<TAB>UID]" a
 *                        line; UID (of who made it) only when not 0, so that a
 *                        line of root's reads as before, and an older policyd
 *                        drops a user's line as malformed instead of
 *                        trusting it
 *   cgroups/KEY          CgroupRecord of a subject (cgroup_record_serialize)
 *   cgroups.intent       the write-ahead log of cgroup records: "KEY<TAB>CHANGES" a
 *                        line, what changed in the record since the last line
 *                        (state_intent_changes()); newer than cgroups/KEY, and
 *                        carried into it at a checkpoint or the next start
 *   properties/KEY       PropertyRecords: "PROPERTY<TAB>PREVIOUS<TAB>WRITTEN", escaped
 *
 * KEY is the subject key (unit name or cgroup path), URI-escaped, hashed
 * when long (state_file_name()). Files are replaced atomically (write,
 * rename), and each record is written before the writes it describes
 * (write-ahead): appended to cgroups.intent then, which is one write()
 * where replacing cgroups/KEY is four syscalls, on the path of every focus
 * change; cgroups/KEY follows at a checkpoint a moment later, which
 * empties the log (subject.c). A corrupt file is logged and ignored. */

#include <glib.h>
#include <stdint.h>

#include "cgroup-apply.h"

typedef struct PropertyRecord PropertyRecord;

/* One group of a key in the assignments or exclusions table, and the uid
 * that put it there (self-assign.h: a user's holds only while the target is
 * theirs). */
typedef struct RuntimeAssignment {
        char *group;
        uid_t uid;
} RuntimeAssignment;

void runtime_assignment_free(RuntimeAssignment *a);

/* Adds group to key's list in an assignments or exclusions table (values:
 * GPtrArray* of RuntimeAssignment*), once. Root's entry stays root's when a
 * user adds it again; any other is then the last adder's. */
void assignment_table_add(GHashTable *table, const char *key, const char *group, uid_t uid);

int state_save_assignments(const char *dir, GHashTable *assignments, GHashTable *exclusions);
int state_load_assignments(const char *dir, GHashTable *assignments, GHashTable *exclusions);

int state_save_cgroup_record(const char *dir, const char *key, const CgroupRecord *record);
int state_load_cgroup_record(const char *dir, const char *key, CgroupRecord **ret);

/* The change from a key's record as saved last (old_text; "" for none,
 * NULL when unknown) to new_text, as the log holds it: changes separated
 * by 0x1e, each "cgroup<TAB>PATH" (a new, empty record), "none" (no
 * record), an item's whole line (cgroup-record.h), "w<TAB>KIND<TAB>TARGET
 * <TAB>WRITTEN" (only its written value) or "drop<TAB>KIND<TAB>TARGET".
 * Each is absolute, so that a line replayed over a newer file changes
 * nothing. NULL when nothing changed. */
char *state_intent_changes(const char *old_text, const char *new_text);
/* Appends key's change (state_intent_changes()) to cgroups.intent in one
 * write(), opening the log into *fd on first use (kept open by the
 * caller); nothing when nothing changed. Returns the bytes appended (a
 * checkpoint comes by size as well as by time). */
int state_intent_append(const char *dir, int *fd, const char *key, const char *old_text, const char *new_text);
/* Whether a log with lines is there (left by a run that was killed). */
bool state_intent_holds_lines(const char *dir);
/* Empties the log: every record in it is in its own file now (fd < 0:
 * not opened yet, removed by name). */
int state_intent_clear(const char *dir, int fd);
/* At start, before any record is read: the log is read line by line
 * (of any size), each key's file is its base, and the changes of each
 * whole line are applied to it in order; the result goes to its file. A
 * line cut short (policyd killed in its write; no cgroup write followed),
 * malformed, or changing a record that is not there, is left out, the
 * first few with a warning naming the line. The log then goes. A record
 * whose file cannot be written goes into unwritten (name → its text, ""
 * for none), and the log stays, for a checkpoint to empty once their
 * files are written (a negative errno then). Returns the number of records
 * carried over. */
int state_intent_replay(const char *dir, GHashTable *unwritten);

int state_save_property_records(const char *dir, const char *key, const GPtrArray *records);
/* The text of properties/KEY for records ("" for none). */
char *property_records_serialize(const GPtrArray *records);
int state_load_property_records(const char *dir, const char *key, GPtrArray *records);

void property_record_free(PropertyRecord *r);

/* The file name for key: URI-escaped, and with a SHA-256 of the key in
 * place of the tail when that would exceed NAME_MAX. */
char *state_file_name(const char *key);
/* The key a file name stands for; NULL when the name holds a hash (the key
 * is not in it) or is not one state_file_name() makes. */
char *state_file_name_to_key(const char *name);

/* For the records of subjects policyd no longer has, found by file name
 * (sub: "cgroups" or "properties"): the names of the regular files in
 * dir/sub, sorted (none when it does not exist); a record read, written
 * (an empty one removes the file) or removed by name. Nothing is logged. */
int state_list_records(const char *dir, const char *sub, GPtrArray **ret);
int state_load_cgroup_record_file(const char *dir, const char *name, CgroupRecord **ret);
int state_save_cgroup_record_file(const char *dir, const char *name, const CgroupRecord *record);
int state_remove_record(const char *dir, const char *sub, const char *name);
