/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "exec-settle.h"
#include "exec-watch.h"
#include "log.h"
#include "manager.h"
#include "proc-connector.h"
#include "process-plan.h"
#include "util.h"

#ifndef NETLINK_CONNECTOR
#define NETLINK_CONNECTOR 11
#endif
#define CN_IDX_PROC_GROUP 1u /* CN_IDX_PROC, as a multicast group */

/* Room for a burst: at the default 208 KiB a socket holds some 300 events.
 * rmem_max caps it; policyd has no CAP_NET_ADMIN for SO_RCVBUFFORCE. */
#define RECEIVE_BUFFER (4u << 20)
/* Datagrams read per wakeup, so that a storm of execs cannot starve the
 * rest of the event loop (the source is level-triggered). */
#define READS_PER_WAKEUP 256
/* An exec that matters is looked at once the process has lasted this long.
 * Looking costs a query of the injector (a helper instance, a unit start)
 * wherever policyd cannot read /proc/PID/exe itself: a process of another
 * user, or with a capability policyd lacks (CAP_SYS_PTRACE is the
 * helper's). Most execs are short commands, gone by then, and KSM= or a
 * mempolicy would do nothing for them. */
#define EXEC_SETTLE_USEC (1 * G_USEC_PER_SEC)

struct ExecWatch {
        Manager *manager;
        int fd;
        sd_event_source *source;
        bool filtered;       /* the kernel sends only exec events (6.6+) */
        char *unavailable;   /* why the connector cannot be used, while it is wanted */
        bool unavailable_logged;
        bool lost_logged;
        uint32_t ack;        /* of our last control message; the kernel's ack is one more */
        uint64_t lost;       /* times the socket overflowed */
        ExecSettle *settling; /* execs that matter, until they have lasted */
        sd_event_source *settle_timer;
};

/* ---- the socket ---- */

static int send_control(int fd, uint32_t op, uint32_t filter, uint32_t ack) {
        uint8_t buf[PROC_CONNECTOR_CONTROL_MAX];
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK }; /* nl_pid 0 */
        int len = proc_connector_control(op, filter, ack, ack, buf, sizeof(buf));

        if (len < 0)
                return len;
        if (sendto(fd, buf, (size_t) len, 0, (struct sockaddr *) &kernel, sizeof(kernel)) < 0)
                return negative_errno();
        return 0;
}

/* The kernel answers a subscription in the sendto() itself (the
 * connector's callback runs in the caller), so the ack, if any, is queued
 * already; it echoes our ack + 1, which tells it from another listener's.
 * No ack comes from a kernel that did not take the message: one before 6.6
 * given the 8-byte form, or any kernel when we are not in the initial user
 * and PID namespaces. Returns the ack's error (≥ 0), or -ENOMSG. */
static int read_ack(int fd, uint32_t ack) {
        uint8_t buf[8192] __attribute__((aligned(4)));

        for (;;) {
                struct sockaddr_nl sender = {};
                socklen_t sender_len = sizeof(sender);
                ProcConnectorEvent events[16];
                ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *) &sender, &sender_len);

                if (n < 0) {
                        if (errno == EINTR || errno == ENOBUFS)
                                continue;
                        return errno == EAGAIN ? -ENOMSG : negative_errno();
                }
                size_t k = proc_connector_parse(buf, (size_t) n, sender.nl_pid, events, G_N_ELEMENTS(events));
                for (size_t i = 0; i < k; i++)
                        if (events[i].kind == PROC_CONNECTOR_ACK && events[i].ack == ack + 1)
                                return (int) events[i].error;
        }
}

/* Drops what came before the filter took hold. */
static void drain(int fd) {
        uint8_t buf[8192];
        while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0 || errno == ENOBUFS || errno == EINTR)
                ;
}

/* Subscribes; on failure, *ret_reason says why, for the log and status. */
static int subscribe(ExecWatch *x, int *ret_fd, bool *ret_filtered, char **ret_reason) {
        _cleanup_close_ int fd = -1;
        struct sockaddr_nl local = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC_GROUP };
        int size = RECEIVE_BUFFER, k;
        bool filtered = true;

        fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
        if (fd < 0) {
                k = negative_errno();
                /* EPROTONOSUPPORT: no CONFIG_CONNECTOR; EAFNOSUPPORT: RestrictAddressFamilies= */
                *ret_reason = g_strdup_printf("no netlink connector socket: %s", g_strerror(-k));
                return k;
        }
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
        if (bind(fd, (struct sockaddr *) &local, sizeof(local)) < 0) {
                k = negative_errno();
                *ret_reason = g_strdup_printf("cannot join the proc connector's group: %s", g_strerror(-k));
                return k;
        }

        /* 6.6+ reads the 8-byte form. Asked for every type first, since the
         * ack (type 0) passes no narrower filter; then narrowed to EXEC. */
        x->ack += 2;
        k = send_control(fd, PROC_CONNECTOR_LISTEN, PROC_CONNECTOR_EVENT_ALL, x->ack);
        if (k >= 0)
                k = read_ack(fd, x->ack);
        if (k == 0) {
                x->ack += 2;
                k = send_control(fd, PROC_CONNECTOR_LISTEN, PROC_CONNECTOR_EVENT_EXEC, x->ack);
                drain(fd);
        } else if (k == -ENOMSG) {
                /* Before 6.6: the bare op, and every event type comes. */
                filtered = false;
                x->ack += 2;
                k = send_control(fd, PROC_CONNECTOR_LISTEN, 0, x->ack);
                if (k >= 0)
                        k = read_ack(fd, x->ack);
        }
        if (k == -ECONNREFUSED) {
                /* The connector exists in the initial network namespace only. */
                *ret_reason = g_strdup("the kernel refused the subscription (ECONNREFUSED): "
                                       "not in the initial network namespace");
                return k;
        }
        if (k == -ENOMSG) {
                *ret_reason = g_strdup("no answer to the subscription: not in the initial user and PID "
                                       "namespaces, or a kernel without CONFIG_PROC_EVENTS");
                return k;
        }
        if (k < 0) {
                *ret_reason = g_strdup_printf("cannot subscribe: %s", g_strerror(-k));
                return k;
        }
        if (k > 0) {
                *ret_reason = g_strdup_printf("the kernel refused the subscription: %s", g_strerror(k));
                return -k;
        }
        *ret_fd = TAKE_FD(fd);
        *ret_filtered = filtered;
        return 0;
}

