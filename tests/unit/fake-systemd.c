/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A fake systemd for driving policyd from outside: it owns
 * org.freedesktop.systemd1 on the bus named by DBUS_SYSTEM_BUS_ADDRESS and
 * answers the calls policyd makes (Subscribe, ListUnits, Reload, LoadUnit,
 * SetUnitProperties, and Properties.Get/GetAll on unit objects) from a small
 * unit description. Every call is logged, one line each, so that a test can
 * count them; replies can be delayed or held until the test releases them.
 *
 * Usage: fake-systemd --units=FILE --log=FILE [--delay-ms=N] [--hold=METHOD]…
 *
 * FILE has one unit a line: its name, then KEY=VALUE words, for example
 *   app.scope ControlGroup=/test/app.scope Slice=app.slice MemorySwapMax=infinity
 * Lists (DropInPaths) are comma-separated; "#" starts a comment line.
 * ActiveState defaults to "active". A key's D-Bus type comes from its name
 * (see property_type()); a key is served on the Unit interface when
 * systemd has it there (see unit_interface_property()), else on the type
 * interface (Service, Scope, Slice…).
 *
 * The log has "ready" once the name is owned, then one line a call:
 *   METHOD UNIT-OR-"-" [ARG…]   e.g.  SetUnitProperties app.scope runtime=yes MemorySwapMax=1073741824
 *
 * Control methods, on org.policygroups.test.FakeSystemd at /org/freedesktop/systemd1:
 *   Hold(s method)        hold replies to METHOD (or "*") from now on
 *   Release()             send every held reply, and hold nothing more
 *   AddUnit(s line)       add or replace a unit, then send UnitNew and JobRemoved
 *   RemoveUnit(s unit)    drop a unit, then send UnitRemoved
 *   SetProperty(s unit, s key, s value)   change a property, then send PropertiesChanged
 *   Refuse(s property)    answer InvalidArgs to a SetUnitProperties call that sets it ("": none);
 *                         the unit keeps its values, and the log line ends in " refused"
 * Manager.Reload sends Reloading(true), replies, then Reloading(false).
 * LoadUnit of a unit the fake does not have answers its path, as systemd
 * does, whose LoadState reads "not-found" (every other property of it is
 * NoSuchUnit); then it sends UnitNew and UnitRemoved, as systemd's garbage
 * collection of the unit it loaded would. */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-util.h"

#define SYSTEMD_NAME "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define UNIT_PATH_PREFIX "/org/freedesktop/systemd1/unit"
#define MANAGER_IFACE "org.freedesktop.systemd1.Manager"
#define UNIT_IFACE "org.freedesktop.systemd1.Unit"
#define PROPERTIES_IFACE "org.freedesktop.DBus.Properties"
#define CONTROL_IFACE "org.policygroups.test.FakeSystemd"

typedef struct Unit {
        char *name;
        GHashTable *properties; /* key → value as text */
} Unit;

static struct {
        sd_bus *bus;
        sd_event *event;
        GHashTable *units; /* name → Unit */
        GPtrArray *unit_order; /* names, in the order ListUnits gives them */
        FILE *log;
        uint64_t delay_usec;
        GPtrArray *hold; /* method names, or "*" */
        GPtrArray *held; /* sd_bus_message calls waiting for their reply */
        char *refuse; /* a property SetUnitProperties refuses, or NULL */
        uint32_t job_id;
} fake;

static void unit_free(gpointer p) {
        Unit *u = p;
        g_free(u->name);
        g_hash_table_unref(u->properties);
        g_free(u);
}

static char *unit_path(const char *name) {
        char *path = NULL;
        if (sd_bus_path_encode(UNIT_PATH_PREFIX, name, &path) < 0)
                abort();
        return path;
}

/* 't' for limits, 'b' for booleans, 'y' (an "ay" node mask), 'a' (an "as"), 's' otherwise. */
static char property_type(const char *key) {
        static const char *const limits[] = { "MemorySwapMax", "MemoryZSwapMax", "MemoryMax", "MemoryHigh", NULL };
        static const char *const booleans[] = { "MemoryZSwapWriteback", "Delegate", "Transient", NULL };

        if (g_strv_contains(limits, key))
                return 't';
        if (g_strv_contains(booleans, key))
                return 'b';
        if (strcmp(key, "AllowedMemoryNodes") == 0)
                return 'y';
        if (strcmp(key, "DropInPaths") == 0)
                return 'a';
        return 's';
}

