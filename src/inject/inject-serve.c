/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inject-creds.h"
#include "inject-serve.h"
#include "inject-wire.h"

/* How long a client may take to send the rest of a request it began. */
#define READ_TIMEOUT_MS 5000
/* How long a connection may stay idle before a request, the first too:
 * policyd opens a link ahead of its requests and closes it after 10 s
 * without one (inject-client.c); this is for a client that does not. */
#define IDLE_TIMEOUT_MS 30000
#define REPLY_MAX (2 * INJECT_WIRE_LINE_MAX)

static long now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Reads up to and including the first "\n", time-boxed, and the fds that
 * come with it: *ret_pidfd is the one fd, -1 when there was none, and
 * *ret_extra_fds tells of more (which are closed). Before the first byte
 * the wait is idle_ms long, and an end there is -ENODATA (the client is
 * done); once a request began, READ_TIMEOUT_MS. A line that does not end
 * the bytes read is returned whole, for the parser to refuse: one request
 * at a time. Nothing at all within idle_ms is -EAGAIN; a request begun and
 * not ended in time, -ETIMEDOUT. */
static int read_request(int fd, long idle_ms, char *buf, size_t size, size_t *ret_len, int *ret_pidfd,
                        bool *ret_extra_fds) {
        long deadline = now_ms() + idle_ms;
        size_t len = 0;
        int pidfd = -1;
        bool extra = false;

        assert(buf && size > 0 && ret_len && ret_pidfd && ret_extra_fds);
        while (len == 0 || buf[len - 1] != '\n') {
                union {
                        struct cmsghdr h;
                        char b[CMSG_SPACE(sizeof(int) * 4)];
                } control;
                struct iovec iov = { buf + len, size - len };
                struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control,
                                     .msg_controllen = sizeof(control) };
                struct pollfd p = { .fd = fd, .events = POLLIN };
                long left = deadline - now_ms();
                ssize_t n;

                if (len == size)
                        break;  /* too long: the parser says so */
                if (left <= 0 || poll(&p, 1, (int) left) == 0) {
                        if (pidfd >= 0)
                                close(pidfd);
                        return len == 0 && pidfd < 0 ? -EAGAIN : -ETIMEDOUT;
                }
                n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (n < 0) {
                        int r = -errno;
                        if (pidfd >= 0)
                                close(pidfd);
                        return r;
                }
                for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
                        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                                continue;
                        size_t nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                        for (size_t i = 0; i < nfds; i++) {
                                int got;
                                memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                                if (pidfd < 0 && !extra)
                                        pidfd = got;
                                else {
                                        close(got);
                                        extra = true;
                                }
                        }
                }
                if (mh.msg_flags & MSG_CTRUNC)
                        extra = true;  /* the kernel dropped the fds that did not fit */
                if (n == 0) {
                        if (len == 0 && pidfd < 0)
                                return -ENODATA;  /* done, between two requests */
                        break;  /* the client is done before a whole line */
                }
                if (len == 0)
                        deadline = now_ms() + READ_TIMEOUT_MS;  /* a request began */
                len += (size_t) n;
        }
        *ret_len = len;
        *ret_pidfd = pidfd;
        *ret_extra_fds = extra;
        return 0;
}

/* The PID a pidfd refers to, from our fdinfo of it (see fdinfo_pidfd_pid). */
static int pidfd_get_pid(int pidfd, pid_t *ret) {
        char path[64], text[1024];
        int r;

        snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
        r = inject_read_file(path, text, sizeof(text));
        return r < 0 ? r : fdinfo_pidfd_pid(text, ret);
}

static int send_all(int fd, const char *buf, size_t len) {
        while (len > 0) {
                ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                buf += n;
                len -= (size_t) n;
        }
        return 0;
}

/* One connection, and what its current request decided. */
typedef struct Conn {
        int fd;
        struct ucred peer;
        bool first;   /* the connection's first request */
        bool last;    /* the connection ends after this reply (last=1) */
} Conn;

