/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The proc connector's datagrams (proc-connector.c), as tables: which
 * messages become exec events and acks, and which are skipped. A datagram
 * is spelled as messages separated by " | ", each an event with optional
 * changes to its framing:
 *
 *   exec PID TGID | ack SEQ ACK ERR | fork PID TGID | exit PID TGID
 *   idx=N val=N       another connector's id (cn_msg.id)
 *   type=N            nlmsg_type (the connector sends NLMSG_DONE, 3)
 *   cnlen=N           cn_msg.len claims N bytes of event
 *   nllen=N           nlmsg_len says N
 *   cut=N             the datagram ends N bytes early (the last message) */

#include <glib.h>
#include <stdint.h>
#include <string.h>

#include "proc-connector.h"
#include "util.h"

static void put32(GByteArray *b, uint32_t v) {
        g_byte_array_append(b, (const guint8 *) &v, sizeof(v));
}

static void put16(GByteArray *b, uint16_t v) {
        g_byte_array_append(b, (const guint8 *) &v, sizeof(v));
}

static void set32(GByteArray *b, size_t at, uint32_t v) {
        memcpy(b->data + at, &v, sizeof(v));
}

/* Appends one message, NLMSG_ALIGNed, as the kernel frames it. */
static void build_message(GByteArray *b, const char *spec) {
        g_auto(GStrv) w = g_strsplit(spec, " ", -1);
        uint32_t what = 0, idx = 1, val = 1, type = 3, a = 0, c = 0, d = 0;
        int64_t cnlen = -1, nllen = -1;
        size_t start = b->len;
        guint n = 0;

        for (char **p = w; *p; p++) {
                if (**p == '\0')
                        continue;
                if (g_str_has_prefix(*p, "idx="))
                        idx = (uint32_t) g_ascii_strtoull(*p + 4, NULL, 10);
                else if (g_str_has_prefix(*p, "val="))
                        val = (uint32_t) g_ascii_strtoull(*p + 4, NULL, 10);
                else if (g_str_has_prefix(*p, "type="))
                        type = (uint32_t) g_ascii_strtoull(*p + 5, NULL, 10);
                else if (g_str_has_prefix(*p, "cnlen="))
                        cnlen = g_ascii_strtoll(*p + 6, NULL, 10);
                else if (g_str_has_prefix(*p, "nllen="))
                        nllen = g_ascii_strtoll(*p + 6, NULL, 10);
                else if (streq(*p, "exec"))
                        what = PROC_CONNECTOR_EVENT_EXEC;
                else if (streq(*p, "ack"))
                        what = PROC_CONNECTOR_EVENT_NONE;
                else if (streq(*p, "fork"))
                        what = 0x1;
                else if (streq(*p, "exit"))
                        what = 0x80000000u;
                else {
                        uint32_t v = (uint32_t) g_ascii_strtoll(*p, NULL, 10);
                        if (n == 0)
                                a = v;
                        else if (n == 1)
                                c = v;
                        else
                                d = v;
                        n++;
                }
        }

        /* The event: what, cpu, timestamp, then its data. */
        g_autoptr(GByteArray) ev = g_byte_array_new();
        put32(ev, what);
        put32(ev, 0);
        put32(ev, 0x12345678);
        put32(ev, 0);
        if (what == PROC_CONNECTOR_EVENT_NONE) {
                put32(ev, d); /* ack.err */
        } else {
                put32(ev, a);
                put32(ev, c);
                if (what == 0x1 || what == 0x80000000u) { /* fork and exit carry more */
                        put32(ev, a + 1);
                        put32(ev, c + 1);
                }
        }

        put32(b, 0); /* nlmsg_len, below */
        put16(b, (uint16_t) type);
        put16(b, 0);
        put32(b, 0);
        put32(b, 0);
        put32(b, idx);
        put32(b, val);
        put32(b, what == PROC_CONNECTOR_EVENT_NONE ? a : 0); /* seq */
        put32(b, what == PROC_CONNECTOR_EVENT_NONE ? c : 0); /* ack */
        put16(b, (uint16_t) (cnlen >= 0 ? cnlen : ev->len));
        put16(b, 0);
        g_byte_array_append(b, ev->data, ev->len);
        set32(b, start, nllen >= 0 ? (uint32_t) nllen : (uint32_t) (b->len - start));
        while (b->len % 4)
                g_byte_array_append(b, (const guint8 *) "", 1);
}

static char *describe(const ProcConnectorEvent *e, size_t n) {
        GString *s = g_string_new(NULL);
        for (size_t i = 0; i < n; i++) {
                if (s->len > 0)
                        g_string_append(s, ", ");
                if (e[i].kind == PROC_CONNECTOR_EXEC)
                        g_string_append_printf(s, "exec %d/%d", (int) e[i].pid, (int) e[i].tgid);
                else
                        g_string_append_printf(s, "ack %u/%u/%u", e[i].seq, e[i].ack, e[i].error);
        }
        return g_string_free(s, false);
}

typedef struct Case {
        const char *name;
        uint32_t sender;
        const char *datagram;
        const char *expected;
} Case;

