/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inject-creds.h"
#include "inject.h"

InjectRefusal inject_refusal_for_trust(ProcessTrustVerdict v) {
        switch (v) {
        case PROCESS_TRUST_ALLOWED:
                return INJECT_REFUSAL_NONE;
        case PROCESS_TRUST_NO_USER:
                return INJECT_REFUSAL_NO_USER;
        case PROCESS_TRUST_OTHER_UID:
                return INJECT_REFUSAL_OTHER_UID;
        case PROCESS_TRUST_SETGID:
                return INJECT_REFUSAL_SETGID;
        case PROCESS_TRUST_CAPABILITIES:
                return INJECT_REFUSAL_CAPABILITIES;
        case PROCESS_TRUST_NOT_DUMPABLE:
        default:
                return INJECT_REFUSAL_NOT_DUMPABLE;
        }
}

/* One thread: its status, and the owner of that file, which is the
 * thread's euid and egid while its process is dumpable, and root (of its
 * user namespace) when it is not (task_dump_owner(); not so for the
 * directory, which always shows the euid). */
static int verify_task(pid_t pid, pid_t tid, uid_t acting_uid, InjectRefusal *ret_refusal) {
        char path[80], text[4096];
        ProcessCreds creds;
        struct stat st;
        ProcessTrustVerdict v;
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int) pid, (int) tid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : -errno;
        if (fstat(fd, &st) < 0 || (n = read(fd, text, sizeof(text) - 1)) < 0) {
                int r = errno == ESRCH ? -ESRCH : -errno;
                close(fd);
                return r;
        }
        close(fd);
        text[n] = '\0';
        if (process_creds_parse_status(text, &creds) < 0)
                return -EBADMSG;
        creds.dumpable = st.st_uid == creds.uid[1] && st.st_gid == creds.gid[1];
        v = process_trust_check(acting_uid, &creds);
        if (v == PROCESS_TRUST_ALLOWED)
                return 0;
        *ret_refusal = inject_refusal_for_trust(v);
        return -EPERM;
}

int inject_creds_verify(pid_t pid, uid_t acting_uid, InjectRefusal *ret_refusal) {
        char path[64];
        struct dirent *de;
        unsigned tasks = 0;
        int r = 0;

        if (acting_uid == 0)
                return 0;  /* root's input: the injector's other rules alone */
        if (acting_uid == PROCESS_TRUST_UID_NONE) {
                *ret_refusal = INJECT_REFUSAL_NO_USER;
                return -EPERM;
        }
        /* Credentials are per thread: each one counts. */
        snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        DIR *d = opendir(path);
        if (!d)
                return errno == ENOENT ? -ESRCH : -errno;
        while (r >= 0 && (de = readdir(d))) {
                char *end;
                long tid = strtol(de->d_name, &end, 10);

                if (de->d_name[0] == '.' || *end != '\0' || tid <= 0)
                        continue;
                r = verify_task(pid, (pid_t) tid, acting_uid, ret_refusal);
                if (r == -ESRCH)
                        r = 0;  /* a thread that exited: nothing left to reach */
                else if (r >= 0)
                        tasks++;
        }
        closedir(d);
        if (r < 0)
                return r;
        return tasks > 0 ? 0 : -ESRCH;
}
