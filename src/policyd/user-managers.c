/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "bus-util.h"
#include "link-trust.h"
#include "log.h"
#include "message-ids.h"
#include "unit-lookup.h"
#include "user-managers.h"
#include "util.h"

#define USER_RUNTIME_DIR "/run/user/%u"
#define USER_MANAGER_SOCKET USER_RUNTIME_DIR "/systemd/private"

/* /run/user/UID/systemd/private, reached without following a symlink on
 * the way: /run/user/UID (root's or the user's) and its systemd (the
 * user's), as O_PATH descriptors, and private in it a socket (not a
 * symlink) of the user's. Returns an O_PATH descriptor of that very socket
 * inode: connecting through it never looks the name up again. */
static int open_manager_socket(uid_t uid) {
        g_autofree char *runtime = g_strdup_printf(USER_RUNTIME_DIR, (unsigned) uid);
        _cleanup_close_ int dir_fd = -EBADF, systemd_fd = -EBADF, socket_fd = -EBADF;
        struct stat st;

        dir_fd = open(runtime, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir_fd < 0)
                return -errno;
        if (fstat(dir_fd, &st) < 0)
                return -errno;
        if (st.st_uid != uid && st.st_uid != 0)
                return -EPERM;
        systemd_fd = openat(dir_fd, "systemd", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (systemd_fd < 0)
                return -errno; /* ENOTDIR for a symlink: O_NOFOLLOW with O_DIRECTORY */
        if (fstat(systemd_fd, &st) < 0)
                return -errno;
        if (st.st_uid != uid)
                return -EPERM;
        socket_fd = openat(systemd_fd, "private", O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (socket_fd < 0)
                return -errno;
        if (fstat(socket_fd, &st) < 0)
                return -errno;
        if (S_ISLNK(st.st_mode))
                return -ELOOP; /* O_PATH|O_NOFOLLOW opens the link itself */
        if (!S_ISSOCK(st.st_mode))
                return -ENOTSOCK;
        if (st.st_uid != uid)
                return -EPERM;
        return TAKE_FD(socket_fd);
}

/* A non-blocking stream connection to the socket inode socket_fd holds,
 * by its /proc/self/fd name. A full backlog is EAGAIN, never a wait. */
static int connect_manager_socket(int socket_fd) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_close_ int fd = -EBADF;
        int n;

        n = snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", socket_fd);
        if (n < 0 || (size_t) n >= sizeof(sa.sun_path))
                return -EINVAL;
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (const struct sockaddr *) &sa, sizeof(sa)) < 0)
                return -errno;
        return TAKE_FD(fd);
}

bool user_manager_runs(uid_t uid) {
        _cleanup_close_ int fd = open_manager_socket(uid);
        return fd >= 0;
}

/* The MainPID PID 1 last reported for user@UID.service; 0 if none. */
static pid_t user_manager_main_pid(Manager *m, uid_t uid) {
        g_autofree char *unit = g_strdup_printf("user@%u.service", (unsigned) uid);
        const Subject *s = manager_find_subject(m, unit);
        const char *v = s && s->unit_properties ? g_hash_table_lookup(s->unit_properties, "MainPID") : NULL;
        char *end;

        if (!v)
                return 0;
        errno = 0;
        unsigned long pid = strtoul(v, &end, 10);
        if (errno != 0 || *end != '\0' || end == v || pid > INT32_MAX)
                return 0;
        return (pid_t) pid;
}

/* Whether the other end of bus is uid's systemd: the user's uid, and the
 * MainPID of user@UID.service (alive, so its pid is not reused). Anything
 * else (PID 1 through a symlink, another user's manager, a server of the
 * user's own) is refused. */
static int check_peer(SystemdLink *l, int fd) {
        struct ucred cred = {};
        socklen_t n = sizeof(cred);

        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &n) < 0)
                return -errno;
        pid_t main_pid = user_manager_main_pid(l->manager, l->uid);
        UserManagerPeerVerdict v = user_manager_peer_check(l->uid, main_pid, cred.uid, cred.pid);
        if (v == USER_MANAGER_PEER_OK)
                return 0;
        g_autofree char *unit = g_strdup_printf("user@%u.service", (unsigned) l->uid);
        log_context_id(MESSAGE_ID_TRUST_REFUSED, l->reconnect_attempt == 0 ? LOG_WARNING : LOG_DEBUG, 0, unit, NULL,
                       NULL, 0, "Not following the socket of the systemd of uid %u: its peer (pid %d, uid %u) is %s "
                       "(MainPID %d); trying again later.",
                       (unsigned) l->uid, (int) cred.pid, (unsigned) cred.uid, user_manager_peer_verdict_to_string(v),
                       (int) main_pid);
        return -EPERM;
}

