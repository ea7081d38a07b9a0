/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* policyd-inject --serve end to end, without systemd: the built helper runs
 * with one end of a socketpair as standard input, as policyd-inject@.service
 * runs it, and gets a request line with a pidfd attached, as policyd sends
 * it. Each case checks the reply, and for the applied ones the target's
 * threads from outside.
 *
 *   test-inject-serve PATH-TO-policyd-inject
 *
 * On a kernel without PR_SET_MEMORY_MERGE (before 6.4) the KSM request is
 * expected to fail with EINVAL, and the memory policy still to be set. */
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <dirent.h>

#include "inject.h"
#include "inject-serve.h"
#include "inject-test-util.h"
#include "inject-wire.h"

static const char *helper;
static int failures;

__attribute__((format(printf, 2, 3)))
static void check(bool ok, const char *fmt, ...) {
        va_list ap;

        printf("%s - ", ok ? "ok" : "not ok");
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        if (!ok)
                failures++;
}

static int pidfd_of(pid_t pid) {
        return (int) syscall(SYS_pidfd_open, pid, 0);
}

/* Reads one reply line from sock into reply, NUL-terminated ("" for none). */
static void read_reply(int sock, char *reply, size_t size) {
        size_t len = 0;

        while (len + 1 < size) {
                ssize_t k = read(sock, reply + len, size - 1 - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                len += (size_t) k;
                if (reply[len - 1] == '\n')
                        break;
        }
        reply[len] = '\0';
}

/* Sends line with fds (n of them) on sock, reads the reply line. */
static int exchange(int sock, const char *line, const int *fds, size_t n, char *reply, size_t size) {
        union {
                struct cmsghdr h;
                char b[CMSG_SPACE(sizeof(int) * 2)];
        } control = {};
        struct iovec iov = { (void *) line, strlen(line) };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

        if (n > 0) {
                mh.msg_control = &control;
                mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
                struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
                if (!c)
                        return -EINVAL;
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int) * n);
                memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
        }
        if (line[0] != '\0' && sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
                return -errno;
        /* Done sending: a request without its newline ends here too. */
        shutdown(sock, SHUT_WR);
        read_reply(sock, reply, size);
        return 0;
}

/* Runs the helper on conn (its standard input), and waits for it. */
static int run_helper(int conn) {
        pid_t child = fork();

        if (child < 0)
                return -errno;
        if (child == 0) {
                if (dup2(conn, STDIN_FILENO) < 0)
                        _exit(127);
                execl(helper, helper, "--serve", (char *) NULL);
                _exit(127);
        }
        close(conn);
        return child;
}

