/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* INJECT_NO_ARCH builds the "unsupported architecture" path on x86_64 too,
 * so that it is compiled and tested where we build. */
#if defined(__x86_64__) && !defined(INJECT_NO_ARCH)
#define INJECT_X86_64 1
#include <elf.h>
#include <sys/user.h>
#endif

#include "inject-creds.h"
#include "inject.h"

#define DEFAULT_TIMEOUT_USEC (2 * 1000 * 1000ULL)
#define MAX_LIST_ROUNDS 64
#define MAX_RETRIES 32
/* How long a thread inside our syscall gets to stop once interrupted. */
#define SETTLE_USEC (10 * 1000 * 1000ULL)

const char *inject_outcome_to_string(InjectOutcome o) {
        static const char *const table[_INJECT_OUTCOME_MAX] = {
                [INJECT_APPLIED] = "applied",
                [INJECT_FAILED] = "failed",
                [INJECT_REFUSED] = "refused",
                [INJECT_VANISHED] = "vanished",
        };
        return (unsigned) o < _INJECT_OUTCOME_MAX ? table[o] : "?";
}

int inject_read_ksm(pid_t pid) {
        char path[64];
        char *line = NULL;
        size_t n = 0;
        int found = 0;

        snprintf(path, sizeof(path), "/proc/%d/smaps", (int) pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        while (getline(&line, &n, f) > 0)
                if (smaps_vmflags_has(line, "mg") > 0) {
                        found = 1;
                        break;
                }
        free(line);
        fclose(f);
        return found;
}

int inject_read_task_policy(pid_t pid, pid_t tid, char *buf, size_t size) {
        char path[80];
        char *line = NULL;
        size_t n = 0;
        int r = -ENODATA;

        snprintf(path, sizeof(path), "/proc/%d/task/%d/numa_maps", (int) pid, (int) tid);
        FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        if (getline(&line, &n, f) > 0)
                r = numa_maps_policy(line, buf, size);
        free(line);
        fclose(f);
        return r;
}

int inject_read_file(const char *path, char *buf, size_t size) {
        FILE *f = fopen(path, "re");
        size_t n;

        if (!f)
                return -errno;
        n = fread(buf, 1, size - 1, f);
        fclose(f);
        buf[n] = '\0';
        return 0;
}

static void report_init(InjectReport *rep) {
        *rep = (InjectReport) { .outcome = INJECT_APPLIED, .ksm_result = 1 };
}

#ifndef INJECT_X86_64

int inject_process_pidfd(int pidfd, pid_t pid, const InjectRequest *req, InjectReport *ret) {
        if (pidfd < 0 || pid <= 0 || !req || !ret)
                return -EINVAL;
        report_init(ret);
        ret->outcome = INJECT_REFUSED;
        ret->refusal = INJECT_REFUSAL_UNSUPPORTED_ARCH;
        return 0;
}

int inject_process(pid_t pid, const InjectRequest *req, InjectReport *ret) {
        /* No pidfd: nothing will be done with it. */
        return inject_process_pidfd(0, pid, req, ret);
}

#else

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000;
}

/* Reads a small /proc file whole. */
static int read_text(const char *path, char **ret) {
        FILE *f = fopen(path, "re");
        char *buf = NULL;
        size_t size = 0;

        if (!f)
                return -errno;
        FILE *m = open_memstream(&buf, &size);
        if (!m) {
                fclose(f);
                return -ENOMEM;
        }
        char chunk[4096];
        size_t n;
        int r = 0;
        while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
                fwrite(chunk, 1, n, m);
        if (ferror(f))
                r = errno > 0 ? -errno : -EIO;
        fclose(f);
        fclose(m);
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        return 0;
}

static int read_status(pid_t pid, pid_t tid, ProcStatus *ret) {
        char path[64];
        char *text = NULL;
        int r;

        if (tid > 0)
                snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int) pid, (int) tid);
        else
                snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        r = read_text(path, &text);
        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        r = proc_status_parse(text, ret);
        free(text);
        return r;
}

static int yama_forbids(void) {
        char *text = NULL;
        int r = read_text("/proc/sys/kernel/yama/ptrace_scope", &text);
        bool forbids;

        if (r < 0)
                return 0;  /* no Yama */
        forbids = atoi(text) >= 3;
        free(text);
        return forbids;
}

typedef struct Tracee {
        pid_t tid;
        bool stopped;        /* in a ptrace stop we caused, so PTRACE_DETACH works */
        bool gone;           /* exited; its exit status was reaped */
        bool released;       /* detached */
        bool foreign;        /* its TID was reused outside the process: stopped only to be let go */
        bool modified;       /* registers (and scratch) are not the thread's own */
        int entered;         /* syscall stops seen since our registers went in: 0, 1 (inside), 2 */
        long nr;             /* the syscall those registers run */
        struct user_regs_struct saved;
        uint64_t scratch_addr;           /* words of the stack lent to a syscall argument */
        size_t n_scratch;
        uint64_t scratch_old[INJECT_NODEMASK_WORDS];
} Tracee;