static void unsubscribe(ExecWatch *x) {
        exec_settle_clear(x->settling);
        (void) sd_event_source_set_enabled(x->settle_timer, SD_EVENT_OFF);
        if (x->fd < 0)
                return;
        x->source = sd_event_source_disable_unref(x->source);
        /* The bare op: every kernel reads it, and 6.6+ resets the filter. */
        x->ack += 2;
        (void) send_control(x->fd, PROC_CONNECTOR_IGNORE, 0, x->ack);
        x->fd = safe_close(x->fd);
}

/* ---- events ---- */

/* The "0::" line of /proc/PID/cgroup, in buf. The one read made for every
 * exec on the machine: no allocation. */
static int read_cgroup(pid_t pid, char *buf, size_t size, const char **ret) {
        char path[32];
        _cleanup_close_ int fd = -1;
        ssize_t n;

        assert(buf && size > 1 && ret);
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : negative_errno();
        n = read(fd, buf, size - 1);
        if (n < 0)
                return errno == ESRCH ? -ESRCH : negative_errno(); /* exited since */
        if ((size_t) n == size - 1)
                return -E2BIG;
        buf[n] = '\0';
        for (char *line = buf; *line;) {
                char *nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                if (strncmp(line, "0::", 3) == 0) {
                        *ret = line + 3;
                        return 0;
                }
                if (!nl)
                        break;
                line = nl + 1;
        }
        return -ENODATA;
}

static void arm_settle_timer(ExecWatch *x) {
        uint64_t next;

        assert(x && x->settling && x->settle_timer);
        next = exec_settle_next(x->settling);

        if (next == UINT64_MAX) {
                (void) sd_event_source_set_enabled(x->settle_timer, SD_EVENT_OFF);
                return;
        }
        (void) sd_event_source_set_time(x->settle_timer, next);
        (void) sd_event_source_set_enabled(x->settle_timer, SD_EVENT_ONESHOT);
}

static void on_exec(ExecWatch *x, pid_t pid) {
        char buf[8192];
        const char *cgroup;
        uint64_t now = 0;
        int enabled = SD_EVENT_OFF, k;

        k = read_cgroup(pid, buf, sizeof(buf), &cgroup);
        if (k < 0) {
                if (!errno_is_vanished(k))
                        log_debug_errno(k, "Exec of PID %d: cannot read its cgroup: %m", (int) pid);
                return; /* gone already: nothing to set */
        }
        if (!manager_exec_matters(x->manager, cgroup))
                return;
        (void) sd_event_now(x->manager->event, CLOCK_MONOTONIC, &now);
        exec_settle_add(x->settling, pid, now);
        (void) sd_event_source_get_enabled(x->settle_timer, &enabled);
        if (enabled == SD_EVENT_OFF)
                arm_settle_timer(x);
}

static int on_settled(sd_event_source *source, uint64_t usec, void *userdata) {
        ExecWatch *x = userdata;
        uint64_t now = usec;
        (void) source;

        (void) sd_event_now(x->manager->event, CLOCK_MONOTONIC, &now);
        g_autoptr(GArray) pids = exec_settle_take_due(x->settling, now);
        for (guint i = 0; i < pids->len; i++) {
                pid_t pid = g_array_index(pids, pid_t, i);
                char buf[8192];
                const char *cgroup;
                /* Again: it may have moved since. A PID taken by another
                 * process since is looked at as that process. */
                if (read_cgroup(pid, buf, sizeof(buf), &cgroup) >= 0)
                        manager_process_exec(x->manager, pid, cgroup);
        }
        arm_settle_timer(x);
        return 0;
}

static void on_lost(ExecWatch *x) {
        x->lost++;
        if (!x->lost_logged) {
                log_notice("Missed exec events (the proc connector's socket overflowed): reading every "
                           "watched cgroup again. Later overflows do the same, without this message.");
                x->lost_logged = true;
        }
        manager_exec_events_lost(x->manager);
}

