/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The floor for policyd's cost per exec event (bench/run-exec): the bare
 * work any proc connector listener does for each exec on the machine. It
 * subscribes as policyd does (LISTEN with the 6.6 EXEC filter, else the
 * bare op), reads each datagram, parses it with the same parser, and reads
 * /proc/PID/cgroup of each exec'd process; nothing else. On SIGTERM or
 * SIGINT it unsubscribes and prints "exec-floor: events=N cgroup_reads=N
 * filtered=0|1". Its CPU time is read from outside, from /proc/PID/stat. */

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proc-connector.h"

#ifndef NETLINK_CONNECTOR
#define NETLINK_CONNECTOR 11
#endif

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
        (void) sig;
        stop = 1;
}

static int control(int fd, uint32_t op, uint32_t filter, uint32_t seq) {
        uint8_t buf[PROC_CONNECTOR_CONTROL_MAX];
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        int len = proc_connector_control(op, filter, seq, seq, buf, sizeof(buf));
        return len < 0 ? len : (int) sendto(fd, buf, (size_t) len, 0, (struct sockaddr *) &kernel, sizeof(kernel));
}

static bool acked(int fd, uint32_t seq) {
        uint8_t buf[8192];
        for (;;) {
                struct sockaddr_nl from = {};
                socklen_t fl = sizeof(from);
                ProcConnectorEvent ev[16];
                ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *) &from, &fl);
                if (n < 0)
                        return false;
                size_t k = proc_connector_parse(buf, (size_t) n, from.nl_pid, ev, 16);
                for (size_t i = 0; i < k; i++)
                        if (ev[i].kind == PROC_CONNECTOR_ACK && ev[i].ack == seq + 1 && ev[i].error == 0)
                                return true;
        }
}

int main(void) {
        struct sockaddr_nl local = { .nl_family = AF_NETLINK, .nl_groups = 1 };
        int fd, size = 4 << 20;
        bool filtered = true;
        unsigned long events = 0, reads = 0, lost = 0;

        signal(SIGTERM, on_signal);
        signal(SIGINT, on_signal);
        fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
        if (fd < 0 || bind(fd, (struct sockaddr *) &local, sizeof(local)) < 0) {
                perror("exec-floor: socket");
                return 1;
        }
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
        /* As policyd: ALL first, for the ack, then narrowed to EXEC. */
        if (control(fd, PROC_CONNECTOR_LISTEN, PROC_CONNECTOR_EVENT_ALL, 100) < 0) {
                perror("exec-floor: subscribe");
                return 1;
        }
        if (acked(fd, 100)) {
                (void) control(fd, PROC_CONNECTOR_LISTEN, PROC_CONNECTOR_EVENT_EXEC, 102);
        } else {
                filtered = false;
                if (control(fd, PROC_CONNECTOR_LISTEN, 0, 104) < 0 || !acked(fd, 104)) {
                        fprintf(stderr, "exec-floor: no answer to the subscription\n");
                        return 1;
                }
        }
        printf("exec-floor: subscribed filtered=%d\n", filtered);
        fflush(stdout);

        while (!stop) {
                uint8_t buf[8192];
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (poll(&p, 1, -1) < 0)
                        continue; /* EINTR: the signal */
                for (;;) {
                        struct sockaddr_nl from = {};
                        socklen_t fl = sizeof(from);
                        ProcConnectorEvent ev[16];
                        ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *) &from, &fl);
                        if (n < 0) {
                                if (errno == ENOBUFS) {
                                        lost++;
                                        continue;
                                }
                                break;
                        }
                        size_t k = proc_connector_parse(buf, (size_t) n, from.nl_pid, ev, 16);
                        for (size_t i = 0; i < k; i++) {
                                char path[32], text[8192];
                                if (ev[i].kind != PROC_CONNECTOR_EXEC || ev[i].pid != ev[i].tgid)
                                        continue;
                                events++;
                                snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) ev[i].pid);
                                int c = open(path, O_RDONLY | O_CLOEXEC);
                                if (c < 0)
                                        continue;
                                if (read(c, text, sizeof(text) - 1) > 0 && strstr(text, "0::"))
                                        reads++;
                                close(c);
                        }
                }
        }
        (void) control(fd, PROC_CONNECTOR_IGNORE, 0, 106);
        printf("exec-floor: events=%lu cgroup_reads=%lu lost=%lu filtered=%d\n", events, reads, lost, filtered);
        return 0;
}
