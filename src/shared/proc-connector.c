/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "proc-connector.h"

/* <linux/netlink.h>, <linux/connector.h> and <linux/cn_proc.h>, in bytes. */
#define NLMSG_HEADER 16u          /* len, type, flags, seq, pid */
#define NLMSG_TYPE_DONE 3u        /* the connector sends every message as NLMSG_DONE */
#define CN_HEADER 20u             /* id.idx, id.val, seq, ack, len, flags */
#define CN_IDX_PROC 1u
#define CN_VAL_PROC 1u
#define PROC_EVENT_HEADER 16u     /* what, cpu, timestamp_ns */
#define PROC_EVENT_ACK_SIZE (PROC_EVENT_HEADER + 4u)
#define PROC_EVENT_EXEC_SIZE (PROC_EVENT_HEADER + 8u)

static uint32_t get_u32(const uint8_t *p) {
        uint32_t v;
        memcpy(&v, p, sizeof(v));
        return v;
}

static uint16_t get_u16(const uint8_t *p) {
        uint16_t v;
        memcpy(&v, p, sizeof(v));
        return v;
}

static void put_u32(uint8_t *p, uint32_t v) {
        memcpy(p, &v, sizeof(v));
}

static void put_u16(uint8_t *p, uint16_t v) {
        memcpy(p, &v, sizeof(v));
}

int proc_connector_control(uint32_t op, uint32_t filter, uint32_t seq, uint32_t ack, void *buf, size_t size) {
        uint32_t data_len = filter ? 8u : 4u;
        uint32_t len = NLMSG_HEADER + CN_HEADER + data_len;
        uint8_t *p = buf;

        if (size < len)
                return -ENOBUFS;
        memset(p, 0, len);
        put_u32(p, len);
        put_u16(p + 4, NLMSG_TYPE_DONE);
        put_u32(p + 8, seq);
        /* nlmsg_pid 0: the kernel fills in our port. */
        p += NLMSG_HEADER;
        put_u32(p, CN_IDX_PROC);
        put_u32(p + 4, CN_VAL_PROC);
        put_u32(p + 8, seq);
        put_u32(p + 12, ack);
        put_u16(p + 16, (uint16_t) data_len);
        p += CN_HEADER;
        put_u32(p, op);
        if (filter)
                put_u32(p + 4, filter);
        return (int) len;
}

/* One proc_event of data_len bytes; false when it is nothing we take. */
static bool parse_event(const uint8_t *data, uint32_t data_len, uint32_t seq, uint32_t ack, ProcConnectorEvent *ret) {
        if (data_len < PROC_EVENT_HEADER)
                return false;
        switch (get_u32(data)) {
        case PROC_CONNECTOR_EVENT_EXEC: {
                if (data_len < PROC_EVENT_EXEC_SIZE)
                        return false;
                int32_t pid = (int32_t) get_u32(data + PROC_EVENT_HEADER);
                int32_t tgid = (int32_t) get_u32(data + PROC_EVENT_HEADER + 4);
                if (pid <= 0 || tgid <= 0)
                        return false;
                *ret = (ProcConnectorEvent) { .kind = PROC_CONNECTOR_EXEC, .pid = pid, .tgid = tgid };
                return true;
        }
        case PROC_CONNECTOR_EVENT_NONE:
                if (data_len < PROC_EVENT_ACK_SIZE)
                        return false;
                *ret = (ProcConnectorEvent) {
                        .kind = PROC_CONNECTOR_ACK,
                        .seq = seq,
                        .ack = ack,
                        .error = get_u32(data + PROC_EVENT_HEADER),
                };
                return true;
        default: /* before 6.6, or another listener's filter: every type comes */
                return false;
        }
}

size_t proc_connector_parse(const void *buf, size_t size, uint32_t sender_portid, ProcConnectorEvent *events,
                            size_t n_max) {
        const uint8_t *p = buf;
        size_t n = 0;

        /* Another process may send to our port: only the kernel speaks here. */
        if (sender_portid != 0 || !buf)
                return 0;
        while (size >= NLMSG_HEADER && n < n_max) {
                uint32_t len = get_u32(p);
                if (len < NLMSG_HEADER || len > size)
                        break; /* the rest cannot be framed */
                uint32_t payload = len - NLMSG_HEADER;
                const uint8_t *cn = p + NLMSG_HEADER;

                if (get_u16(p + 4) == NLMSG_TYPE_DONE && payload >= CN_HEADER && get_u32(cn) == CN_IDX_PROC &&
                    get_u32(cn + 4) == CN_VAL_PROC) {
                        uint32_t data_len = get_u16(cn + 16);
                        if (data_len <= payload - CN_HEADER &&
                            parse_event(cn + CN_HEADER, data_len, get_u32(cn + 8), get_u32(cn + 12), &events[n]))
                                n++;
                }
                /* NLMSG_ALIGN: the next header starts on 4 bytes. */
                size_t step = ((size_t) len + 3u) & ~(size_t) 3u;
                if (step >= size)
                        break;
                p += step;
                size -= step;
        }
        return n;
}
