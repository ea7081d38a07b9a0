/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* MESSAGE_ID= of the events an administrator searches the journal for, as
 * systemd's sd-messages.h: generated once (systemd-id128 new), never
 * changed, each explained in catalog/policygroups.catalog ("journalctl -x",
 * "journalctl MESSAGE_ID=…"). tests/unit/test-catalog.py checks that the
 * two lists agree and that every id is used. */

/* A unit's or cgroup's policy groups changed: joined, left, or moved. */
#define MESSAGE_ID_GROUPS_APPLIED "8b23e5116f6f4233a612f8fa05157008"

/* The kernel refused a write to a cgroup file or attribute, or systemd a
 * SetUnitProperties call: a value of a group is not in force. */
#define MESSAGE_ID_WRITE_REFUSED "2e465208260044c28862696e32c55d26"

/* A setting of a policy file, policyd.conf or a unit file's
 * X-PolicyGroup= is ignored or has no effect: an invalid value, an unknown
 * key, a line systemd would skip, settings that contradict each other. */
#define MESSAGE_ID_CONFIG_VALUE_REFUSED "541274b356a142bea33e398977b43122"

/* A whole policy file (or policyd.conf, or a unit file for its groups) was
 * not loaded: its owner or mode, a read error, a syntax systemd refuses. */
#define MESSAGE_ID_CONFIG_FILE_REFUSED "4e6642bf512e4b83a5695152ab376f2a"

/* A user's input was refused: a D-Bus caller's assignment, a self-request
 * or attributes on a delegation root, a user manager's peer or cgroup, a
 * user's unit file that the user could not read. */
#define MESSAGE_ID_TRUST_REFUSED "d25401d350244f1aa67935eb09133d91"

/* policyd-inject set KSM or a memory policy in a process, undid it, or
 * moved its pages to other NUMA nodes. */
#define MESSAGE_ID_INJECTED "9fb2fd9e57354a298f788ff024653212"

/* policyd-inject refused a change in a process, or it failed. */
#define MESSAGE_ID_INJECTION_REFUSED "b8a26e93fc8d4b33ba9e3eefbb6c1ee5"
