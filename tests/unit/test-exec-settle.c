/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Exec'd processes wait to be looked at (exec-settle.c): each is due once
 * it has lasted the delay, a process that exec's again keeps its turn, and
 * what is taken is gone. Times are in seconds here, the delay 10. */

#include <glib.h>

#include "exec-settle.h"

#define DELAY 10

/* The pids due at now, as "1 2 3", taken. */
static char *take(ExecSettle *s, uint64_t now) {
        g_autoptr(GArray) pids = exec_settle_take_due(s, now);
        GString *out = g_string_new(NULL);
        for (guint i = 0; i < pids->len; i++)
                g_string_append_printf(out, "%s%d", i ? " " : "", (int) g_array_index(pids, pid_t, i));
        return g_string_free(out, FALSE);
}

static void check_take(ExecSettle *s, uint64_t now, const char *expected) {
        g_autofree char *got = take(s, now);
        if (!g_str_equal(got, expected))
                g_error("due at %" G_GUINT64_FORMAT ": expected \"%s\", got \"%s\"", now, expected, got);
}

static void test_due_after_the_delay(void) {
        g_autoptr(ExecSettle) s = exec_settle_new(DELAY);

        g_assert_cmpuint(exec_settle_next(s), ==, UINT64_MAX);
        exec_settle_add(s, 7, 100);
        g_assert_cmpuint(exec_settle_next(s), ==, 100 + DELAY);
        check_take(s, 100 + DELAY - 1, "");
        check_take(s, 100 + DELAY, "7");
        g_assert_cmpuint(exec_settle_size(s), ==, 0);
        g_assert_cmpuint(exec_settle_next(s), ==, UINT64_MAX);
}

static void test_exec_again_keeps_its_turn(void) {
        g_autoptr(ExecSettle) s = exec_settle_new(DELAY);

        exec_settle_add(s, 7, 100);
        exec_settle_add(s, 7, 105);
        exec_settle_add(s, 7, 109);
        g_assert_cmpuint(exec_settle_size(s), ==, 1);
        check_take(s, 100 + DELAY, "7");
        /* Taken: a later exec waits anew. */
        exec_settle_add(s, 7, 111);
        check_take(s, 111 + DELAY - 1, "");
        check_take(s, 111 + DELAY, "7");
}

static void test_order_and_rest(void) {
        g_autoptr(ExecSettle) s = exec_settle_new(DELAY);

        exec_settle_add(s, 30, 102);
        exec_settle_add(s, 10, 101);
        exec_settle_add(s, 20, 101);
        exec_settle_add(s, 40, 108);
        g_assert_cmpuint(exec_settle_next(s), ==, 101 + DELAY);
        check_take(s, 102 + DELAY, "10 20 30");
        g_assert_cmpuint(exec_settle_next(s), ==, 108 + DELAY);
        exec_settle_clear(s);
        g_assert_cmpuint(exec_settle_size(s), ==, 0);
        check_take(s, UINT64_MAX, "");
}

int main(int argc, char *argv[]) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/exec-settle/due-after-the-delay", test_due_after_the_delay);
        g_test_add_func("/exec-settle/exec-again-keeps-its-turn", test_exec_again_keeps_its_turn);
        g_test_add_func("/exec-settle/order-and-rest", test_order_and_rest);
        return g_test_run();
}
