/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject-proc.h"

static int parse_pid_field(const char *v, pid_t *ret) {
        char *end;
        long n;

        errno = 0;
        n = strtol(v, &end, 10);
        if (errno != 0 || end == v || n < 0 || n > INT32_MAX)
                return -EINVAL;
        while (*end == ' ' || *end == '\t')
                end++;
        if (*end != '\n' && *end != '\0')
                return -EINVAL;
        *ret = (pid_t) n;
        return 0;
}

int proc_status_parse(const char *text, ProcStatus *ret) {
        ProcStatus st = { .state = 0, .tgid = -1, .pid = -1, .ppid = -1, .tracer_pid = -1,
                          .seccomp = -1, .kthread = -1 };

        for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
                const char *colon = strchr(line, ':');
                const char *nl = strchr(line, '\n');
                const char *v;
                size_t klen;
                pid_t n;
                int r = 0;

                if (!colon || (nl && colon > nl))
                        continue;
                klen = (size_t) (colon - line);
                v = colon + 1;
                while (*v == ' ' || *v == '\t')
                        v++;

#define KEY(k) (klen == strlen(k) && strncmp(line, k, klen) == 0)
                if (KEY("State")) {
                        if (!isalpha((unsigned char) *v))
                                return -EINVAL;
                        st.state = *v;
                } else if (KEY("Tgid"))
                        r = parse_pid_field(v, &st.tgid);
                else if (KEY("Pid"))
                        r = parse_pid_field(v, &st.pid);
                else if (KEY("PPid"))
                        r = parse_pid_field(v, &st.ppid);
                else if (KEY("TracerPid"))
                        r = parse_pid_field(v, &st.tracer_pid);
                else if (KEY("Seccomp")) {
                        r = parse_pid_field(v, &n);
                        st.seccomp = n;
                } else if (KEY("Kthread")) {
                        r = parse_pid_field(v, &n);
                        st.kthread = n;
                }
#undef KEY
                if (r < 0)
                        return r;
        }

        if (st.state == 0 || st.pid < 0 || st.tgid < 0)
                return -EINVAL;
        *ret = st;
        return 0;
}

int proc_maps_parse_line(const char *line, MapsEntry *ret) {
        uint64_t start, end;
        char perms[5];
        int n = 0;

        /* start-end perms offset dev inode path */
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %*x %*x:%*x %*u%n", &start, &end, perms, &n) != 3 || n == 0)
                return -EINVAL;
        if (strlen(perms) != 4 || end < start)
                return -EINVAL;

        const char *path = line + n;
        while (*path == ' ' || *path == '\t')
                path++;

        *ret = (MapsEntry) { .start = start, .end = end, .path = path };
        memcpy(ret->perms, perms, sizeof(perms));
        return 0;
}

int numa_maps_policy(const char *line, char *buf, size_t size) {
        const char *p = line, *q;
        size_t len;

        /* "ADDRESS POLICY [key=value...]"; "prefer (many):0-1" has a space. */
        while (isxdigit((unsigned char) *p))
                p++;
        if (p == line || *p != ' ')
                return -EINVAL;
        p++;
        if (strncmp(p, "prefer (many)", 13) == 0)
                q = p + 13 + strcspn(p + 13, " \n");
        else if (strncmp(p, "weighted interleave", 19) == 0)
                q = p + 19 + strcspn(p + 19, " \n");
        else
                q = p + strcspn(p, " \n");
        len = (size_t) (q - p);
        if (len == 0)
                return -EINVAL;
        if (len >= size)
                return -ENOBUFS;
        memcpy(buf, p, len);
        buf[len] = '\0';
        return 0;
}

int smaps_vmflags_has(const char *line, const char *flag) {
        size_t flen = strlen(flag);

        if (strncmp(line, "VmFlags:", 8) != 0)
                return -EINVAL;
        for (const char *p = line + 8; *p && *p != '\n';) {
                size_t n;

                p += strspn(p, " \t");
                n = strcspn(p, " \t\n");
                if (n == flen && strncmp(p, flag, n) == 0)
                        return 1;
                p += n;
        }
        return 0;
}

