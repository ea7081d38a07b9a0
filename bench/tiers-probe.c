/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The swap tiers benchmark (bench/run-tiers), in the VM on the swap-tiers
 * kernel:
 *
 *   tiers-probe write --line=L... DIR...
 *       the floor: for each cgroup DIR, opens memory.swap.tiers.max once
 *       (O_TRUNC, as a shell's ">" and policyd do) and writes each line L
 *       with its own write(), since swap tiers v10 takes one "TIER max|0"
 *       pair per write(). No read, no bus, no bookkeeping.
 *   tiers-probe check --line=L... DIR...
 *       whether every DIR holds exactly the lines L; status 1 if not.
 *   tiers-probe converge --line=L... [--timeout=SEC] [--interval-ms=MS] DIR... -- COMMAND...
 *       runs COMMAND and polls every DIR's memory.swap.tiers.max until it
 *       holds exactly the lines L (in any order): how long a way of applying
 *       takes, seen from the kernel's side.
 *
 * Each prints one "VERB: key=value ..." line. Any error, or a wait that
 * times out, ends it with a message and status 1. */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "system-common.h"

#define TIERS_FILE "memory.swap.tiers.max"
#define MAX_LINES 8U

static const char *lines[MAX_LINES];
static unsigned n_lines;

static double ms_between(uint64_t a, uint64_t b) {
        return (double) (b - a) / 1000.0;
}

static int write_tiers(const char *dir) {
        char path[4096], buf[64];
        int fd;

        snprintf(path, sizeof path, "%s/" TIERS_FILE, dir);
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0)
                die("%s: %m", path);
        for (unsigned i = 0; i < n_lines; i++) {
                int len = snprintf(buf, sizeof buf, "%s\n", lines[i]);
                if (write(fd, buf, (size_t) len) != len)
                        die("%s: writing '%s': %m", path, lines[i]);
        }
        close(fd);
        return 0;
}

/* 1 when DIR's file holds exactly the lines, 0 when not (yet). The text
 * read goes to buf, for the message of a timeout. */
