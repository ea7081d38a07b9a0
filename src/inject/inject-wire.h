/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What policyd and the injector helper (policyd-inject --serve) say to each
 * other over a connection of policyd-inject.socket: a request line, with a
 * pidfd of the target attached (SCM_RIGHTS), and a reply line back; then the
 * next request, on the same connection.
 * policyd(8), INJECTOR HELPER, describes it for users. Pure: no I/O.
 *
 * A line is space-separated `key=value` tokens, one space between two, none
 * at either end, ended by one "\n". A key is [a-z0-9_]; a value is either
 * bare (printable ASCII but space, '"' and '\') or in double quotes, with
 * \" \\ \n \t and \xHH escapes.
 *
 *   request: pid=1234 ksm=1|0|- mempolicy=SPEC|- timeout_ms=2000 for_uid=UID
 *            pid= is required, the others default to -, - and 2000; an
 *            unknown or repeated key, or nothing to do, is an error.
 *            for_uid=: whose input asks (process-trust.h): 0, the default,
 *            root's; any other uid, a user's, and then the process must be
 *            that user's own, or the reply is refused (inject-creds.h).
 *            policyd always says it; a request without it is root's, as
 *            before the key existed (the socket is root's alone).
 *   or:      pid=1234 ksm=...  mempolicy=... ensure=1 [mempolicy_if=SPEC] ...
 *            the same, one request a move: the helper first reads what the
 *            process has (as query=1), drops ksm= where the KSM state is
 *            that already, and mempolicy= where every thread has that
 *            policy, or, with mempolicy_if=, where a thread has another
 *            than SPEC (an undo: only while it holds what policyd set).
 *            Nothing left: the reply is outcome=queried, nothing stopped.
 *   or:      pid=1234 query=1
 *            what the process has, read from /proc (reading another
 *            user's needs CAP_SYS_PTRACE too): nothing is injected.
 *   or:      pid=1234 migrate=LIST for_uid=UID
 *            migrate_pages(2) of the process's pages from every other node
 *            to LIST ("1", "0-1,3"), with nothing stopped and nothing
 *            injected: NUMANodes= of a cgroup without cpuset. No other key.
 *            for_uid= as above; for a user, also without CAP_SYS_NICE, so
 *            that pages shared with others stay where they are.
 *   reply:   pid=1234|- outcome=applied|failed|refused|vanished|queried|error
 *            reason="..." error="..." exe="..." threads=N in_syscall=N
 *            signals_passed=N retries=N insn=vdso|in-place|-
 *            verified_ksm=yes|no|- verified_mempolicy=POLICY|mixed|- stuck=0|1
 *            not_moved=N|- set=ksm,mempolicy|ksm|mempolicy|-
 *            POLICY is numa_maps' spelling ("prefer:1", and quoted when it
 *            has a space: "prefer (many):0-1"); exe is "-" but for a query
 *            and an injection read back afterwards; set= names the knobs
 *            whose system call ran, in at least one thread;
 *            not_moved is what migrate_pages returned, the pages it could
 *            not move (shared ones, without CAP_SYS_NICE), "-" but for a
 *            migration that ran.
 *            every key, in this order, for every outcome; --serve
 *            adds last=0|1 at the end: 0 when it takes another request
 *            on the connection, 1 when it closes it after this reply. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "inject.h"

/* A request line, "\n" included, is at most this long. */
#define INJECT_WIRE_LINE_MAX 4096
#define INJECT_WIRE_TIMEOUT_MS_DEFAULT 2000
#define INJECT_WIRE_TIMEOUT_MS_MAX 10000

typedef struct InjectWireRequest {
        pid_t pid;               /* 0 until a valid pid= is read */
        bool query;              /* query=1: read what the process has, inject nothing */
        bool migrate;            /* migrate=LIST: move its pages to migrate_nodes, inject nothing */
        /* ensure=1: read first, and set only the knobs whose value differs;
         * with nothing to set, answer as a query. */
        bool ensure;
        bool has_mempolicy_if;   /* mempolicy_if=SPEC: mempolicy= only while the process has SPEC */
        Mempolicy mempolicy_if;
        unsigned long migrate_nodes[MEMPOLICY_NODEMASK_WORDS];
        InjectRequest req;
        char error[160];         /* why the line is refused; "" when it is valid */
} InjectWireRequest;

/* Parses the bytes of one request, "\n" included. Fills *ret either way:
 * returns 0 for a valid request, or -EINVAL with ret->error saying why (and
 * ret->pid set when pid= was read, for the reply). */
int inject_wire_parse_request(const char *data, size_t size, InjectWireRequest *ret);
/* The line a client sends, "\n" included. */
int inject_wire_format_request(const InjectWireRequest *w, char *buf, size_t size);

/* One token at *p (before end): its key and its value, unquoted. Returns 1
 * and moves *p past the token and its separating space, 0 at end, or
 * -EINVAL (-ENOBUFS for a key or value longer than its buffer). */
int inject_wire_next(const char **p, const char *end, char *key, size_t key_size, char *value, size_t value_size);

/* The reply line, "\n" included. pid 0 is written as "-". With rep, the
 * outcome is rep's, and q (or NULL) what was read back afterwards; with q
 * alone, it is "queried"; with neither, "error", and error the text. A
 * field of q that is unread (ksm -1, mempolicy "") is written "-". */
int inject_wire_format_reply(pid_t pid, const InjectReport *rep, const InjectQuery *q, const char *error,
                             char *buf, size_t size);

/* The value of key in a line, unquoted: 0, -ENOENT, or -EINVAL when the
 * line is malformed. */
int inject_wire_get(const char *line, const char *key, char *buf, size_t size);
