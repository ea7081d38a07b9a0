/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The startup sweep of the records under the state directory. A record is
 * read when a subject for its key is created, and dropped when policyd sees
 * the unit or cgroup go; one whose unit or cgroup went while policyd was not
 * running is never looked at again. So, once per run, when the first
 * complete listing of units and the refreshes it started are done, the
 * records no subject holds are gone through:
 *
 *   cgroups/KEY      the cgroup is gone: the file goes. It is there, and no
 *                    subject has it: what the record says is undone, then
 *                    the file goes (kept while a runtime assignment names
 *                    the key or the cgroup).
 *   properties/KEY   systemd is asked about the unit (systemd_check_unit()):
 *                    not found, the file goes (a transient unit that ended,
 *                    or a unit file removed: systemd takes no properties for
 *                    it); loaded, the unit is refreshed as a subject, whose
 *                    apply undoes what no group wants.
 *
 * A file that cannot be read, or a unit systemd cannot be asked about,
 * stays, with a warning. */

#include <glib.h>
#include <stdbool.h>
#include <systemd/sd-bus.h>

typedef struct Manager Manager;

typedef struct SweepState {
        bool due;              /* a complete listing came in: sweep once refreshes are done */
        bool done;             /* started once in this run: never again (see sweep.c) */
        bool running;          /* unit checks still to send or to hear back from */
        GQueue *units;         /* unit names to ask systemd about */
        unsigned checks_in_flight;
        unsigned cgroups_gone, cgroups_undone, units_gone, units_refreshed, kept;
} SweepState;

/* Starts the sweep when it is due and startup has converged: no unit
 * refresh queued or in flight. Called after every reply. */
void sweep_start_if_due(Manager *m);
/* systemd answered a unit check: its LoadState, or error. */
void sweep_unit_checked(Manager *m, const char *unit, const char *object_path, const char *load_state,
                        const sd_bus_error *error);
void sweep_state_done(SweepState *s);
