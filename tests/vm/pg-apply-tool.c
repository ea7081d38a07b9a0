/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The applier on its own, for the system suite on a real kernel: load
 * policy files, resolve one cgroup, plan as for a delegated cgroup (no
 * systemd), apply, and keep the record in a file so that undo can run in a
 * later invocation.
 *
 *   pg-apply-tool apply --cgroup-root DIR --policy-dir DIR --record FILE CGROUP [GROUP...]
 *   pg-apply-tool undo  --cgroup-root DIR --record FILE CGROUP
 *
 * apply with no GROUP leaves every group: what the record holds is undone.
 * Prints one line per action, e.g. "WROTE memory.swap.max max -> 67108864".
 * Exit status: 0 success, 1 failure, 2 usage. */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "cgroup-apply.h"
#include "diagnostics.h"
#include "policy-load.h"
#include "resolve.h"
#include "util.h"

#define EXIT_USAGE 2

static void usage(FILE *f) {
        fputs("Usage:\n"
              "  pg-apply-tool apply --cgroup-root DIR --policy-dir DIR --record FILE CGROUP [GROUP...]\n"
              "  pg-apply-tool undo  --cgroup-root DIR --record FILE CGROUP\n",
              f);
}

/* Escaped, so that a multi-line value (swap tiers) stays on its line;
 * "(none)" for an absent xattr, "" for an empty value. */
static char *format_value(const char *v) {
        if (!v)
                return g_strdup("(none)");
        if (!*v)
                return g_strdup("\"\"");
        return g_strescape(v, NULL);
}

static void print_report(const ApplyReport *report) {
        for (guint i = 0; i < report->actions->len; i++) {
                const Action *a = g_ptr_array_index(report->actions, i);
                g_autofree char *result = g_ascii_strup(action_result_to_string(a->result), -1);
                g_autofree char *old_value = format_value(a->old_value);
                g_autofree char *new_value = format_value(a->new_value);

                printf("%s %s %s -> %s", result, a->target, old_value, new_value);
                if (a->error < 0)
                        printf(": %s", g_strerror(-a->error));
                putchar('\n');
        }
        fflush(stdout);
}

static int record_load(const char *path, const char *cgroup, bool must_exist, CgroupRecord **ret) {
        g_autoptr(GError) error = NULL;
        g_autofree char *text = NULL;
        int r;

        if (!g_file_get_contents(path, &text, NULL, &error)) {
                if (!must_exist && g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
                        *ret = cgroup_record_new(cgroup);
                        return 0;
                }
                fprintf(stderr, "pg-apply-tool: %s\n", error->message);
                return -EIO;
        }
        r = cgroup_record_parse(text, ret);
        if (r < 0)
                fprintf(stderr, "pg-apply-tool: %s: not a valid record: %s\n", path, g_strerror(-r));
        return r;
}

static int record_save(const char *path, const CgroupRecord *record) {
        g_autoptr(GError) error = NULL;
        g_autofree char *text = cgroup_record_serialize(record);

        /* Written to a temporary file and renamed: never half a record. */
        if (!g_file_set_contents(path, text, -1, &error)) {
                fprintf(stderr, "pg-apply-tool: %s\n", error->message);
                return -EIO;
        }
        return 0;
}

