/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The injector helper's wire format (inject-wire.h), as tables: request
 * lines and what they parse to, or the error they get; and reply lines,
 * read back key by key. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "inject-wire.h"

static void test_request(void) {
        static const struct {
                const char *line;
                int r;
                int pid, ksm;
                const char *mempolicy;   /* NULL: not set */
                unsigned timeout_ms;
                const char *error;       /* a part of the error */
                const char *migrate;     /* the node list of migrate=, canonical; NULL: none */
                const char *mempolicy_if; /* of ensure=1, canonical; NULL: none */
        } cases[] = {
                { "pid=1234 ksm=1 mempolicy=interleave:0-1 timeout_ms=2000\n", 0, 1234, 1, "interleave:0-1", 2000, NULL },
                { "pid=1234 ksm=0 mempolicy=default timeout_ms=500\n", 0, 1234, 0, "default", 500, NULL },
                { "pid=7 ksm=- mempolicy=preferred:1 timeout_ms=10000\n", 0, 7, -1, "preferred:1", 10000, NULL },
                { "pid=7 ksm=1 mempolicy=- timeout_ms=1\n", 0, 7, 1, NULL, 1, NULL },
                /* Defaults: ksm=-, mempolicy=-, timeout_ms=2000; any order. */
                { "pid=7 ksm=1\n", 0, 7, 1, NULL, 2000, NULL },
                { "mempolicy=bind:1 pid=7\n", 0, 7, -1, "bind:1", 2000, NULL },
                { "timeout_ms=30 mempolicy=\"weighted-interleave:0,1\" ksm=0 pid=2147483647\n", 0, 2147483647, 0,
                  "weighted-interleave:0-1", 30, NULL },
                { "pid=7 mempolicy=\"local\"\n", 0, 7, -1, "local", 2000, NULL },
                { "pid=7 mempolicy=\"lo\\x63al\"\n", 0, 7, -1, "local", 2000, NULL },
                { "pid=7 query=1\n", 0, 7, -1, NULL, 2000, NULL },
                { "query=1 pid=7 ksm=- mempolicy=-\n", 0, 7, -1, NULL, 2000, NULL },
                { "pid=7 query=1 ksm=1\n", -EINVAL, 7, 0, NULL, 0, "query=1 takes no ksm=" },
                { "pid=7 query=1 mempolicy=default\n", -EINVAL, 7, 0, NULL, 0, "query=1 takes no ksm=" },
                { "pid=7 query=yes\n", -EINVAL, 7, 0, NULL, 0, "query= takes 1 or 0" },
                { "pid=7 query=0\n", -EINVAL, 7, 0, NULL, 0, "nothing to do" },
                /* migrate=: NUMANodes= without cpuset, alone with pid=. */
                { "pid=7 migrate=1\n", 0, 7, -1, NULL, 2000, NULL, "1" },
                { "migrate=\"0,1,3\" pid=7\n", 0, 7, -1, NULL, 2000, NULL, "0-1,3" },
                { "pid=7 migrate=1023\n", 0, 7, -1, NULL, 2000, NULL, "1023" },
                { "pid=7 migrate=1024\n", -EINVAL, 7, 0, NULL, 0, "migrate= takes a node list" },
                { "pid=7 migrate=-\n", -EINVAL, 7, 0, NULL, 0, "migrate= takes a node list" },
                { "pid=7 migrate=1-0\n", -EINVAL, 7, 0, NULL, 0, "migrate= takes a node list" },
                { "pid=7 migrate=1,\n", -EINVAL, 7, 0, NULL, 0, "migrate= takes a node list" },
                { "pid=7 migrate=bind:1\n", -EINVAL, 7, 0, NULL, 0, "migrate= takes a node list" },
                { "pid=7 migrate=1 migrate=0\n", -EINVAL, 7, 0, NULL, 0, "migrate= given twice" },
                { "pid=7 migrate=1 ksm=1\n", -EINVAL, 7, 0, NULL, 0, "migrate= takes no ksm=" },
                { "pid=7 migrate=1 ksm=-\n", -EINVAL, 7, 0, NULL, 0, "migrate= takes no ksm=" },
                { "pid=7 mempolicy=bind:1 migrate=1\n", -EINVAL, 7, 0, NULL, 0, "migrate= takes no ksm=" },
                { "pid=7 migrate=1 query=1\n", -EINVAL, 7, 0, NULL, 0, "migrate= takes no ksm=" },
                { "pid=7 migrate=1 timeout_ms=10\n", -EINVAL, 7, 0, NULL, 0, "migrate= takes no ksm=" },
                /* ensure=1: only what differs, one request a move. */
                { "pid=7 ksm=1 mempolicy=interleave:0-1 ensure=1\n", 0, 7, 1, "interleave:0-1", 2000, NULL },
                { "pid=7 ksm=1 ensure=0\n", 0, 7, 1, NULL, 2000, NULL },
                { "pid=7 ksm=0 mempolicy=default ensure=1 mempolicy_if=\"interleave:0,1\"\n", 0, 7, 0, "default",
                  2000, NULL, NULL, "interleave:0-1" },
                { "pid=7 query=1 ensure=1\n", -EINVAL, 7, 0, NULL, 0, "query=1 takes no ensure=1" },
                { "pid=7 migrate=1 ensure=1\n", -EINVAL, 7, 0, NULL, 0, "migrate= takes no" },
                { "pid=7 ksm=1 ensure=yes\n", -EINVAL, 7, 0, NULL, 0, "ensure= takes 1 or 0" },
                { "pid=7 ensure=1\n", -EINVAL, 7, 0, NULL, 0, "nothing to do" },
                { "pid=7 mempolicy=default mempolicy_if=bind:1\n", -EINVAL, 7, 0, NULL, 0,
                  "mempolicy_if= goes with ensure=1" },
                { "pid=7 ksm=0 ensure=1 mempolicy_if=bind:1\n", -EINVAL, 7, 0, NULL, 0,
                  "mempolicy_if= goes with ensure=1" },
                { "pid=7 mempolicy=default ensure=1 mempolicy_if=prefer:1\n", -EINVAL, 7, 0, NULL, 0,
                  "mempolicy_if= takes a SPEC" },

                { "", -EINVAL, 0, 0, NULL, 0, "empty" },
                { "pid=7 ksm=1", -EINVAL, 0, 0, NULL, 0, "newline" },
                { "pid=7 ksm=1\n\n", -EINVAL, 0, 0, NULL, 0, "more than one line" },
                { "pid=7 ksm=1\npid=8 ksm=1\n", -EINVAL, 0, 0, NULL, 0, "more than one line" },
                { "pid=7 ksm=1\r\n", -EINVAL, 7, 0, NULL, 0, "malformed" },
                { "pid=7 foo=1\n", -EINVAL, 7, 0, NULL, 0, "unknown key 'foo'" },
                { "pid=7 KSM=1\n", -EINVAL, 7, 0, NULL, 0, "malformed" },
                { "pid=7 ksm=1 ksm=0\n", -EINVAL, 7, 0, NULL, 0, "ksm= given twice" },
                { "pid=7 pid=8 ksm=1\n", -EINVAL, 7, 0, NULL, 0, "pid= given twice" },
                { "ksm=1\n", -EINVAL, 0, 0, NULL, 0, "no pid=" },
                { "pid=7\n", -EINVAL, 7, 0, NULL, 0, "nothing to do" },
                { "pid=7 ksm=- mempolicy=-\n", -EINVAL, 7, 0, NULL, 0, "nothing to do" },
                { "pid=0 ksm=1\n", -EINVAL, 0, 0, NULL, 0, "pid= takes a PID" },
                { "pid=-1 ksm=1\n", -EINVAL, 0, 0, NULL, 0, "pid= takes a PID" },
                { "pid=007 ksm=1\n", -EINVAL, 0, 0, NULL, 0, "pid= takes a PID" },
                { "pid=2147483648 ksm=1\n", -EINVAL, 0, 0, NULL, 0, "pid= takes a PID" },
                { "pid=0x10 ksm=1\n", -EINVAL, 0, 0, NULL, 0, "pid= takes a PID" },
                { "pid=7 ksm=yes\n", -EINVAL, 7, 0, NULL, 0, "ksm= takes 1, 0 or -" },
                { "pid=7 ksm=2\n", -EINVAL, 7, 0, NULL, 0, "ksm= takes 1, 0 or -" },
                { "pid=7 mempolicy=prefer:1\n", -EINVAL, 7, 0, NULL, 0, "mempolicy= takes a SPEC" },
                { "pid=7 mempolicy=preferred:0-1\n", -EINVAL, 7, 0, NULL, 0, "mempolicy= takes a SPEC" },
                { "pid=7 ksm=1 timeout_ms=0\n", -EINVAL, 7, 0, NULL, 0, "timeout_ms= takes 1 to 10000" },
                { "pid=7 ksm=1 timeout_ms=10001\n", -EINVAL, 7, 0, NULL, 0, "timeout_ms= takes 1 to 10000" },
                { "pid=7  ksm=1\n", -EINVAL, 0, 0, NULL, 0, "malformed" },  /* the separator is the token's */
                { " pid=7 ksm=1\n", -EINVAL, 0, 0, NULL, 0, "malformed" },
                { "pid=7 ksm=1 \n", -EINVAL, 7, 0, NULL, 0, "malformed" },
                { "pid=7 ksm=\n", -EINVAL, 7, 0, NULL, 0, "malformed" },
                { "pid=7 ksm=\"1\n", -EINVAL, 7, 0, NULL, 0, "malformed" },
                { "pid=7 ksm=\"\\x00\"\n", -EINVAL, 7, 0, NULL, 0, "malformed" },
                { "pid=7 ksm=\"\\q\"\n", -EINVAL, 7, 0, NULL, 0, "malformed" },
                { "pid=7 =1\n", -EINVAL, 7, 0, NULL, 0, "malformed" },
                { "pid=7 ksm\n", -EINVAL, 7, 0, NULL, 0, "malformed" },
                { "pid=7 ksm=1\"\n", -EINVAL, 7, 0, NULL, 0, "malformed" },
                { "pid=7 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1\n", -EINVAL, 7, 0, NULL, 0, "key too long" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                InjectWireRequest w;
                int r = inject_wire_parse_request(cases[i].line, strlen(cases[i].line), &w);
                g_autofree char *shown = g_strescape(cases[i].line, NULL);

                if (r != cases[i].r)
                        g_error("request '%s': want %d, got %d (%s)", shown, cases[i].r, r, w.error);
                g_assert_cmpint(w.pid, ==, cases[i].pid);
                if (r < 0) {
                        if (!strstr(w.error, cases[i].error))
                                g_error("request '%s': error '%s' does not say '%s'", shown, w.error, cases[i].error);
                        continue;
                }
                g_assert_cmpstr(w.error, ==, "");
                g_assert_cmpint(w.query, ==, strstr(cases[i].line, "query=1") != NULL);
                g_assert_cmpint(w.migrate, ==, cases[i].migrate != NULL);
                if (cases[i].migrate) {
                        char nodes[64];
                        g_assert_cmpint(mempolicy_format_nodes(w.migrate_nodes, nodes, sizeof(nodes)), ==, 0);
                        g_assert_cmpstr(nodes, ==, cases[i].migrate);
                }
                g_assert_cmpint(w.req.ksm, ==, cases[i].ksm);
                g_assert_cmpint(w.req.set_mempolicy, ==, cases[i].mempolicy != NULL);
                if (cases[i].mempolicy) {
                        char spec[64];
                        g_assert_cmpint(mempolicy_format(&w.req.mempolicy, spec, sizeof(spec)), ==, 0);
                        g_assert_cmpstr(spec, ==, cases[i].mempolicy);
                }
                g_assert_cmpuint(w.req.timeout_usec, ==, cases[i].timeout_ms * 1000ULL);
                g_assert_cmpint(w.ensure, ==, strstr(cases[i].line, "ensure=1") != NULL);
                g_assert_cmpint(w.has_mempolicy_if, ==, cases[i].mempolicy_if != NULL);
                if (cases[i].mempolicy_if) {
                        char spec[64];
                        g_assert_cmpint(mempolicy_format(&w.mempolicy_if, spec, sizeof(spec)), ==, 0);
                        g_assert_cmpstr(spec, ==, cases[i].mempolicy_if);
                }
        }
}

static void test_request_limits(void) {
        InjectWireRequest w;
        /* The longest line there is room for, and one byte more. */
        char line[INJECT_WIRE_LINE_MAX + 2];
        const char *head = "pid=7 ksm=1 mempolicy=\"default\" timeout_ms=\"";
        size_t n = strlen(head);

        memcpy(line, head, n);
        memset(line + n, '0', INJECT_WIRE_LINE_MAX - n - 3);
        memcpy(line + INJECT_WIRE_LINE_MAX - 3, "5\"\n", 3);
        line[INJECT_WIRE_LINE_MAX] = 'x';
        g_assert_cmpint(inject_wire_parse_request(line, INJECT_WIRE_LINE_MAX, &w), ==, -EINVAL);
        g_assert_nonnull(strstr(w.error, "timeout_ms="));  /* read to the end: only the value is wrong */
        g_assert_cmpint(inject_wire_parse_request(line, INJECT_WIRE_LINE_MAX + 1, &w), ==, -EINVAL);
        g_assert_nonnull(strstr(w.error, "longer than"));

        g_assert_cmpint(inject_wire_parse_request("pid=7 ksm=1\0\n", 13, &w), ==, -EINVAL);
        g_assert_nonnull(strstr(w.error, "NUL"));
}

static void test_request_round_trip(void) {
        static const char *const specs[] = { "default", "local", "preferred:1", "bind:0,2-3",
                                             "interleave:0-1", "preferred-many:1,3", "weighted-interleave:70" };
        for (size_t i = 0; i < G_N_ELEMENTS(specs); i++) {
                InjectWireRequest sent = { .pid = 4242, .req = { .ksm = (int) i % 3 - 1, .set_mempolicy = true,
                                                                 .timeout_usec = 1000 * (i + 1) } };
                const InjectRequest req = sent.req;
                InjectWireRequest w;
                char line[256];

                g_assert_cmpint(mempolicy_parse(specs[i], &sent.req.mempolicy), ==, 0);
                g_assert_cmpint(inject_wire_format_request(&sent, line, sizeof(line)), ==, 0);
                if (inject_wire_parse_request(line, strlen(line), &w) != 0)
                        g_error("'%s' does not read back: %s", line, w.error);
                g_assert_cmpint(w.pid, ==, 4242);
                g_assert_cmpint(w.req.ksm, ==, req.ksm);
                g_assert_true(w.req.set_mempolicy);
                g_assert_true(mempolicy_equal(&w.req.mempolicy, &sent.req.mempolicy));
                g_assert_cmpuint(w.req.timeout_usec, ==, req.timeout_usec);
        }

        InjectWireRequest ksm_only = { .pid = 9, .req = { .ksm = 1 } };
        InjectWireRequest query = { .pid = 9, .query = true, .req = { .ksm = -1 } };
        InjectWireRequest nobody = { .pid = 0, .req = { .ksm = 1 } };
        char line[64];
        g_assert_cmpint(inject_wire_format_request(&ksm_only, line, sizeof(line)), ==, 0);
        g_assert_cmpstr(line, ==, "pid=9 ksm=1 mempolicy=- timeout_ms=2000\n");
        g_assert_cmpint(inject_wire_format_request(&ksm_only, line, 10), ==, -ENOBUFS);
        g_assert_cmpint(inject_wire_format_request(&nobody, line, sizeof(line)), ==, -EINVAL);
        g_assert_cmpint(inject_wire_format_request(&query, line, sizeof(line)), ==, 0);
        g_assert_cmpstr(line, ==, "pid=9 query=1\n");
        query.req.ksm = 0;
        g_assert_cmpint(inject_wire_format_request(&query, line, sizeof(line)), ==, -EINVAL);

        InjectWireRequest migrate = { .pid = 9, .migrate = true, .req = { .ksm = -1 } }, back;
        g_assert_cmpint(inject_wire_format_request(&migrate, line, sizeof(line)), ==, -EINVAL); /* no node */
        g_assert_cmpint(mempolicy_parse_nodes("1,3-4", migrate.migrate_nodes), ==, 0);
        g_assert_cmpint(inject_wire_format_request(&migrate, line, sizeof(line)), ==, 0);
        g_assert_cmpstr(line, ==, "pid=9 migrate=1,3-4\n");
        g_assert_cmpint(inject_wire_parse_request(line, strlen(line), &back), ==, 0);
        g_assert_true(back.migrate);
        g_assert_cmpmem(back.migrate_nodes, sizeof(back.migrate_nodes), migrate.migrate_nodes,
                        sizeof(migrate.migrate_nodes));
        migrate.req.ksm = 1;
        g_assert_cmpint(inject_wire_format_request(&migrate, line, sizeof(line)), ==, -EINVAL);

        /* ensure=1, with the condition of an undo. */
        InjectWireRequest undo = { .pid = 9, .ensure = true, .has_mempolicy_if = true,
                                   .req = { .ksm = 0, .set_mempolicy = true } };
        char longer[128];
        g_assert_cmpint(mempolicy_parse("default", &undo.req.mempolicy), ==, 0);
        g_assert_cmpint(mempolicy_parse("bind:1", &undo.mempolicy_if), ==, 0);
        g_assert_cmpint(inject_wire_format_request(&undo, longer, sizeof(longer)), ==, 0);
        g_assert_cmpstr(longer, ==, "pid=9 ksm=0 mempolicy=default timeout_ms=2000 ensure=1 mempolicy_if=bind:1\n");
        g_assert_cmpint(inject_wire_parse_request(longer, strlen(longer), &back), ==, 0);
        g_assert_true(back.ensure && back.has_mempolicy_if);
        g_assert_true(mempolicy_equal(&back.mempolicy_if, &undo.mempolicy_if));
        undo.req.set_mempolicy = false; /* a condition on nothing */
        g_assert_cmpint(inject_wire_format_request(&undo, longer, sizeof(longer)), ==, -EINVAL);
}

static void test_reply(void) {
        InjectReport applied = { .outcome = INJECT_APPLIED, .ksm_result = 0, .threads = 3, .threads_in_syscall = 2,
                                 .mempolicy_applied = 3, .signals_passed = 1, .retries = 4 };
        InjectReport no_ksm = { .outcome = INJECT_FAILED, .ksm_result = -EINVAL, .threads = 1, .mempolicy_applied = 1,
                                .insn_in_place = true, .error = -EINVAL };
        InjectReport timed_out = { .outcome = INJECT_FAILED, .ksm_result = 1, .error = -ETIME, .stuck = true };
        InjectReport refused = { .outcome = INJECT_REFUSED, .refusal = INJECT_REFUSAL_SECCOMP, .ksm_result = 1 };
        InjectReport vanished = { .outcome = INJECT_VANISHED, .ksm_result = 1 };
        /* Gone after its registers were set for a syscall that never ran. */
        /* ensure=1 found KSM alone to differ, and read the executable back. */
        InjectReport ksm_only = { .outcome = INJECT_APPLIED, .ksm_result = 0, .threads = 1 };
        InjectQuery ksm_read = { .exe = "/usr/bin/app", .ksm = 1, .mempolicy = "" };
        InjectReport vanished_mid = { .outcome = INJECT_VANISHED, .ksm_result = 1, .wrote = true, .insn_in_place = true };
        InjectReport migrated = { .outcome = INJECT_APPLIED, .ksm_result = 1, .migrate = true, .migrate_result = 12 };
        InjectReport not_migrated = { .outcome = INJECT_FAILED, .ksm_result = 1, .migrate = true,
                                      .migrate_result = -EPERM, .error = -EPERM };
        InjectReport migrate_vanished = { .outcome = INJECT_VANISHED, .ksm_result = 1, .migrate = true };
        InjectQuery both = { .exe = "-", .ksm = 1, .mempolicy = "interleave:0-1" };
        InjectQuery mixed = { .exe = "-", .ksm = 0, .mempolicy = "mixed" };
        InjectQuery many = { .exe = "-", .ksm = -1, .mempolicy = "prefer (many):0-1" };
        InjectQuery queried = { .exe = "/opt/my \"app\" \xc3\xa9", .ksm = 0, .mempolicy = "prefer:1" };
        InjectQuery unread = { .exe = "", .ksm = -1, .mempolicy = "" };
        const struct {
                pid_t pid;
                const InjectReport *rep;
                const InjectQuery *q;
                const char *error;
                const char *line;
        } cases[] = {
                { 1234, &applied, &both, NULL,
                  "pid=1234 outcome=applied reason=\"\" error=\"\" exe=\"-\" threads=3 in_syscall=2 signals_passed=1 "
                  "retries=4 insn=vdso verified_ksm=yes verified_mempolicy=interleave:0-1 stuck=0 not_moved=- set=ksm,mempolicy\n" },
                { 1234, &no_ksm, &mixed, NULL,
                  "pid=1234 outcome=failed reason=\"\" error=\"prctl(PR_SET_MEMORY_MERGE): EINVAL (Invalid argument)\" "
                  "exe=\"-\" threads=1 in_syscall=0 signals_passed=0 retries=0 insn=in-place verified_ksm=no "
                  "verified_mempolicy=mixed stuck=0 not_moved=- set=ksm,mempolicy\n" },
                { 1234, &applied, &many, NULL,
                  "pid=1234 outcome=applied reason=\"\" error=\"\" exe=\"-\" threads=3 in_syscall=2 signals_passed=1 "
                  "retries=4 insn=vdso verified_ksm=- verified_mempolicy=\"prefer (many):0-1\" stuck=0 not_moved=- set=ksm,mempolicy\n" },
                { 1234, &timed_out, NULL, NULL,
                  "pid=1234 outcome=failed reason=\"\" error=\"time box ran out: ETIME (Timer expired)\" exe=\"-\" "
                  "threads=0 in_syscall=0 signals_passed=0 retries=0 insn=- verified_ksm=- verified_mempolicy=- "
                  "stuck=1 not_moved=- set=-\n" },
                { 1234, &refused, NULL, NULL,
                  "pid=1234 outcome=refused reason=\"under a seccomp filter\" error=\"\" exe=\"-\" threads=0 "
                  "in_syscall=0 signals_passed=0 retries=0 insn=- verified_ksm=- verified_mempolicy=- stuck=0 not_moved=- set=-\n" },
                { 1234, &vanished, NULL, NULL,
                  "pid=1234 outcome=vanished reason=\"\" error=\"\" exe=\"-\" threads=0 in_syscall=0 signals_passed=0 "
                  "retries=0 insn=- verified_ksm=- verified_mempolicy=- stuck=0 not_moved=- set=-\n" },
                { 1234, &vanished_mid, NULL, NULL,
                  "pid=1234 outcome=vanished reason=\"\" error=\"\" exe=\"-\" threads=0 in_syscall=0 signals_passed=0 "
                  "retries=0 insn=in-place verified_ksm=- verified_mempolicy=- stuck=0 not_moved=- set=-\n" },
                { 1234, &ksm_only, &ksm_read, NULL,
                  "pid=1234 outcome=applied reason=\"\" error=\"\" exe=\"/usr/bin/app\" threads=1 in_syscall=0 "
                  "signals_passed=0 retries=0 insn=vdso verified_ksm=yes verified_mempolicy=- stuck=0 not_moved=- set=ksm\n" },
                { 1234, NULL, &queried, NULL,
                  "pid=1234 outcome=queried reason=\"\" error=\"\" exe=\"/opt/my \\\"app\\\" \xc3\xa9\" threads=0 "
                  "in_syscall=0 signals_passed=0 retries=0 insn=- verified_ksm=no verified_mempolicy=prefer:1 stuck=0 not_moved=- set=-\n" },
                { 2, NULL, &unread, NULL,
                  "pid=2 outcome=queried reason=\"\" error=\"\" exe=\"\" threads=0 in_syscall=0 signals_passed=0 "
                  "retries=0 insn=- verified_ksm=- verified_mempolicy=- stuck=0 not_moved=- set=-\n" },
                { 1234, &migrated, NULL, NULL,
                  "pid=1234 outcome=applied reason=\"\" error=\"\" exe=\"-\" threads=0 in_syscall=0 signals_passed=0 "
                  "retries=0 insn=- verified_ksm=- verified_mempolicy=- stuck=0 not_moved=12 set=-\n" },
                { 1234, &not_migrated, NULL, NULL,
                  "pid=1234 outcome=failed reason=\"\" error=\"migrate_pages: EPERM (Operation not permitted)\" "
                  "exe=\"-\" threads=0 in_syscall=0 signals_passed=0 retries=0 insn=- verified_ksm=- "
                  "verified_mempolicy=- stuck=0 not_moved=- set=-\n" },
                { 1234, &migrate_vanished, NULL, NULL,
                  "pid=1234 outcome=vanished reason=\"\" error=\"\" exe=\"-\" threads=0 in_syscall=0 signals_passed=0 "
                  "retries=0 insn=- verified_ksm=- verified_mempolicy=- stuck=0 not_moved=- set=-\n" },
                { 0, NULL, NULL, "unknown key 'x\"y'\n\x01",
                  "pid=- outcome=error reason=\"\" error=\"unknown key 'x\\\"y'\\n\\x01\" exe=\"-\" threads=0 "
                  "in_syscall=0 signals_passed=0 retries=0 insn=- verified_ksm=- verified_mempolicy=- stuck=0 not_moved=- set=-\n" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                char line[1024], value[256];

                g_assert_cmpint(inject_wire_format_reply(cases[i].pid, cases[i].rep, cases[i].q, cases[i].error, line,
                                                         sizeof(line)), ==, 0);
                g_assert_cmpstr(line, ==, cases[i].line);
                /* Every key reads back; a quoted one unquoted. */
                g_assert_cmpint(inject_wire_get(line, "stuck", value, sizeof(value)), ==, 0);
                g_assert_cmpint(inject_wire_get(line, "not_moved", value, sizeof(value)), ==, 0);
                g_assert_cmpint(inject_wire_get(line, "error", value, sizeof(value)), ==, 0);
                if (cases[i].error)
                        g_assert_cmpstr(value, ==, cases[i].error);
                g_assert_cmpint(inject_wire_get(line, "exe", value, sizeof(value)), ==, 0);
                g_assert_cmpstr(value, ==, cases[i].q ? cases[i].q->exe : "-");
                g_assert_cmpint(inject_wire_get(line, "verified_mempolicy", value, sizeof(value)), ==, 0);
                g_assert_cmpstr(value, ==, cases[i].q && cases[i].q->mempolicy[0] ? cases[i].q->mempolicy : "-");
        }

        char line[1024], value[64];
        g_assert_cmpint(inject_wire_format_reply(1, &applied, NULL, NULL, line, 40), ==, -ENOBUFS);
        g_assert_cmpint(inject_wire_get("pid=1 outcome=applied\n", "outcome", value, sizeof(value)), ==, 0);
        g_assert_cmpstr(value, ==, "applied");
        g_assert_cmpint(inject_wire_get("pid=1 outcome=applied\n", "reason", value, sizeof(value)), ==, -ENOENT);
        g_assert_cmpint(inject_wire_get("pid=1 outcome=\"applied\n", "outcome", value, sizeof(value)), ==, -EINVAL);
        g_assert_cmpint(inject_wire_get("pid=1 outcome=applied\n", "outcome", value, 4), ==, -ENOBUFS);
}

/* for_uid=: whose input asks (process-trust.h). 0 and absent are root's. */
static void test_request_for_uid(void) {
        static const struct {
                const char *line;
                int r;
                unsigned uid;
                const char *error;  /* a part of it */
                const char *formatted;  /* the canonical line */
        } cases[] = {
                { "pid=7 ksm=1\n", 0, 0, NULL, "pid=7 ksm=1 mempolicy=- timeout_ms=2000\n" },
                { "pid=7 ksm=1 for_uid=0\n", 0, 0, NULL, "pid=7 ksm=1 mempolicy=- timeout_ms=2000\n" },
                { "pid=7 ksm=1 for_uid=1000\n", 0, 1000, NULL, "pid=7 ksm=1 mempolicy=- timeout_ms=2000 for_uid=1000\n" },
                { "for_uid=65534 pid=7 mempolicy=default\n", 0, 65534, NULL,
                  "pid=7 ksm=- mempolicy=default timeout_ms=2000 for_uid=65534\n" },
                { "pid=7 ksm=1 for_uid=4294967294\n", 0, 4294967294u, NULL,
                  "pid=7 ksm=1 mempolicy=- timeout_ms=2000 for_uid=4294967294\n" },
                { "pid=7 migrate=1 for_uid=1000\n", 0, 1000, NULL, "pid=7 migrate=1 for_uid=1000\n" },
                { "pid=7 migrate=1 for_uid=0\n", 0, 0, NULL, "pid=7 migrate=1\n" },
                { "pid=7 ksm=1 for_uid=4294967295\n", -EINVAL, 0, "for_uid= takes a uid", NULL },
                { "pid=7 ksm=1 for_uid=-1\n", -EINVAL, 0, "for_uid= takes a uid", NULL },
                { "pid=7 ksm=1 for_uid=01000\n", -EINVAL, 0, "for_uid= takes a uid", NULL },
                { "pid=7 ksm=1 for_uid=root\n", -EINVAL, 0, "for_uid= takes a uid", NULL },
                { "pid=7 ksm=1 for_uid=1 for_uid=2\n", -EINVAL, 0, "for_uid= given twice", NULL },
                { "pid=7 query=1 for_uid=1000\n", -EINVAL, 0, "query=1 takes no for_uid=", NULL },
                { "pid=7 query=1 for_uid=0\n", -EINVAL, 0, "query=1 takes no for_uid=", NULL },
                { "pid=7 for_uid=1000\n", -EINVAL, 0, "nothing to do", NULL },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                InjectWireRequest w;
                char line[INJECT_WIRE_LINE_MAX];
                int r = inject_wire_parse_request(cases[i].line, strlen(cases[i].line), &w);

                g_test_message("%s", cases[i].line);
                g_assert_cmpint(r, ==, cases[i].r);
                if (r < 0) {
                        g_assert_nonnull(strstr(w.error, cases[i].error));
                        continue;
                }
                g_assert_cmpuint(w.req.acting_uid, ==, cases[i].uid);
                g_assert_cmpint(inject_wire_format_request(&w, line, sizeof(line)), ==, 0);
                g_assert_cmpstr(line, ==, cases[i].formatted);
        }

        /* No line says "no one": the client does not send it. */
        InjectWireRequest w = { .pid = 7, .req = { .ksm = 1, .acting_uid = PROCESS_TRUST_UID_NONE } };
        char line[INJECT_WIRE_LINE_MAX];
        g_assert_cmpint(inject_wire_format_request(&w, line, sizeof(line)), ==, -EINVAL);
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/inject-wire/request", test_request);
        g_test_add_func("/inject-wire/request-limits", test_request_limits);
        g_test_add_func("/inject-wire/request-round-trip", test_request_round_trip);
        g_test_add_func("/inject-wire/request-for-uid", test_request_for_uid);
        g_test_add_func("/inject-wire/reply", test_reply);
        return g_test_run();
}
