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

/* Adds the signal matches; they live as long as the connection, so once
 * per connection. */
int systemd_watch_attach(Manager *m);

/* Calls Subscribe and ListUnits. At start, after a reconnect, and when
 * systemd comes back after daemon-reexec. */
int systemd_watch_start(Manager *m);

/* Reads a unit's properties (a GetAll of the Unit interface and a Get per
 * property of the type's, all in flight at once) into a
 * UnitSnapshot, and hands it to manager_unit_snapshot(). */
int systemd_refresh_unit(Manager *m, const char *unit, const char *object_path, unsigned generation);

/* Reads only the named properties of the unit type's interface, a Get
 * each, all in flight at once, and hands them to manager_unit_values().
 * Get, unlike GetAll, does not make systemd read the cgroup's counters. */
int systemd_read_unit_values(Manager *m, const char *unit, const char *object_path, unsigned generation,
                             char *const *properties);

/* One SetUnitProperties(runtime=true) call for all of changes; the reply
 * goes to manager_unit_properties_set(). The caller records a set ahead. */
int systemd_set_unit_properties(Manager *m, const char *unit, GPtrArray *changes, bool undo);

/* Asks systemd whether a unit policyd holds property records of exists:
 * LoadUnit (which loads it, for systemd to unload again later), then a Get
 * of its LoadState. The answer goes to sweep_unit_checked(). */
int systemd_check_unit(Manager *m, const char *unit);

/* An error systemd answers for a unit that is gone (or never was). */
bool bus_error_is_vanished(const sd_bus_error *e);
