/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Unit lookup as systemd 257 does it for the system manager: which file is a
 * unit's fragment, which names are its aliases, and which drop-ins it reads,
 * in which order. Only filesystem reads, all of them below an optional root
 * (--root), where absolute symlinks resolve inside the root, as systemd's
 * chase() with a root prefix does. No bus code: the generator and the tests
 * use it; policyd asks systemd for FragmentPath and DropInPaths instead.
 *
 * Paths handed out are the ones systemd shows (FragmentPath, DropInPaths):
 * relative to the root, starting with '/'. The *_file twins say where to read
 * them on this machine. */

#include <glib.h>
#include <stdbool.h>
#include <sys/types.h>

typedef struct UnitLookup UnitLookup;

typedef enum UnitLookupFlags {
        /* Look a template (foo@.service) up as "any instance of it": its
         * drop-ins are those every instance reads, including the instance
         * prefix directories (foo-@.service.d), and none that name an
         * instance. */
        UNIT_LOOKUP_ANY_INSTANCE = 1 << 0,
} UnitLookupFlags;

typedef struct UnitInfo {
        char *id;         /* the unit's main name: its fragment's name, with the instance put in */
        char *fragment;   /* FragmentPath: the unit file, or the link to it or to /dev/null; NULL when none */
        char *fragment_file; /* where to read it here; NULL when the fragment is a dangling or looping link */
        bool masked;      /* the fragment is /dev/null or empty */
        char **aliases;   /* the other names of the unit, sorted */
        char **dropin_names; /* whose NAME.d systemd reads, in its order; the type ("service") last */
        char **dropin_dirs;  /* those that exist, symlinks resolved, in systemd's order */
        char **dropins;      /* DropInPaths: *.conf of dropin_dirs, a basename found first winning, sorted by basename */
        char **dropin_files; /* where to read each of dropins here, in the same order */
} UnitInfo;

/* Reads the unit directories of search_path (strongest first) below root
 * (NULL or "/" for none) and builds systemd's name map. Missing or
 * unreadable directories are skipped, as systemd skips them. */
int unit_lookup_new(const char *root, const char *const *search_path, UnitLookup **ret);
UnitLookup *unit_lookup_free(UnitLookup *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(UnitLookup, unit_lookup_free)

/* Every unit name the directories hold (files, links, masks, aliases), and
 * every NAME.d directory name without the ".d", each sorted. */
char **unit_lookup_list_names(const UnitLookup *l);
char **unit_lookup_list_dropin_dir_names(const UnitLookup *l);

/* Looks name up: -EINVAL for an invalid unit name. A name without a
 * fragment still gets its drop-ins, though systemd shows none for a unit it
 * does not find: a transient unit of that name would read them. A masked
 * unit has none, as in systemd. A bare type ("service") gives the type
 * directory's drop-ins alone. */
int unit_lookup_unit(const UnitLookup *l, const char *name, UnitLookupFlags flags, UnitInfo **ret);
UnitInfo *unit_info_free(UnitInfo *i);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(UnitInfo, unit_info_free)

/* Where to read path (as systemd names it) on this machine: symlinks
 * resolved inside the root. Never fails: an unresolvable path is returned
 * below the root, so that opening it fails as it would for systemd. */
char *unit_lookup_file(const UnitLookup *l, const char *path);

/* ---- unit names, as systemd's unit-name.c reads them ---- */

typedef enum UnitNameKind {
        UNIT_NAME_INVALID = 0,
        UNIT_NAME_PLAIN,    /* foo.service */
        UNIT_NAME_TEMPLATE, /* foo@.service */
        UNIT_NAME_INSTANCE, /* foo@bar.service */
} UnitNameKind;

UnitNameKind unit_name_kind(const char *name);
/* "foo@bar.service" → "foo@.service"; NULL unless an instance. */
char *unit_name_to_template(const char *name);
/* "service" for foo.service; NULL for an invalid name. Points into name. */
const char *unit_name_type(const char *name);
bool unit_type_is_valid(const char *type);

/* The names whose NAME.d directories systemd reads for name, in its order,
 * without the type directory: name, the template of an instance (and its
 * own prefixes), then the dash prefix ("foo-bar@x.service" → "foo-@x.service")
 * and its expansion in turn. */
char **unit_name_dropin_names(const char *name);

/* Whether the unit's type has a cgroup context in systemd ("foo.service"
 * yes, "foo.target" no: the others never run processes). */
bool unit_type_has_cgroup(const char *unit);
/* systemd's D-Bus interface for the unit's type, which carries
 * ControlGroup and the resource properties; NULL for a type without a
 * cgroup. */
const char *unit_type_interface(const char *unit);

/* ---- units of a user's manager, as policyd keys them ---- */

/* Units of a user's manager are keyed "user@UID/UNIT":
 * target_argument_user_unit() reads that. */
/* "user@1000.service" → 1000: PID 1's unit of a user's manager. */
int user_manager_unit_parse(const char *unit, uid_t *ret_uid);