static int wait_helper(pid_t child) {
        int status;

        if (waitpid(child, &status, 0) < 0)
                return -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* One request over a socketpair: the reply, and the helper's exit status. */
static int request(const char *line, const int *fds, size_t n, char *reply, size_t size) {
        int sv[2], r;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                abort();
        pid_t child = run_helper(sv[1]);
        if (child < 0)
                abort();
        r = exchange(sv[0], line, fds, n, reply, size);
        close(sv[0]);
        int status = wait_helper(child);
        if (r < 0)
                snprintf(reply, size, "(sendmsg: %s)", strerror(-r));
        return status;
}

/* The reply without its newline, for a message. */
static const char *oneline(char *reply) {
        reply[strcspn(reply, "\n")] = '\0';
        return reply;
}

static bool has(const char *reply, const char *key, const char *want) {
        char got[512];
        return inject_wire_get(reply, key, got, sizeof(got)) == 0 && strcmp(got, want) == 0;
}

static bool contains(const char *reply, const char *key, const char *part) {
        char got[512];
        return inject_wire_get(reply, key, got, sizeof(got)) == 0 && strstr(got, part);
}

/* ---- the target: three threads that sleep ---- */

static void *sleeper(void *arg) {
        (void) arg;
        for (;;)
                pause();
        return NULL;
}

static pid_t spawn_target(void) {
        int p[2];
        char c;

        if (pipe(p) < 0)
                abort();
        pid_t pid = fork();
        if (pid == 0) {
                pthread_t t;
                close(p[0]);
                for (int i = 0; i < 2; i++)
                        if (pthread_create(&t, NULL, sleeper, NULL) != 0)
                                _exit(1);
                if (write(p[1], "r", 1) != 1)
                        _exit(1);
                sleeper(NULL);
        }
        close(p[1]);
        if (read(p[0], &c, 1) != 1)
                abort();
        close(p[0]);
        return pid;
}

/* Every thread's task policy, read from outside, is want (numa_maps'). */
static bool every_thread_has(pid_t pid, const char *want, unsigned *ret_threads) {
        char path[64];
        struct dirent *de;
        bool ok = true;
        unsigned n = 0;

        snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        DIR *d = opendir(path);
        if (!d)
                return false;
        while ((de = readdir(d))) {
                char got[64];
                if (atoi(de->d_name) <= 0)
                        continue;
                n++;
                if (inject_read_task_policy(pid, atoi(de->d_name), got, sizeof(got)) < 0 || strcmp(got, want) != 0)
                        ok = false;
        }
        closedir(d);
        *ret_threads = n;
        return ok && n > 0;
}

static void check_apply_and_undo(bool ksm_works, bool ask_ksm) {
        char line[256], reply[2048];
        pid_t target = spawn_target();
        int pidfd = pidfd_of(target);
        unsigned threads = 0;
        int status;

        /* On. */
        snprintf(line, sizeof(line), "pid=%d ksm=%s mempolicy=preferred:0 timeout_ms=5000\n", (int) target,
                 ask_ksm ? "1" : "-");
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        printf("# %s", reply);
        if (!ask_ksm)
                check(status == 0 && has(reply, "outcome", "applied") && has(reply, "verified_ksm", "-") &&
                              has(reply, "verified_mempolicy", "prefer:0") && has(reply, "threads", "3"),
                      "applied: mempolicy preferred:0 in 3 threads, KSM not asked");
        else if (ksm_works)
                check(status == 0 && has(reply, "outcome", "applied") && has(reply, "verified_ksm", "yes") &&
                              has(reply, "verified_mempolicy", "prefer:0") && has(reply, "threads", "3") &&
                              has(reply, "stuck", "0") && inject_read_ksm(target) == 1,
                      "applied: KSM on (mg seen) and preferred:0 in 3 threads");
        else
                check(status == 0 && has(reply, "outcome", "failed") && contains(reply, "error", "EINVAL") &&
                              contains(reply, "error", "PR_SET_MEMORY_MERGE") && has(reply, "verified_ksm", "no") &&
                              has(reply, "verified_mempolicy", "prefer:0"),
                      "failed: this kernel has no PR_SET_MEMORY_MERGE (EINVAL), and preferred:0 was still set");
        bool all = every_thread_has(target, "prefer:0", &threads);
        check(all && threads == 3, "from outside: prefer:0 in every thread's numa_maps (%u threads)", threads);

        /* A query reads the same back, and injects nothing. */
        snprintf(line, sizeof(line), "pid=%d query=1\n", (int) target);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        char exe[PATH_MAX], want_exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", want_exe, sizeof(want_exe) - 1);
        want_exe[n > 0 ? n : 0] = '\0';
        check(status == 0 && has(reply, "outcome", "queried") && has(reply, "verified_mempolicy", "prefer:0") &&
                      has(reply, "verified_ksm", ask_ksm && ksm_works ? "yes" : "no") && has(reply, "threads", "0") &&
                      inject_wire_get(reply, "exe", exe, sizeof(exe)) == 0 && strcmp(exe, want_exe) == 0,
              "query: outcome queried, exe %s, the same state read back (%s)", want_exe, oneline(reply));

        /* Off. */
        snprintf(line, sizeof(line), "pid=%d ksm=%s mempolicy=default\n", (int) target,
                 ask_ksm && ksm_works ? "0" : "-");
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        printf("# %s", reply);
        check(status == 0 && has(reply, "outcome", "applied") &&
                      has(reply, "verified_ksm", ask_ksm && ksm_works ? "no" : "-") &&
                      has(reply, "verified_mempolicy", "default") && every_thread_has(target, "default", &threads),
              "undone: mempolicy default in every thread%s", ask_ksm && ksm_works ? ", no mg" : "");

        /* Exited and reaped: the pidfd says so, whatever has the PID now. */
        kill(target, SIGKILL);
        waitpid(target, NULL, 0);
        snprintf(line, sizeof(line), "pid=%d mempolicy=default\n", (int) target);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "vanished"), "a reaped process: vanished (%s)", oneline(reply));
        close(pidfd);
}

