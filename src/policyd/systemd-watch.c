/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "bus-util.h"
#include "link-trust.h"
#include "log.h"
#include "message-ids.h"
#include "policy-values.h"
#include "systemd-watch.h"
#include "util.h"

/* Replies may arrive after the subject was dropped or refreshed again; they
 * carry the key and generation, never a pointer to the subject. */
typedef struct CallContext {
        SystemdLink *link;  /* outlives the call: closing its bus frees the call */
        Manager *manager;
        sd_bus_message_handler_t handler;
        char *key;
        unsigned generation;
        bool ends_refresh; /* the last call of a unit refresh: frees a slot */
        struct UnitRead *read; /* unit refreshes only */
        char *property;     /* a Get of a values read: the property asked for */
        char *object_path;  /* a unit check's Get: the unit's object */
        GPtrArray *changes; /* SetUnitProperties only: PropertyChange* */
        bool undo;
} CallContext;

static void unit_read_unref(struct UnitRead *read);

/* unit: as this manager names it; the context carries the subject key. */
static CallContext *call_context_new(SystemdLink *l, const char *unit, unsigned generation) {
        CallContext *c;

        assert(l && unit);
        c = g_new0(CallContext, 1);
        c->link = l;
        c->manager = l->manager;
        c->key = systemd_link_key(l, unit);
        c->generation = generation;
        return c;
}

/* Only frees: it also runs when the bus is closed at teardown, when the
 * manager's tables may be half gone (issue: SEGV in g_queue_pop_head). */
static void call_context_free(CallContext *c) {
        if (!c)
                return;
        g_free(c->key);
        g_free(c->property);
        g_free(c->object_path);
        unit_read_unref(c->read);
        if (c->changes)
                g_ptr_array_unref(c->changes);
        g_free(c);
}

static void call_context_destroy(void *p) {
        call_context_free(p);
}

/* Every reply, error replies included (sd-bus makes one up for each call
 * pending when the connection drops), comes through here: the call is
 * counted out after its handler ran, and only here. */
static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CallContext *c = userdata;
        SystemdLink *l;

        assert(c && c->link && c->handler);
        l = c->link;
        (void) c->handler(reply, c, ret_error);
        if (c->ends_refresh) {
                c->ends_refresh = false;
                manager_refresh_finished(l);
        }
        if (l->pending_calls > 0)
                l->pending_calls--;
        manager_call_finished(l->manager);
        return 0;
}

/* Sends msg; the slot owns c and frees it after the reply, or with the bus. */
static int call_async(SystemdLink *l, sd_bus_message *msg, sd_bus_message_handler_t handler, CallContext *c) {
        sd_bus_slot *slot = NULL;
        int r;

        assert(l && msg && handler && c);
        c->handler = handler;
        r = sd_bus_call_async(l->bus, &slot, msg, on_reply, c, 0);
        if (r < 0) {
                call_context_free(c);
                return r;
        }
        l->pending_calls++;
        manager_call_started(l->manager);
        sd_bus_slot_set_destroy_callback(slot, call_context_destroy);
        sd_bus_slot_set_floating(slot, 1);
        sd_bus_slot_unref(slot);
        return 0;
}

static int get_all_async(SystemdLink *l, const char *path, const char *interface, sd_bus_message_handler_t handler,
                         CallContext *c) {
        g_autoptr(sd_bus_message) msg = NULL;
        int r;

        r = sd_bus_message_new_method_call(l->bus, &msg, SYSTEMD_BUS_NAME, path, "org.freedesktop.DBus.Properties",
                                           "GetAll");
        if (r >= 0)
                r = sd_bus_message_append(msg, "s", interface);
        if (r < 0) {
                call_context_free(c);
                return r;
        }
        return call_async(l, msg, handler, c);
}

static int get_async(SystemdLink *l, const char *path, const char *interface, const char *property,
                     sd_bus_message_handler_t handler, CallContext *c) {
        g_autoptr(sd_bus_message) msg = NULL;
        int r;

        r = sd_bus_message_new_method_call(l->bus, &msg, SYSTEMD_BUS_NAME, path, "org.freedesktop.DBus.Properties",
                                           "Get");
        if (r >= 0)
                r = sd_bus_message_append(msg, "ss", interface, property);
        if (r < 0) {
                call_context_free(c);
                return r;
        }
        return call_async(l, msg, handler, c);
}

bool bus_error_is_vanished(const sd_bus_error *e) {
        return sd_bus_error_has_name(e, "org.freedesktop.systemd1.NoSuchUnit") ||
               sd_bus_error_has_name(e, "org.freedesktop.DBus.Error.UnknownObject") ||
               sd_bus_error_has_name(e, "org.freedesktop.DBus.Error.UnknownMethod") ||
               sd_bus_error_has_name(e, "org.freedesktop.systemd1.LoadFailed");
}

