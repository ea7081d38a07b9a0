/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The observer of bench/run-focus: makes focus changes and times each one
 * until it is applied.
 *
 *   focus-probe LABEL CHANGES GAP_MS CGROUP...
 *
 * The bench runs it as the user who owns the apps' cgroups, as their
 * compositor writes the attribute; it needs no privilege.
 *
 * Change i goes to CGROUP[i % N]: it flips that app's user.xdg.inactive-since
 * (as Mutter writes it: "-1" with focus, else CLOCK_MONOTONIC in µs), then
 * waits until the cgroup shows the group that follows: memory.swap.high
 * 10485760 and user.policy.group "pgbf-fg" for focus, 20971520 and
 * "pgbf-bg" without. Whoever applies it (policyd, or focus-floor) is not
 * the probe's business. Before the first change each app is brought to the
 * state the first flip leaves, so that every flip is a change, and then
 * 1.5 s pass (policyd's rate limit on attribute wakeups, 20 a second, is
 * for that burst, not for the changes measured).
 *
 * No polling: an inotify watch on each app's cgroup directory (IN_MODIFY of
 * the knob files within, IN_ATTRIB of the directory's xattrs) wakes the
 * probe, which reads both values again; vfs_write raises IN_MODIFY for the
 * writer's write on cgroupfs as on any file. A 1 s timeout reads them anyway
 * and is counted ("via=timeout"), so a lost event would show.
 *
 * Output, one line per change:
 *   @ kind=change way=LABEL i=I app=A to=fg|bg latency_us=L via=event|timeout
 * and "@ kind=probe-failed …" when a change was not applied within 10 s. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define FOCUS_XATTR "user.xdg.inactive-since"
#define TAG_XATTR "user.policy.group"

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static bool file_is(const char *dir, const char *name, const char *want) {
        char path[4096], buf[64];
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return false;
        buf[n] = 0;
        buf[strcspn(buf, "\n")] = 0;
        return strcmp(buf, want) == 0;
}

static bool xattr_is(const char *dir, const char *name, const char *want) {
        char buf[256];
        ssize_t n = getxattr(dir, name, buf, sizeof(buf) - 1);

        if (n < 0)
                return false;
        buf[n] = 0;
        return strcmp(buf, want) == 0;
}

static bool applied(const char *dir, bool focused) {
        return file_is(dir, "memory.swap.high", focused ? "10485760" : "20971520") &&
               xattr_is(dir, TAG_XATTR, focused ? "pgbf-fg" : "pgbf-bg");
}

static int set_focus(const char *dir, bool focused) {
        char value[32];

        if (focused)
                strcpy(value, "-1");
        else
                snprintf(value, sizeof(value), "%" PRIu64, now_usec());
        return setxattr(dir, FOCUS_XATTR, value, strlen(value), 0) < 0 ? -errno : 0;
}

static void drain(int fd) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        while (read(fd, buf, sizeof(buf)) > 0)
                ;
}

/* Waits until dir shows the group of focused; returns µs from start, or
 * -1 after 10 s. *timeouts counts the reads the timeout made. */
static int64_t wait_applied(int fd, const char *dir, bool focused, uint64_t start, unsigned *timeouts, bool *by_event) {
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                int k = poll(&p, 1, 1000);
                if (k == 0)
                        (*timeouts)++;
                drain(fd);
                if (applied(dir, focused)) {
                        *by_event = k > 0;
                        return (int64_t) (now_usec() - start);
                }
                if (now_usec() - start > 10000000)
                        return -1;
        }
}

int main(int argc, char **argv) {
        if (argc < 5) {
                fprintf(stderr, "usage: focus-probe LABEL CHANGES GAP_MS CGROUP...\n");
                return 2;
        }
        const char *label = argv[1];
        long changes = strtol(argv[2], NULL, 10), gap_ms = strtol(argv[3], NULL, 10);
        char **apps = argv + 4;
        int n = argc - 4, fd, failed = 0;
        bool *focused = calloc((size_t) n, sizeof(bool));
        unsigned timeouts = 0;

        fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (fd < 0 || !focused) {
                perror("focus-probe: inotify_init1");
                return 1;
        }
        for (int a = 0; a < n; a++)
                if (inotify_add_watch(fd, apps[a], IN_MODIFY | IN_ATTRIB | IN_ONLYDIR) < 0) {
                        fprintf(stderr, "focus-probe: watch %s: %m\n", apps[a]);
                        return 1;
                }

        /* Each app in the state its first flip leaves: flipping then changes it. */
        int prepared = 0;
        for (int a = 0; a < n; a++) {
                bool by_event;
                focused[a] = (a % 2) == 0; /* the first flip unfocuses the even ones */
                if (!applied(apps[a], focused[a])) {
                        int k = set_focus(apps[a], focused[a]);
                        if (k < 0) {
                                fprintf(stderr, "focus-probe: setxattr %s: %s\n", apps[a], strerror(-k));
                                return 1;
                        }
                        if (wait_applied(fd, apps[a], focused[a], now_usec(), &timeouts, &by_event) < 0) {
                                printf("@ kind=probe-failed way=%s app=%s phase=prepare\n", label, apps[a]);
                                return 1;
                        }
                        prepared++;
                }
        }
        /* The preparation flips apps as fast as they are applied, faster than
         * anyone switches focus: policyd's rate limit on attribute wakeups
         * (20 a second) may hold back what comes next in that second. The
         * changes measured start after it. */
        if (prepared > 0)
                usleep(1500 * 1000);
        timeouts = 0;

        for (long i = 0; i < changes; i++) {
                int a = (int) (i % n);
                bool by_event = false;
                usleep((useconds_t) gap_ms * 1000);
                drain(fd);
                focused[a] = !focused[a];
                uint64_t start = now_usec();
                int k = set_focus(apps[a], focused[a]);
                if (k < 0) {
                        fprintf(stderr, "focus-probe: setxattr %s: %s\n", apps[a], strerror(-k));
                        return 1;
                }
                int64_t us = wait_applied(fd, apps[a], focused[a], start, &timeouts, &by_event);
                const char *base = strrchr(apps[a], '/');
                if (us < 0) {
                        printf("@ kind=probe-failed way=%s i=%ld app=%s to=%s\n", label, i, base + 1,
                               focused[a] ? "fg" : "bg");
                        fflush(stdout);
                        if (++failed > 3)
                                return 1;
                        continue;
                }
                printf("@ kind=change way=%s i=%ld app=%s to=%s latency_us=%" PRId64 " via=%s\n", label, i, base + 1,
                       focused[a] ? "fg" : "bg", us, by_event ? "event" : "timeout");
        }
        printf("@ kind=probe way=%s changes=%ld timeouts=%u failed=%d\n", label, changes, timeouts, failed);
        return failed ? 1 : 0;
}
