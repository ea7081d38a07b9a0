/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Each refusal, on a real process: refused with its reason, and the process
 * left as it was (same state, same tracer, still there). And the time box:
 * an injected syscall that runs too long is cut, and the process released
 * with its own registers. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <grp.h>
#include <sys/mman.h>
#include <time.h>

#include "inject.h"
#include "inject-test-util.h"

static int failures;

static void sleep_ms(long ms) {
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* A child that sleeps until killed, after setup() ran in it. */
static pid_t spawn(void (*setup)(void)) {
        int p[2];
        char c;

        if (pipe(p) < 0)
                abort();
        pid_t pid = fork();
        if (pid < 0)
                abort();
        if (pid == 0) {
                close(p[0]);
                if (setup)
                        setup();
                if (write(p[1], "r", 1) != 1)
                        _exit(1);
                for (;;)
                        pause();
        }
        close(p[1]);
        if (read(p[0], &c, 1) != 1)
                abort();
        close(p[0]);
        return pid;
}

static void setup_seccomp(void) {
        struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
        struct sock_fprog prog = { .len = 1, .filter = allow };

        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
                _exit(2);
}

/* R, S, D and I are one state for this test: a detached process wakes up
 * briefly (R) before it sleeps again. */
static char state_class(char s) {
        return strchr("RSDI", s) ? 'S' : s;
}

static void finish(pid_t pid) {
        kill(pid, SIGKILL);
        kill(pid, SIGCONT);
        waitpid(pid, NULL, 0);
}

static void setup_sparse(void) {
        /* 16 TiB reserved, one page touched: like ASan's shadow, or a JVM's
         * reserved heap. */
        char *p = mmap(NULL, 16ULL << 40, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
                _exit(3);
        p[0] = 1;
}

static void setup_no_vdso(void) {
        FILE *f = fopen("/proc/self/maps", "re");
        char line[512];
        unsigned long a, b;

        while (f && fgets(line, sizeof(line), f))
                if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &a, &b) == 2)
                        munmap((void *) a, b - a);
        if (f)
                fclose(f);
}

/* No vDSO: the `syscall` instruction the thread sleeps in is used. */
static void check_no_vdso(void) {
        InjectRequest req = { .ksm = -1, .set_mempolicy = true, .mempolicy = { .mode = MPOL_PREFERRED, .nodemask = { 1 } } };
        InjectReport rep;
        char policy[64] = "";
        pid_t pid = spawn(setup_no_vdso);

        sleep_ms(50);  /* into pause() */
        if (inject_process(pid, &req, &rep) < 0 || rep.outcome != INJECT_APPLIED || !rep.insn_in_place ||
            inject_read_task_policy(pid, pid, policy, sizeof(policy)) < 0 || strcmp(policy, "prefer:0") != 0) {
                printf("not ok - no vDSO: %s, error %s, in place %d, policy '%s'\n", inject_outcome_to_string(rep.outcome),
                       strerror(-rep.error), rep.insn_in_place, policy);
                failures++;
        } else
                printf("ok - no vDSO: applied through the syscall instruction in place, policy %s\n", policy);
        finish(pid);
}

static void check_time_box(void) {
        InjectRequest on = { .ksm = 1 }, off = { .ksm = 0, .timeout_usec = 300 * 1000 };
        InjectReport rep;
        ProcStatus st;
        pid_t pid = spawn(setup_sparse);

        if (in_child(try_ksm) < 0) {
                printf("# time box: skipped, prctl(PR_SET_MEMORY_MERGE) fails in a plain process\n");
                finish(pid);
                return;
        }
        if (inject_process(pid, &on, &rep) < 0 || rep.outcome != INJECT_APPLIED) {
                printf("not ok - time box: KSM on was not applied (%s)\n", inject_outcome_to_string(rep.outcome));
                failures++;
        } else if (inject_process(pid, &off, &rep) < 0) {
                printf("not ok - time box: inject_process failed\n");
                failures++;
        } else if (rep.outcome == INJECT_APPLIED) {
                printf("# time box: this kernel unmerged 16 TiB within 300 ms, so the cut was not exercised\n");
        } else if (rep.outcome != INJECT_FAILED || rep.error != -ETIME || rep.stuck ||
                   read_target_status(pid, &st) < 0 || st.tracer_pid != 0 || !strchr("RS", st.state)) {
                printf("not ok - time box: %s, error %s%s\n", inject_outcome_to_string(rep.outcome),
                       strerror(-rep.error), rep.stuck ? ", stuck" : "");
                failures++;
        } else
                printf("ok - time box: KSM off over 16 TiB cut at 300 ms (%s), the process released, state %c\n",
                       strerror(-rep.error), st.state);
        finish(pid);
}

/* Whose input the requests of check() act for (inject.h): 0, root's. */
static uid_t acting_uid;

