/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NUMANodes= where cpuset.mems cannot be written (DESIGN §6, §7): the pages a
 * process has already placed go to the group's nodes with migrate_pages(2).
 * Unlike an injection, nothing is stopped: the kernel moves another
 * process's pages on its own. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "inject.h"

#define BITS_PER_WORD (8 * sizeof(unsigned long))
#define NODES_POSSIBLE "/sys/devices/system/node/possible"

/* migrate_pages' maxnode for masks of this many words: the kernel reads
 * maxnode - 1 bits, and refuses set bits beyond its MAX_NUMNODES, so only
 * the words in use are passed. */
static unsigned long maxnode_for(const unsigned long *a, const unsigned long *b) {
        size_t words = 0;

        for (size_t w = 0; w < MEMPOLICY_NODEMASK_WORDS; w++)
                if (a[w] || b[w])
                        words = w + 1;
        return words * BITS_PER_WORD + 1;
}

int inject_migrate_pages(int pidfd, pid_t pid, const unsigned long *nodes, InjectReport *ret) {
        InjectReport rep = { .outcome = INJECT_APPLIED, .ksm_result = 1, .migrate = true };
        unsigned long from[MEMPOLICY_NODEMASK_WORDS];
        char text[4096];
        ProcStatus st;
        bool any = false;
        long n;
        int r;

        if (pidfd < 0 || pid <= 0 || !nodes || !ret)
                return -EINVAL;
        for (size_t w = 0; w < MEMPOLICY_NODEMASK_WORDS; w++)
                any |= nodes[w] != 0;
        if (!any)
                return -EINVAL;

        snprintf(text, sizeof(text), "/proc/%d/status", (int) pid);
        r = inject_read_file(text, text, sizeof(text));
        if (r == -ENOENT || r == -ESRCH || inject_pidfd_alive(pidfd) == 0) {
                rep.outcome = INJECT_VANISHED;
                goto done;
        }
        if (r < 0 || proc_status_parse(text, &st) < 0) {
                rep.outcome = INJECT_FAILED;
                rep.error = r < 0 ? r : -EBADMSG;
                goto done;
        }
        if (st.tgid != pid)
                return -EINVAL;
        /* Only these two: the others guard a ptrace stop, and there is none. */
        rep.refusal = inject_refusal_for_status(&st, 0, true);
        if (rep.refusal != INJECT_REFUSAL_KERNEL_THREAD && rep.refusal != INJECT_REFUSAL_EXITING)
                rep.refusal = INJECT_REFUSAL_NONE;
        if (rep.refusal != INJECT_REFUSAL_NONE) {
                rep.outcome = INJECT_REFUSED;
                goto done;
        }

        /* From every node that can exist, so that pages on any node outside
         * the list move; those already on it stay (do_migrate_pages maps
         * each source node outside the list onto one inside it). */
        r = inject_read_file(NODES_POSSIBLE, text, sizeof(text));
        if (r < 0 || inject_parse_sysfs_nodes(text, from) < 0) {
                memset(from, 0, sizeof(from));
                from[0] = 1; /* no NUMA in sysfs: node 0 is all there is */
        }

        n = syscall(SYS_migrate_pages, pid, maxnode_for(from, nodes), from, nodes);
        rep.migrate_result = n < 0 ? -errno : n;
        /* The PID named the pidfd's process throughout only if that one has
         * not exited by now: a PID is not reused before its process is reaped. */
        if (inject_pidfd_alive(pidfd) == 0 || rep.migrate_result == -ESRCH) {
                rep.outcome = INJECT_VANISHED;
                rep.migrate_result = 0;
        } else if (rep.migrate_result < 0) {
                rep.outcome = INJECT_FAILED;
                rep.error = (int) rep.migrate_result;
        }
done:
        *ret = rep;
        return 0;
}
