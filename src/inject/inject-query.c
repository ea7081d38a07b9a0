/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a process has now, for policyd's decisions: reading another user's
 * /proc/PID/exe, smaps and numa_maps takes CAP_SYS_PTRACE (PTRACE_MODE_READ),
 * which only the helper holds. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject.h"

int inject_query(pid_t pid, InjectQuery *ret) {
        InjectQuery q = { .ksm = -1 };
        char path[64];
        ssize_t n;
        int r;

        if (pid <= 0 || !ret)
                return -EINVAL;

        snprintf(path, sizeof(path), "/proc/%d/exe", (int) pid);
        n = readlink(path, q.exe, sizeof(q.exe) - 1);
        if (n < 0 && errno == ENOENT)
                return -ESRCH;
        q.exe[n < 0 ? 0 : n] = '\0'; /* kernel threads have none */

        r = inject_read_ksm(pid);
        if (r == -ESRCH)
                return r;
        q.ksm = r < 0 ? -1 : r;

        /* The task policy of every thread: one value, or "mixed". */
        snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        DIR *d = opendir(path);
        if (!d)
                return errno == ENOENT ? -ESRCH : -errno;
        struct dirent *de;
        while ((de = readdir(d))) {
                char policy[sizeof(q.mempolicy)];
                int tid = atoi(de->d_name);
                if (tid <= 0)
                        continue;
                if (inject_read_task_policy(pid, tid, policy, sizeof(policy)) < 0)
                        continue; /* exited meanwhile */
                if (q.mempolicy[0] == '\0')
                        snprintf(q.mempolicy, sizeof(q.mempolicy), "%s", policy);
                else if (strcmp(q.mempolicy, policy) != 0) {
                        snprintf(q.mempolicy, sizeof(q.mempolicy), "mixed");
                        break;
                }
        }
        closedir(d);
        *ret = q;
        return 0;
}