static int reply(Conn *c, pid_t pid, const InjectReport *rep, const InjectQuery *q, const char *error) {
        char line[REPLY_MAX];
        int r = inject_wire_format_reply(pid, rep, q, error, line, sizeof(line) - 8);
        size_t len;

        if (r < 0)
                r = inject_wire_format_reply(pid, NULL, NULL, "reply too long", line, sizeof(line) - 8);
        if (r < 0)
                return r;
        /* Whether the connection goes on: the client keeps it only on
         * last=0, so that neither end has to guess the other's rule. */
        len = strlen(line);
        assert(len > 0 && line[len - 1] == '\n');
        snprintf(line + len - 1, sizeof(line) - (len - 1), " last=%d\n", c->last ? 1 : 0);
        /* The journal gets what the client gets, and who asked. */
        fprintf(stderr, "peer pid %d uid %d: %s", (int) c->peer.pid, (int) c->peer.uid, line);
        r = send_all(c->fd, line, strlen(line));
        if (r < 0)
                fprintf(stderr, "Cannot send the reply: %s\n", strerror(-r));
        return r;
}

__attribute__((format(printf, 3, 4)))
static int reply_error(Conn *c, pid_t pid, const char *fmt, ...) {
        char text[256];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        return reply(c, pid, NULL, NULL, text);
}

/* 1 with *rep a refusal when a request acting for acting_uid may not reach
 * pid (inject-creds.h), 0 when it may; a vanished process is 1 too, with
 * that outcome. < 0: /proc could not be read. */
static int creds_refused(pid_t pid, bool migrate, uid_t acting_uid, InjectReport *rep) {
        InjectRefusal refusal = INJECT_REFUSAL_NONE;
        int r = inject_creds_verify(pid, acting_uid, &refusal);

        if (r == -EPERM) {
                *rep = (InjectReport) { .outcome = INJECT_REFUSED, .refusal = refusal, .ksm_result = 1,
                                        .migrate = migrate };
                return 1;
        }
        if (r == -ESRCH) {
                *rep = (InjectReport) { .outcome = INJECT_VANISHED, .ksm_result = 1, .migrate = migrate };
                return 1;
        }
        return r;
}

/* Drops CAP_SYS_NICE from this process's ambient, effective, permitted
 * and inheritable sets, for good: only a root migration needs it (the
 * kernel gives migrate_pages MPOL_MF_MOVE_ALL and nodes outside the
 * target's cpuset with it). The unit allows capset for this. Read back:
 * 0 when it is gone, < 0 when it is still there. */
int inject_drop_cap_sys_nice(void) {
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
        const unsigned i = CAP_TO_INDEX(CAP_SYS_NICE);
        const uint32_t bit = CAP_TO_MASK(CAP_SYS_NICE);

        /* The kernel drops an ambient capability with the permitted one;
         * lowered first anyway, so that no exec could bring it back. */
        (void) prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_NICE, 0, 0);
        if (syscall(SYS_capget, &header, data) < 0)
                return -errno;
        data[i].effective &= ~bit;
        data[i].permitted &= ~bit;
        data[i].inheritable &= ~bit;
        if (syscall(SYS_capset, &header, data) < 0)
                return -errno;
        memset(data, 0, sizeof(data));
        if (syscall(SYS_capget, &header, data) < 0)
                return -errno;
        if ((data[i].effective | data[i].permitted | data[i].inheritable) & bit ||
            prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_SYS_NICE, 0, 0) > 0)
                return -EPERM;
        return 0;
}

/* Whether a thread's policy as numa_maps reads it (read; "" unread) is p's. */
static bool policy_reads_as(const char *read, const Mempolicy *p) {
        char spelled[sizeof(((InjectQuery *) NULL)->mempolicy)];

        return mempolicy_format_numa_maps(p, spelled, sizeof(spelled)) >= 0 && strcmp(read, spelled) == 0;
}

/* ensure=1: drops from w's request what the process has already (q, just
 * read). KSM as it reads; the mempolicy when every thread has it ("mixed"
 * differs), and for an undo (mempolicy_if=) also when a thread has another
 * than the one policyd set: that one is not policyd's to take back. A value
 * that could not be read is set, as it is without ensure=1. */
static void ensure_reduce(InjectWireRequest *w, const InjectQuery *q) {
        if (w->req.ksm >= 0 && q->ksm == w->req.ksm)
                w->req.ksm = -1;
        if (w->req.set_mempolicy && q->mempolicy[0] != '\0') {
                if (policy_reads_as(q->mempolicy, &w->req.mempolicy) ||
                    (w->has_mempolicy_if && !policy_reads_as(q->mempolicy, &w->mempolicy_if)))
                        w->req.set_mempolicy = false;
        }
}

/* One request and its reply. c->last says that the connection ends after
 * it: a request refused before it reached its target (the stream may be out
 * of step), or a thread left attached (stuck), which only this process's
 * exit lets go. Only a connection's first request may be a root migration,
 * which keeps CAP_SYS_NICE. */