static int verb_apply(const char *root, const char *policy_dir, const char *record_path, const char *cgroup,
                      const char *const *groups) {
        const char *dirs[] = { policy_dir, NULL };
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autoptr(PolicySet) set = NULL;
        g_autoptr(Resolution) res = NULL;
        g_autoptr(SystemFacts) facts = NULL;
        g_autoptr(CgroupPlan) plan = NULL;
        g_autoptr(CgroupRecord) record = NULL;
        g_autoptr(ApplyReport) report = apply_report_new();
        bool unknown = false;
        int r;

        r = policy_set_load(NULL, dirs, &set, diags);
        for (guint i = 0; i < diags->items->len; i++) {
                g_autofree char *line = diagnostic_format(g_ptr_array_index(diags->items, i));
                fprintf(stderr, "%s\n", line);
        }
        if (r < 0) {
                fprintf(stderr, "pg-apply-tool: cannot load %s: %s\n", policy_dir, g_strerror(-r));
                return EXIT_FAILURE;
        }
        for (const char *const *g = groups; *g; g++)
                if (!policy_set_get(set, *g)) {
                        fprintf(stderr, "pg-apply-tool: no group '%s' in %s\n", *g, policy_dir);
                        unknown = true;
                }
        if (unknown)
                return EXIT_FAILURE;

        Candidate c = {
                .cgroup = cgroup,
                .runtime_groups = groups,
        };
        r = resolve_candidate(set, &c, &res);
        if (r < 0) {
                fprintf(stderr, "pg-apply-tool: cannot resolve %s: %s\n", cgroup, g_strerror(-r));
                return EXIT_FAILURE;
        }

        r = system_facts_probe("/sys", "/proc", &facts);
        if (r < 0) {
                fprintf(stderr, "pg-apply-tool: cannot probe the system: %s\n", g_strerror(-r));
                return EXIT_FAILURE;
        }

        /* A delegated cgroup: no systemd backends. */
        r = cgroup_plan_build(res, facts, 0, &plan);
        if (r < 0) {
                fprintf(stderr, "pg-apply-tool: cannot plan %s: %s\n", cgroup, g_strerror(-r));
                return EXIT_FAILURE;
        }

        /* A record from an earlier run: re-apply, and undo what the plan dropped. */
        if (record_load(record_path, cgroup, false, &record) < 0)
                return EXIT_FAILURE;

        r = cgroup_apply_plan(root, cgroup, plan, record, 0, report);
        print_report(report);
        /* Saved whatever happened: it says what we wrote, even on a partial failure. */
        if (record_save(record_path, record) < 0)
                return EXIT_FAILURE;
        if (r < 0) {
                fprintf(stderr, "pg-apply-tool: apply %s: %s\n", cgroup, g_strerror(-r));
                return EXIT_FAILURE;
        }
        return EXIT_SUCCESS;
}

static int verb_undo(const char *root, const char *record_path, const char *cgroup) {
        g_autoptr(CgroupRecord) record = NULL;
        g_autoptr(ApplyReport) report = apply_report_new();
        int r;

        if (record_load(record_path, cgroup, true, &record) < 0)
                return EXIT_FAILURE;

        r = cgroup_undo(root, cgroup, record, 0, report);
        print_report(report);
        if (r < 0) {
                fprintf(stderr, "pg-apply-tool: undo %s: %s\n", cgroup, g_strerror(-r));
                /* Keep what could not be undone, for a retry. */
                (void) record_save(record_path, record);
                return EXIT_FAILURE;
        }
        if (unlink(record_path) < 0 && errno != ENOENT) {
                fprintf(stderr, "pg-apply-tool: cannot remove %s: %s\n", record_path, g_strerror(errno));
                return EXIT_FAILURE;
        }
        return EXIT_SUCCESS;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "cgroup-root", required_argument, NULL, 'r' },
                { "policy-dir", required_argument, NULL, 'p' },
                { "record", required_argument, NULL, 'f' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        const char *root = NULL, *policy_dir = NULL, *record = NULL, *verb;
        int c;

        if (argc < 2) {
                usage(stderr);
                return EXIT_USAGE;
        }
        verb = argv[1];
        if (streq(verb, "--help") || streq(verb, "-h")) {
                usage(stdout);
                return EXIT_SUCCESS;
        }

        /* Options after the verb: getopt sees the verb as argv[0]. */
        argc--;
        argv++;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'r':
                        root = optarg;
                        break;
                case 'p':
                        policy_dir = optarg;
                        break;
                case 'f':
                        record = optarg;
                        break;
                case 'h':
                        usage(stdout);
                        return EXIT_SUCCESS;
                default:
                        usage(stderr);
                        return EXIT_USAGE;
                }

        if (!root || !record || optind >= argc) {
                usage(stderr);
                return EXIT_USAGE;
        }
        const char *cgroup = argv[optind];
        if (cgroup_path_validate(cgroup) < 0) {
                fprintf(stderr, "pg-apply-tool: invalid cgroup path '%s'\n", cgroup);
                return EXIT_USAGE;
        }

        if (streq(verb, "apply")) {
                if (!policy_dir) {
                        usage(stderr);
                        return EXIT_USAGE;
                }
                return verb_apply(root, policy_dir, record, cgroup, (const char *const *) argv + optind + 1);
        }
        if (streq(verb, "undo")) {
                if (policy_dir || optind + 1 != argc) {
                        usage(stderr);
                        return EXIT_USAGE;
                }
                return verb_undo(root, record, cgroup);
        }
        usage(stderr);
        return EXIT_USAGE;
}
