/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The Manager owns the event loop, the bus connection, the loaded policy
 * set, the cache of systemd units and cgroups it manages, and the records
 * of what it wrote. Everything else borrows from it. */

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-names.h"
#include "cgroup-apply.h"
#include "diagnostics.h"
#include "policy-group.h"
#include "policy-load.h"
#include "resolve.h"

#define POLICYD_STATE_DIR "/run/policyd"

typedef struct Manager Manager;

/* One systemd property policyd set on a unit, and what was there before. */
typedef struct PropertyRecord {
        char *property;  /* "MemorySwapMax" */
        char *previous;  /* as the unit reported it before the first write */
        char *written;
} PropertyRecord;

/* A subject of policy: a unit with a cgroup, or a cgroup assigned by path.
 * (Not "target": that is a kind of systemd unit.) */
typedef struct Subject {
        Manager *manager;
        char *unit;          /* NULL for a cgroup no unit owns */
        char *object_path;   /* systemd's object for the unit */
        char *cgroup;        /* below the cgroup root; NULL while the unit has none */
        char *slice;
        char *user;
        char *fragment;
        char **dropins;
        char *active_state;
        GHashTable *unit_properties; /* systemd property → current value as string */

        Resolution *resolution;      /* last resolution; NULL before the first */
        CgroupRecord *record;        /* what policyd wrote on the cgroup */
        GPtrArray *property_records; /* PropertyRecord*, what policyd set through systemd */
        /* property → the group's value, which systemd held from the unit's
         * files (policyd-generator's drop-in) so that policyd set nothing.
         * When systemd's value moves on after a daemon-reload, its kernel
         * file follows (systemd does not write it for a running unit). */
        GHashTable *relied_properties;
        GPtrArray *last_report;      /* Action* of the last apply, for explain */

        char *no_space_logged;       /* the xattrs last reported as not fitting */
        bool needs_daemon_reload;    /* a group its unit file names changed since systemd last ran the generator */
        unsigned refresh_generation; /* drops replies of superseded refreshes */
        bool refresh_queued;
} Subject;

struct Manager {
        sd_event *event;
        sd_bus *bus;
        char *cgroup_root;         /* where cgroup2 is mounted, found with libmount */
        char *state_dir;

        DaemonConfig config;
        PolicySet *policies;
        Diagnostics *diagnostics;  /* of the last load */
        uint64_t last_reload_usec;
        SystemFacts *facts;

        GHashTable *subjects;      /* key (unit name or cgroup path) → Subject* */
        GHashTable *assignments;   /* subject key → GPtrArray* of group names (runtime) */
        GHashTable *exclusions;    /* subject key → GPtrArray* of group names unassigned at runtime */
        GHashTable *user_names;    /* uid + 1 → user name or NULL, until the next reload */

        bool dry_run;              /* --dry-run, or DryRun= in policyd.conf */
        bool dry_run_argument;     /* --dry-run alone: a reload cannot turn it off */
        bool once;
        bool started;              /* READY=1 sent; later loads are reloads */
        bool subscribed;
        unsigned pending_calls;    /* all calls in flight; --once exits at zero after start */
        GQueue *refresh_queue;     /* keys of units waiting to be re-read */
        unsigned refreshes_in_flight;
        bool startup_listed;
        unsigned reconnect_attempt;
        sd_event_source *reconnect_timer;
        sd_event_source *rescan_timer;
        int exit_code;
};

int manager_new(const char *cgroup_root, bool dry_run, bool once, Manager **ret);
Manager *manager_free(Manager *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Manager, manager_free)

int manager_start(Manager *m);
int manager_run(Manager *m);

/* Loads policy files and policyd.conf into a new set and swaps it in,
 * then re-resolves every subject. The old set stays when loading fails. */
int manager_reload(Manager *m);

/* Re-reads a unit from systemd and applies its groups (asynchronous). */
void manager_refresh_unit(Manager *m, const char *unit, const char *object_path);
void manager_refresh_all(Manager *m);
/* systemd finished a daemon-reload: generator drop-ins are fresh again. */
void manager_systemd_reloaded(Manager *m);
void manager_forget_unit(Manager *m, const char *unit);

/* Resolves and applies one subject with what is known about it now. */
void subject_apply(Subject *s);
Subject *manager_find_subject(Manager *m, const char *key);
/* unit name, cgroup path, or PID as a string → key of a subject. */
int manager_resolve_target_argument(Manager *m, const char *arg, char **ret_key, char **ret_cgroup);

int manager_assign(Manager *m, const char *key, const char *group, bool assign);

/* Writes the subject's records under the state directory (not in dry run). */
void manager_save_subject(Manager *m, Subject *s);

void manager_update_rescan_timer(Manager *m);
/* Drops the bus connection and connects again a moment later (with --once:
 * exits instead). Policies already applied stay. */
void manager_reconnect_later(Manager *m);
/* Called once the bus name is ours: only then do we start changing things. */
void manager_name_acquired(Manager *m);

/* A unit refresh ended (replied, failed or superseded): start the next. */
void manager_refresh_finished(Manager *m);

void manager_call_started(Manager *m);
void manager_call_finished(Manager *m);
