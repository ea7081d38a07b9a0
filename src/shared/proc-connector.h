/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The netlink proc connector's messages (CN_IDX_PROC, <linux/cn_proc.h>),
 * as bytes: the subscription policyd sends, and what comes back in one
 * datagram, read into exec events and acks. Pure: the socket is
 * src/policyd/exec-watch.c's.
 *
 * The layout is spelled out here rather than taken from <linux/cn_proc.h>:
 * struct proc_input (the per-socket event filter, Linux 6.6) is missing from
 * older headers, and the offsets are the kernel's ABI either way. */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* enum proc_cn_mcast_op */
#define PROC_CONNECTOR_LISTEN 1u
#define PROC_CONNECTOR_IGNORE 2u

/* enum what of struct proc_event: a bit each, so a filter is a mask. */
#define PROC_CONNECTOR_EVENT_NONE 0x0u /* an ack of a subscription */
#define PROC_CONNECTOR_EVENT_EXEC 0x2u
/* PROC_EVENT_ALL (6.6): every type, and acks, which no narrower filter
 * lets through (an ack's type, 0, has no bit). */
#define PROC_CONNECTOR_EVENT_ALL 0xe00003c7u

/* nlmsghdr, cn_msg and struct proc_input: the longest message we send. */
#define PROC_CONNECTOR_CONTROL_MAX (16 + 20 + 8)

typedef enum ProcConnectorEventKind {
        PROC_CONNECTOR_EXEC,
        PROC_CONNECTOR_ACK,
} ProcConnectorEventKind;

typedef struct ProcConnectorEvent {
        ProcConnectorEventKind kind;
        pid_t pid;      /* EXEC: the thread that exec'd, and its thread group */
        pid_t tgid;
        uint32_t seq;   /* ACK: cn_msg.seq, the kernel's count of messages (not ours) */
        uint32_t ack;   /* ACK: cn_msg.ack, the ack of the subscription + 1 */
        uint32_t error; /* ACK: a positive errno, or 0 */
} ProcConnectorEvent;

/* The subscription message: op (LISTEN or IGNORE) with the event-type
 * filter (Linux 6.6+, which reads an 8-byte struct proc_input; older
 * kernels ignore it, and send no ack), or, with filter 0, the bare 4-byte
 * op that every kernel reads (and 6.6+ takes as "every event"). The
 * kernel's ack carries ack + 1, and only to sockets whose filter is ALL.
 * Returns the length written, or -ENOBUFS when size is too small. */
int proc_connector_control(uint32_t op, uint32_t filter, uint32_t seq, uint32_t ack, void *buf, size_t size);

/* One datagram read from the connector socket, from the netlink address
 * sender_portid. Writes up to n_max exec events and acks of the proc
 * connector to events, and returns how many; everything else (other event
 * types, other connectors, short or malformed messages, and the rest of a
 * datagram after a malformed header) is skipped. Nothing from a sender
 * other than the kernel (portid 0) is taken. */
size_t proc_connector_parse(const void *buf, size_t size, uint32_t sender_portid, ProcConnectorEvent *events,
                            size_t n_max);