static void check_malformed(void) {
        static const struct {
                const char *rest;      /* after "pid=TARGET " */
                int fds;               /* 0, 1 (its pidfd), 2 (its pidfd twice), -1 (our own pidfd) */
                const char *error;
        } cases[] = {
                { "ksm=2\n", 1, "ksm= takes 1, 0 or -" },
                { "ksm=1 foo=bar\n", 1, "unknown key 'foo'" },
                { "ksm=1", 1, "not ended by a newline" },
                { "ksm=1\n", 0, "no pidfd attached" },
                { "ksm=1\n", 2, "more than one file descriptor" },
                { "ksm=1\n", -1, "the pidfd is of PID" },
        };
        pid_t target = spawn_target();
        int pidfd = pidfd_of(target), self = pidfd_of(getpid());

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char line[256], reply[2048];
                int fds[2] = { cases[i].fds < 0 ? self : pidfd, pidfd };
                int status;

                if (cases[i].rest)
                        snprintf(line, sizeof(line), "pid=%d %s", (int) target, cases[i].rest);
                else
                        line[0] = '\0';
                status = request(line, fds, cases[i].fds < 0 ? 1 : (size_t) cases[i].fds, reply, sizeof(reply));
                check(status == 0 && has(reply, "outcome", "error") && contains(reply, "error", cases[i].error),
                      "malformed request %zu: error '%s' (%s)", i, cases[i].error, oneline(reply));
        }

        /* Nothing at all: a link policyd opened ahead and closed unused. No
         * reply, and no failure: the helper's unit must not end failed. */
        {
                char reply[2048];
                int status = request("", NULL, 0, reply, sizeof(reply));
                check(status == 0 && reply[0] == '\0',
                      "a connection closed before any request: no reply, exit status %d (%s)", status,
                      oneline(reply));
        }

        /* A plain file is no pidfd. */
        int plain = open("/dev/null", O_RDONLY | O_CLOEXEC);
        char line[64], reply[2048];
        snprintf(line, sizeof(line), "pid=%d ksm=1\n", (int) target);
        int status = request(line, &plain, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "error") && contains(reply, "error", "not a pidfd"),
              "a plain file attached: not a pidfd (%s)", oneline(reply));
        close(plain);

        /* The target is untouched by all of that. */
        unsigned threads;
        check(every_thread_has(target, "default", &threads), "the target kept its default policy");
        kill(target, SIGKILL);
        waitpid(target, NULL, 0);
        close(pidfd);
        close(self);
}

static void check_refused(void) {
        char reply[2048];
        int pidfd = pidfd_of(1);
        int status = request("pid=1 ksm=1 mempolicy=default\n", &pidfd, 1, reply, sizeof(reply));

        check(status == 0 && has(reply, "outcome", "refused") && has(reply, "reason", "PID 1") &&
                      has(reply, "insn", "-"),
              "PID 1: refused (%s)", oneline(reply));
        close(pidfd);

        /* The caller itself (policyd, in real life). */
        char line[64];
        pidfd = pidfd_of(getpid());
        snprintf(line, sizeof(line), "pid=%d mempolicy=default\n", (int) getpid());
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "refused") && has(reply, "reason", "our own process"),
              "the caller itself: refused (%s)", oneline(reply));
        close(pidfd);
}