void user_link_free_notify(void *p) {
        systemd_link_free(p);
}

/* Whether PID 1's user@UID.service is up, as policyd last read it. */
static bool user_manager_unit_active(Manager *m, uid_t uid) {
        g_autofree char *unit = g_strdup_printf("user@%u.service", (unsigned) uid);
        const Subject *s = manager_find_subject(m, unit);
        return s && (streq_ptr(s->active_state, "active") || streq_ptr(s->active_state, "reloading"));
}

static int user_link_connect(SystemdLink *l);

static int on_reconnect_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        SystemdLink *l = userdata;

        l->reconnect_timer = sd_event_source_unref(l->reconnect_timer);
        if (l->bus || !user_manager_unit_active(l->manager, l->uid))
                return 0; /* the unit's stop drops the link */
        if (user_link_connect(l) < 0) {
                l->reconnect_attempt++;
                uint64_t delay = reconnect_delay_usec(l->reconnect_attempt);
                (void) sd_event_add_time_relative(l->manager->event, &l->reconnect_timer, CLOCK_MONOTONIC, delay, 0,
                                                  on_reconnect_timer, l);
        }
        return 0;
}

static void reconnect_later(SystemdLink *l) {
        if (!l->reconnect_timer)
                (void) sd_event_add_time_relative(l->manager->event, &l->reconnect_timer, CLOCK_MONOTONIC, 1000000, 0,
                                                  on_reconnect_timer, l);
}

/* A reexec of the user's manager, or its end: the subjects stay until PID 1
 * says which, and a new connection lists the units again. */
static int on_disconnected(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        SystemdLink *l = userdata;

        log_info("Lost the connection to the systemd of uid %u; looking again in a moment.", (unsigned) l->uid);
        systemd_link_close(l);
        manager_properties_changed(l->manager, MANAGER_PROPERTY_MANAGERS); /* "connecting" */
        l->reconnect_attempt = 0;
        reconnect_later(l);
        return 0;
}

static int user_link_connect(SystemdLink *l) {
        Manager *m = l->manager;
        g_autoptr(sd_bus) bus = NULL;
        g_autofree char *path = g_strdup_printf(USER_MANAGER_SOCKET, (unsigned) l->uid);
        _cleanup_close_ int socket_fd = -EBADF, fd = -EBADF;
        int r;

        /* As systemctl does for the user's manager: a direct connection,
         * no bus daemon and no Hello. The manager takes root there. The
         * socket checked on the way and connected to by its inode; its
         * peer checked before a byte is sent (sd-bus would start with
         * its authentication). */
        r = socket_fd = open_manager_socket(l->uid);
        if (r >= 0)
                r = fd = connect_manager_socket(socket_fd);
        if (r < 0)
                return log_full_errno(l->reconnect_attempt == 0 ? LOG_WARNING : LOG_DEBUG, r,
                                      "Failed to connect to the systemd of uid %u at %s: %m", (unsigned) l->uid, path);
        r = check_peer(l, fd);
        if (r < 0)
                return r;
        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_fd(bus, fd, fd);
        if (r >= 0) {
                TAKE_FD(fd); /* the bus's now */
                r = sd_bus_set_bus_client(bus, false);
        }
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0)
                return log_full_errno(l->reconnect_attempt == 0 ? LOG_WARNING : LOG_DEBUG, r,
                                      "Failed to connect to the systemd of uid %u at %s: %m", (unsigned) l->uid, path);
        r = sd_bus_attach_event(bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, NULL, "/org/freedesktop/DBus/Local", "org.freedesktop.DBus.Local",
                                        "Disconnected", on_disconnected, l);
        if (r < 0)
                return log_warning_errno(r, "Failed to watch the connection to the systemd of uid %u: %m",
                                         (unsigned) l->uid);
        l->bus = TAKE_PTR(bus);
        r = systemd_watch_attach(l);
        if (r >= 0)
                r = systemd_watch_start(l);
        if (r < 0) {
                systemd_link_close(l);
                return r;
        }
        l->reconnect_attempt = 0;
        manager_properties_changed(m, MANAGER_PROPERTY_MANAGERS);
        log_info("Following the systemd of uid %u.", (unsigned) l->uid);
        return 0;
}

