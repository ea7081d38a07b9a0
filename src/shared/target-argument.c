/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "cgroup-apply.h"
#include "target-argument.h"
#include "unit-lookup.h"
#include "util.h"

/* As the kernel names a process in /proc: decimal digits, no sign, no
 * leading zero (/proc/01 does not exist), and a pid_t. */
static int parse_pid(const char *s, pid_t *ret) {
        int64_t v = 0;

        if (*s < '1' || *s > '9')
                return -EINVAL;
        for (; *s; s++) {
                if (!g_ascii_isdigit(*s))
                        return -EINVAL;
                v = v * 10 + (*s - '0');
                if (v > INT32_MAX)
                        return -ERANGE;
        }
        *ret = (pid_t) v;
        return 0;
}

/* systemd's own rules (length, characters, type): a name it would never
 * accept is never stored. Templates have no cgroup. */
static bool is_unit_with_cgroup(const char *name) {
        UnitNameKind kind = unit_name_kind(name);
        if (kind != UNIT_NAME_PLAIN && kind != UNIT_NAME_INSTANCE)
                return false;
        return unit_type_has_cgroup(name);
}

/* As systemd prints a uid: decimal, no sign, no leading zero. (uid_t) -1
 * and the 16-bit overflow uid 65535 are no users (parse_uid(), and
 * systemd's uid_is_valid()). */
static int parse_manager_uid(const char *s, size_t n, uid_t *ret) {
        uint64_t v = 0;

        if (n == 0 || (s[0] == '0' && n > 1))
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                if (!g_ascii_isdigit(s[i]))
                        return -EINVAL;
                v = v * 10 + (uint64_t) (s[i] - '0');
                if (v >= UINT32_MAX)
                        return -ERANGE;
        }
        if (v == 65535)
                return -ERANGE;
        *ret = (uid_t) v;
        return 0;
}

int target_argument_user_unit(const char *arg, uid_t *ret_uid, const char **ret_unit) {
        const char *slash;
        uid_t uid;

        if (!arg || !g_str_has_prefix(arg, "user@"))
                return -EINVAL;
        slash = strchr(arg, '/');
        if (!slash || parse_manager_uid(arg + strlen("user@"), (size_t) (slash - arg) - strlen("user@"), &uid) < 0 ||
            !is_unit_with_cgroup(slash + 1))
                return -EINVAL;
        if (ret_uid)
                *ret_uid = uid;
        if (ret_unit)
                *ret_unit = slash + 1;
        return 0;
}

int target_argument_classify(const char *arg, pid_t *ret_pid) {
        pid_t pid;

        if (isempty(arg) || strnlen(arg, TARGET_ARGUMENT_MAX) >= TARGET_ARGUMENT_MAX)
                return -EINVAL;
        /* The bus checked this already; other callers may not have. */
        if (!g_utf8_validate(arg, -1, NULL))
                return -EINVAL;

        if (parse_pid(arg, &pid) >= 0) {
                if (ret_pid)
                        *ret_pid = pid;
                return TARGET_ARGUMENT_PID;
        }

        if (arg[0] == '/')
                return cgroup_path_validate(arg) < 0 ? -EINVAL : TARGET_ARGUMENT_CGROUP;

        if (strchr(arg, '/'))
                return target_argument_user_unit(arg, NULL, NULL) < 0 ? -EINVAL : TARGET_ARGUMENT_USER_UNIT;
        return is_unit_with_cgroup(arg) ? TARGET_ARGUMENT_UNIT : -EINVAL;
}
