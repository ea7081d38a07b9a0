/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* policyctl's online verbs: synchronous calls to policyd on the system bus,
 * one at a time. Every call has sd-bus's method call timeout (25 s, or
 * $SYSTEMD_BUS_TIMEOUT), so a hung daemon never hangs policyctl. The replies
 * are described in org.policygroups.PolicyGroups1.xml. */

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <systemd/sd-bus.h>

#include "bus-names.h"
#include "bus-util.h"
#include "explain.h"
#include "json-writer.h"
#include "policy-group.h"
#include "policy-values.h"
#include "policyctl-online.h"
#include "policyctl-output.h"
#include "table.h"
#include "target-argument.h"
#include "unit-lookup.h"
#include "util.h"

/* The same names as policyd's manager.h, which policyctl does not include. */

/* ---- text output ---- */

static char *format_local_time(uint64_t usec) {
        time_t sec = (time_t) (usec / G_USEC_PER_SEC);
        struct tm tm;
        char buf[128];

        if (!localtime_r(&sec, &tm) || strftime(buf, sizeof(buf), "%a %Y-%m-%d %H:%M:%S %Z", &tm) == 0)
                return g_strdup_printf("@%" PRIu64, usec / G_USEC_PER_SEC);
        return g_strdup(buf);
}

static char *format_utc_time(uint64_t usec) {
        time_t sec = (time_t) (usec / G_USEC_PER_SEC);
        struct tm tm;
        char buf[64];

        if (!gmtime_r(&sec, &tm) || strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
                return NULL;
        return g_strdup(buf);
}

static uint64_t now_realtime_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * G_USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

/* "3min 2s ago", with the two largest units, as systemctl status does. */
static char *format_relative_time(uint64_t usec, uint64_t now) {
        static const struct {
                const char *suffix;
                uint64_t seconds;
        } units[] = {
                { "y", 31557600 }, { "month", 2629800 }, { "w", 604800 }, { "d", 86400 },
                { "h", 3600 },     { "min", 60 },        { "s", 1 },
        };
        bool future = usec > now;
        uint64_t left = (future ? usec - now : now - usec) / G_USEC_PER_SEC;
        g_autoptr(GString) out = g_string_new(future ? "in " : "");

        if (left == 0)
                return g_strdup("just now");
        for (size_t i = 0; i < ELEMENTSOF(units); i++) {
                if (left < units[i].seconds)
                        continue;
                g_string_append_printf(out, "%" PRIu64 "%s", left / units[i].seconds, units[i].suffix);
                left %= units[i].seconds;
                if (i + 1 < ELEMENTSOF(units) && left >= units[i + 1].seconds)
                        g_string_append_printf(out, " %" PRIu64 "%s", left / units[i + 1].seconds,
                                               units[i + 1].suffix);
                break;
        }
        if (!future)
                g_string_append(out, " ago");
        return g_string_free(g_steal_pointer(&out), FALSE);
}

/* policyd sends "" for "none"; JSON says null. */
static void json_append_optional(GString *out, const char *s) {
        json_append_string(out, isempty(s) ? NULL : s);
}

static void json_append_field(GString *out, const char *key, const char *value, bool first) {
        if (!first)
                g_string_append_c(out, ',');
        json_append_key(out, key);
        json_append_optional(out, value);
}

/* ---- calls ---- */

static bool method_changes_state(const char *method) {
        return streq(method, "Assign") || streq(method, "Unassign") || streq(method, "Reload");
}

/* Prints what went wrong with a call, once, and returns the exit code. */
int report_call_error(const char *verb, const char *method, const sd_bus_error *error, int r) {
        const char *message = error->message ? error->message : g_strerror(-r);

        if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER) ||
            (error->name && g_str_has_prefix(error->name, "org.freedesktop.DBus.Error.Spawn."))) {
                fprintf(stderr,
                        "policyd is not running (%s is not on the system bus). Start it with: systemctl start "
                        "policyd\n",
                        POLICYD_BUS_NAME);
                return EXIT_NOT_RUNNING;
        }
        if (r == -ETIMEDOUT) {
                fprintf(stderr, "policyd did not answer in time (%s). Is it hung? See: systemctl status policyd\n",
                        method);
                return EXIT_NOT_RUNNING;
        }
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_NO_REPLY, SD_BUS_ERROR_TIMEOUT)) {
                /* For example "Message recipient disconnected from message bus without replying". */
                fprintf(stderr, "policyd did not answer (%s): %s. See: systemctl status policyd\n", method, message);
                return EXIT_NOT_RUNNING;
        }
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED)) {
                /* A user may assign their own things to some groups:
                 * policyd says which rule the call broke. */
                if (streq(method, "Assign") || streq(method, "Unassign"))
                        fprintf(stderr, "Permission denied: %s\n", message);
                else if (method_changes_state(method))
                        fprintf(stderr,
                                "Permission denied: 'policyctl %s' changes policyd's state and needs root, or an "
                                "administrator's authentication through polkit.\n",
                                verb);
                else
                        fprintf(stderr,
                                "Permission denied: the system bus refused the call %s (%s). Check the D-Bus policy "
                                "for %s.\n",
                                method, message, POLICYD_BUS_NAME);
                return EXIT_ACCESS_DENIED;
        }
        if (!error->name) {
                /* No answer at all: the bus connection itself failed. */
                fprintf(stderr, "Lost the connection to the system bus while calling %s: %s\n", method,
                        g_strerror(-r));
                return EXIT_NOT_RUNNING;
        }
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_UNKNOWN_METHOD, SD_BUS_ERROR_UNKNOWN_OBJECT,
                                   SD_BUS_ERROR_UNKNOWN_INTERFACE, SD_BUS_ERROR_UNKNOWN_PROPERTY)) {
                fprintf(stderr, "policyd does not offer %s (%s). Is it older than policyctl %s?\n", method, message,
                        PROJECT_VERSION);
                return EXIT_ERRORS;
        }
        /* policyd's messages (no such group, target or membership, an invalid
         * target, a failed reload) are sentences meant for the user. */
        if (error->message)
                fprintf(stderr, "%s\n", error->message);
        else
                fprintf(stderr, "Failed to call %s: %s\n", method, error->name);
        return EXIT_ERRORS;
}

int connect_system_bus(sd_bus **ret) {
        g_autoptr(sd_bus) bus = NULL;
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "Cannot connect to the system bus: %s. policyd cannot be reached.\n", g_strerror(-r));
                return EXIT_NOT_RUNNING;
        }
        *ret = TAKE_PTR(bus);
        return EXIT_OK;
}

/* Calls a method of policyd. Returns 0 with the reply, or a negative errno
 * with *error set; prints nothing. */
int call_raw(sd_bus *bus, const char *interface, const char *method, sd_bus_error *error,
             sd_bus_message **ret_reply, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = sd_bus_call_methodv(bus, POLICYD_BUS_NAME, POLICYD_BUS_PATH, interface, method, error, ret_reply, types, ap);
        va_end(ap);
        return r;
}

#define POLKIT_AGENT "/usr/bin/pkttyagent"
/* As long as polkit may wait for a password typed at the agent. */
#define AUTH_CALL_TIMEOUT_USEC (300ULL * 1000000ULL)

