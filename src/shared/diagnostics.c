/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "diagnostics.h"

static void diagnostic_free(Diagnostic *diag) {
        if (!diag)
                return;
        g_free(diag->file);
        g_free(diag->message);
        g_free(diag);
}

Diagnostics *diagnostics_new(void) {
        Diagnostics *d = g_new0(Diagnostics, 1);
        d->items = g_ptr_array_new_with_free_func((GDestroyNotify) diagnostic_free);
        return d;
}

Diagnostics *diagnostics_free(Diagnostics *d) {
        if (!d)
                return NULL;
        g_ptr_array_unref(d->items);
        g_free(d);
        return NULL;
}

void diagnostics_addv(Diagnostics *d, DiagnosticSeverity severity, const char *file, unsigned line,
                      const char *format, va_list ap) {
        if (!d)
                return;
        Diagnostic *diag = g_new0(Diagnostic, 1);
        diag->file = g_strdup(file);
        diag->line = line;
        diag->severity = severity;
        diag->message = g_strdup_vprintf(format, ap);
        g_ptr_array_add(d->items, diag);
}

void diagnostics_add(Diagnostics *d, DiagnosticSeverity severity, const char *file, unsigned line,
                     const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        diagnostics_addv(d, severity, file, line, format, ap);
        va_end(ap);
}

void diagnostics_add_refusal(Diagnostics *d, DiagnosticRefusal refuses, DiagnosticSeverity severity, const char *file,
                             unsigned line, const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        diagnostics_addv(d, severity, file, line, format, ap);
        va_end(ap);
        if (d)
                ((Diagnostic *) g_ptr_array_index(d->items, d->items->len - 1))->refuses = refuses;
}

unsigned diagnostics_count(const Diagnostics *d, DiagnosticSeverity severity) {
        unsigned n = 0;
        if (!d)
                return 0;
        for (guint i = 0; i < d->items->len; i++) {
                const Diagnostic *diag = g_ptr_array_index(d->items, i);
                if (diag->severity == severity)
                        n++;
        }
        return n;
}

void diagnostics_take_all(Diagnostics *dst, Diagnostics *src) {
        if (!src)
                return;
        g_ptr_array_set_free_func(src->items, NULL);
        for (guint i = 0; i < src->items->len; i++) {
                if (dst)
                        g_ptr_array_add(dst->items, g_ptr_array_index(src->items, i));
                else
                        diagnostic_free(g_ptr_array_index(src->items, i));
        }
        g_ptr_array_set_size(src->items, 0);
        g_ptr_array_set_free_func(src->items, (GDestroyNotify) diagnostic_free);
}

typedef struct SortKey {
        guint file_rank;
        unsigned line;
        guint index;
        Diagnostic *diag;
} SortKey;

static gint compare_sort_keys(gconstpointer a, gconstpointer b) {
        const SortKey *x = a, *y = b;
        if (x->file_rank != y->file_rank)
                return x->file_rank < y->file_rank ? -1 : 1;
        if (x->line != y->line)
                return x->line < y->line ? -1 : 1;
        return x->index < y->index ? -1 : x->index > y->index;
}

void diagnostics_sort(Diagnostics *d) {
        g_autoptr(GHashTable) ranks = g_hash_table_new(g_str_hash, g_str_equal);
        g_autoptr(GArray) keys = g_array_new(FALSE, FALSE, sizeof(SortKey));

        for (guint i = 0; i < d->items->len; i++) {
                Diagnostic *diag = g_ptr_array_index(d->items, i);
                const char *file = diag->file ? diag->file : "";
                gpointer rank;
                if (!g_hash_table_lookup_extended(ranks, file, NULL, &rank)) {
                        rank = GUINT_TO_POINTER(g_hash_table_size(ranks));
                        g_hash_table_insert(ranks, (gpointer) file, rank);
                }
                SortKey k = { GPOINTER_TO_UINT(rank), diag->line, i, diag };
                g_array_append_val(keys, k);
        }
        g_array_sort(keys, compare_sort_keys);
        for (guint i = 0; i < keys->len; i++)
                d->items->pdata[i] = g_array_index(keys, SortKey, i).diag;
}

const char *diagnostic_severity_to_string(DiagnosticSeverity s) {
        switch (s) {
        case DIAGNOSTIC_ERROR:
                return "error";
        case DIAGNOSTIC_WARNING:
                return "warning";
        case DIAGNOSTIC_NOTICE:
                return "notice";
        }
        return "unknown";
}

char *diagnostic_format(const Diagnostic *diag) {
        const char *sev = diagnostic_severity_to_string(diag->severity);
        if (diag->file && diag->line > 0)
                return g_strdup_printf("%s:%u: %s: %s", diag->file, diag->line, sev, diag->message);
        if (diag->file)
                return g_strdup_printf("%s: %s: %s", diag->file, sev, diag->message);
        return g_strdup_printf("%s: %s", sev, diag->message);
}
