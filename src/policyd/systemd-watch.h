/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* systemd's side of the bus: Subscribe, the signals we follow, reading unit
 * properties, and SetUnitProperties. Every call is asynchronous. */

#include <systemd/sd-bus.h>

#include "manager.h"

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

/* Reads a unit's properties (two GetAll calls), then calls target_apply(). */
int systemd_refresh_unit(Target *t);

/* SetUnitProperties(runtime=true) for one property; the record is updated
 * when systemd confirms. value uses the string forms of property_to_string. */
int systemd_set_unit_property(Target *t, const char *property, const char *value, const char *previous);

/* Manager.Reload, as "systemctl daemon-reload" does: generators run again. */
int systemd_daemon_reload(Manager *m);

/* Whether the unit type has a cgroup at all ("foo.service" yes, "foo.target" no). */
bool unit_type_has_cgroup(const char *unit);

/* The interface carrying ControlGroup and the resource properties. */
const char *unit_type_interface(const char *unit);