/* polkit's text agent on our terminal, as systemctl starts it: a caller
 * who is not root may then authenticate as an administrator for a call
 * that changes state (bus-polkit.h in policyd). Started once; nothing
 * without a terminal or without polkit. Returns its PID, or 0. */
static pid_t polkit_agent_open(void) {
        int notify[2];
        pid_t pid;
        char fd_arg[16];

        if (geteuid() == 0 || !isatty(STDIN_FILENO) || access(POLKIT_AGENT, X_OK) < 0)
                return 0;
        if (pipe2(notify, O_CLOEXEC) < 0)
                return 0;
        pid = fork();
        if (pid < 0) {
                close(notify[0]);
                close(notify[1]);
                return 0;
        }
        if (pid == 0) {
                /* The write end, kept across exec: the agent says on it when it is ready. */
                if (fcntl(notify[1], F_SETFD, 0) < 0)
                        _exit(EXIT_FAILURE);
                snprintf(fd_arg, sizeof(fd_arg), "%d", notify[1]);
                execl(POLKIT_AGENT, POLKIT_AGENT, "--notify-fd", fd_arg, "--fallback", (char *) NULL);
                _exit(EXIT_FAILURE);
        }
        close(notify[1]);
        char c;
        /* Data, or EOF when it exits: either way, no longer waiting. */
        while (read(notify[0], &c, 1) < 0 && errno == EINTR)
                ;
        close(notify[0]);
        return pid;
}

static void polkit_agent_close(pid_t pid) {
        if (pid <= 0)
                return;
        (void) kill(pid, SIGTERM);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

/* Calls a method of policyd, and reports a failure. Returns an exit code.
 * A call that changes state may wait for polkit to authenticate the caller
 * (when they are not root and on a terminal). */
int call(sd_bus *bus, const char *verb, const char *interface, const char *method,
         sd_bus_message **ret_reply, const char *types, ...) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        pid_t agent = 0;
        va_list ap;
        int r, code = EXIT_OK;

        if (method_changes_state(method) && (agent = polkit_agent_open()) > 0) {
                (void) sd_bus_set_allow_interactive_authorization(bus, true);
                (void) sd_bus_set_method_call_timeout(bus, AUTH_CALL_TIMEOUT_USEC);
        }
        va_start(ap, types);
        r = sd_bus_call_methodv(bus, POLICYD_BUS_NAME, POLICYD_BUS_PATH, interface, method, &error, ret_reply, types, ap);
        va_end(ap);
        polkit_agent_close(agent);
        if (r < 0)
                code = report_call_error(verb, method, &error, r);
        sd_bus_error_free(&error);
        return code;
}

int bad_reply(const char *method, int r) {
        fprintf(stderr, "Unexpected reply from policyd to %s: %s\n", method, g_strerror(-r));
        return EXIT_ERRORS;
}

/* ---- what policyd says ---- */

typedef struct DaemonState {
        char *version;
        char *processes;
        char *swap;
        char *attributes;
        char *managers;
        char *records;
        bool dry_run;
        uint32_t n_groups, n_members, n_errors, n_warnings, n_need_daemon_reload;
        uint64_t last_reload_usec;
} DaemonState;

static void daemon_state_done(DaemonState *s) {
        g_free(s->version);
        g_free(s->processes);
        g_free(s->swap);
        g_free(s->attributes);
        g_free(s->managers);
        g_free(s->records);
}

/* The string properties, and where each goes. */
static char **daemon_state_string(DaemonState *s, const char *name) {
        const struct {
                const char *name;
                char **slot;
        } strings[] = {
                { "Version", &s->version },       { "Processes", &s->processes }, { "Swap", &s->swap },
                { "Attributes", &s->attributes }, { "Records", &s->records },     { "Managers", &s->managers },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(strings); i++)
                if (streq(strings[i].name, name))
                        return strings[i].slot;
        return NULL;
}

/* The reply to Properties.GetAll. */
static int parse_daemon_state(sd_bus_message *reply, DaemonState *ret) {
        DaemonState s = {};
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *name, *str;
                char **slot;
                int b = 0;

                r = sd_bus_message_read(reply, "s", &name);
                if (r < 0)
                        break;
                if ((slot = daemon_state_string(&s, name))) {
                        r = sd_bus_message_read(reply, "v", "s", &str);
                        if (r >= 0) {
                                g_free(*slot);
                                *slot = g_strdup(str);
                        }
                } else if (streq(name, "DryRun")) {
                        r = sd_bus_message_read(reply, "v", "b", &b);
                        s.dry_run = b;
                } else if (streq(name, "NGroups"))
                        r = sd_bus_message_read(reply, "v", "u", &s.n_groups);
                else if (streq(name, "NMembers"))
                        r = sd_bus_message_read(reply, "v", "u", &s.n_members);
                else if (streq(name, "NConfigErrors"))
                        r = sd_bus_message_read(reply, "v", "u", &s.n_errors);
                else if (streq(name, "NConfigWarnings"))
                        r = sd_bus_message_read(reply, "v", "u", &s.n_warnings);
                else if (streq(name, "NUnitsNeedDaemonReload"))
                        r = sd_bus_message_read(reply, "v", "u", &s.n_need_daemon_reload);
                else if (streq(name, "LastReloadTimestamp"))
                        r = sd_bus_message_read(reply, "v", "t", &s.last_reload_usec);
                else
                        r = sd_bus_message_skip(reply, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r < 0) {
                daemon_state_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

static int read_daemon_state(sd_bus *bus, const char *verb, DaemonState *ret) {
        g_autoptr(sd_bus_message) reply = NULL;
        int r, code;

        code = call(bus, verb, "org.freedesktop.DBus.Properties", "GetAll", &reply, "s", POLICYD_BUS_INTERFACE);
        if (code != EXIT_OK)
                return code;
        r = parse_daemon_state(reply, ret);
        if (r < 0)
                return bad_reply("GetAll", r);
        return EXIT_OK;
}

typedef struct GroupInfo {
        char *name;
        uint32_t priority;
        char *description;
        char *file;
        guint n_members;
} GroupInfo;

static void group_info_free(gpointer p) {
        GroupInfo *g = p;

        g_free(g->name);
        g_free(g->description);
        g_free(g->file);
        g_free(g);
}

static int list_groups(sd_bus *bus, const char *verb, GPtrArray **ret) {
        g_autoptr(sd_bus_message) reply = NULL;
        g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func(group_info_free);
        const char *name, *description, *file;
        uint32_t priority;
        int r, code;

        code = call(bus, verb, POLICYD_BUS_INTERFACE, "ListGroups", &reply, NULL);
        if (code != EXIT_OK)
                return code;
        r = sd_bus_message_enter_container(reply, 'a', "(suss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(suss)", &name, &priority, &description, &file)) > 0) {
                GroupInfo *g = g_new0(GroupInfo, 1);
                g->name = g_strdup(name);
                g->priority = priority;
                g->description = g_strdup(description);
                g->file = g_strdup(file);
                g_ptr_array_add(groups, g);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return bad_reply("ListGroups", r);
        *ret = g_steal_pointer(&groups);
        return EXIT_OK;
}

/* Unit ("" for none), cgroup and source, three strings a member. */
static int read_members(sd_bus_message *reply, GPtrArray *members) {
        const char *unit, *cgroup, *source;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(sss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sss)", &unit, &cgroup, &source)) > 0) {
                g_ptr_array_add(members, g_strdup(unit));
                g_ptr_array_add(members, g_strdup(cgroup));
                g_ptr_array_add(members, g_strdup(source));
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        return r < 0 ? r : 0;
}

/* ---- write failures ---- */

/* A knob whose last write failed, from ListWriteFailures. */
typedef struct KnobFailure {
        char *unit;
        char *cgroup;
        char *backend;
        char *target;
        char *value; /* what policyd tried to write; "" for a removal */
        char *message;
        int32_t error;
        uint64_t usec; /* CLOCK_REALTIME */
        bool shown;    /* on an explain row already */
} KnobFailure;

static void knob_failure_free(gpointer p) {
        KnobFailure *f = p;

        g_free(f->unit);
        g_free(f->cgroup);
        g_free(f->backend);
        g_free(f->target);
        g_free(f->value);
        g_free(f->message);
        g_free(f);
}

/* The failures of target ("" for all); none from a policyd that predates
 * ListWriteFailures. Returns 0 or a negative errno, error set for a failed
 * call. */
static int read_write_failures(sd_bus *bus, const char *target, GPtrArray **ret, sd_bus_error *error) {
        g_autoptr(sd_bus_message) reply = NULL;
        g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(knob_failure_free);
        const char *f[6];
        int32_t e;
        uint64_t usec;
        int r;

        r = call_raw(bus, POLICYD_BUS_INTERFACE, "ListWriteFailures", error, &reply, "s", target);
        if (r < 0 && sd_bus_error_has_name(error, SD_BUS_ERROR_UNKNOWN_METHOD)) {
                sd_bus_error_free(error);
                *ret = g_steal_pointer(&out);
                return 0;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(ssssssit)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(ssssssit)", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &e,
                                                  &usec)) > 0) {
                KnobFailure *k = g_new0(KnobFailure, 1);
                k->unit = g_strdup(f[0]);
                k->cgroup = g_strdup(f[1]);
                k->backend = g_strdup(f[2]);
                k->target = g_strdup(f[3]);
                k->value = g_strdup(f[4]);
                k->message = g_strdup(f[5]);
                k->error = e;
                k->usec = usec;
                g_ptr_array_add(out, k);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;
        *ret = g_steal_pointer(&out);
        return 0;
}