/* migrate=: migrate_pages, nothing stopped. Node 0 exists everywhere, so
 * pages on it stay where they are; a node the machine lacks is the
 * kernel's EINVAL, reported as failed. */
static void check_migrate(void) {
        char line[64], reply[2048];
        pid_t target = spawn_target();
        int pidfd = pidfd_of(target);
        int status;

        snprintf(line, sizeof(line), "pid=%d migrate=0\n", (int) target);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        char not_moved[32] = "";
        (void) inject_wire_get(reply, "not_moved", not_moved, sizeof(not_moved));
        check(status == 0 && has(reply, "outcome", "applied") && not_moved[0] >= '0' && not_moved[0] <= '9' &&
                      has(reply, "threads", "0") && has(reply, "insn", "-"),
              "migrate to node 0: applied, not_moved a count, no thread stopped (%s)", oneline(reply));

        snprintf(line, sizeof(line), "pid=%d migrate=1023\n", (int) target);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "failed") && contains(reply, "error", "migrate_pages: E") &&
                      has(reply, "not_moved", "-"),
              "migrate to a node the machine lacks: failed with the kernel's errno (%s)", oneline(reply));

        snprintf(line, sizeof(line), "pid=%d migrate=0 ksm=1\n", (int) target);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "error") && contains(reply, "error", "migrate= takes no"),
              "migrate= with ksm=: error (%s)", oneline(reply));

        unsigned threads;
        check(every_thread_has(target, "default", &threads) && threads == 3,
              "the target kept its threads and its default policy");

        kill(target, SIGKILL);
        waitpid(target, NULL, 0);
        snprintf(line, sizeof(line), "pid=%d migrate=0\n", (int) target);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "vanished") && has(reply, "not_moved", "-"),
              "migrate of a reaped process: vanished (%s)", oneline(reply));
        close(pidfd);

        /* A kernel thread has no pages of its own to move. */
        pidfd = pidfd_of(2);
        if (pidfd >= 0) {
                status = request("pid=2 migrate=0\n", &pidfd, 1, reply, sizeof(reply));
                check(status == 0 && has(reply, "outcome", "refused") && has(reply, "reason", "kernel thread"),
                      "migrate of kthreadd: refused (%s)", oneline(reply));
                close(pidfd);
        }
}

/* A target that becomes nobody (65534) before its threads start, and
 * says it may be dumped again (PR_SET_DUMPABLE 1) only when asked:
 * changing its uids made it undumpable. */
static pid_t spawn_nobody_target(bool dumpable) {
        int p[2];
        char c;

        if (pipe(p) < 0)
                abort();
        pid_t pid = fork();
        if (pid == 0) {
                pthread_t t;
                close(p[0]);
                if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
                    setresuid(65534, 65534, 65534) < 0)
                        _exit(100);
                if (dumpable && prctl(PR_SET_DUMPABLE, 1) < 0)
                        _exit(101);
                for (int i = 0; i < 2; i++)
                        if (pthread_create(&t, NULL, sleeper, NULL) != 0)
                                _exit(1);
                if (write(p[1], "r", 1) != 1)
                        _exit(1);
                sleeper(NULL);
        }
        close(p[1]);
        if (read(p[0], &c, 1) != 1) {
                close(p[0]);
                waitpid(pid, NULL, 0);
                return -1;
        }
        close(p[0]);
        return pid;
}

static void stop_target(pid_t pid, int pidfd) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(pidfd);
}

/* for_uid=: a request that acts for a user reaches only that user's own
 * process (process-trust.h), and leaves the others as they were. */
