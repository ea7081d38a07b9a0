/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Any bytes, as the target of Explain, Assign or Unassign (up to the first
 * NUL, as a D-Bus string ends there). Whatever is accepted must hold what
 * policyd relies on before it reads /proc or joins the path to the cgroupfs
 * root; a broken rule aborts, so libFuzzer and the replay report it. */

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

#include "fuzz.h"
#include "target-argument.h"
#include "unit-lookup.h"
#include "util.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

#define check(cond, arg)                                                                                   \
        do {                                                                                              \
                if (!(cond)) {                                                                            \
                        g_autofree char *_shown = g_strescape(arg, NULL);                                 \
                        fprintf(stderr, "fuzz-target-argument: '%.200s' breaks %s\n", _shown, #cond);     \
                        abort();                                                                          \
                }                                                                                         \
        } while (0)

static bool is_printable_ascii(const char *s) {
        for (; *s; s++)
                if (*s < 0x21 || *s > 0x7e)
                        return false;
        return true;
}

static void check_cgroup(const char *arg) {
        check(arg[0] == '/' && strlen(arg) < TARGET_ARGUMENT_MAX, arg);
        check(g_utf8_validate(arg, -1, NULL), arg);
        /* Already canonical: no ".", "..", "//" or trailing "/" to resolve. */
        g_autofree char *canonical = g_canonicalize_filename(arg, "/");
        check(streq(canonical, arg), arg);
        /* So joined to the root, it stays below the root. */
        g_autofree char *joined = g_build_filename(CGROUP_ROOT, arg, NULL);
        g_autofree char *resolved = g_canonicalize_filename(joined, "/");
        check(g_str_has_prefix(resolved, CGROUP_ROOT) &&
                      (resolved[strlen(CGROUP_ROOT)] == '\0' || resolved[strlen(CGROUP_ROOT)] == '/'),
              arg);
        if (streq(arg, "/"))
                return;
        g_auto(GStrv) components = g_strsplit(arg + 1, "/", -1);
        for (char **c = components; *c; c++) {
                check(!isempty(*c) && !streq(*c, ".") && !streq(*c, ".."), arg);
                check(strlen(*c) <= 255, arg);
                for (const char *p = *c; *p; p++)
                        check((unsigned char) *p >= 0x20 && *p != 0x7f, arg);
        }
}

static void check_unit(const char *arg) {
        UnitNameKind kind = unit_name_kind(arg);

        check(kind == UNIT_NAME_PLAIN || kind == UNIT_NAME_INSTANCE, arg);
        check(strlen(arg) < 256 && is_printable_ascii(arg), arg);
        check(!strpbrk(arg, "/*?["), arg);
}

/* user@UID/UNIT: the uid as printed, and a unit name that is a target of
 * its own; no other argument parses as one. */
static void check_user_unit(const char *arg) {
        const char *unit = NULL;
        uid_t uid = 0;

        check(target_argument_user_unit(arg, &uid, &unit) == 0 && unit, arg);
        check(uid != (uid_t) -1 && uid != 65535, arg);
        g_autofree char *spelled = g_strdup_printf("user@%" PRIu32 "/%s", (uint32_t) uid, unit);
        check(streq(spelled, arg), arg);
        check(target_argument_classify(unit, NULL) == TARGET_ARGUMENT_UNIT, arg);
        check_unit(unit);
}

static void check_pid(const char *arg, pid_t pid) {
        check(pid > 0, arg);
        g_autofree char *formatted = g_strdup_printf("%d", (int) pid);
        check(streq(formatted, arg), arg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        g_autofree char *arg = g_strndup((const char *) data, size);
        pid_t pid = -1;
        int kind = target_argument_classify(arg, &pid);

        check(kind == -EINVAL || (kind >= 0 && kind < _TARGET_ARGUMENT_KIND_MAX), arg);
        check(kind == TARGET_ARGUMENT_PID || pid == -1, arg); /* untouched unless a PID */
        check(target_argument_classify(arg, NULL) == kind, arg);

        switch (kind) {
        case TARGET_ARGUMENT_CGROUP:
                check_cgroup(arg);
                break;
        case TARGET_ARGUMENT_UNIT:
                check_unit(arg);
                break;
        case TARGET_ARGUMENT_PID:
                check_pid(arg, pid);
                break;
        case TARGET_ARGUMENT_USER_UNIT:
                check_user_unit(arg);
                break;
        default:
                break;
        }
        if (kind != TARGET_ARGUMENT_USER_UNIT)
                check(target_argument_user_unit(arg, NULL, NULL) == -EINVAL, arg);

        /* The other way round: a unit target of any user is a user unit. */
        if (kind == TARGET_ARGUMENT_UNIT && size >= sizeof(uint32_t)) {
                uint32_t u;
                memcpy(&u, data, sizeof(u));
                if (u != UINT32_MAX && u != 65535) {
                        g_autofree char *user_unit = g_strdup_printf("user@%" PRIu32 "/%s", u, arg);
                        check(target_argument_classify(user_unit, NULL) == TARGET_ARGUMENT_USER_UNIT, user_unit);
                }
        }

        /* The other way round: every PID as /proc spells it is one. */
        if (size >= sizeof(int32_t)) {
                int32_t n;
                memcpy(&n, data, sizeof(n));
                if (n > 0) {
                        g_autofree char *spelled = g_strdup_printf("%" G_GINT32_FORMAT, n);
                        pid = -1;
                        check(target_argument_classify(spelled, &pid) == TARGET_ARGUMENT_PID && pid == n, spelled);
                }
        }
        return 0;
}
