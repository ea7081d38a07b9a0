/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "util.h"
#include "write-failure.h"

static void write_failure_free(gpointer p) {
        WriteFailure *f = p;

        g_free(f->target);
        g_free(f->value);
        g_free(f->message);
        g_free(f);
}

GPtrArray *write_failures_new(void) {
        return g_ptr_array_new_with_free_func(write_failure_free);
}

static int write_failures_index(const GPtrArray *failures, Backend backend, const char *target) {
        for (guint i = 0; failures && target && i < failures->len; i++) {
                const WriteFailure *f = g_ptr_array_index(failures, i);
                if (f->backend == backend && streq(f->target, target))
                        return (int) i;
        }
        return -1;
}

const WriteFailure *write_failures_find(const GPtrArray *failures, Backend backend, const char *target) {
        int i = write_failures_index(failures, backend, target);
        return i < 0 ? NULL : g_ptr_array_index(failures, i);
}

void write_failures_set(GPtrArray *failures, Backend backend, const char *target, const char *value, int error,
                        const char *message, uint64_t realtime_usec) {
        WriteFailure *f = g_new0(WriteFailure, 1);

        f->backend = backend;
        f->target = g_strdup(target);
        f->value = g_strdup(value);
        f->error = abs(error);
        f->message = g_strdup(message ?: g_strerror(f->error));
        f->realtime_usec = realtime_usec;
        write_failures_clear(failures, backend, target);
        g_ptr_array_add(failures, f);
}

void write_failures_clear(GPtrArray *failures, Backend backend, const char *target) {
        int i = write_failures_index(failures, backend, target);
        if (i >= 0)
                g_ptr_array_remove_index(failures, (guint) i);
}

void write_failures_update(GPtrArray *failures, const ApplyReport *report, uint64_t realtime_usec) {
        for (guint i = 0; report && i < report->actions->len; i++) {
                const Action *a = g_ptr_array_index(report->actions, i);
                if (a->backend != BACKEND_XATTR && a->backend != BACKEND_CGROUP_FILE)
                        continue;
                switch (a->result) {
                case ACTION_FAILED:
                case ACTION_NO_SPACE:
                        if (!a->unrecorded)
                                write_failures_set(failures, a->backend, a->target, a->new_value, a->error,
                                                   a->message, realtime_usec);
                        break;
                case ACTION_WROTE:
                case ACTION_UNCHANGED:
                case ACTION_RESTORED:
                case ACTION_REMOVED:
                case ACTION_LEFT_FOREIGN:
                        write_failures_clear(failures, a->backend, a->target);
                        break;
                default:
                        break;
                }
        }
}

void write_failures_prune(GPtrArray *failures, int backend, bool (*keep)(Backend, const char *, void *),
                          void *userdata) {
        for (guint i = failures ? failures->len : 0; i > 0; i--) {
                const WriteFailure *f = g_ptr_array_index(failures, i - 1);
                if ((backend < 0 || (int) f->backend == backend) && !keep(f->backend, f->target, userdata))
                        g_ptr_array_remove_index(failures, i - 1);
        }
}