static void test_parse(void) {
        static const Case cases[] = {
                { "an exec", 0, "exec 1234 1234", "exec 1234/1234" },
                { "a thread that exec'd is reported as it is", 0, "exec 1235 1234", "exec 1235/1234" },
                { "an ack of a subscription", 0, "ack 7 8 0", "ack 7/8/0" },
                { "an ack with an error", 0, "ack 7 8 22", "ack 7/8/22" },
                { "several messages in one datagram", 0, "exec 10 10 | ack 1 2 0 | exec 11 11",
                  "exec 10/10, ack 1/2/0, exec 11/11" },
                /* Before 6.6 every type comes, whatever we asked for. */
                { "fork and exit are skipped", 0, "fork 10 10 | exit 11 11 | exec 12 12", "exec 12/12" },
                { "a sender that is not the kernel", 4242, "exec 10 10", "" },
                { "another connector's message", 0, "idx=2 exec 10 10 | exec 11 11", "exec 11/11" },
                { "another value of the proc index", 0, "val=2 exec 10 10", "" },
                { "not NLMSG_DONE", 0, "type=2 exec 10 10 | exec 11 11", "exec 11/11" },
                { "an exec too short for its PIDs", 0, "cnlen=20 exec 10 10 | exec 11 11", "exec 11/11" },
                { "an event header cut short", 0, "cnlen=8 exec 10 10", "" },
                { "cn_msg.len past the message", 0, "cnlen=100 exec 10 10 | exec 11 11", "exec 11/11" },
                { "nlmsg_len past the datagram", 0, "nllen=4000 exec 10 10", "" },
                { "nlmsg_len shorter than a header ends the datagram", 0, "nllen=8 exec 10 10 | exec 11 11", "" },
                { "nlmsg_len too short for cn_msg", 0, "nllen=20 exec 10 10", "" },
                { "PID 0 is no process", 0, "exec 0 0 | exec 11 11", "exec 11/11" },
                { "a negative PID", 0, "exec -5 -5", "" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const Case *c = &cases[i];
                g_autoptr(GByteArray) b = g_byte_array_new();
                g_auto(GStrv) messages = g_strsplit(c->datagram, " | ", -1);
                ProcConnectorEvent events[8];

                for (char **m = messages; *m; m++)
                        build_message(b, *m);
                size_t n = proc_connector_parse(b->data, b->len, c->sender, events, G_N_ELEMENTS(events));
                g_autofree char *got = describe(events, n);
                if (!streq(got, c->expected))
                        g_error("%s ('%s'): got '%s', expected '%s'", c->name, c->datagram, got, c->expected);
        }
}

static void test_parse_limits(void) {
        g_autoptr(GByteArray) b = g_byte_array_new();
        ProcConnectorEvent events[2];

        build_message(b, "exec 10 10");
        build_message(b, "exec 11 11");
        build_message(b, "exec 12 12");
        g_assert_cmpuint(proc_connector_parse(b->data, b->len, 0, events, 2), ==, 2);
        g_assert_cmpint(events[1].pid, ==, 11);
        g_assert_cmpuint(proc_connector_parse(b->data, b->len, 0, events, 0), ==, 0);
        g_assert_cmpuint(proc_connector_parse(NULL, 0, 0, events, 2), ==, 0);
        /* Every cut of the datagram parses without reading past it. */
        for (size_t cut = 0; cut <= b->len; cut++) {
                g_autofree guint8 *copy = g_memdup2(b->data, cut);
                size_t n = proc_connector_parse(copy, cut, 0, events, 2);
                g_assert_cmpuint(n, <=, cut / 60);
        }
}

static void test_control(void) {
        uint8_t buf[PROC_CONNECTOR_CONTROL_MAX];
        uint32_t v;

        /* 6.6+: struct proc_input, the op and the event types. */
        g_assert_cmpint(proc_connector_control(PROC_CONNECTOR_LISTEN, PROC_CONNECTOR_EVENT_EXEC, 5, 6, buf, sizeof(buf)),
                        ==, 44);
        memcpy(&v, buf, 4);
        g_assert_cmpuint(v, ==, 44);
        memcpy(&v, buf + 16, 4); /* cn_msg.id.idx */
        g_assert_cmpuint(v, ==, 1);
        memcpy(&v, buf + 24, 4); /* cn_msg.seq */
        g_assert_cmpuint(v, ==, 5);
        g_assert_cmpuint(buf[32] | buf[33] << 8, ==, 8); /* cn_msg.len */
        memcpy(&v, buf + 36, 4);
        g_assert_cmpuint(v, ==, PROC_CONNECTOR_LISTEN);
        memcpy(&v, buf + 40, 4);
        g_assert_cmpuint(v, ==, PROC_CONNECTOR_EVENT_EXEC);

        /* Every kernel: the bare op. */
        g_assert_cmpint(proc_connector_control(PROC_CONNECTOR_IGNORE, 0, 1, 2, buf, sizeof(buf)), ==, 40);
        g_assert_cmpuint(buf[32] | buf[33] << 8, ==, 4);
        memcpy(&v, buf + 36, 4);
        g_assert_cmpuint(v, ==, PROC_CONNECTOR_IGNORE);

        g_assert_cmpint(proc_connector_control(PROC_CONNECTOR_LISTEN, 0, 1, 2, buf, 39), ==, -ENOBUFS);
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/proc-connector/parse", test_parse);
        g_test_add_func("/proc-connector/parse-limits", test_parse_limits);
        g_test_add_func("/proc-connector/control", test_control);
        return g_test_run();
}