static void check_for_uid(void) {
        char line[128], reply[2048];
        unsigned threads;
        uid_t other = getuid() == 65534 ? 65533 : 65534;
        pid_t target = spawn_target();
        int pidfd = pidfd_of(target), status;

        /* Our own child, for another uid: refused before anything is stopped. */
        snprintf(line, sizeof(line), "pid=%d mempolicy=interleave:0 for_uid=%u\n", (int) target, (unsigned) other);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "refused") && contains(reply, "reason", "another uid") &&
                      has(reply, "insn", "-") && has(reply, "threads", "0"),
              "another uid's request: refused (%s)", oneline(reply));
        snprintf(line, sizeof(line), "pid=%d migrate=0 for_uid=%u\n", (int) target, (unsigned) other);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "refused") && contains(reply, "reason", "another uid") &&
                      has(reply, "not_moved", "-"),
              "another uid's migration: refused (%s)", oneline(reply));
        check(every_thread_has(target, "default", &threads) && threads == 3, "the target kept its default policy");
        /* For root (0, or no for_uid=): the injector's other rules alone. */
        snprintf(line, sizeof(line), "pid=%d mempolicy=interleave:0 for_uid=0\n", (int) target);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "applied"), "root's request: applied (%s)", oneline(reply));
        stop_target(target, pidfd);

        if (getuid() != 0) {
                printf("# for_uid= of the target's own user: skipped, we cannot make one\n");
                return;
        }
        /* nobody's own process, for nobody: undumpable after setresuid(),
         * then dumpable again. */
        target = spawn_nobody_target(false);
        if (target < 0) {
                printf("# for_uid= of the target's own user: skipped, cannot become nobody\n");
                return;
        }
        pidfd = pidfd_of(target);
        snprintf(line, sizeof(line), "pid=%d mempolicy=interleave:0 for_uid=65534\n", (int) target);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "refused") && contains(reply, "reason", "not dumpable"),
              "nobody's undumpable process, for nobody: refused (%s)", oneline(reply));
        stop_target(target, pidfd);

        target = spawn_nobody_target(true);
        if (target < 0)
                return;
        pidfd = pidfd_of(target);
        snprintf(line, sizeof(line), "pid=%d mempolicy=interleave:0 for_uid=65534\n", (int) target);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "applied") && has(reply, "threads", "3"),
              "nobody's own process, for nobody: applied (%s)", oneline(reply));
        snprintf(line, sizeof(line), "pid=%d migrate=0 for_uid=65534\n", (int) target);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "applied"), "nobody's own migration, for nobody: applied (%s)",
              oneline(reply));
        snprintf(line, sizeof(line), "pid=%d mempolicy=default for_uid=1\n", (int) target);
        status = request(line, &pidfd, 1, reply, sizeof(reply));
        check(status == 0 && has(reply, "outcome", "refused") && contains(reply, "reason", "another uid"),
              "nobody's process, for uid 1: refused (%s)", oneline(reply));
        stop_target(target, pidfd);
}

/* SO_PEERCRED of a socketpair is its creator's, so a caller that is not
 * root connects to a listening socket instead. */
static void check_not_root(void) {
        char dir[] = "/tmp/test-inject-serve.XXXXXX", reply[2048] = "";
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int listener, status;

        if (getuid() != 0) {
                printf("# a caller that is not root: skipped, we are not root\n");
                return;
        }
        if (!mkdtemp(dir) || chmod(dir, 0755) < 0)
                abort();
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/socket", dir);
        listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (listener < 0 || bind(listener, (struct sockaddr *) &sa, sizeof(sa)) < 0 || listen(listener, 1) < 0 ||
            chmod(sa.sun_path, 0666) < 0)
                abort();

        int p[2];
        if (pipe(p) < 0)
                abort();
        pid_t client = fork();
        if (client == 0) {
                close(p[0]);
                int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                int fd = pidfd_of(getpid());
                char line[64];
                if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
                        _exit(100);
                if (connect(s, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                        _exit(101);
                snprintf(line, sizeof(line), "pid=%d ksm=1\n", (int) getpid());
                if (exchange(s, line, &fd, 1, reply, sizeof(reply)) < 0)
                        _exit(102);
                _exit(write(p[1], reply, strlen(reply)) < 0 ? 103 : 0);
        }
        close(p[1]);
        int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (conn < 0)
                abort();
        pid_t server = run_helper(conn);
        ssize_t n = read(p[0], reply, sizeof(reply) - 1);
        reply[n > 0 ? n : 0] = '\0';
        close(p[0]);
        waitpid(client, &status, 0);
        int helper_status = wait_helper(server);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 100)
                printf("# a caller that is not root: skipped, cannot become nobody\n");
        else
                check(helper_status == 0 && has(reply, "outcome", "error") &&
                              contains(reply, "error", "permission denied: the caller is uid 65534"),
                      "a caller that is not root: error (%s)", oneline(reply));
        close(listener);
        unlink(sa.sun_path);
        rmdir(dir);
}

/* The bits of one Cap*: line of /proc/self/status. */
static unsigned long long cap_line(const char *key) {
        char line[256];
        unsigned long long v = 0;
        size_t n = strlen(key);
        FILE *f = fopen("/proc/self/status", "re");

        if (!f)
                abort();
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, key, n) == 0 && line[n] == ':')
                        v = strtoull(line + n + 1, NULL, 16);
        fclose(f);
        return v;
}