static KnobFailure *find_knob_failure(GPtrArray *failures, const char *backend, const char *target) {
        for (guint i = 0; failures && i < failures->len; i++) {
                KnobFailure *f = g_ptr_array_index(failures, i);
                if (streq_ptr(f->backend, backend) && streq_ptr(f->target, target))
                        return f;
        }
        return NULL;
}

/* "write failed 12s ago: Invalid argument, wanted 50M", for explain's note. */
static char *knob_failure_note(const KnobFailure *f, uint64_t now) {
        g_autofree char *when = format_relative_time(f->usec, now);
        g_autofree char *wanted = explain_human_value(f->value);
        /* The usual cause: the knob's controller is not enabled for the cgroup. */
        const char *hint = f->error == ENOENT && streq_ptr(f->backend, "cgroup-file")
                                   ? " (its controller is not enabled for this cgroup)"
                                   : "";

        if (isempty(f->value))
                return g_strdup_printf("removing it failed %s: %s%s", when, f->message, hint);
        return g_strdup_printf("write failed %s: %s%s, wanted %s", when, f->message, hint, wanted);
}

/* ---- status ---- */

/* How many knobs failed their last write, on how many units and cgroups
 * that no unit owns. */
typedef struct FailureCount {
        unsigned knobs, units, cgroups;
} FailureCount;

static FailureCount count_failures(const GPtrArray *failures) {
        g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
        FailureCount c = {};

        for (guint i = 0; i < failures->len; i++) {
                const KnobFailure *f = g_ptr_array_index(failures, i);
                c.knobs++;
                const char *who = isempty(f->unit) ? f->cgroup : f->unit;
                if (!g_hash_table_add(seen, (char *) who))
                        continue;
                if (isempty(f->unit))
                        c.cgroups++;
                else
                        c.units++;
        }
        return c;
}

static void print_status_json(const DaemonState *s, const GPtrArray *groups, const GPtrArray *failures) {
        g_autoptr(GString) out = g_string_new("{");
        g_autofree char *utc = s->last_reload_usec > 0 ? format_utc_time(s->last_reload_usec) : NULL;

        json_append_field(out, "version", s->version, true);
        g_string_append_printf(out,
                               ",\"dry_run\":%s,\"n_groups\":%" PRIu32 ",\"n_members\":%" PRIu32
                               ",\"config_errors\":%" PRIu32 ",\"config_warnings\":%" PRIu32
                               ",\"units_need_daemon_reload\":%" PRIu32 ",",
                               s->dry_run ? "true" : "false", s->n_groups, s->n_members, s->n_errors, s->n_warnings,
                               s->n_need_daemon_reload);
        json_append_field(out, "processes", s->processes, true);
        g_string_append_c(out, ',');
        json_append_field(out, "swap", s->swap, true);
        g_string_append_c(out, ',');
        json_append_field(out, "attributes", s->attributes, true);
        g_string_append_c(out, ',');
        json_append_field(out, "managers", s->managers, true);
        g_string_append_c(out, ',');
        json_append_field(out, "records", s->records, true);
        g_string_append_c(out, ',');
        json_append_key(out, "last_reload_usec");
        if (s->last_reload_usec > 0)
                g_string_append_printf(out, "%" PRIu64, s->last_reload_usec);
        else
                g_string_append(out, "null");
        json_append_field(out, "last_reload", utc, false);
        FailureCount c = count_failures(failures);
        g_string_append_printf(out, ",\"write_failures\":{\"knobs\":%u,\"units\":%u,\"cgroups\":%u}", c.knobs,
                               c.units, c.cgroups);
        g_string_append(out, ",\"groups\":[");
        for (guint i = 0; i < groups->len; i++) {
                const GroupInfo *g = g_ptr_array_index(groups, i);
                g_string_append(out, i > 0 ? ",{" : "{");
                json_append_field(out, "name", g->name, true);
                g_string_append_printf(out, ",\"priority\":%" PRIu32, g->priority);
                json_append_field(out, "description", g->description, false);
                json_append_field(out, "file", g->file, false);
                g_string_append_printf(out, ",\"members\":%u}", g->n_members);
        }
        g_string_append(out, "]}");
        json_print(out);
}