/* ---- reading properties ---- */

static char *node_mask_bytes_to_string(const uint8_t *bytes, size_t n) {
        NumaNodeMask mask = {};
        for (size_t i = 0; i < n && i * 8 < NUMA_NODES_MAX; i++)
                for (unsigned b = 0; b < 8; b++)
                        if (bytes[i] & (1u << b))
                                numa_node_mask_set(&mask, (unsigned) (i * 8 + b));
        return format_numa_nodes(&mask);
}

/* Reads the variant of one property as a string, the way we compare them:
 * "infinity" for UINT64_MAX, yes/no for booleans, node lists for masks.
 * Returns 0 and NULL for types we do not read. */
static int read_variant_as_string(sd_bus_message *msg, char **ret) {
        const char *contents;
        char type;
        int r;

        r = sd_bus_message_peek_type(msg, &type, &contents);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(msg, SD_BUS_TYPE_VARIANT, contents);
        if (r < 0)
                return r;

        if (streq(contents, "t")) {
                uint64_t v;
                r = sd_bus_message_read(msg, "t", &v);
                if (r < 0)
                        return r;
                *ret = v == UINT64_MAX ? g_strdup("infinity") : g_strdup_printf("%" PRIu64, v);
        } else if (streq(contents, "u")) {
                uint32_t v;
                r = sd_bus_message_read(msg, "u", &v);
                if (r < 0)
                        return r;
                *ret = g_strdup_printf("%" PRIu32, v);
        } else if (streq(contents, "b")) {
                int b;
                r = sd_bus_message_read(msg, "b", &b);
                if (r < 0)
                        return r;
                *ret = g_strdup(b ? "yes" : "no");
        } else if (streq(contents, "s") || streq(contents, "o")) {
                const char *s;
                r = sd_bus_message_read_basic(msg, contents[0], &s);
                if (r < 0)
                        return r;
                *ret = g_strdup(s);
        } else if (streq(contents, "ay")) {
                const void *p;
                size_t n;
                r = sd_bus_message_read_array(msg, 'y', &p, &n);
                if (r < 0)
                        return r;
                *ret = node_mask_bytes_to_string(p, n);
        } else if (streq(contents, "as")) {
                char **strv = NULL;
                r = sd_bus_message_read_strv(msg, &strv);
                if (r < 0)
                        return r;
                /* Joined with newlines; split by the caller that wants a list. */
                /* sd-bus gives NULL for an empty array. */
                *ret = strv ? g_strjoinv("\n", strv) : g_strdup("");
                g_strfreev(strv);
        } else {
                r = sd_bus_message_skip(msg, contents);
                if (r < 0)
                        return r;
                *ret = NULL;
        }
        return sd_bus_message_exit_container(msg);
}

