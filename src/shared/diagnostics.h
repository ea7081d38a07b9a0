/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Diagnostics collected while reading configuration. The pure modules never
 * log: they append here, and the edges (policyctl verify, policyd) decide how
 * to show them. */

#include <glib.h>
#include <stdarg.h>
#include <stdbool.h>

typedef enum DiagnosticSeverity {
        DIAGNOSTIC_ERROR,   /* the input does not do what was written; verify fails */
        DIAGNOSTIC_WARNING, /* the input was ignored, safely */
        DIAGNOSTIC_NOTICE,
} DiagnosticSeverity;

/* What is left out, for the journal's MESSAGE_ID= (log.c). */
typedef enum DiagnosticRefusal {
        DIAGNOSTIC_REFUSES_SETTING,      /* at most a line or a value: the rest of the file counts */
        DIAGNOSTIC_REFUSES_FILE,         /* the whole file: unreadable, a syntax systemd refuses, its name */
        DIAGNOSTIC_REFUSES_FILE_TRUST,   /* the whole file, for its owner or mode or those of a
                                          * directory or link on its way (config-trust.h) */
} DiagnosticRefusal;

typedef struct Diagnostic {
        char *file;    /* NULL when not about a file (an argument, say) */
        unsigned line; /* 0 when not about one line */
        DiagnosticSeverity severity;
        DiagnosticRefusal refuses;
        char *message;
} Diagnostic;

typedef struct Diagnostics {
        GPtrArray *items; /* Diagnostic*, owned */
} Diagnostics;

Diagnostics *diagnostics_new(void);
Diagnostics *diagnostics_free(Diagnostics *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Diagnostics, diagnostics_free)

/* Accepts d == NULL, which drops the diagnostic. */
void diagnostics_add(Diagnostics *d, DiagnosticSeverity severity, const char *file, unsigned line,
                     const char *format, ...) G_GNUC_PRINTF(5, 6);
void diagnostics_addv(Diagnostics *d, DiagnosticSeverity severity, const char *file, unsigned line,
                      const char *format, va_list ap) G_GNUC_PRINTF(5, 0);
/* A diagnostic that leaves more than a setting out. */
void diagnostics_add_refusal(Diagnostics *d, DiagnosticRefusal refuses, DiagnosticSeverity severity, const char *file,
                             unsigned line, const char *format, ...) G_GNUC_PRINTF(6, 7);

unsigned diagnostics_count(const Diagnostics *d, DiagnosticSeverity severity);
/* Moves every item of src to the end of dst. */
void diagnostics_take_all(Diagnostics *dst, Diagnostics *src);

/* Orders by file (in order of first appearance), then line; keeps the
 * original order otherwise. Parsing reports syntax first and values later;
 * a reader wants them in file order. */
void diagnostics_sort(Diagnostics *d);

const char *diagnostic_severity_to_string(DiagnosticSeverity s);

/* "file:line: severity: message", as compilers and systemd-analyze print. */
char *diagnostic_format(const Diagnostic *diag);
