/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* policyd-inject PID [--ksm=yes|no] [--mempolicy=SPEC] [--timeout=MSEC] [--verify]
 *
 * Applies KSM and a memory policy inside one running process. Meant to run
 * as a short-lived helper with CAP_SYS_PTRACE, so that policyd itself needs
 * neither that nor a seccomp filter that allows ptrace. The injected
 * syscalls run with the target's own credentials and cpuset, so they need no
 * capability; CAP_SYS_NICE is for migrate_pages of another user's process
 * (issue 9, cgroup-level NUMA), which could live in the same helper. When
 * this process exits, the kernel detaches anything still attached.
 * Exit status: 0 applied, 1 failed, 2 refused, 3 vanished, 4 usage. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

static int verify(pid_t pid, const InjectRequest *req) {
        int bad = 0;

        if (req->ksm >= 0) {
                int r = inject_read_ksm(pid);
                printf("verify ksm=%s\n", r < 0 ? strerror(-r) : r ? "yes" : "no");
                bad |= r != req->ksm;
        }
        if (req->set_mempolicy) {
                char want[300], path[64];
                struct dirent *de;

                if (mempolicy_format_numa_maps(&req->mempolicy, want, sizeof(want)) < 0)
                        return 1;
                snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
                DIR *d = opendir(path);
                if (!d)
                        return 1;
                while ((de = readdir(d))) {
                        char got[300];
                        int tid = atoi(de->d_name), r;
                        if (tid <= 0)
                                continue;
                        r = inject_read_task_policy(pid, tid, got, sizeof(got));
                        if (r == -ESRCH)
                                continue;
                        printf("verify tid=%d mempolicy=%s%s\n", tid, r < 0 ? strerror(-r) : got,
                               r < 0 || strcmp(got, want) != 0 ? " (differs)" : "");
                        bad |= r < 0 || strcmp(got, want) != 0;
                }
                closedir(d);
        }
        return bad;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "ksm", required_argument, NULL, 'k' },
                { "mempolicy", required_argument, NULL, 'm' },
                { "timeout", required_argument, NULL, 't' },
                { "verify", no_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        InjectRequest req = { .ksm = -1 };
        InjectReport rep;
        bool do_verify = false;
        int c, r;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'k':
                        if (strcmp(optarg, "yes") == 0)
                                req.ksm = 1;
                        else if (strcmp(optarg, "no") == 0)
                                req.ksm = 0;
                        else {
                                fprintf(stderr, "--ksm takes yes or no, not '%s'\n", optarg);
                                return 4;
                        }
                        break;
                case 'm':
                        if (mempolicy_parse(optarg, &req.mempolicy) < 0) {
                                fprintf(stderr, "--mempolicy: cannot parse '%s'\n", optarg);
                                return 4;
                        }
                        req.set_mempolicy = true;
                        break;
                case 't':
                        req.timeout_usec = strtoull(optarg, NULL, 10) * 1000;
                        break;
                case 'v':
                        do_verify = true;
                        break;
                case 'h':
                        printf("%s PID [--ksm=yes|no] [--mempolicy=SPEC] [--timeout=MSEC] [--verify]\n"
                               "SPEC: default, local, preferred:N, bind:LIST, interleave:LIST,\n"
                               "      preferred-many:LIST, weighted-interleave:LIST\n", argv[0]);
                        return 0;
                default:
                        return 4;
                }
        if (optind + 1 != argc || (req.ksm < 0 && !req.set_mempolicy)) {
                fprintf(stderr, "Usage: %s PID [--ksm=yes|no] [--mempolicy=SPEC] (--help)\n", argv[0]);
                return 4;
        }
        pid_t pid = (pid_t) atoi(argv[optind]);

        r = inject_process(pid, &req, &rep);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", argv[optind], strerror(-r));
                return 4;
        }
        printf("pid=%d outcome=%s", (int) pid, inject_outcome_to_string(rep.outcome));
        if (rep.outcome == INJECT_REFUSED)
                printf(" reason=\"%s\"", inject_refusal_to_string(rep.refusal));
        if (rep.error < 0)
                printf(" error=\"%s\"", strerror(-rep.error));
        printf(" threads=%u in_syscall=%u signals_passed=%u retries=%u insn=%s%s\n", rep.threads,
               rep.threads_in_syscall, rep.signals_passed, rep.retries, rep.insn_in_place ? "in-place" : "vdso",
               rep.stuck ? " stuck" : "");

        if (rep.outcome == INJECT_APPLIED && do_verify && verify(pid, &req))
                return 1;
        switch (rep.outcome) {
        case INJECT_APPLIED:
                return 0;
        case INJECT_REFUSED:
                return 2;
        case INJECT_VANISHED:
                return 3;
        default:
                return 1;
        }
}
