/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "inject-client.h"
#include "inject-wire.h"
#include "util.h"

#define REPLY_MAX 4096

/* A link is one connection to policyd-inject.socket, and so one helper
 * process (Accept=yes), which answers one request after another. A link
 * stays open while requests keep coming, and is closed LINK_IDLE_USEC
 * after its last reply: the helper exits then. Starting a helper costs
 * about ten times one request (bench/RESULTS.md, process layer), so a
 * link is kept for the next move for a while; an idle helper costs no
 * wakeup, only its memory. A link older than
 * LINK_REUSE_USEC takes no new request, so that no helper runs near its
 * unit's RuntimeMaxSec=. A root migration has a link of its own: the helper
 * keeps CAP_SYS_NICE for it alone (inject-serve.c). */
#define LINK_IDLE_USEC (10 * G_USEC_PER_SEC)
#define LINK_REUSE_USEC (20 * G_USEC_PER_SEC)
/* A link this close to LINK_REUSE_USEC starts its successor, so that the
 * successor's helper has started by the time the link retires. */
#define LINK_PREWARM_USEC (5 * G_USEC_PER_SEC)

typedef struct InjectLink {
        InjectPool *pool;          /* NULL once the pool is gone */
        int fd;
        sd_event_source *io;       /* while idle too: the helper's exit ends the link */
        sd_event_source *idle_timer;
        GString *buffer;
        InjectCall *call;          /* in flight, or NULL: idle */
        uint64_t opened_usec;
        bool one_shot;
        bool successor_started;
} InjectLink;

struct InjectPool {
        sd_event *event;
        char *socket_path;
        GQueue *idle;              /* InjectLink*, idle, most recently used first */
        GHashTable *links;         /* every open link, idle or not */
        uint64_t opened;           /* links opened since the start: helper processes */
        uint64_t requests;
};

struct InjectCall {
        InjectLink *link;
        sd_event_source *timer;
        InjectCallback callback;
        void *userdata;
        pid_t pid;                 /* the reply must say it */
        int pidfd;                 /* borrowed: the owner keeps it open until the callback */
        GString *line;             /* sent once more on a new link, if a reused one dropped it unread */
        bool reused;               /* went on a link that had answered before */
        bool resent;
};

void inject_reply_clear(InjectReply *r) {
        g_free(r->outcome);
        g_free(r->reason);
        g_free(r->error);
        g_free(r->exe);
        g_free(r->ksm);
        g_free(r->mempolicy);
        *r = (InjectReply) {};
}

/* The helper's tokenizer (inject-wire.c), so that both ends read one grammar. */
int inject_reply_parse(const char *line, InjectReply *ret) {
        InjectReply r = { .not_moved = -1, .last = -1 };
        const char *p = line, *end = line + strlen(line);
        char key[32], value[INJECT_WIRE_LINE_MAX];
        int k;

        if (end > line && end[-1] == '\n')
                end--;
        while ((k = inject_wire_next(&p, end, key, sizeof(key), value, sizeof(value))) > 0) {
                char **slot = streq(key, "outcome")              ? &r.outcome
                              : streq(key, "reason")             ? &r.reason
                              : streq(key, "error")              ? &r.error
                              : streq(key, "exe")                ? &r.exe
                              : streq(key, "verified_ksm")       ? &r.ksm
                              : streq(key, "verified_mempolicy") ? &r.mempolicy
                                                                 : NULL;
                if (slot) {
                        g_free(*slot);
                        *slot = g_strdup(value);
                } else if (streq(key, "threads"))
                        r.threads = (unsigned) g_ascii_strtoull(value, NULL, 10);
                else if (streq(key, "stuck"))
                        r.stuck = streq(value, "1");
                else if (streq(key, "not_moved") && g_ascii_isdigit(value[0]))
                        r.not_moved = (long) g_ascii_strtoll(value, NULL, 10);
                else if (streq(key, "set")) {
                        r.set_ksm = streq(value, "ksm") || streq(value, "ksm,mempolicy");
                        r.set_mempolicy = streq(value, "mempolicy") || streq(value, "ksm,mempolicy");
                } else if (streq(key, "last"))
                        r.last = streq(value, "0") ? 0 : 1;
                else if (streq(key, "pid") && g_ascii_isdigit(value[0]))
                        r.pid = (pid_t) g_ascii_strtoll(value, NULL, 10);
        }
        if (k < 0 || !r.outcome) {
                inject_reply_clear(&r);
                return k < 0 ? k : -EBADMSG;
        }
        *ret = r;
        return 0;
}

static void link_close(InjectLink *l) {
        assert(l && !l->call);
        if (l->pool) {
                g_queue_remove(l->pool->idle, l);
                g_hash_table_remove(l->pool->links, l);
        }
        sd_event_source_disable_unref(l->io);
        sd_event_source_disable_unref(l->idle_timer);
        safe_close(l->fd);
        g_string_free(l->buffer, true);
        g_free(l);
}

