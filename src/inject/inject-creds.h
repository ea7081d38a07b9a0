/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The credential rule of process-trust.h at the injector's edge: a request
 * that acts for a user (for_uid=, inject-wire.h) reaches only a process
 * that is the user's own, as /proc says now. inject.c asks once every
 * thread is stopped, so that no thread can exec or change its ids
 * meanwhile, and again at the end, before it lets them go; the server
 * asks before it stops anything, and around a migrate_pages, which stops
 * nothing. */

#include <sys/types.h>

#include "inject-proc.h"

/* Every thread of pid, read from /proc/PID/task/TID/status, and each
 * thread's dumpable state from the owner of that file. 0 when the
 * rule lets acting_uid reach them all (uid 0: always, nothing read);
 * -EPERM with *ret_refusal set when it does not; -ESRCH once the process is
 * gone; another -errno when /proc cannot be read (then nothing is done). */
int inject_creds_verify(pid_t pid, uid_t acting_uid, InjectRefusal *ret_refusal);

/* The refusal that stands for a verdict of process_trust_check(). */
InjectRefusal inject_refusal_for_trust(ProcessTrustVerdict v);
