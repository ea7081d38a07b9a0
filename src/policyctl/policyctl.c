/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* policyctl: a thin client. The offline verbs read configuration through
 * src/shared, exactly as policyd does; the online verbs, in
 * policyctl-online.c, ask the running policyd over the system bus. */

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <glib.h>

#include "conf-parse.h"
#include "diagnostics.h"
#include "json-writer.h"
#include "policy-load.h"
#include "policyctl-online.h"
#include "policyctl-output.h"
#include "policyctl-swap-tiers.h"
#include "system-facts.h"
#include "table.h"
#include "util.h"

static const char *arg_root = NULL;
bool arg_json = false;
bool arg_daemon_reload = false;
bool arg_user = false;

static void help(void) {
        printf("policyctl [OPTIONS...] [COMMAND] ...\n\n"
               "Inspect policy groups, and query and control policyd.\n\n"
               "Offline commands (read the policy files directly):\n"
               "  verify [PATH...]        Check policy files and print every diagnostic\n"
               "  cat-config [GROUP...]   Show a group's file and its drop-ins\n"
               "  list                    List the groups\n"
               "  parse FILE...           Show how systemd's parser reads a file (policy\n"
               "                          or unit file): its sections and assignments by\n"
               "                          line, and where systemd would refuse it\n"
               "  swap-tiers [plan|apply] Compare the swap tiers of policyd.conf's\n"
               "                          [SwapTiers] with the kernel's; apply writes what\n"
               "                          differs, in one write (needs root; no policyd)\n\n"
               "Online commands (ask the running policyd over the system bus):\n"
               "  status                  Show policyd's state and the groups with their\n"
               "                          member counts (the default command)\n"
               "  show GROUP              Show a group's settings and its members\n"
               "  explain UNIT|CGROUP|PID Show a cgroup's groups, and for each knob the\n"
               "                          requested and the effective value and where they\n"
               "                          come from; \"!\" marks a value a parent caps\n"
               "  assign TARGET GROUP     Put a unit, cgroup or PID's cgroup in a group at\n"
               "                          runtime (needs root, or: your own, to a group\n"
               "                          with AllowSelfAssign=yes)\n"
               "  unassign TARGET GROUP   Take it out again (the same)\n"
               "  reload                  Make policyd re-read the policy files (needs root)\n"
               "  exec --group=GROUP [OPTIONS...] -- CMD [ARGS...]\n"
               "                          Run CMD in a new scope in GROUP, with the group's\n"
               "                          KSM= and NUMAPolicy= set (needs root; see\n"
               "                          'policyctl exec --help')\n\n"
               "Options:\n"
               "  -h --help               Show this help\n"
               "     --version            Show the version\n"
               "     --root=DIR           Read configuration below DIR (offline commands only)\n"
               "     --no-pager           Do not pipe the output into a pager\n"
               "     --no-legend          Do not print column headers, footers and hints\n"
               "     --json=pretty|short|off\n"
               "                          Print JSON, indented or on one line (--json is\n"
               "                          --json=short); assign, unassign and reload then\n"
               "                          print nothing on success\n"
               "     --daemon-reload      With reload: then have systemd reload too, so that\n"
               "                          policyd-generator's drop-ins follow the groups\n"
               "     --user               With assign, unassign and explain: a unit name is\n"
               "                          one of your own user manager (user@UID/UNIT)\n\n"
               "Exit status:\n"
               "  0  Success\n"
               "  1  Errors found, or the command failed (for example an unknown group)\n"
               "  2  Usage error\n"
               "  3  policyd is not running, or did not answer\n"
               "  4  Permission denied: reload and exec need root; assign and unassign need\n"
               "     root, or a group with AllowSelfAssign=yes and a target of your own\n"
               "  exec exits with CMD's status once CMD runs; 126 or 127 when it cannot be\n"
               "  run or is not found\n\n"
               "See policyctl(1) and policy.d(5).\n");
}

/* With --root, absolute paths given on the command line are below it, as
 * systemd-analyze does it. */