/* Every request but a root migration drops CAP_SYS_NICE: from every set,
 * and nothing else (in a child, which may hold both). */
static void check_cap_drop(void) {
        const unsigned long long nice = 1ULL << 23, ptrace = 1ULL << 19;
        int p[2];
        char out[8] = "";
        pid_t child;

        if (pipe(p) < 0)
                abort();
        child = fork();
        if (child < 0)
                abort();
        if (child == 0) {
                unsigned long long ptrace_before = cap_line("CapEff") & ptrace;
                int r = inject_drop_cap_sys_nice();
                bool ok = r == 0 && !((cap_line("CapEff") | cap_line("CapPrm") | cap_line("CapInh") |
                                       cap_line("CapAmb")) & nice) &&
                          (cap_line("CapEff") & ptrace) == ptrace_before;
                (void) !write(p[1], ok ? "1" : "0", 1);
                _exit(0);
        }
        close(p[1]);
        (void) !read(p[0], out, 1);
        close(p[0]);
        waitpid(child, NULL, 0);
        check(out[0] == '1', "CAP_SYS_NICE dropped from every set, CAP_SYS_PTRACE kept");
}

/* Sends line with one fd on sock and reads the reply line, leaving the
 * connection open for the next request. */
static void exchange_open(int sock, const char *line, int fd, char *reply, size_t size) {
        union {
                struct cmsghdr h;
                char b[CMSG_SPACE(sizeof(int))];
        } control = {};
        struct iovec iov = { (void *) line, strlen(line) };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control,
                             .msg_controllen = sizeof(control) };
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

        if (!c)
                abort();
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof(int));
        if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0) {
                snprintf(reply, size, "(sendmsg: %s)", strerror(errno));
                return;
        }
        read_reply(sock, reply, size);
}

/* One helper answers one request after another on its connection, as
 * policyd sends them: a query, an injection, an undo; then a root
 * migration, which only a connection's first request may be (CAP_SYS_NICE
 * went with the first), is refused and ends the connection. */
