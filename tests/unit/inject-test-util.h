/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the injector tests share: the preflight that decides on a skip (exit
 * 77, with the reason), and reading a target's state. */

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject.h"

#define EXIT_SKIP 77

/* ASan's shadow is terabytes of sparse anonymous mapping. PR_SET_MEMORY_MERGE
 * marks it mergeable, and turning KSM off again then walks all of it, for
 * longer than any time box: test-inject-refusals checks that cut. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

__attribute__((format(printf, 1, 2)))
static inline void skip(const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        printf("SKIP: ");
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
        exit(EXIT_SKIP);
}

/* Whether this machine lets us ptrace a child and open pidfds. */
static inline void preflight_ptrace(void) {
#if !defined(__x86_64__)
        skip("the injector supports x86_64 only");
#endif
        int fd = (int) syscall(SYS_pidfd_open, getpid(), 0);
        if (fd < 0)
                skip("pidfd_open: %s", strerror(errno));
        close(fd);

        pid_t child = fork();
        if (child < 0)
                skip("fork: %s", strerror(errno));
        if (child == 0) {
                pause();
                _exit(0);
        }
        int r = ptrace(PTRACE_SEIZE, child, 0, 0) < 0 ? errno : 0;
        kill(child, SIGKILL);
        waitpid(child, NULL, __WALL);
        if (r != 0)
                skip("PTRACE_SEIZE of a child: %s (CAP_SYS_PTRACE or Yama ptrace_scope)", strerror(r));
}

/* Runs fn in a throwaway child: its result, or -errno. */
static inline int in_child(int (*fn)(void)) {
        pid_t child = fork();
        int status;

        if (child == 0)
                _exit(fn() < 0 ? 1 : 0);
        if (child < 0 || waitpid(child, &status, 0) < 0)
                return -errno;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static inline int try_ksm(void) {
        return prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0);
}

static inline int try_mempolicy(void) {
        unsigned long mask = 1;
        return (int) syscall(SYS_set_mempolicy, MPOL_PREFERRED, &mask, 65UL);
}

static inline int read_target_status(pid_t pid, ProcStatus *ret) {
        char path[64], buf[4096];
        int r;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        r = inject_read_file(path, buf, sizeof(buf));
        return r < 0 ? r : proc_status_parse(buf, ret);
}
