/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* g_autoptr() for the sd-bus and sd-event types we hold on the stack. */

#include <glib.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC(sd_bus, sd_bus_flush_close_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(sd_bus_message, sd_bus_message_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(sd_bus_creds, sd_bus_creds_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(sd_bus_slot, sd_bus_slot_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(sd_event, sd_event_unref)

/* How long to wait before connecting again after attempt failures: 1 s,
 * doubling, at most 30 s. */
static inline uint64_t reconnect_delay_usec(unsigned attempt) {
        return MIN(UINT64_C(1) << MIN(attempt, 5u), 30) * 1000000;
}

/* The keys of a hash table in a new array (glib 2.76 has this built in). */
static inline GPtrArray *hash_table_keys(GHashTable *table) {
        GPtrArray *keys = g_ptr_array_sized_new(g_hash_table_size(table));
        GHashTableIter it;
        gpointer key;

        g_hash_table_iter_init(&it, table);
        while (g_hash_table_iter_next(&it, &key, NULL))
                g_ptr_array_add(keys, key);
        return keys;
}