static void check_one_connection(void) {
        char line[256], reply[2048];
        pid_t target = spawn_target();
        int pidfd = pidfd_of(target), sv[2];
        unsigned threads = 0;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                abort();
        pid_t child = run_helper(sv[1]);
        if (child < 0)
                abort();

        snprintf(line, sizeof(line), "pid=%d query=1\n", (int) target);
        exchange_open(sv[0], line, pidfd, reply, sizeof(reply));
        check(has(reply, "outcome", "queried") && has(reply, "last", "0"),
              "one connection, request 1: queried, and the connection goes on (%s)", oneline(reply));

        snprintf(line, sizeof(line), "pid=%d mempolicy=preferred:0 timeout_ms=5000\n", (int) target);
        exchange_open(sv[0], line, pidfd, reply, sizeof(reply));
        check(has(reply, "outcome", "applied") && every_thread_has(target, "prefer:0", &threads) && threads == 3,
              "one connection, request 2: applied, prefer:0 in every thread from outside (%s)", oneline(reply));

        snprintf(line, sizeof(line), "pid=%d mempolicy=default\n", (int) target);
        exchange_open(sv[0], line, pidfd, reply, sizeof(reply));
        check(has(reply, "outcome", "applied") && every_thread_has(target, "default", &threads),
              "one connection, request 3: undone, default in every thread (%s)", oneline(reply));

        /* A process gone and reaped is no reason to end the connection. */
        pid_t gone = fork();
        if (gone == 0)
                _exit(0);
        int gone_fd = pidfd_of(gone);
        waitpid(gone, NULL, 0);
        snprintf(line, sizeof(line), "pid=%d query=1\n", (int) gone);
        exchange_open(sv[0], line, gone_fd, reply, sizeof(reply));
        close(gone_fd);
        check(has(reply, "outcome", "vanished") && has(reply, "last", "0"),
              "one connection: a reaped process is vanished, and the connection goes on (%s)", oneline(reply));
        snprintf(line, sizeof(line), "pid=%d query=1\n", (int) target);
        exchange_open(sv[0], line, pidfd, reply, sizeof(reply));
        check(has(reply, "outcome", "queried"), "one connection: the request after it is answered (%s)",
              oneline(reply));

        snprintf(line, sizeof(line), "pid=%d migrate=0 for_uid=0\n", (int) target);
        exchange_open(sv[0], line, pidfd, reply, sizeof(reply));
        check(has(reply, "outcome", "error") && contains(reply, "error", "first request") && has(reply, "last", "1"),
              "one connection, request 4: a root migration after others is refused (%s)", oneline(reply));
        /* And the helper is gone: no reply to a fifth, and it exited. */
        snprintf(line, sizeof(line), "pid=%d query=1\n", (int) target);
        exchange_open(sv[0], line, pidfd, reply, sizeof(reply));
        int status = wait_helper(child);
        check(reply[0] == '\0' || strstr(reply, "sendmsg"), "after an error reply the connection ends (%s)",
              oneline(reply));
        check(status == 0, "the helper exited with status %d", status);
        close(sv[0]);

        /* A client that closes after its replies ends the helper at once. */
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                abort();
        child = run_helper(sv[1]);
        snprintf(line, sizeof(line), "pid=%d query=1\n", (int) target);
        exchange_open(sv[0], line, pidfd, reply, sizeof(reply));
        exchange_open(sv[0], line, pidfd, reply, sizeof(reply));
        check(has(reply, "outcome", "queried"), "two queries on one connection (%s)", oneline(reply));
        close(sv[0]);
        status = wait_helper(child);
        check(status == 0, "closed by the client: the helper exited with status %d", status);

        stop_target(target, pidfd);
}

/* ensure=1, one request a move: the helper reads first and sets only what
 * differs; a process that has it all is not stopped (threads=0, queried). An
 * undo (mempolicy_if=) leaves a policy that is not the one policyd set. */