static int serve_request(Conn *c, const char *data, size_t len, int pidfd, bool extra_fds) {
        InjectWireRequest w;
        InjectReport rep;
        InjectQuery q, *qp = NULL;
        pid_t fd_pid;
        int r;

        c->last = true;
        r = inject_wire_parse_request(data, len, &w);
        /* Dropped for good by an earlier request of this connection. */
        if (r >= 0 && w.migrate && w.req.acting_uid == 0 && !c->first)
                return reply_error(c, w.pid,
                                   "a root migration must be its connection's first request (CAP_SYS_NICE)");
        /* Whatever the request is, unless it is root's migration, it goes
         * on without CAP_SYS_NICE: a user's migration moves only the pages
         * the process has to itself, to nodes its cpuset allows. */
        if (r < 0 || !w.migrate || w.req.acting_uid != 0) {
                int k = inject_drop_cap_sys_nice();
                if (k < 0) {
                        fprintf(stderr, "Cannot drop CAP_SYS_NICE: %s\n", strerror(-k));
                        if (r >= 0 && w.migrate)
                                return reply_error(c, w.pid, "cannot drop CAP_SYS_NICE for a user's migration: %s",
                                                   strerror(-k));
                } else if (r >= 0 && w.migrate)
                        fprintf(stderr, "CAP_SYS_NICE dropped: a migration for uid %u\n", (unsigned) w.req.acting_uid);
        }
        if (r < 0)
                return reply_error(c, w.pid, "%s", w.error);
        if (extra_fds)
                return reply_error(c, w.pid, "more than one file descriptor attached");
        if (pidfd < 0)
                return reply_error(c, w.pid, "no pidfd attached (SCM_RIGHTS)");

        r = pidfd_get_pid(pidfd, &fd_pid);
        if (r == -ENOENT)
                return reply_error(c, w.pid, "the attached file descriptor is not a pidfd");
        if (r < 0)
                return reply_error(c, w.pid, "cannot read the pidfd's fdinfo: %s", strerror(-r));
        if (fd_pid == -1) {
                /* Exited, and reaped: its PID may be another's already. A
                 * well-formed request: the connection goes on. */
                c->last = false;
                rep = (InjectReport) { .outcome = INJECT_VANISHED, .ksm_result = 1 };
                return reply(c, w.pid, &rep, NULL, NULL);
        }
        if (fd_pid == 0)
                return reply_error(c, w.pid, "the pidfd's process is outside the helper's PID namespace");
        if (fd_pid != w.pid)
                return reply_error(c, w.pid, "the pidfd is of PID %d, not %d", (int) fd_pid, (int) w.pid);
        c->last = false; /* a well-formed request: the next may follow */

        if (w.query || w.ensure) {
                /* Reading is all of a query: no refusal applies, as none
                 * would to cat. ensure=1, one request a move: what the
                 * process has already is not set again, and a process that
                 * has it all is not stopped. */
                r = inject_query(w.pid, &q);
                if (r == -ESRCH) {
                        rep = (InjectReport) { .outcome = INJECT_VANISHED, .ksm_result = 1 };
                        return reply(c, w.pid, &rep, NULL, NULL);
                }
                if (r < 0)
                        return reply_error(c, w.pid, "cannot read /proc/%d: %s", (int) w.pid, strerror(-r));
                if (w.ensure)
                        ensure_reduce(&w, &q);
                if (w.query || (w.req.ksm < 0 && !w.req.set_mempolicy))
                        return reply(c, w.pid, NULL, &q, NULL);
        }
        /* A user's request reaches only the user's own process: nothing is
         * stopped or moved in another's. inject.c asks again once it has
         * stopped every thread, and at the end. */
        r = creds_refused(w.pid, w.migrate, w.req.acting_uid, &rep);
        if (r > 0)
                return reply(c, w.pid, &rep, NULL, NULL);
        if (r < 0)
                return reply_error(c, w.pid, "cannot read the credentials of PID %d: %s", (int) w.pid,
                                   strerror(-r));
        if (w.migrate) {
                /* Nothing is stopped: no refusal but the kernel's own, and ours
                 * above. For a user, CAP_SYS_NICE is gone (above): no moving
                 * of pages the process shares with others (MPOL_MF_MOVE_ALL). */
                r = inject_migrate_pages(pidfd, w.pid, w.migrate_nodes, &rep);
                if (r == -EINVAL)
                        return reply_error(c, w.pid, "PID %d is a thread, not a process", (int) w.pid);
                if (r < 0)
                        return reply_error(c, w.pid, "%s", strerror(-r));
                /* An exec of a setuid program meanwhile: said, though the
                 * pages of what was the user's process have moved. */
                if (rep.outcome == INJECT_APPLIED)
                        (void) creds_refused(w.pid, true, w.req.acting_uid, &rep);
                return reply(c, w.pid, &rep, NULL, NULL);
        }
        if (w.pid == c->peer.pid) {
                /* policyd itself: it waits for this reply. */
                rep = (InjectReport) { .outcome = INJECT_REFUSED, .refusal = INJECT_REFUSAL_SELF, .ksm_result = 1 };
                return reply(c, w.pid, &rep, NULL, NULL);
        }
        r = inject_process_pidfd(pidfd, w.pid, &w.req, &rep);
        c->last = r < 0 || rep.stuck;
        if (r == -EINVAL)
                return reply_error(c, w.pid, "PID %d is a thread, not a process", (int) w.pid);
        if (r < 0)
                return reply_error(c, w.pid, "%s", strerror(-r));
        /* Failed may still have changed something (KSM refused by an old
         * kernel, the policy set): say what is there, of what was asked. */
        if ((rep.outcome == INJECT_APPLIED || rep.outcome == INJECT_FAILED) && inject_query(w.pid, &q) == 0) {
                if (w.req.ksm < 0)
                        q.ksm = -1;
                if (!w.req.set_mempolicy)
                        q.mempolicy[0] = '\0';
                qp = &q;
        }
        return reply(c, w.pid, &rep, qp, NULL);
}