InjectRefusal inject_refusal_for_status(const ProcStatus *st, pid_t self, bool is_leader) {
        if (is_leader) {
                /* Kthread: appeared in 6.x; before it, every kernel thread is
                 * kthreadd (2) or one of its children. */
                if (st->kthread > 0 || (st->kthread < 0 && (st->pid == 2 || st->ppid == 2)))
                        return INJECT_REFUSAL_KERNEL_THREAD;
                if (st->tgid == 1)
                        return INJECT_REFUSAL_INIT;
                if (st->tgid == self)
                        return INJECT_REFUSAL_SELF;
        }
        if (strchr("ZXx", st->state))
                return INJECT_REFUSAL_EXITING;
        if (st->tracer_pid != 0)
                return INJECT_REFUSAL_TRACED;
        /* T: stopped by a signal; t: in a ptrace stop. */
        if (strchr("Tt", st->state))
                return INJECT_REFUSAL_STOPPED;
        /* A filter may kill the task on a syscall it forbids; strict mode (1)
         * forbids prctl and set_mempolicy outright. No Seccomp: line means
         * no CONFIG_SECCOMP, hence no filter. */
        if (st->seccomp > 0)
                return INJECT_REFUSAL_SECCOMP;
        return INJECT_REFUSAL_NONE;
}

const char *inject_refusal_to_string(InjectRefusal r) {
        static const char *const table[_INJECT_REFUSAL_MAX] = {
                [INJECT_REFUSAL_NONE] = "none",
                [INJECT_REFUSAL_KERNEL_THREAD] = "kernel thread",
                [INJECT_REFUSAL_INIT] = "PID 1",
                [INJECT_REFUSAL_SELF] = "our own process",
                [INJECT_REFUSAL_EXITING] = "exiting",
                [INJECT_REFUSAL_TRACED] = "already traced",
                [INJECT_REFUSAL_STOPPED] = "stopped",
                [INJECT_REFUSAL_SECCOMP] = "under a seccomp filter",
                [INJECT_REFUSAL_PTRACE_FORBIDDEN] = "ptrace not permitted",
                [INJECT_REFUSAL_UNSUPPORTED_ARCH] = "unsupported architecture",
                [INJECT_REFUSAL_EXECUTED] = "executed a new program",
                [INJECT_REFUSAL_CHANGED] = "changed under the injector",
                [INJECT_REFUSAL_NO_USER] = "no user to act for",
                [INJECT_REFUSAL_OTHER_UID] = "not the user's own: another uid (another user's, or setuid)",
                [INJECT_REFUSAL_SETGID] = "not the user's own: its gids differ (setgid)",
                [INJECT_REFUSAL_CAPABILITIES] = "not the user's own: it holds capabilities",
                [INJECT_REFUSAL_NOT_DUMPABLE] = "not the user's own: not dumpable",
        };
        if ((unsigned) r >= _INJECT_REFUSAL_MAX)
                return "?";
        return table[r];
}

bool syscall_return_is_restart(long rax) {
        /* include/linux/errno.h: ERESTARTSYS 512, ERESTARTNOINTR 513,
         * ERESTARTNOHAND 514, ERESTART_RESTARTBLOCK 516. */
        return rax == -512 || rax == -513 || rax == -514 || rax == -516;
}

int fdinfo_pidfd_pid(const char *text, pid_t *ret) {
        for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
                const char *v;
                char *end;
                long n;

                if (strncmp(line, "Pid:", 4) != 0)
                        continue;
                v = line + 4 + strspn(line + 4, " \t");
                if (*v != '-' && !isdigit((unsigned char) *v))
                        return -EINVAL;
                errno = 0;
                n = strtol(v, &end, 10);
                if (errno != 0 || end == v || n < -1 || n > INT32_MAX || (*end != '\n' && *end != '\0'))
                        return -EINVAL;
                *ret = (pid_t) n;
                return 0;
        }
        return -ENOENT;
}

int inject_parse_sysfs_nodes(const char *text, unsigned long *mask) {
        char list[INJECT_POLICY_TEXT_MAX];
        size_t n = strcspn(text, "\n");

        if (n == 0 || n >= sizeof(list) || text[n + (text[n] == '\n')] != '\0')
                return -EINVAL;
        memcpy(list, text, n);
        list[n] = '\0';
        return mempolicy_parse_nodes(list, mask);
}
