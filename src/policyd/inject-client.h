/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* policyd's side of the injector (policyd-inject@.service, one instance per
 * connection to policyd-inject.socket): request lines, each with the
 * target's pidfd attached, and a reply line to each, one at a time on a
 * connection that stays open while requests keep coming (a pool of them).
 * policyd itself never ptraces, and keeps neither CAP_SYS_PTRACE nor a
 * seccomp filter that allows it; reading another user's /proc/PID/exe,
 * smaps or numa_maps needs that capability too, so the helper also answers
 * queries. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#define INJECT_SOCKET_PATH "/run/policyd-inject.socket"

typedef struct InjectReply {
        pid_t pid;                 /* the request's, as the helper read it; 0 for "-" */
        int last;                  /* 0: the helper takes another request on this connection; 1, or -1 unsaid: not */
        char *outcome;             /* applied, failed, refused, vanished, queried, error */
        char *reason;              /* of a refusal */
        char *error;
        char *exe;                 /* of a query */
        char *ksm;                 /* yes, no or - (a query's state, or what was verified) */
        char *mempolicy;           /* numa_maps spelling, "mixed", or - */
        unsigned threads;
        bool stuck;
        long not_moved;            /* of a migration that ran: pages left where they were; else -1 */
        bool set_ksm;              /* set=: whose system call ran (with ensure=1, what differed) */
        bool set_mempolicy;
} InjectReply;

void inject_reply_clear(InjectReply *r);
/* Pure: the helper's reply line (inject-wire.h has the grammar). Unknown
 * keys are skipped; a malformed line is refused whole. */
int inject_reply_parse(const char *line, InjectReply *ret);

/* The connections to the helper: one per call in flight, kept 10 s
 * after its reply for the next call, then closed (the helper exits). */
typedef struct InjectPool InjectPool;
int inject_pool_new(sd_event *event, const char *socket_path, InjectPool **ret);
/* Closes the idle connections; those of calls in flight close with them. */
InjectPool *inject_pool_free(InjectPool *p);
const char *inject_pool_socket_path(const InjectPool *p);
/* Whether a call started now would find an idle connection young enough
 * to take it (one whose helper went is found only when used). */
bool inject_pool_has_idle(InjectPool *p);
/* Connections opened (helper processes started) and requests sent. */
void inject_pool_counts(const InjectPool *p, uint64_t *ret_opened, uint64_t *ret_requests);

typedef struct InjectCall InjectCall;
/* error < 0: no reply (the helper is missing, failed or timed out); then
 * reply is NULL. The call is freed by its owner, after or inside this. */
typedef void (*InjectCallback)(InjectCall *call, const InjectReply *reply, int error, void *userdata);

/* What one request asks of the helper: a query, or an injection. */
typedef struct InjectAsk {
        bool query;               /* "pid=PID query=1": read only, the rest unused */
        int ksm;                  /* 0/1, -1 to leave alone */
        const char *mempolicy;    /* NULL to leave alone */
        /* ensure=1: the helper reads first and sets only what differs, and
         * answers "queried" when nothing does (one request a move). */
        bool ensure;
        const char *mempolicy_if; /* with ensure: mempolicy only while the process has this one */
        unsigned timeout_ms;
        /* for_uid=: 0 for root's input, else the user's, whose own processes
         * alone it may reach; a query acts for no one. */
        uid_t for_uid;
} InjectAsk;

/* Sends ask as a request line. Takes no ownership of pidfd. */
int inject_call_start(InjectPool *p, int pidfd, pid_t pid, const InjectAsk *ask, InjectCallback callback,
                      void *userdata, InjectCall **ret);
/* Sends "pid=PID migrate=NODES for_uid=UID": migrate_pages of the process's
 * pages to the node list nodes, nothing stopped. Root's goes on a new
 * connection, closed after it. Takes no ownership of pidfd. */
int inject_call_start_migrate(InjectPool *p, int pidfd, pid_t pid, const char *nodes, uid_t for_uid,
                              InjectCallback callback, void *userdata, InjectCall **ret);
/* Cancels a call in flight (no callback); its connection is closed. */
InjectCall *inject_call_free(InjectCall *c);
