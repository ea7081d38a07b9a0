/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A fake polkit for driving policyd from outside: it owns
 * org.freedesktop.PolicyKit1 on the bus named by DBUS_SYSTEM_BUS_ADDRESS and
 * answers CheckAuthorization as polkitd would for a subject of kind
 * "system-bus-name": authorized when the effective uid the bus reports for
 * that name is one of UID…, whatever the action.
 *
 * Usage: fake-polkit --log=FILE UID…
 *
 * The log has "ready" once the name is owned, then one line a question:
 *   check ACTION UID FLAGS yes|no                           */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-util.h"

static FILE *logf_;
static GArray *authorized; /* uid_t */

static bool uid_authorized(uid_t uid) {
        for (guint i = 0; i < authorized->len; i++)
                if (g_array_index(authorized, uid_t, i) == uid)
                        return true;
        return false;
}

static int method_check_authorization(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        sd_bus *bus = sd_bus_message_get_bus(msg);
        const char *kind, *action, *cancel, *name = NULL;
        uint32_t flags;
        uid_t uid = (uid_t) -1;
        int r;

        r = sd_bus_message_enter_container(msg, 'r', "sa{sv}");
        if (r >= 0)
                r = sd_bus_message_read(msg, "s", &kind);
        if (r >= 0)
                r = sd_bus_message_enter_container(msg, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(msg, 'e', "sv")) > 0) {
                const char *key;
                r = sd_bus_message_read(msg, "s", &key);
                if (r >= 0 && strcmp(key, "name") == 0)
                        r = sd_bus_message_read(msg, "v", "s", &name);
                else if (r >= 0)
                        r = sd_bus_message_skip(msg, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(msg);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(msg);
        if (r >= 0)
                r = sd_bus_message_exit_container(msg);
        if (r >= 0)
                r = sd_bus_message_read(msg, "s", &action);
        if (r >= 0)
                r = sd_bus_message_skip(msg, "a{ss}");
        if (r >= 0)
                r = sd_bus_message_read(msg, "us", &flags, &cancel);
        if (r < 0)
                return r;
        if (strcmp(kind, "system-bus-name") != 0 || !name)
                return sd_bus_error_set(error, "org.freedesktop.PolicyKit1.Error.Failed", "unsupported subject");

        g_autoptr(sd_bus_creds) creds = NULL;
        r = sd_bus_get_name_creds(bus, name, SD_BUS_CREDS_EUID, &creds);
        if (r >= 0)
                r = sd_bus_creds_get_euid(creds, &uid);
        if (r < 0)
                return r;
        bool yes = uid_authorized(uid);
        fprintf(logf_, "check %s %" PRIu32 " %" PRIu32 " %s\n", action, (uint32_t) uid, flags, yes ? "yes" : "no");
        fflush(logf_);
        return sd_bus_reply_method_return(msg, "(bba{ss})", yes, !yes, 0);
}

static const sd_bus_vtable authority_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("CheckAuthorization", "(sa{sv})sa{ss}us", "(bba{ss})", method_check_authorization,
                      SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "log", required_argument, NULL, 'l' },
                {},
        };
        g_autoptr(sd_bus) bus = NULL;
        g_autoptr(sd_event) event = NULL;
        const char *log_path = NULL;
        int c, r;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                if (c == 'l')
                        log_path = optarg;
                else
                        return EXIT_FAILURE;
        if (!log_path)
                return EXIT_FAILURE;
        logf_ = fopen(log_path, "ae");
        if (!logf_)
                return EXIT_FAILURE;
        authorized = g_array_new(FALSE, FALSE, sizeof(uid_t));
        for (int i = optind; i < argc; i++) {
                uid_t uid = (uid_t) strtoul(argv[i], NULL, 10);
                g_array_append_val(authorized, uid);
        }

        r = sd_event_default(&event);
        if (r >= 0)
                r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/PolicyKit1/Authority",
                                             "org.freedesktop.PolicyKit1.Authority", authority_vtable, NULL);
        if (r >= 0)
                r = sd_bus_request_name(bus, "org.freedesktop.PolicyKit1", 0);
        if (r >= 0)
                r = sd_bus_attach_event(bus, event, 0);
        if (r < 0) {
                fprintf(stderr, "fake-polkit: %s\n", strerror(-r));
                return EXIT_FAILURE;
        }
        fprintf(logf_, "ready\n");
        fflush(logf_);
        r = sd_event_loop(event);
        g_array_unref(authorized);
        fclose(logf_);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