static bool unit_interface_property(const char *key) {
        static const char *const keys[] = { "Id",          "Description",  "LoadState", "ActiveState",
                                            "SubState",    "FragmentPath", "DropInPaths", "Transient", NULL };
        return g_strv_contains(keys, key);
}

static const char *type_interface(const char *unit) {
        static const char *const table[][2] = {
                { ".service", "org.freedesktop.systemd1.Service" }, { ".scope", "org.freedesktop.systemd1.Scope" },
                { ".slice", "org.freedesktop.systemd1.Slice" },     { ".socket", "org.freedesktop.systemd1.Socket" },
                { ".mount", "org.freedesktop.systemd1.Mount" },     { ".swap", "org.freedesktop.systemd1.Swap" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(table); i++)
                if (g_str_has_suffix(unit, table[i][0]))
                        return table[i][1];
        return NULL;
}

/* Parses "NAME KEY=VALUE…". Returns NULL for a blank or comment line. */
static Unit *unit_parse(const char *line, GError **error) {
        g_auto(GStrv) words = g_strsplit_set(line, " \t\n", -1);
        Unit *u = NULL;

        for (char **w = words; *w; w++) {
                if (**w == '\0')
                        continue;
                if (!u) {
                        if (**w == '#')
                                return NULL;
                        u = g_new0(Unit, 1);
                        u->name = g_strdup(*w);
                        u->properties = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
                        g_hash_table_insert(u->properties, g_strdup("Id"), g_strdup(*w));
                        g_hash_table_insert(u->properties, g_strdup("LoadState"), g_strdup("loaded"));
                        g_hash_table_insert(u->properties, g_strdup("ActiveState"), g_strdup("active"));
                        g_hash_table_insert(u->properties, g_strdup("SubState"), g_strdup("running"));
                        continue;
                }
                const char *eq = strchr(*w, '=');
                if (!eq || eq == *w) {
                        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: '%s' is not KEY=VALUE",
                                    u->name, *w);
                        unit_free(u);
                        return NULL;
                }
                g_hash_table_replace(u->properties, g_strndup(*w, (gsize) (eq - *w)), g_strdup(eq + 1));
        }
        return u;
}

static void unit_add(Unit *u) {
        if (!g_hash_table_contains(fake.units, u->name))
                g_ptr_array_add(fake.unit_order, g_strdup(u->name));
        g_hash_table_replace(fake.units, u->name, u);
}

static void unit_remove(const char *name) {
        for (guint i = 0; i < fake.unit_order->len; i++)
                if (strcmp(g_ptr_array_index(fake.unit_order, i), name) == 0)
                        g_ptr_array_remove_index(fake.unit_order, i--);
        g_hash_table_remove(fake.units, name);
}

static void log_line(const char *format, ...) G_GNUC_PRINTF(1, 2);
static void log_line(const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        vfprintf(fake.log, format, ap);
        va_end(ap);
        fputc('\n', fake.log);
        fflush(fake.log);
}

/* ---- values ---- */

static int append_variant(sd_bus_message *m, const char *key, const char *value) {
        switch (property_type(key)) {
        case 't': {
                uint64_t v = strcmp(value, "infinity") == 0 ? UINT64_MAX : g_ascii_strtoull(value, NULL, 10);
                return sd_bus_message_append(m, "v", "t", v);
        }
        case 'b':
                return sd_bus_message_append(m, "v", "b", (int) (strcmp(value, "yes") == 0));
        case 'y': {
                /* A comma-separated node list, as a byte mask. */
                uint8_t bytes[128] = {};
                size_t n = 0;
                g_auto(GStrv) nodes = g_strsplit(value, ",", -1);
                for (char **p = nodes; *p; p++) {
                        if (**p == '\0')
                                continue;
                        unsigned node = (unsigned) g_ascii_strtoull(*p, NULL, 10);
                        if (node / 8 >= sizeof(bytes))
                                continue;
                        bytes[node / 8] |= (uint8_t) (1u << (node % 8));
                        n = MAX(n, node / 8 + 1);
                }
                int r = sd_bus_message_open_container(m, 'v', "ay");
                if (r >= 0)
                        r = sd_bus_message_append_array(m, 'y', bytes, n);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
                return r;
        }
        case 'a': {
                g_auto(GStrv) list = *value ? g_strsplit(value, ",", -1) : g_new0(char *, 1);
                int r = sd_bus_message_open_container(m, 'v', "as");
                if (r >= 0)
                        r = sd_bus_message_append_strv(m, list);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
                return r;
        }
        default:
                return sd_bus_message_append(m, "v", "s", value);
        }
}

