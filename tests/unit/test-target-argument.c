/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The target of Explain, Assign and Unassign: what is a unit name, a unit
 * of a user's manager, a cgroup path or a PID, and what is refused. tests/vm/scenarios/dbus-hostile.py
 * sends the refused ones to a running policyd. */
#include <errno.h>

#include <glib.h>

#include "target-argument.h"

#define REFUSED (-EINVAL)

typedef struct Case {
        const char *arg;
        int kind; /* a TargetArgumentKind, or REFUSED */
} Case;

static const char *kind_name(int kind) {
        switch (kind) {
        case TARGET_ARGUMENT_UNIT:
                return "unit";
        case TARGET_ARGUMENT_CGROUP:
                return "cgroup";
        case TARGET_ARGUMENT_PID:
                return "PID";
        case TARGET_ARGUMENT_USER_UNIT:
                return "user unit";
        default:
                return kind < 0 ? g_strerror(-kind) : "?";
        }
}

static void check(const char *arg, int want) {
        pid_t pid = 42;
        int got = target_argument_classify(arg, &pid);
        g_autofree char *shown = g_strescape(arg, NULL);

        if (got != want)
                g_error("'%.80s' (%zu bytes): want %s, got %s", shown, strlen(arg), kind_name(want), kind_name(got));
        if (got != TARGET_ARGUMENT_PID && pid != 42)
                g_error("'%.80s': *ret_pid was written for a %s", shown, kind_name(got));
}

static void check_table(const Case *cases, size_t n) {
        for (size_t i = 0; i < n; i++)
                check(cases[i].arg, cases[i].kind);
}

static void test_unit_names(void) {
        static const Case cases[] = {
                { "foo.service", TARGET_ARGUMENT_UNIT },
                { "user@1000.service", TARGET_ARGUMENT_UNIT },
                { "app-firefox@a@b.scope", TARGET_ARGUMENT_UNIT }, /* '@' is allowed in the instance */
                { "-.slice", TARGET_ARGUMENT_UNIT },
                { "init.scope", TARGET_ARGUMENT_UNIT },
                { "dbus.socket", TARGET_ARGUMENT_UNIT },
                { "sys-kernel-debug.mount", TARGET_ARGUMENT_UNIT },
                { "dev-sda1.swap", TARGET_ARGUMENT_UNIT },
                { "foo\\x2dbar:baz_1.service", TARGET_ARGUMENT_UNIT },
                /* No cgroup: never a target. */
                { "multi-user.target", REFUSED },
                { "foo.timer", REFUSED },
                { "foo.path", REFUSED },
                { "dev-sda.device", REFUSED },
                { "foo@.service", REFUSED }, /* a template */
                /* Not a name systemd accepts. */
                { "foo", REFUSED },
                { "foo.", REFUSED },
                { ".service", REFUSED },
                { "foo.Service", REFUSED },
                { "foo.service.", REFUSED },
                { "a b.service", REFUSED },
                { "*.service", REFUSED },
                { "foo?.service", REFUSED },
                { "x/../y.service", REFUSED },
                { "../etc/passwd", REFUSED },
                { "..", REFUSED },
                { ".", REFUSED },
                { "\t\n\x1b[31m.service", REFUSED },
                { "caf\xc3\xa9.service", REFUSED }, /* valid UTF-8, but not ASCII */
                { "@foo.service", REFUSED },
        };
        check_table(cases, G_N_ELEMENTS(cases));
}

static void test_cgroup_paths(void) {
        static const Case cases[] = {
                { "/", TARGET_ARGUMENT_CGROUP },
                { "/init.scope", TARGET_ARGUMENT_CGROUP },
                { "/system.slice/foo.service", TARGET_ARGUMENT_CGROUP },
                { "/user.slice/user-1000.slice/user@1000.service/app.slice/app-caf\xc3\xa9.scope",
                  TARGET_ARGUMENT_CGROUP },
                { "/...", TARGET_ARGUMENT_CGROUP },
                { "/.hidden", TARGET_ARGUMENT_CGROUP },
                { "/a..b/c.", TARGET_ARGUMENT_CGROUP },
                { "/a b/*?", TARGET_ARGUMENT_CGROUP }, /* cgroup names may hold these */
                /* Below the root too: a cgroup named "sys", not the mount point. */
                { "/sys/fs/cgroup/system.slice", TARGET_ARGUMENT_CGROUP },
                { "/..", REFUSED },
                { "/../../etc", REFUSED },
                { "/system.slice/../../etc", REFUSED },
                { "/system.slice/..", REFUSED },
                { "/./init.scope", REFUSED },
                { "/init.scope/.", REFUSED },
                { "//", REFUSED },
                { "//init.scope", REFUSED },
                { "/a//b", REFUSED },
                { "/init.scope/", REFUSED },
                { "/\x01", REFUSED },
                { "/a\x7f", REFUSED },
                { "/a\nb", REFUSED },
        };
        check_table(cases, G_N_ELEMENTS(cases));
}

