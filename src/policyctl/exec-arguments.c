/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <getopt.h>

#include <glib.h>

#include "exec-arguments.h"
#include "policy-values.h"
#include "unit-lookup.h"
#include "util.h"

/* NAME with .type added when it has no valid type suffix, as systemd-run
 * does; NULL with *ret_error when it is not a valid name of that type. */
static char *unit_name_with_type(const char *option, const char *name, const char *type, char **ret_error) {
        g_autofree char *full = unit_name_type(name) ? g_strdup(name) : g_strconcat(name, ".", type, NULL);
        const char *have = unit_name_type(full);

        if (!have || unit_name_kind(full) == UNIT_NAME_TEMPLATE) {
                *ret_error = g_strdup_printf("%s=%s: not a valid unit name.", option, name);
                return NULL;
        }
        if (!streq(have, type)) {
                *ret_error = g_strdup_printf("%s=%s: must be a .%s unit.", option, name, type);
                return NULL;
        }
        return TAKE_PTR(full);
}

static bool has_control_characters(const char *s) {
        for (; *s; s++)
                if ((unsigned char) *s < ' ' || *s == 0x7f)
                        return true;
        return false;
}

int exec_arguments_parse(int argc, char **argv, ExecArguments *ret, char **ret_error) {
        enum { ARG_GROUP = 0x100, ARG_UNIT, ARG_SLICE, ARG_DESCRIPTION };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "quiet", no_argument, NULL, 'q' },
                { "group", required_argument, NULL, ARG_GROUP },
                { "unit", required_argument, NULL, ARG_UNIT },
                { "slice", required_argument, NULL, ARG_SLICE },
                { "description", required_argument, NULL, ARG_DESCRIPTION },
                {},
        };
        ExecArguments a = {};
        const char *unit = NULL, *slice = NULL, *why;
        int c, value_index = -1;

        /* "+": the first word that is not an option is the command, and
         * what follows is its own; ":": report a missing value ourselves. */
        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, "+:hq", options, NULL)) >= 0) {
                if (optarg && optind >= 1 && argv[optind - 1] == optarg)
                        value_index = optind - 1; /* "--group G": G is a word of its own */
                switch (c) {
                case 'h':
                        a.help = true;
                        break;
                case 'q':
                        a.quiet = true;
                        break;
                case ARG_GROUP:
                        a.group = optarg;
                        break;
                case ARG_UNIT:
                        unit = optarg;
                        break;
                case ARG_SLICE:
                        slice = optarg;
                        break;
                case ARG_DESCRIPTION:
                        a.description = optarg;
                        break;
                case ':':
                        *ret_error = g_strdup_printf("exec: option '%s' needs a value.", argv[optind - 1]);
                        return -EINVAL;
                default:
                        if (optopt)
                                *ret_error = g_strdup_printf("exec: unknown option '-%c'.", optopt);
                        else
                                *ret_error = g_strdup_printf("exec: unknown option '%s'.", argv[optind - 1]);
                        return -EINVAL;
                }
        }
        int first = optind; /* the command, or argc */
        /* getopt consumed a "--" that ends the options, unless it was the
         * value of the last option ("--group --"). */
        bool dashdash = first >= 2 && streq(argv[first - 1], "--") && first - 1 != value_index;
        optind = 0; /* getopt's state is global: leave it fresh */

        if (a.help) {
                *ret = a;
                return 0;
        }
        if (!a.group) {
                *ret_error = g_strdup("exec needs --group=GROUP: policyctl exec --group=GROUP -- CMD [ARGS...]");
                return -EINVAL;
        }
        if (validate_group_name(a.group, &why) < 0) {
                *ret_error = g_strdup_printf("--group=%s: %s", a.group, why);
                return -EINVAL;
        }
        if (!dashdash) {
                if (first < argc)
                        *ret_error = g_strdup_printf("exec needs '--' before the command: policyctl exec --group=%s -- "
                                                     "%s ...",
                                                     a.group, argv[first]);
                else
                        *ret_error = g_strdup_printf("exec needs '--' and a command: policyctl exec --group=%s -- CMD "
                                                     "[ARGS...]",
                                                     a.group);
                return -EINVAL;
        }
        if (first >= argc || isempty(argv[first])) {
                *ret_error = g_strdup("exec needs a command after '--'.");
                return -EINVAL;
        }
        if (unit && !(a.unit = unit_name_with_type("--unit", unit, "scope", ret_error)))
                return -EINVAL;
        if (slice && !(a.slice = unit_name_with_type("--slice", slice, "slice", ret_error))) {
                g_free(a.unit);
                return -EINVAL;
        }
        if (isempty(a.description))
                a.description = NULL;
        else if (has_control_characters(a.description)) {
                /* systemd writes Description= into the transient unit's file
                 * as it is: a newline would end the line there. */
                *ret_error = g_strdup("--description= must not contain control characters such as newlines.");
                return -EINVAL;
        }
        a.command = argv + first;
        *ret = a;
        return 0;
}

void exec_arguments_done(ExecArguments *a) {
        assert(a);
        g_clear_pointer(&a->unit, g_free);
        g_clear_pointer(&a->slice, g_free);
}

char *exec_default_unit_name(pid_t pid, unsigned attempt) {
        if (attempt <= 1)
                return g_strdup_printf("policyctl-exec-%d.scope", (int) pid);
        return g_strdup_printf("policyctl-exec-%d-%u.scope", (int) pid, attempt);
}

char *exec_default_description(char *const *command) {
        char *s;

        /* exec_arguments_parse() refuses a missing command. */
        assert(command && command[0]);
        s = g_strjoinv(" ", (char **) command);

        /* A script given to sh -c has newlines: one line, as systemd's
         * Description= must be. */
        for (char *p = s; *p; p++)
                if ((unsigned char) *p < ' ' || *p == 0x7f)
                        *p = ' ';
        return s;
}