static int tiers_are(const char *dir, char *buf, size_t size) {
        char path[4096], *save = NULL, *tok;
        unsigned seen = 0, found = 0;
        ssize_t n;
        int fd;

        snprintf(path, sizeof path, "%s/" TIERS_FILE, dir);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                die("%s: %m", path);
        n = read(fd, buf, size - 1);
        if (n < 0)
                die("%s: %m", path);
        close(fd);
        buf[n] = '\0';

        char copy[512];
        if (size > sizeof copy)
                die("tiers_are: buffer too large");
        memcpy(copy, buf, (size_t) n + 1);
        for (tok = strtok_r(copy, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
                seen++;
                for (unsigned i = 0; i < n_lines; i++)
                        if (strcmp(tok, lines[i]) == 0) {
                                found++;
                                break;
                        }
        }
        return seen == n_lines && found == n_lines;
}

static pid_t spawn(char **argv) {
        pid_t pid = fork();

        if (pid < 0)
                die("fork: %m");
        if (pid == 0) {
                execvp(argv[0], argv);
                fprintf(stderr, "tiers-probe: %s: %m\n", argv[0]);
                _exit(127);
        }
        return pid;
}

static void usage(void) {
        printf("tiers-probe write --line=L... DIR...\n"
               "tiers-probe check --line=L... DIR...\n"
               "tiers-probe converge --line=L... [--timeout=SEC] [--interval-ms=MS] DIR... -- COMMAND...\n\n"
               "  --line=\"TIER max|0\"   a line of memory.swap.tiers.max (give one per tier)\n");
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "line", required_argument, NULL, 'l' },
                { "timeout", required_argument, NULL, 't' },
                { "interval-ms", required_argument, NULL, 'i' },
                {}
        };
        double timeout_sec = 120;
        unsigned interval_ms = 1;
        const char *verb;
        int c;

        if (argc < 2) {
                usage();
                return 2;
        }
        verb = argv[1];
        optind = 2;
        while ((c = getopt_long(argc, argv, "+h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        usage();
                        return 0;
                case 'l':
                        if (n_lines == MAX_LINES)
                                die("at most %u --line", MAX_LINES);
                        lines[n_lines++] = optarg;
                        break;
                case 't':
                        timeout_sec = atof(optarg);
                        break;
                case 'i':
                        interval_ms = (unsigned) atoi(optarg);
                        break;
                default:
                        return 2;
                }
        if (n_lines == 0)
                die("no --line given");

        if (strcmp(verb, "write") == 0) {
                uint64_t start = now_usec();
                if (optind >= argc)
                        die("no cgroup given");
                for (int i = optind; i < argc; i++)
                        write_tiers(argv[i]);
                printf("write: cgroups=%d writes=%u elapsed_ms=%.1f\n", argc - optind,
                       (unsigned) (argc - optind) * n_lines, ms_between(start, now_usec()));
                return 0;
        }
        if (strcmp(verb, "check") == 0) {
                char buf[512];
                int not_there = 0;
                const char *first = NULL;
                if (optind >= argc)
                        die("no cgroup given");
                for (int i = optind; i < argc; i++)
                        if (!tiers_are(argv[i], buf, sizeof buf)) {
                                not_there++;
                                first = first ?: argv[i];
                        }
                printf("check: cgroups=%d not_there=%d%s%s\n", argc - optind, not_there, first ? " first=" : "",
                       first ?: "");
                return not_there > 0;
        }
        if (strcmp(verb, "converge") != 0)
                die("unknown verb %s", verb);

        int sep = optind, n_dirs;
        while (sep < argc && strcmp(argv[sep], "--") != 0)
                sep++;
        if (sep == argc || sep + 1 == argc)
                die("converge: no command after --");
        n_dirs = sep - optind;
        if (n_dirs == 0)
                die("no cgroup given");
        argv[sep] = NULL;

        char **dirs = argv + optind, buf[512];
        unsigned char *done = calloc((size_t) n_dirs, 1);
        int remaining = n_dirs, status = 0;
        unsigned checks = 0;
        uint64_t start, converged_at = 0, exited_at = 0, deadline;
        pid_t pid;

        if (!done)
                die("out of memory");
        /* A cgroup already in the state would be timed at 0 ms. */
        for (int i = 0; i < n_dirs; i++)
                if (tiers_are(dirs[i], buf, sizeof buf))
                        die("%s holds the state before the command ran", dirs[i]);
        start = now_usec();
        deadline = start + (uint64_t) (timeout_sec * 1e6);
        pid = spawn(argv + sep + 1);
        for (;;) {
                for (int i = 0; i < n_dirs; i++)
                        if (!done[i] && tiers_are(dirs[i], buf, sizeof buf)) {
                                done[i] = 1;
                                remaining--;
                        }
                checks++;
                if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
                        exited_at = now_usec();
                        pid = 0;
                        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                                die("the command failed (status %#x)", (unsigned) status);
                }
                if (remaining == 0 && converged_at == 0)
                        converged_at = now_usec();
                if (remaining == 0 && pid == 0)
                        break;
                if (now_usec() > deadline) {
                        for (int i = 0; i < n_dirs; i++)
                                if (!done[i]) {
                                        tiers_are(dirs[i], buf, sizeof buf);
                                        for (char *p = buf; *p; p++)
                                                if (*p == '\n')
                                                        *p = ';';
                                        die("%d of %d cgroups not there after %.0f s; %s holds '%s'",
                                            remaining, n_dirs, timeout_sec, dirs[i], buf);
                                }
                        die("the command did not end within %.0f s", timeout_sec);
                }
                if (interval_ms > 0)
                        nanosleep(&(struct timespec) { .tv_nsec = (long) interval_ms * 1000000L }, NULL);
        }
        printf("converge: cgroups=%d converged_ms=%.1f cmd_ms=%.1f checks=%u\n", n_dirs,
               ms_between(start, converged_at), ms_between(start, exited_at), checks);
        free(done);
        return 0;
}