static void check(const char *name, pid_t pid, InjectOutcome want_outcome, InjectRefusal want_refusal) {
        InjectRequest req = { .ksm = 1, .set_mempolicy = true, .mempolicy = { .mode = MPOL_PREFERRED, .nodemask = { 1 } },
                              .acting_uid = acting_uid };
        InjectReport rep;
        ProcStatus before = {}, after = {};
        bool had_before = read_target_status(pid, &before) == 0;
        int r = inject_process(pid, &req, &rep);

        if (r < 0) {
                printf("not ok - %s: inject_process: %s\n", name, strerror(-r));
                failures++;
                return;
        }
        if (rep.outcome != want_outcome || rep.refusal != want_refusal) {
                printf("not ok - %s: want %s (%s), got %s (%s), error %s\n", name,
                       inject_outcome_to_string(want_outcome), inject_refusal_to_string(want_refusal),
                       inject_outcome_to_string(rep.outcome), inject_refusal_to_string(rep.refusal),
                       strerror(-rep.error));
                failures++;
                return;
        }
        if (had_before) {
                if (read_target_status(pid, &after) < 0) {
                        printf("not ok - %s: the process is gone afterwards\n", name);
                        failures++;
                        return;
                }
                if (state_class(after.state) != state_class(before.state) || after.tracer_pid != before.tracer_pid ||
                    after.seccomp != before.seccomp) {
                        printf("not ok - %s: state %c→%c, tracer %d→%d, seccomp %d→%d\n", name, before.state,
                               after.state, before.tracer_pid, after.tracer_pid, before.seccomp, after.seccomp);
                        failures++;
                        return;
                }
        }
        if (had_before)
                printf("ok - %s: %s (%s), state %c, tracer %d, seccomp %d unchanged\n", name,
                       inject_outcome_to_string(rep.outcome), inject_refusal_to_string(rep.refusal), after.state,
                       after.tracer_pid, after.seccomp);
        else
                printf("ok - %s: %s\n", name, inject_outcome_to_string(rep.outcome));
}


int main(void) {
        pid_t pid;

        setvbuf(stdout, NULL, _IOLBF, 0);
        preflight_ptrace();

        /* A control: the same request on a plain process is applied. */
        pid = spawn(NULL);
        check("a plain process (control)", pid, INJECT_APPLIED, INJECT_REFUSAL_NONE);
        finish(pid);

        /* For another uid than ours: the library checks once every thread
         * is stopped (the server also checks before), and lets them go
         * untouched. */
        pid = spawn(NULL);
        acting_uid = getuid() == 65534 ? 65533 : 65534;
        check("a request for another uid, checked once stopped", pid, INJECT_REFUSED, INJECT_REFUSAL_OTHER_UID);
        acting_uid = 0;
        {
                char policy[64] = "";
                if (inject_read_task_policy(pid, pid, policy, sizeof(policy)) < 0 || strcmp(policy, "default") != 0) {
                        printf("not ok - a request for another uid: the policy is '%s', not default\n", policy);
                        failures++;
                }
        }
        finish(pid);

        check("PID 1", 1, INJECT_REFUSED, INJECT_REFUSAL_INIT);
        check("kthreadd", 2, INJECT_REFUSED, INJECT_REFUSAL_KERNEL_THREAD);
        check("our own process", getpid(), INJECT_REFUSED, INJECT_REFUSAL_SELF);

        /* Traced by a second tracer, which holds on until we close its pipe. */
        pid = spawn(NULL);
        {
                int ready[2], hold[2];
                char c;
                if (pipe(ready) < 0 || pipe(hold) < 0)
                        abort();
                pid_t tracer = fork();
                if (tracer == 0) {
                        close(ready[0]);
                        close(hold[1]);
                        if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0)
                                _exit(1);
                        if (write(ready[1], "r", 1) != 1)
                                _exit(1);
                        if (read(hold[0], &c, 1) < 0)
                                _exit(1);
                        _exit(0);
                }
                close(ready[1]);
                close(hold[0]);
                if (read(ready[0], &c, 1) != 1) {
                        printf("not ok - traced: the second tracer could not attach\n");
                        failures++;
                } else
                        check("traced by another tracer", pid, INJECT_REFUSED, INJECT_REFUSAL_TRACED);
                close(hold[1]);
                waitpid(tracer, NULL, 0);
        }
        finish(pid);

        /* Stopped by SIGSTOP. */
        pid = spawn(NULL);
        kill(pid, SIGSTOP);
        waitpid(pid, NULL, WUNTRACED);
        check("stopped by SIGSTOP", pid, INJECT_REFUSED, INJECT_REFUSAL_STOPPED);
        finish(pid);

        /* Under a seccomp filter that allows everything. */
        pid = spawn(setup_seccomp);
        check("under a seccomp filter", pid, INJECT_REFUSED, INJECT_REFUSAL_SECCOMP);
        finish(pid);

        /* A zombie: exited, not reaped. */
        pid = fork();
        if (pid == 0)
                _exit(0);
        for (int i = 0; i < 200; i++) {
                ProcStatus st;
                if (read_target_status(pid, &st) == 0 && st.state == 'Z')
                        break;
                sleep_ms(5);
        }
        check("a zombie", pid, INJECT_REFUSED, INJECT_REFUSAL_EXITING);
        waitpid(pid, NULL, 0);

        /* Gone: a reaped PID (reuse within this test is unlikely). */
        check("a PID that has exited", pid, INJECT_VANISHED, INJECT_REFUSAL_NONE);

        /* Without the right to ptrace it: as nobody, a root process. */
        pid = spawn(NULL);
        {
                pid_t as_nobody = fork();
                if (as_nobody == 0) {
                        if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
                                _exit(100);
                        check("a root process, injected as nobody", pid, INJECT_REFUSED,
                              INJECT_REFUSAL_PTRACE_FORBIDDEN);
                        _exit(failures ? 1 : 0);
                }
                int status;
                waitpid(as_nobody, &status, 0);
                if (WIFEXITED(status) && WEXITSTATUS(status) == 100)
                        printf("# ptrace not permitted: skipped, cannot become nobody\n");
                else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        failures++;
        }
        finish(pid);

        if (in_child(try_mempolicy) == 0)
                check_no_vdso();
        else
                printf("# no vDSO: skipped, set_mempolicy fails in a plain process\n");
        check_time_box();

        printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
        return failures ? 1 : 0;
}
