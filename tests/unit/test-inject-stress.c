/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The injector under load. A multithreaded target checks its own syscall
 * results while a few hundred injections of prctl(PR_SET_MEMORY_MERGE) and
 * set_mempolicy hit it, and a sender thread here sends it signals:
 *   - SIGUSR1, one at a time (the next only after the last was counted, since
 *     standard signals coalesce), and bursts of SIGRTMIN by sigqueue, whose
 *     values and si_pid the target checks: zero lost, zero altered;
 *   - nanosleep: a 0 return never comes early, an EINTR's remainder adds up;
 *   - ppoll with a temporary mask: the thread's own mask is back afterwards;
 *   - a pipe: every 8-byte sequence number arrives, in order;
 *   - user code: a computation in registers gives the same result twice;
 *   - threads come and go all the time.
 * After each injection, every 10th time: `mg` in smaps and the task policy
 * in every thread's numa_maps are what was asked. */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <dirent.h>

#include "inject.h"
#include "inject-test-util.h"

/* Defaults; POLICYGROUPS_STRESS_INJECTIONS and POLICYGROUPS_STRESS_SECONDS
 * change them (the system suite's TCG guest is slower), and
 * POLICYGROUPS_STRESS_SLEEP_SECONDS the interrupted sleep's length. Two thirds of the
 * injections must be done within the time. */
#define INJECTIONS 300
#define TIME_LIMIT_SEC 20
#define USR1_TO_SEND 100

typedef struct Shared {
        atomic_int ready;
        atomic_int stop;
        atomic_ulong usr1;
        atomic_ulong rt;
        atomic_ulong rt_value_sum;
        atomic_ulong rt_bad_info;
        atomic_ulong errors;
        atomic_ulong sleeps, sleeps_eintr, polls, reads, computes, spawned;
        pid_t tester;
        char first_error[256];
} Shared;

static Shared *shared;

