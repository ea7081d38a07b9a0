/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The process layer's part of the system benchmark (bench/run-system
 * --only=process, bench/system-guest.sh), in the VM:
 *
 *   bench-process quiet     a quiet process: anonymous memory, a few
 *                           threads, and then nothing (no fork, no exec);
 *   bench-process move      moves a quiet process into a member cgroup by a
 *                           write to cgroup.procs and back, and times each
 *                           way until the kernel shows the change (policyd),
 *                           interleaved with the same change made by one
 *                           bare injection (the helper's socket, or its
 *                           command line): the floor;
 *   bench-process forkexec  fork and exec at a rate in its own cgroup; each
 *                           child checks that it has what its parent had;
 *   bench-process child     what forkexec execs;
 *   bench-process wait      waits until a process shows the change, or
 *                           shows none of it;
 *   bench-process churn     moves a quiet process in and out of a member
 *                           cgroup at a period, while a second thread
 *                           samples its state: how far behind it was;
 *   bench-process many      moves many quiet processes into a member
 *                           cgroup at once and back, each timed until it
 *                           shows the change; interleaved with the same
 *                           done by sequential floor requests.
 *
 * "Applied" is read from outside, as issue 9 asks: `mg` in the VmFlags of
 * /proc/PID/smaps, and the task policy in the numa_maps of every thread.
 * Each prints "key=value" lines for bench/system-report. Any error ends it
 * with a message and status 1; so does a wait that times out, with what
 * the kernel showed instead. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Not system-common: the children of forkexec exec this program, and
 * should not load libsystemd to do it. */
#define CGROUP_ROOT "/sys/fs/cgroup"

extern char **environ;

__attribute__((noreturn, format(printf, 1, 2))) static void die(const char *format, ...) {
        va_list ap;

        fflush(stdout);
        fputs("bench-process: ", stderr);
        va_start(ap, format);
        vfprintf(stderr, format, ap);
        va_end(ap);
        fputc('\n', stderr);
        exit(1);
}

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

#define MAX_CPU 8U
#define MAX_MODES 3U

typedef struct Options {
        pid_t pid;
        const char *to, *home;
        unsigned count;
        const char *modes;
        const char *ksm_on;        /* the request's value: 1 */
        const char *mempolicy;     /* the injector's spelling: interleave:0-1 */
        const char *numa_maps;     /* numa_maps' spelling of it */
        const char *injector;
        const char *socket_path;
        unsigned interval_us;
        unsigned gap_ms;
        unsigned floor_every;
        double timeout_sec;
        unsigned mib, threads;
        double rate, duration_sec;
        unsigned hold_ms;
        unsigned check_every;
        double wait_applied_sec;
        unsigned settle_ms;
        const char *want;
        unsigned period_ms, sample_ms, stable_ms;
        const char *pids;
        pid_t policyd;
        char *cpu[MAX_CPU];
        unsigned n_cpu;
} Options;

static Options arg = {
        .count = 200,
        .modes = "policyd,socket,cli",
        .mempolicy = "interleave:0-1",
        .numa_maps = "interleave:0-1",
        .injector = "/usr/libexec/policyd-inject",
        .socket_path = "/run/policyd-inject.socket",
        .interval_us = 1000,
        .gap_ms = 100,
        .floor_every = 1,
        .timeout_sec = 60,
        .mib = 32,
        .threads = 3,
        .rate = 100,
        .duration_sec = 30,
        .hold_ms = 50,
        .check_every = 10,
        .settle_ms = 1000,
        .want = "",
        .period_ms = 500,
        .sample_ms = 25,
        .stable_ms = 2000,
};

/* What the program is doing, for the alarm that ends a step stuck in a
 * system call (a wait has its own deadline; a read of /proc or a reply
 * does not). */
static const char *volatile step = "starting";

static void on_alarm(int sig) {
        const char *s = (const char *) step;
        (void) sig;
        (void) !write(STDERR_FILENO, "bench-process: stuck: ", 22);
        (void) !write(STDERR_FILENO, s, strlen(s));
        (void) !write(STDERR_FILENO, "\n", 1);
        _exit(1);
}

static void step_begin(const char *what) {
        static char text[128];
        snprintf(text, sizeof text, "%s", what);
        step = text;
        alarm((unsigned) arg.timeout_sec + 30);
}

/* ---- what the kernel shows of a process ---- */

typedef struct ProcessState {
        bool ksm;              /* some mapping has `mg` */
        char mempolicy[64];    /* every thread's task policy, or "mixed" */
        unsigned threads;
} ProcessState;

/* The first line of a thread's numa_maps names the task policy of a mapping
 * without one of its own. Only that line is read: the kernel makes the
 * rest lazily. */
static int read_task_policy(const char *path, char *buf, size_t size) {
        char text[512];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return -errno;
        n = read(fd, text, sizeof text - 1);
        close(fd);
        if (n <= 0)
                return n < 0 ? -errno : -ENODATA;
        text[n] = '\0';
        char *p = strchr(text, ' ');
        if (!p)
                return -EBADMSG;
        p++;
        size_t len = strcspn(p, " \n");
        snprintf(buf, size, "%.*s", (int) len, p);
        return 0;
}

static int process_state_read(pid_t pid, ProcessState *ret) {
        ProcessState s = {};
        char path[PATH_MAX], *line = NULL;
        size_t cap = 0;
        FILE *f;

        snprintf(path, sizeof path, "/proc/%d/smaps", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return -errno;
        while (!s.ksm && getline(&line, &cap, f) > 0)
                if (strncmp(line, "VmFlags:", 8) == 0 && strstr(line + 8, " mg"))
                        s.ksm = true;
        free(line);
        fclose(f);

        snprintf(path, sizeof path, "/proc/%d/task", (int) pid);
        DIR *d = opendir(path);
        if (!d)
                return -errno;
        struct dirent *de;
        while ((de = readdir(d))) {
                char policy[sizeof s.mempolicy];
                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof path, "/proc/%d/task/%s/numa_maps", (int) pid, de->d_name);
                if (read_task_policy(path, policy, sizeof policy) < 0)
                        continue; /* the thread exited */
                s.threads++;
                if (s.mempolicy[0] == '\0')
                        snprintf(s.mempolicy, sizeof s.mempolicy, "%s", policy);
                else if (strcmp(s.mempolicy, policy) != 0)
                        snprintf(s.mempolicy, sizeof s.mempolicy, "mixed");
        }
        closedir(d);
        if (s.threads == 0)
                return -ESRCH;
        *ret = s;
        return 0;
}

