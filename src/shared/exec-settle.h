/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Exec'd processes that wait to be looked at until they have lasted a
 * while (src/policyd/exec-watch.c). Pure: the caller gives the clock. A
 * process that exec's again while it waits keeps its turn, so that a
 * chain of execs cannot put it off for ever. */

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct ExecSettle ExecSettle;

ExecSettle *exec_settle_new(uint64_t delay_usec);
ExecSettle *exec_settle_free(ExecSettle *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ExecSettle, exec_settle_free)

/* The exec of pid at now: due at now + the delay, or when it was due already. */
void exec_settle_add(ExecSettle *s, pid_t pid, uint64_t now);
/* When the first waiting process is due, or UINT64_MAX when none waits. */
uint64_t exec_settle_next(const ExecSettle *s);
/* Removes the processes due at now and returns their pids, in the order
 * they became due. */
GArray *exec_settle_take_due(ExecSettle *s, uint64_t now);
void exec_settle_clear(ExecSettle *s);
guint exec_settle_size(const ExecSettle *s);
