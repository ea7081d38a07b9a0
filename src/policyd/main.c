/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* policyd: arguments, preflight checks, then the loop. Exit codes are
 * documented in policyd(8). */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/capability.h>
#include <sys/stat.h>

#include <systemd/sd-daemon.h>

#include "cgroupfs.h"
#include "log.h"
#include "manager.h"
#include "util.h"

enum {
        EXIT_OK = 0,
        EXIT_FAILED = 1,    /* could not start, or lost the bus with --once */
        EXIT_USAGE = 2,
        EXIT_PREFLIGHT = 3, /* the system lacks what policyd needs: no cgroup v2 hierarchy */
        EXIT_NO_MEMORY = 4, /* --self-test: policyd would run, but apply no swap or zswap setting */
        /* EXIT_NOT_UNDONE = 5 (manager.h): --revert could not undo everything */
};

static bool arg_dry_run = false;
static bool arg_once = false;
static bool arg_revert = false;
static bool arg_self_test = false;

static void help(void) {
        printf("policyd [OPTIONS...]\n\n"
               "Applies policy groups to systemd units and cgroups.\n\n"
               "  -h --help          Show this help\n"
               "     --version       Show the version\n"
               "     --dry-run       Log every change that would be made, make none\n"
               "     --once          Resolve and apply everything once, then exit\n"
               "     --revert        Undo everything policyd set, as if no group were defined,\n"
               "                     then exit (policyd.service must be stopped)\n"
               "     --self-test     Run the preflight checks and exit\n"
               "     --log-level=LEVEL  debug, info, notice, warning, err (or crit, alert, emerg)\n\n"
               "See policyd(8).\n");
}

static int parse_log_level(const char *s) {
        static const char *const names[] = { "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(s, names[i]))
                        return (int) i;
        return -EINVAL;
}

static int parse_argv(int argc, char **argv) {
        enum { ARG_VERSION = 0x100, ARG_DRY_RUN, ARG_ONCE, ARG_REVERT, ARG_SELF_TEST, ARG_LOG_LEVEL };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "dry-run", no_argument, NULL, ARG_DRY_RUN },
                { "once", no_argument, NULL, ARG_ONCE },
                { "revert", no_argument, NULL, ARG_REVERT },
                { "self-test", no_argument, NULL, ARG_SELF_TEST },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                {},
        };
        int c, level;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("policyd %s\n", PROJECT_VERSION);
                        return 0;
                case ARG_DRY_RUN:
                        arg_dry_run = true;
                        break;
                case ARG_ONCE:
                        arg_once = true;
                        break;
                case ARG_REVERT:
                        arg_revert = true;
                        break;
                case ARG_SELF_TEST:
                        arg_self_test = true;
                        break;
                case ARG_LOG_LEVEL:
                        level = parse_log_level(optarg);
                        if (level < 0) {
                                fprintf(stderr, "--log-level=%s: use debug, info, notice, warning or err.\n", optarg);
                                return -EINVAL;
                        }
                        log_set_max_level(level);
                        break;
                default:
                        return -EINVAL;
                }
        if (optind < argc) {
                fprintf(stderr, "policyd takes no arguments, got '%s'.\n", argv[optind]);
                return -EINVAL;
        }
        if (arg_revert && (arg_once || arg_self_test)) {
                fprintf(stderr, "--revert cannot be combined with %s.\n", arg_once ? "--once" : "--self-test");
                return -EINVAL;
        }
        return 1;
}

static bool has_capability(cap_t caps, cap_value_t cap) {
        cap_flag_value_t v = CAP_CLEAR;
        return caps && cap_get_flag(caps, cap, CAP_EFFECTIVE, &v) == 0 && v == CAP_SET;
}