static bool process_state_is(const ProcessState *s, bool ksm, const char *mempolicy) {
        return s->ksm == ksm && strcmp(s->mempolicy, mempolicy) == 0;
}

/* Polls until PID shows the state; returns when it did, or dies. */
static uint64_t wait_state(pid_t pid, bool ksm, const char *mempolicy, const char *what) {
        uint64_t deadline = now_usec() + (uint64_t) (arg.timeout_sec * 1e6);
        struct timespec pause = { 0, (long) arg.interval_us * 1000 };
        ProcessState s = {};
        int r;

        for (;;) {
                r = process_state_read(pid, &s);
                if (r < 0)
                        die("%s: cannot read the state of %d: %s", what, (int) pid, strerror(-r));
                if (process_state_is(&s, ksm, mempolicy))
                        return now_usec();
                if (now_usec() > deadline)
                        die("%s: %d did not reach ksm=%s mempolicy=%s in %.0f s: it shows ksm=%s mempolicy=%s", what,
                            (int) pid, ksm ? "yes" : "no", mempolicy, arg.timeout_sec, s.ksm ? "yes" : "no",
                            s.mempolicy);
                nanosleep(&pause, NULL);
        }
}

/* ---- CPU of others ---- */

typedef struct Observed {
        uint64_t cpu_usec[MAX_CPU];
        uint64_t ticks;                /* policyd's utime + stime */
        uint64_t voluntary, involuntary; /* policyd's context switches, all threads */
} Observed;

static uint64_t cgroup_usage_usec(const char *cgroup) {
        char path[PATH_MAX], line[256];
        uint64_t v = 0;
        FILE *f;

        snprintf(path, sizeof path, "%s/%s/cpu.stat", CGROUP_ROOT, cgroup);
        f = fopen(path, "re");
        if (!f)
                return 0; /* not there yet: nothing used */
        while (fgets(line, sizeof line, f))
                if (sscanf(line, "usage_usec %" SCNu64, &v) == 1)
                        break;
        fclose(f);
        return v;
}

static void observe(Observed *o) {
        char path[PATH_MAX], buf[2048], line[256];
        *o = (Observed) {};

        for (unsigned i = 0; i < arg.n_cpu; i++)
                o->cpu_usec[i] = cgroup_usage_usec(strchr(arg.cpu[i], '=') + 1);
        if (arg.policyd <= 0)
                return;
        snprintf(path, sizeof path, "/proc/%d/stat", (int) arg.policyd);
        FILE *f = fopen(path, "re");
        if (!f)
                die("policyd (%d) is gone: %m", (int) arg.policyd);
        if (fgets(buf, sizeof buf, f)) {
                /* utime and stime are fields 14 and 15; the comm may hold spaces. */
                char *p = strrchr(buf, ')');
                unsigned long long ut = 0, st = 0;
                if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2)
                        o->ticks = ut + st;
        }
        fclose(f);
        snprintf(path, sizeof path, "/proc/%d/task", (int) arg.policyd);
        DIR *d = opendir(path);
        if (!d)
                die("%s: %m", path);
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof path, "/proc/%d/task/%s/status", (int) arg.policyd, de->d_name);
                if (!(f = fopen(path, "re")))
                        continue;
                while (fgets(line, sizeof line, f)) {
                        uint64_t v;
                        if (sscanf(line, "voluntary_ctxt_switches: %" SCNu64, &v) == 1)
                                o->voluntary += v;
                        else if (sscanf(line, "nonvoluntary_ctxt_switches: %" SCNu64, &v) == 1)
                                o->involuntary += v;
                }
                fclose(f);
        }
        closedir(d);
}

static void print_observed(const Observed *a, const Observed *b) {
        for (unsigned i = 0; i < arg.n_cpu; i++)
                printf(" cpu_%.*s_ms=%.1f", (int) (strchr(arg.cpu[i], '=') - arg.cpu[i]), arg.cpu[i],
                       (double) (b->cpu_usec[i] - a->cpu_usec[i]) / 1000.0);
        if (arg.policyd > 0)
                printf(" policyd_ticks=%" PRIu64 " policyd_voluntary=%" PRIu64 " policyd_involuntary=%" PRIu64,
                       b->ticks - a->ticks, b->voluntary - a->voluntary, b->involuntary - a->involuntary);
}

/* ---- quiet ---- */

static void *sleeper(void *p) {
        (void) p;
        for (;;)
                pause();
        return NULL;
}

static int verb_quiet(void) {
        size_t size = (size_t) arg.mib << 20;
        char *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        pthread_t t;

        if (mem == MAP_FAILED)
                die("mmap %u MiB: %m", arg.mib);
        /* Distinct pages: nothing for KSM to merge, so that the timing is of
         * the prctl, not of ksmd. */
        for (size_t i = 0; i < size; i += 4096)
                snprintf(mem + i, 32, "page %zu of %d", i, (int) getpid());
        for (unsigned i = 1; i < arg.threads; i++)
                if (pthread_create(&t, NULL, sleeper, NULL) != 0)
                        die("pthread_create failed");
        printf("quiet: pid=%d mib=%u threads=%u\n", (int) getpid(), arg.mib, arg.threads);
        fflush(stdout);
        sleeper(NULL);
        return 0;
}

/* ---- move ---- */

static void write_pid(const char *cgroup, pid_t pid) {
        char path[PATH_MAX], text[32];
        int fd, n;

        snprintf(path, sizeof path, "%s/%s/cgroup.procs", CGROUP_ROOT, cgroup);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                die("%s: %m", path);
        n = snprintf(text, sizeof text, "%d\n", (int) pid);
        if (write(fd, text, (size_t) n) != n)
                die("writing %d to %s: %m", (int) pid, path);
        close(fd);
}

