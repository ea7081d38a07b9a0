/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The last failed write of each knob of a subject, until a later write of it
 * succeeds or nothing wants it any more: what `policyctl explain` shows on
 * the knob's row, and `policyctl status` counts. Pure: the caller gives the
 * time, and reports or systemd's answers. */

#include <glib.h>
#include <stdint.h>

#include "cgroup-apply.h"

typedef struct WriteFailure {
        Backend backend;        /* BACKEND_XATTR, BACKEND_CGROUP_FILE or BACKEND_SYSTEMD_PROPERTY */
        char *target;           /* the xattr, knob file or systemd property */
        char *value;            /* what the write tried; NULL for a removal */
        int error;              /* a positive errno */
        char *message;          /* why, as said: strerror, or systemd's error message */
        uint64_t realtime_usec; /* when (CLOCK_REALTIME) */
} WriteFailure;

/* A list of WriteFailure*, owning them. */
GPtrArray *write_failures_new(void);

const WriteFailure *write_failures_find(const GPtrArray *failures, Backend backend, const char *target);

/* Keeps the failure of target, replacing an earlier one; message NULL:
 * strerror(error). error is an errno, either sign. */
void write_failures_set(GPtrArray *failures, Backend backend, const char *target, const char *value, int error,
                        const char *message, uint64_t realtime_usec);
/* Forgets target's failure: its write succeeded. */
void write_failures_clear(GPtrArray *failures, Backend backend, const char *target);

/* What a pass on a cgroup did: a failed write (or an xattr that did not
 * fit) is kept, a write that succeeded or found the value in place clears
 * it. Writes not made because their record could not be written ahead are
 * not failures of the knob (the subject says so on its own). */
void write_failures_update(GPtrArray *failures, const ApplyReport *report, uint64_t realtime_usec);

/* Forgets the failures of backend whose target keep() refuses: the knob
 * is no longer wanted, nor held by a record (backend < 0: every backend). */
void write_failures_prune(GPtrArray *failures, int backend, bool (*keep)(Backend, const char *, void *),
                          void *userdata);