/* Parses a GetAll reply into name → string for the names wanted. */
static int read_properties(sd_bus_message *reply, const char *const *wanted, GHashTable *out) {
        int r;

        r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_ARRAY, "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_DICT_ENTRY, "sv")) > 0) {
                const char *name;
                bool want = false;

                r = sd_bus_message_read(reply, "s", &name);
                if (r < 0)
                        return r;
                for (const char *const *w = wanted; *w && !want; w++)
                        want = streq(*w, name);
                if (want) {
                        char *value = NULL;
                        r = read_variant_as_string(reply, &value);
                        if (r < 0)
                                return r;
                        if (value)
                                g_hash_table_replace(out, g_strdup(name), value);
                } else {
                        r = sd_bus_message_skip(reply, "v");
                        if (r < 0)
                                return r;
                }
                r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

/* The reads of one refresh: both GetAll calls are in flight at once, and
 * the snapshot goes to the manager when the last reply is in. */
typedef struct UnitRead {
        unsigned n_refs;
        unsigned replies_due;
        bool failed;
        bool values_only;  /* a values read: to manager_unit_values(), NULL for unset */
        UnitSnapshot *snap;
} UnitRead;

static UnitRead *unit_read_ref(UnitRead *read) {
        assert(read && read->n_refs > 0);
        read->n_refs++;
        return read;
}

static void unit_read_unref(UnitRead *read) {
        if (!read)
                return;
        assert(read->n_refs > 0);
        if (--read->n_refs > 0)
                return;
        unit_snapshot_free(read->snap);
        g_free(read);
}

static char *take_property(GHashTable *props, const char *name) {
        gpointer key = NULL, value = NULL;
        if (!g_hash_table_steal_extended(props, name, &key, &value))
                return NULL;
        g_free(key);
        return value;
}

static void snapshot_complete(UnitSnapshot *snap) {
        assert(snap && snap->properties);
        snap->fragment = take_property(snap->properties, "FragmentPath");
        snap->active_state = take_property(snap->properties, "ActiveState");
        g_autofree char *dropins = take_property(snap->properties, "DropInPaths");
        snap->dropins = isempty(dropins) ? NULL : g_strsplit(dropins, "\n", -1);
        /* These stay in properties too: explain and the plan read them there. */
        snap->cgroup = g_strdup(g_hash_table_lookup(snap->properties, "ControlGroup"));
        snap->slice = g_strdup(g_hash_table_lookup(snap->properties, "Slice"));
        snap->user = g_strdup(g_hash_table_lookup(snap->properties, "User"));
}

/* A reply to one call of a read: a GetAll of the Unit interface, or a Get
 * of one property (c->property) of the unit type's. */
static int on_unit_read(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        static const char *const unit_wanted[] = { "FragmentPath", "DropInPaths", "ActiveState", "Transient", NULL };
        CallContext *c = userdata;
        Manager *m = c->manager;
        UnitRead *read = c->read;
        Subject *s = manager_find_subject(m, c->key);
        int r = 0;

        /* One reply per call send_unit_read() counted, and the read lives
         * as long as a call of it does. */
        assert(read && read->n_refs > 0 && read->replies_due > 0);
        read->replies_due--;
        c->ends_refresh = read->replies_due == 0;
        if (read->failed)
                return 0;
        if (!s || s->refresh_generation != c->generation) {
                read->failed = true; /* superseded, or forgotten */
                return 0;
        }

        if (sd_bus_message_is_method_error(reply, NULL)) {
                const sd_bus_error *e = sd_bus_message_get_error(reply);
                if (c->property && sd_bus_error_has_name(e, SD_BUS_ERROR_UNKNOWN_PROPERTY)) {
                        /* Not on this unit type or systemd: unset, as GetAll would say. */
                        if (read->values_only)
                                g_hash_table_replace(read->snap->properties, g_strdup(c->property), NULL);
                } else if (bus_error_is_vanished(e)) {
                        read->failed = true;
                        log_unit_debug(subject_name(s), "Unit vanished: %s", e->message);
                        manager_forget_unit(m, c->key);
                        return 0;
                } else {
                        /* A user's manager that stops ends the connection, and
                         * sd-bus answers the calls in flight with NoReply; its
                         * link goes when PID 1 says so, its units with it. */
                        bool closing = c->link->user && sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY);
                        read->failed = true;
                        log_unit_full(subject_name(s), closing ? LOG_DEBUG : LOG_WARNING, "Failed to read unit%s%s: %s",
                                      c->property ? " property " : "", strempty(c->property), e->message);
                        return 0;
                }
        } else if (c->property) {
                char *value = NULL;
                r = read_variant_as_string(reply, &value);
                if (r >= 0 && (value || read->values_only))
                        g_hash_table_replace(read->snap->properties, g_strdup(c->property), value);
        } else
                r = read_properties(reply, unit_wanted, read->snap->properties);
        if (r < 0) {
                read->failed = true;
                log_unit_warning_errno(subject_name(s), r, "Failed to parse unit properties: %m");
                return 0;
        }
        if (read->replies_due > 0)
                return 0;

        if (read->values_only)
                manager_unit_values(m, c->key, c->generation, read->snap->properties);
        else {
                snapshot_complete(read->snap);
                manager_unit_snapshot(m, c->key, c->generation, read->snap);
        }
        return 0;
}

/* The properties of the unit type's interface that resolving and planning
 * need, a Get each: a GetAll there would have systemd read the cgroup's
 * counters (memory, CPU, IO, tasks) for dozens of properties nobody here
 * wants. User only where the type has an execution context. */
static const char *const type_wanted[] = {
        "ControlGroup", "Slice", "Delegate", "MemorySwapMax", "MemoryZSwapMax", "MemoryZSwapWriteback",
        "AllowedMemoryNodes", "User", NULL,
};

static bool type_has_user(const char *unit) {
        const char *type = unit_name_type(unit);
        return type && (streq(type, "service") || streq(type, "socket") || streq(type, "mount") ||
                        streq(type, "swap"));
}

/* Sends the calls of one read at once: a GetAll of the Unit interface
 * (whole_unit), and a Get of each of properties on the unit type's. The
 * last reply hands the result on. Fails only when no call went out; else
 * the replies already due end the read, without applying. */