/* Reads one variant as text, in the format of the unit description. */
static int read_variant(sd_bus_message *m, char **ret) {
        const char *contents;
        char type;
        int r;

        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'v', contents);
        if (r < 0)
                return r;
        if (strcmp(contents, "t") == 0) {
                uint64_t v;
                r = sd_bus_message_read(m, "t", &v);
                *ret = v == UINT64_MAX ? g_strdup("infinity") : g_strdup_printf("%" PRIu64, v);
        } else if (strcmp(contents, "b") == 0) {
                int b;
                r = sd_bus_message_read(m, "b", &b);
                *ret = g_strdup(b ? "yes" : "no");
        } else if (strcmp(contents, "s") == 0) {
                const char *s;
                r = sd_bus_message_read(m, "s", &s);
                *ret = g_strdup(s);
        } else if (strcmp(contents, "ay") == 0) {
                const uint8_t *p;
                size_t n;
                GString *s = g_string_new(NULL);
                r = sd_bus_message_read_array(m, 'y', (const void **) &p, &n);
                for (size_t i = 0; r >= 0 && i < n * 8; i++)
                        if (p[i / 8] & (1u << (i % 8)))
                                g_string_append_printf(s, "%s%zu", s->len ? "," : "", i);
                *ret = g_string_free(s, false);
        } else {
                r = sd_bus_message_skip(m, contents);
                *ret = g_strdup_printf("(%s)", contents);
        }
        if (r < 0) {
                g_free(*ret);
                return r;
        }
        return sd_bus_message_exit_container(m);
}

/* ---- replies ---- */

static Unit *unit_of_path(const char *path) {
        g_autofree char *name = NULL;
        if (sd_bus_path_decode(path, UNIT_PATH_PREFIX, &name) <= 0)
                return NULL;
        return g_hash_table_lookup(fake.units, name);
}

static bool property_on_interface(const Unit *u, const char *key, const char *interface) {
        if (unit_interface_property(key))
                return strcmp(interface, UNIT_IFACE) == 0;
        return g_strcmp0(type_interface(u->name), interface) == 0;
}

