/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* How policyctl writes its output, with systemctl's conventions: a pager
 * and colours on a terminal only, the terminal's width, --json's forms,
 * and a failure when the output could not be written. */

#include <stdbool.h>

#include <glib.h>

/* --no-pager, --no-legend, and --json=pretty (arg_json is any --json). */
extern bool arg_no_pager;
extern bool arg_no_legend;
extern bool arg_json_pretty;

/* Looks at stdout once, before a pager replaces it. */
void output_init(void);
/* Whether stdout was a terminal. */
bool output_on_tty(void);
/* The width to fit output in, or -1 for no limit: output that is not a
 * terminal goes to scripts and files, and is never cut. $COLUMNS wins over
 * the terminal's size, as in systemd's tools. */
int output_columns(void);

/* ANSI sequences, or "" when colours are off: off unless stdout is a
 * terminal (and TERM is not "dumb"), off with $NO_COLOR set, and as
 * $SYSTEMD_COLORS says when that is set to a boolean. */
const char *ansi_highlight_red(void);
const char *ansi_highlight_yellow(void);
const char *ansi_underline(void);
const char *ansi_normal(void);

/* Starts the pager when stdout is a terminal, unless --no-pager, or
 * $SYSTEMD_PAGER (else $PAGER) is empty or "cat". */
void pager_open(void);

/* Prints a JSON text (as json-writer.c writes it) in the form --json asks
 * for, and a newline. */
void json_print(const GString *compact);

/* Flushes stdout, and waits for the pager. code, or EXIT_ERRORS when what
 * was printed could not all be written (the reason on stderr). */
int output_finish(int code);