static void check_ensure(bool ksm_works, bool ask_ksm) {
        const char *ksm = ask_ksm && ksm_works ? "1" : "-";
        char line[256], reply[2048], want_exe[PATH_MAX];
        pid_t target = spawn_target();
        int pidfd = pidfd_of(target), sv[2];
        unsigned threads = 0;
        ssize_t n = readlink("/proc/self/exe", want_exe, sizeof(want_exe) - 1);

        want_exe[n > 0 ? n : 0] = '\0';
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                abort();
        pid_t child = run_helper(sv[1]);
        if (child < 0)
                abort();

        snprintf(line, sizeof(line), "pid=%d ksm=%s mempolicy=preferred:0 timeout_ms=5000 ensure=1\n", (int) target, ksm);
        exchange_open(sv[0], line, pidfd, reply, sizeof(reply));
        check(has(reply, "outcome", "applied") && has(reply, "threads", "3") && has(reply, "exe", want_exe) &&
                      has(reply, "set", *ksm == '1' ? "ksm,mempolicy" : "mempolicy") &&
                      every_thread_has(target, "prefer:0", &threads),
              "ensure: what differs is set, in 3 stopped threads, and the reply names it and the exe (%s)",
              oneline(reply));

        exchange_open(sv[0], line, pidfd, reply, sizeof(reply));
        check(has(reply, "outcome", "queried") && has(reply, "threads", "0") && has(reply, "set", "-") &&
                      has(reply, "verified_mempolicy", "prefer:0") && has(reply, "exe", want_exe) &&
                      has(reply, "last", "0"),
              "ensure again: nothing differs, nothing stopped, answered as a query (%s)", oneline(reply));

        /* An undo of a policy the process no longer has (someone set another). */
        snprintf(line, sizeof(line), "pid=%d mempolicy=default ensure=1 mempolicy_if=bind:0\n", (int) target);
        exchange_open(sv[0], line, pidfd, reply, sizeof(reply));
        check(has(reply, "outcome", "queried") && every_thread_has(target, "prefer:0", &threads),
              "ensure undo, mempolicy_if= not what it has: left alone (%s)", oneline(reply));

        snprintf(line, sizeof(line), "pid=%d ksm=%s mempolicy=default ensure=1 mempolicy_if=preferred:0\n",
                 (int) target, *ksm == '1' ? "0" : "-");
        exchange_open(sv[0], line, pidfd, reply, sizeof(reply));
        check(has(reply, "outcome", "applied") && has(reply, "set", *ksm == '1' ? "ksm,mempolicy" : "mempolicy") &&
                      every_thread_has(target, "default", &threads) && (*ksm != '1' || inject_read_ksm(target) == 0),
              "ensure undo, mempolicy_if= what it has: taken back (%s)", oneline(reply));

        /* Gone before the reading: vanished, and the connection goes on. */
        pid_t gone = fork();
        if (gone == 0)
                _exit(0);
        int gone_fd = pidfd_of(gone);
        waitpid(gone, NULL, 0);
        snprintf(line, sizeof(line), "pid=%d ksm=1 ensure=1\n", (int) gone);
        exchange_open(sv[0], line, gone_fd, reply, sizeof(reply));
        close(gone_fd);
        check(has(reply, "outcome", "vanished") && has(reply, "last", "0"), "ensure, a reaped process: vanished (%s)",
              oneline(reply));
        close(sv[0]);
        int status = wait_helper(child);
        check(status == 0, "ensure: the helper exited with status %d", status);
        stop_target(target, pidfd);
}

int main(int argc, char **argv) {
        bool ksm_works, ask_ksm = true;

        setvbuf(stdout, NULL, _IOLBF, 0);
        if (argc != 2) {
                fprintf(stderr, "usage: %s PATH-TO-policyd-inject\n", argv[0]);
                return 2;
        }
        helper = argv[1];
        /* A package build runs its tests as a user (sbuild, pbuilder with a
         * build user): --serve answers root alone (SO_PEERCRED), so every
         * request would be refused, as check_not_root() shows as root. */
        if (getuid() != 0)
                skip("policyd-inject --serve answers root alone, and this test does not run as root");
        preflight_ptrace();
        if (in_child(try_mempolicy) < 0)
                skip("set_mempolicy fails in a plain process");
        ksm_works = in_child(try_ksm) == 0;
        printf("# PR_SET_MEMORY_MERGE %s on this kernel\n", ksm_works ? "works" : "fails");
#ifdef UNDER_ASAN
        printf("# KSM not asked under ASan (turning it off walks the whole shadow mapping)\n");
        ask_ksm = false;
#endif

        check_apply_and_undo(ksm_works, ask_ksm);
        check_malformed();
        check_refused();
        check_migrate();
        check_for_uid();
        check_not_root();
        check_cap_drop();
        check_one_connection();
        check_ensure(ksm_works, ask_ksm);

        printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
        return failures ? 1 : 0;
}