static int reply_list_units(sd_bus_message *call) {
        g_autoptr(sd_bus_message) reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(call, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ssssssouso)");
        for (guint i = 0; r >= 0 && i < fake.unit_order->len; i++) {
                const Unit *u = g_hash_table_lookup(fake.units, g_ptr_array_index(fake.unit_order, i));
                g_autofree char *path = unit_path(u->name);
                r = sd_bus_message_append(reply, "(ssssssouso)", u->name, "", "loaded",
                                          (const char *) g_hash_table_lookup(u->properties, "ActiveState"),
                                          (const char *) g_hash_table_lookup(u->properties, "SubState"), "", path,
                                          (uint32_t) 0, "", "/");
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        return r;
}

static int reply_properties(sd_bus_message *call, bool all) {
        g_autoptr(sd_bus_message) reply = NULL;
        const char *interface, *property = NULL;
        Unit *u = unit_of_path(sd_bus_message_get_path(call));
        int r;

        r = all ? sd_bus_message_read(call, "s", &interface) : sd_bus_message_read(call, "ss", &interface, &property);
        if (r < 0)
                return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_INVALID_ARGS, "Bad arguments");
        if (!u && !all && strcmp(interface, UNIT_IFACE) == 0 && strcmp(property, "LoadState") == 0) {
                /* What systemd loaded, and did not find. */
                r = sd_bus_message_new_method_return(call, &reply);
                if (r >= 0)
                        r = sd_bus_message_append(reply, "v", "s", "not-found");
                return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
        }
        if (!u)
                return sd_bus_reply_method_errorf(call, "org.freedesktop.systemd1.NoSuchUnit", "No unit at %s",
                                                  sd_bus_message_get_path(call));
        if (!all) {
                const char *value = g_hash_table_lookup(u->properties, property);
                if (!value || !property_on_interface(u, property, interface))
                        return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_UNKNOWN_PROPERTY,
                                                          "No property %s.%s", interface, property);
                r = sd_bus_message_new_method_return(call, &reply);
                if (r >= 0)
                        r = append_variant(reply, property, value);
                return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
        }

        g_autoptr(GList) keys = g_hash_table_get_keys(u->properties);
        keys = g_list_sort(keys, (GCompareFunc) strcmp);
        r = sd_bus_message_new_method_return(call, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "{sv}");
        for (GList *k = keys; r >= 0 && k; k = k->next) {
                if (!property_on_interface(u, k->data, interface))
                        continue;
                r = sd_bus_message_open_container(reply, 'e', "sv");
                if (r >= 0)
                        r = sd_bus_message_append(reply, "s", k->data);
                if (r >= 0)
                        r = append_variant(reply, k->data, g_hash_table_lookup(u->properties, k->data));
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

/* The properties were applied when the call came in; only the reply waits. */
static int reply_set_unit_properties(sd_bus_message *call) {
        const char *name = NULL;
        if (sd_bus_message_rewind(call, true) >= 0)
                (void) sd_bus_message_read(call, "s", &name);
        if (!name || !g_hash_table_contains(fake.units, name))
                return sd_bus_reply_method_errorf(call, "org.freedesktop.systemd1.NoSuchUnit", "Unit %s not loaded.",
                                                  name ? name : "?");
        return sd_bus_reply_method_return(call, NULL);
}

static int emit_manager_signal(const char *member, const char *types, ...) {
        g_autoptr(sd_bus_message) m = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_signal(fake.bus, &m, SYSTEMD_PATH, MANAGER_IFACE, member);
        if (r < 0)
                return r;
        va_start(ap, types);
        r = sd_bus_message_appendv(m, types, ap);
        va_end(ap);
        return r < 0 ? r : sd_bus_send(NULL, m, NULL);
}

static int reply_load_unit(sd_bus_message *call) {
        const char *name = NULL;
        int r;

        if (sd_bus_message_rewind(call, true) < 0 || sd_bus_message_read(call, "s", &name) < 0)
                return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_INVALID_ARGS, "Bad arguments");
        g_autofree char *path = unit_path(name);
        r = sd_bus_reply_method_return(call, "o", path);
        if (r >= 0 && !g_hash_table_contains(fake.units, name)) {
                r = emit_manager_signal("UnitNew", "so", name, path);
                if (r >= 0)
                        r = emit_manager_signal("UnitRemoved", "so", name, path);
        }
        return r;
}

static int send_reply(sd_bus_message *call) {
        const char *member = sd_bus_message_get_member(call);
        int r;

        if (strcmp(member, "ListUnits") == 0)
                r = reply_list_units(call);
        else if (strcmp(member, "LoadUnit") == 0)
                r = reply_load_unit(call);
        else if (strcmp(member, "GetAll") == 0 || strcmp(member, "Get") == 0)
                r = reply_properties(call, strcmp(member, "GetAll") == 0);
        else if (strcmp(member, "SetUnitProperties") == 0)
                r = reply_set_unit_properties(call);
        else if (strcmp(member, "Reload") == 0) {
                r = sd_bus_reply_method_return(call, NULL);
                if (r >= 0)
                        r = emit_manager_signal("Reloading", "b", 0);
        } else
                r = sd_bus_reply_method_return(call, NULL);
        if (r < 0)
                fprintf(stderr, "fake-systemd: replying to %s failed: %s\n", member, strerror(-r));
        return 0;
}

static int on_delay(sd_event_source *s, uint64_t usec, void *userdata) {
        sd_bus_message *call = userdata;
        send_reply(call);
        sd_bus_message_unref(call);
        sd_event_source_unref(s);
        return 0;
}

