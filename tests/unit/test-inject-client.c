/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The reply line of the injector helper, as policyd reads it. */

#include <errno.h>
#include <glib.h>

#include "inject-client.h"
#include "util.h"

static void test_parse(void) {
        InjectReply r;

        g_assert_cmpint(inject_reply_parse("pid=12 outcome=applied threads=3 verified_ksm=yes "
                                           "verified_mempolicy=interleave:0-1 stuck=0",
                                           &r),
                        ==, 0);
        g_assert_cmpstr(r.outcome, ==, "applied");
        g_assert_cmpuint(r.threads, ==, 3);
        g_assert_cmpstr(r.ksm, ==, "yes");
        g_assert_cmpstr(r.mempolicy, ==, "interleave:0-1");
        g_assert_false(r.stuck);
        g_assert_cmpint(r.not_moved, ==, -1); /* an older helper sends none */
        g_assert_cmpint(r.pid, ==, 12);
        g_assert_cmpint(r.last, ==, -1); /* nor last=: its connection ends */
        inject_reply_clear(&r);

        /* Whether the helper takes another request on the connection. */
        g_assert_cmpint(inject_reply_parse("pid=- outcome=error error=x last=0\n", &r), ==, 0);
        g_assert_cmpint(r.pid, ==, 0);
        g_assert_cmpint(r.last, ==, 0);
        inject_reply_clear(&r);
        g_assert_cmpint(inject_reply_parse("pid=3 outcome=applied last=1\n", &r), ==, 0);
        g_assert_cmpint(r.last, ==, 1);
        inject_reply_clear(&r);

        /* set=: which knobs' system calls ran (ensure=1: what differed). */
        g_assert_false(r.set_ksm || r.set_mempolicy); /* cleared */
        static const struct {
                const char *value;
                bool ksm, mempolicy;
        } sets[] = {
                { "ksm,mempolicy", true, true }, { "ksm", true, false }, { "mempolicy", false, true },
                { "-", false, false }, { "ksm,", false, false }, { "mempolicy,ksm", false, false },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(sets); i++) {
                g_autofree char *line = g_strdup_printf("pid=3 outcome=applied set=%s last=0\n", sets[i].value);
                g_assert_cmpint(inject_reply_parse(line, &r), ==, 0);
                g_assert_cmpint(r.set_ksm, ==, sets[i].ksm);
                g_assert_cmpint(r.set_mempolicy, ==, sets[i].mempolicy);
                inject_reply_clear(&r);
        }

        /* A migration: the pages migrate_pages could not move. */
        g_assert_cmpint(inject_reply_parse("pid=12 outcome=applied stuck=0 not_moved=17\n", &r), ==, 0);
        g_assert_cmpint(r.not_moved, ==, 17);
        inject_reply_clear(&r);
        g_assert_cmpint(inject_reply_parse("pid=12 outcome=failed error=\"migrate_pages: EPERM\" not_moved=-\n", &r),
                        ==, 0);
        g_assert_cmpint(r.not_moved, ==, -1);
        inject_reply_clear(&r);

        g_assert_cmpint(inject_reply_parse("pid=1 outcome=refused reason=\"under a seccomp filter\" stuck=1\n", &r), ==,
                        0);
        g_assert_cmpstr(r.reason, ==, "under a seccomp filter");
        g_assert_true(r.stuck);
        inject_reply_clear(&r);

        g_assert_cmpint(inject_reply_parse("outcome=queried exe=\"/opt/my \\\"app\\\"\\\\x\" future_key=1", &r), ==, 0);
        g_assert_cmpstr(r.exe, ==, "/opt/my \"app\"\\x");
        inject_reply_clear(&r);

        /* The helper escapes control characters in a path. */
        g_assert_cmpint(inject_reply_parse("outcome=queried exe=\"/tmp/a\\tb\\x01\"\n", &r), ==, 0);
        g_assert_cmpstr(r.exe, ==, "/tmp/a\tb\x01");
        inject_reply_clear(&r);

        /* Broken lines are refused whole. */
        static const char *const bad[] = {
                "",                          /* no outcome */
                "pid=1",                     /* no outcome */
                "outcome=applied reason=\"unterminated",
                "outcome=applied =x",
                "outcome=applied word",
                "outcome=applied reason=\"a\"b",
                "outcome=applied reason=\"bad \\q escape\"",
                "outcome=applied  threads=1",  /* two spaces */
        };
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                int k = inject_reply_parse(bad[i], &r);
                if (k >= 0)
                        g_error("'%s' parsed", bad[i]);
        }
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/inject-client/parse", test_parse);
        return g_test_run();
}