InjectCall *inject_call_free(InjectCall *c) {
        if (!c)
                return NULL;
        if (c->link) {
                /* Cancelled in flight: the helper may answer yet, so the
                 * link cannot carry another request. */
                c->link->call = NULL;
                link_close(c->link);
        }
        sd_event_source_disable_unref(c->timer);
        if (c->line)
                g_string_free(c->line, true);
        g_free(c);
        return NULL;
}

static int on_link_idle(sd_event_source *s, uint64_t usec, void *userdata) {
        (void) s;
        (void) usec;
        link_close(userdata);
        return 0;
}

/* After a reply: the link waits for the next request, or goes. */
static int link_open(InjectPool *p, bool one_shot, InjectLink **ret);

/* Idle: at the head, the next request's; at the tail, a successor's place. */
static int link_keep_idle(InjectLink *l, bool head) {
        int r = sd_event_add_time_relative(l->pool->event, &l->idle_timer, CLOCK_MONOTONIC, LINK_IDLE_USEC,
                                           100 * 1000, on_link_idle, l);
        if (r < 0)
                return r;
        if (head)
                g_queue_push_head(l->pool->idle, l);
        else
                g_queue_push_tail(l->pool->idle, l);
        return 0;
}

static void link_start_successor(InjectLink *l) {
        InjectLink *next = NULL;

        l->successor_started = true;
        if (link_open(l->pool, false, &next) >= 0 && link_keep_idle(next, false) < 0)
                link_close(next);
}

static void link_release(InjectLink *l, bool keep) {
        InjectPool *p = l->pool;
        uint64_t now = 0;
        bool aged;

        l->call = NULL;
        g_string_truncate(l->buffer, 0);
        if (p)
                (void) sd_event_now(p->event, CLOCK_MONOTONIC, &now);
        aged = now >= l->opened_usec + LINK_REUSE_USEC;
        /* A link in use near its retirement starts its successor, so that the
         * next request after it does not wait for a helper's start. The
         * successor waits at the tail, and goes when idle like any other. */
        if (keep && !l->one_shot && p && !l->successor_started &&
            now + LINK_PREWARM_USEC >= l->opened_usec + LINK_REUSE_USEC)
                link_start_successor(l);
        if (keep && !l->one_shot && p && !aged && link_keep_idle(l, true) >= 0)
                return;
        link_close(l);
}

/* The callback may free the call: nothing touches c after it. keep: the
 * link answered as it should, and may carry the next request. */
static void call_finish(InjectCall *c, const InjectReply *reply, int error, bool keep) {
        assert(c && c->callback);
        /* A reply, or an error: never both. */
        assert(!reply || error == 0);
        c->timer = sd_event_source_disable_unref(c->timer);
        if (c->link) {
                InjectLink *l = TAKE_PTR(c->link);
                link_release(l, keep && error == 0);
        }
        c->callback(c, reply, error, c->userdata);
}

static int link_send_new(InjectPool *p, int pidfd, const GString *line, bool one_shot, InjectLink **ret);

/* The link's fd: a reply for its call, or, while idle, the helper's end. */
static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        InjectLink *l = userdata;
        InjectCall *c = l->call;
        char buf[512];
        ssize_t n;
        (void) s;
        (void) revents;

        n = read(fd, buf, sizeof(buf));
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
        if (!c) {
                /* Idle: the helper went (idle, RuntimeMaxSec=), or said
                 * something unasked. Either way, no more requests here. */
                link_close(l);
                return 0;
        }
        if (n < 0 && errno == ECONNRESET && l->buffer->len == 0 && c->reused && !c->resent && l->pool) {
                /* The helper went (idle, killed) with the request unread:
                 * an AF_UNIX peer that closes with data unread resets. It
                 * never acted on it; the request goes on a new link, once. */
                InjectPool *p = l->pool;
                InjectLink *fresh = NULL;
                c->link = NULL;
                l->call = NULL;
                link_close(l);
                int r = link_send_new(p, c->pidfd, c->line, false, &fresh);
                if (r < 0) {
                        call_finish(c, NULL, r, false);
                        return 0;
                }
                c->link = fresh;
                fresh->call = c;
                c->resent = true;
                return 0;
        }
        if (n < 0) {
                call_finish(c, NULL, -errno, false);
                return 0;
        }
        g_string_append_len(l->buffer, buf, n);
        const char *nl = memchr(l->buffer->str, '\n', l->buffer->len);
        if (!nl && n > 0 && l->buffer->len < REPLY_MAX)
                return 0;
        if (!nl) {
                call_finish(c, NULL, n == 0 ? -ECONNRESET : -EMSGSIZE, false);
                return 0;
        }

        InjectReply reply = {};
        /* One reply to one request: anything after it is out of step. */
        bool in_step = (size_t) (nl - l->buffer->str) + 1 == l->buffer->len;
        g_autofree char *line = g_strndup(l->buffer->str, (gsize) (nl - l->buffer->str));
        int r = inject_reply_parse(line, &reply);
        if (r >= 0 && reply.pid != 0 && reply.pid != c->pid) {
                /* Not this request's reply: the connection is out of step. */
                inject_reply_clear(&reply);
                r = -EBADMSG;
        }
        if (r < 0)
                call_finish(c, NULL, r, false);
        else {
                /* The helper says whether it takes another request here
                 * (last=0); it ends the connection after an error reply and
                 * after a job that left a thread attached. */
                call_finish(c, &reply, 0, in_step && reply.last == 0);
                inject_reply_clear(&reply);
        }
        return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        (void) s;
        (void) usec;
        call_finish(userdata, NULL, -ETIMEDOUT, false);
        return 0;
}