/* Replies now, after the delay, or when released. */
static int reply_later(sd_bus_message *call) {
        const char *member = sd_bus_message_get_member(call);

        if (g_ptr_array_find_with_equal_func(fake.hold, member, g_str_equal, NULL) ||
            g_ptr_array_find_with_equal_func(fake.hold, "*", g_str_equal, NULL)) {
                g_ptr_array_add(fake.held, sd_bus_message_ref(call));
                return 1;
        }
        if (fake.delay_usec > 0) {
                sd_event_source *s = NULL; /* unref'd by on_delay */
                int r = sd_event_add_time_relative(fake.event, &s, CLOCK_MONOTONIC, fake.delay_usec, 0, on_delay,
                                                   sd_bus_message_ref(call));
                if (r < 0) {
                        sd_bus_message_unref(call);
                        return r;
                }
                return 1;
        }
        send_reply(call);
        return 1;
}

/* ---- incoming calls ---- */

static void log_call(sd_bus_message *call, const char *subject) {
        const char *member = sd_bus_message_get_member(call);
        const char *interface = NULL;

        if (strcmp(member, "Get") == 0 || strcmp(member, "GetAll") == 0) {
                const char *property = NULL;
                (void) sd_bus_message_read(call, "s", &interface);
                if (strcmp(member, "Get") == 0)
                        (void) sd_bus_message_read(call, "s", &property);
                log_line("%s %s %s%s%s", member, subject, interface ? interface : "?", property ? " " : "",
                         property ? property : "");
                (void) sd_bus_message_rewind(call, true);
                return;
        }
        log_line("%s %s", member, subject);
}

static int on_set_unit_properties(sd_bus_message *call) {
        const char *name;
        int runtime, r;

        r = sd_bus_message_read(call, "sb", &name, &runtime);
        if (r < 0)
                return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_INVALID_ARGS, "Bad arguments");
        Unit *u = g_hash_table_lookup(fake.units, name);
        GString *line = g_string_new(NULL);
        g_string_printf(line, "SetUnitProperties %s runtime=%s", name, runtime ? "yes" : "no");

        GHashTable *values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        bool refused = false;
        r = sd_bus_message_enter_container(call, 'a', "(sv)");
        while (r >= 0 && (r = sd_bus_message_enter_container(call, 'r', "sv")) > 0) {
                const char *key;
                char *value = NULL;
                r = sd_bus_message_read(call, "s", &key);
                if (r >= 0)
                        r = read_variant(call, &value);
                if (r >= 0) {
                        g_string_append_printf(line, " %s=%s", key, value);
                        refused = refused || (fake.refuse && strcmp(key, fake.refuse) == 0);
                        g_hash_table_replace(values, g_strdup(key), value);
                        r = sd_bus_message_exit_container(call);
                }
        }
        if (refused)
                g_string_append(line, " refused");
        else if (u) {
                GHashTableIter it;
                gpointer key, value;
                g_hash_table_iter_init(&it, values);
                while (g_hash_table_iter_next(&it, &key, &value))
                        g_hash_table_replace(u->properties, g_strdup(key), g_strdup(value));
        }
        g_hash_table_unref(values);
        log_line("%s", line->str);
        g_string_free(line, true);
        if (r < 0)
                return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_INVALID_ARGS, "Bad properties");
        if (refused)
                return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_INVALID_ARGS, "Cannot set property %s: refused by the test",
                                                  fake.refuse);
        return reply_later(call);
}

static int send_properties_changed(Unit *u, const char *key) {
        g_autoptr(sd_bus_message) m = NULL;
        g_autofree char *path = unit_path(u->name);
        const char *interface = unit_interface_property(key) ? UNIT_IFACE : type_interface(u->name);
        int r;

        r = sd_bus_message_new_signal(fake.bus, &m, path, PROPERTIES_IFACE, "PropertiesChanged");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", interface ? interface : UNIT_IFACE);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", key);
        if (r >= 0)
                r = append_variant(m, key, g_hash_table_lookup(u->properties, key));
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "as", 0);
        return r < 0 ? r : sd_bus_send(NULL, m, NULL);
}