static int send_unit_read(SystemdLink *l, const char *unit, const char *object_path, unsigned generation,
                          bool whole_unit, const char *const *properties) {
        const char *interface = unit_type_interface(unit);
        UnitRead *read;
        int r = 0;

        if (!l->bus)
                return -ENOTCONN;
        if (!interface)
                return -EINVAL;

        read = g_new0(UnitRead, 1);
        read->n_refs = 1;
        read->values_only = !whole_unit;
        read->snap = unit_snapshot_new();
        for (ssize_t i = whole_unit ? -1 : 0; r >= 0 && (i < 0 || properties[i]); i++) {
                CallContext *c = call_context_new(l, unit, generation);
                c->read = unit_read_ref(read);
                if (i < 0)
                        r = get_all_async(l, object_path, SYSTEMD_UNIT_INTERFACE, on_unit_read, c);
                else {
                        c->property = g_strdup(properties[i]);
                        r = get_async(l, object_path, interface, properties[i], on_unit_read, c);
                }
                if (r < 0)
                        read->failed = true;
                else
                        read->replies_due++;
        }
        unsigned sent = read->replies_due;
        unit_read_unref(read);
        if (r < 0) {
                /* A user's manager that goes away takes the connection along. */
                bool gone = l->user && (r == -ECONNRESET || r == -ENOTCONN || r == -EPIPE);
                g_autofree char *key = systemd_link_key(l, unit); /* "user@UID/UNIT" for a user's unit */
                log_unit_full_errno(key, gone ? LOG_DEBUG : LOG_WARNING, r, "Failed to ask %s for the unit: %m",
                                    l->user ? "the user's systemd" : "systemd");
                if (sent == 0)
                        return r;
        }
        return 0;
}

int systemd_refresh_unit(SystemdLink *l, const char *unit, const char *object_path, unsigned generation) {
        const char *wanted[G_N_ELEMENTS(type_wanted) + 1];
        size_t n = 0;
        uid_t uid;

        for (const char *const *p = type_wanted; *p; p++)
                if (!streq(*p, "User") || type_has_user(unit))
                        wanted[n++] = *p;
        /* A user's manager is followed only when the peer of its socket is
         * the process PID 1 runs as user@UID.service (user-managers.c). */
        if (!l->user && user_manager_unit_parse(unit, &uid) >= 0)
                wanted[n++] = "MainPID";
        wanted[n] = NULL;
        /* The Unit interface has nothing costly to compute: one GetAll. */
        return send_unit_read(l, unit, object_path, generation, true, wanted);
}

int systemd_read_unit_values(SystemdLink *l, const char *unit, const char *object_path, unsigned generation,
                             char *const *properties) {
        if (!properties || !properties[0])
                return -EINVAL;
        return send_unit_read(l, unit, object_path, generation, false, (const char *const *) properties);
}

/* ---- does a unit exist (the startup sweep) ---- */

static int on_unit_load_state(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CallContext *c = userdata;
        g_autofree char *load_state = NULL;
        int r;

        if (sd_bus_message_is_method_error(reply, NULL)) {
                manager_unit_checked(c->manager, c->key, NULL, NULL, sd_bus_message_get_error(reply));
                return 0;
        }
        r = read_variant_as_string(reply, &load_state);
        if (r < 0 || !load_state) {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
                sd_bus_error_set_errnof(&e, r < 0 ? -r : EBADMSG, "Failed to parse LoadState: %m");
                manager_unit_checked(c->manager, c->key, NULL, NULL, &e);
                return 0;
        }
        manager_unit_checked(c->manager, c->key, c->object_path, load_state, NULL);
        return 0;
}

static int on_unit_loaded(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CallContext *c = userdata;
        Manager *m = c->manager;
        const char *path;
        int r;

        if (sd_bus_message_is_method_error(reply, NULL)) {
                manager_unit_checked(m, c->key, NULL, NULL, sd_bus_message_get_error(reply));
                return 0;
        }
        r = sd_bus_message_read(reply, "o", &path);
        if (r >= 0 && !c->link->bus)
                r = -ENOTCONN;
        if (r >= 0) {
                /* The sweep asks the system manager only: its key is the unit. */
                CallContext *next = call_context_new(c->link, c->key, 0);
                next->object_path = g_strdup(path);
                r = get_async(c->link, path, SYSTEMD_UNIT_INTERFACE, "LoadState", on_unit_load_state, next);
        }
        if (r < 0) {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
                sd_bus_error_set_errnof(&e, -r, "Failed to ask for LoadState: %m");
                manager_unit_checked(m, c->key, NULL, NULL, &e);
        }
        return 0;
}