static uint64_t mono_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static void sleep_ms(long ms) {
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

__attribute__((format(printf, 1, 2)))
static void target_error(const char *fmt, ...) {
        if (atomic_fetch_add(&shared->errors, 1) == 0) {
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(shared->first_error, sizeof(shared->first_error), fmt, ap);
                va_end(ap);
        }
}

/* ---- the target ---- */

static void on_usr1(int sig) {
        (void) sig;
        atomic_fetch_add(&shared->usr1, 1);
}

static void on_rt(int sig, siginfo_t *si, void *uc) {
        (void) sig;
        (void) uc;
        if (si->si_code != SI_QUEUE || si->si_pid != shared->tester)
                atomic_fetch_add(&shared->rt_bad_info, 1);
        atomic_fetch_add(&shared->rt_value_sum, (unsigned long) si->si_value.sival_int);
        atomic_fetch_add(&shared->rt, 1);
}

static void *sleeper(void *arg) {
        long ms = (long) arg;

        while (!atomic_load(&shared->stop)) {
                struct timespec req = { ms / 1000, (ms % 1000) * 1000000L }, rem = { 0, 0 };
                uint64_t t0 = mono_ns();
                int r = nanosleep(&req, &rem);
                int e = errno;
                uint64_t took = mono_ns() - t0, want = (uint64_t) ms * 1000000ULL;

                atomic_fetch_add(&shared->sleeps, 1);
                if (r == 0 && took < want)
                        target_error("nanosleep(%ld ms) returned 0 after %.3f ms", ms, took / 1e6);
                else if (r < 0 && e != EINTR)
                        target_error("nanosleep(%ld ms): errno %d", ms, e);
                else if (r < 0) {
                        uint64_t left = (uint64_t) rem.tv_sec * 1000000000ULL + (uint64_t) rem.tv_nsec;
                        atomic_fetch_add(&shared->sleeps_eintr, 1);
                        /* slept + remaining covers the request (1 ms of slack for the clocks) */
                        if (took + left + 1000000ULL < want)
                                target_error("nanosleep(%ld ms): EINTR after %.3f ms with %.3f ms left", ms,
                                             took / 1e6, left / 1e6);
                }
        }
        return NULL;
}

static void *poller(void *arg) {
        sigset_t own, tmp, now;

        (void) arg;
        /* This thread blocks SIGUSR2; ppoll unblocks everything for its
         * duration (TIF_RESTORE_SIGMASK in the kernel). */
        sigemptyset(&own);
        sigaddset(&own, SIGUSR2);
        pthread_sigmask(SIG_BLOCK, &own, NULL);
        sigemptyset(&tmp);
        while (!atomic_load(&shared->stop)) {
                struct timespec ts = { 0, 25 * 1000000L };
                uint64_t t0 = mono_ns();
                int r = ppoll(NULL, 0, &ts, &tmp);
                int e = errno;
                uint64_t took = mono_ns() - t0;

                atomic_fetch_add(&shared->polls, 1);
                if (r == 0 && took < 25 * 1000000ULL)
                        target_error("ppoll(25 ms) timed out after %.3f ms", took / 1e6);
                if (r < 0 && e != EINTR)
                        target_error("ppoll: errno %d", e);
                if (r > 0)
                        target_error("ppoll with no fds returned %d", r);
                pthread_sigmask(SIG_BLOCK, NULL, &now);
                if (!sigismember(&now, SIGUSR2) || sigismember(&now, SIGUSR1))
                        target_error("the mask after ppoll is not the thread's own");
        }
        return NULL;
}

static int pipe_fds[2];

static void *pipe_writer(void *arg) {
        (void) arg;
        for (uint64_t seq = 1; !atomic_load(&shared->stop); seq++) {
                ssize_t n;
                do
                        n = write(pipe_fds[1], &seq, sizeof(seq));
                while (n < 0 && errno == EINTR);
                if (n != sizeof(seq)) {
                        target_error("write to the pipe: %zd, errno %d", n, errno);
                        break;
                }
                sleep_ms(3);
        }
        close(pipe_fds[1]);
        return NULL;
}

static void *pipe_reader(void *arg) {
        uint64_t want = 1, got;

        (void) arg;
        for (;;) {
                ssize_t n = read(pipe_fds[0], &got, sizeof(got));
                if (n == 0)
                        break;
                if (n < 0 && errno == EINTR)
                        continue;
                if (n != sizeof(got)) {
                        target_error("read from the pipe: %zd, errno %d", n, errno);
                        break;
                }
                if (got != want) {
                        target_error("pipe: got sequence %llu, want %llu", (unsigned long long) got,
                                     (unsigned long long) want);
                        want = got;
                }
                want++;
                atomic_fetch_add(&shared->reads, 1);
        }
        return NULL;
}

static uint64_t mix(uint64_t x, unsigned n) {
        uint64_t a = x, b = x ^ 0x9e3779b97f4a7c15ULL, c = x * 3, d = ~x;
        for (unsigned i = 0; i < n; i++) {
                a = a * 6364136223846793005ULL + 1442695040888963407ULL;
                b ^= a >> 29;
                c += b * 0xbf58476d1ce4e5b9ULL;
                d = (d << 7 | d >> 57) ^ c;
        }
        return a ^ b ^ c ^ d;
}

static void *computer(void *arg) {
        (void) arg;
        for (uint64_t x = 1; !atomic_load(&shared->stop); x++) {
                /* ~0.1 ms of user code, then a sleep: light on a shared machine */
                uint64_t r1 = mix(x, 20000), r2 = mix(x, 20000);
                if (r1 != r2)
                        target_error("computation %llu differs", (unsigned long long) x);
                atomic_fetch_add(&shared->computes, 1);
                sleep_ms(2);
        }
        return NULL;
}

static void *short_lived(void *arg) {
        (void) arg;
        sleep_ms(1);
        return NULL;
}

static void *spawner(void *arg) {
        (void) arg;
        while (!atomic_load(&shared->stop)) {
                pthread_t t;
                if (pthread_create(&t, NULL, short_lived, NULL) == 0) {
                        pthread_join(t, NULL);
                        atomic_fetch_add(&shared->spawned, 1);
                }
                sleep_ms(4);
        }
        return NULL;
}

static int target_main(void) {
        struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
        struct sigaction sr = { .sa_sigaction = on_rt, .sa_flags = SA_RESTART | SA_SIGINFO };
        pthread_t threads[8];
        size_t n = 0;

        sigaction(SIGUSR1, &sa, NULL);
        sigaction(SIGRTMIN, &sr, NULL);
        if (pipe(pipe_fds) < 0)
                return 1;
        pthread_create(&threads[n++], NULL, sleeper, (void *) 30L);
        pthread_create(&threads[n++], NULL, sleeper, (void *) 200L);
        pthread_create(&threads[n++], NULL, poller, NULL);
        pthread_create(&threads[n++], NULL, pipe_writer, NULL);
        pthread_create(&threads[n++], NULL, pipe_reader, NULL);
        pthread_create(&threads[n++], NULL, computer, NULL);
        pthread_create(&threads[n++], NULL, spawner, NULL);
        atomic_store(&shared->ready, 1);
        sleeper((void *) 10L);  /* the main thread sleeps too */
        for (size_t i = 0; i < n; i++)
                pthread_join(threads[i], NULL);
        return atomic_load(&shared->errors) ? 1 : 0;
}

/* ---- the tester ---- */

static pid_t target;
static atomic_int sender_done;
static unsigned usr1_sent, usr1_lost, rt_sent;
static unsigned long rt_value_sent;

static void *sender(void *arg) {
        (void) arg;
        for (unsigned i = 0; i < USR1_TO_SEND && !atomic_load(&sender_done); i++) {
                unsigned long before = atomic_load(&shared->usr1);
                uint64_t deadline;

                kill(target, SIGUSR1);
                usr1_sent++;
                deadline = mono_ns() + 3000000000ULL;
                while (atomic_load(&shared->usr1) == before && mono_ns() < deadline)
                        sleep_ms(1);
                if (atomic_load(&shared->usr1) == before)
                        usr1_lost++;  /* counted once more below if it shows up late */
                if (i % 10 == 0)
                        for (int k = 0; k < 3; k++) {
                                union sigval v = { .sival_int = (int) (i * 3 + (unsigned) k + 1) };
                                if (sigqueue(target, SIGRTMIN, v) == 0) {
                                        rt_sent++;
                                        rt_value_sent += (unsigned long) v.sival_int;
                                }
                        }
                sleep_ms(20 + (long) (i % 7) * 5);
        }
        return NULL;
}

/* One nanosleep of 1 s (POLICYGROUPS_STRESS_SLEEP_SECONDS), injected into
 * up to ten times while it sleeps: it must return 0 after its full time (the
 * kernel restarts it with restart_syscall for the time left), not early, not
 * with an error. Injections stop at four fifths of the sleep, so that a
 * loaded machine makes fewer of them, all inside it, rather than one that
 * comes after the sleep. */
static int check_interrupted_sleep(bool ksm, bool mempolicy, unsigned seconds) {
        uint64_t want = seconds * 1000000000ULL;
        int p[2];
        uint64_t took = 0;
        int ret = -1, status;

        if (pipe(p) < 0)
                return -1;
        uint64_t t_fork = mono_ns();
        pid_t child = fork();
        if (child == 0) {
                struct timespec ts = { seconds, 0 };
                uint64_t t0 = mono_ns();
                long r = nanosleep(&ts, NULL) < 0 ? -errno : 0;
                uint64_t out[2] = { mono_ns() - t0, (uint64_t) r };
                _exit(write(p[1], out, sizeof(out)) == sizeof(out) ? 0 : 1);
        }
        close(p[1]);
        sleep_ms(100);
        unsigned applied = 0, in_syscall = 0, made = 0;
        for (int i = 0; i < 10 && mono_ns() - t_fork < want / 5 * 4; i++) {
                made++;
                InjectRequest req = { .ksm = ksm ? i % 2 == 0 : -1, .set_mempolicy = mempolicy,
                                      .mempolicy = { .mode = i % 2 == 0 ? MPOL_PREFERRED : MPOL_DEFAULT,
                                                     .nodemask = { i % 2 == 0 ? 1UL : 0UL } } };
                InjectReport rep;
                if (inject_process(child, &req, &rep) == 0 && rep.outcome == INJECT_APPLIED) {
                        applied++;
                        in_syscall += rep.threads_in_syscall;
                } else
                        printf("# sleep: injection %d: %s (%s), error %s, ksm %ld, mempolicy %ld\n", i,
                               inject_outcome_to_string(rep.outcome), inject_refusal_to_string(rep.refusal),
                               strerror(-rep.error), rep.ksm_result, rep.mempolicy_error);
                sleep_ms(50);
        }
        uint64_t in[2];
        if (read(p[0], in, sizeof(in)) == sizeof(in)) {
                took = in[0];
                ret = (int) (long) in[1];
        }
        close(p[0]);
        waitpid(child, &status, 0);
        bool ok = made > 0 && applied == made && in_syscall == made && ret == 0 && took >= want &&
                  took < want + want / 5;
        printf("%s - a %u s nanosleep injected into %u times of %u (%u inside it) returned %d after %.4f s\n",
               ok ? "ok" : "not ok", seconds, applied, made, in_syscall, ret, took / 1e9);
        return ok ? 0 : -1;
}

static int count_threads(pid_t pid, pid_t *tids, int max) {
        char path[64];
        struct dirent *de;
        int n = 0;

        snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        DIR *d = opendir(path);
        if (!d)
                return -errno;
        while ((de = readdir(d)) && n < max)
                if (atoi(de->d_name) > 0)
                        tids[n++] = atoi(de->d_name);
        closedir(d);
        return n;
}

static unsigned env_unsigned(const char *name, unsigned fallback) {
        const char *v = getenv(name);
        char *end;
        unsigned long n;

        if (!v)
                return fallback;
        n = strtoul(v, &end, 10);
        if (*v == '\0' || *end != '\0' || n == 0 || n > 100000) {
                printf("# %s='%s' is not a count from 1 to 100000: %u\n", name, v, fallback);
                return fallback;
        }
        return (unsigned) n;
}

int main(void) {
        bool ksm_ok, mempolicy_ok;
        unsigned applied = 0, not_applied = 0, ksm_checks = 0, ksm_bad = 0, policy_checks = 0, policy_bad = 0;
        unsigned long threads = 0, in_syscall = 0, passed = 0, retries = 0, max_rounds = 0;
        uint64_t t_start, t_inject = 0, worst = 0;
        int failures = 0, i, status;

        unsigned injections = env_unsigned("POLICYGROUPS_STRESS_INJECTIONS", INJECTIONS);
        unsigned long long time_limit_sec = env_unsigned("POLICYGROUPS_STRESS_SECONDS", TIME_LIMIT_SEC);

        setvbuf(stdout, NULL, _IOLBF, 0);
        preflight_ptrace();
        ksm_ok = in_child(try_ksm) == 0;
        mempolicy_ok = in_child(try_mempolicy) == 0;
        if (!ksm_ok && !mempolicy_ok)
                skip("neither prctl(PR_SET_MEMORY_MERGE) nor set_mempolicy works in a plain process");
        if (!ksm_ok)
                printf("# KSM: prctl(PR_SET_MEMORY_MERGE) fails in a plain process: KSM checks skipped\n");
#ifdef UNDER_ASAN
        else
                printf("# KSM: skipped under ASan (turning it off walks the whole shadow mapping)\n");
        ksm_ok = false;
#endif
        if (!mempolicy_ok)
                printf("# NUMA: set_mempolicy fails in a plain process: mempolicy checks skipped\n");

        if (check_interrupted_sleep(ksm_ok, mempolicy_ok, env_unsigned("POLICYGROUPS_STRESS_SLEEP_SECONDS", 1)) < 0)
                failures++;

        shared = mmap(NULL, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (shared == MAP_FAILED)
                return 1;
        shared->tester = getpid();
        target = fork();
        if (target == 0)
                _exit(target_main());
        while (!atomic_load(&shared->ready))
                sleep_ms(1);

        pthread_t sender_thread;
        pthread_create(&sender_thread, NULL, sender, NULL);

        t_start = mono_ns();
        for (i = 0; (unsigned) i < injections && mono_ns() - t_start < time_limit_sec * 1000000000ULL; i++) {
                bool on = i % 2 == 0;
                InjectRequest req = { .ksm = ksm_ok ? on : -1, .set_mempolicy = mempolicy_ok,
                                      .mempolicy = { .mode = on ? MPOL_PREFERRED : MPOL_DEFAULT,
                                                     .nodemask = { on ? 1UL : 0UL } } };
                InjectReport rep;
                uint64_t t0 = mono_ns(), took;

                if (inject_process(target, &req, &rep) < 0 || rep.outcome != INJECT_APPLIED) {
                        not_applied++;
                        if (not_applied <= 5)
                                printf("# injection %d: %s (%s), error %s\n", i, inject_outcome_to_string(rep.outcome),
                                       inject_refusal_to_string(rep.refusal), strerror(-rep.error));
                        continue;
                }
                took = mono_ns() - t0;
                t_inject += took;
                if (took > worst)
                        worst = took;
                applied++;
                threads += rep.threads;
                in_syscall += rep.threads_in_syscall;
                passed += rep.signals_passed;
                retries += rep.retries;
                if (rep.list_rounds > max_rounds)
                        max_rounds = rep.list_rounds;
                if (mempolicy_ok && rep.mempolicy_applied != rep.threads) {
                        printf("# injection %d: set_mempolicy in %u of %u threads\n", i, rep.mempolicy_applied, rep.threads);
                        policy_bad++;
                }

                if (i % 10 == 0 || i % 10 == 1) {
                        if (ksm_ok) {
                                int mg = inject_read_ksm(target);
                                ksm_checks++;
                                if (mg != on) {
                                        printf("# injection %d: mg %s after PR_SET_MEMORY_MERGE %d\n", i,
                                               mg ? "present" : "absent", on);
                                        ksm_bad++;
                                }
                        }
                        if (mempolicy_ok) {
                                pid_t tids[64];
                                int n = count_threads(target, tids, 64);
                                const char *want = on ? "prefer:0" : "default";
                                for (int k = 0; k < n; k++) {
                                        char got[64];
                                        /* A short-lived thread may be gone already. */
                                        if (inject_read_task_policy(target, tids[k], got, sizeof(got)) < 0)
                                                continue;
                                        policy_checks++;
                                        if (strcmp(got, want) != 0) {
                                                printf("# injection %d: thread %d has %s, want %s\n", i, tids[k], got, want);
                                                policy_bad++;
                                        }
                                }
                        }
                }
                sleep_ms(15 + i % 20);
        }

        atomic_store(&sender_done, 1);
        pthread_join(sender_thread, NULL);
        sleep_ms(300);  /* let the last signals arrive */
        atomic_store(&shared->stop, 1);
        if (waitpid(target, &status, 0) < 0 || !WIFEXITED(status)) {
                printf("not ok - the target did not exit normally (status 0x%x)\n", status);
                failures++;
        }

        unsigned long usr1_got = atomic_load(&shared->usr1), rt_got = atomic_load(&shared->rt);
        printf("# %u injections applied in %.1f s (mean %.2f ms, worst %.2f ms), %lu thread stops, "
               "%lu inside an interrupted syscall, %lu signals passed on, %lu retries, up to %lu task listings\n",
               applied, (mono_ns() - t_start) / 1e9, applied ? t_inject / 1e6 / applied : 0.0, worst / 1e6, threads,
               in_syscall, passed, retries, max_rounds);
        printf("# target: %lu sleeps (%lu EINTR), %lu ppolls, %lu pipe reads, %lu computations, %lu threads spawned\n",
               atomic_load(&shared->sleeps), atomic_load(&shared->sleeps_eintr), atomic_load(&shared->polls),
               atomic_load(&shared->reads), atomic_load(&shared->computes), atomic_load(&shared->spawned));
        printf("# signals: SIGUSR1 %u sent, %lu received; SIGRTMIN %u sent, %lu received (values %lu/%lu, %lu bad siginfo)\n",
               usr1_sent, usr1_got, rt_sent, rt_got, atomic_load(&shared->rt_value_sum), rt_value_sent,
               atomic_load(&shared->rt_bad_info));
        printf("# checks: %u KSM (%u wrong), %u thread policies (%u wrong)\n", ksm_checks, ksm_bad, policy_checks,
               policy_bad);

#define CHECK(cond, ...)                                     \
        do {                                                 \
                if (cond)                                    \
                        printf("ok - " __VA_ARGS__);         \
                else {                                       \
                        printf("not ok - " __VA_ARGS__);     \
                        failures++;                          \
                }                                            \
                printf("\n");                                \
        } while (0)

        CHECK(applied >= injections * 2 / 3 && not_applied == 0, "%u injections applied, %u not", applied, not_applied);
        CHECK(in_syscall > 0, "some threads were stopped inside a syscall (%lu)", in_syscall);
        CHECK(usr1_got == usr1_sent && usr1_lost == 0, "no SIGUSR1 lost (%u sent, %lu received)", usr1_sent, usr1_got);
        CHECK(rt_got == rt_sent && atomic_load(&shared->rt_value_sum) == rt_value_sent &&
                      atomic_load(&shared->rt_bad_info) == 0,
              "every SIGRTMIN arrived with its value and sender (%u sent, %lu received)", rt_sent, rt_got);
        CHECK(atomic_load(&shared->errors) == 0, "no corrupted syscall result in the target (%lu; first: %s)",
              atomic_load(&shared->errors), shared->first_error[0] ? shared->first_error : "none");
        if (ksm_ok)
                CHECK(ksm_bad == 0 && ksm_checks > 0, "mg follows PR_SET_MEMORY_MERGE (%u checks)", ksm_checks);
        if (mempolicy_ok)
                CHECK(policy_bad == 0 && policy_checks > 0, "the task policy is right in every thread (%u checks)",
                      policy_checks);
        printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
        return failures ? 1 : 0;
}
