/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Directory search, masking, drop-ins and --root, as systemd does them for
 * unit files and *.conf.d, and the tables that turn policy files and
 * policyd.conf into objects. */

#include <glib.h>
#include <stdbool.h>

#include "conf-parse.h"
#include "diagnostics.h"
#include "policy-group.h"

/* Strongest first: the first file with a given name wins. */
extern const char *const policy_search_dirs[];  /* /etc/policy.d … /usr/lib/policy.d */
extern const char *const config_search_dirs[];  /* /etc … /usr/lib, for policyd.conf */

#define POLICY_SUFFIX ".policy"
#define DROPIN_SUFFIX ".conf"

/* One configuration name after the search: the winning file and the drop-ins
 * that apply to it, in the order they are applied. */
typedef struct ConfigSource {
        char *name;      /* "foreground" for foreground.policy */
        char *file;      /* the winning main file; NULL when only drop-ins exist */
        bool masked;     /* the winner is empty or a symlink to /dev/null */
        GPtrArray *dropins; /* char* paths, sorted by file name; same-named ones from weaker dirs are dropped */
} ConfigSource;

ConfigSource *config_source_free(ConfigSource *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ConfigSource, config_source_free)

/* Prefixes root (NULL or "/" for none) to each dir and lists every
 * "NAME<suffix>" and the *.conf files in "NAME<suffix>.d". Returns ConfigSource*
 * sorted by name. Unreadable directories are skipped. */
int config_sources_find(const char *root, const char *const *dirs, const char *suffix, GPtrArray **ret,
                        Diagnostics *diags);

/* The same for one fixed file name ("policyd.conf"); *ret is NULL when
 * neither the file nor any drop-in exists. */
int config_source_find_one(const char *root, const char *const *dirs, const char *filename, ConfigSource **ret,
                           Diagnostics *diags);

/* true when path is an empty file or a symlink to /dev/null. */
bool config_file_is_masked(const char *path);

/* Refuses (false, with a warning) files not owned by root or the caller, or
 * writable by group or others. */
bool config_file_is_trusted(const char *path, Diagnostics *diags);

/* Applies one parsed file (a main file or a drop-in) on top of g. */
void policy_group_apply_conf(PolicyGroup *g, const ConfFile *f, Diagnostics *diags);

/* Builds one group from its main file and drop-ins. The group keeps the file
 * names for cat-config and provenance. */
PolicyGroup *policy_group_load(const ConfigSource *source, Diagnostics *diags);

/* Loads one NAME.policy with the drop-ins in NAME.policy.d beside it, and
 * nothing else. *ret is NULL when the file is masked or refused. */
int policy_group_load_file(const char *path, PolicyGroup **ret, Diagnostics *diags);

/* Loads every group found under root in dirs (policy_search_dirs when NULL). */
int policy_set_load(const char *root, const char *const *dirs, PolicySet **ret, Diagnostics *diags);

/* Parses one policy file (and its NAME.policy.d next to it) on its own, for
 * verify; or a drop-in, which is checked against the same table. */
int policy_file_verify(const char *path, Diagnostics *diags);

/* Checks that need the whole group, such as NUMAPolicy=bind without
 * NUMANodes=; a setting that cannot work is dropped, with an error. */
void policy_group_check(PolicyGroup *g, Diagnostics *diags);

/* policyd.conf */
typedef struct DaemonConfig {
        unsigned rescan_interval_sec; /* 0: off; only a safety net */
        bool dry_run;
        GPtrArray *swap_tiers;  /* SwapTier*, [SwapTiers] Tier= in order; owned */
        bool swap_tiers_valid;  /* set by daemon_config_check() */
} DaemonConfig;

void daemon_config_init(DaemonConfig *c);
void daemon_config_done(DaemonConfig *c);
void daemon_config_load_file(DaemonConfig *c, const ConfFile *f, Diagnostics *diags);
/* Loads policyd.conf and its drop-ins, then daemon_config_check(). */
int daemon_config_load(const char *root, DaemonConfig *c, Diagnostics *diags);
/* Checks what needs every file: the declared swap tiers as a whole. */
void daemon_config_check(DaemonConfig *c, Diagnostics *diags);