typedef struct Job {
        pid_t pid;
        int pidfd;
        uint64_t deadline;
        Tracee *tracees;
        size_t n_tracees;
        uint64_t syscall_insn;   /* address of a 0f 05 in the target */
        InjectReport *report;
        InjectRefusal abort_refusal;  /* set when the target changed under us */
        bool all_stopped;    /* every thread was stopped: from now on none leaves but by exec or death */
        /* An exec, code that is not our syscall, or a thread gone: whatever
         * runs there now is not the image we stopped. Nothing is written
         * any more, registers or memory; every thread is only detached. */
        bool tainted;
        unsigned settling;   /* inside settle() or release_all(): a stop request does not cut waits */
        bool stop_requested; /* SIGTERM, SIGINT or SIGHUP came: wind up, restoring everything */
} Job;

#ifdef INJECT_TEST_HOOKS
/* test-inject-race, built with this: what the target or another process
 * may do at these points ("seized": a thread is seized, not yet
 * interrupted; "before-run": the instruction was checked, our registers
 * are about to go in), made to happen there. */
void inject_test_hook(const char *point, pid_t pid, pid_t tid, uint64_t insn);
#define TEST_HOOK(point, j, tid) inject_test_hook(point, (j)->pid, tid, (j)->syscall_insn)
#else
#define TEST_HOOK(point, j, tid) do {} while (0)
#endif