/* Reports, never refuses: only some features need each capability. */
static void report_capabilities(void) {
        static const struct {
                cap_value_t cap;
                const char *name, *what;
        } wanted[] = {
                { CAP_DAC_OVERRIDE, "CAP_DAC_OVERRIDE", "writing cgroups delegated to other users" },
                { CAP_FOWNER, "CAP_FOWNER", "setting xattrs on cgroups delegated to other users" },
        };
        cap_t caps = cap_get_proc();

        for (size_t i = 0; i < ELEMENTSOF(wanted); i++)
                if (!has_capability(caps, wanted[i].cap))
                        log_notice("%s is missing: %s will not work.", wanted[i].name, wanted[i].what);
        if (caps)
                cap_free(caps);
}

/* Whether a blank-separated list (cgroup.controllers) has word. */
static bool has_word(const char *list, const char *word) {
        g_auto(GStrv) words = g_strsplit_set(list, " \t\n", -1);
        return g_strv_contains((const char *const *) words, word);
}

/* Which settings of a group need the memory controller on cgroup v2. */
#define MEMORY_SETTINGS "SwapMax=, SwapHigh=, ZSwapMax=, ZSwapWriteback= and SwapTiers="

static int preflight(char **ret_cgroup_root, bool *ret_memory) {
        g_autofree char *root = NULL;
        g_autofree char *controllers_path = NULL;
        g_autofree char *controllers = NULL;
        int r;

        r = cgroupfs_find_mount(&root);
        if (r < 0)
                return log_error_errno(r, "No cgroup v2 hierarchy is mounted; policyd needs the unified hierarchy: %m");

        controllers_path = g_build_filename(root, "cgroup.controllers", NULL);
        if (!g_file_get_contents(controllers_path, &controllers, NULL, NULL))
                return log_error_errno(-EIO, "Cannot read %s.", controllers_path);
        /* On a hybrid hierarchy memory is cgroup v1's, which policyd does not write. */
        bool memory = has_word(controllers, "memory");
        if (!memory && !arg_self_test)
                log_warning("The memory controller is not available in %s: swap and zswap settings cannot be "
                            "applied, only xattrs.",
                            root);

        if (geteuid() != 0)
                log_warning("Not running as root: writes to cgroups and systemd calls will fail.");
        report_capabilities();

        log_info("cgroup v2 at %s, controllers: %s", root, isempty(g_strstrip(controllers)) ? "none" : controllers);
        *ret_cgroup_root = TAKE_PTR(root);
        *ret_memory = memory;
        return 0;
}

int main(int argc, char **argv) {
        g_autoptr(Manager) m = NULL;
        g_autofree char *cgroup_root = NULL;
        int r;

        log_setup("policyd", LOG_TARGET_AUTO);
        r = parse_argv(argc, argv);
        if (r <= 0)
                return r < 0 ? EXIT_USAGE : EXIT_OK;

        bool memory = false;
        r = preflight(&cgroup_root, &memory);
        if (r < 0)
                return EXIT_PREFLIGHT;
        if (arg_self_test) {
                if (!memory) {
                        log_error("Preflight check failed: the memory controller is not available in %s/cgroup.controllers "
                                  "(on cgroup v1, or not compiled in). policyd would start, but could apply none of "
                                  "the groups' " MEMORY_SETTINGS ": only their xattrs and exec-time settings.",
                                  cgroup_root);
                        return EXIT_NO_MEMORY;
                }
                log_info("Preflight checks passed: cgroup v2 with the memory controller at %s.", cgroup_root);
                return EXIT_OK;
        }

        r = manager_new(cgroup_root, arg_dry_run, arg_once, arg_revert, &m);
        if (r < 0)
                return EXIT_FAILED;
        r = manager_start(m);
        if (r < 0) {
                (void) sd_notifyf(false, "STATUS=Failed to start: %s\nERRNO=%i", g_strerror(-r), -r);
                return EXIT_FAILED;
        }
        r = manager_run(m);
        if (r < 0)
                return EXIT_FAILED;
        return r;
}