static void print_status_text(const DaemonState *s, const GPtrArray *groups, const GPtrArray *failures) {
        static const TableColumn columns[] = {
                { "GROUP", false, false, false },
                { "PRIORITY", true, false, false },
                { "MEMBERS", true, false, false },
                { "DESCRIPTION", false, false, false },
        };
        static const TableCut cuts[] = { { 3, 11 }, { 0, 10 } };

        printf("     Version: %s\n", strempty(s->version));
        printf("     Dry run: %s\n", s->dry_run ? "yes: policyd logs the changes it would make, and makes none"
                                                : "no");
        printf("      Groups: %" PRIu32 "\n", s->n_groups);
        printf("     Members: %" PRIu32 " %s\n", s->n_members, s->n_members == 1 ? "cgroup" : "cgroups");
        printf("Config files: %s%" PRIu32 " %s%s, %s%" PRIu32 " %s%s%s\n", s->n_errors > 0 ? ansi_highlight_red() : "",
               s->n_errors, s->n_errors == 1 ? "error" : "errors", s->n_errors > 0 ? ansi_normal() : "",
               s->n_warnings > 0 ? ansi_highlight_yellow() : "", s->n_warnings,
               s->n_warnings == 1 ? "warning" : "warnings", s->n_warnings > 0 ? ansi_normal() : "",
               s->n_errors + s->n_warnings > 0 ? " (see: policyctl verify)" : "");
        if (s->processes)
                printf("   Processes: %s\n", s->processes);
        if (s->swap)
                printf("        Swap: %s\n", s->swap);
        if (s->attributes)
                printf("  Attributes: %s\n", s->attributes);
        if (s->managers)
                printf("    Managers: %s\n", s->managers);
        if (s->records)
                printf("     Records: %s\n", s->records);
        FailureCount c = count_failures(failures);
        if (c.knobs == 0)
                printf("    Failures: none\n");
        else {
                g_autoptr(GString) on = g_string_new(NULL);
                if (c.units > 0)
                        g_string_append_printf(on, "%u %s", c.units, c.units == 1 ? "unit" : "units");
                if (c.cgroups > 0)
                        g_string_append_printf(on, "%s%u %s", c.units > 0 ? " and " : "", c.cgroups,
                                               c.cgroups == 1 ? "cgroup" : "cgroups");
                printf("    Failures: %s%u %s%s on %s failed %s last write (see: policyctl explain)\n",
                       ansi_highlight_red(), c.knobs, c.knobs == 1 ? "knob" : "knobs", ansi_normal(), on->str,
                       c.knobs == 1 ? "its" : "their");
        }
        if (s->n_need_daemon_reload > 0)
                printf("   Generator: %" PRIu32 " %s unit files name changed groups: run 'systemctl daemon-reload'\n"
                       "              (or 'policyctl reload --daemon-reload') for their exec-time settings\n",
                       s->n_need_daemon_reload, s->n_need_daemon_reload == 1 ? "unit whose" : "units whose");
        if (s->last_reload_usec > 0) {
                g_autofree char *local = format_local_time(s->last_reload_usec);
                g_autofree char *relative = format_relative_time(s->last_reload_usec, now_realtime_usec());
                printf(" Last reload: %s (%s)\n", local, relative);
        } else
                printf(" Last reload: never\n");

        if (groups->len == 0) {
                /* Installing changes nothing: say where the choice is made. */
                printf("\nNo policy groups are loaded. Examples to choose from are in %s:\n"
                       "link or copy one into /etc/policy.d, then run 'policyctl reload' (policy.d(5)).\n",
                       EXAMPLESDIR);
                return;
        }

        g_autoptr(Table) t = table_new(columns, ELEMENTSOF(columns), false);
        for (guint i = 0; i < groups->len; i++) {
                const GroupInfo *g = g_ptr_array_index(groups, i);
                g_autofree char *priority = g_strdup_printf("%" PRIu32, g->priority);
                g_autofree char *members = g_strdup_printf("%u", g->n_members);
                table_add_row(t, ' ', g->name, priority, members, g->description);
        }
        table_layout(t, cuts, ELEMENTSOF(cuts));
        putchar('\n');
        table_print(t);
}

int verb_status(int argc, char **argv) {
        g_autoptr(sd_bus) bus = NULL;
        g_autoptr(GPtrArray) groups = NULL;
        DaemonState state = {};
        int code;

        if (argc > 1) {
                fprintf(stderr, "status takes no arguments.\n");
                return EXIT_USAGE;
        }
        code = connect_system_bus(&bus);
        if (code == EXIT_OK)
                code = read_daemon_state(bus, "status", &state);
        if (code == EXIT_OK)
                code = list_groups(bus, "status", &groups);

        for (guint i = 0; code == EXIT_OK && i < groups->len; i++) {
                GroupInfo *g = g_ptr_array_index(groups, i);
                g_autoptr(sd_bus_message) reply = NULL;
                g_autoptr(GPtrArray) members = g_ptr_array_new_with_free_func(g_free);
                sd_bus_error error = SD_BUS_ERROR_NULL;
                int r;

                r = call_raw(bus, POLICYD_BUS_INTERFACE, "ListMembers", &error, &reply, "s", g->name);
                if (r < 0) {
                        /* Removed by a reload since ListGroups: it has no members now. */
                        if (!sd_bus_error_has_name(&error, POLICYD_ERROR_NO_SUCH_GROUP))
                                code = report_call_error("status", "ListMembers", &error, r);
                        sd_bus_error_free(&error);
                        continue;
                }
                r = read_members(reply, members);
                if (r < 0)
                        code = bad_reply("ListMembers", r);
                g->n_members = members->len / 3;
        }

        g_autoptr(GPtrArray) failures = NULL;
        if (code == EXIT_OK) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                int r = read_write_failures(bus, "", &failures, &error);
                if (r < 0)
                        code = error.name ? report_call_error("status", "ListWriteFailures", &error, r)
                                          : bad_reply("ListWriteFailures", r);
                sd_bus_error_free(&error);
        }
        if (code == EXIT_OK) {
                if (arg_json)
                        print_status_json(&state, groups, failures);
                else
                        print_status_text(&state, groups, failures);
        }
        daemon_state_done(&state);
        return code;
}

/* ---- show ---- */

static const TableColumn member_columns[] = {
        { "UNIT", false, false, false },
        { "CGROUP", false, true, false },
        { "SOURCE", false, false, false },
};

static void print_members_text(const GPtrArray *members) {
        static const TableCut cuts[] = { { 1, 20 }, { 0, 16 } };
        guint n = members->len / 3;

        if (n == 0) {
                printf("No members.\n");
                return;
        }
        g_autoptr(Table) t = table_new(member_columns, ELEMENTSOF(member_columns), false);
        for (guint i = 0; i < n; i++)
                table_add_row(t, ' ', g_ptr_array_index(members, 3 * i), g_ptr_array_index(members, 3 * i + 1),
                              g_ptr_array_index(members, 3 * i + 2));
        table_layout(t, cuts, ELEMENTSOF(cuts));
        table_print(t);
        if (!arg_no_legend)
                printf("\n%u %s.\n", n, n == 1 ? "member" : "members");
}