static void forget_units_of(Manager *m, uid_t uid, GHashTable *keep) {
        g_autoptr(GPtrArray) keys = hash_table_keys(m->subjects);

        for (guint i = 0; i < keys->len; i++) {
                const char *key = g_ptr_array_index(keys, i);
                Subject *s = manager_find_subject(m, key);
                if (s && s->user_unit && s->manager_uid == uid && !(keep && g_hash_table_contains(keep, key)))
                        manager_forget_unit(m, key);
        }
}

static void user_link_drop(Manager *m, uid_t uid) {
        gpointer p = NULL;

        if (!g_hash_table_steal_extended(m->user_links, GUINT_TO_POINTER(uid), NULL, &p))
                return;
        SystemdLink *l = p;
        log_info("The systemd of uid %u stopped; forgetting its units.", (unsigned) uid);
        systemd_link_close(l);
        systemd_link_free(l);
        manager_properties_changed(m, MANAGER_PROPERTY_MANAGERS);
        /* Their cgroups went with the manager. Records of units that are not
         * transient stay, as for PID 1's: the manager keeps their runtime
         * properties under /run/user/UID while the user has one. */
        forget_units_of(m, uid, NULL);
}

void user_managers_unit_changed(Manager *m, const Subject *s) {
        uid_t uid;

        if (s->user_unit || !s->unit || user_manager_unit_parse(s->unit, &uid) < 0)
                return;
        if (!user_manager_unit_active(m, uid)) {
                /* "activating": not listening yet; its JobRemoved comes. */
                if (!streq_ptr(s->active_state, "activating"))
                        user_link_drop(m, uid);
                return;
        }
        if (g_hash_table_contains(m->user_links, GUINT_TO_POINTER(uid)))
                return;
        /* --revert undoes records: a user with none is not asked anything,
         * so that their manager cannot slow the run down. */
        if (m->revert && !manager_has_records_of_user(m, uid)) {
                log_debug("Not following the systemd of uid %u: no record of its units (--revert).", (unsigned) uid);
                return;
        }
        SystemdLink *l = systemd_link_new(m, true, uid);
        g_hash_table_insert(m->user_links, GUINT_TO_POINTER(uid), l);
        manager_properties_changed(m, MANAGER_PROPERTY_MANAGERS);
        if (user_link_connect(l) < 0)
                reconnect_later(l);
}

void user_managers_unit_gone(Manager *m, const char *unit) {
        uid_t uid;

        if (user_manager_unit_parse(unit, &uid) >= 0)
                user_link_drop(m, uid);
}

void user_managers_listed(Manager *m, SystemdLink *l, GHashTable *listed) {
        forget_units_of(m, l->uid, listed);
}

static gint compare_uid_keys(gconstpointer a, gconstpointer b) {
        guint x = GPOINTER_TO_UINT(*(gconstpointer const *) a), y = GPOINTER_TO_UINT(*(gconstpointer const *) b);
        return x < y ? -1 : x > y;
}

char *user_managers_describe(Manager *m) {
        g_autoptr(GHashTable) counts = g_hash_table_new(g_direct_hash, g_direct_equal);
        g_autoptr(GString) out = g_string_new(NULL);
        GHashTableIter it;
        gpointer value;
        unsigned system = 0;

        g_hash_table_iter_init(&it, m->subjects);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const Subject *s = value;
                if (!s->unit)
                        continue;
                if (!s->user_unit) {
                        system++;
                        continue;
                }
                gpointer k = GUINT_TO_POINTER(s->manager_uid);
                g_hash_table_replace(counts, k, GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(counts, k)) + 1));
        }
        g_string_append_printf(out, "system (%u %s)", system, system == 1 ? "unit" : "units");

        g_autoptr(GPtrArray) uids = hash_table_keys(m->user_links);
        g_ptr_array_sort(uids, compare_uid_keys);
        for (guint i = 0; i < uids->len; i++) {
                gpointer k = g_ptr_array_index(uids, i);
                const SystemdLink *l = g_hash_table_lookup(m->user_links, k);
                unsigned n = GPOINTER_TO_UINT(g_hash_table_lookup(counts, k));
                g_string_append_printf(out, "%s user@%u (%s%u %s)", i == 0 ? ";" : ",", (unsigned) l->uid,
                                       l->bus ? "" : "connecting; ", n, n == 1 ? "unit" : "units");
        }
        return g_string_free(g_steal_pointer(&out), false);
}
