/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The injector's own safety (issue 23, attack 2), made to happen at a
 * chosen point through inject.c's test hooks (built with
 * INJECT_TEST_HOOKS): each case says what the target, or another process,
 * does there, and what must hold.
 *
 *   code changed   the `syscall` we checked becomes a jump to an execve:
 *                  refused, "changed", nothing written back, and the exec
 *                  runs untraced: the new image starts at its own entry
 *                  (exit status 7), not at the registers we saved.
 *   exec           a seized thread runs execve before its stop: refused,
 *                  "executed", the new image detached untouched (exit 7).
 *   seccomp        a seized thread installs a seccomp filter before its
 *                  stop: refused, as one that had it before.
 *   stop request   SIGTERM to us mid-injection: blocked until every thread
 *                  has its own registers back and is detached; the target
 *                  lives on, untraced.
 *   32-bit task    refused, "unsupported architecture", at once.
 *
 * Run as "test-inject-race canary", it exits 7: the image the cases exec. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>

#include "inject.h"
#include "inject-test-util.h"

#define CANARY_STATUS 7

void inject_test_hook(const char *point, pid_t pid, pid_t tid, uint64_t insn);

static int failures;
static enum { HOOK_NONE, HOOK_CHANGE_CODE, HOOK_WAKE, HOOK_SIGTERM } hook_mode;
static unsigned hook_fired;
static uint64_t stub_addr;       /* the execve stub, at the same address in a forked child */
static int exec_pipe = -1;       /* the child execs when a byte comes */
static volatile sig_atomic_t got_sigterm;
static bool sigterm_at_once;     /* its handler ran right in kill(): it was not held back */

static void sleep_ms(long ms) {
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static int poke(pid_t pid, uint64_t addr, const void *bytes, size_t n) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/mem", (int) pid);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t k = pwrite(fd, bytes, n, (off_t) addr);
        int r = k == (ssize_t) n ? 0 : k < 0 ? -errno : -EIO;
        close(fd);
        return r;
}

void inject_test_hook(const char *point, pid_t pid, pid_t tid, uint64_t insn) {
        if (hook_fired > 0)
                return;
        if (hook_mode == HOOK_CHANGE_CODE && strcmp(point, "before-run") == 0) {
                /* movabs $stub, %rax; jmp *%rax: as a process sharing the
                 * target's memory, or writing /proc/PID/mem, could. */
                uint8_t jump[12] = { 0x48, 0xb8 };
                memcpy(jump + 2, &stub_addr, 8);
                jump[10] = 0xff;
                jump[11] = 0xe0;
                if (poke(pid, insn, jump, sizeof(jump)) < 0)
                        abort();
                hook_fired++;
        } else if (hook_mode == HOOK_WAKE && strcmp(point, "seized") == 0) {
                /* Seized, not yet interrupted: it runs (and execs, or
                 * installs a seccomp filter). */
                if (write(exec_pipe, "x", 1) != 1)
                        abort();
                sleep_ms(300);
                hook_fired++;
        } else if (hook_mode == HOOK_SIGTERM && strcmp(point, "before-run") == 0) {
                kill(getpid(), SIGTERM);
                sigterm_at_once = got_sigterm;
                hook_fired++;
        }
        (void) tid;
}

static void on_sigterm(int sig) {
        (void) sig;
        got_sigterm = 1;
}

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        printf("%s - ", ok ? "ok" : "FAIL");
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
        failures += !ok;
}

static char *const canary_argv[] = { (char *) "test-inject-race", (char *) "canary", NULL };

/* A child that runs child_main() once told through a pipe that it may (its
 * setup done); returns its PID. */
static pid_t spawn(void (*child_main)(void)) {
        int p[2];
        char c;

        if (pipe(p) < 0)
                abort();
        pid_t pid = fork();
        if (pid < 0)
                abort();
        if (pid == 0) {
                close(p[0]);
                if (write(p[1], "r", 1) != 1)
                        _exit(1);
                close(p[1]);
                child_main();
                _exit(0);
        }
        close(p[1]);
        if (read(p[0], &c, 1) != 1)
                abort();
        close(p[0]);
        return pid;
}

static void child_pause(void) {
        for (;;)
                pause();
}

/* Sleeps in steps, and says so if a sleep ever fails: registers that are
 * not its own would show. */
static void child_sleeps(void) {
        for (;;) {
                struct timespec ts = { 0, 20 * 1000 * 1000 };
                if (nanosleep(&ts, NULL) < 0 && errno != EINTR)
                        _exit(3);
        }
}

static int exec_pipe_read = -1;

static void child_execs_when_told(void) {
        char c;
        if (read(exec_pipe_read, &c, 1) != 1)
                _exit(4);
        execv("/proc/self/exe", canary_argv);
        _exit(5);
}

static void child_seccomp_when_told(void) {
        struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
        struct sock_fprog prog = { .len = 1, .filter = allow };
        char c;

        if (read(exec_pipe_read, &c, 1) != 1)
                _exit(4);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
                _exit(5);
        for (;;)
                pause();
}