int verb_show(int argc, char **argv) {
        g_autoptr(sd_bus) bus = NULL;
        g_autoptr(sd_bus_message) reply = NULL, members_reply = NULL;
        g_autoptr(GPtrArray) members = g_ptr_array_new_with_free_func(g_free);
        g_auto(GStrv) dropins = NULL;
        const char *group, *description, *file, *settings;
        uint32_t priority;
        int r, code;

        if (argc != 2) {
                fprintf(stderr, "show needs one argument: the name of a group.\n");
                return EXIT_USAGE;
        }
        group = argv[1];

        code = connect_system_bus(&bus);
        if (code != EXIT_OK)
                return code;
        code = call(bus, "show", POLICYD_BUS_INTERFACE, "GetGroup", &reply, "s", group);
        if (code != EXIT_OK)
                return code;
        r = sd_bus_message_read(reply, "uss", &priority, &description, &file);
        if (r >= 0)
                r = sd_bus_message_read_strv(reply, &dropins);
        if (r >= 0)
                r = sd_bus_message_read(reply, "s", &settings);
        if (r < 0)
                return bad_reply("GetGroup", r);

        code = call(bus, "show", POLICYD_BUS_INTERFACE, "ListMembers", &members_reply, "s", group);
        if (code != EXIT_OK)
                return code;
        r = read_members(members_reply, members);
        if (r < 0)
                return bad_reply("ListMembers", r);

        if (arg_json) {
                g_autoptr(GString) out = g_string_new("{");
                json_append_field(out, "name", group, true);
                g_string_append_printf(out, ",\"priority\":%" PRIu32, priority);
                json_append_field(out, "description", description, false);
                json_append_field(out, "file", file, false);
                g_string_append_c(out, ',');
                json_append_key(out, "dropins");
                json_append_string_array(out, (const char *const *) dropins,
                                         dropins ? g_strv_length(dropins) : 0);
                json_append_field(out, "settings", settings, false);
                g_string_append(out, ",\"members\":[");
                for (guint i = 0; i < members->len / 3; i++) {
                        g_string_append(out, i > 0 ? ",{" : "{");
                        json_append_field(out, "unit", g_ptr_array_index(members, 3 * i), true);
                        json_append_field(out, "cgroup", g_ptr_array_index(members, 3 * i + 1), false);
                        json_append_field(out, "source", g_ptr_array_index(members, 3 * i + 2), false);
                        g_string_append_c(out, '}');
                }
                g_string_append(out, "]}");
                json_print(out);
                return EXIT_OK;
        }

        printf("      Group: %s\n", group);
        printf("   Priority: %" PRIu32 "\n", priority);
        if (!isempty(description))
                printf("Description: %s\n", description);
        if (!isempty(file))
                printf("       File: %s\n", file);
        for (char **d = dropins; d && *d; d++)
                printf("%s %s\n", d == dropins ? "   Drop-ins:" : "            ", *d);

        printf("\nSettings:\n");
        g_auto(GStrv) lines = g_strsplit(settings, "\n", -1);
        for (char **l = lines; *l; l++)
                if (**l || l[1])
                        printf("  %s\n", *l);
        putchar('\n');
        print_members_text(members);
        return EXIT_OK;
}

/* ---- explain ---- */


/* On a terminal too narrow for the notes, they follow the table in full. */
static const TableColumn knob_columns[_KNOB_FIELDS] = {
        [KNOB_NAME] = { "KNOB", false, false, false },
        [KNOB_REQUESTED] = { "REQUESTED", false, false, false },
        [KNOB_EFFECTIVE] = { "EFFECTIVE", false, false, false },
        [KNOB_BACKEND] = { "BACKEND", false, false, false },
        [KNOB_GROUP] = { "GROUP", false, false, false },
        [KNOB_SOURCE] = { "SOURCE", false, true, false },
        [KNOB_NOTE] = { "NOTE", false, false, true },
};

/* policyd's note for a request that an ancestor cgroup caps. */
static bool note_is_cap(const char *note) {
        return g_str_has_prefix(note, "capped by");
}

/* ListProcesses rows, flattened: PROCESS_FIELDS strings each. */
enum { PROCESS_PID, PROCESS_UNIT, PROCESS_EXE, PROCESS_METHOD, PROCESS_DETAIL, PROCESS_STATE, _PROCESS_FIELDS };

/* The process layer's records for a target; none from a policyd that
 * predates ListProcesses. */
static int read_processes(sd_bus *bus, const char *target, GPtrArray *out) {
        g_autoptr(sd_bus_message) reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *f[6];
        uint32_t pid;
        int r;

        r = call_raw(bus, POLICYD_BUS_INTERFACE, "ListProcesses", &error, &reply, "s", target);
        if (r < 0) {
                bool old = sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_METHOD);
                sd_bus_error_free(&error);
                return old ? 0 : r;
        }
        r = sd_bus_message_enter_container(reply, 'a', "(ussssss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(ussssss)", &pid, &f[0], &f[1], &f[2], &f[3], &f[4],
                                                  &f[5])) > 0) {
                g_ptr_array_add(out, g_strdup_printf("%" PRIu32, pid));
                for (size_t i = 0; i < _PROCESS_FIELDS - 1; i++)
                        g_ptr_array_add(out, g_strdup(f[i]));
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        return r;
}

static void print_processes_text(const GPtrArray *processes) {
        static const TableColumn columns[] = {
                { "PID", true, false, false },    { "METHOD", false, false, false },
                { "STATE", false, false, false }, { "DETAIL", false, false, false },
                { "EXE", false, true, false },
        };
        static const TableCut cuts[] = { { 4, 16 }, { 3, 20 } };
        guint n = processes->len / _PROCESS_FIELDS;

        if (n == 0)
                return;
        g_autoptr(Table) t = table_new(columns, ELEMENTSOF(columns), false);
        for (guint i = 0; i < n; i++) {
                const char *const *p = (const char *const *) processes->pdata + _PROCESS_FIELDS * i;
                table_add_row(t, ' ', p[PROCESS_PID], p[PROCESS_METHOD], p[PROCESS_STATE], p[PROCESS_DETAIL],
                              p[PROCESS_EXE]);
        }
        table_layout(t, cuts, ELEMENTSOF(cuts));
        printf("\nProcesses (KSM=, NUMAPolicy= and migrate_pages for NUMANodes= in running processes):\n");
        table_print(t);
}

static void append_processes_json(GString *out, const GPtrArray *processes) {
        static const char *const keys[_PROCESS_FIELDS] = {
                [PROCESS_PID] = "pid",       [PROCESS_UNIT] = "unit",     [PROCESS_EXE] = "exe",
                [PROCESS_METHOD] = "method", [PROCESS_DETAIL] = "detail", [PROCESS_STATE] = "state",
        };

        g_string_append(out, ",\"processes\":[");
        for (guint i = 0; i < processes->len / _PROCESS_FIELDS; i++) {
                g_string_append(out, i > 0 ? ",{" : "{");
                /* The PID a number, the rest strings. */
                g_string_append_printf(out, "\"pid\":%s",
                                       (const char *) g_ptr_array_index(processes, _PROCESS_FIELDS * i + PROCESS_PID));
                for (size_t f = PROCESS_PID + 1; f < _PROCESS_FIELDS; f++)
                        json_append_field(out, keys[f], g_ptr_array_index(processes, _PROCESS_FIELDS * i + f), false);
                g_string_append_c(out, '}');
        }
        g_string_append_c(out, ']');
}

/* policyd names a user's unit "user@UID/UNIT": its manager is
 * user@UID.service; any other unit is PID 1's. NULL for no unit. */
static char *unit_manager_name(const char *unit) {
        uid_t uid;

        if (isempty(unit))
                return NULL;
        if (target_argument_user_unit(unit, &uid, NULL) >= 0)
                return g_strdup_printf("user@%u", (unsigned) uid);
        return g_strdup("system");
}