static int link_open(InjectPool *p, bool one_shot, InjectLink **ret) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd, r;

        if (strlen(p->socket_path) >= sizeof(sa.sun_path))
                return -EINVAL;
        strcpy(sa.sun_path, p->socket_path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        /* The socket unit accepts: a connect completes at once, or fails. */
        if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                r = negative_errno();
                safe_close(fd);
                return r;
        }

        InjectLink *l = g_malloc0(sizeof(InjectLink));
        l->fd = fd;
        l->buffer = g_string_new(NULL);
        l->one_shot = one_shot;
        r = sd_event_add_io(p->event, &l->io, l->fd, EPOLLIN, on_readable, l);
        if (r < 0) {
                safe_close(l->fd);
                g_string_free(l->buffer, true);
                g_free(l);
                return r;
        }
        (void) sd_event_now(p->event, CLOCK_MONOTONIC, &l->opened_usec);
        l->pool = p;
        g_hash_table_add(p->links, l);
        p->opened++;
        *ret = l;
        return 0;
}

static int link_send(InjectLink *l, int pidfd, const GString *line) {
        union {
                struct cmsghdr header;
                char space[CMSG_SPACE(sizeof(int))];
        } control = {};
        struct iovec iov = { .iov_base = line->str, .iov_len = line->len };
        struct msghdr msg = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = &control,
                .msg_controllen = sizeof(control),
        };
        struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
        if (!cmsg) /* cannot be: the control buffer is one header's size */
                return -EINVAL;
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cmsg), &pidfd, sizeof(int));
        /* A line is far below the socket's buffer, which is empty between
         * two requests: it goes whole or not at all. */
        ssize_t n = sendmsg(l->fd, &msg, MSG_NOSIGNAL);
        if (n < 0)
                return -errno;
        return (size_t) n == line->len ? 0 : -EIO;
}

/* The request on an idle link, or NULL when none took it. An idle link
 * whose helper is gone fails the send, and the request goes on the next;
 * one whose helper goes after the send resets it unread (on_readable()). */
static InjectLink *link_send_idle(InjectPool *p, int pidfd, const GString *line) {
        InjectLink *l;

        if (g_queue_is_empty(p->idle))
                return NULL; /* nothing to check the socket for */
        /* An administrator who stops policyd-inject.socket stops injection:
         * its file goes (RemoveOnStop=yes), and the helpers it started are
         * used no more. */
        if (access(p->socket_path, F_OK) < 0) {
                while ((l = g_queue_pop_head(p->idle)))
                        link_close(l);
                return NULL;
        }
        uint64_t now = 0;
        (void) sd_event_now(p->event, CLOCK_MONOTONIC, &now);
        while ((l = g_queue_pop_head(p->idle))) {
                l->idle_timer = sd_event_source_disable_unref(l->idle_timer);
                /* Retired while idle: no request goes on a link older than
                 * LINK_REUSE_USEC (its successor, if any, is next). */
                if (now < l->opened_usec + LINK_REUSE_USEC && link_send(l, pidfd, line) >= 0)
                        return l;
                link_close(l);
        }
        return NULL;
}

bool inject_pool_has_idle(InjectPool *p) {
        uint64_t now = 0;

        assert(p);
        (void) sd_event_now(p->event, CLOCK_MONOTONIC, &now);
        for (GList *i = p->idle->head; i; i = i->next)
                if (now < ((InjectLink *) i->data)->opened_usec + LINK_REUSE_USEC)
                        return true;
        return false;
}

/* The request on a new link. */
static int link_send_new(InjectPool *p, int pidfd, const GString *line, bool one_shot, InjectLink **ret) {
        InjectLink *l = NULL;
        int r;

        r = link_open(p, one_shot, &l);
        if (r < 0)
                return r;
        r = link_send(l, pidfd, line);
        if (r < 0) {
                link_close(l);
                return r;
        }
        *ret = l;
        return 0;
}

