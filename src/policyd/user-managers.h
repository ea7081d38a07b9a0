/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Users' systemd instances: for each user@UID.service that PID 1 runs,
 * a SystemdLink over /run/user/UID/systemd/private (systemd-watch.c does
 * the rest, as for PID 1). The link comes when PID 1 says the unit is
 * active, and goes with the unit, taking its units' subjects along. */

#include "manager.h"
#include "systemd-watch.h"

/* What PID 1 said of a unit (a snapshot applied, or the unit forgotten):
 * connects or drops the link when it is a user@UID.service. */
void user_managers_unit_changed(Manager *m, const Subject *s);
void user_managers_unit_gone(Manager *m, const char *unit);

/* A user's manager listed its running units (their keys): subjects of
 * its units that are not among them stopped while we were not looking. */
void user_managers_listed(Manager *m, SystemdLink *l, GHashTable *listed);

/* Whether uid's manager has its private socket: it runs. */
bool user_manager_runs(uid_t uid);

void user_link_free_notify(void *p);

/* For policyctl status: "system (N units); user@UID (M units), …". */
char *user_managers_describe(Manager *m);
