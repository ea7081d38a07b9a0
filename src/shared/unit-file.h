/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

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
 * units). *ret is a NULL-terminated, de-duplicated list, possibly empty. */
int unit_file_read_policy_groups(const char *unit_name, const char *fragment, const char *const *dropins,
                                 char ***ret, Diagnostics *diags);

/* Adds the groups one parsed unit file names to groups (char*), honouring
 * empty assignments. */
void unit_file_collect_policy_groups(const char *unit_name, const ConfFile *f, GPtrArray *groups,
                                     Diagnostics *diags);

/* "a-b.slice" → a-b.slice, a.slice, -.slice: systemd's slice names encode
 * their parents. NULL-terminated; empty for NULL or a non-slice. */
char **unit_slice_chain(const char *slice);

/* Compares two values of a systemd property in the string forms policyd
 * uses: "infinity" or bytes, yes/no, NUMA node lists. */
bool systemd_property_value_equal(const char *property, const char *a, const char *b);

/* The unit directories systemd reads for the system manager, strongest first
 * (systemd-analyze unit-paths on systemd 257). unit-lookup.h finds units
 * and their drop-ins in them. */
extern const char *const unit_search_dirs[];
