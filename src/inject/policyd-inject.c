/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* policyd-inject --serve
 * policyd-inject PID [--ksm=yes|no] [--mempolicy=SPEC] [--timeout=MSEC] [--verify]
 *
 * Applies KSM and a memory policy inside one running process, with
 * CAP_SYS_PTRACE, so that policyd itself needs neither that nor a seccomp
 * filter that allows ptrace. --serve is how policyd-inject@.service runs it:
 * requests from policyd on the socket that is standard input, a reply to
 * each (inject-wire.h, policyd(8)). The other form is for a person: it prints the
 * same reply line. The injected syscalls run with the target's own
 * credentials and cpuset, so they need no capability. --serve also takes
 * migrate= requests (NUMANodes= where a cgroup has no cpuset): migrate_pages
 * from here, for which CAP_SYS_NICE moves shared pages too. When this
 * process exits, the kernel detaches anything still attached.
 * Exit status: 0 applied (--serve: every request got its reply), 1 failed, 2 refused,
 * 3 vanished, 4 usage. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject-serve.h"
#include "inject-wire.h"

/* What was read back is what was asked: numa_maps spells the policy. */
static bool verified(const InjectRequest *req, const InjectQuery *q) {
        char want[INJECT_POLICY_TEXT_MAX];

        if (req->ksm >= 0 && q->ksm != req->ksm)
                return false;
        return !req->set_mempolicy ||
               (mempolicy_format_numa_maps(&req->mempolicy, want, sizeof(want)) == 0 && strcmp(want, q->mempolicy) == 0);
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "ksm", required_argument, NULL, 'k' },
                { "mempolicy", required_argument, NULL, 'm' },
                { "timeout", required_argument, NULL, 't' },
                { "verify", no_argument, NULL, 'v' },
                { "serve", no_argument, NULL, 's' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        InjectRequest req = { .ksm = -1 };
        InjectReport rep;
        InjectQuery q, *qp = NULL;
        bool do_verify = false, serve = false;
        char line[2 * INJECT_WIRE_LINE_MAX];
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
                case 's':
                        serve = true;
                        break;
                case 'h':
                        printf("%s --serve\n"
                               "%s PID [--ksm=yes|no] [--mempolicy=SPEC] [--timeout=MSEC] [--verify]\n"
                               "SPEC: default, local, preferred:N, bind:LIST, interleave:LIST,\n"
                               "      preferred-many:LIST, weighted-interleave:LIST\n", argv[0], argv[0]);
                        return 0;
                default:
                        return 4;
                }
        if (serve) {
                if (optind != argc || req.ksm >= 0 || req.set_mempolicy || do_verify) {
                        fprintf(stderr, "--serve takes no other argument: the request comes on standard input\n");
                        return 4;
                }
                return inject_serve(STDIN_FILENO) < 0 ? 1 : 0;
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
        if (do_verify && (rep.outcome == INJECT_APPLIED || rep.outcome == INJECT_FAILED) && inject_query(pid, &q) == 0)
                qp = &q;
        if (inject_wire_format_reply(pid, &rep, qp, NULL, line, sizeof(line)) == 0)
                fputs(line, stdout);

        switch (rep.outcome) {
        case INJECT_APPLIED:
                return !do_verify || (qp && verified(&req, qp)) ? 0 : 1;
        case INJECT_REFUSED:
                return 2;
        case INJECT_VANISHED:
                return 3;
        default:
                return 1;
        }
}