static void go_32bit(void) {
        uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
                             -1, 0);
        if (page == MAP_FAILED)
                _exit(6);
        page[0] = 0xeb;  /* jmp . */
        page[1] = 0xfe;
        /* A far return to the 32-bit user code segment (__USER32_CS). */
        __asm__ volatile("pushq $0x23\n\tpushq %0\n\tlretq" : : "r"((uint64_t) (uintptr_t) page) : "memory");
        __builtin_unreachable();
}

static int status_of(pid_t pid, ProcStatus *ret) {
        return read_target_status(pid, ret);
}

/* Reaps the child: its exit status, 128+signal, or -1. */
static int reap(pid_t pid, long wait_ms) {
        int status;
        for (long waited = 0;; waited += 10) {
                pid_t r = waitpid(pid, &status, WNOHANG);
                if (r == pid)
                        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                if (r < 0 || waited >= wait_ms)
                        return -1;
                sleep_ms(10);
        }
}

static void kill_and_reap(pid_t pid) {
        kill(pid, SIGKILL);
        (void) reap(pid, 5000);
}

static void make_stub(void) {
        uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
                abort();
        uint64_t path = (uint64_t) (uintptr_t) (p + 0x100), argv = (uint64_t) (uintptr_t) (p + 0x200);
        strcpy((char *) p + 0x100, "/proc/self/exe");
        strcpy((char *) p + 0x180, "canary");
        uint64_t args[3] = { path, (uint64_t) (uintptr_t) (p + 0x180), 0 };
        memcpy(p + 0x200, args, sizeof(args));
        uint8_t code[] = {
                0x48, 0xbf, 0, 0, 0, 0, 0, 0, 0, 0,   /* movabs $path, %rdi */
                0x48, 0xbe, 0, 0, 0, 0, 0, 0, 0, 0,   /* movabs $argv, %rsi */
                0x31, 0xd2,                           /* xor %edx, %edx */
                0xb8, 0x3b, 0x00, 0x00, 0x00,         /* mov $59 (execve), %eax */
                0x0f, 0x05,                           /* syscall */
                0x0f, 0x0b,                           /* ud2 */
        };
        memcpy(code + 2, &path, 8);
        memcpy(code + 12, &argv, 8);
        memcpy(p, code, sizeof(code));
        stub_addr = (uint64_t) (uintptr_t) p;
}

static void test_code_changed(void) {
        InjectRequest req = { .ksm = 1, .timeout_usec = 5 * 1000 * 1000 };
        InjectReport rep;

        if (getauxval(AT_SYSINFO_EHDR) == 0) {
                printf("# no vDSO: the code-changed case needs its instruction\n");
                return;
        }
        pid_t pid = spawn(child_pause);
        hook_mode = HOOK_CHANGE_CODE;
        hook_fired = 0;
        int r = inject_process(pid, &req, &rep);
        hook_mode = HOOK_NONE;
        check(hook_fired == 1, "code changed: the hook ran");
        check(r == 0 && rep.outcome == INJECT_REFUSED && rep.refusal == INJECT_REFUSAL_CHANGED,
              "code changed: refused as changed under the injector (got %s, %s)", inject_outcome_to_string(rep.outcome),
              inject_refusal_to_string(rep.refusal));
        check(rep.ksm_result == 1, "code changed: our prctl never ran");
        int status = reap(pid, 10000);
        check(status == CANARY_STATUS,
              "code changed: the execve ran untraced, and the new image from its own entry (exit status %d, want %d)",
              status, CANARY_STATUS);
        if (status < 0)
                kill_and_reap(pid);
}

static void test_exec(void) {
        InjectRequest req = { .ksm = 1, .timeout_usec = 5 * 1000 * 1000 };
        InjectReport rep;
        int p[2];

        if (pipe2(p, O_CLOEXEC) < 0)
                abort();
        exec_pipe_read = p[0];
        pid_t pid = spawn(child_execs_when_told);
        close(p[0]);
        exec_pipe = p[1];
        hook_mode = HOOK_WAKE;
        hook_fired = 0;
        int r = inject_process(pid, &req, &rep);
        hook_mode = HOOK_NONE;
        close(exec_pipe);
        check(hook_fired == 1, "exec: the hook ran");
        check(r == 0 && rep.outcome == INJECT_REFUSED && rep.refusal == INJECT_REFUSAL_EXECUTED,
              "exec: refused as having executed a new program (got %s, %s)", inject_outcome_to_string(rep.outcome),
              inject_refusal_to_string(rep.refusal));
        check(rep.ksm_result == 1, "exec: nothing ran in the new image");
        int status = reap(pid, 10000);
        check(status == CANARY_STATUS, "exec: the new image was detached untouched (exit status %d, want %d)", status,
              CANARY_STATUS);
        if (status < 0)
                kill_and_reap(pid);
}

