/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

/* PolicyGroup= from systemd unit files. systemd itself warns about the
 * unknown key PolicyGroup= and ignores X-PolicyGroup= silently; neither
 * reaches D-Bus, so we read the files (FragmentPath and DropInPaths). */

#include <glib.h>
#include <stdbool.h>

#include "conf-parse.h"
#include "diagnostics.h"

/* The section named after the unit type ("Service" for foo.service), or
 * NULL for a name without a known type. */
const char *unit_type_section(const char *unit_name);

/* Reads PolicyGroup= and X-PolicyGroup= in [Unit] or the unit type's section
 * of fragment, then of each drop-in in the order given (systemd's order:
 * later wins). Values are space-separated lists that accumulate; an empty
 * assignment resets. Unreadable files are diagnostics, not failures; bad
 * group names are errors naming file:line. fragment may be NULL (transient
 * units). *ret is a NULL-terminated, de-duplicated list, possibly empty.
 * reader: whose files they are. 0 for PID 1's units; a user manager's unit
 * files are read only where that uid could read them
 * (config_file_open_as_user()), so that what a user names never makes root
 * read for them what they may not. */
int unit_file_read_policy_groups(const char *unit_name, const char *fragment, const char *const *dropins,
                                 uid_t reader, char ***ret, Diagnostics *diags);

/* Adds the groups one parsed unit file names to groups (char*), honouring
 * empty assignments. */
void unit_file_collect_policy_groups(const char *unit_name, const ConfFile *f, GPtrArray *groups,
                                     Diagnostics *diags);

/* "a-b.slice" → a-b.slice, a.slice, -.slice: systemd's slice names encode
 * their parents. NULL-terminated; empty for NULL or a non-slice. */
char **unit_slice_chain(const char *slice);

/* policyd-generator's drop-ins: this file name, in a NAME.d directory of
 * one of systemd's generator directories. */
#define GENERATOR_DROPIN_FILE "50-policy-groups.conf"

/* /run/systemd/generator{,.early,.late}/NAME.d/50-policy-groups.conf */
bool unit_dropin_is_generated(const char *path);

/* One assignment of a systemd property in a unit's files, as written. */
typedef struct UnitPropertyAssignment {
        char *file;
        char *value;
} UnitPropertyAssignment;

/* Every assignment of property in the unit type's section ([Service] for
 * foo.service) of fragment and then dropins, in the order given (systemd's
 * DropInPaths order, in which a later one wins). Unreadable files are
 * skipped. reader as for unit_file_read_policy_groups(). *ret is a
 * GPtrArray of UnitPropertyAssignment*, owning them. */
int unit_file_read_property(const char *unit_name, const char *fragment, const char *const *dropins,
                            uid_t reader, const char *property, GPtrArray **ret);

/* A property's unit-file spelling in policyd's string form (as
 * read_variant_as_string() gives systemd's answer). An empty value resets
 * to systemd's default. -EINVAL for a value systemd ignores (the one before
 * stays), -EOPNOTSUPP for one that cannot be told here: a MemorySwapMax= in
 * percent of physical memory. */
int systemd_property_from_unit_file(const char *property, const char *value, char **ret);

/* What policyd records as the value to restore before it first sets
 * property through systemd, from current (what systemd reports) and the
 * unit's assignments (unit_file_read_property()). Pure.
 *
 * When the assignment that wins is in our generated drop-in and gives
 * current, current is ours: recording it would make undo pin our value.
 * Then *ret is what the administrator's files give without our drop-in,
 * systemd's default when they say nothing, or "" ("unset": nothing to
 * restore) when that cannot be told; returns 1. Otherwise *ret is current
 * and returns 0. */
int unit_property_previous(const char *property, const char *current, const GPtrArray *assignments, char **ret);

/* systemd's runtime drop-ins of SetUnitProperties(runtime=yes), written
 * for each property: RUNTIME_CONTROL_DIR/UNIT.d/50-PROPERTY.conf. */
#define RUNTIME_CONTROL_DIR "/run/systemd/system.control"

/* Whether path is a drop-in in RUNTIME_CONTROL_DIR (exactly UNIT.d/FILE). */
bool unit_dropin_is_runtime_control(const char *path);

/* Whether the runtime drop-in systemd wrote when policyd restored property
 * to restored only restates what the unit's other files give, so that
 * removing it changes nothing after the next daemon-reload. assignments:
 * unit_file_read_property() of the unit's fragment and drop-ins; those in
 * RUNTIME_CONTROL_DIR and policyd-generator's are not counted (the one is
 * the file in question or another property's, the other goes with the
 * package). True when the assignment that wins gives exactly restored, or
 * none does and restored is systemd's default. False when the winner
 * cannot be told here (a percentage). Pure. */
bool unit_property_dropin_restates_files(const char *property, const char *restored, const GPtrArray *assignments);

/* Whether "" is a value of property that undo can restore: for
 * AllowedMemoryNodes= it is systemd's default (every node). For the others,
 * a recorded "" means that there is nothing to restore to. */
bool systemd_property_empty_is_value(const char *property);

/* Compares two values of a systemd property in the string forms policyd
 * uses: "infinity" or bytes, yes/no, NUMA node lists. */
bool systemd_property_value_equal(const char *property, const char *a, const char *b);

/* The unit directories systemd reads for the system manager, strongest first
 * (systemd-analyze unit-paths on systemd 257). unit-lookup.h finds units
 * and their drop-ins in them. */
extern const char *const unit_search_dirs[];