/* One request line, with the pidfd, on an idle link or a new one, and a
 * timer for the helper's own time box plus its start. */
static int call_start(InjectPool *p, int pidfd, pid_t pid, GString *line, unsigned timeout_ms, bool one_shot,
                      InjectCallback callback, void *userdata, InjectCall **ret) {
        InjectLink *l = NULL;
        InjectCall *c;
        bool reused = false;
        int r;

        assert(p && line && callback && ret);

        if (!one_shot)
                reused = (l = link_send_idle(p, pidfd, line)) != NULL;
        if (!l) {
                r = link_send_new(p, pidfd, line, one_shot, &l);
                if (r < 0)
                        return r;
        }
        p->requests++;

        c = g_new0(InjectCall, 1);
        c->callback = callback;
        c->userdata = userdata;
        c->pid = pid;
        c->pidfd = pidfd;
        c->line = g_string_new_len(line->str, (gssize) line->len);
        c->reused = reused;
        c->link = l;
        l->call = c;
        /* The helper's own time box, plus its start. */
        r = sd_event_add_time_relative(p->event, &c->timer, CLOCK_MONOTONIC, ((uint64_t) timeout_ms + 10000) * 1000,
                                       100000, on_timeout, c);
        if (r < 0) {
                inject_call_free(c);
                return r;
        }
        *ret = c;
        return 0;
}

int inject_call_start(InjectPool *p, int pidfd, pid_t pid, const InjectAsk *ask, InjectCallback callback,
                      void *userdata, InjectCall **ret) {
        g_autoptr(GString) line = g_string_new(NULL);

        assert(ask);
        if (ask->for_uid == (uid_t) -1 || (ask->mempolicy_if && (!ask->ensure || !ask->mempolicy)))
                return -EINVAL;
        g_string_printf(line, "pid=%d", (int) pid);
        if (ask->query)
                g_string_append(line, " query=1");
        else
                g_string_append_printf(line, " ksm=%s mempolicy=%s timeout_ms=%u for_uid=%u",
                                       ask->ksm < 0 ? "-" : ask->ksm ? "1" : "0", ask->mempolicy ?: "-",
                                       ask->timeout_ms, (unsigned) ask->for_uid);
        if (!ask->query && ask->ensure)
                g_string_append(line, " ensure=1");
        if (!ask->query && ask->mempolicy_if)
                g_string_append_printf(line, " mempolicy_if=%s", ask->mempolicy_if);
        g_string_append_c(line, '\n');
        return call_start(p, pidfd, pid, line, ask->timeout_ms, false, callback, userdata, ret);
}

int inject_call_start_migrate(InjectPool *p, int pidfd, pid_t pid, const char *nodes, uid_t for_uid,
                              InjectCallback callback, void *userdata, InjectCall **ret) {
        g_autoptr(GString) line = g_string_new(NULL);

        if (isempty(nodes) || for_uid == (uid_t) -1)
                return -EINVAL;
        g_string_printf(line, "pid=%d migrate=%s for_uid=%u\n", (int) pid, nodes, (unsigned) for_uid);
        /* migrate_pages has no time box of its own: a large process takes a
         * while. Root's keeps CAP_SYS_NICE only as a link's first request. */
        return call_start(p, pidfd, pid, line, 0, for_uid == 0, callback, userdata, ret);
}

int inject_pool_new(sd_event *event, const char *socket_path, InjectPool **ret) {
        InjectPool *p;

        assert(event && socket_path && ret);
        p = g_new0(InjectPool, 1);
        p->event = sd_event_ref(event);
        p->socket_path = g_strdup(socket_path);
        p->idle = g_queue_new();
        p->links = g_hash_table_new(NULL, NULL);
        *ret = p;
        return 0;
}

InjectPool *inject_pool_free(InjectPool *p) {
        GHashTableIter it;
        gpointer key;
        InjectLink *l;

        if (!p)
                return NULL;
        while ((l = g_queue_pop_head(p->idle)))
                link_close(l);
        /* Links of calls still in flight outlive the pool; their calls close them. */
        g_hash_table_iter_init(&it, p->links);
        while (g_hash_table_iter_next(&it, &key, NULL))
                ((InjectLink *) key)->pool = NULL;
        g_hash_table_unref(p->links);
        g_queue_free(p->idle);
        sd_event_unref(p->event);
        g_free(p->socket_path);
        g_free(p);
        return NULL;
}

const char *inject_pool_socket_path(const InjectPool *p) {
        return p->socket_path;
}

void inject_pool_counts(const InjectPool *p, uint64_t *ret_opened, uint64_t *ret_requests) {
        *ret_opened = p->opened;
        *ret_requests = p->requests;
}