/* One request on the helper's socket, as policyd makes it: the line, with
 * a pidfd of the target attached. Returns the connection, to read the
 * reply from once the change is seen. */
static int socket_request(pid_t pid, const char *ksm, const char *mempolicy) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char line[256];
        int fd, pidfd, n;

        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", arg.socket_path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                die("socket: %m");
        if (connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                die("connect %s: %m", arg.socket_path);
        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (pidfd < 0)
                die("pidfd_open %d: %m", (int) pid);
        n = snprintf(line, sizeof line, "pid=%d ksm=%s mempolicy=%s\n", (int) pid, ksm, mempolicy);
        union {
                struct cmsghdr h;
                char b[CMSG_SPACE(sizeof(int))];
        } control = {};
        struct iovec iov = { line, (size_t) n };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control,
                             .msg_controllen = sizeof control };
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &pidfd, sizeof(int));
        if (sendmsg(fd, &mh, MSG_NOSIGNAL) != n)
                die("sendmsg to %s: %m", arg.socket_path);
        close(pidfd);
        (void) shutdown(fd, SHUT_WR);
        return fd;
}

static void socket_reply(int fd, const char *what) {
        char reply[4096];
        size_t len = 0;
        ssize_t n;

        while (len < sizeof reply - 1 && (n = read(fd, reply + len, sizeof reply - 1 - len)) > 0)
                len += (size_t) n;
        reply[len] = '\0';
        close(fd);
        if (!strstr(reply, " outcome=applied "))
                die("%s: the helper answered: %s", what, len ? reply : "nothing");
}