static char *unit_manager_description(const char *unit) {
        uid_t uid;

        if (isempty(unit))
                return NULL;
        if (target_argument_user_unit(unit, &uid, NULL) < 0)
                return g_strdup("system (PID 1)");
        struct passwd *pw = getpwuid(uid);
        return pw ? g_strdup_printf("user@%u.service (the systemd of %s)", (unsigned) uid, pw->pw_name)
                  : g_strdup_printf("user@%u.service (the systemd of uid %u)", (unsigned) uid, (unsigned) uid);
}

/* "SwapMax (memory.swap.max)": policyd's name of a knob and the file or
 * property it goes through. Returns the knob, and the target or NULL. */
static char *split_knob_name(const char *name, char **ret_target) {
        const char *open = strstr(name, " (");
        size_t n = strlen(name);

        *ret_target = NULL;
        if (!open || n < 2 || name[n - 1] != ')' || strchr(open + 2, '(') || strchr(name, ' ') != open)
                return g_strdup(name);
        *ret_target = g_strndup(open + 2, name + n - 1 - (open + 2));
        return g_strndup(name, open - name);
}

/* A size as policy files write it ("64M"), in bytes; null for "max",
 * "infinity", a percentage, or nothing. */
static void json_append_bytes(GString *out, const char *value) {
        uint64_t bytes;

        if (!isempty(value) && parse_size(value, &bytes, NULL) >= 0)
                g_string_append_printf(out, "%" PRIu64, bytes);
        else
                g_string_append(out, "null");
}

/* One row of Explain as data: the text's compound cells ("SwapMax
 * (memory.swap.max)", "50% (2G)", "file:line") in fields of their own, and
 * sizes in bytes as numbers. */
static void append_knob_json(GString *out, const char *const *k, const KnobFailure *failure) {
        g_autofree char *target = NULL;
        g_autofree char *knob = split_knob_name(k[KNOB_NAME], &target);
        int known = (int) knob_from_string(knob);
        bool memory = known >= 0 && knob_type((Knob) known) == KNOB_TYPE_MEMORY_LIMIT;
        g_autofree char *requested = g_strdup(k[KNOB_REQUESTED]);
        const char *came_to = NULL;

        /* policyd writes "50% (2G)": the percentage, and what it came to. */
        char *open = memory ? strstr(requested, " (") : NULL;
        if (open && g_str_has_suffix(open, ")")) {
                *open = '\0';
                open[strlen(open + 1)] = '\0';
                came_to = open + 2;
        }

        json_append_field(out, "knob", knob, true);
        json_append_field(out, "target", target ? target : knob, false);
        json_append_field(out, "requested", requested, false);
        if (memory) {
                g_string_append(out, ",\"requested_bytes\":");
                json_append_bytes(out, came_to ? came_to : requested);
        }
        json_append_field(out, "effective", k[KNOB_EFFECTIVE], false);
        if (memory) {
                g_string_append(out, ",\"effective_bytes\":");
                json_append_bytes(out, k[KNOB_EFFECTIVE]);
        }
        json_append_field(out, "backend", k[KNOB_BACKEND], false);
        json_append_field(out, "group", k[KNOB_GROUP], false);

        const char *source = k[KNOB_SOURCE], *colon = source ? strrchr(source, ':') : NULL;
        g_autofree char *file = NULL;
        if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
                file = g_strndup(source, colon - source);
                json_append_field(out, "file", file, false);
                g_string_append_printf(out, ",\"line\":%s", colon + 1);
        } else {
                json_append_field(out, "file", source, false);
                g_string_append(out, ",\"line\":null");
        }
        json_append_field(out, "note", k[KNOB_NOTE], false);
        /* The last write, when it failed: null otherwise. */
        json_append_field(out, "last_error", failure ? failure->message : NULL, false);
        g_string_append(out, ",\"last_error_errno\":");
        if (failure)
                g_string_append_printf(out, "%" PRIi32, failure->error);
        else
                g_string_append(out, "null");
        g_string_append(out, ",\"last_error_usec\":");
        if (failure)
                g_string_append_printf(out, "%" PRIu64, failure->usec);
        else
                g_string_append(out, "null");
        json_append_field(out, "last_error_value", failure ? failure->value : NULL, false);
}

/* The failure of an explain row's knob, or NULL; marked as shown. */
static KnobFailure *knob_row_failure(GPtrArray *failures, const char *const *k) {
        g_autofree char *target = NULL;
        g_autofree char *knob = split_knob_name(k[KNOB_NAME], &target);
        KnobFailure *f = find_knob_failure(failures, k[KNOB_BACKEND], target ? target : knob);

        if (f)
                f->shown = true;
        return f;
}

/* A failure no row shows (an undo of a knob the groups no longer set), as
 * a row of its own. */
static void failure_row(const KnobFailure *f, const char *ret[static _KNOB_FIELDS]) {
        for (size_t i = 0; i < _KNOB_FIELDS; i++)
                ret[i] = "";
        ret[KNOB_NAME] = f->target;
        ret[KNOB_BACKEND] = f->backend;
}

static void print_explain_json(const char *unit, const char *cgroup, const GPtrArray *groups,
                               const GPtrArray *knobs, const GPtrArray *processes, GPtrArray *failures) {
        g_autoptr(GString) out = g_string_new("{");

        g_autofree char *manager = unit_manager_name(unit);
        json_append_field(out, "unit", unit, true);
        json_append_field(out, "manager", manager, false);
        json_append_field(out, "cgroup", cgroup, false);
        g_string_append(out, ",\"groups\":[");
        for (guint i = 0; i < groups->len / 2; i++) {
                g_string_append(out, i > 0 ? ",{" : "{");
                json_append_field(out, "group", g_ptr_array_index(groups, 2 * i), true);
                json_append_field(out, "source", g_ptr_array_index(groups, 2 * i + 1), false);
                g_string_append_c(out, '}');
        }
        g_string_append(out, "],\"knobs\":[");
        for (guint i = 0; i < knobs->len / _KNOB_FIELDS; i++) {
                g_string_append(out, i > 0 ? ",{" : "{");
                const char *const *k = (const char *const *) knobs->pdata + _KNOB_FIELDS * i;
                append_knob_json(out, k, knob_row_failure(failures, k));
                g_string_append_c(out, '}');
        }
        for (guint i = 0; i < failures->len; i++) {
                const KnobFailure *f = g_ptr_array_index(failures, i);
                const char *k[_KNOB_FIELDS];
                if (f->shown)
                        continue;
                failure_row(f, k);
                g_string_append(out, out->str[out->len - 1] == '[' ? "{" : ",{");
                append_knob_json(out, k, f);
                g_string_append_c(out, '}');
        }
        g_string_append_c(out, ']');
        append_processes_json(out, processes);
        g_string_append_c(out, '}');
        json_print(out);
}

