/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* org.policygroups.PolicyGroups1: the vtable, and nothing else. The
 * interface is described in org.policygroups.PolicyGroups1.xml. */

#include "manager.h"

/* Adds the object and requests the bus name on m->bus. */
int bus_api_attach(Manager *m);

/* PropertiesChanged for what a reload changes. */
void bus_api_emit_reloaded(Manager *m);

/* MembershipChanged for s, with its groups now (Membership*), while a
 * client is subscribed (Subscribe()). */
void bus_api_emit_membership_changed(Manager *m, const Subject *s, const GPtrArray *memberships);
/* PropertiesChanged of the ManagerProperty bits in properties (a value
 * for those declared EMITS_CHANGE, the name alone for the others). */
void bus_api_emit_properties_changed(Manager *m, unsigned properties);
