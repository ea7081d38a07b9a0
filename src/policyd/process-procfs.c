/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "link-trust.h"
#include "process-watch-internal.h"
#include "util.h"

/* /proc/PID reads: the start time (PID reuse) and the cgroup. */

/* Field 22, starttime; the comm in field 2 may hold anything but ')'. */
int process_procfs_read_start_time(pid_t pid, uint64_t *ret) {
        char path[64], buf[1024];
        _cleanup_close_ int fd = -1;
        ssize_t n;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : negative_errno();
        n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return errno == ESRCH ? -ESRCH : negative_errno();
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        if (!p)
                return -EBADMSG;
        /* Fields 3 to 21 lie between the ')' and starttime. */
        for (int field = 3; field <= 22; field++) {
                p = strchr(p, ' ');
                if (!p)
                        return -EBADMSG;
                p++;
        }
        *ret = g_ascii_strtoull(p, NULL, 10);
        return 0;
}

/* Its cgroup below the root, from the unified hierarchy's "0::" line. */
int process_procfs_read_cgroup(pid_t pid, char **ret) {
        g_autofree char *text = NULL, *path = g_strdup_printf("/proc/%d/cgroup", (int) pid);

        if (!g_file_get_contents(path, &text, NULL, NULL))
                return -ESRCH;
        for (char *line = text; line && *line;) {
                char *nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                if (g_str_has_prefix(line, "0::")) {
                        *ret = g_strdup(line + 3);
                        return 0;
                }
                line = nl ? nl + 1 : NULL;
        }
        return -ENODATA;
}

/* The start time of PID, listed in cgroup.procs at or below cgroup a moment
 * ago. Its PID may have been reused since, by a process anywhere: so the
 * process must be at or below cgroup now, and still the same once that is
 * read (issue 23). -ESRCH otherwise. */
int process_procfs_read_start_time_in(pid_t pid, const char *cgroup, uint64_t *ret) {
        g_autofree char *now = NULL;
        uint64_t t, again;

        if (process_procfs_read_start_time(pid, &t) < 0 || process_procfs_read_cgroup(pid, &now) < 0)
                return -ESRCH;
        if (!streq(now, cgroup) && !cgroup_path_strictly_below(now, cgroup))
                return -ESRCH; /* moved out since, or another process */
        if (process_procfs_read_start_time(pid, &again) < 0 || again != t)
                return -ESRCH;
        *ret = t;
        return 0;
}
