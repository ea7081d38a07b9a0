/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "log.h"
#include "manager.h"
#include "process-watch-internal.h"
#include "util.h"

/* Describing: the records for explain and status, and what the process
 * layer watches. */

static const char *const method_names[_PROCESS_METHOD_MAX] = {
        [PROCESS_NEW] = "new",
        [PROCESS_PENDING] = "pending",
        [PROCESS_AS_WANTED] = "as-wanted",
        [PROCESS_INJECTED] = "injected",
        [PROCESS_UNDONE] = "undone",
        [PROCESS_SKIPPED] = "skipped",
        [PROCESS_FAILED] = "failed",
        [PROCESS_MIGRATED] = "migrated",
};

const char *process_method_to_string(ProcessMethod m) {
        return (int) m >= 0 && m < _PROCESS_METHOD_MAX ? method_names[m] : NULL;
}

static int record_pid_compare(const void *a, const void *b) {
        const ProcessRecord *x = *(const ProcessRecord *const *) a, *y = *(const ProcessRecord *const *) b;
        return (x->pid > y->pid) - (x->pid < y->pid);
}

GPtrArray *process_watch_records(ProcessWatch *w, const char *key) {
        GPtrArray *out = g_ptr_array_new();
        g_autoptr(GPtrArray) exited = g_ptr_array_new();
        GHashTableIter it;
        gpointer value;

        /* Records of processes that exited since their cgroup was read. */
        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value))
                if (!((ProcessRecord *) value)->call && process_record_is_stale(value))
                        g_ptr_array_add(exited, value);
        for (guint i = 0; i < exited->len; i++)
                process_record_forget(w, g_ptr_array_index(exited, i));

        g_hash_table_iter_init(&it, w->records);
        while (g_hash_table_iter_next(&it, NULL, &value))
                if (!key || streq_ptr(((ProcessRecord *) value)->subject, key))
                        g_ptr_array_add(out, value);
        g_ptr_array_sort(out, record_pid_compare);
        return out;
}

unsigned process_watch_count_holding(ProcessWatch *w) {
        g_autoptr(GPtrArray) records = NULL;
        unsigned n = 0;

        if (!w)
                return 0;
        records = process_watch_records(w, NULL);
        for (guint i = 0; i < records->len; i++) {
                const ProcessRecord *r = g_ptr_array_index(records, i);
                if (process_record_holds_something(r)) {
                        bool both = r->applied.ksm == 1 && r->applied.mempolicy;
                        log_warning("PID %i still holds what policyd set (%s%s%s): %s", (int) r->pid,
                                    r->applied.ksm == 1 ? "KSM=yes" : "", both ? ", " : "",
                                    r->applied.mempolicy ? r->applied.mempolicy : "", strempty(r->detail));
                        n++;
                }
        }
        return n;
}

char *process_watch_describe(ProcessWatch *w, const char *execs) {
        if (!w->active && g_hash_table_size(w->records) == 0)
                return g_strdup("off: no group sets KSM=, NUMAPolicy= or NUMANodes=");
        unsigned mains = g_hash_table_size(w->watch_by_subject);
        uint64_t opened, requests;
        inject_pool_counts(w->injector, &opened, &requests);
        return g_strdup_printf("inotify on %u cgroups (%s) and %u watches below them; %s; injector %s%s, "
                               "%" G_GUINT64_FORMAT " requests on %" G_GUINT64_FORMAT " connections",
                               mains,
                               w->watching_all ? "all running units: some process holds what policyd set"
                                               : "members whose groups set KSM=, NUMAPolicy= or NUMANodes=",
                               g_hash_table_size(w->watch_by_wd) - mains, execs, inject_pool_socket_path(w->injector),
                               w->injector_missing_logged ? " (not reachable)" : "", requests, opened);
}
