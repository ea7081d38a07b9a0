/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* policyctl's output: systemd's conventions (pager.c and terminal-util.c in
 * systemd describe them), written here in a few lines. */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json-writer.h"
#include "policyctl-online.h"
#include "policyctl-output.h"
#include "util.h"

bool arg_no_pager = false;
bool arg_no_legend = false;
bool arg_json_pretty = false;

static bool on_tty = false;
static int columns = -1;
static bool colors = false;
static pid_t pager_pid = 0;

/* systemd's boolean spellings; -1 for anything else. */
static int parse_env_boolean(const char *v) {
        static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
        static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (g_ascii_strcasecmp(v, yes[i]) == 0)
                        return 1;
                if (g_ascii_strcasecmp(v, no[i]) == 0)
                        return 0;
        }
        return -1;
}

static bool colors_wanted(void) {
        const char *e;

        /* https://no-color.org/: set at all, no colours. */
        if (getenv("NO_COLOR"))
                return false;
        e = getenv("SYSTEMD_COLORS");
        if (e) {
                int b = parse_env_boolean(e);
                if (b >= 0)
                        return b;
                /* "16", "256", "24bit": a colour mode, so colours on. */
                if (streq(e, "16") || streq(e, "256") || streq(e, "24bit"))
                        return true;
        }
        e = getenv("TERM");
        return on_tty && !(e && streq(e, "dumb"));
}

void output_init(void) {
        struct winsize ws = {};
        const char *e;

        on_tty = isatty(STDOUT_FILENO);
        colors = colors_wanted();
        if (!on_tty)
                return;
        columns = 80;
        e = getenv("COLUMNS");
        if (e) {
                char *end;
                long n = strtol(e, &end, 10);
                if (*e && *end == '\0' && n > 0 && n < 10000) {
                        columns = (int) n;
                        return;
                }
        }
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) >= 0 && ws.ws_col > 0)
                columns = ws.ws_col;
}

bool output_on_tty(void) {
        return on_tty;
}

int output_columns(void) {
        return columns;
}

const char *ansi_highlight_red(void) {
        return colors ? "\033[0;1;31m" : "";
}

const char *ansi_highlight_yellow(void) {
        return colors ? "\033[0;1;33m" : "";
}

const char *ansi_underline(void) {
        return colors ? "\033[0;4m" : "";
}

const char *ansi_normal(void) {
        return colors ? "\033[0m" : "";
}

/* The pager's side of the pipe: the pager, else less, else more, else a
 * plain copy, so that nothing is lost. In secure mode less alone, which
 * then allows no shell commands and no other files. */
_Noreturn static void run_pager(const char *pager, bool secure) {
        const char *less = getenv("SYSTEMD_LESS");
        char buf[4096];
        ssize_t n;

        /* As systemd sets it: F quit when it fits, R colours, S chop long
         * lines, X no screen clearing, M verbose prompt, K quit on ^C. */
        setenv("LESS", less ? less : "FRSXMK", 1);
        if (secure) {
                setenv("LESSSECURE", "1", 1);
                execlp("less", "less", (char *) NULL);
        } else if (pager) {
                execl("/bin/sh", "sh", "-c", pager, (char *) NULL);
                fprintf(stderr, "Failed to run pager %s: %s\n", pager, strerror(errno));
        } else {
                execlp("less", "less", (char *) NULL);
                execlp("more", "more", (char *) NULL);
        }
        while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
                if (write(STDOUT_FILENO, buf, (size_t) n) != n)
                        break;
        _exit(n < 0 ? EXIT_FAILURE : EXIT_SUCCESS);
}

/* As systemd: with root's rights under sudo (or setuid), the pager must
 * not become a shell for whoever ran policyctl. $SYSTEMD_PAGERSECURE
 * decides when set. */
static bool pager_secure(void) {
        const char *e = getenv("SYSTEMD_PAGERSECURE");
        int b = e ? parse_env_boolean(e) : -1;

        if (b >= 0)
                return b;
        return getuid() != geteuid() || getenv("SUDO_UID");
}

void pager_open(void) {
        const char *pager;
        bool secure;
        int fds[2];
        pid_t pid;

        if (arg_no_pager || !on_tty || pager_pid > 0)
                return;
        pager = getenv("SYSTEMD_PAGER");
        if (!pager)
                pager = getenv("PAGER");
        if (pager) {
                pager += strspn(pager, " \t");
                if (*pager == '\0' || streq(pager, "cat"))
                        return;
        }
        secure = pager_secure();

        fflush(stdout);
        if (pipe2(fds, O_CLOEXEC) < 0)
                return; /* no pager then, and the output still goes out */
        pid = fork();
        if (pid < 0) {
                close(fds[0]);
                close(fds[1]);
                return;
        }
        if (pid == 0) {
                if (dup2(fds[0], STDIN_FILENO) < 0)
                        _exit(EXIT_FAILURE);
                /* policyctl may have SIGPIPE as it found it; the pager gets
                 * the defaults. */
                signal(SIGPIPE, SIG_DFL);
                run_pager(pager, secure);
        }
        if (dup2(fds[1], STDOUT_FILENO) < 0) {
                close(fds[0]);
                close(fds[1]);
                return;
        }
        close(fds[0]);
        close(fds[1]);
        /* A pager that quits early ends policyctl with SIGPIPE, as
         * systemctl ends. */
        signal(SIGPIPE, SIG_DFL);
        pager_pid = pid;
}

void json_print(const GString *compact) {
        if (arg_json_pretty) {
                g_autofree char *pretty = json_pretty(compact->str);
                puts(pretty);
        } else
                puts(compact->str);
}

int output_finish(int code) {
        bool failed;
        int e;

        errno = 0;
        failed = fflush(stdout) != 0;
        e = errno;
        failed |= ferror(stdout) != 0;
        if (failed) {
                if (e > 0)
                        fprintf(stderr, "Failed to write the output: %s\n", g_strerror(e));
                else
                        fprintf(stderr, "Failed to write the output.\n");
                if (code == EXIT_OK)
                        code = EXIT_ERRORS;
        }
        if (pager_pid > 0) {
                /* The pager sees the end of its input, and takes its time. */
                (void) fclose(stdout);
                (void) close(STDOUT_FILENO);
                while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                pager_pid = 0;
        }
        return code;
}