int systemd_check_unit(SystemdLink *l, const char *unit) {
        g_autoptr(sd_bus_message) msg = NULL;
        int r;

        if (!l->bus)
                return -ENOTCONN;
        r = sd_bus_message_new_method_call(l->bus, &msg, SYSTEMD_BUS_NAME, SYSTEMD_BUS_PATH,
                                           SYSTEMD_MANAGER_INTERFACE, "LoadUnit");
        if (r >= 0)
                r = sd_bus_message_append(msg, "s", unit);
        if (r < 0)
                return r;
        return call_async(l, msg, on_unit_loaded, call_context_new(l, unit, 0));
}

/* ---- SetUnitProperties ---- */

static int on_set_properties(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CallContext *c = userdata;

        manager_unit_properties_set(c->manager, c->key, c->changes, c->undo,
                                    sd_bus_message_is_method_error(reply, NULL) ? sd_bus_message_get_error(reply)
                                                                                 : NULL);
        return 0;
}

static int append_property(sd_bus_message *msg, const char *property, const char *value) {
        int r;

        r = sd_bus_message_open_container(msg, SD_BUS_TYPE_STRUCT, "sv");
        if (r < 0)
                return r;
        r = sd_bus_message_append(msg, "s", property);
        if (r < 0)
                return r;

        if (streq(property, "MemoryZSwapWriteback")) {
                bool b;
                r = parse_boolean(value, &b, NULL);
                if (r < 0)
                        return r;
                r = sd_bus_message_append(msg, "v", "b", (int) b);
        } else if (streq(property, "AllowedMemoryNodes")) {
                NumaNodeMask mask = {};
                uint8_t bytes[NUMA_NODES_MAX / 8] = {};
                size_t n = 0;
                if (!isempty(value)) {
                        r = parse_numa_nodes(value, &mask, NULL);
                        if (r < 0)
                                return r;
                }
                for (unsigned i = 0; i < NUMA_NODES_MAX; i++)
                        if (numa_node_mask_test(&mask, i)) {
                                bytes[i / 8] |= (uint8_t) (1u << (i % 8));
                                n = i / 8 + 1;
                        }
                r = sd_bus_message_open_container(msg, SD_BUS_TYPE_VARIANT, "ay");
                if (r < 0)
                        return r;
                r = sd_bus_message_append_array(msg, 'y', bytes, n);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(msg);
        } else {
                uint64_t v;
                if (streq(value, "infinity"))
                        v = UINT64_MAX;
                else {
                        char *end;
                        errno = 0;
                        v = strtoull(value, &end, 10);
                        if (errno != 0 || *end != '\0' || end == value)
                                return -EINVAL;
                }
                r = sd_bus_message_append(msg, "v", "t", v);
        }
        if (r < 0)
                return r;
        return sd_bus_message_close_container(msg);
}

int systemd_set_unit_properties(SystemdLink *l, const char *unit, GPtrArray *changes, bool undo) {
        g_autoptr(sd_bus_message) msg = NULL;
        int r;

        assert(l && unit && changes);
        if (changes->len == 0)
                return 0;
        if (!l->bus)
                return -ENOTCONN;

        r = sd_bus_message_new_method_call(l->bus, &msg, SYSTEMD_BUS_NAME, SYSTEMD_BUS_PATH,
                                           SYSTEMD_MANAGER_INTERFACE, "SetUnitProperties");
        if (r < 0)
                return r;
        r = sd_bus_message_append(msg, "sb", unit, 1);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(msg, SD_BUS_TYPE_ARRAY, "(sv)");
        if (r < 0)
                return r;
        for (guint i = 0; i < changes->len; i++) {
                const PropertyChange *c = g_ptr_array_index(changes, i);
                r = append_property(msg, c->property, c->value);
                if (r < 0) {
                        g_autofree char *key = systemd_link_key(l, unit);
                        return log_context_id(MESSAGE_ID_WRITE_REFUSED, LOG_WARNING, r, key, NULL, NULL, 0,
                                              "Cannot encode %s=%s: %m", c->property, c->value);
                }
        }
        r = sd_bus_message_close_container(msg);
        if (r < 0)
                return r;

        CallContext *c = call_context_new(l, unit, 0);
        c->changes = g_ptr_array_ref(changes);
        c->undo = undo;
        return call_async(l, msg, on_set_properties, c);
}

/* ---- signals ---- */

/* Whether a signal comes from the systemd of this link. A user's link is
 * a direct connection to a peer checked when it was made (user-managers.c):
 * everything on it is that manager's. On the system bus anyone may send a
 * unicast signal to policyd under any path and interface, and sd-bus cannot
 * check a well-known sender name: only the unique name the bus daemon says
 * owns org.freedesktop.systemd1 is systemd. */
