/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Running prctl(PR_SET_MEMORY_MERGE) and set_mempolicy inside another
 * process, which no syscall can do from outside (DESIGN §7):
 *
 *   pidfd_open          guards against PID reuse
 *   refusals            from /proc/PID/status and each task's status
 *   PTRACE_SEIZE +      every thread, re-listing /proc/PID/task until no new
 *   PTRACE_INTERRUPT    thread appears: a stopped thread cannot clone; the
 *                       Tgid of each TID checked after its seize;
 *                       PTRACE_O_TRACEEXEC, so an exec stops in the new image
 *   inject              through an existing `syscall` instruction (the vDSO's),
 *                       read once every thread is stopped, never patching
 *                       code; registers saved with PTRACE_GETREGSET and
 *                       restored exactly, and only after the entry and exit
 *                       stops showed our syscall at our instruction
 *   PTRACE_DETACH       every thread, also on every error path
 *
 * After an exec, or a stop that is not our syscall's (the instruction was
 * rewritten by another process that shares or writes the memory), nothing
 * is written back: every thread is detached as it is, and the outcome is
 * refused ("executed a new program", "changed under the injector").
 *
 * The calling thread becomes the tracer. SIGTERM, SIGINT and SIGHUP are
 * blocked in it while threads are held: a pending one ends the job through
 * the path that restores registers, and is delivered on return. A thread
 * with our registers in is waited for until it stops, however long. If a
 * thread with its own registers never reaches a stop (an uninterruptible
 * sleep longer than the timeout), it cannot be detached (the kernel
 * detaches only stopped tracees); the report says `stuck`, and the caller
 * must let the tracing thread exit, which detaches it. That is one reason
 * to run this in a short-lived helper process. SIGKILL of that process
 * while a thread runs our syscall lets the thread go with our registers:
 * the window is one syscall long. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "inject-proc.h"

typedef enum InjectOutcome {
        INJECT_APPLIED,   /* every syscall ran and returned 0 */
        INJECT_FAILED,    /* an injected syscall returned an error, or ptrace failed: see error */
        INJECT_REFUSED,   /* see refusal; the process was not touched, or was released untouched */
        INJECT_VANISHED,  /* the process exited (or its PID was reused) meanwhile: not an error */
        _INJECT_OUTCOME_MAX,
} InjectOutcome;

typedef struct InjectRequest {
        int ksm;                 /* -1: leave alone; 0 or 1: prctl(PR_SET_MEMORY_MERGE, ksm), once */
        bool set_mempolicy;      /* set_mempolicy(policy) in every thread */
        Mempolicy mempolicy;
        uint64_t timeout_usec;   /* for the whole job; 0 means 2 s */
        /* Whose input asks (process-trust.h, inject-creds.h): 0, root's,
         * with no rule on the target's credentials; else the target must
         * be this user's own, checked once every thread is stopped and
         * again before they are let go. */
        uid_t acting_uid;
} InjectRequest;

typedef struct InjectReport {
        InjectOutcome outcome;
        InjectRefusal refusal;
        int error;                 /* negative errno: of ptrace, or of the first failed syscall */
        long ksm_result;           /* the prctl's return (negative errno); 1 when not run */
        unsigned threads;          /* threads stopped */
        unsigned threads_in_syscall;  /* of those, stopped inside an interrupted syscall */
        unsigned mempolicy_applied;   /* threads whose set_mempolicy returned 0 */
        long mempolicy_error;      /* the first failed set_mempolicy's return, or 0 */
        unsigned signals_passed;   /* signal-delivery stops passed on to the target */
        unsigned retries;          /* injections redone after a signal came first */
        unsigned list_rounds;      /* /proc/PID/task listings until stable */
        bool insn_in_place;        /* no vDSO: the `syscall` before a thread's RIP was used */
        bool wrote;                /* a word of the target's memory or registers was written */
        bool stuck;                /* a thread is still attached: let the tracing thread exit */
        bool migrate;              /* of inject_migrate_pages(), which stops nothing */
        long migrate_result;       /* migrate_pages' return: pages it could not move, or -errno */
} InjectReport;

/* Returns 0 and fills *ret whatever the outcome, or a negative errno for a
 * bad request (-EINVAL also for a PID that is a thread, not a process). */
int inject_process(pid_t pid, const InjectRequest *req, InjectReport *ret);
/* The same with a pidfd of pid that the caller opened, and keeps: the PID
 * is then guarded from the moment the caller opened it. */
int inject_process_pidfd(int pidfd, pid_t pid, const InjectRequest *req, InjectReport *ret);

const char *inject_outcome_to_string(InjectOutcome o);

/* migrate_pages(2) of the process's pages from every possible node to nodes
 * (MEMPOLICY_NODEMASK_WORDS words): what cpuset.mems would have done, where a
 * cgroup has no cpuset controller. No ptrace, no stop. The pidfd guards the
 * PID: the outcome is "vanished" unless the process was still there after
 * the call, so that no reused PID had its pages moved unseen. Another
 * user's process needs CAP_SYS_PTRACE (the kernel's ptrace_may_access
 * check), and CAP_SYS_NICE moves the pages it shares too (MPOL_MF_MOVE_ALL);
 * without it those stay, and count in migrate_result. Refused for kernel
 * threads and exiting processes. Returns 0 and fills *ret, or -EINVAL for
 * a bad request or a PID that is a thread. */
int inject_migrate_pages(int pidfd, pid_t pid, const unsigned long *nodes, InjectReport *ret);

/* 1 while the pidfd's process has not exited, 0 once it has (a zombie
 * too), or a negative errno. Unlike a signal 0, it needs no right to
 * signal the process. */
int inject_pidfd_alive(int pidfd);

typedef struct InjectQuery {
        char exe[4096];      /* "" for none (a kernel thread) */
        int ksm;             /* 1 when some mapping has `mg`, 0 none, -1 unreadable */
        char mempolicy[300]; /* the task policy of every thread, or "mixed"; "" unreadable */
} InjectQuery;

/* What the process has now, read from /proc; -ESRCH once it is gone. */
int inject_query(pid_t pid, InjectQuery *ret);

/* A small file (/proc/PID/status, an fdinfo) into buf, cut at size - 1
 * bytes and NUL-terminated; -errno. */
int inject_read_file(const char *path, char *buf, size_t size);

/* Checks, read from /proc: 1 when some mapping has `mg` in its VmFlags. */
int inject_read_ksm(pid_t pid);
/* The task policy in /proc/PID/task/TID/numa_maps (its first mapping's
 * policy column, which is the task's own unless an mbind covers it). */
int inject_read_task_policy(pid_t pid, pid_t tid, char *buf, size_t size);