static char *path_for_argument(const char *path) {
        char *p = arg_root && path[0] == '/' ? g_build_filename(arg_root, path, NULL) : g_strdup(path);
        /* "foo.policy.d/" is the drop-in directory foo.policy.d. */
        for (size_t n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
                p[n - 1] = '\0';
        return p;
}

/* On stdout, errors in red and warnings in yellow when colours are on;
 * stderr stays plain. */
static void print_diagnostics(const Diagnostics *d, FILE *f) {
        assert(d && f);
        for (guint i = 0; i < d->items->len; i++) {
                const Diagnostic *diag = g_ptr_array_index(d->items, i);
                g_autofree char *line = diagnostic_format(diag);
                const char *on = "";

                if (f == stdout && diag->severity == DIAGNOSTIC_ERROR)
                        on = ansi_highlight_red();
                else if (f == stdout && diag->severity == DIAGNOSTIC_WARNING)
                        on = ansi_highlight_yellow();
                fprintf(f, "%s%s%s\n", on, line, *on ? ansi_normal() : "");
        }
}

/* {"file":…,"line":…,"severity":…,"message":…}; without "file" where the
 * object sits under its file already. */
static void append_diagnostic_json(GString *out, const Diagnostic *diag, bool with_file) {
        assert(out && diag);
        g_string_append_c(out, '{');
        if (with_file) {
                json_append_key(out, "file");
                json_append_string(out, diag->file);
                g_string_append_c(out, ',');
        }
        json_append_key(out, "line");
        if (diag->line > 0)
                g_string_append_printf(out, "%u", diag->line);
        else
                g_string_append(out, "null");
        g_string_append_c(out, ',');
        json_append_key(out, "severity");
        json_append_string(out, diagnostic_severity_to_string(diag->severity));
        g_string_append_c(out, ',');
        json_append_key(out, "message");
        json_append_string(out, diag->message);
        g_string_append_c(out, '}');
}

static void print_diagnostics_json(const Diagnostics *d) {
        g_autoptr(GString) out = g_string_new("[");

        for (guint i = 0; i < d->items->len; i++) {
                if (i > 0)
                        g_string_append_c(out, ',');
                append_diagnostic_json(out, g_ptr_array_index(d->items, i), true);
        }
        g_string_append_c(out, ']');
        json_print(out);
}

static void verify_directory(const char *dir, Diagnostics *diags) {
        const char *const dirs[] = { dir, NULL };
        g_autoptr(PolicySet) set = NULL;
        g_autofree char *conf = g_build_filename(dir, "policyd.conf", NULL);

        (void) policy_set_load(NULL, dirs, &set, diags);
        if (g_file_test(conf, G_FILE_TEST_IS_REGULAR))
                (void) policy_file_verify(conf, diags);
}

static int verb_verify(int argc, char **argv) {
        g_autoptr(Diagnostics) diags = diagnostics_new();

        if (argc <= 1) {
                g_autoptr(PolicySet) set = NULL;
                DaemonConfig config;

                (void) policy_set_load(arg_root, NULL, &set, diags);
                daemon_config_init(&config);
                (void) daemon_config_load(arg_root, &config, diags);
                daemon_config_done(&config);

                /* The running kernel's swap tiers (the tree's, with --root):
                 * one whose name is a SwapTiers= keyword is a warning. */
                g_autofree char *sys = g_build_filename(arg_root ?: "/", "sys", NULL);
                g_autofree char *proc = g_build_filename(arg_root ?: "/", "proc", NULL);
                g_autofree char *tiers = g_build_filename(sys, "kernel/mm/swap/tiers", NULL);
                g_autoptr(SystemFacts) facts = NULL;
                if (system_facts_probe(sys, proc, &facts) >= 0)
                        system_facts_diagnose(facts, tiers, diags);
        }

        for (int i = 1; i < argc; i++) {
                g_autofree char *path = path_for_argument(argv[i]);
                struct stat st;

                if (stat(path, &st) < 0) {
                        diagnostics_add(diags, DIAGNOSTIC_ERROR, path, 0, "Cannot access: %s", g_strerror(errno));
                        continue;
                }
                if (S_ISDIR(st.st_mode) && g_str_has_suffix(path, POLICY_SUFFIX ".d")) {
                        /* A drop-in directory: each *.conf on its own. */
                        g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
                        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
                        const char *e;
                        while (d && (e = g_dir_read_name(d)))
                                if (g_str_has_suffix(e, DROPIN_SUFFIX) && e[0] != '.')
                                        g_ptr_array_add(names, g_build_filename(path, e, NULL));
                        g_ptr_array_sort(names, strcmp_ptr);
                        for (guint j = 0; j < names->len; j++)
                                (void) policy_file_verify(g_ptr_array_index(names, j), diags);
                } else if (S_ISDIR(st.st_mode))
                        verify_directory(path, diags);
                else
                        (void) policy_file_verify(path, diags);
        }

        diagnostics_sort(diags);
        if (arg_json)
                print_diagnostics_json(diags);
        else
                print_diagnostics(diags, stdout);

        return diagnostics_count(diags, DIAGNOSTIC_ERROR) > 0 ? EXIT_ERRORS : EXIT_OK;
}

/* ---- parse: a file as systemd's parser reads it ---- */

/* What a section or assignment looks like in the listing, in line order. */
typedef struct ParsedItem {
        unsigned line;
        const ConfSection *section;       /* or */
        const ConfAssignment *assignment;
} ParsedItem;

static int parsed_item_compare(const void *a, const void *b) {
        const ParsedItem *x = a, *y = b;
        return x->line < y->line ? -1 : x->line > y->line;
}

static GArray *parsed_items(const ConfFile *f) {
        GArray *items;

        assert(f);
        items = g_array_new(FALSE, TRUE, sizeof(ParsedItem));
        for (guint i = 0; i < f->sections->len; i++) {
                const ConfSection *s = g_ptr_array_index(f->sections, i);
                g_array_append_val(items, ((ParsedItem) { .line = s->line, .section = s }));
        }
        for (guint i = 0; i < f->assignments->len; i++) {
                const ConfAssignment *a = g_ptr_array_index(f->assignments, i);
                g_array_append_val(items, ((ParsedItem) { .line = a->line, .assignment = a }));
        }
        /* Stable: a section and the assignments after it keep file order. */
        g_array_sort(items, parsed_item_compare);
        return items;
}

static void parse_print_text(const char *path, const ConfFile *f, const Diagnostics *diags) {
        g_autoptr(GArray) items = f ? parsed_items(f) : NULL;
        guint d = 0;

        for (guint i = 0; items && i <= items->len; i++) {
                unsigned line = i < items->len ? g_array_index(items, ParsedItem, i).line : UINT_MAX;

                /* Diagnostics come before the first item past their line. */
                for (; d < diags->items->len; d++) {
                        const Diagnostic *diag = g_ptr_array_index(diags->items, d);
                        if (diag->line >= line)
                                break;
                        g_autofree char *text = diagnostic_format(diag);
                        printf("%s\n", text);
                }
                if (i == items->len)
                        break;
                const ParsedItem *it = &g_array_index(items, ParsedItem, i);
                if (it->section)
                        printf("%s:%u: [%s]\n", path, it->line, it->section->name);
                else
                        printf("%s:%u: %s=%s\n", path, it->line, it->assignment->key, it->assignment->value);
        }
        for (; d < diags->items->len; d++) {
                g_autofree char *text = diagnostic_format(g_ptr_array_index(diags->items, d));
                printf("%s\n", text);
        }
}

static void parse_append_json(GString *out, const char *path, const ConfFile *f, const Diagnostics *diags) {
        g_string_append_c(out, '{');
        json_append_key(out, "file");
        json_append_string(out, path);
        g_string_append_printf(out, ",\"readable\":%s,\"refused\":%s,", f ? "true" : "false",
                               f && f->refused ? "true" : "false");
        json_append_key(out, "error");
        const Diagnostic *fatal = NULL;
        for (guint i = 0; i < diags->items->len && !fatal; i++) {
                const Diagnostic *diag = g_ptr_array_index(diags->items, i);
                if (!f || (f->refused && diag->line == f->refused_line && diag->severity == DIAGNOSTIC_ERROR))
                        fatal = diag;
        }
        if (fatal) {
                if (fatal->line > 0)
                        g_string_append_printf(out, "{\"line\":%u,", fatal->line);
                else
                        g_string_append(out, "{\"line\":null,");
                json_append_key(out, "message");
                json_append_string(out, fatal->message);
                g_string_append_c(out, '}');
        } else
                g_string_append(out, "null");

        g_string_append(out, ",\"sections\":[");
        for (guint i = 0; f && i < f->sections->len; i++) {
                const ConfSection *s = g_ptr_array_index(f->sections, i);
                g_string_append(out, i ? ",{" : "{");
                json_append_key(out, "name");
                json_append_string(out, s->name);
                g_string_append_printf(out, ",\"line\":%u}", s->line);
        }
        g_string_append(out, "],\"assignments\":[");
        for (guint i = 0; f && i < f->assignments->len; i++) {
                const ConfAssignment *a = g_ptr_array_index(f->assignments, i);
                g_string_append(out, i ? ",{" : "{");
                json_append_key(out, "section");
                json_append_string(out, a->section);
                g_string_append_c(out, ',');
                json_append_key(out, "key");
                json_append_string(out, a->key);
                g_string_append_c(out, ',');
                json_append_key(out, "value");
                json_append_string(out, a->value);
                g_string_append_printf(out, ",\"line\":%u}", a->line);
        }
        g_string_append(out, "],\"diagnostics\":[");
        for (guint i = 0; i < diags->items->len; i++) {
                if (i > 0)
                        g_string_append_c(out, ',');
                append_diagnostic_json(out, g_ptr_array_index(diags->items, i), false);
        }
        g_string_append(out, "]}");
}

/* Any file in systemd's dialect (unit files and drop-ins too), line by
 * line: what the parser keeps, and where systemd would refuse the file. */
static int verb_parse(int argc, char **argv) {
        g_autoptr(GString) json = g_string_new("[");
        bool failed = false;

        if (argc <= 1) {
                fprintf(stderr, "parse needs at least one file.\n");
                return EXIT_USAGE;
        }

        for (int i = 1; i < argc; i++) {
                g_autofree char *path = path_for_argument(argv[i]);
                g_autoptr(Diagnostics) diags = diagnostics_new();
                g_autoptr(ConfFile) f = NULL;

                if (conf_parse_file(path, &f, diags) < 0 || f->refused)
                        failed = true;
                if (arg_json) {
                        if (i > 1)
                                g_string_append_c(json, ',');
                        parse_append_json(json, path, f, diags);
                } else
                        parse_print_text(path, f, diags);
        }
        if (arg_json) {
                g_string_append_c(json, ']');
                json_print(json);
        }
        return failed ? EXIT_ERRORS : EXIT_OK;
}

static int load_sources(GPtrArray **ret, Diagnostics *diags) {
        return config_sources_find(arg_root, policy_search_dirs, POLICY_SUFFIX, ret, diags);
}

static int cat_file(const char *path, bool *first) {
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autofree char *data = NULL;
        size_t size;
        int r;

        assert(path && first);
        /* Show refused files too, but say that they are not in effect. */
        if (!config_file_is_trusted(path, diags))
                print_diagnostics(diags, stderr);

        r = read_full_file(path, &data, &size);
        if (r < 0) {
                fprintf(stderr, "Failed to read %s: %s\n", path, g_strerror(-r));
                return r;
        }
        printf("%s# %s\n", *first ? "" : "\n", path);
        fwrite(data, 1, size, stdout);
        if (size > 0 && data[size - 1] != '\n')
                putchar('\n');
        *first = false;
        return 0;
}

static int cat_source(const ConfigSource *s, bool *first) {
        int r = 0;

        assert(s && first);
        if (s->masked) {
                printf("%s# %s is masked by %s\n", *first ? "" : "\n", s->name, s->file);
                *first = false;
                return 0;
        }
        if (s->file)
                r = cat_file(s->file, first);
        for (guint i = 0; i < s->dropins->len; i++) {
                int q = cat_file(g_ptr_array_index(s->dropins, i), first);
                r = r < 0 ? r : q;
        }
        return r;
}

static int verb_cat_config(int argc, char **argv) {
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autoptr(GPtrArray) sources = NULL;
        bool first = true, failed = false;

        (void) load_sources(&sources, diags);

        if (argc <= 1) {
                for (guint i = 0; i < sources->len; i++)
                        failed |= cat_source(g_ptr_array_index(sources, i), &first) < 0;
                return failed ? EXIT_ERRORS : EXIT_OK;
        }

        for (int a = 1; a < argc; a++) {
                const char *name = argv[a];
                bool found = false;

                if (streq(name, "policyd.conf")) {
                        g_autoptr(ConfigSource) s = NULL;
                        (void) config_source_find_one(arg_root, config_search_dirs, name, &s, diags);
                        if (s) {
                                failed |= cat_source(s, &first) < 0;
                                continue;
                        }
                        fprintf(stderr, "No policyd.conf or policyd.conf.d/*.conf found; the defaults apply.\n");
                        failed = true;
                        continue;
                } else {
                        g_autofree char *stripped = g_str_has_suffix(name, POLICY_SUFFIX)
                                                            ? g_strndup(name, strlen(name) - strlen(POLICY_SUFFIX))
                                                            : g_strdup(name);
                        for (guint i = 0; i < sources->len; i++) {
                                const ConfigSource *s = g_ptr_array_index(sources, i);
                                if (streq(s->name, stripped)) {
                                        failed |= cat_source(s, &first) < 0;
                                        found = true;
                                }
                        }
                        if (found)
                                continue;
                }
                fprintf(stderr, "No policy group '%s' found in the search path.\n", name);
                failed = true;
        }
        return failed ? EXIT_ERRORS : EXIT_OK;
}

static const TableColumn list_columns[] = {
        { .header = "GROUP" },
        { .header = "PRIORITY", .right = true, .one_blank = true },
        { .header = "DESCRIPTION" },
        { .header = "FILE" },
};

static int verb_list(int argc, char **argv) {
        /* Piped, nothing is cut. On a terminal, the description gives way
         * (down to its header's width) so that the line fits. */
        static const TableCut cuts[] = { { 2, 11 } };
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autoptr(PolicySet) set = NULL;
        int r;

        if (argc > 1) {
                fprintf(stderr, "list takes no arguments.\n");
                return EXIT_USAGE;
        }

        r = policy_set_load(arg_root, NULL, &set, diags);
        if (r < 0) {
                fprintf(stderr, "Failed to load policy groups: %s\n", g_strerror(-r));
                return EXIT_ERRORS;
        }
        /* Problems in the files go to stderr; the listing is still useful. */
        print_diagnostics(diags, stderr);

        g_autoptr(GPtrArray) names = policy_set_sorted_names(set);

        if (arg_json) {
                g_autoptr(GString) out = g_string_new("[");
                for (guint i = 0; i < names->len; i++) {
                        const PolicyGroup *g = policy_set_get(set, g_ptr_array_index(names, i));
                        if (i > 0)
                                g_string_append_c(out, ',');
                        g_string_append_c(out, '{');
                        json_append_key(out, "name");
                        json_append_string(out, g->name);
                        g_string_append_printf(out, ",\"priority\":%u,", g->priority);
                        json_append_key(out, "description");
                        json_append_string(out, g->description);
                        g_string_append_c(out, ',');
                        json_append_key(out, "documentation");
                        json_append_string_array(out, (const char *const *) g->documentation->pdata,
                                                 g->documentation->len);
                        g_string_append_c(out, ',');
                        json_append_key(out, "file");
                        json_append_string(out, g->file);
                        g_string_append_c(out, ',');
                        json_append_key(out, "dropins");
                        json_append_string_array(out, (const char *const *) g->dropins->pdata, g->dropins->len);
                        g_string_append_c(out, '}');
                }
                g_string_append_c(out, ']');
                json_print(out);
                return EXIT_OK;
        }

        g_autoptr(Table) t = table_new(list_columns, ELEMENTSOF(list_columns), false);
        for (guint i = 0; i < names->len; i++) {
                const PolicyGroup *g = policy_set_get(set, g_ptr_array_index(names, i));
                g_autofree char *priority = g_strdup_printf("%u", g->priority);
                g_autofree char *file = g_strconcat(g->file, g->dropins->len > 0 ? " (+drop-ins)" : "", NULL);
                table_add_row(t, ' ', g->name, priority, g->description, file);
        }
        for (guint i = 0; i < set->masked->len; i++)
                table_add_row(t, ' ', g_ptr_array_index(set->masked, i), NULL, "(masked)", NULL);
        table_layout(t, cuts, ELEMENTSOF(cuts));
        table_print(t);
        if (arg_no_legend)
                return EXIT_OK;
        guint n = policy_set_size(set);
        printf("\n%u %s listed", n, n == 1 ? "group" : "groups");
        if (set->masked->len > 0)
                printf(", %u masked", set->masked->len);
        printf(".\n");
        return EXIT_OK;
}

static int verb_swap_tiers_argv(int argc, char **argv) {
        return verb_swap_tiers(argc, argv, arg_root);
}

typedef struct Verb {
        const char *name;
        int (*run)(int argc, char **argv);
        bool online; /* asks policyd, so --root makes no sense */
        bool pager;  /* prints what may be long: through the pager on a terminal */
} Verb;

static const Verb verbs[] = {
        { "verify", verb_verify, false, true },
        { "cat-config", verb_cat_config, false, true },
        { "list", verb_list, false, true },
        { "parse", verb_parse, false, true },
        { "swap-tiers", verb_swap_tiers_argv, false, false },
        { "status", verb_status, true, true },
        { "show", verb_show, true, true },
        { "explain", verb_explain, true, true },
        { "assign", verb_assign, true, false },
        { "unassign", verb_unassign, true, false },
        { "reload", verb_reload, true, false },
        { "exec", verb_exec, true, false },
};

enum { ARG_VERSION = 0x100, ARG_ROOT, ARG_JSON, ARG_DAEMON_RELOAD, ARG_USER, ARG_NO_PAGER, ARG_NO_LEGEND };
static const struct option options[] = {
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, ARG_VERSION },
        { "root", required_argument, NULL, ARG_ROOT },
        { "json", optional_argument, NULL, ARG_JSON },
        { "no-pager", no_argument, NULL, ARG_NO_PAGER },
        { "no-legend", no_argument, NULL, ARG_NO_LEGEND },
        { "daemon-reload", no_argument, NULL, ARG_DAEMON_RELOAD },
        { "user", no_argument, NULL, ARG_USER },
        {},
};