static bool signal_from_systemd(SystemdLink *l, sd_bus_message *msg) {
        if (l->user)
                return true;
        if (systemd_signal_sender_trusted(sd_bus_message_get_sender(msg), l->owner))
                return true;
        log_debug("Ignoring %s.%s from %s, which is not systemd (%s).", strempty(sd_bus_message_get_interface(msg)),
                  strempty(sd_bus_message_get_member(msg)), strempty(sd_bus_message_get_sender(msg)),
                  l->owner ? l->owner : "not on the bus");
        return false;
}

/* A full re-read (every unit of the link) at most once a while: each is a
 * call or more per unit to that systemd, and a user may daemon-reload their
 * own manager as often as they like. Reloads in between coalesce into one
 * re-read when the interval is up. */
#define FULL_REREAD_INTERVAL_USEC (2 * 1000 * 1000)

static void full_reread(SystemdLink *l);

static int on_reread_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        SystemdLink *l = userdata;

        l->reread_timer = sd_event_source_unref(l->reread_timer);
        full_reread(l);
        return 0;
}

static void full_reread(SystemdLink *l) {
        Manager *m = l->manager;
        uint64_t now = 0;

        if (l->reread_timer)
                return; /* one is due: this reload goes with it */
        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (l->last_reread_usec != 0 && now < l->last_reread_usec + FULL_REREAD_INTERVAL_USEC) {
                int r = sd_event_add_time(m->event, &l->reread_timer, CLOCK_MONOTONIC,
                                          l->last_reread_usec + FULL_REREAD_INTERVAL_USEC, 0, on_reread_timer, l);
                if (r >= 0) {
                        log_debug("Re-reading the units of %s in a moment, with any further reloads.",
                                  l->user ? "a user's systemd" : "systemd");
                        return;
                }
                /* No timer: re-read now rather than never. */
        }
        l->last_reread_usec = now;
        if (l->user)
                log_info("The systemd of uid %u finished reloading, re-reading its units.", (unsigned) l->uid);
        else
                log_info("systemd finished reloading, re-reading all units.");
        manager_systemd_reloaded(l);
}

static int on_unit_removed(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        SystemdLink *l = userdata;
        const char *id, *path;

        if (!signal_from_systemd(l, msg) || sd_bus_message_read(msg, "so", &id, &path) < 0)
                return 0;
        /* daemon-reload sends UnitRemoved and UnitNew for every unit, between
         * Reloading true and false: a running unit is not gone then, and the
         * refresh after Reloading re-reads it. Otherwise the unit is gone
         * even if our last read said it ran (the read came back before the
         * stop): systemd never unloads a running unit. Reading it again
         * instead would load it again, and its unloading would come back
         * as another UnitRemoved, round and round; for that reason too
         * UnitNew is not followed at all. */
        g_autofree char *key = systemd_link_key(l, id);
        Subject *s = manager_find_subject(l->manager, key);
        if (s && l->reloading && subject_is_running(s))
                return 0;
        manager_forget_unit(l->manager, key);
        return 0;
}

static int on_job_removed(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        SystemdLink *l = userdata;
        const char *job, *unit, *result;
        uint32_t id;

        if (!signal_from_systemd(l, msg) || sd_bus_message_read(msg, "uoss", &id, &job, &unit, &result) < 0)
                return 0;
        if (unit_type_has_cgroup(unit))
                manager_refresh_unit(l, unit, NULL);
        return 0;
}

/* systemd announces ActiveState (and other states and timestamps) on the
 * Unit interface; ControlGroup, FragmentPath and DropInPaths never come in
 * a signal: JobRemoved and Reloading cover those. */
static int on_properties_changed(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        SystemdLink *l = userdata;
        g_autofree char *unit = NULL, *key = NULL;
        const char *interface;
        bool relevant = false;

        if (!signal_from_systemd(l, msg))
                return 0;
        /* The unit from the object path: one lookup, not a scan of every unit. */
        if (sd_bus_path_decode(sd_bus_message_get_path(msg), "/org/freedesktop/systemd1/unit", &unit) <= 0)
                return 0;
        key = systemd_link_key(l, unit);
        if (!manager_find_subject(l->manager, key))
                return 0;
        if (sd_bus_message_read(msg, "s", &interface) < 0 || !streq(interface, SYSTEMD_UNIT_INTERFACE))
                return 0;
        if (sd_bus_message_enter_container(msg, SD_BUS_TYPE_ARRAY, "{sv}") < 0)
                return 0;
        while (!relevant && sd_bus_message_enter_container(msg, SD_BUS_TYPE_DICT_ENTRY, "sv") > 0) {
                const char *name;
                if (sd_bus_message_read(msg, "s", &name) < 0)
                        return 0;
                relevant = streq(name, "ActiveState");
                if (sd_bus_message_skip(msg, "v") < 0 || sd_bus_message_exit_container(msg) < 0)
                        return 0;
        }
        if (relevant)
                manager_refresh_unit(l, unit, sd_bus_message_get_path(msg));
        return 0;
}