static void print_explain_text(const char *unit, const char *cgroup, const GPtrArray *groups,
                               const GPtrArray *knobs, const GPtrArray *processes, GPtrArray *failures) {
        /* Requested and effective stay whole: they are what explain is for.
         * The directories of the source go first (its file name and line
         * stay), then the backend file after the knob's name. This fits 80
         * columns unless the values are long. */
        static const TableCut cuts[] = {
                { KNOB_SOURCE, 22 }, { KNOB_NAME, 20 }, { KNOB_SOURCE, 14 },
                { KNOB_NAME, 16 },   { KNOB_BACKEND, 9 }, { KNOB_GROUP, 8 },
        };
        g_autoptr(GString) group_list = g_string_new(NULL);
        guint n = knobs->len / _KNOB_FIELDS;
        bool any_cap = false, any_failure = false;
        uint64_t now = now_realtime_usec();
        /* Each row's note, with the failure of its last write first. */
        g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);

        for (guint i = 0; i < groups->len / 2; i++)
                g_string_append_printf(group_list, "%s%s (%s)", i > 0 ? ", " : "",
                                       (const char *) g_ptr_array_index(groups, 2 * i),
                                       (const char *) g_ptr_array_index(groups, 2 * i + 1));
        g_autofree char *manager = unit_manager_description(unit);
        printf("  Unit: %s\n", isempty(unit) ? "-" : unit);
        if (manager)
                printf("Manager: %s\n", manager);
        printf("Cgroup: %s\n", cgroup);
        printf("Groups: %s\n", group_list->len > 0 ? group_list->str : "none");

        if (n == 0 && failures->len == 0) {
                printf("\nNo settings apply.\n");
                print_processes_text(processes);
                return;
        }

        g_autoptr(Table) t = table_new(knob_columns, _KNOB_FIELDS, true);
        g_autoptr(GPtrArray) names = g_ptr_array_new();
        for (guint i = 0; i < n + failures->len; i++) {
                const char *extra[_KNOB_FIELDS];
                const char *const *k;
                const KnobFailure *f;
                if (i < n) {
                        k = (const char *const *) knobs->pdata + _KNOB_FIELDS * i;
                        f = knob_row_failure(failures, k);
                } else {
                        f = g_ptr_array_index(failures, i - n);
                        if (f->shown)
                                continue;
                        failure_row(f, extra);
                        k = extra;
                }
                bool cap = note_is_cap(k[KNOB_NOTE]);
                any_cap |= cap;
                any_failure |= f != NULL;
                g_autofree char *failed = f ? knob_failure_note(f, now) : NULL;
                char *note = !failed                ? g_strdup(k[KNOB_NOTE])
                             : isempty(k[KNOB_NOTE]) ? g_strdup(failed)
                                                     : g_strconcat(failed, "; ", k[KNOB_NOTE], NULL);
                g_ptr_array_add(notes, note);
                g_ptr_array_add(names, (char *) k[KNOB_NAME]);
                table_add_row(t, cap || f ? '!' : ' ', k[KNOB_NAME], k[KNOB_REQUESTED], k[KNOB_EFFECTIVE],
                              k[KNOB_BACKEND], k[KNOB_GROUP], k[KNOB_SOURCE], note);
        }
        table_layout(t, cuts, ELEMENTSOF(cuts));
        putchar('\n');
        table_print(t);

        if (table_dropped(t, KNOB_NOTE)) {
                /* The terminal is too narrow for the notes in the table. */
                printf("\nNotes:\n");
                for (guint i = 0; i < notes->len; i++) {
                        const char *note = g_ptr_array_index(notes, i);
                        if (!isempty(note))
                                printf("%c %s: %s\n", table_marker(t, i), (const char *) g_ptr_array_index(names, i),
                                       note);
                }
        }
        if (any_cap && !arg_no_legend)
                printf("\n! A parent cgroup caps the requested value: the kernel enforces the lower one.\n");
        if (any_failure && !arg_no_legend)
                printf("%s! The last write failed: policyd tries again when it next applies the cgroup, and the "
                       "journal has each failure (journalctl -u policyd).\n",
                       any_cap ? "" : "\n");
        print_processes_text(processes);
}

int read_explain_reply(sd_bus_message *reply, const char **ret_unit, const char **ret_cgroup, GPtrArray *groups,
                       GPtrArray *knobs) {
        const char *group, *source, *f[_KNOB_FIELDS];
        int r;

        r = sd_bus_message_read(reply, "ss", ret_unit, ret_cgroup);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(ss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(ss)", &group, &source)) > 0) {
                g_ptr_array_add(groups, g_strdup(group));
                g_ptr_array_add(groups, g_strdup(source));
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(sssssss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sssssss)", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5],
                                                  &f[6])) > 0)
                for (size_t i = 0; i < _KNOB_FIELDS; i++)
                        g_ptr_array_add(knobs, g_strdup(f[i]));
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        return r < 0 ? r : 0;
}

/* A unit may be named by an alias; policyd knows it by systemd's Id, as
 * systemctl does. Anything else, or a unit systemd has not loaded, is
 * passed on as it is. */
static char *canonical_target(sd_bus *bus, const char *arg) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        g_autoptr(sd_bus_message) reply = NULL;
        const char *path;
        char *id = NULL;

        if (arg[0] == '/' || strspn(arg, "0123456789") == strlen(arg) || !strchr(arg, '.') || strchr(arg, '/'))
                return g_strdup(arg);
        if (sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                               "org.freedesktop.systemd1.Manager", "GetUnit", &error, &reply, "s", arg) < 0 ||
            sd_bus_message_read(reply, "o", &path) < 0 ||
            sd_bus_get_property_string(bus, "org.freedesktop.systemd1", path, "org.freedesktop.systemd1.Unit", "Id",
                                       &error, &id) < 0) {
                sd_bus_error_free(&error);
                return g_strdup(arg);
        }
        sd_bus_error_free(&error);
        return id; /* malloc()ed, as g_free() takes it */
}

/* With --user, a unit name is one of the caller's own manager:
 * user@UID/UNIT, which policyd checks against the caller's uid. Cgroup
 * paths, PIDs and user@UID/UNIT pass as they are. */
static char *user_target(const char *arg) {
        if (!arg_user || target_argument_classify(arg, NULL) != TARGET_ARGUMENT_UNIT)
                return g_strdup(arg);
        return g_strdup_printf("user@%" PRIu32 "/%s", (uint32_t) getuid(), arg);
}

/* The target as policyd knows it: the user's unit with --user, else the
 * unit's canonical name (an alias resolved) for a system unit. */
static char *target_for_call(sd_bus *bus, const char *arg) {
        if (arg_user)
                return user_target(arg);
        return canonical_target(bus, arg);
}

int verb_explain(int argc, char **argv) {
        g_autoptr(sd_bus) bus = NULL;
        g_autoptr(sd_bus_message) reply = NULL;
        g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) knobs = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) processes = g_ptr_array_new_with_free_func(g_free);
        const char *unit, *cgroup;
        int r, code;

        if (argc != 2) {
                fprintf(stderr, "explain needs one argument: a unit name, a cgroup path or a PID.\n");
                return EXIT_USAGE;
        }

        code = connect_system_bus(&bus);
        if (code != EXIT_OK)
                return code;
        g_autofree char *target = target_for_call(bus, argv[1]);
        code = call(bus, "explain", POLICYD_BUS_INTERFACE, "Explain", &reply, "s", target);
        if (code != EXIT_OK)
                return code;

        r = read_explain_reply(reply, &unit, &cgroup, groups, knobs);
        if (r < 0)
                return bad_reply("Explain", r);
        r = read_processes(bus, target, processes);
        if (r < 0)
                return bad_reply("ListProcesses", r);
        g_autoptr(GPtrArray) failures = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        r = read_write_failures(bus, target, &failures, &error);
        if (r < 0) {
                code = error.name ? report_call_error("explain", "ListWriteFailures", &error, r)
                                  : bad_reply("ListWriteFailures", r);
                sd_bus_error_free(&error);
                return code;
        }

        if (arg_json)
                print_explain_json(unit, cgroup, groups, knobs, processes, failures);
        else
                print_explain_text(unit, cgroup, groups, knobs, processes, failures);
        return EXIT_OK;
}

