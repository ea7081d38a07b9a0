/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Which processes a change that a user asked for may reach (DESIGN §8;
 * policyd(8), SECURITY): only those the user could ptrace themselves. A
 * user's cgroup routinely holds processes that are not the user's: setuid
 * programs (sudo, passwd), another user's after su, or one that root moved
 * there; KSM across users is a side channel (copy-on-write timing after a
 * merge), and a memory policy is another's to choose. A change that
 * root's input asks for (root's files, root's assignment, PID 1's facts)
 * acts for uid 0, and keeps the injector's other rules alone.
 *
 * Pure, and without glib: the injector (src/inject) links it, reads
 * /proc/PID/status after it has stopped the target, and asks. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The uid a change acts for when no user is known: no process passes. */
#define PROCESS_TRUST_UID_NONE ((uid_t) -1)

/* What /proc/PID/status (or .../task/TID/status) says of one task's
 * credentials, and whether its process is dumpable (status does not say:
 * the owner of /proc/PID does, root's when it is not). */
typedef struct ProcessCreds {
        uid_t uid[4];            /* Uid: real, effective, saved, filesystem */
        gid_t gid[4];            /* Gid: the same four */
        uint64_t cap_permitted;  /* CapPrm: */
        uint64_t cap_effective;  /* CapEff: */
        uint64_t cap_ambient;    /* CapAmb: (Linux 4.3), 0 when absent */
        bool dumpable;
} ProcessCreds;

typedef enum ProcessTrustVerdict {
        PROCESS_TRUST_ALLOWED,
        PROCESS_TRUST_NO_USER,       /* acts for PROCESS_TRUST_UID_NONE */
        PROCESS_TRUST_OTHER_UID,     /* a uid is not the user's: another user's, or setuid */
        PROCESS_TRUST_SETGID,        /* its gids differ from each other: a setgid program */
        PROCESS_TRUST_CAPABILITIES,  /* it holds capabilities, which a user has none of */
        PROCESS_TRUST_NOT_DUMPABLE,  /* it said no to ptrace (PR_SET_DUMPABLE 0, or after a setuid exec) */
        _PROCESS_TRUST_VERDICT_MAX,
} ProcessTrustVerdict;

/* Whether a change acting for uid may reach a task with these credentials.
 * uid 0 (root's input): always. Any other uid, as ptrace_may_access()
 * without CAP_SYS_PTRACE would decide for that user: all four uids are
 * the user's; all four gids are one (the user's process has not run a
 * setgid program; which group it is, is not checked: the user may have
 * chosen it, with newgrp); no capability permitted, effective or ambient;
 * and dumpable. The checks go in the order of the enum. */
ProcessTrustVerdict process_trust_check(uid_t acting_uid, const ProcessCreds *creds);

/* Why, for a reply and for explain: "not the user's own: ...". NULL for
 * PROCESS_TRUST_ALLOWED. */
const char *process_trust_verdict_to_string(ProcessTrustVerdict v);

/* The Uid:, Gid:, CapPrm:, CapEff: and CapAmb: lines of a status text.
 * dumpable is left false: the caller sets it. -EINVAL when one of the
 * first four is missing or malformed. */
int process_creds_parse_status(const char *text, ProcessCreds *ret);