static int on_reloading(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        SystemdLink *l = userdata;
        int active;

        if (!signal_from_systemd(l, msg) || sd_bus_message_read(msg, "b", &active) < 0)
                return 0;
        l->reloading = active;
        if (active)
                return 0;
        full_reread(l);
        return 0;
}

static int on_list_units(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CallContext *c = userdata;
        SystemdLink *l = c->link;
        g_autoptr(GHashTable) listed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        const char *id, *active, *path;
        int r;

        if (sd_bus_message_is_method_error(reply, NULL)) {
                log_warning("Failed to list units%s: %s", l->user ? " of a user's systemd" : "",
                            sd_bus_message_get_error(reply)->message);
                manager_units_listed(l, NULL);
                return 0;
        }

        r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_ARRAY, "(ssssssouso)");
        if (r < 0)
                goto fail;
        while ((r = sd_bus_message_read(reply, "(ssssssouso)", &id, NULL, NULL, &active, NULL, NULL, &path, NULL,
                                        NULL, NULL)) > 0)
                if (unit_type_has_cgroup(id) && !streq(active, "inactive") && !streq(active, "failed")) {
                        manager_refresh_unit(l, id, path);
                        g_hash_table_add(listed, systemd_link_key(l, id));
                }
        if (r < 0)
                goto fail;
        manager_units_listed(l, listed);
        return 0;
fail:
        log_warning_errno(r, "Failed to parse the unit list: %m");
        manager_units_listed(l, NULL);
        return 0;
}

static int on_subscribed(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CallContext *c = userdata;

        if (sd_bus_message_is_method_error(reply, NULL)) {
                const sd_bus_error *e = sd_bus_message_get_error(reply);
                /* Already subscribed on this connection is fine. */
                if (!sd_bus_error_has_name(e, "org.freedesktop.systemd1.AlreadySubscribed"))
                        log_warning("Failed to subscribe to %s: %s", c->link->user ? "a user's systemd" : "systemd",
                                    e->message);
        }
        c->link->subscribed = true;
        return 0;
}

static int on_systemd_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        SystemdLink *l = userdata;
        const char *name, *old_owner, *new_owner;

        /* Only the bus daemon sends as org.freedesktop.DBus; no client can
         * own that name. */
        if (!streq_ptr(sd_bus_message_get_sender(msg), "org.freedesktop.DBus") ||
            sd_bus_message_read(msg, "sss", &name, &old_owner, &new_owner) < 0 || !streq(name, SYSTEMD_BUS_NAME))
                return 0;
        g_free(l->owner);
        l->owner = isempty(new_owner) ? NULL : g_strdup(new_owner);
        if (isempty(new_owner)) {
                log_info("systemd left the bus (daemon-reexec?), waiting for it to come back.");
                l->subscribed = false;
                l->reloading = false;
                return 0;
        }
        log_info("systemd is back on the bus, subscribing again.");
        (void) systemd_watch_start(l);
        return 0;
}

static int call_simple(SystemdLink *l, const char *method, sd_bus_message_handler_t handler) {
        g_autoptr(sd_bus_message) msg = NULL;
        int r;

        r = sd_bus_message_new_method_call(l->bus, &msg, SYSTEMD_BUS_NAME, SYSTEMD_BUS_PATH,
                                           SYSTEMD_MANAGER_INTERFACE, method);
        if (r < 0)
                return r;
        return call_async(l, msg, handler, call_context_new(l, "", 0));
}

static int on_name_owner(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CallContext *c = userdata;
        SystemdLink *l = c->link;
        const char *owner = NULL;

        /* NameOwnerChanged signals after our match came in order with this
         * reply: whichever comes last is the newest. */
        g_clear_pointer(&l->owner, g_free);
        if (sd_bus_message_is_method_error(reply, NULL)) {
                log_warning("systemd is not on the bus yet (%s): its signals are ignored until it is.",
                            sd_bus_message_get_error(reply)->message);
                return 0;
        }
        if (sd_bus_message_read(reply, "s", &owner) >= 0 && owner && owner[0] == ':')
                l->owner = g_strdup(owner);
        return 0;
}

