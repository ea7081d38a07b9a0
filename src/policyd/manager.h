/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The Manager owns the event loop, the bus connection, the loaded policy
 * set, the cache of systemd units and cgroups it manages, and the records
 * of what it wrote. Everything else borrows from it.
 *
 * A value flows one way through the files of this directory:
 *   watchers         parse what they see into plain values and hand them
 *                    to one manager entry point; they never call each other
 *     systemd-watch.c  systemd's signals and replies → a UnitSnapshot, for
 *                      each SystemdLink: PID 1, and users' managers
 *     user-managers.c  a link for each running user@UID.service
 *     attr-watch.c     changes of cgroup xattrs, for [Match] XAttr= and
 *                      self-requests
 *     exec-watch.c     exec events from the proc connector, for Executable=
 *     swap-watch.c     swap devices and tiers that change: percentages of
 *                      swap and SwapTiers= planned again
 *     process-*.c      the processes of member cgroups: KSM= and NUMAPolicy=
 *                      through the injector helper (inject-client.c);
 *                      process-watch.h is its interface, and
 *                      process-watch-internal.h lists its files by job
 *   manager.c        the entry points (manager_unit_snapshot(), ...), the
 *                    refresh queue, reloads, the bus connection; and
 *                    manager_apply_subject(), the one way to apply, which
 *                    then tells the watchers, the bus and the refresh queue
 *                    what the pass changed (apply.h's ApplyOutcome)
 *   subject.c        the cache: one Subject per unit or assigned cgroup
 *   gather.c         what matching needs, read from the cgroup and files;
 *                    gather_subject_plan(): the resolution, the cgroup plan
 *                    and the unit plan, for apply and for Explain alike
 *   (src/shared)     resolve.c, cgroup-plan.c, unit-plan.c, process-plan.c:
 *                    pure, table-tested
 *   apply.c          executes the plans: cgroup writes, SetUnitProperties,
 *                    undo; tells no one, returns an outcome
 *   state-store.c    the records, written ahead of each change
 *   sweep.c          once at start: records of units and cgroups gone
 *                    while policyd was not running (not a watcher: it asks
 *                    user-managers.c whether a user's manager runs)
 * bus-api.c marshals our D-Bus interface; assign.c keeps runtime
 * assignments. A new watcher goes with the watchers: it owns its event
 * sources, hands what it saw to a manager entry point, and reaches
 * another watcher only through a manager_*() function. One interface is
 * shared: a SystemdLink (systemd-watch.h) is a connection to a systemd
 * instance, which the manager holds (system, user_links); user-managers.c
 * opens and closes the users' ones with systemd_link_*(), and every
 * snapshot they bring still goes to the manager. */

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
#include "subject.h"
#include "sweep.h"

typedef struct ProcessWatch ProcessWatch;
typedef struct ExecWatch ExecWatch;
typedef struct AttrWatch AttrWatch;
typedef struct SwapWatch SwapWatch;
typedef struct SwapTierPass SwapTierPass;
typedef struct SystemdLink SystemdLink;
typedef struct CandidateData CandidateData;
typedef struct CgroupHandle CgroupHandle;

#define POLICYD_STATE_DIR "/run/policyd"


struct Manager {
        sd_event *event;
        sd_bus *bus;               /* the system bus: our name, and PID 1 (system) */
        sd_bus_track *subscribed;  /* clients that called Subscribe(), on bus */
        SystemdLink *system;       /* PID 1, over bus */
        GHashTable *user_links;    /* uid → SystemdLink* of a running user@UID.service (user-managers.c) */
        char *cgroup_root;         /* where cgroup2 is mounted, found with libmount */
        char *state_dir;
        int intent_fd;             /* state_dir/cgroups.intent, opened on first use (state-store.h) */
        unsigned intents_pending;  /* subjects whose newest record is only in it */
        bool intent_dirty;         /* it holds lines */
        uint64_t intent_bytes;     /* appended since it was last emptied: a checkpoint by size */
        GHashTable *intent_unwritten; /* file name → record text it holds that no file has yet
                                       * (a failed carry or save): written at a checkpoint */
        bool intent_failing;       /* the last checkpoint could not write every file */
        uint64_t intent_since;     /* CLOCK_MONOTONIC of its first line since it was emptied */
        uint64_t intent_last;      /* and of its last */
        sd_event_source *intent_checkpoint; /* its lines to the records' files (subject.c) */

        DaemonConfig config;
        PolicySet *policies;
        char **xattr_names;        /* the attributes some group reads (policy_set_xattr_names()) */
        Diagnostics *diagnostics;  /* of the last load */
        uint64_t last_reload_usec;
        SystemFacts *facts;

        GHashTable *subjects;      /* key (unit name or cgroup path) → Subject* */
        GHashTable *assignments;   /* subject key → GPtrArray* of group names (runtime) */
        GHashTable *exclusions;    /* subject key → GPtrArray* of group names unassigned at runtime */
        GHashTable *user_names;    /* uid + 1 → user name or NULL, until the next reload */
        GHashTable *write_buckets; /* uid + 1 → TokenBucket* of a caller of the write methods (bus-api.c) */

        bool dry_run;              /* --dry-run, or DryRun= in policyd.conf */
        bool dry_run_argument;     /* --dry-run alone: a reload cannot turn it off */
        bool once;                 /* --once, and --revert */
        bool revert;               /* --revert: no groups, no runtime assignments; undo all, then exit */
        sd_event_source *revert_check; /* --revert: whether all is answered, once the loop is idle */
        sd_event_source *revert_deadline; /* --revert: the process layer waited for no longer */
        sd_event_source *revert_poll;     /* --revert: the process layer looked at again */
        bool revert_timed_out;
        sd_event_source *revert_limit;    /* --revert: the whole run ends by then, answered or not */
        bool started;              /* READY=1 sent; later loads are reloads */
        unsigned pending_calls;    /* all calls in flight; --once exits at zero after start */
        unsigned refresh_generation; /* numbers every unit refresh */
        bool startup_listed;
        SweepState sweep;
        ProcessWatch *processes;   /* KSM= and NUMAPolicy= in running processes */
        ExecWatch *exec_events;    /* the proc connector, for Executable= (feeds processes) */
        AttrWatch *attributes;     /* xattr changes of subjects' cgroups */
        SwapWatch *swap;           /* swapon, swapoff and swap tiers, between reloads */
        SwapTierPass *swap_tiers;  /* tiers through ancestors: widen, narrow the others */
        unsigned reconnect_attempt;
        sd_event_source *reconnect_timer;
        sd_event_source *rescan_timer;
        unsigned properties_changed; /* ManagerProperty bits to announce (manager_properties_changed()) */
        sd_event_source *properties_event;
        int exit_code;
};

/* The bus properties whose values change between reloads, as the places
 * that change them tell the manager (bus-api.c announces them). */
typedef enum ManagerProperty {
        MANAGER_PROPERTY_NMEMBERS = 1 << 0,
        MANAGER_PROPERTY_MANAGERS = 1 << 1,
        MANAGER_PROPERTY_RECORDS = 1 << 2,
        MANAGER_PROPERTY_UNITS_NEED_DAEMON_RELOAD = 1 << 3,
} ManagerProperty;

/* --revert exits with this when some record could not be undone (policyd(8)). */
#define EXIT_NOT_UNDONE 5

int manager_new(const char *cgroup_root, bool dry_run, bool once, bool revert, Manager **ret);
/* --revert: whether the state directory holds a record of a unit of uid's
 * own systemd (user@UID/...), which only following that manager undoes. */
bool manager_has_records_of_user(Manager *m, uid_t uid);
Manager *manager_free(Manager *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Manager, manager_free)

int manager_start(Manager *m);
int manager_run(Manager *m);

/* Loads policy files and policyd.conf into a new set and swaps it in,
 * then re-resolves every subject. The old set stays when loading fails. */
int manager_reload(Manager *m);

/* Re-reads a unit of l's manager and applies its groups (asynchronous). */
void manager_refresh_unit(SystemdLink *l, const char *unit, const char *object_path);
/* The same for a subject's unit, from its manager; nothing for a cgroup. */
void manager_refresh_subject(Subject *s);
/* A user manager's unit subject is freed: its link holds one fewer. */
void manager_user_unit_gone(Manager *m, uid_t uid);
void manager_refresh_all(Manager *m);
/* Swap devices or tiers may have changed (swap-watch.c): probes what the
 * kernel offers again and, where a plan would read something else, applies
 * every subject again from what policyd knows. */
void manager_swap_changed(Manager *m);
/* The tiers poll (swap-watch.c): a tier removed and made again between two
 * reads comes back as max in every cgroup. Each subject's file is read, and
 * where it no longer holds what its plan wrote, the subject is applied
 * again; the tier pass checks the files it wrote. */
void manager_swap_tiers_verify(Manager *m);
/* A systemd finished a daemon-reload: generator drop-ins are fresh again. */
void manager_systemd_reloaded(SystemdLink *l);
/* The manager a subject's unit belongs to; NULL for a cgroup no unit owns,
 * and while a user's manager is not connected. */
SystemdLink *manager_link_of(Manager *m, const Subject *s);
void manager_forget_unit(Manager *m, const char *unit);
/* These ManagerProperty values changed: one PropertiesChanged for all that
 * changed in this iteration of the loop, once the loop is idle. */
void manager_properties_changed(Manager *m, unsigned properties);
/* The xattrs, owner or mode of the subject's cgroup changed (attr-watch.c):
 * applies again if what matching reads of them changed, or (deadline) in
 * any case: the time an InactiveFor= waited for has come. Returns whether
 * it applied. */
bool manager_cgroup_attributes_changed(Manager *m, const char *key, bool deadline);
/* Writes the records the intent log holds to their files, and empties it
 * (subject.c; at a moment after the last line, and at exit). */
void manager_checkpoint_records(Manager *m);

/* Applies s (apply.c: gather, resolve, plan, write), then tells the
 * watchers, the bus and systemd-watch what the pass changed: every apply
 * goes through here. */
void manager_apply_subject(Manager *m, Subject *s);
/* The same, with what gather_attributes() read already (the caller clears
 * it) and the cgroup opened through the watched parent (borrowed), or NULL. */
void manager_apply_subject_gathered(Manager *m, Subject *s, CandidateData *gathered, CgroupHandle *cgroup);

Subject *manager_find_subject(Manager *m, const char *key);
/* The subject whose cgroup this is, or NULL. */
Subject *manager_find_subject_by_cgroup(Manager *m, const char *cgroup);
/* The one way in for what systemd says of a unit: a snapshot from the
 * refresh numbered generation (older ones are dropped), then an apply. */
void manager_unit_snapshot(Manager *m, const char *unit, unsigned generation, UnitSnapshot *snap);
/* Values of some of a unit's properties (NULL value: unset), from a read
 * of those alone; merged into what policyd knows of the unit, then applied. */
void manager_unit_values(Manager *m, const char *unit, unsigned generation, GHashTable *values);
/* Queues a read of only these properties of a known unit; a whole refresh
 * queued or asked for later takes its place. */
void manager_read_unit_values(Manager *m, Subject *s, char *const *properties);
/* systemd answered SetUnitProperties for unit (error NULL: it took it). */
void manager_unit_properties_set(Manager *m, const char *unit, GPtrArray *changes, bool undo,
                                 const sd_bus_error *error);

void manager_update_rescan_timer(Manager *m);
/* Drops the bus connection and connects again a moment later (with --once:
 * exits instead). Policies already applied stay. */
void manager_reconnect_later(Manager *m);
/* Called once the bus name is ours: only then do we start changing things. */
void manager_name_acquired(Manager *m);

/* A systemd's list of units came in (listed: the keys of the running
 * units, read whole; NULL on an error): every unit that runs has a subject
 * now. */
void manager_units_listed(SystemdLink *l, GHashTable *listed);

/* A unit refresh ended (replied, failed or superseded): start the next. */
void manager_refresh_finished(SystemdLink *l);

/* Between the watchers, through the manager (no watcher calls another):
 * exec-watch.c asks whether an exec in cgroup matters, and hands over one
 * that settled, or says that it lost events; sweep.c says that startup
 * converged, and asks systemd about a unit, whose answer systemd-watch.c
 * hands back. */
bool manager_exec_matters(Manager *m, const char *cgroup);
void manager_process_exec(Manager *m, pid_t pid, const char *cgroup);
void manager_exec_events_lost(Manager *m);
void manager_startup_converged(Manager *m);
int manager_check_unit(Manager *m, const char *unit);
void manager_unit_checked(Manager *m, const char *unit, const char *object_path, const char *load_state,
                          const sd_bus_error *error);

void manager_call_started(Manager *m);
void manager_call_finished(Manager *m);
