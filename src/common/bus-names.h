/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* policyd's bus API, shared by the daemon and policyctl. The interface is
 * described in src/policyd/org.policygroups.PolicyGroups1.xml. */

#define POLICYD_BUS_NAME "org.policygroups.PolicyGroups1"
#define POLICYD_BUS_PATH "/org/policygroups/PolicyGroups1"
#define POLICYD_BUS_INTERFACE "org.policygroups.PolicyGroups1.Manager"

#define POLICYD_ERROR_NO_SUCH_GROUP "org.policygroups.PolicyGroups1.NoSuchGroup"
#define POLICYD_ERROR_ALREADY_SUBSCRIBED "org.policygroups.PolicyGroups1.AlreadySubscribed"
#define POLICYD_ERROR_NOT_SUBSCRIBED "org.policygroups.PolicyGroups1.NotSubscribed"
#define POLICYD_ERROR_NO_SUCH_TARGET "org.policygroups.PolicyGroups1.NoSuchTarget"
#define POLICYD_ERROR_NOT_MEMBER "org.policygroups.PolicyGroups1.NotMember"
