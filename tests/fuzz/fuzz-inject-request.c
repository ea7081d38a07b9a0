/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Any bytes, as a request line to the injector helper (inject-wire.h), as
 * policyd-inject --serve reads them from its socket. A valid request must
 * hold what the helper relies on, and read back the same after formatting;
 * an invalid one must say why. The bytes also go through a reply's quoting
 * as an error text, and must read back unchanged. A broken rule aborts, so
 * libFuzzer and the replay report it. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "inject-wire.h"

#define check(cond)                                                                 \
        do {                                                                        \
                if (!(cond)) {                                                      \
                        fprintf(stderr, "fuzz-inject-request: breaks %s\n", #cond); \
                        abort();                                                    \
                }                                                                   \
        } while (0)

static void check_valid(const InjectWireRequest *w) {
        char line[INJECT_WIRE_LINE_MAX];
        InjectWireRequest again;

        check(w->pid > 0 && w->error[0] == '\0');
        check(w->req.ksm >= -1 && w->req.ksm <= 1);
        check(w->query || w->migrate ? w->req.ksm < 0 && !w->req.set_mempolicy
                                     : w->req.ksm >= 0 || w->req.set_mempolicy);
        check(!(w->query && w->migrate));
        /* A query acts for no one; no line names "no one" (uid -1). */
        check(!w->query || w->req.acting_uid == 0);
        check(w->req.acting_uid != PROCESS_TRUST_UID_NONE);
        check(w->req.timeout_usec >= 1000 && w->req.timeout_usec <= INJECT_WIRE_TIMEOUT_MS_MAX * 1000ULL);

        /* Formatting it gives a canonical line that reads back the same. */
        check(inject_wire_format_request(w, line, sizeof(line)) == 0);
        check(inject_wire_parse_request(line, strlen(line), &again) == 0);
        check(again.pid == w->pid && again.query == w->query && again.migrate == w->migrate &&
              again.req.ksm == w->req.ksm && again.req.set_mempolicy == w->req.set_mempolicy &&
              again.req.acting_uid == w->req.acting_uid);
        check(memcmp(again.migrate_nodes, w->migrate_nodes, sizeof(w->migrate_nodes)) == 0);
        /* A query or a migration carries no time box: it is not written, and
         * reads back as the default. */
        check(w->query || w->migrate || again.req.timeout_usec == w->req.timeout_usec);
        check(!w->req.set_mempolicy || mempolicy_equal(&again.req.mempolicy, &w->req.mempolicy));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        InjectWireRequest w;
        char text[256], reply[4 * sizeof(text) + 512], back[sizeof(text)];
        int r = inject_wire_parse_request((const char *) data, size, &w);

        if (r == 0)
                check_valid(&w);
        else
                check(r == -EINVAL && w.error[0] != '\0' && memchr(w.error, '\0', sizeof(w.error)));

        /* Whatever a client sent, echoed in an error, stays one reply line. */
        size_t n = strnlen((const char *) data, size < sizeof(text) ? size : sizeof(text) - 1);
        memcpy(text, data, n);
        text[n] = '\0';
        check(inject_wire_format_reply(w.pid, NULL, NULL, text, reply, sizeof(reply)) == 0);
        check(strchr(reply, '\n') == reply + strlen(reply) - 1);
        check(inject_wire_get(reply, "error", back, sizeof(back)) == 0 && strcmp(back, text) == 0);
        check(inject_wire_get(reply, "outcome", back, sizeof(back)) == 0 && strcmp(back, "error") == 0);
        if (r < 0) {
                check(inject_wire_format_reply(w.pid, NULL, NULL, w.error, reply, sizeof(reply)) == 0);
                check(inject_wire_get(reply, "error", back, sizeof(back)) == 0 && strcmp(back, w.error) == 0);
        }
        return 0;
}