/* Who owns systemd's name, after the NameOwnerChanged match is on. */
static int ask_systemd_owner(SystemdLink *l) {
        g_autoptr(sd_bus_message) msg = NULL;
        int r;

        r = sd_bus_message_new_method_call(l->bus, &msg, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                           "org.freedesktop.DBus", "GetNameOwner");
        if (r >= 0)
                r = sd_bus_message_append(msg, "s", SYSTEMD_BUS_NAME);
        if (r < 0)
                return r;
        return call_async(l, msg, on_name_owner, call_context_new(l, "", 0));
}

int systemd_watch_attach(SystemdLink *l) {
        static const struct {
                const char *member;
                sd_bus_message_handler_t handler;
        } signals[] = {
                { "UnitRemoved", on_unit_removed },
                { "JobRemoved", on_job_removed },
                { "Reloading", on_reloading },
        };
        /* A direct connection has no bus daemon: no sender on its messages,
         * no match rules to install, and no NameOwnerChanged; a user
         * manager's reexec ends the connection instead. */
        const char *sender = l->user ? NULL : SYSTEMD_BUS_NAME;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(signals); i++) {
                r = sd_bus_match_signal_async(l->bus, NULL, sender, SYSTEMD_BUS_PATH, SYSTEMD_MANAGER_INTERFACE,
                                              signals[i].member, signals[i].handler, NULL, l);
                if (r < 0)
                        return log_error_errno(r, "Failed to watch systemd's %s signal: %m", signals[i].member);
        }

        r = sd_bus_add_match_async(l->bus, NULL,
                                   l->user ? "type='signal',"
                                             "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                                             "path_namespace='/org/freedesktop/systemd1/unit'"
                                           : "type='signal',sender='" SYSTEMD_BUS_NAME "',"
                                             "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                                             "path_namespace='/org/freedesktop/systemd1/unit'",
                                   on_properties_changed, NULL, l);
        if (r < 0)
                return log_error_errno(r, "Failed to watch unit property changes: %m");
        if (l->user)
                return 0;

        r = sd_bus_add_match_async(l->bus, NULL,
                                   "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                                   "member='NameOwnerChanged',arg0='" SYSTEMD_BUS_NAME "'",
                                   on_systemd_owner_changed, NULL, l);
        if (r < 0)
                return log_error_errno(r, "Failed to watch systemd's bus name: %m");
        r = ask_systemd_owner(l);
        if (r < 0)
                return log_error_errno(r, "Failed to ask who owns systemd's bus name: %m");
        return 0;
}

int systemd_watch_start(SystemdLink *l) {
        int r;

        r = call_simple(l, "Subscribe", on_subscribed);
        if (r < 0)
                return log_error_errno(r, "Failed to subscribe to systemd: %m");
        r = call_simple(l, "ListUnits", on_list_units);
        if (r < 0)
                return log_error_errno(r, "Failed to list units: %m");
        return 0;
}

/* ---- links ---- */

SystemdLink *systemd_link_new(Manager *m, bool user, uid_t uid) {
        SystemdLink *l = g_new0(SystemdLink, 1);
        l->manager = m;
        l->user = user;
        l->uid = uid;
        l->key_prefix = user ? g_strdup_printf("user@%u/", (unsigned) uid) : g_strdup("");
        l->refresh_queue = g_queue_new();
        return l;
}

void systemd_link_close(SystemdLink *l) {
        Manager *m = l->manager;

        if (l->user)
                l->bus = sd_bus_flush_close_unref(l->bus);
        else
                l->bus = NULL;
        /* Calls in flight went with the bus, and so did their replies. */
        m->pending_calls -= MIN(m->pending_calls, l->pending_calls);
        l->pending_calls = 0;
        l->refreshes_in_flight = 0;
        l->subscribed = false;
        l->reloading = false;
        l->listed = false;
        g_clear_pointer(&l->owner, g_free);
        l->reread_timer = sd_event_source_unref(l->reread_timer);
}

SystemdLink *systemd_link_free(SystemdLink *l) {
        if (!l)
                return NULL;
        /* The bus first: closing it frees the calls, which point here. */
        if (l->user)
                l->bus = sd_bus_flush_close_unref(l->bus);
        sd_event_source_unref(l->reconnect_timer);
        sd_event_source_unref(l->reread_timer);
        g_free(l->owner);
        g_queue_free_full(l->refresh_queue, g_free);
        g_free(l->key_prefix);
        g_free(l);
        return NULL;
}

char *systemd_link_key(const SystemdLink *l, const char *unit) {
        return g_strconcat(l->key_prefix, unit, NULL);
}