/* Options may come after the command, but not after "exec": what follows
 * it is exec's, and after "--" the command's own. The index of "exec" when
 * it is the command, or 0: found as getopt finds the command, without
 * reordering argv, and quietly (the full parse reports errors). */
static int exec_verb_index(int argc, char **argv) {
        int c, position = 0;

        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, "+h", options, NULL)) >= 0)
                if (c == '?')
                        goto done;
        if (optind < argc && streq(argv[optind], "exec"))
                position = optind;
done:
        optind = 0;
        opterr = 1;
        return position;
}

static int run(int argc, char **argv);

int main(int argc, char **argv) {
        output_init();
        return output_finish(run(argc, argv));
}

static int run(int argc, char **argv) {
        int c, exec_index = exec_verb_index(argc, argv);

        /* Only policyctl's options before "exec" are policyctl's. */
        while ((c = getopt_long(exec_index > 0 ? exec_index : argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return EXIT_OK;
                case ARG_VERSION:
                        printf("policyctl %s\n", PROJECT_VERSION);
                        return EXIT_OK;
                case ARG_ROOT:
                        if (isempty(optarg)) {
                                fprintf(stderr, "--root= needs a directory.\n");
                                return EXIT_USAGE;
                        }
                        if (!g_file_test(optarg, G_FILE_TEST_IS_DIR)) {
                                fprintf(stderr, "--root=%s: not a directory.\n", optarg);
                                return EXIT_USAGE;
                        }
                        arg_root = optarg;
                        break;
                case ARG_JSON:
                        /* As systemctl: --json alone is short. */
                        if (!optarg || streq(optarg, "short")) {
                                arg_json = true;
                                arg_json_pretty = false;
                        } else if (streq(optarg, "pretty"))
                                arg_json = arg_json_pretty = true;
                        else if (streq(optarg, "off"))
                                arg_json = arg_json_pretty = false;
                        else if (streq(optarg, "help")) {
                                printf("short\npretty\noff\n");
                                return EXIT_OK;
                        } else {
                                fprintf(stderr, "Unknown --json= value '%s': use short, pretty or off.\n", optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case ARG_NO_PAGER:
                        arg_no_pager = true;
                        break;
                case ARG_NO_LEGEND:
                        arg_no_legend = true;
                        break;
                case ARG_DAEMON_RELOAD:
                        arg_daemon_reload = true;
                        break;
                case ARG_USER:
                        arg_user = true;
                        break;
                default:
                        return EXIT_USAGE;
                }

        if (exec_index > 0)
                optind = exec_index;
        /* As systemctl: no command is "status". */
        const char *verb = optind < argc ? argv[optind] : "status";
        char *status_argv[] = { (char *) "status", NULL };
        if (optind >= argc) {
                argc = 1;
                argv = status_argv;
                optind = 0;
        }

        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                if (!streq(verb, verbs[i].name))
                        continue;
                if (arg_daemon_reload && !streq(verbs[i].name, "reload")) {
                        fprintf(stderr, "--daemon-reload goes with reload only.\n");
                        return EXIT_USAGE;
                }
                if (arg_user && !streq(verbs[i].name, "assign") && !streq(verbs[i].name, "unassign") &&
                    !streq(verbs[i].name, "explain")) {
                        fprintf(stderr, "--user goes with assign, unassign and explain only.\n");
                        return EXIT_USAGE;
                }
                if (verbs[i].online && arg_root) {
                        fprintf(stderr,
                                "--root is for the offline commands (verify, cat-config, list, parse, swap-tiers); '%s' asks the "
                                "running policyd. Drop --root.\n",
                                verbs[i].name);
                        return EXIT_USAGE;
                }
                if (verbs[i].pager)
                        pager_open();
                return verbs[i].run(argc - optind, argv + optind);
        }

        fprintf(stderr, "Unknown command '%s'. See 'policyctl --help'.\n", verb);
        return EXIT_USAGE;
}
