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

        /* systemd's own rules (length, characters, type): a name it would
         * never accept is never stored. Templates have no cgroup. */
        UnitNameKind kind = unit_name_kind(arg);
        if (kind != UNIT_NAME_PLAIN && kind != UNIT_NAME_INSTANCE)
                return -EINVAL;
        return unit_type_has_cgroup(arg) ? TARGET_ARGUMENT_UNIT : -EINVAL;
}