static void test_pids(void) {
        static const struct {
                const char *arg;
                pid_t pid;
        } ok[] = {
                { "1", 1 },
                { "4242", 4242 },
                { "65535", 65535 }, /* the overflow uid, but a PID like any other */
                { "2147483647", 2147483647 },
        };
        static const Case refused[] = {
                { "0", REFUSED },          { "-1", REFUSED },  { "+1", REFUSED },
                { " 1", REFUSED },         { "1 ", REFUSED },  { "0x1", REFUSED },
                { "1.0", REFUSED },        { "1e3", REFUSED }, { "2147483648", REFUSED },
                { "4294967295", REFUSED }, { "99999999999999999999", REFUSED },
                /* Not how /proc names a process: /proc/01 does not exist. */
                { "01", REFUSED },         { "00", REFUSED },  { "0001234", REFUSED },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
                pid_t pid = 0;
                g_assert_cmpint(target_argument_classify(ok[i].arg, &pid), ==, TARGET_ARGUMENT_PID);
                g_assert_cmpint(pid, ==, ok[i].pid);
                check(ok[i].arg, TARGET_ARGUMENT_PID); /* ret_pid may be NULL, too */
                g_assert_cmpint(target_argument_classify(ok[i].arg, NULL), ==, TARGET_ARGUMENT_PID);
        }
        check_table(refused, G_N_ELEMENTS(refused));
}

static void test_user_units(void) {
        static const struct {
                const char *arg;
                uid_t uid;
                const char *unit;
        } ok[] = {
                { "user@1000/app-gnome-firefox-1234.scope", 1000, "app-gnome-firefox-1234.scope" },
                { "user@0/foo.service", 0, "foo.service" },
                { "user@4294967294/app.slice", 4294967294u, "app.slice" },
                { "user@1000/app-firefox@a@b.scope", 1000, "app-firefox@a@b.scope" },
                { "user@1000/user@1000.service", 1000, "user@1000.service" },
                { "user@65534/a.scope", 65534, "a.scope" },
        };
        static const Case refused[] = {
                { "user@1000/", REFUSED },
                { "user@1000/app", REFUSED },
                { "user@1000/app.target", REFUSED }, /* no cgroup */
                { "user@1000/foo@.service", REFUSED }, /* a template */
                { "user@1000/a/b.scope", REFUSED },
                { "user@1000//a.scope", REFUSED },
                { "user@1000/../x.scope", REFUSED },
                { "user@/a.scope", REFUSED },
                { "user@01000/a.scope", REFUSED }, /* no leading zero */
                { "user@00/a.scope", REFUSED },
                { "user@-1/a.scope", REFUSED },
                { "user@+1000/a.scope", REFUSED },
                { "user@ 1000/a.scope", REFUSED },
                { "user@1000 /a.scope", REFUSED },
                { "user@0x10/a.scope", REFUSED },
                { "user@4294967295/a.scope", REFUSED }, /* (uid_t) -1 is no uid */
                { "user@4294967296/a.scope", REFUSED },
                { "user@65535/a.scope", REFUSED }, /* the 16-bit (uid_t) -1 */
                { "user@99999999999999999999/a.scope", REFUSED },
                { "user@alice/a.scope", REFUSED },
                { "User@1000/a.scope", REFUSED },
                { "users@1000/a.scope", REFUSED },
                { "1000/a.scope", REFUSED },
                { "user1000/a.scope", REFUSED },
                { "user@1000", REFUSED },
                { "user@1000/a b.scope", REFUSED },
                { "user@1000/caf\xc3\xa9.scope", REFUSED },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
                uid_t uid = 42;
                const char *unit = NULL;
                check(ok[i].arg, TARGET_ARGUMENT_USER_UNIT);
                g_assert_cmpint(target_argument_user_unit(ok[i].arg, &uid, &unit), ==, 0);
                g_assert_cmpuint(uid, ==, ok[i].uid);
                g_assert_cmpstr(unit, ==, ok[i].unit);
                g_assert_true(unit > ok[i].arg && unit < ok[i].arg + strlen(ok[i].arg)); /* points into arg */
        }
        check_table(refused, G_N_ELEMENTS(refused));
        for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
                uid_t uid = 42;
                const char *unit = NULL;
                g_assert_cmpint(target_argument_user_unit(refused[i].arg, &uid, &unit), ==, -EINVAL);
                g_assert_cmpuint(uid, ==, 42); /* untouched */
                g_assert_null(unit);
        }
        /* Other kinds are no user unit. */
        g_assert_cmpint(target_argument_user_unit("foo.service", NULL, NULL), ==, -EINVAL);
        g_assert_cmpint(target_argument_user_unit("/user@1000/a.scope", NULL, NULL), ==, -EINVAL);
        g_assert_cmpint(target_argument_user_unit(NULL, NULL, NULL), ==, -EINVAL);
        /* A cgroup path with the same text after its "/" stays a cgroup path. */
        check("/user@1000/a.scope", TARGET_ARGUMENT_CGROUP);
}

