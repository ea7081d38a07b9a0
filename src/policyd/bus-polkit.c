/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include <glib.h>

#include "bus-polkit.h"
#include "bus-util.h"
#include "log.h"
#include "util.h"

#define POLKIT_TIMEOUT_USEC (300ULL * 1000000ULL)

/* A method call waiting for polkit's answer. */
typedef struct PolkitQuery {
        sd_bus_message *msg;
        uid_t caller;
        char *action;
        PolkitRerun rerun;
        void *userdata;
        sd_bus_slot *slot; /* of the CheckAuthorization call, ours */
} PolkitQuery;

/* The queries waiting, each owned here until its answer (or
 * bus_polkit_forget_all()). */
static GPtrArray *pending;

static unsigned waiting_of(uid_t uid) {
        unsigned n = 0;
        for (guint i = 0; pending && i < pending->len; i++)
                n += ((const PolkitQuery *) g_ptr_array_index(pending, i))->caller == uid;
        return n;
}

static void polkit_query_free(PolkitQuery *q) {
        sd_bus_slot_unref(q->slot);
        sd_bus_message_unref(q->msg);
        g_free(q->action);
        g_free(q);
}

static void polkit_query_done(PolkitQuery *q) {
        /* A query is answered or forgotten once, while it is pending. */
        assert(q && pending);
        bool found = g_ptr_array_remove_fast(pending, q);
        assert(found);
        (void) found;
        if (pending->len == 0)
                g_clear_pointer(&pending, g_ptr_array_unref);
        polkit_query_free(q);
}

void bus_polkit_forget_all(void) {
        while (pending && pending->len > 0)
                polkit_query_done(g_ptr_array_index(pending, 0));
}

static int on_check_authorization(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        PolkitQuery *q = userdata;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        PolkitVerdict verdict = POLKIT_DENIED;
        int authorized = 0, challenge = 0, r;

        assert(q && q->rerun);
        if (sd_bus_message_is_method_error(reply, NULL)) {
                /* No polkit on this machine (ServiceUnknown): the rule's answer. */
                const sd_bus_error *e = sd_bus_message_get_error(reply);
                bool absent = sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER);
                log_full_errno(absent ? LOG_DEBUG : LOG_WARNING, 0, "polkit did not answer for %s: %s", q->action,
                         e && e->message ? e->message : "?");
        } else {
                r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_STRUCT, "bba{ss}");
                if (r >= 0)
                        r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
                if (r < 0)
                        log_warning_errno(r, "Failed to read polkit's answer for %s: %m", q->action);
                else if (authorized)
                        verdict = POLKIT_AUTHORIZED;
        }
        log_debug("polkit: %s for %s%s", q->action, verdict == POLKIT_AUTHORIZED ? "authorized" : "not authorized",
                  challenge ? " (authentication needed, and no agent gave it)" : "");

        r = sd_bus_message_rewind(q->msg, true);
        if (r >= 0)
                r = q->rerun(q->msg, q->userdata, verdict, &error);
        if (r < 0 && !sd_bus_error_is_set(&error))
                sd_bus_error_set_errno(&error, r);
        if (sd_bus_error_is_set(&error))
                (void) sd_bus_reply_method_error(q->msg, &error);
        polkit_query_done(q);
        return 0;
}

int bus_polkit_check_async(sd_bus_message *msg, uid_t caller, const char *action, PolkitRerun rerun, void *userdata) {
        sd_bus *bus = sd_bus_message_get_bus(msg);
        const char *sender = sd_bus_message_get_sender(msg);
        g_autoptr(sd_bus_message) call = NULL;
        int r;

        assert(msg && action && rerun);
        if (!sender)
                return -EBADMSG; /* a direct connection: no name to ask about */
        if ((pending && pending->len >= POLKIT_QUERIES_MAX) || waiting_of(caller) >= POLKIT_QUERIES_PER_UID)
                return -EBUSY;
        r = sd_bus_message_new_method_call(bus, &call, "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
                                           "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
        if (r >= 0)
                /* The subject is the bus name, which polkit resolves to the
                 * peer's process and session itself; flags 1: interaction
                 * allowed, when the caller said it may wait for it. */
                r = sd_bus_message_append(call, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s", sender,
                                          action, 0,
                                          (uint32_t) (sd_bus_message_get_allow_interactive_authorization(msg) ? 1 : 0),
                                          "");
        if (r < 0)
                return r;

        PolkitQuery *q = g_new0(PolkitQuery, 1);
        q->msg = sd_bus_message_ref(msg);
        q->caller = caller;
        q->action = g_strdup(action);
        q->rerun = rerun;
        q->userdata = userdata;
        /* An agent may wait for a password: longer than sd-bus's 25 s. */
        r = sd_bus_call_async(bus, &q->slot, call, on_check_authorization, q, POLKIT_TIMEOUT_USEC);
        if (r < 0) {
                polkit_query_free(q);
                return r;
        }
        if (!pending)
                pending = g_ptr_array_new();
        g_ptr_array_add(pending, q);
        return 1;
}
