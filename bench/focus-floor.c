/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The floor for a focus change (bench/run-focus): one bare apply, the least
 * any program does to follow user.xdg.inactive-since as policyd must.
 *
 *   focus-floor PARENT PREFIX
 *
 * One inotify IN_ATTRIB watch on PARENT, as policyd's attr-watch.c holds
 * one per parent directory; the bench gives it the app.slice of the user's
 * manager (.../user@UID.service/app.slice) and "app-pgbf-". Run as root, as
 * policyd is: the apps' cgroups are the user's. For an event on a child whose name starts with
 * PREFIX it reads the child's user.xdg.inactive-since; "-1" is the group
 * pgbf-fg (SwapHigh=10M), any other number pgbf-bg (SwapHigh=20M). When the
 * group differs from the one it last applied there (its own tag write
 * raises IN_ATTRIB too), it writes memory.swap.high and the tag
 * user.policy.group, and nothing else. On SIGTERM or SIGINT it prints
 * "focus-floor: events=N applies=N". Its CPU time is read from outside. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/xattr.h>
#include <unistd.h>

#define MAX_APPS 1024

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
        (void) sig;
        stop = 1;
}

static struct {
        char *name;
        int group; /* 0 unknown, 1 fg, 2 bg */
} apps[MAX_APPS];
static int n_apps;

static int *group_of(const char *name) {
        for (int i = 0; i < n_apps; i++)
                if (strcmp(apps[i].name, name) == 0)
                        return &apps[i].group;
        if (n_apps == MAX_APPS)
                return NULL;
        apps[n_apps].name = strdup(name);
        return &apps[n_apps++].group;
}

static bool apply(const char *parent, const char *name) {
        char dir[4096], path[4200], value[64];
        const char *high, *tag;
        int *last, group, fd;
        ssize_t n;

        snprintf(dir, sizeof(dir), "%s/%s", parent, name);
        n = getxattr(dir, "user.xdg.inactive-since", value, sizeof(value) - 1);
        if (n <= 0)
                return false;
        value[n] = 0;
        group = strcmp(value, "-1") == 0 ? 1 : 2;
        last = group_of(name);
        if (!last || *last == group)
                return false;
        high = group == 1 ? "10485760" : "20971520";
        tag = group == 1 ? "pgbf-fg" : "pgbf-bg";
        snprintf(path, sizeof(path), "%s/memory.swap.high", dir);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, high, strlen(high)) < 0)
                fprintf(stderr, "focus-floor: %s: %m\n", path);
        if (fd >= 0)
                close(fd);
        if (setxattr(dir, "user.policy.group", tag, strlen(tag), 0) < 0)
                fprintf(stderr, "focus-floor: setxattr %s: %m\n", dir);
        *last = group;
        return true;
}

int main(int argc, char **argv) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        unsigned long events = 0, applies = 0;
        size_t prefix_len;
        int fd;

        if (argc != 3) {
                fprintf(stderr, "usage: focus-floor PARENT PREFIX\n");
                return 2;
        }
        prefix_len = strlen(argv[2]);
        /* No SA_RESTART: the signal ends the blocking read. */
        struct sigaction sa = { .sa_handler = on_signal };
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        fd = inotify_init1(IN_CLOEXEC);
        if (fd < 0 || inotify_add_watch(fd, argv[1], IN_ATTRIB | IN_ONLYDIR) < 0) {
                fprintf(stderr, "focus-floor: watch %s: %m\n", argv[1]);
                return 1;
        }
        printf("focus-floor: watching %s\n", argv[1]);
        fflush(stdout);
        while (!stop) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        fprintf(stderr, "focus-floor: read: %m\n");
                        return 1;
                }
                for (char *p = buf; p < buf + n;) {
                        const struct inotify_event *e = (const struct inotify_event *) p;
                        p += sizeof(struct inotify_event) + e->len;
                        events++;
                        if ((e->mask & IN_ATTRIB) && e->len > 0 && strncmp(e->name, argv[2], prefix_len) == 0)
                                applies += apply(argv[1], e->name);
                }
        }
        printf("focus-floor: events=%lu applies=%lu\n", events, applies);
        return 0;
}