static void test_empty_and_null(void) {
        check("", REFUSED);
        g_assert_cmpint(target_argument_classify(NULL, NULL), ==, REFUSED);
}

/* D-Bus refuses invalid UTF-8 before policyd sees it; callers of the
 * function itself get the same answer. */
static void test_invalid_utf8(void) {
        static const Case cases[] = {
                { "\xff\xfe.service", REFUSED },
                { "/\xc0\xae\xc0\xae/etc", REFUSED }, /* an overlong "..", read as UTF-8 by some */
                { "/system.slice/\xff", REFUSED },
                { "/\xed\xa0\x80", REFUSED }, /* a UTF-16 surrogate */
                { "1\xff", REFUSED },
        };
        check_table(cases, G_N_ELEMENTS(cases));
}

static char *repeat(const char *s, size_t n, const char *suffix) {
        GString *out = g_string_new(NULL);
        for (size_t i = 0; i < n; i++)
                g_string_append(out, s);
        g_string_append(out, suffix);
        return g_string_free(out, FALSE);
}

static void test_lengths(void) {
        const size_t mib = 1 << 20;
        /* systemd: a unit name is at most 255 bytes; a cgroup component is a
         * file name (NAME_MAX); a path stays below PATH_MAX. */
        g_autofree char *unit_255 = repeat("a", 255 - strlen(".service"), ".service");
        g_autofree char *unit_256 = repeat("a", 256 - strlen(".service"), ".service");
        g_autofree char *component_255 = repeat("a", 255, "");
        g_autofree char *component_256 = repeat("a", 256, "");
        g_autofree char *path_4095 = repeat("/abcdefghijklmnop", 240, "/abcdefghijklmn");
        g_autofree char *path_4096 = repeat("/abcdefghijklmnop", 240, "/abcdefghijklmno");
        g_autofree char *path_deep = repeat("/a", 3000, "");
        g_autofree char *unit_mib = repeat("a", mib, ".service");
        g_autofree char *plain_mib = repeat("a", mib, "");
        g_autofree char *path_mib = repeat("/", 1, plain_mib);
        g_autofree char *digits_mib = repeat("1", mib, "");

        g_assert_cmpuint(strlen(path_4095), ==, 4095);
        g_assert_cmpuint(strlen(path_4096), ==, 4096);
        g_autofree char *component_path_255 = g_strconcat("/", component_255, NULL);
        g_autofree char *component_path_256 = g_strconcat("/", component_256, NULL);

        check(unit_255, TARGET_ARGUMENT_UNIT);
        check(unit_256, REFUSED);
        g_autofree char *user_unit_255 = g_strconcat("user@4294967294/", unit_255, NULL);
        g_autofree char *user_unit_256 = g_strconcat("user@1/", unit_256, NULL);
        check(user_unit_255, TARGET_ARGUMENT_USER_UNIT);
        check(user_unit_256, REFUSED);
        check(component_path_255, TARGET_ARGUMENT_CGROUP);
        check(component_path_256, REFUSED);
        check(path_4095, TARGET_ARGUMENT_CGROUP);
        check(path_4096, REFUSED);
        check(path_deep, REFUSED);
        check(unit_mib, REFUSED);
        check(plain_mib, REFUSED);
        check(path_mib, REFUSED);
        check(digits_mib, REFUSED);
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/target-argument/unit-names", test_unit_names);
        g_test_add_func("/target-argument/cgroup-paths", test_cgroup_paths);
        g_test_add_func("/target-argument/pids", test_pids);
        g_test_add_func("/target-argument/user-units", test_user_units);
        g_test_add_func("/target-argument/empty-and-null", test_empty_and_null);
        g_test_add_func("/target-argument/invalid-utf8", test_invalid_utf8);
        g_test_add_func("/target-argument/lengths", test_lengths);
        return g_test_run();
}