/* ---- assign, unassign, reload ---- */

/* How the confirmation names a target: policyd assigns a PID's cgroup. */
static char *target_description(const char *target) {
        if (target[0] != '\0' && strspn(target, "0123456789") == strlen(target))
                return g_strdup_printf("the cgroup of PID %s", target);
        return g_strdup(target);
}

/* The caller's own systemd, as systemctl --user reaches it: its private
 * socket, else the session bus. NULL, said, when neither answers. */
static sd_bus *connect_user_manager(void) {
        g_autoptr(sd_bus) bus = NULL;
        const char *runtime = getenv("XDG_RUNTIME_DIR");
        int r;

        if (runtime && runtime[0] == '/') {
                g_autofree char *address = g_strdup_printf("unix:path=%s/systemd/private", runtime);
                if (sd_bus_new(&bus) >= 0 && sd_bus_set_address(bus, address) >= 0 && sd_bus_start(bus) >= 0)
                        return TAKE_PTR(bus);
                bus = sd_bus_unref(bus);
        }
        r = sd_bus_open_user(&bus);
        if (r < 0) {
                fprintf(stderr, "Cannot reach your systemd (--user): %s. Is XDG_RUNTIME_DIR set?\n", g_strerror(-r));
                return NULL;
        }
        return TAKE_PTR(bus);
}

/* With --user, assign of a unit name needs a unit the caller's own
 * manager has, as systemctl --user set-property does: policyd cannot ask
 * the user's manager for the caller, and would otherwise keep an
 * assignment for any name. EXIT_OK, or the exit code, said. */
static int check_user_unit(const char *unit) {
        g_autoptr(sd_bus) bus = connect_user_manager();
        g_autoptr(sd_bus_message) reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        g_autofree char *state = NULL;
        const char *path;
        int r;

        if (!bus)
                return EXIT_ERRORS;
        r = sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                               "org.freedesktop.systemd1.Manager", "LoadUnit", &error, &reply, "s", unit);
        if (r >= 0)
                r = sd_bus_message_read(reply, "o", &path);
        if (r >= 0)
                r = sd_bus_get_property_string(bus, "org.freedesktop.systemd1", path, "org.freedesktop.systemd1.Unit",
                                               "LoadState", &error, &state);
        if (r < 0) {
                fprintf(stderr, "Failed to look up %s in your systemd (--user): %s\n", unit,
                        error.message ? error.message : g_strerror(-r));
                sd_bus_error_free(&error);
                return EXIT_ERRORS;
        }
        sd_bus_error_free(&error);
        if (streq(state, "not-found")) {
                fprintf(stderr, "Unit %s not found.\n", unit);
                return EXIT_ERRORS;
        }
        return EXIT_OK;
}

static int assign_common(int argc, char **argv, bool assign) {
        const char *verb = assign ? "assign" : "unassign";
        g_autoptr(sd_bus) bus = NULL;
        int code;

        if (argc != 3) {
                fprintf(stderr, "%s needs two arguments: a unit name, cgroup path or PID, and a group.\n", verb);
                return EXIT_USAGE;
        }
        code = connect_system_bus(&bus);
        if (code != EXIT_OK)
                return code;
        /* Unassign of a name that has gone takes back what is left. */
        if (arg_user && assign && target_argument_classify(argv[1], NULL) == TARGET_ARGUMENT_UNIT) {
                code = check_user_unit(argv[1]);
                if (code != EXIT_OK)
                        return code;
        }
        g_autofree char *target = target_for_call(bus, argv[1]);
        code = call(bus, verb, POLICYD_BUS_INTERFACE, assign ? "Assign" : "Unassign", NULL, "ss", target, argv[2]);
        if (code != EXIT_OK)
                return code;

        /* With --json, success prints nothing: the exit status says it. */
        if (!arg_json) {
                g_autofree char *what = target_description(arg_user ? target : argv[1]);
                if (assign)
                        printf("Assigned %s to group %s.\n", what, argv[2]);
                else
                        printf("Removed %s from group %s.\n", what, argv[2]);
        }
        return EXIT_OK;
}

int verb_assign(int argc, char **argv) {
        return assign_common(argc, argv, true);
}

int verb_unassign(int argc, char **argv) {
        return assign_common(argc, argv, false);
}

int verb_reload(int argc, char **argv) {
        g_autoptr(sd_bus) bus = NULL;
        g_autoptr(sd_bus_message) reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        DaemonState state = {};
        int r, code;

        if (argc > 1) {
                fprintf(stderr, "reload takes no arguments.\n");
                return EXIT_USAGE;
        }
        code = connect_system_bus(&bus);
        if (code != EXIT_OK)
                return code;
        code = call(bus, "reload", POLICYD_BUS_INTERFACE, "Reload", NULL, NULL);
        if (code != EXIT_OK)
                return code;
        if (arg_daemon_reload) {
                /* Only on request: a daemon-reload also applies every other
                 * pending unit edit, and runs every generator. */
                r = sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                       "org.freedesktop.systemd1.Manager", "Reload", &error, NULL, NULL);
                if (r < 0) {
                        bool denied = sd_bus_error_has_name(&error, SD_BUS_ERROR_ACCESS_DENIED);
                        fprintf(stderr, "Reloaded policy groups, but systemd's daemon-reload failed: %s\n",
                                error.message ? error.message : g_strerror(-r));
                        sd_bus_error_free(&error);
                        return denied ? EXIT_ACCESS_DENIED : EXIT_ERRORS;
                }
        }

        /* The reload is done; what it found in the files is extra, and
         * failing to learn it is no failure. */
        r = call_raw(bus, "org.freedesktop.DBus.Properties", "GetAll", &error, &reply, "s", POLICYD_BUS_INTERFACE);
        sd_bus_error_free(&error);
        if (r < 0 || parse_daemon_state(reply, &state) < 0) {
                if (!arg_json)
                        printf("Reloaded policy groups.\n");
                return EXIT_OK;
        }
        if (!arg_json)
                printf("Reloaded policy groups: %" PRIu32 " %s loaded.\n", state.n_groups,
                       state.n_groups == 1 ? "group" : "groups");
        if (state.n_errors + state.n_warnings > 0)
                fprintf(stderr,
                        "The policy files have %" PRIu32 " %s and %" PRIu32 " %s; see: policyctl verify\n",
                        state.n_errors, state.n_errors == 1 ? "error" : "errors", state.n_warnings,
                        state.n_warnings == 1 ? "warning" : "warnings");
        daemon_state_done(&state);
        return EXIT_OK;
}