static int on_readable(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        ExecWatch *x = userdata;
        uint8_t buf[8192] __attribute__((aligned(4)));
        (void) source;
        (void) revents;

        for (unsigned i = 0; i < READS_PER_WAKEUP; i++) {
                struct sockaddr_nl sender = {};
                socklen_t sender_len = sizeof(sender);
                ProcConnectorEvent events[16];
                ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *) &sender, &sender_len);

                if (n < 0) {
                        if (errno == ENOBUFS) {
                                on_lost(x);
                                continue;
                        }
                        if (errno != EAGAIN && errno != EINTR)
                                log_warning_errno(-errno, "Failed to read from the proc connector: %m");
                        return 0;
                }
                if (sender_len < sizeof(sender) || sender.nl_family != AF_NETLINK)
                        continue;
                size_t k = proc_connector_parse(buf, (size_t) n, sender.nl_pid, events, G_N_ELEMENTS(events));
                for (size_t j = 0; j < k; j++)
                        /* After exec the thread is its group's leader; a
                         * pid != tgid would be a process we cannot name. */
                        if (events[j].kind == PROC_CONNECTOR_EXEC && events[j].pid == events[j].tgid)
                                on_exec(x, events[j].pid);
        }
        return 0;
}

/* ---- arming ---- */

void exec_watch_policies_changed(ExecWatch *x) {
        Manager *m;
        bool wanted;
        int k;

        if (!x)
                return;
        m = x->manager;
        /* --once is gone before any exec could matter. */
        wanted = !m->once && policy_set_has_knobs_following_exec(m->policies);
        if (!wanted) {
                if (x->fd >= 0)
                        log_info("No group limits KSM= or NUMAPolicy= with Executable= now: not listening to "
                                 "exec events any more.");
                unsubscribe(x);
                g_clear_pointer(&x->unavailable, g_free);
                return;
        }
        if (x->fd >= 0)
                return;

        g_autofree char *reason = NULL;
        int fd = -1;
        bool filtered = false;
        k = subscribe(x, &fd, &filtered, &reason);
        if (k >= 0) {
                k = sd_event_add_io(m->event, &x->source, fd, EPOLLIN, on_readable, x);
                if (k < 0) {
                        x->fd = fd;
                        unsubscribe(x);
                        reason = g_strdup_printf("cannot watch the socket: %s", g_strerror(-k));
                }
        }
        if (k < 0) {
                g_free(x->unavailable);
                x->unavailable = TAKE_PTR(reason);
                if (!x->unavailable_logged)
                        log_warning("Exec events from the proc connector are unavailable (%s): Executable= "
                                    "applies to running processes only when they move or start.",
                                    x->unavailable);
                x->unavailable_logged = true;
                return;
        }
        x->fd = fd;
        x->filtered = filtered;
        g_clear_pointer(&x->unavailable, g_free);
        log_info("Listening to exec events from the proc connector%s, for Executable= in groups with "
                 "ApplyToRunning=yes.",
                 filtered ? "" : " (every event type: the kernel predates the 6.6 filter)");
}

char *exec_watch_describe(ExecWatch *x) {
        g_autofree char *lost = x && x->lost > 0 ? g_strdup_printf(", overflowed %" G_GUINT64_FORMAT " times", x->lost)
                                                 : NULL;

        if (!x)
                return g_strdup("exec events: off");
        if (x->fd >= 0)
                return g_strdup_printf("exec events: proc connector%s%s",
                                       x->filtered ? "" : " (unfiltered: before Linux 6.6)", strempty(lost));
        if (x->unavailable)
                return g_strdup_printf("exec events: unavailable (%s); Executable= applies at moves and starts only",
                                       x->unavailable);
        return g_strdup("exec events: not needed (no Executable= in a group with ApplyToRunning=yes that sets KSM= "
                        "or NUMAPolicy=)");
}

int exec_watch_new(Manager *m, ExecWatch **ret) {
        ExecWatch *x = g_new0(ExecWatch, 1);
        int k;

        x->manager = m;
        x->fd = -1;
        /* Some other listener's acks come to us too. */
        x->ack = (uint32_t) getpid() << 8;
        x->settling = exec_settle_new(EXEC_SETTLE_USEC);
        k = sd_event_add_time(m->event, &x->settle_timer, CLOCK_MONOTONIC, UINT64_MAX, 0, on_settled, x);
        if (k >= 0)
                k = sd_event_source_set_enabled(x->settle_timer, SD_EVENT_OFF);
        if (k < 0) {
                exec_watch_free(x);
                return k;
        }
        (void) sd_event_source_set_description(x->settle_timer, "exec-settle");
        *ret = x;
        return 0;
}

ExecWatch *exec_watch_free(ExecWatch *x) {
        if (!x)
                return NULL;
        unsubscribe(x);
        sd_event_source_disable_unref(x->settle_timer);
        exec_settle_free(x->settling);
        g_free(x->unavailable);
        g_free(x);
        return NULL;
}
