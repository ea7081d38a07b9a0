/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdbool.h>

#include "exec-settle.h"

struct ExecSettle {
        uint64_t delay_usec;
        GHashTable *due; /* pid → due time (guint64*), owns */
};

typedef struct DuePid {
        pid_t pid;
        uint64_t due;
} DuePid;

ExecSettle *exec_settle_new(uint64_t delay_usec) {
        ExecSettle *s = g_new0(ExecSettle, 1);

        s->delay_usec = delay_usec;
        s->due = g_hash_table_new_full(NULL, NULL, NULL, g_free);
        return s;
}

ExecSettle *exec_settle_free(ExecSettle *s) {
        if (!s)
                return NULL;
        g_hash_table_unref(s->due);
        g_free(s);
        return NULL;
}

void exec_settle_add(ExecSettle *s, pid_t pid, uint64_t now) {
        uint64_t *due;

        if (g_hash_table_contains(s->due, GINT_TO_POINTER(pid)))
                return; /* keeps its turn */
        due = g_new(uint64_t, 1);
        *due = now + s->delay_usec;
        g_hash_table_insert(s->due, GINT_TO_POINTER(pid), due);
}

uint64_t exec_settle_next(const ExecSettle *s) {
        uint64_t next = UINT64_MAX;
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, s->due);
        while (g_hash_table_iter_next(&it, NULL, &value))
                next = MIN(next, *(const uint64_t *) value);
        return next;
}

static int due_pid_compare(const void *a, const void *b) {
        const DuePid *x = a, *y = b;
        if (x->due != y->due)
                return (x->due > y->due) - (x->due < y->due);
        return (x->pid > y->pid) - (x->pid < y->pid);
}

GArray *exec_settle_take_due(ExecSettle *s, uint64_t now) {
        g_autoptr(GArray) due = g_array_new(false, false, sizeof(DuePid));
        GArray *pids = g_array_new(false, false, sizeof(pid_t));
        GHashTableIter it;
        gpointer key, value;

        g_hash_table_iter_init(&it, s->due);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                uint64_t t = *(const uint64_t *) value;
                if (t > now)
                        continue;
                g_array_append_val(due, ((DuePid) { .pid = GPOINTER_TO_INT(key), .due = t }));
                g_hash_table_iter_remove(&it);
        }
        g_array_sort(due, due_pid_compare);
        for (guint i = 0; i < due->len; i++)
                g_array_append_val(pids, g_array_index(due, DuePid, i).pid);
        return pids;
}

void exec_settle_clear(ExecSettle *s) {
        g_hash_table_remove_all(s->due);
}

guint exec_settle_size(const ExecSettle *s) {
        return g_hash_table_size(s->due);
}