static pid_t cli_start(pid_t pid, const char *ksm, const char *mempolicy) {
        char pid_text[16], ksm_arg[32], mempolicy_arg[128];
        char *argv[] = { (char *) arg.injector, pid_text, ksm_arg, mempolicy_arg, NULL };
        posix_spawn_file_actions_t fa;
        pid_t child;
        int r;

        snprintf(pid_text, sizeof pid_text, "%d", (int) pid);
        snprintf(ksm_arg, sizeof ksm_arg, "--ksm=%s", strcmp(ksm, "1") == 0 ? "yes" : "no");
        snprintf(mempolicy_arg, sizeof mempolicy_arg, "--mempolicy=%s", mempolicy);
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        r = posix_spawn(&child, arg.injector, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        if (r != 0)
                die("%s: %s", arg.injector, strerror(r));
        return child;
}

static void cli_wait(pid_t child, const char *what) {
        int status;
        if (waitpid(child, &status, 0) < 0)
                die("waitpid: %m");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                die("%s: %s exited with status %d", what, arg.injector, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Until the first --cpu cgroup (policyd) has used no CPU for 200 ms, at
 * most 5 s: what a sample set off is counted in that sample, and the next
 * one starts from a quiet policyd. */
static void quiet_wait(void) {
        struct timespec tick = { 0, 50 * 1000000L };
        uint64_t deadline = now_usec() + 5000000, last, now;
        unsigned still = 0;

        if (arg.n_cpu == 0) {
                struct timespec gap = { arg.gap_ms / 1000, (long) (arg.gap_ms % 1000) * 1000000L };
                nanosleep(&gap, NULL);
                return;
        }
        last = cgroup_usage_usec(strchr(arg.cpu[0], '=') + 1);
        while (still < 4 && now_usec() < deadline) {
                nanosleep(&tick, NULL);
                now = cgroup_usage_usec(strchr(arg.cpu[0], '=') + 1);
                still = now == last ? still + 1 : 0;
                last = now;
        }
}

typedef enum { MODE_POLICYD, MODE_SOCKET, MODE_CLI } Mode;
static const char *const mode_names[] = { "policyd", "socket", "cli" };

/* One sample: the change and its undo, each timed from the write (or the
 * request) until the kernel shows it. */
static void move_sample(Mode mode, unsigned i) {
        struct timespec gap = { arg.gap_ms / 1000, (long) (arg.gap_ms % 1000) * 1000000L };
        uint64_t t0, t1, t2, t3;
        Observed a, b;
        char what[64];
        int fd = -1;
        pid_t child = 0;

        snprintf(what, sizeof what, "%s %u: the change", mode_names[mode], i);
        step_begin(what);
        observe(&a);
        t0 = now_usec();
        switch (mode) {
        case MODE_POLICYD:
                write_pid(arg.to, arg.pid);
                break;
        case MODE_SOCKET:
                fd = socket_request(arg.pid, arg.ksm_on, arg.mempolicy);
                break;
        case MODE_CLI:
                child = cli_start(arg.pid, arg.ksm_on, arg.mempolicy);
                break;
        }
        t1 = wait_state(arg.pid, true, arg.numa_maps, mode_names[mode]);
        step = "the helper's reply to the change";
        if (fd >= 0)
                socket_reply(fd, "socket");
        if (child > 0)
                cli_wait(child, "cli");
        nanosleep(&gap, NULL);

        snprintf(what, sizeof what, "%s %u: the undo", mode_names[mode], i);
        step_begin(what);
        t2 = now_usec();
        switch (mode) {
        case MODE_POLICYD:
                write_pid(arg.home, arg.pid);
                break;
        case MODE_SOCKET:
                fd = socket_request(arg.pid, "0", "default");
                break;
        case MODE_CLI:
                child = cli_start(arg.pid, "0", "default");
                break;
        }
        t3 = wait_state(arg.pid, false, "default", mode_names[mode]);
        step = "the helper's reply to the undo";
        if (mode == MODE_SOCKET)
                socket_reply(fd, "socket undo");
        if (mode == MODE_CLI)
                cli_wait(child, "cli undo");
        quiet_wait();
        observe(&b);
        alarm(0);

        printf("move-sample: mode=%s i=%u apply_ms=%.2f undo_ms=%.2f", mode_names[mode], i,
               (double) (t1 - t0) / 1000.0, (double) (t3 - t2) / 1000.0);
        print_observed(&a, &b);
        putchar('\n');
        fflush(stdout);
}

/* --modes=policyd,socket,cli: into modes (MAX_MODES of them); the count. */
static unsigned parse_modes(const char *arg_modes, Mode *modes) {
        char *list = strdup(arg_modes), *save = NULL;
        unsigned n = 0;

        for (char *m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
                unsigned k;
                for (k = 0; k < MAX_MODES && strcmp(m, mode_names[k]) != 0; k++)
                        ;
                if (k == MAX_MODES || n == MAX_MODES)
                        die("--modes takes policyd, socket and cli, not '%s'", m);
                modes[n++] = (Mode) k;
        }
        free(list);
        return n;
}

static int verb_move(void) {
        Mode modes[MAX_MODES];
        unsigned n_modes;
        ProcessState s;
        int r;

        if (arg.pid <= 0 || !arg.to || !arg.home || arg.count == 0)
                die("move needs --pid, --to, --home and a positive --count");
        n_modes = parse_modes(arg.modes, modes);
        r = process_state_read(arg.pid, &s);
        if (r < 0)
                die("%d: %s", (int) arg.pid, strerror(-r));
        if (!process_state_is(&s, false, "default"))
                die("%d does not start clean: ksm=%s mempolicy=%s", (int) arg.pid, s.ksm ? "yes" : "no", s.mempolicy);
        printf("move: pid=%d threads=%u count=%u modes=%s floor_every=%u\n", (int) arg.pid, s.threads, arg.count,
               arg.modes, arg.floor_every);
        fflush(stdout);
        /* The modes take turns, in an order that rotates; the floors, which
         * vary less, in every --floor-every-th round only. */
        for (unsigned i = 0; i < arg.count; i++)
                for (unsigned k = 0; k < n_modes; k++) {
                        Mode m = modes[(k + i) % n_modes];
                        if (m == MODE_POLICYD || i % arg.floor_every == 0)
                                move_sample(m, i);
                }
        return 0;
}

/* ---- forkexec ---- */

/* Exit 0: checked and as wanted; 10: checked and not; 11: not checked. */
static int verb_child(void) {
        ProcessState s;
        struct timespec hold = { arg.hold_ms / 1000, (long) (arg.hold_ms % 1000) * 1000000L };
        int status = 11;

        if (arg.check_every > 0)
                status = process_state_read(getpid(), &s) == 0 && process_state_is(&s, true, arg.numa_maps) ? 0 : 10;
        nanosleep(&hold, NULL);
        return status;
}

static int verb_forkexec(void) {
        unsigned total = (unsigned) (arg.rate * arg.duration_sec), started = 0, reaped = 0, wanted = 0, unwanted = 0,
                 unchecked = 0, failed = 0, late = 0;
        uint64_t period = (uint64_t) (1e6 / arg.rate), start, last_start = 0, end, applied_after = 0;
        char hold_arg[32], numa_arg[160], self[PATH_MAX];
        char *argv[] = { self, (char *) "child", hold_arg, numa_arg, (char *) "--check-every=1", NULL };
        char *argv_unchecked[] = { self, (char *) "child", hold_arg, (char *) "--check-every=0", NULL };
        Observed a, b;
        ProcessState s;
        ssize_t n;

        if (total == 0)
                die("forkexec needs a positive --rate and --duration");
        n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n < 0)
                die("/proc/self/exe: %m");
        self[n] = '\0';
        snprintf(hold_arg, sizeof hold_arg, "--hold-ms=%u", arg.hold_ms);
        snprintf(numa_arg, sizeof numa_arg, "--numa-maps=%s", arg.numa_maps);

        /* With the process layer on, this process was moved into a member
         * cgroup: its children inherit what policyd injected into it. */
        if (arg.wait_applied_sec > 0) {
                double saved = arg.timeout_sec;
                uint64_t t0 = now_usec();
                arg.timeout_sec = arg.wait_applied_sec;
                applied_after = wait_state(getpid(), true, arg.numa_maps, "forkexec: the driver itself") - t0;
                arg.timeout_sec = saved;
                /* policyd reads the helper's reply after the change shows. */
                struct timespec settle = { arg.settle_ms / 1000, (long) (arg.settle_ms % 1000) * 1000000L };
                nanosleep(&settle, NULL);
        }
        if (process_state_read(getpid(), &s) < 0)
                die("cannot read my own state");

        observe(&a);
        start = now_usec();
        while (reaped < total) {
                int status;
                pid_t p;

                while ((p = waitpid(-1, &status, started < total ? WNOHANG : 0)) > 0) {
                        reaped++;
                        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                                wanted++;
                        else if (WIFEXITED(status) && WEXITSTATUS(status) == 10)
                                unwanted++;
                        else if (WIFEXITED(status) && WEXITSTATUS(status) == 11)
                                unchecked++;
                        else
                                failed++;
                }
                if (p < 0 && errno != ECHILD)
                        die("waitpid: %m");
                if (started == total)
                        continue;
                uint64_t due = start + started * period, now = now_usec();
                if (now < due) {
                        uint64_t wait = due - now;
                        struct timespec ts = { (time_t) (wait / 1000000), (long) (wait % 1000000) * 1000 };
                        nanosleep(&ts, NULL);
                        continue;
                }
                if (now - due > 10000)
                        late++;
                /* A fork and an exec, as any service's children make them. */
                pid_t child = fork();
                if (child < 0)
                        die("fork: %m");
                if (child == 0) {
                        execv(self, arg.check_every > 0 && started % arg.check_every == 0 ? argv : argv_unchecked);
                        _exit(127);
                }
                started++;
                last_start = now_usec();
        }
        end = now_usec();
        observe(&b);
        printf("forkexec: events=%u seconds=%.1f rate_asked=%g rate_achieved=%.1f late_starts=%u as_wanted=%u "
               "not_as_wanted=%u unchecked=%u failed=%u driver_pid=%d driver_ksm=%s driver_mempolicy=%s driver_threads=%u applied_after_ms=%.1f",
               total, (double) (end - start) / 1e6, arg.rate,
               total > 1 ? (total - 1) / ((double) (last_start - start) / 1e6) : 0.0, late, wanted,
               unwanted, unchecked, failed, (int) getpid(), s.ksm ? "yes" : "no", s.mempolicy, s.threads, (double) applied_after / 1000.0);
        print_observed(&a, &b);
        putchar('\n');
        return 0;
}

static int verb_wait(void) {
        uint64_t t0 = now_usec(), t1;

        if (arg.pid <= 0 || (strcmp(arg.want, "on") != 0 && strcmp(arg.want, "off") != 0))
                die("wait needs --pid and --want=on|off");
        if (strcmp(arg.want, "on") == 0)
                t1 = wait_state(arg.pid, true, arg.numa_maps, "wait");
        else
                t1 = wait_state(arg.pid, false, "default", "wait");
        printf("wait: pid=%d want=%s ms=%.1f\n", (int) arg.pid, arg.want, (double) (t1 - t0) / 1000.0);
        return 0;
}

/* ---- churn ---- */

/* What a sampler saw of a process: when the read began and ended, and
 * whether it showed the change (KSM and the policy) or none of it. */
typedef struct ChurnSample {
        uint64_t start, end;
        bool on, off;
} ChurnSample;

typedef struct Sampler {
        pid_t pid;
        uint64_t period_us;
        pthread_mutex_t lock;
        ChurnSample *samples;  /* under lock */
        size_t n, cap;
        bool stop;             /* under lock */
        int error;
} Sampler;

static void sleep_until(uint64_t t) {
        struct timespec ts = { (time_t) (t / 1000000), (long) (t % 1000000) * 1000 };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

static void *sampler_run(void *p) {
        Sampler *s = p;
        uint64_t next = now_usec();

        for (;;) {
                ProcessState st;
                ChurnSample c = { .start = now_usec() };
                int r = process_state_read(s->pid, &st);
                c.end = now_usec();
                pthread_mutex_lock(&s->lock);
                if (r < 0)
                        s->error = r;
                else {
                        c.on = process_state_is(&st, true, arg.numa_maps);
                        c.off = process_state_is(&st, false, "default");
                        if (s->n == s->cap) {
                                size_t cap = s->cap ? s->cap * 2 : 4096;
                                ChurnSample *m = realloc(s->samples, cap * sizeof *m);
                                if (!m)
                                        s->error = -ENOMEM;
                                else {
                                        s->samples = m;
                                        s->cap = cap;
                                }
                        }
                        if (s->error == 0)
                                s->samples[s->n++] = c;
                }
                bool stop = s->stop || s->error < 0;
                pthread_mutex_unlock(&s->lock);
                if (stop)
                        return NULL;
                /* On a fixed schedule; a read that took longer than the
                 * period is followed by the next at once. */
                next += s->period_us;
                if (next < now_usec())
                        next = now_usec();
                sleep_until(next);
        }
}

static int compare_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

/* Nearest rank, as bench/system-report computes it. */
static double percentile(double *v, size_t n, double p) {
        if (n == 0)
                return 0;
        qsort(v, n, sizeof *v, compare_double);
        size_t rank = (size_t) (p / 100 * (double) n + 0.999999);
        return v[(rank ? rank : 1) - 1];
}

/* Moves one process into --to and back home every --period-ms for
 * --duration seconds, by writes to cgroup.procs, while a second thread
 * reads its state from outside every --sample-ms. A sample is held
 * against the membership when its read began: in after an odd number of
 * moves. It times, for each move, the first sample that shows the new
 * membership's state before the next move (the lag), and the longest
 * stretch the state was wrong; after the last move, how long until it is
 * right and stays right for --stable-ms. */
static int verb_churn(void) {
        uint64_t period = (uint64_t) arg.period_ms * 1000, *moved, *due;
        unsigned moves = arg.period_ms > 0 ? (unsigned) (arg.duration_sec * 1000 / arg.period_ms + 0.5) : 0;
        Sampler s = { .pid = arg.pid, .period_us = (uint64_t) arg.sample_ms * 1000,
                      .lock = PTHREAD_MUTEX_INITIALIZER };
        ProcessState st;
        Observed a, b;
        pthread_t t;
        int r;

        if (arg.pid <= 0 || !arg.to || !arg.home || moves < 2 || arg.sample_ms == 0)
                die("churn needs --pid, --to, --home, and --duration at least two --period-ms");
        r = process_state_read(arg.pid, &st);
        if (r < 0)
                die("%d: %s", (int) arg.pid, strerror(-r));
        if (!process_state_is(&st, false, "default"))
                die("%d does not start clean: ksm=%s mempolicy=%s", (int) arg.pid, st.ksm ? "yes" : "no", st.mempolicy);
        moved = calloc(moves, sizeof *moved);
        due = calloc(moves, sizeof *due);
        if (!moved || !due)
                die("out of memory");

        observe(&a);
        if (pthread_create(&t, NULL, sampler_run, &s) != 0)
                die("pthread_create failed");
        /* A period of samples of the clean state first. */
        uint64_t start = now_usec() + period;
        unsigned late = 0;
        for (unsigned k = 0; k < moves; k++) {
                char what[64];
                snprintf(what, sizeof what, "churn: move %u", k);
                step_begin(what);
                due[k] = start + k * period;
                sleep_until(due[k]);
                moved[k] = now_usec();
                if (moved[k] - due[k] > 10000)
                        late++;
                write_pid(k % 2 == 0 ? arg.to : arg.home, arg.pid);
        }

        /* After the last move: until a sample shows its state and every
         * sample for --stable-ms after it does too, or --timeout. */
        bool final_in = moves % 2 == 1;
        uint64_t last = moved[moves - 1], deadline = last + (uint64_t) (arg.timeout_sec * 1e6), right_since = 0;
        size_t seen = 0;
        struct timespec tick = { 0, 50 * 1000000L };
        step_begin("churn: after the last move");
        for (;;) {
                bool done = false;
                pthread_mutex_lock(&s.lock);
                if (s.error < 0) {
                        pthread_mutex_unlock(&s.lock);
                        die("churn: cannot read the state of %d: %s", (int) arg.pid, strerror(-s.error));
                }
                for (; seen < s.n; seen++) {
                        const ChurnSample *c = &s.samples[seen];
                        if (c->start < last)
                                continue;
                        if (final_in ? c->on : c->off) {
                                if (right_since == 0)
                                        right_since = c->end;
                        } else
                                right_since = 0;
                }
                if (right_since > 0 && seen > 0 && s.samples[seen - 1].start >= right_since + (uint64_t) arg.stable_ms * 1000)
                        done = true;
                if (done || now_usec() > deadline)
                        s.stop = true;
                pthread_mutex_unlock(&s.lock);
                if (done || now_usec() > deadline)
                        break;
                nanosleep(&tick, NULL);
        }
        pthread_join(t, NULL);
        alarm(0);
        observe(&b);
        if (s.error < 0)
                die("churn: cannot read the state of %d: %s", (int) arg.pid, strerror(-s.error));

        /* Each sample against the membership when its read began. */
        double *lag = calloc(moves, sizeof *lag), *gap = calloc(s.n + 1, sizeof *gap),
               *read_ms = calloc(s.n + 1, sizeof *read_ms);
        unsigned followed = 0, after_wrong = 0, regressions = 0, n_lag = 0;
        double longest_wrong = 0;
        int longest_wrong_move = -1, wrong_move = -1;
        bool longest_open = false, previous_right = true;
        uint64_t wrong_since = 0, last_right = 0;
        size_t i = 0;
        if (!lag || !gap || !read_ms)
                die("out of memory");
        for (size_t j = 0; j < s.n; j++) {
                read_ms[j] = (double) (s.samples[j].end - s.samples[j].start) / 1000.0;
                if (j > 0)
                        gap[j - 1] = (double) (s.samples[j].start - s.samples[j - 1].start) / 1000.0;
        }
        /* Samples before the first move: the clean state. */
        for (; i < s.n && s.samples[i].start < moved[0]; i++)
                if (!s.samples[i].off)
                        die("churn: %d was not clean before the first move", (int) arg.pid);
                else
                        last_right = s.samples[i].end;
        for (unsigned k = 0; k < moves; k++) {
                uint64_t until = k + 1 < moves ? moved[k + 1] : UINT64_MAX;
                bool in = k % 2 == 0, hit = false, right = false;
                unsigned n = 0;
                double k_lag = -1;
                for (; i < s.n && s.samples[i].start < until; i++, n++) {
                        const ChurnSample *c = &s.samples[i];
                        bool ok = in ? c->on : c->off;
                        if (ok) {
                                if (!hit) {
                                        hit = true;
                                        k_lag = (double) (c->end - moved[k]) / 1000.0;
                                }
                                if (wrong_since > 0) {
                                        double w = (double) (c->end - wrong_since) / 1000.0;
                                        if (w > longest_wrong) {
                                                longest_wrong = w;
                                                longest_wrong_move = wrong_move;
                                        }
                                        wrong_since = 0;
                                }
                                last_right = c->end;
                        } else {
                                /* Wrong since this move, or since the last
                                 * sample that was right after it. */
                                if (wrong_since == 0) {
                                        wrong_since = last_right > moved[k] ? last_right : moved[k];
                                        wrong_move = (int) k;
                                }
                                if (right)
                                        regressions++;
                        }
                        right = ok;
                }
                /* The last move's lag is the convergence, below. When the
                 * state was wrong as this move came (the one before never
                 * followed, or turned back), it may be what this move calls
                 * for already: a match is then no reaction to this move,
                 * and its lag is not counted. */
                if (k + 1 < moves) {
                        if (hit) {
                                followed++;
                                if (previous_right)
                                        lag[n_lag++] = k_lag;
                                else
                                        after_wrong++;
                        }
                        printf("churn-move: k=%u way=%s late_ms=%.1f samples=%u followed=%s lag_ms=%.1f "
                               "after_wrong=%s\n", k, in ? "in" : "out", (double) (moved[k] - due[k]) / 1000.0, n,
                               hit ? "yes" : "no", hit ? k_lag : -1.0, previous_right ? "no" : "yes");
                }
                /* No sample in the window: not known to be right. */
                previous_right = n > 0 && right;
        }
        if (wrong_since > 0 && s.n > 0) {
                double w = (double) (s.samples[s.n - 1].end - wrong_since) / 1000.0;
                if (w > longest_wrong) {
                        longest_wrong = w;
                        longest_wrong_move = wrong_move;
                        longest_open = true;
                }
        }
        double gap_max = 0, read_max = 0;
        for (size_t j = 0; j < s.n; j++) {
                if (j + 1 < s.n && gap[j] > gap_max)
                        gap_max = gap[j];
                if (read_ms[j] > read_max)
                        read_max = read_ms[j];
        }
        double lag_p50 = percentile(lag, n_lag, 50), lag_p99 = percentile(lag, n_lag, 99),
               lag_max = n_lag ? lag[n_lag - 1] : 0;
        printf("churn: pid=%d threads=%u moves=%u period_ms=%u seconds=%.1f final=%s late_moves=%u samples=%zu "
               "sample_ms=%u gap_p50_ms=%.1f gap_max_ms=%.1f read_p50_ms=%.1f read_max_ms=%.1f "
               "followed=%u not_followed=%u after_wrong=%u lag_p50_ms=%.1f lag_p99_ms=%.1f lag_max_ms=%.1f "
               "longest_wrong_ms=%.1f longest_wrong_move=%d longest_wrong_open=%s regressions=%u "
               "converged=%s converge_ms=%.1f stable_ms=%u",
               (int) arg.pid, st.threads, moves, arg.period_ms, (double) (last - moved[0]) / 1e6,
               final_in ? "in" : "out", late, s.n, arg.sample_ms, percentile(gap, s.n ? s.n - 1 : 0, 50), gap_max,
               percentile(read_ms, s.n, 50), read_max, followed, moves - 1 - followed, after_wrong, lag_p50, lag_p99, lag_max,
               longest_wrong, longest_wrong_move, longest_open ? "yes" : "no", regressions,
               right_since > 0 ? "yes" : "no", right_since > 0 ? (double) (right_since - last) / 1000.0 : -1.0,
               arg.stable_ms);
        print_observed(&a, &b);
        putchar('\n');
        free(lag);
        free(gap);
        free(read_ms);
        free(moved);
        free(due);
        free(s.samples);
        return 0;
}

/* ---- many ---- */

#define MAX_MANY 256U

typedef struct Poller {
        pid_t *pids;
        unsigned n;
        bool on;
        uint64_t *done;        /* when each showed the state, 0: not yet */
        uint64_t deadline;
        char failure[256];
} Poller;

/* Reads every process not yet done, over and over, until all show the
 * state or the deadline passes. */
static void *poller_run(void *p) {
        Poller *q = p;
        struct timespec pause = { 0, (long) arg.interval_us * 1000 };
        unsigned left = q->n;

        while (left > 0) {
                for (unsigned i = 0; i < q->n; i++) {
                        ProcessState s;
                        if (q->done[i])
                                continue;
                        int r = process_state_read(q->pids[i], &s);
                        if (r < 0) {
                                snprintf(q->failure, sizeof q->failure, "cannot read the state of %d: %s",
                                         (int) q->pids[i], strerror(-r));
                                return NULL;
                        }
                        if (q->on ? process_state_is(&s, true, arg.numa_maps) : process_state_is(&s, false, "default")) {
                                q->done[i] = now_usec();
                                left--;
                        } else if (now_usec() > q->deadline) {
                                snprintf(q->failure, sizeof q->failure,
                                         "%d did not reach ksm=%s mempolicy=%s in %.0f s: it shows ksm=%s mempolicy=%s",
                                         (int) q->pids[i], q->on ? "yes" : "no", q->on ? arg.numa_maps : "default",
                                         arg.timeout_sec, s.ksm ? "yes" : "no", s.mempolicy);
                                return NULL;
                        }
                }
                nanosleep(&pause, NULL);
        }
        return NULL;
}

/* The cgroup a process is in now, below CGROUP_ROOT, without the slash. */
static char *process_cgroup(pid_t pid) {
        char path[64], *line = NULL, *ret = NULL;
        size_t cap = 0;

        snprintf(path, sizeof path, "/proc/%d/cgroup", (int) pid);
        FILE *f = fopen(path, "re");
        if (!f)
                die("%s: %m", path);
        while (!ret && getline(&line, &cap, f) > 0)
                if (strncmp(line, "0::/", 4) == 0) {
                        line[strcspn(line, "\n")] = '\0';
                        ret = strdup(line + 4);
                }
        free(line);
        fclose(f);
        if (!ret || !*ret)
                die("%d: no cgroup v2 path in %s", (int) pid, path);
        return ret;
}

/* One batch: every process moved (or given the floor's request) one after
 * another, each timed from the batch's start until it shows the state. */
static void many_batch(Mode mode, unsigned round, bool on, pid_t *pids, char **homes, unsigned n) {
        uint64_t done[MAX_MANY] = {}, t0, issued;
        Poller q = { .pids = pids, .n = n, .on = on, .done = done };
        Observed a, b;
        pthread_t t;
        char what[64];

        snprintf(what, sizeof what, "many: %s round %u %s", mode_names[mode], round, on ? "in" : "out");
        step_begin(what);
        observe(&a);
        t0 = now_usec();
        q.deadline = t0 + (uint64_t) (arg.timeout_sec * 1e6);
        if (pthread_create(&t, NULL, poller_run, &q) != 0)
                die("pthread_create failed");
        for (unsigned i = 0; i < n; i++)
                switch (mode) {
                case MODE_POLICYD:
                        write_pid(on ? arg.to : homes[i], pids[i]);
                        break;
                case MODE_CLI:
                        cli_wait(cli_start(pids[i], on ? arg.ksm_on : "0", on ? arg.mempolicy : "default"), what);
                        break;
                case MODE_SOCKET:
                        socket_reply(socket_request(pids[i], on ? arg.ksm_on : "0", on ? arg.mempolicy : "default"),
                                     what);
                        break;
                }
        issued = now_usec();
        pthread_join(t, NULL);
        if (q.failure[0])
                die("%s: %s", what, q.failure);
        quiet_wait();
        observe(&b);
        alarm(0);
        printf("many-sample: mode=%s round=%u way=%s n=%u issued_ms=%.1f ms=", mode_names[mode], round,
               on ? "in" : "out", n, (double) (issued - t0) / 1000.0);
        for (unsigned i = 0; i < n; i++)
                printf("%s%.1f", i ? "," : "", (double) (done[i] - t0) / 1000.0);
        print_observed(&a, &b);
        putchar('\n');
        fflush(stdout);
}

/* --pids moved into --to all at once, then each back to the cgroup it
 * started in, --count rounds; interleaved with the same done by
 * sequential requests of the floors in --modes. */
static int verb_many(void) {
        pid_t pids[MAX_MANY];
        char *homes[MAX_MANY], *list, *save = NULL;
        Mode modes[MAX_MODES];
        unsigned n = 0, n_modes = 0;

        if (!arg.pids || !arg.to || arg.count == 0)
                die("many needs --pids, --to and a positive --count");
        list = strdup(arg.pids);
        for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
                ProcessState s;
                if (n == MAX_MANY)
                        die("--pids takes at most %u", MAX_MANY);
                pids[n] = (pid_t) atoi(p);
                int r = process_state_read(pids[n], &s);
                if (r < 0)
                        die("%d: %s", (int) pids[n], strerror(-r));
                if (!process_state_is(&s, false, "default"))
                        die("%d does not start clean: ksm=%s mempolicy=%s", (int) pids[n], s.ksm ? "yes" : "no",
                            s.mempolicy);
                homes[n] = process_cgroup(pids[n]);
                n++;
        }
        free(list);
        n_modes = parse_modes(arg.modes, modes);
        if (n == 0 || n_modes == 0)
                die("many needs processes and modes");
        printf("many: n=%u rounds=%u modes=%s\n", n, arg.count, arg.modes);
        fflush(stdout);
        for (unsigned i = 0; i < arg.count; i++)
                for (unsigned k = 0; k < n_modes; k++) {
                        Mode m = modes[(k + i) % n_modes];
                        many_batch(m, i, true, pids, homes, n);
                        many_batch(m, i, false, pids, homes, n);
                }
        for (unsigned i = 0; i < n; i++)
                free(homes[i]);
        return 0;
}

/* ---- main ---- */

static void help(void) {
        printf("bench-process VERB [OPTIONS]\n"
               "  quiet     --mib=N --threads=N: a quiet process\n"
               "  move      --pid=PID --to=CGROUP --home=CGROUP --count=N [--modes=policyd,socket,cli]\n"
               "            [--ksm-on=1] [--mempolicy=SPEC] [--numa-maps=SPELLING] [--injector=PATH]\n"
               "            [--socket=PATH] [--gap-ms=MS] [--floor-every=N]\n"
               "  forkexec  --rate=N --duration=SEC --hold-ms=MS [--wait-applied=SEC] [--numa-maps=SPELLING]\n"
               "            [--check-every=N] (each Nth child checks itself)\n"
               "            [--settle-ms=MS]\n"
               "  child     --hold-ms=MS --numa-maps=SPELLING (exit 0: as wanted, 10: not)\n"
               "  wait      --pid=PID --want=on|off [--numa-maps=SPELLING]\n"
               "  churn     --pid=PID --to=CGROUP --home=CGROUP --period-ms=MS --duration=SEC\n"
               "            [--sample-ms=MS] [--stable-ms=MS] [--numa-maps=SPELLING]\n"
               "  many      --pids=PID,... --to=CGROUP --count=ROUNDS [--modes=policyd,cli] [--injector=PATH]\n"
               "common: --timeout=SEC --interval-us=US --policyd=PID --cpu=NAME=CGROUP (CGROUP below %s)\n",
               CGROUP_ROOT);
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "pid", required_argument, NULL, 'p' },
                { "to", required_argument, NULL, 't' },
                { "home", required_argument, NULL, 'H' },
                { "count", required_argument, NULL, 'n' },
                { "modes", required_argument, NULL, 'M' },
                { "ksm-on", required_argument, NULL, 'k' },
                { "mempolicy", required_argument, NULL, 'm' },
                { "numa-maps", required_argument, NULL, 'N' },
                { "injector", required_argument, NULL, 'i' },
                { "socket", required_argument, NULL, 's' },
                { "interval-us", required_argument, NULL, 'I' },
                { "gap-ms", required_argument, NULL, 'g' },
                { "floor-every", required_argument, NULL, 'F' },
                { "timeout", required_argument, NULL, 'T' },
                { "mib", required_argument, NULL, 'B' },
                { "threads", required_argument, NULL, 'j' },
                { "rate", required_argument, NULL, 'r' },
                { "duration", required_argument, NULL, 'd' },
                { "hold-ms", required_argument, NULL, 'h' },
                { "check-every", required_argument, NULL, 'C' },
                { "wait-applied", required_argument, NULL, 'w' },
                { "policyd", required_argument, NULL, 'P' },
                { "settle-ms", required_argument, NULL, 'S' },
                { "want", required_argument, NULL, 'W' },
                { "cpu", required_argument, NULL, 'c' },
                { "period-ms", required_argument, NULL, 'e' },
                { "sample-ms", required_argument, NULL, 'a' },
                { "stable-ms", required_argument, NULL, 'b' },
                { "pids", required_argument, NULL, 'L' },
                {}
        };
        const char *verb;
        int c;

        if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
                help();
                return argc < 2 ? 1 : 0;
        }
        verb = argv[1];
        arg.ksm_on = "1";
        signal(SIGALRM, on_alarm);
        while ((c = getopt_long(argc - 1, argv + 1, "", options, NULL)) >= 0)
                switch (c) {
                case 'p': arg.pid = (pid_t) atoi(optarg); break;
                case 't': arg.to = optarg; break;
                case 'H': arg.home = optarg; break;
                case 'n': arg.count = (unsigned) atoi(optarg); break;
                case 'M': arg.modes = optarg; break;
                case 'k': arg.ksm_on = optarg; break;
                case 'm': arg.mempolicy = optarg; break;
                case 'N': arg.numa_maps = optarg; break;
                case 'i': arg.injector = optarg; break;
                case 's': arg.socket_path = optarg; break;
                case 'I': arg.interval_us = (unsigned) atoi(optarg); break;
                case 'g': arg.gap_ms = (unsigned) atoi(optarg); break;
                case 'F': arg.floor_every = (unsigned) atoi(optarg) ?: 1; break;
                case 'T': arg.timeout_sec = atof(optarg); break;
                case 'B': arg.mib = (unsigned) atoi(optarg); break;
                case 'j': arg.threads = (unsigned) atoi(optarg); break;
                case 'r': arg.rate = atof(optarg); break;
                case 'd': arg.duration_sec = atof(optarg); break;
                case 'h': arg.hold_ms = (unsigned) atoi(optarg); break;
                case 'C': arg.check_every = (unsigned) atoi(optarg); break;
                case 'w': arg.wait_applied_sec = atof(optarg); break;
                case 'P': arg.policyd = (pid_t) atoi(optarg); break;
                case 'S': arg.settle_ms = (unsigned) atoi(optarg); break;
                case 'W': arg.want = optarg; break;
                case 'e': arg.period_ms = (unsigned) atoi(optarg); break;
                case 'a': arg.sample_ms = (unsigned) atoi(optarg); break;
                case 'b': arg.stable_ms = (unsigned) atoi(optarg); break;
                case 'L': arg.pids = optarg; break;
                case 'c':
                        if (arg.n_cpu == MAX_CPU || !strchr(optarg, '='))
                                die("--cpu takes NAME=CGROUP, at most %u times", MAX_CPU);
                        arg.cpu[arg.n_cpu++] = optarg;
                        break;
                default:
                        return 2;
                }
        if (optind != argc - 1)
                die("%s: unexpected argument %s", verb, argv[optind + 1]);

        if (strcmp(verb, "quiet") == 0)
                return verb_quiet();
        if (strcmp(verb, "move") == 0)
                return verb_move();
        if (strcmp(verb, "forkexec") == 0)
                return verb_forkexec();
        if (strcmp(verb, "child") == 0)
                return verb_child();
        if (strcmp(verb, "wait") == 0)
                return verb_wait();
        if (strcmp(verb, "churn") == 0)
                return verb_churn();
        if (strcmp(verb, "many") == 0)
                return verb_many();
        die("unknown verb %s (--help)", verb);
}