static void test_seccomp_after_seize(void) {
        InjectRequest req = { .ksm = 1, .timeout_usec = 5 * 1000 * 1000 };
        InjectReport rep;
        ProcStatus st;
        int p[2];

        if (pipe2(p, O_CLOEXEC) < 0)
                abort();
        exec_pipe_read = p[0];
        pid_t pid = spawn(child_seccomp_when_told);
        close(p[0]);
        exec_pipe = p[1];
        hook_mode = HOOK_WAKE;
        hook_fired = 0;
        int r = inject_process(pid, &req, &rep);
        hook_mode = HOOK_NONE;
        close(exec_pipe);
        check(hook_fired == 1, "seccomp after the seize: the hook ran");
        check(r == 0 && rep.outcome == INJECT_REFUSED && rep.refusal == INJECT_REFUSAL_SECCOMP && rep.ksm_result == 1,
              "seccomp after the seize: refused once stopped (got %s, %s)", inject_outcome_to_string(rep.outcome),
              inject_refusal_to_string(rep.refusal));
        st = (ProcStatus) {};
        r = status_of(pid, &st);
        /* R or S: a detached thread wakes up briefly before it sleeps again. */
        check(r == 0 && st.tracer_pid == 0 && st.seccomp == 2 && (st.state == 'S' || st.state == 'R'),
              "seccomp after the seize: left asleep, untraced (state %c, tracer %d, Seccomp %d)", st.state,
              (int) st.tracer_pid, st.seccomp);
        kill_and_reap(pid);
}

static void test_sigterm(void) {
        InjectRequest req = { .ksm = 1, .set_mempolicy = true, .timeout_usec = 5 * 1000 * 1000 };
        InjectReport rep;
        ProcStatus st;
        struct sigaction sa = { .sa_handler = on_sigterm }, old;

        req.mempolicy.mode = MPOL_DEFAULT;
        sigaction(SIGTERM, &sa, &old);
        got_sigterm = 0;
        pid_t pid = spawn(child_sleeps);
        hook_mode = HOOK_SIGTERM;
        hook_fired = 0;
        int r = inject_process(pid, &req, &rep);
        bool delivered_after = got_sigterm;
        hook_mode = HOOK_NONE;
        check(hook_fired == 1, "stop request: the hook ran");
        check(r == 0 && rep.outcome == INJECT_FAILED && rep.error == -EINTR && !rep.stuck,
              "stop request: the job was cut short (got %s, %s%s)", inject_outcome_to_string(rep.outcome),
              strerror(-rep.error), rep.stuck ? ", stuck" : "");
        check(!sigterm_at_once && delivered_after,
              "stop request: SIGTERM was held while threads were held, and delivered once inject_process() returned");
        sleep_ms(200);
        st = (ProcStatus) {};
        r = status_of(pid, &st);
        check(r == 0 && st.tracer_pid == 0 && st.state != 'Z' && st.state != 0,
              "stop request: the target runs on, untraced (state %c, tracer %d)", st.state, (int) st.tracer_pid);
        check(reap(pid, 0) < 0, "stop request: the target did not exit on its own (its registers are its own)");
        kill(pid, SIGKILL);
        int status = reap(pid, 5000);
        check(status == 128 + SIGKILL, "stop request: the target died of our SIGKILL, not before (%d)", status);
        sigaction(SIGTERM, &old, NULL);
}

static void test_32bit(void) {
        InjectRequest req = { .ksm = 1, .timeout_usec = 5 * 1000 * 1000 };
        InjectReport rep;
        ProcStatus st;

        pid_t pid = spawn(go_32bit);
        sleep_ms(100);
        int r = inject_process(pid, &req, &rep);
        check(r == 0 && rep.outcome == INJECT_REFUSED && rep.refusal == INJECT_REFUSAL_UNSUPPORTED_ARCH &&
                      rep.retries == 0,
              "32-bit task: refused as an unsupported architecture (got %s, %s, %s, %u retries)",
              inject_outcome_to_string(rep.outcome), inject_refusal_to_string(rep.refusal), strerror(-rep.error),
              rep.retries);
        st = (ProcStatus) {};
        r = status_of(pid, &st);
        check(r == 0 && st.tracer_pid == 0 && st.state == 'R',
              "32-bit task: left running, untraced (state %c, tracer %d)", st.state, (int) st.tracer_pid);
        kill_and_reap(pid);
}

int main(int argc, char **argv) {
        if (argc == 2 && strcmp(argv[1], "canary") == 0)
                return CANARY_STATUS;

        setvbuf(stdout, NULL, _IOLBF, 0);
        preflight_ptrace();
        make_stub();

        test_code_changed();
        test_exec();
        test_seccomp_after_seize();
        test_sigterm();
        test_32bit();

        if (failures > 0) {
                printf("%d checks failed\n", failures);
                return 1;
        }
        printf("all passed\n");
        return 0;
}
