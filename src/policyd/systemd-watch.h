/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* systemd's side of the bus: Subscribe, the signals we follow, reading unit
 * properties, and SetUnitProperties. Every call is asynchronous. */

#include <systemd/sd-bus.h>

#include "manager.h"
#include "unit-lookup.h"

#define SYSTEMD_BUS_NAME "org.freedesktop.systemd1"
#define SYSTEMD_BUS_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER_INTERFACE "org.freedesktop.systemd1.Manager"
#define SYSTEMD_UNIT_INTERFACE "org.freedesktop.systemd1.Unit"

/* One systemd manager policyd follows: PID 1 over the system bus, or a
 * user's manager (user@UID.service) over its private socket, which takes
 * root as a direct peer, without Hello and without a bus daemon. Units of
 * a user's manager are subjects keyed "user@UID/UNIT" (user-managers.c). */
typedef struct SystemdLink {
        Manager *manager;
        sd_bus *bus;          /* the system link borrows the manager's; a user link owns its own */
        bool user;
        uid_t uid;            /* of a user link */
        char *key_prefix;     /* "" or "user@UID/" */
        GQueue *refresh_queue; /* keys of units waiting to be re-read */
        unsigned refreshes_in_flight;
        unsigned pending_calls;      /* calls in flight on bus: uncounted from the manager's when it goes */
        bool subscribed;
        bool reloading;       /* between systemd's Reloading true and false */
        bool listed;          /* a ListUnits reply came in since the connection */
        char *owner;          /* system link: the unique name that owns org.freedesktop.systemd1, or NULL */
        uint64_t last_reread_usec; /* CLOCK_MONOTONIC of the last full re-read after a reload */
        sd_event_source *reread_timer; /* a coalesced full re-read, due */
        unsigned reconnect_attempt;
        sd_event_source *reconnect_timer;
        unsigned units;       /* user link: the subjects of its units, held to USER_LINK_UNITS_MAX */
        bool units_capped_logged;
} SystemdLink;

/* What policyd follows of one user's manager at most. A desktop's has a few
 * hundred units; whatever answers on the user's socket (it may be a server
 * of the user's own, passed the manager's listening socket) never makes
 * root's daemon hold more. */
#define USER_LINK_UNITS_MAX 4096U

SystemdLink *systemd_link_new(Manager *m, bool user, uid_t uid);
/* Closes a user link's bus (the system link only forgets the manager's),
 * which frees the calls in flight without their replies. */
void systemd_link_close(SystemdLink *l);
SystemdLink *systemd_link_free(SystemdLink *l);
/* The subject key of a unit of this manager. */
char *systemd_link_key(const SystemdLink *l, const char *unit);

/* Adds the signal matches; they live as long as the connection, so once
 * per connection. */
int systemd_watch_attach(SystemdLink *l);

/* Calls Subscribe and ListUnits. At start, after a reconnect, and when
 * systemd comes back after daemon-reexec. */
int systemd_watch_start(SystemdLink *l);

/* Reads a unit's properties (a GetAll of the Unit interface and a Get per
 * property of the type's, all in flight at once) into a
 * UnitSnapshot, and hands it to manager_unit_snapshot(). */
int systemd_refresh_unit(SystemdLink *l, const char *unit, const char *object_path, unsigned generation);

/* Reads only the named properties of the unit type's interface, a Get
 * each, all in flight at once, and hands them to manager_unit_values().
 * Get, unlike GetAll, does not make systemd read the cgroup's counters. */
int systemd_read_unit_values(SystemdLink *l, const char *unit, const char *object_path, unsigned generation,
                             char *const *properties);

/* One SetUnitProperties(runtime=true) call for all of changes; the reply
 * goes to manager_unit_properties_set(). The caller records a set ahead. */
int systemd_set_unit_properties(SystemdLink *l, const char *unit, GPtrArray *changes, bool undo);

/* Asks systemd whether a unit policyd holds property records of exists:
 * LoadUnit (which loads it, for systemd to unload again later), then a Get
 * of its LoadState. The answer goes to sweep_unit_checked(). */
int systemd_check_unit(SystemdLink *l, const char *unit);

/* An error systemd answers for a unit that is gone (or never was). */
bool bus_error_is_vanished(const sd_bus_error *e);
