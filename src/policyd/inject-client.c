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

struct InjectCall {
        int fd;
        sd_event_source *io;
        sd_event_source *timer;
        GString *buffer;
        InjectCallback callback;
        void *userdata;
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
        InjectReply r = { .not_moved = -1 };
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
        }
        if (k < 0 || !r.outcome) {
                inject_reply_clear(&r);
                return k < 0 ? k : -EBADMSG;
        }
        *ret = r;
        return 0;
}

InjectCall *inject_call_free(InjectCall *c) {
        if (!c)
                return NULL;
        sd_event_source_disable_unref(c->io);
        sd_event_source_disable_unref(c->timer);
        safe_close(c->fd);
        if (c->buffer)
                g_string_free(c->buffer, true);
        g_free(c);
        return NULL;
}

/* The callback may free the call: nothing touches c after it. */
static void call_finish(InjectCall *c, const InjectReply *reply, int error) {
        assert(c && c->callback);
        /* A reply, or an error: never both. */
        assert(!reply || error == 0);
        c->io = sd_event_source_disable_unref(c->io);
        c->timer = sd_event_source_disable_unref(c->timer);
        c->callback(c, reply, error, c->userdata);
}

static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        InjectCall *c = userdata;
        char buf[512];
        ssize_t n;
        (void) s;
        (void) revents;

        n = read(fd, buf, sizeof(buf));
        if (n < 0) {
                if (errno == EAGAIN || errno == EINTR)
                        return 0;
                call_finish(c, NULL, -errno);
                return 0;
        }
        g_string_append_len(c->buffer, buf, n);
        const char *nl = memchr(c->buffer->str, '\n', c->buffer->len);
        if (!nl && n > 0 && c->buffer->len < REPLY_MAX)
                return 0;
        if (!nl) {
                call_finish(c, NULL, n == 0 ? -ECONNRESET : -EMSGSIZE);
                return 0;
        }

        InjectReply reply = {};
        g_autofree char *line = g_strndup(c->buffer->str, (gsize) (nl - c->buffer->str));
        int r = inject_reply_parse(line, &reply);
        if (r < 0)
                call_finish(c, NULL, r);
        else {
                call_finish(c, &reply, 0);
                inject_reply_clear(&reply);
        }
        return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        (void) s;
        (void) usec;
        call_finish(userdata, NULL, -ETIMEDOUT);
        return 0;
}

/* One request line, with the pidfd, and a timer for the helper's own time
 * box plus its start. */
static int call_start(sd_event *event, const char *socket_path, int pidfd, const GString *line, unsigned timeout_ms,
                      InjectCallback callback, void *userdata, InjectCall **ret) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        union {
                struct cmsghdr header;
                char space[CMSG_SPACE(sizeof(int))];
        } control = {};
        InjectCall *c;
        int r;

        assert(event && socket_path && line && callback && ret);

        if (strlen(socket_path) >= sizeof(sa.sun_path))
                return -EINVAL;
        strcpy(sa.sun_path, socket_path);

        c = g_new0(InjectCall, 1);
        c->callback = callback;
        c->userdata = userdata;
        c->buffer = g_string_new(NULL);
        c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (c->fd < 0) {
                r = -errno;
                goto fail;
        }
        /* The socket unit accepts: a connect completes at once, or fails. */
        if (connect(c->fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                r = -errno;
                goto fail;
        }

        struct iovec iov = { .iov_base = line->str, .iov_len = line->len };
        struct msghdr msg = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = &control,
                .msg_controllen = sizeof(control),
        };
        struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cmsg), &pidfd, sizeof(int));
        ssize_t n = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
        if (n < 0) {
                r = -errno;
                goto fail;
        }
        if ((size_t) n != line->len) {
                r = -EIO;
                goto fail;
        }

        r = sd_event_add_io(event, &c->io, c->fd, EPOLLIN, on_readable, c);
        if (r < 0)
                goto fail;
        /* The helper's own time box, plus its start. */
        r = sd_event_add_time_relative(event, &c->timer, CLOCK_MONOTONIC,
                                       ((uint64_t) timeout_ms + 10000) * 1000, 100000, on_timeout, c);
        if (r < 0)
                goto fail;
        *ret = c;
        return 0;
fail:
        inject_call_free(c);
        return r;
}

int inject_call_start(sd_event *event, const char *socket_path, int pidfd, pid_t pid, bool query, int ksm,
                      const char *mempolicy, unsigned timeout_ms, uid_t for_uid, InjectCallback callback,
                      void *userdata, InjectCall **ret) {
        g_autoptr(GString) line = g_string_new(NULL);

        if (for_uid == (uid_t) -1)
                return -EINVAL;
        g_string_printf(line, "pid=%d", (int) pid);
        if (query)
                g_string_append(line, " query=1");
        else
                g_string_append_printf(line, " ksm=%s mempolicy=%s timeout_ms=%u for_uid=%u",
                                       ksm < 0 ? "-" : ksm ? "1" : "0", mempolicy ?: "-", timeout_ms,
                                       (unsigned) for_uid);
        g_string_append_c(line, '\n');
        return call_start(event, socket_path, pidfd, line, timeout_ms, callback, userdata, ret);
}

int inject_call_start_migrate(sd_event *event, const char *socket_path, int pidfd, pid_t pid, const char *nodes,
                              uid_t for_uid, InjectCallback callback, void *userdata, InjectCall **ret) {
        g_autoptr(GString) line = g_string_new(NULL);

        if (isempty(nodes) || for_uid == (uid_t) -1)
                return -EINVAL;
        g_string_printf(line, "pid=%d migrate=%s for_uid=%u\n", (int) pid, nodes, (unsigned) for_uid);
        /* migrate_pages has no time box of its own: a large process takes a while. */
        return call_start(event, socket_path, pidfd, line, 0, callback, userdata, ret);
}
