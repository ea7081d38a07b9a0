/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The process layer: KSM= and NUMAPolicy= for the processes of member
 * cgroups, in the groups with ApplyToRunning=yes (DESIGN §7).
 *
 *   noticing     inotify IN_MODIFY on cgroup.procs: every write to it (a
 *                move, systemd attaching a scope's PIDs) raises it on the
 *                destination. Forks need nothing: KSM and the mempolicy
 *                are inherited, and systemd's own starts come in as units.
 *                Watched: members whose groups set these knobs; every
 *                running unit only while some process holds a value
 *                policyd set (to see it leave). Execs matter only for
 *                Executable=: exec-watch.c hands them in.
 *   deciding     process-plan.c (pure), from the subject's memberships,
 *                the executable, what the process has and what policyd
 *                set in it before
 *   applying     the injector helper (inject-client.c), which also reads
 *                what policyd may not: another user's exe and numa_maps,
 *                and moves the pages of the processes of NUMANodes= groups
 *                with migrate_pages (no group needs KSM= for that)
 *
 * One ProcessRecord per process policyd looked at, keyed by PID and start
 * time (PID reuse), for explain and status, and for undo.
 *
 * This is the interface; process-watch-internal.h lists the files, one a
 * job, that implement it. */

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "process-plan.h"

typedef struct Manager Manager;
typedef struct Subject Subject;
typedef struct InjectCall InjectCall;
typedef struct ProcessWatch ProcessWatch;

typedef enum ProcessMethod {
        PROCESS_NEW,          /* not looked at yet (zero: a new record) */
        PROCESS_PENDING,      /* a query or an injection is in flight */
        PROCESS_AS_WANTED,    /* it already had the values (at start: the generator, policyctl exec) */
        PROCESS_INJECTED,
        PROCESS_UNDONE,
        PROCESS_SKIPPED,      /* see detail */
        PROCESS_FAILED,
        PROCESS_MIGRATED,     /* its pages moved with migrate_pages: NUMANodes= without cpuset */
        _PROCESS_METHOD_MAX,
} ProcessMethod;

typedef struct ProcessRecord {
        ProcessWatch *watch;  /* the owner */
        pid_t pid;
        uint64_t start_time;  /* field 22 of /proc/PID/stat */
        char *subject;        /* key of the subject it was last seen in; NULL: none */
        char *exe;
        ProcessKnobs applied; /* what policyd set in it, and may take back */
        ProcessMethod method;
        char *detail;         /* the groups, or why it was skipped */
        char *verified;       /* "ksm=yes mempolicy=interleave:0-1", read back after the change */
        /* NUMANodes=: the node list policyd last asked migrate_pages to move
         * its pages to (once per list and cgroup), and what came of it, kept
         * in the detail after later steps. Nothing to undo. */
        char *migrated;
        char *migration;
        InjectCall *call;
        bool call_is_query;
        bool call_is_ensure;  /* the injection asks ensure=1: the helper sets only what differs */
        char *migrate_to;     /* the call in flight is this migration */
        ProcessStep step;     /* of the injection in flight */
        /* Whose input the injection or migration queued acts for
         * (process_acting_uid()): 0 root's, else the user's, whose own
         * processes alone it may reach; PROCESS_TRUST_UID_NONE: no one's. */
        uid_t acting_uid;
        bool again;           /* looked at again while a call was in flight */
        /* The owner of the cgroup whose move, scan or exec began the calls in
         * flight (its cgroup.procs), whose tokens they take; 0: none (root's,
         * or a retry, a reload of an unplaced record). */
        uid_t charge_uid;
        bool held_injection;  /* held back with its step (the query made): asked as it is */
        int pidfd;
        unsigned generation;  /* of the watch, when last decided */
        unsigned attempts;    /* failed calls in a row; retried a few times */
        bool retrying;        /* decided again by the retry timer */
        uint64_t retry_at;    /* CLOCK_MONOTONIC µs of the next try, 0: none */
        sd_event_source *exit_source; /* on a pidfd, while it holds something */
} ProcessRecord;

int process_watch_new(Manager *m, ProcessWatch **ret);
ProcessWatch *process_watch_free(ProcessWatch *w);

/* The policy set was swapped in: start or stop watching, decide again. */
void process_watch_policies_changed(ProcessWatch *w);
/* The subject was applied: its groups or cgroup may have changed. */
void process_watch_subject_applied(ProcessWatch *w, Subject *s);
/* The subject lost its cgroup, or is going away. */
void process_watch_subject_gone(ProcessWatch *w, const char *key);

/* Whether an exec in cgroup (from /proc/PID/cgroup) matters: the nearest
 * watched cgroup is a member of a group whose KSM= or NUMAPolicy= follows
 * Executable=. Nothing but a few lookups. */
bool process_watch_exec_matters(ProcessWatch *w, const char *cgroup);
/* PID exec'd, and is in cgroup: where the exec matters, its record is
 * decided again with the new executable. */
void process_watch_process_exec(ProcessWatch *w, pid_t pid, const char *cgroup);
/* Exec events were lost: every watched cgroup is read again, and the
 * processes of those where Executable= matters are decided again. */
void process_watch_rescan(ProcessWatch *w);

/* Startup converged (the first complete listing of units, and their
 * reads): records from before a restart that no member cgroup holds can be
 * decided now. */
void process_watch_startup_converged(ProcessWatch *w);

/* Whether the process layer still has work it started or means to start:
 * a scan, a call queued, in flight, held back or to be tried again, or
 * the restored records not yet decided (policyd --revert waits for it). */
bool process_watch_busy(ProcessWatch *w);
/* How many running processes hold a value policyd set (KSM=, NUMAPolicy=),
 * after their exited ones are forgotten. */
unsigned process_watch_count_holding(ProcessWatch *w);

/* Records of one subject (key), or of all (NULL), sorted by PID. The
 * array holds borrowed pointers. */
GPtrArray *process_watch_records(ProcessWatch *w, const char *key);
/* For status: how moves are noticed, and how many cgroups are watched;
 * execs: what exec-watch.c says of exec events (exec_watch_describe()). */
char *process_watch_describe(ProcessWatch *w, const char *execs);

const char *process_method_to_string(ProcessMethod m);
