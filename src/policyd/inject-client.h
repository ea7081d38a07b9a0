/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* policyd's side of the injector (policyd-inject@.service, one instance per
 * connection to policyd-inject.socket): one request line, with the
 * target's pidfd attached, and one reply line. policyd itself never
 * ptraces, and keeps neither CAP_SYS_PTRACE nor a seccomp filter that allows
 * it; reading another user's /proc/PID/exe, smaps or numa_maps needs that
 * capability too, so the helper also answers queries. */

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#define INJECT_SOCKET_PATH "/run/policyd-inject.socket"

typedef struct InjectReply {
        char *outcome;             /* applied, failed, refused, vanished, queried, error */
        char *reason;              /* of a refusal */
        char *error;
        char *exe;                 /* of a query */
        char *ksm;                 /* yes, no or - (a query's state, or what was verified) */
        char *mempolicy;           /* numa_maps spelling, "mixed", or - */
        unsigned threads;
        bool stuck;
        long not_moved;            /* of a migration that ran: pages left where they were; else -1 */
} InjectReply;

void inject_reply_clear(InjectReply *r);
/* Pure: the helper's reply line (inject-wire.h has the grammar). Unknown
 * keys are skipped; a malformed line is refused whole. */
int inject_reply_parse(const char *line, InjectReply *ret);

typedef struct InjectCall InjectCall;
/* error < 0: no reply (the helper is missing, failed or timed out); then
 * reply is NULL. The call is freed by its owner, after or inside this. */
typedef void (*InjectCallback)(InjectCall *call, const InjectReply *reply, int error, void *userdata);

/* Sends "pid=PID query=1" (ksm < 0 and mempolicy NULL) or an injection of
 * ksm (0/1, -1 to leave alone) and mempolicy (NULL to leave alone), acting
 * for for_uid (for_uid=: 0 for root's input, else the user's, whose own
 * processes alone it may reach; a query acts for no one). Takes no
 * ownership of pidfd. */
int inject_call_start(sd_event *event, const char *socket_path, int pidfd, pid_t pid, bool query, int ksm,
                      const char *mempolicy, unsigned timeout_ms, uid_t for_uid, InjectCallback callback,
                      void *userdata, InjectCall **ret);
/* Sends "pid=PID migrate=NODES for_uid=UID": migrate_pages of the process's
 * pages to the node list nodes, nothing stopped. Takes no ownership of pidfd. */
int inject_call_start_migrate(sd_event *event, const char *socket_path, int pidfd, pid_t pid, const char *nodes,
                              uid_t for_uid, InjectCallback callback, void *userdata, InjectCall **ret);
/* Cancels a call in flight (no callback). */
InjectCall *inject_call_free(InjectCall *c);