static bool is_stop_signal(int sig) {
        return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* The signals that stop the helper (systemd's stop, RuntimeMaxSec=, a ^C)
 * are blocked while threads are held, and looked for here: a thread must
 * not be let go, by the kernel at our death, with our registers in. */
static bool stop_requested(Job *j) {
        sigset_t pending;

        if (!j->stop_requested && sigpending(&pending) == 0)
                j->stop_requested = sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1 ||
                                    sigismember(&pending, SIGHUP) == 1;
        return j->stop_requested;
}

/* waitpid() for one thread, time-boxed, and cut short by a stop request
 * except while settling. 0 and *ret_status, -ETIME, or -ECHILD. */
static int wait_tid(Job *j, pid_t tid, uint64_t deadline, int *ret_status) {
        useconds_t delay = 20;

        for (;;) {
                int status;
                pid_t r = waitpid(tid, &status, __WALL | WNOHANG);

                if (r == tid) {
                        *ret_status = status;
                        return 0;
                }
                if (r < 0 && errno != EINTR)
                        return -errno;
                if (now_usec() >= deadline || (j->settling == 0 && stop_requested(j)))
                        return -ETIME;
                usleep(delay);
                if (delay < 2000)
                        delay *= 2;
        }
}

enum {
        STOP_INTERRUPT,   /* PTRACE_EVENT_STOP after our PTRACE_INTERRUPT */
        STOP_GROUP,       /* a group stop: someone stopped the process meanwhile */
        STOP_SYSCALL,     /* a syscall-enter or -exit stop (PTRACE_O_TRACESYSGOOD) */
        STOP_SIGNAL,      /* a signal-delivery stop, signal in *ret_sig */
        STOP_GONE,        /* the thread exited */
};

static int wait_event(Job *j, Tracee *t, int *ret_sig) {
        int status, r;

        r = wait_tid(j, t->tid, j->deadline, &status);
        if (r == -ECHILD || (r >= 0 && (WIFEXITED(status) || WIFSIGNALED(status)))) {
                t->gone = true;
                t->stopped = false;
                /* Once all are stopped, a thread leaves only with the whole
                 * group: killed, or replaced by an exec in another thread
                 * (whose old TID then just vanishes). */
                if (j->all_stopped)
                        j->tainted = true;
                return STOP_GONE;
        }
        if (r < 0)
                return r;
        if (!WIFSTOPPED(status))
                return -EIO;

        int sig = WSTOPSIG(status);
        int event = status >> 16;
        t->stopped = true;
        *ret_sig = sig;
        if (event == PTRACE_EVENT_STOP)
                return is_stop_signal(sig) ? STOP_GROUP : STOP_INTERRUPT;
        if (event == 0 && sig == (SIGTRAP | 0x80))
                return STOP_SYSCALL;
        if (event == 0)
                return STOP_SIGNAL;
        if (event == PTRACE_EVENT_EXEC) {
                /* A new image (a setuid one, maybe): nothing we saved is its
                 * own, so nothing is written back. */
                j->tainted = true;
                j->abort_refusal = INJECT_REFUSAL_EXECUTED;
                return -ECANCELED;
        }
        return -EIO;  /* no other event is enabled */
}

/* Waits for the stop that our PTRACE_INTERRUPT asked for. A signal that
 * comes first is passed on at once, unchanged: the interrupt stays pending,
 * so the thread stops right after the kernel has delivered it. */
static int wait_interrupt_stop(Job *j, Tracee *t) {
        for (;;) {
                int sig = 0;
                int r = wait_event(j, t, &sig);

                if (r < 0 || r == STOP_GONE)
                        return r < 0 ? r : -ESRCH;
                if (r == STOP_INTERRUPT)
                        return 0;
                if (r == STOP_GROUP) {
                        j->abort_refusal = INJECT_REFUSAL_STOPPED;
                        return -EAGAIN;
                }
                if (r == STOP_SIGNAL) {
                        t->stopped = false;
                        if (ptrace(PTRACE_CONT, t->tid, 0, (void *) (long) sig) < 0)
                                return -errno;
                        j->report->signals_passed++;
                        continue;
                }
                /* A stray syscall stop: keep going until the interrupt. Never
                 * with our registers in: that is settle()'s job. */
                if (t->modified)
                        return -EIO;
                t->stopped = false;
                if (ptrace(PTRACE_CONT, t->tid, 0, 0) < 0)
                        return -errno;
        }
}

static int get_regs(pid_t tid, struct user_regs_struct *regs) {
        struct iovec iov = { .iov_base = regs, .iov_len = sizeof(*regs) };
        if (ptrace(PTRACE_GETREGSET, tid, (void *) NT_PRSTATUS, &iov) < 0)
                return -errno;
        /* A 32-bit task (CS 0x23) gets the 32-bit view, which is shorter. */
        return iov.iov_len == sizeof(*regs) ? 0 : -ENOEXEC;
}

static int set_regs(pid_t tid, const struct user_regs_struct *regs) {
        struct iovec iov = { .iov_base = (void *) regs, .iov_len = sizeof(*regs) };
        if (ptrace(PTRACE_SETREGSET, tid, (void *) NT_PRSTATUS, &iov) < 0)
                return -errno;
        return 0;
}

static int write_words(pid_t tid, uint64_t addr, const uint64_t *words, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (ptrace(PTRACE_POKEDATA, tid, (void *) (addr + 8 * i), (void *) words[i]) < 0)
                        return -errno;
        return 0;
}

/* The thread's own registers and stack words back, in a stop, into the
 * image we stopped: never after an exec or a stop we did not expect. */
static int restore_regs(Job *j, Tracee *t) {
        int r;

        if (!t->modified)
                return 0;
        /* Our registers go only into a thread of the target held in a stop
         * of ours, and come back out only there. */
        assert(t->stopped && !t->gone && !t->released && !t->foreign);
        assert(t->n_scratch <= INJECT_NODEMASK_WORDS);
        if (j->tainted)
                return -ECANCELED;
        if (t->n_scratch > 0) {
                r = write_words(t->tid, t->scratch_addr, t->scratch_old, t->n_scratch);
                if (r < 0)
                        return r;
                t->n_scratch = 0;
        }
        r = set_regs(t->tid, &t->saved);
        if (r < 0)
                return r;
        t->modified = false;
        return 0;
}

static Tracee *tracee_find(Job *j, pid_t tid) {
        for (size_t i = 0; i < j->n_tracees; i++)
                if (j->tracees[i].tid == tid)
                        return &j->tracees[i];
        return NULL;
}

static int tracee_add(Job *j, pid_t tid, Tracee **ret) {
        Tracee *n;

        /* One entry per TID: seize_new_threads() looks it up first. */
        assert(tid > 0 && !tracee_find(j, tid));
        n = realloc(j->tracees, (j->n_tracees + 1) * sizeof(Tracee));
        if (!n)
                return -ENOMEM;
        j->tracees = n;
        n[j->n_tracees] = (Tracee) { .tid = tid };
        *ret = &n[j->n_tracees++];
        return 0;
}

int inject_pidfd_alive(int pidfd) {
        struct pollfd p = { .fd = pidfd, .events = POLLIN };
        int r = poll(&p, 1, 0);

        if (r < 0)
                return -errno;
        if (p.revents & POLLNVAL)
                return -EBADF;
        return r == 0;
}

/* One listing of /proc/PID/task: seizes and interrupts every new thread.
 * Returns how many were new. */
static int seize_new_threads(Job *j) {
        char path[64];
        int added = 0, r = 0;

        snprintf(path, sizeof(path), "/proc/%d/task", (int) j->pid);
        DIR *d = opendir(path);
        if (!d)
                return errno == ENOENT ? -ESRCH : -errno;

        struct dirent *de;
        while ((de = readdir(d))) {
                char *end;
                long v = strtol(de->d_name, &end, 10);
                pid_t tid = (pid_t) v;
                ProcStatus st;
                Tracee *t;

                if (de->d_name[0] == '.' || *end != '\0' || v <= 0)
                        continue;
                if (tracee_find(j, tid))
                        continue;

                r = read_status(j->pid, tid, &st);
                if (r == -ESRCH) {
                        r = 0;
                        continue;  /* exited since the listing */
                }
                if (r < 0)
                        break;
                InjectRefusal why = inject_refusal_for_status(&st, 0, false);
                if (why == INJECT_REFUSAL_EXITING)
                        continue;  /* an exiting thread needs no policy */
                r = 0;
                if (why != INJECT_REFUSAL_NONE) {
                        j->abort_refusal = why;
                        r = -EPERM;
                        break;
                }

                r = tracee_add(j, tid, &t);
                if (r < 0)
                        break;
                /* No PTRACE_O_EXITKILL: if we die, the target must live on. No
                 * PTRACE_O_TRACECLONE: threads created before the stop are found
                 * by listing again, and a stopped thread cannot create any.
                 * PTRACE_O_TRACEEXEC: an exec stops at once, in the new image,
                 * with nothing written to it yet. */
                if (ptrace(PTRACE_SEIZE, tid, 0, (void *) (long) (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC)) < 0) {
                        r = -errno;
                        t->gone = true;
                        if (r == -ESRCH) {
                                r = 0;
                                continue;
                        }
                        if (r == -EPERM) {
                                /* EPERM also comes from a thread that has just
                                 * exited (exit_state set): only the status tells. */
                                ProcStatus again;
                                int k = read_status(j->pid, tid, &again);
                                if (k == -ESRCH || (k >= 0 && strchr("ZXx", again.state))) {
                                        r = 0;
                                        continue;
                                }
                                j->abort_refusal = k >= 0 && again.tracer_pid != 0 ? INJECT_REFUSAL_TRACED
                                                                                 : INJECT_REFUSAL_PTRACE_FORBIDDEN;
                        }
                        break;
                }
                /* The TID may have been reused between the listing and the
                 * seize, by a thread of another process: /proc/PID/task/TID
                 * finds only a thread of PID's group. That one is stopped
                 * (a seized thread can only be detached from a stop) and let
                 * go untouched. */
                TEST_HOOK("seized", j, tid);
                ProcStatus now;
                int k = read_status(j->pid, tid, &now);
                if (k < 0 || now.tgid != j->pid)
                        t->foreign = true;
                if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0 && errno != ESRCH) {
                        r = -errno;
                        break;
                }
                added += !t->foreign;
        }
        closedir(d);
        return r < 0 ? r : added;
}

/* The refusals read before the seize, read again now that no thread can
 * change them: a seccomp filter installed since would make our syscall its
 * business (SECCOMP_RET_KILL). */
static int recheck_stopped(Job *j) {
        for (size_t i = 0; i < j->n_tracees; i++) {
                Tracee *t = &j->tracees[i];
                ProcStatus st;

                if (t->gone || t->foreign)
                        continue;
                int r = read_status(j->pid, t->tid, &st);
                if (r == -ESRCH)
                        continue;
                if (r < 0)
                        return r;
                if (st.seccomp > 0) {
                        j->abort_refusal = INJECT_REFUSAL_SECCOMP;
                        return -EPERM;
                }
        }
        return 0;
}

static int stop_all_threads(Job *j) {
        for (unsigned round = 0; round < MAX_LIST_ROUNDS; round++) {
                int r, added;

                j->report->list_rounds = round + 1;
                added = seize_new_threads(j);
                if (added < 0)
                        return added;
                for (size_t i = 0; i < j->n_tracees; i++) {
                        Tracee *t = &j->tracees[i];
                        if (t->gone || t->stopped)
                                continue;
                        r = wait_interrupt_stop(j, t);
                        if (r == -ESRCH)
                                continue;
                        if (r < 0)
                                return r;
                }
                /* Every known thread is stopped now, so a listing with nothing
                 * new is final. */
                if (added == 0)
                        return recheck_stopped(j);
        }
        return -EAGAIN;
}

static int peek_word(pid_t tid, uint64_t addr, uint64_t *ret) {
        errno = 0;
        long v = ptrace(PTRACE_PEEKDATA, tid, (void *) addr, 0);
        if (errno != 0)
                return -errno;
        *ret = (uint64_t) v;
        return 0;
}

/* A 0f 05 (`syscall`) in the vDSO. Any such byte pair will do: we execute
 * only those two bytes and stop at the syscall's exit. */
static int find_syscall_insn(Job *j, pid_t tid) {
        char path[64];
        char *line = NULL;
        size_t n = 0;
        int r = -ENOEXEC;

        snprintf(path, sizeof(path), "/proc/%d/maps", (int) j->pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        while (getline(&line, &n, f) > 0) {
                MapsEntry e;
                if (proc_maps_parse_line(line, &e) < 0 || e.perms[2] != 'x' || strncmp(e.path, "[vdso]", 6) != 0)
                        continue;
                uint64_t size = e.end - e.start;
                if (size > 64 * 1024)
                        break;
                uint8_t *buf = malloc(size);
                if (!buf) {
                        r = -ENOMEM;
                        break;
                }
                struct iovec local = { buf, size }, remote = { (void *) e.start, size };
                if (process_vm_readv(j->pid, &local, 1, &remote, 1, 0) != (ssize_t) size) {
                        /* process_vm_readv may refuse special mappings; peek instead. */
                        r = 0;
                        for (uint64_t off = 0; off < size && r == 0; off += 8) {
                                uint64_t w = 0;
                                r = peek_word(tid, e.start + off, &w);
                                memcpy(buf + off, &w, 8);
                        }
                        if (r < 0) {
                                free(buf);
                                break;
                        }
                }
                r = -ENOEXEC;
                for (uint64_t i = 0; i + 1 < size; i++)
                        if (buf[i] == 0x0f && buf[i + 1] == 0x05) {
                                j->syscall_insn = e.start + i;
                                r = 0;
                                break;
                        }
                free(buf);
                break;
        }
        free(line);
        fclose(f);
        return r;
}

/* At the entry and the exit stop of the syscall we set up, the thread must
 * show our syscall (ORIG_RAX) and stand right after our instruction (RIP).
 * Anything else means the bytes there changed after we read them: another
 * process can write them (one that shares the memory, or a write through
 * /proc/PID/mem), and no stop of ours holds it. The thread then ran code of
 * the target's choosing, up to this syscall: an execve of a setuid program,
 * say, whose exit stop would show the new image. From here on we write
 * nothing (our saved registers at an execve's exit would go into the new
 * image, at the old RIP and RSP) and detach: the syscall then runs as if we
 * had never been there, which gives the process nothing it could not do on
 * its own. Not a kill: whoever can write the target's code can kill it
 * anyway, and a detach leaves it as it chose to be. */
static int check_own_syscall(Job *j, Tracee *t, struct user_regs_struct *ret_regs) {
        struct user_regs_struct regs;
        int r = get_regs(t->tid, &regs);

        if (r < 0)
                return r;
        if ((long) regs.orig_rax != t->nr || regs.rip != j->syscall_insn + 2) {
                j->tainted = true;
                j->abort_refusal = INJECT_REFUSAL_CHANGED;
                return -ECANCELED;
        }
        if (ret_regs)
                *ret_regs = regs;
        return 0;
}

/* Brings a thread that runs with our registers (towards, or inside, our
 * syscall) to a stop with its own registers, after the time box ran out.
 * PTRACE_INTERRUPT makes signal_pending() true, so a long syscall that checks
 * it (unmerging KSM pages over a huge sparse mapping: seen with an ASan
 * process's shadow) stops early. The thread must not be released before it
 * stops: it would return to user space with our registers. */
static int settle(Job *j, Tracee *t) {
        uint64_t saved_deadline = j->deadline;
        int r = 0;

        if (j->tainted)
                return -ECANCELED;
        j->settling++;
        j->deadline = now_usec() + SETTLE_USEC;
        if (t->stopped && t->entered == 1) {
                /* Held at the entry of our syscall: restoring here would run
                 * the thread's own ORIG_RAX as a syscall. Skip ours first. */
                struct user_regs_struct regs;
                r = get_regs(t->tid, &regs);
                if (r == 0) {
                        regs.orig_rax = (uint64_t) -1;
                        r = set_regs(t->tid, &regs);
                }
                if (r == 0) {
                        t->stopped = false;
                        if (ptrace(PTRACE_SYSCALL, t->tid, 0, 0) < 0) {
                                r = -errno;
                                t->stopped = true;
                        }
                }
        } else if (t->stopped)
                r = restore_regs(j, t);
        else if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0 && errno != ESRCH)
                r = -errno;
        while (r == 0 && t->modified && !j->tainted) {
                int sig = 0, event = wait_event(j, t, &sig);

                if (event < 0) {
                        r = event;
                        break;
                }
                if (event == STOP_GONE) {
                        r = -ESRCH;
                        break;
                }
                if (event == STOP_SYSCALL && t->entered == 0) {
                        /* At the entry of our syscall: skip it, then take the
                         * exit stop to put the registers back. */
                        struct user_regs_struct regs;
                        r = check_own_syscall(j, t, &regs);
                        if (r < 0)
                                break;
                        t->entered = 1;
                        regs.orig_rax = (uint64_t) -1;
                        r = set_regs(t->tid, &regs);
                        if (r < 0)
                                break;
                        t->stopped = false;
                        if (ptrace(PTRACE_SYSCALL, t->tid, 0, 0) < 0)
                                r = -errno;
                        continue;
                }
                /* The exit stop, or a stop before our syscall ran. */
                r = restore_regs(j, t);
                if (r < 0)
                        break;
                if (event == STOP_SIGNAL) {
                        /* Its own registers are back: deliver, stop again. */
                        t->stopped = false;
                        if (ptrace(PTRACE_CONT, t->tid, 0, (void *) (long) sig) < 0)
                                r = -errno;
                        else {
                                j->report->signals_passed++;
                                r = wait_interrupt_stop(j, t);
                        }
                }
        }
        if (r == 0 && j->tainted)
                r = -ECANCELED;
        j->deadline = saved_deadline;
        assert(j->settling > 0);
        j->settling--;
        return r;
}

/* Runs one syscall in a stopped thread and leaves it stopped with its saved
 * registers back in place. scratch (n_scratch words) is copied below the red
 * zone of the thread's stack for the call, and its address passed as
 * args[scratch_arg]; the words there are put back afterwards. */
static int run_syscall(Job *j, Tracee *t, long nr, const uint64_t args_in[6],
                       const uint64_t *scratch, size_t n_scratch, int scratch_arg, long *ret_result) {
        assert(n_scratch <= INJECT_NODEMASK_WORDS);
        assert(n_scratch == 0 || (scratch && scratch_arg >= 0 && scratch_arg < 6));
        assert(ret_result);
        /* inject_all() runs syscalls only in seized threads of the target
         * that are in a stop of ours, with their own registers in. */
        assert(t->stopped && !t->modified && !t->gone && !t->released && !t->foreign);
        for (unsigned attempt = 0;; attempt++) {
                struct user_regs_struct regs;
                uint64_t args[6];
                int r, sig = 0, event = STOP_SYSCALL;

                if (attempt >= MAX_RETRIES)
                        return -EAGAIN;
                if (j->tainted)
                        return -ECANCELED;
                /* Asked to stop: start nothing more (see stop_requested()). */
                if (stop_requested(j))
                        return -EINTR;
                memcpy(args, args_in, sizeof(args));

                /* Still a `syscall`, read with every thread stopped. Only
                 * a cheap check: another process may write it even now, and
                 * check_own_syscall() is what catches that. */
                uint64_t insn = 0;
                r = peek_word(t->tid, j->syscall_insn, &insn);
                if (r < 0)
                        return r;
                if ((insn & 0xffff) != 0x050f) {
                        j->abort_refusal = INJECT_REFUSAL_CHANGED;
                        return -ECANCELED;
                }
                TEST_HOOK("before-run", j, t->tid);

                t->modified = true;  /* from the first word written */
                j->report->wrote = true;
                t->entered = 0;
                t->nr = nr;
                if (n_scratch > 0) {
                        /* 128 bytes of red zone (x86_64 ABI), then ours. */
                        uint64_t addr = (t->saved.rsp - 128 - 8 * n_scratch - 64) & ~(uint64_t) 15;
                        for (size_t i = 0; i < n_scratch; i++) {
                                r = peek_word(t->tid, addr + 8 * i, &t->scratch_old[i]);
                                if (r < 0)
                                        return r;
                        }
                        t->scratch_addr = addr;
                        t->n_scratch = n_scratch;
                        r = write_words(t->tid, addr, scratch, n_scratch);
                        if (r < 0)
                                return r;
                        args[scratch_arg] = addr;
                }

                regs = t->saved;
                regs.rip = j->syscall_insn;
                regs.rax = (uint64_t) nr;
                /* -1: no syscall to restart when we resume from this stop. */
                regs.orig_rax = (uint64_t) -1;
                regs.rdi = args[0];
                regs.rsi = args[1];
                regs.rdx = args[2];
                regs.r10 = args[3];
                regs.r8 = args[4];
                regs.r9 = args[5];
                r = set_regs(t->tid, &regs);
                if (r < 0)
                        return r;

                /* Enter, then exit. */
                while (t->entered < 2) {
                        t->stopped = false;
                        if (ptrace(PTRACE_SYSCALL, t->tid, 0, 0) < 0) {
                                r = -errno;
                                t->stopped = true;  /* a failed restart leaves it stopped */
                                return r;
                        }
                        event = wait_event(j, t, &sig);
                        if (event == -ETIME) {
                                r = settle(j, t);
                                return r < 0 ? r : -ETIME;
                        }
                        if (event < 0)
                                return event;
                        if (event == STOP_GONE)
                                return -ESRCH;
                        if (event == STOP_SYSCALL) {
                                r = check_own_syscall(j, t, &regs);
                                if (r < 0)
                                        return r;
                                t->entered++;
                        } else if (event != STOP_INTERRUPT)  /* a leftover interrupt: resume again */
                                break;  /* a signal or a group stop came first */
                }

                if (t->entered == 2) {
                        /* regs: of the exit stop, checked. */
                        r = restore_regs(j, t);
                        if (r < 0)
                                return r;
                        /* A signal came while our syscall ran, and it stopped
                         * early to let it through (ksm_disable_merge_any()
                         * unmerging checks signal_pending(), for one). Run it
                         * again: on the way out the signal is dequeued, and
                         * handled below. */
                        if (syscall_return_is_restart((long) regs.rax)) {
                                j->report->retries++;
                                continue;
                        }
                        *ret_result = (long) regs.rax;
                        return 0;
                }

                /* The thread stopped before running our syscall: a signal is
                 * dequeued on the way back to user space. Put its own
                 * registers and stack back first, so that the kernel delivers
                 * the signal, and applies its restart rule, to the thread's
                 * real state. */
                r = restore_regs(j, t);
                if (r < 0)
                        return r;
                if (t->entered != 0)
                        return -EIO;  /* no stop can come between entry and exit */
                if (event == STOP_GROUP) {
                        j->abort_refusal = INJECT_REFUSAL_STOPPED;
                        return -EAGAIN;
                }

                /* Stop again right after the delivery, then retry. */
                if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
                        return -errno;
                t->stopped = false;
                if (ptrace(PTRACE_CONT, t->tid, 0, (void *) (long) sig) < 0)
                        return -errno;
                j->report->signals_passed++;
                j->report->retries++;
                r = wait_interrupt_stop(j, t);
                if (r < 0)
                        return r;
                r = get_regs(t->tid, &t->saved);
                if (r < 0)
                        return r;
        }
}

/* After an exec, or code not ours: every thread is detached as it is, with
 * not a register or word written (see check_own_syscall()). The exec'd
 * image waits in its exec stop under the leader's TID; an old thread may
 * still be on its way to a stop or to its end. */
static void release_untouched(Job *j) {
        uint64_t grace = now_usec() + 1000 * 1000;

        for (size_t i = 0; i < j->n_tracees; i++) {
                Tracee *t = &j->tracees[i];
                int sig = 0;

                while (!t->gone && !t->released) {
                        /* Signal: the one a signal-delivery stop holds, or 0. */
                        if (ptrace(PTRACE_DETACH, t->tid, 0, (void *) (long) sig) == 0) {
                                t->released = true;
                                break;
                        }
                        int status, r = wait_tid(j, t->tid, grace, &status);
                        if (r == -ECHILD || (r == 0 && (WIFEXITED(status) || WIFSIGNALED(status)))) {
                                t->gone = true;
                                break;
                        }
                        if (r < 0) {
                                /* Not at a stop: the kernel detaches it when we
                                 * exit. Its registers are its own, or its code's. */
                                j->report->stuck = true;
                                break;
                        }
                        sig = WSTOPSIG(status);
                        if ((status >> 16) != 0 || sig == (SIGTRAP | 0x80))
                                sig = 0;
                }
                t->stopped = false;
        }
}

/* Detaches every thread, also after errors. Registers go back first. A
 * thread that has not reached its stop yet gets until the grace deadline.
 *
 * A thread stopped inside a syscall (RAX -ERESTART*, ORIG_RAX its number)
 * gets exactly those registers back, and is then only ever detached, never
 * resumed with PTRACE_CONT: PTRACE_DETACH wakes it with TIF_SIGPENDING set
 * (__ptrace_unlink → ptrace_signal_wake_up), so on its way out it goes
 * through arch_do_signal_or_restart(), which applies the restart rule to
 * the restored registers: ORIG_RAX back into RAX and RIP - 2, or
 * restart_syscall for -ERESTART_RESTARTBLOCK (an interrupted nanosleep
 * sleeps what is left), or -EINTR if a signal with a handler is delivered
 * there. Mending RAX and RIP by hand, as the prototype did, would turn
 * that EINTR into a silent restart. Seen on 6.18: the same exact restore
 * followed by PTRACE_CONT from the syscall-exit stop made a 1 s nanosleep
 * return errno 516 after 0.1 s; with PTRACE_DETACH it slept 1.000 s.
 * test-inject-stress checks the result. */
static void release_all(Job *j) {
        uint64_t grace = now_usec() + 1000 * 1000;

        j->settling++;
        for (size_t i = 0; i < j->n_tracees && !j->tainted; i++) {
                Tracee *t = &j->tracees[i];

                if (t->gone || t->released)
                        continue;
                /* Never let a thread go with our registers in, as the
                 * helper's exit would: wait for its stop as long as it takes
                 * (an uninterruptible sleep in our syscall). What ends that
                 * wait is the helper's SIGKILL (TimeoutStopSec= after
                 * RuntimeMaxSec=), and then the kernel detaches it as it is. */
                int r = 0;
                while (t->modified && !t->gone && !j->tainted) {
                        r = settle(j, t);
                        if (r != -ETIME)
                                break;
                }
                if (j->tainted)
                        break;
                if (t->gone)
                        continue;
                if (t->modified && !t->stopped) {
                        j->report->stuck = true;  /* ptrace failed: nothing more to try */
                        continue;
                }
                if (!t->stopped) {
                        uint64_t saved_deadline = j->deadline;
                        j->deadline = grace;
                        r = wait_interrupt_stop(j, t);
                        j->deadline = saved_deadline;
                        if (r == -ESRCH || t->gone)
                                continue;
                        if (!t->stopped) {
                                j->report->stuck = true;
                                continue;
                        }
                }
                if (restore_regs(j, t) < 0 && t->modified) {
                        /* Gone meanwhile, or tainted: never detached with ours
                         * in. Still attached, it is let go by the tracer's exit. */
                        if (!t->gone)
                                j->report->stuck = true;
                        continue;
                }
                assert(!t->modified);
                /* Signal 0: we never hold a signal back, so none is owed. */
                if (ptrace(PTRACE_DETACH, t->tid, 0, 0) < 0) {
                        int status;
                        /* Exited meanwhile: reap what the kernel reports to us. */
                        while (waitpid(t->tid, &status, __WALL | WNOHANG) > 0)
                                ;
                }
                t->stopped = false;
                t->released = true;
        }
        if (j->tainted)
                release_untouched(j);
        assert(j->settling > 0);
        j->settling--;
}

static int inject_thread(Job *j, Tracee *t, const InjectRequest *req, bool first) {
        InjectReport *rep = j->report;
        long result;
        int r;

        r = get_regs(t->tid, &t->saved);
        /* 0x33 is __USER_CS: a 64-bit task. A 32-bit one (the kernel then
         * gives a shorter register set) uses other syscall numbers and int
         * 0x80. */
        if (r == -ENOEXEC || (r == 0 && t->saved.cs != 0x33)) {
                j->abort_refusal = INJECT_REFUSAL_UNSUPPORTED_ARCH;
                return -EPERM;
        }
        if (r < 0)
                return r;
        if ((long) t->saved.orig_rax >= 0 && syscall_return_is_restart((long) t->saved.rax))
                rep->threads_in_syscall++;

        if (first && req->ksm >= 0) {
                const uint64_t args[6] = { PR_SET_MEMORY_MERGE, (uint64_t) req->ksm, 0, 0, 0, 0 };
                r = run_syscall(j, t, SYS_prctl, args, NULL, 0, 0, &result);
                if (r < 0)
                        return r;
                rep->ksm_result = result;
        }

        if (req->set_mempolicy) {
                size_t words;
                unsigned long maxnode = mempolicy_maxnode(&req->mempolicy, &words);
                uint64_t args[6] = { (uint64_t) req->mempolicy.mode, 0, maxnode, 0, 0, 0 };
                uint64_t mask[INJECT_NODEMASK_WORDS];

                for (size_t w = 0; w < words; w++)
                        mask[w] = req->mempolicy.nodemask[w];
                r = run_syscall(j, t, SYS_set_mempolicy, args, mask, words, 1, &result);
                if (r < 0)
                        return r;
                if (result == 0)
                        rep->mempolicy_applied++;
                else if (rep->mempolicy_error == 0)
                        rep->mempolicy_error = result;
        }
        return 0;
}

/* Without a vDSO (vdso=0, or unmapped): the instruction a thread stopped
 * inside a syscall came in through, just before its RIP. */
static int find_syscall_insn_in_place(Job *j) {
        for (size_t i = 0; i < j->n_tracees; i++) {
                Tracee *t = &j->tracees[i];
                struct user_regs_struct regs;
                uint64_t w;

                if (t->gone || !t->stopped || t->foreign || get_regs(t->tid, &regs) < 0 || (long) regs.orig_rax < 0)
                        continue;
                if (peek_word(t->tid, regs.rip - 2, &w) == 0 && (w & 0xffff) == 0x050f) {
                        j->syscall_insn = regs.rip - 2;
                        j->report->insn_in_place = true;
                        return 0;
                }
        }
        return -ENOEXEC;
}

static int inject_all(Job *j, const InjectRequest *req) {
        bool first = true;
        int r;

        /* Every thread is stopped: no thread of the target changes the
         * instruction we pick after we read it. */
        assert(j->all_stopped);
        for (size_t i = 0; i < j->n_tracees; i++) {
                Tracee *t = &j->tracees[i];
                if (t->gone || !t->stopped || t->foreign)
                        continue;
                if (j->syscall_insn == 0) {
                        r = find_syscall_insn(j, t->tid);
                        if (r == -ENOEXEC)
                                r = find_syscall_insn_in_place(j);
                        if (r < 0)
                                return r;
                }
                r = inject_thread(j, t, req, first);
                /* A stopped thread that is gone (ptrace says ESRCH before
                 * waitpid reports it) went with its whole group: killed, or
                 * replaced by an exec in another thread. */
                if (r == -ESRCH)
                        j->tainted = true;
                if (r < 0)
                        return r;
                /* prctl returns 0 or -errno: 1 means it has not run yet. */
                first = req->ksm >= 0 && j->report->ksm_result == 1;
        }
        return 0;
}

int inject_process(pid_t pid, const InjectRequest *req, InjectReport *ret) {
        int pidfd, r;

        if (pid <= 0 || !req || !ret)
                return -EINVAL;
        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (pidfd < 0) {
                r = -errno;
                report_init(ret);
                if (r == -ESRCH)
                        ret->outcome = INJECT_VANISHED;
                else {
                        ret->outcome = INJECT_FAILED;
                        ret->error = r;
                }
                return 0;
        }
        r = inject_process_pidfd(pidfd, pid, req, ret);
        close(pidfd);
        return r;
}

int inject_process_pidfd(int pidfd, pid_t pid, const InjectRequest *req, InjectReport *ret) {
        InjectReport rep;
        ProcStatus st;
        Job j = { .pid = pid, .pidfd = pidfd, .report = &rep };
        int r;

        if (pidfd < 0 || pid <= 0 || !req || !ret || req->ksm < -1 || req->ksm > 1)
                return -EINVAL;
        report_init(&rep);
        j.deadline = now_usec() + (req->timeout_usec ? req->timeout_usec : DEFAULT_TIMEOUT_USEC);

        r = read_status(pid, 0, &st);
        if (r < 0) {
                rep.outcome = r == -ESRCH ? INJECT_VANISHED : INJECT_FAILED;
                rep.error = r == -ESRCH ? 0 : r;
                goto done;
        }
        /* /proc/TID of a thread reads like a process: its Tgid tells. */
        if (st.tgid != pid)
                return -EINVAL;
        rep.refusal = inject_refusal_for_status(&st, getpid(), true);
        if (rep.refusal == INJECT_REFUSAL_NONE && yama_forbids())
                rep.refusal = INJECT_REFUSAL_PTRACE_FORBIDDEN;
        if (rep.refusal != INJECT_REFUSAL_NONE) {
                rep.outcome = INJECT_REFUSED;
                goto done;
        }

        /* A stop request waits until every thread has its own registers
         * back (stop_requested()). */
        sigset_t stop_signals, old_mask;
        sigemptyset(&stop_signals);
        sigaddset(&stop_signals, SIGTERM);
        sigaddset(&stop_signals, SIGINT);
        sigaddset(&stop_signals, SIGHUP);
        pthread_sigmask(SIG_BLOCK, &stop_signals, &old_mask);

        r = stop_all_threads(&j);
        if (r >= 0) {
                j.all_stopped = true;
                rep.threads = 0;
                for (size_t i = 0; i < j.n_tracees; i++)
                        rep.threads += j.tracees[i].stopped && !j.tracees[i].gone && !j.tracees[i].foreign;
                /* The PID may have been reused between pidfd_open and the
                 * listing; if the pidfd's process still exists, the threads we
                 * hold are its own. */
                r = inject_pidfd_alive(j.pidfd);
                if (r == 0)
                        r = -ESRCH;
                else if (r > 0 && rep.threads == 0)
                        r = -ESRCH;
        }
        /* The target's credentials, now that none of its threads can change them. */
        if (r >= 0)
                r = inject_creds_verify(pid, req->acting_uid, &j.abort_refusal);
        if (r >= 0)
                r = inject_all(&j, req);
        /* And again before they go: an injection into what was not the user's is reported refused. */
        if (r >= 0)
                r = inject_creds_verify(pid, req->acting_uid, &j.abort_refusal);

        release_all(&j);
        if (j.stop_requested && r == -ETIME)
                r = -EINTR;
        /* Delivered now, if one came: everything is back, and detached. */
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);

        if (j.tainted && j.abort_refusal == INJECT_REFUSAL_NONE && inject_pidfd_alive(j.pidfd) != 0)
                j.abort_refusal = INJECT_REFUSAL_CHANGED;
        if (j.abort_refusal != INJECT_REFUSAL_NONE) {
                rep.outcome = INJECT_REFUSED;
                rep.refusal = j.abort_refusal;
        } else if (r == -ESRCH || inject_pidfd_alive(j.pidfd) == 0) {
                rep.outcome = INJECT_VANISHED;
        } else if (r < 0) {
                rep.outcome = INJECT_FAILED;
                rep.error = r;
        } else if (rep.ksm_result < 0 || rep.mempolicy_error < 0) {
                rep.outcome = INJECT_FAILED;
                rep.error = rep.ksm_result < 0 ? (int) rep.ksm_result : (int) rep.mempolicy_error;
        }

done:
        free(j.tracees);
        *ret = rep;
        return 0;
}

#endif