static int on_control(sd_bus_message *call) {
        const char *member = sd_bus_message_get_member(call);
        const char *a = NULL, *b = NULL, *c = NULL;
        int r = 0;

        if (strcmp(member, "Hold") == 0) {
                if (sd_bus_message_read(call, "s", &a) < 0)
                        goto bad;
                g_ptr_array_add(fake.hold, g_strdup(a));
        } else if (strcmp(member, "Release") == 0) {
                g_autoptr(GPtrArray) held = g_steal_pointer(&fake.held);
                fake.held = g_ptr_array_new();
                g_ptr_array_set_size(fake.hold, 0);
                for (guint i = 0; i < held->len; i++) {
                        send_reply(g_ptr_array_index(held, i));
                        sd_bus_message_unref(g_ptr_array_index(held, i));
                }
                log_line("Released - %u", held->len);
        } else if (strcmp(member, "Refuse") == 0) {
                if (sd_bus_message_read(call, "s", &a) < 0)
                        goto bad;
                g_free(fake.refuse);
                fake.refuse = *a ? g_strdup(a) : NULL;
        } else if (strcmp(member, "AddUnit") == 0) {
                g_autoptr(GError) error = NULL;
                if (sd_bus_message_read(call, "s", &a) < 0)
                        goto bad;
                Unit *u = unit_parse(a, &error);
                if (!u)
                        return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_INVALID_ARGS, "%s",
                                                          error ? error->message : "empty");
                g_autofree char *path = unit_path(u->name);
                g_autofree char *job = g_strdup_printf(SYSTEMD_PATH "/job/%u", ++fake.job_id);
                unit_add(u);
                r = emit_manager_signal("UnitNew", "so", u->name, path);
                if (r >= 0)
                        r = emit_manager_signal("JobRemoved", "uoss", fake.job_id, job, u->name, "done");
        } else if (strcmp(member, "RemoveUnit") == 0) {
                if (sd_bus_message_read(call, "s", &a) < 0)
                        goto bad;
                g_autofree char *path = unit_path(a);
                unit_remove(a);
                r = emit_manager_signal("UnitRemoved", "so", a, path);
        } else if (strcmp(member, "SetProperty") == 0) {
                if (sd_bus_message_read(call, "sss", &a, &b, &c) < 0)
                        goto bad;
                Unit *u = g_hash_table_lookup(fake.units, a);
                if (!u)
                        return sd_bus_reply_method_errorf(call, "org.freedesktop.systemd1.NoSuchUnit", "No unit %s", a);
                g_hash_table_replace(u->properties, g_strdup(b), g_strdup(c));
                r = send_properties_changed(u, b);
        } else
                return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_UNKNOWN_METHOD, "No method %s", member);
        if (r < 0)
                return sd_bus_reply_method_errnof(call, -r, "%s failed: %m", member);
        return sd_bus_reply_method_return(call, NULL);
bad:
        return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_INVALID_ARGS, "Bad arguments to %s", member);
}

static int on_manager_object(sd_bus_message *call, void *userdata, sd_bus_error *ret_error) {
        const char *interface = sd_bus_message_get_interface(call);
        const char *member = sd_bus_message_get_member(call);

        if (!sd_bus_message_is_method_call(call, NULL, NULL))
                return 0;
        if (g_strcmp0(interface, CONTROL_IFACE) == 0)
                return on_control(call);
        if (interface && strcmp(interface, MANAGER_IFACE) != 0)
                return 0;

        if (strcmp(member, "SetUnitProperties") == 0)
                return on_set_unit_properties(call); /* logs with its arguments */
        if (strcmp(member, "LoadUnit") == 0) {
                const char *name = NULL;
                if (sd_bus_message_read(call, "s", &name) < 0)
                        return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_INVALID_ARGS, "Bad arguments");
                log_line("LoadUnit %s", name);
                return reply_later(call);
        }
        log_call(call, "-");
        if (strcmp(member, "Reload") == 0) {
                int r = emit_manager_signal("Reloading", "b", 1);
                if (r < 0)
                        return r;
                return reply_later(call);
        }
        if (strcmp(member, "Subscribe") == 0 || strcmp(member, "Unsubscribe") == 0 ||
            strcmp(member, "ListUnits") == 0)
                return reply_later(call);
        return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_UNKNOWN_METHOD, "The fake has no %s", member);
}

