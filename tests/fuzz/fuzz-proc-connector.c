/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Any bytes, as one datagram read from the proc connector socket
 * (proc-connector.c). Whatever comes out must hold what exec-watch.c relies
 * on: at most as many events as asked for, at most one per 36 bytes (a
 * netlink and a cn_msg header each), PIDs that can name a process; and
 * nothing at all from a sender other than the kernel. A broken rule aborts,
 * so libFuzzer and the replay report it. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "proc-connector.h"

#define check(cond)                                                                 \
        do {                                                                        \
                if (!(cond)) {                                                      \
                        fprintf(stderr, "fuzz-proc-connector: breaks %s\n", #cond); \
                        abort();                                                    \
                }                                                                   \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ProcConnectorEvent events[64];
        size_t n;

        /* A copy of exactly size bytes: ASan sees a read past the end. */
        uint8_t *copy = malloc(size ? size : 1);
        check(copy);
        memcpy(copy, data, size);

        n = proc_connector_parse(copy, size, 0, events, 64);
        check(n <= 64);
        check(n <= size / 36);
        for (size_t i = 0; i < n; i++) {
                check(events[i].kind == PROC_CONNECTOR_EXEC || events[i].kind == PROC_CONNECTOR_ACK);
                if (events[i].kind == PROC_CONNECTOR_EXEC)
                        check(events[i].pid > 0 && events[i].tgid > 0);
        }
        /* A smaller array gets the same first events. */
        ProcConnectorEvent few[2];
        size_t m = proc_connector_parse(copy, size, 0, few, 2);
        check(m == (n < 2 ? n : 2));
        for (size_t i = 0; i < m; i++)
                check(few[i].kind == events[i].kind && few[i].pid == events[i].pid && few[i].seq == events[i].seq);

        check(proc_connector_parse(copy, size, 1, events, 64) == 0);
        free(copy);
        return 0;
}
