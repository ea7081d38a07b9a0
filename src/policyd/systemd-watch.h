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

/* Reads a unit's properties (two GetAll calls in flight at once) into a
 * UnitSnapshot, and hands it to manager_unit_snapshot(). */
int systemd_refresh_unit(Subject *s);

/* One property for SetUnitProperties: the value to set, in the string forms
 * policyd compares ("infinity", bytes, yes/no, node lists), and for a set
 * the value to restore on undo. */
typedef struct PropertyChange {
        char *property;
        char *value;
        char *previous;
        /* Filled by the call: what the record held before it. */
        bool had_record;
        char *recorded_before;
} PropertyChange;

PropertyChange *property_change_free(PropertyChange *c);
GPtrArray *property_changes_new(void);
void property_changes_add(GPtrArray *changes, const char *property, const char *value, const char *previous);

/* One SetUnitProperties(runtime=true) call for all of changes. A set is
 * recorded under /run/policyd before the call (write-ahead) and reverted
 * if systemd refuses; an undo (values are the ones to restore) drops its
 * records when systemd confirms. */
int systemd_set_unit_properties(Subject *s, GPtrArray *changes, bool undo);