static int on_unit_object(sd_bus_message *call, void *userdata, sd_bus_error *ret_error) {
        g_autofree char *name = NULL;

        if (!sd_bus_message_is_method_call(call, PROPERTIES_IFACE, "GetAll") &&
            !sd_bus_message_is_method_call(call, PROPERTIES_IFACE, "Get"))
                return 0;
        if (sd_bus_path_decode(sd_bus_message_get_path(call), UNIT_PATH_PREFIX, &name) <= 0)
                return 0;
        log_call(call, name);
        return reply_later(call);
}

/* ---- setup ---- */

static int load_units(const char *path) {
        g_autofree char *text = NULL;
        g_autoptr(GError) error = NULL;

        if (!g_file_get_contents(path, &text, NULL, &error)) {
                fprintf(stderr, "fake-systemd: %s\n", error->message);
                return -1;
        }
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        for (char **l = lines; *l; l++) {
                Unit *u = unit_parse(*l, &error);
                if (error) {
                        fprintf(stderr, "fake-systemd: %s: %s\n", path, error->message);
                        return -1;
                }
                if (u)
                        unit_add(u);
        }
        return 0;
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "units", required_argument, NULL, 'u' },
                { "log", required_argument, NULL, 'l' },
                { "delay-ms", required_argument, NULL, 'd' },
                { "hold", required_argument, NULL, 'H' },
                {},
        };
        const char *units = NULL, *log = NULL;
        sigset_t mask;
        int c, r;

        fake.units = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, unit_free);
        fake.unit_order = g_ptr_array_new_with_free_func(g_free);
        fake.hold = g_ptr_array_new_with_free_func(g_free);
        fake.held = g_ptr_array_new();

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'u':
                        units = optarg;
                        break;
                case 'l':
                        log = optarg;
                        break;
                case 'd':
                        fake.delay_usec = g_ascii_strtoull(optarg, NULL, 10) * 1000;
                        break;
                case 'H':
                        g_ptr_array_add(fake.hold, g_strdup(optarg));
                        break;
                default:
                        return 2;
                }
        if (!units || !log) {
                fprintf(stderr, "Usage: %s --units=FILE --log=FILE [--delay-ms=N] [--hold=METHOD]...\n", argv[0]);
                return 2;
        }
        if (load_units(units) < 0)
                return 1;
        fake.log = fopen(log, "ae");
        if (!fake.log) {
                fprintf(stderr, "fake-systemd: %s: %s\n", log, strerror(errno));
                return 1;
        }

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        r = sd_event_default(&fake.event);
        if (r >= 0)
                r = sd_event_add_signal(fake.event, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(fake.event, NULL, SIGINT, NULL, NULL);
        /* sd_bus_open_system() follows DBUS_SYSTEM_BUS_ADDRESS: the test's private bus. */
        if (r >= 0)
                r = sd_bus_open_system(&fake.bus);
        if (r >= 0)
                r = sd_bus_add_object(fake.bus, NULL, SYSTEMD_PATH, on_manager_object, NULL);
        if (r >= 0)
                r = sd_bus_add_fallback(fake.bus, NULL, UNIT_PATH_PREFIX, on_unit_object, NULL);
        if (r >= 0)
                r = sd_bus_request_name(fake.bus, SYSTEMD_NAME, 0);
        if (r >= 0)
                r = sd_bus_attach_event(fake.bus, fake.event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0) {
                fprintf(stderr, "fake-systemd: setting up the bus failed: %s\n", strerror(-r));
                return 1;
        }
        log_line("ready");

        r = sd_event_loop(fake.event);

        for (guint i = 0; i < fake.held->len; i++)
                sd_bus_message_unref(g_ptr_array_index(fake.held, i));
        g_ptr_array_unref(fake.held);
        g_ptr_array_unref(fake.hold);
        sd_bus_flush_close_unref(fake.bus);
        sd_event_unref(fake.event);
        g_hash_table_unref(fake.units);
        g_ptr_array_unref(fake.unit_order);
        fclose(fake.log);
        return r < 0 ? 1 : 0;
}