/* Traced threads that exited during a job and were not reaped: none may
 * answer a later job's waitpid() for a thread that got the same TID. */
static void reap_leftover_tracees(void) {
        int status;

        while (waitpid(-1, &status, __WALL | WNOHANG) > 0)
                ;
}

int inject_serve(int fd) {
        char data[INJECT_WIRE_LINE_MAX + 1];
        Conn conn = { .fd = fd, .first = true };
        socklen_t sl = sizeof(conn.peer), tl = sizeof(int);
        int type = 0, r;

        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 || type != SOCK_STREAM) {
                fprintf(stderr, "--serve needs a stream socket on standard input (policyd-inject.socket)\n");
                return -ENOTSOCK;
        }
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &conn.peer, &sl) < 0) {
                r = -errno;
                fprintf(stderr, "SO_PEERCRED: %s\n", strerror(-r));
                return r;
        }
        /* Requests one after another, each answered before the next is read,
         * until the client closes, stays idle, or a request ends it. One byte
         * more than a request may have, so that the parser sees an overlong
         * one. The first request is read before any reply, whoever sent it,
         * so that every client gets its reply after its request. */
        for (unsigned served = 0;; served++) {
                int pidfd = -1;
                size_t len = 0;
                bool extra_fds = false;

                conn.first = served == 0;
                conn.last = true;
                r = read_request(fd, IDLE_TIMEOUT_MS, data, sizeof(data), &len,
                                 &pidfd, &extra_fds);
                if (r == -ENODATA || (served > 0 && r == -EAGAIN)) {
                        /* Closed before any request too: policyd opens a link
                         * ahead of its requests, and closes it unused. */
                        fprintf(stderr, "Served %u request%s; the connection is %s.\n", served,
                                served == 1 ? "" : "s", r == -EAGAIN ? "idle" : "closed");
                        return 0;
                }
                if (r == -EAGAIN)
                        r = -ETIMEDOUT;
                if (conn.peer.uid != 0) {
                        /* The socket is 0600 root: this is the second lock, not the first. */
                        r = reply_error(&conn, 0, "permission denied: the caller is uid %d, not root",
                                        (int) conn.peer.uid);
                        if (pidfd >= 0)
                                close(pidfd);
                        return r;
                }
                if (r == -ETIMEDOUT)
                        return reply_error(&conn, 0, "no whole request in time (%d ms idle, then %d ms for the "
                                                     "line)", IDLE_TIMEOUT_MS, READ_TIMEOUT_MS);
                if (r < 0)
                        return reply_error(&conn, 0, "cannot read the request: %s", strerror(-r));

                r = serve_request(&conn, data, len, pidfd, extra_fds);
                if (pidfd >= 0)
                        close(pidfd);
                reap_leftover_tracees();
                if (r < 0 || conn.last)
                        return r;
        }
}
